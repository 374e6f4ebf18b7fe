#!/bin/sh
# A burst of violations costs an attached client a few layouts, not one
# each: events.c marks the session's layout dirty for each violation and
# the server sends it once per loop turn (server.c, a libuv prepare
# handle, as tmux's notify.c queues), at least LAYOUT_SPACING_MS (50)
# after the session's last.  A native pane makes BURST denied
# opens, each of a new name (so none folds into another), while a
# protocol client attached over the real socket counts the layouts it is
# pushed until one shows them all.  Sent per violation, that would be
# BURST layouts.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# The helper from the plain build: inside the sandbox the filter denies
# ptrace, which LeakSanitizer's exit check needs (as flood.sh).
HB=$ROOT/build/helpers
BURST=${BURST:-2000}

if ! command -v bwrap >/dev/null 2>&1 || [ ! -x "$HB/sv-flood" ]; then
	echo "not ok - needs bwrap and $HB/sv-flood (make build-tests)"
	exit 1
fi

export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh" "$T_DIR/work/bin"
W=$(cd "$T_DIR/work" && pwd -P)
# Copied into the work tree: the sandbox's /tmp is its own.
cp "$HB/sv-flood" "$W/bin/"

# The pane waits for the test's go, so the client counts from before
# the first violation.
sm new -d -s b -x 120 -y 30 --backend native --profile agent -c "$W" -- sh -c \
	"echo READY; while [ ! -e go ]; do sleep 0.05; done; bin/sv-flood $BURST ~/.ssh/burst 200; sleep 600" >/dev/null
check "setup: the native pane waits for go" wait_for 20 capture_has b READY
SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"

python3 - "$SOCK" "$W" "$BURST" >"$T_DIR/report" <<'PY'
import json, os, socket, sys, time
sock_path, work, burst = sys.argv[1], sys.argv[2], int(sys.argv[3])
def say(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
s = socket.socket(socket.AF_UNIX); s.connect(sock_path)
buf = b""
def send(obj):
    s.sendall((json.dumps(obj) + "\n").encode())
def layouts_until(pred, limit):
    """The layouts pushed until one satisfies pred (or limit seconds)."""
    global buf
    got, end = [], time.monotonic() + limit
    while time.monotonic() < end:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            ev = json.loads(line)
            if ev.get("event") == "layout":
                got.append(ev)
                if pred(ev):
                    return got, True
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            chunk = s.recv(1 << 20)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
    return got, False
def violations(ev):
    return sum(p.get("violations", 0) for p in ev.get("panes", []))

send({"id": 1, "cmd": "hello", "version": 1})
send({"id": 2, "cmd": "attach", "session": "b", "cols": 120, "rows": 31})
got, seen = layouts_until(lambda ev: True, 10)
say(seen and violations(got[-1]) == 0, "attached: a layout with no violation yet")

start = time.monotonic()
open(os.path.join(work, "go"), "w").close()
got, seen = layouts_until(lambda ev: violations(ev) >= burst, 120)
took = time.monotonic() - start
say(seen, "a layout shows all %d violations (last seen: %d)"
    % (burst, violations(got[-1]) if got else -1))
# One per turn, 50 ms apart at most: the burst's time over 50 ms, and
# the first and last; however slow the machine, far fewer than one per
# violation.
bound = min(int(took * 1000 / 50) + 3, burst // 4)
say(seen and len(got) <= bound,
    "the burst of %d violations in %.2f s is %d layouts (at most %d)"
    % (burst, took, len(got), bound))
PY
cat "$T_DIR/report"
grep -q "^not ok" "$T_DIR/report" && T_FAILED=1
[ -s "$T_DIR/report" ] || not_ok "the protocol client reported nothing"
finish
