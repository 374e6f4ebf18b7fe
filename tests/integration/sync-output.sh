#!/bin/sh
# Synchronized output (DECSET 2026), counted at a protocol client
# attached over the real socket: a pane that sets the mode, draws 500
# rows and resets it produces exactly one frame, which shows the last
# row; a pane that sets it and never resets it is still shown, once the
# 150 ms timeout has passed.  Each phase starts when the test creates a
# file, so nothing else the pane does is counted.
. "$(dirname "$0")/../lib.sh"

sm new -d -s s -x 80 -y 24 -c "$T_DIR" -- python3 -c '
import os, sys, time
def wait(name):
    while not os.path.exists(name):
        time.sleep(0.02)
out = sys.stdout.buffer
out.write(b"ready\r\n"); out.flush()
wait("go1")
# In three writes a little apart, as a program drawing does: the server
# reads each as it comes, and would frame each without the mode.
rows = [b"".join(b"row %d\r\n" % i for i in range(a, b)) for a, b in ((1, 168), (168, 335), (335, 501))]
out.write(b"\033[?2026h\033[H\033[2J" + rows[0]); out.flush()
time.sleep(0.015)
out.write(rows[1]); out.flush()
time.sleep(0.015)
out.write(rows[2] + b"\033[?2026l"); out.flush()
wait("go2")
out.write(b"\033[?2026h\033[H\033[2Jnever reset\r\n"); out.flush()
time.sleep(600)
' >/dev/null
check "setup: the pane is ready" wait_for 10 capture_has %1 ready
SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"

python3 - "$SOCK" "$T_DIR" >"$T_DIR/report" <<'PY'
import json, os, socket, sys, time
sock_path, work = sys.argv[1], sys.argv[2]
def say(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
s = socket.socket(socket.AF_UNIX); s.connect(sock_path)
buf = b""
def send(obj):
    s.sendall((json.dumps(obj) + "\n").encode())
def frames_until(pred, limit):
    """Frames of the pane until one satisfies pred (or limit seconds)."""
    global buf
    got, end = [], time.monotonic() + limit
    while time.monotonic() < end:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            ev = json.loads(line)
            if ev.get("event") == "frame":
                got.append((time.monotonic(), ev))
                if pred(ev):
                    return got
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
    return got
def text(ev):
    return "\n".join("".join(r["t"] for r in row["runs"]) for row in ev["rows"])
def touch(name):
    open(os.path.join(work, name), "w").close()

send({"id": 1, "cmd": "hello", "version": 1})
send({"id": 2, "cmd": "attach", "session": "s", "cols": 80, "rows": 25})
got = frames_until(lambda ev: "ready" in text(ev), 10)
say(got and "ready" in text(got[-1][1]), "attached: the pane's full frame arrived")

touch("go1")
got = frames_until(lambda ev: "row 500" in text(ev), 10)
say(len(got) == 1, "one update of 500 rows between set and reset is one frame (%d)" % len(got))
say(got and "row 490" in text(got[-1][1]) and "row 500" in text(got[-1][1]),
    "that frame shows the update's last rows")

touch("go2")
start = time.monotonic()
got = frames_until(lambda ev: "never reset" in text(ev), 10)
shown = got and "never reset" in text(got[-1][1])
say(shown, "an update never reset is shown all the same")
say(shown and got[-1][0] - start >= 0.15,
    "after the timeout (%.3f s)" % (got[-1][0] - start if shown else -1))
say(len(got) == 1, "as one frame (%d)" % len(got))
PY
cat "$T_DIR/report"
grep -q "^not ok" "$T_DIR/report" && T_FAILED=1
[ -s "$T_DIR/report" ] || not_ok "the protocol client reported nothing"
finish
