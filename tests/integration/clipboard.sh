#!/bin/sh
# OSC 52 from a pane goes through set_clipboard (src/clipboard.c).  By
# default a host pane's write is dropped (tmux's default); a native
# pane's write is held and asked: refused, it goes nowhere; only once
# allowed is it written (a server buffer, and the attached clients'
# terminals).  Driven by a protocol client attached over the real
# socket.  With "set_clipboard": "on", a host pane's write is a buffer
# at once.
. "$(dirname "$0")/../lib.sh"

for tool in bwrap socat; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (apt-get install bubblewrap socat)"
		finish
	fi
done
# Outside /tmp: the sandbox has a private /tmp.
W=$(mktemp -d /var/tmp/sandmux-clipboard.XXXXXX)
chmod 755 "$W"
trap 'sm kill-server >/dev/null 2>&1; rm -rf "$W" "$T_DIR"' EXIT

sm new -d -s c -x 100 -y 30 -c "$W" -- sh -c 'while [ ! -e host-go ]; do sleep 0.05; done
printf "\033]52;c;aG9zdCB0ZXh0\007host wrote\r\n"; exec sleep 600' >/dev/null
SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"

python3 - "$SOCK" "$W" "$SANDMUX_BIN" "$T_NAME" >"$T_DIR/report" <<'PY'
import json, os, socket, subprocess, sys, time
sock_path, work, binary, name = sys.argv[1:5]
def say(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
s = socket.socket(socket.AF_UNIX); s.connect(sock_path)
buf, nid, seen = b"", [10], []
def send(obj):
    nid[0] += 1; obj["id"] = nid[0]
    s.sendall((json.dumps(obj) + "\n").encode()); return nid[0]
def until(pred, limit):
    """Messages until one satisfies pred; that one, or None."""
    global buf
    end = time.monotonic() + limit
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if msg.get("event") not in ("frame", "layout", None):
                seen.append(msg)
            if pred(msg):
                return msg
        if time.monotonic() >= end:
            return None
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return None
        if not chunk:
            return None
        buf += chunk
def request(obj):
    rid = send(obj)
    return until(lambda m: m.get("id") == rid, 10)
def buffers():
    return [b["name"] for b in request({"cmd": "list-buffers"})["result"]["buffers"]]
def event(kind, pane):
    return lambda m: m.get("event") == kind and m.get("pane") == pane

request({"cmd": "hello", "version": 1})
request({"cmd": "attach", "session": "c", "cols": 100, "rows": 31})

# The host pane: dropped, no question (its screen shows it wrote).
open(os.path.join(work, "host-go"), "w").close()
while "host wrote" not in request({"cmd": "capture", "pane": 1})["result"]["text"]:
    time.sleep(0.05)
say(buffers() == [] and not [m for m in seen if m.get("event") in ("ask", "clipboard")],
    "a host pane's write is dropped by default: no buffer, no question, nothing to the client")

# The native pane: held and asked.
subprocess.run([binary, "-L", name, "split", "-t", "%1", "--backend", "native", "-c", work, "--",
                "sh", "-c", 'printf "\\033]52;c;c2VjcmV0IDE=\\007first\\r\\n"; '
                'while [ ! -e go ]; do sleep 0.05; done; '
                'printf "\\033]52;c;c2VjcmV0IDI=\\007second\\r\\n"; exec sleep 600'],
               check=True, stdout=subprocess.DEVNULL)
ask = until(event("ask", 2), 30)
say(ask is not None and ask.get("kind") == "clipboard" and ask.get("bytes") == 8,
    "a native pane's write is asked about (%r)" % (ask,))
say(buffers() == [], "and is no buffer while it waits")
reply = request({"cmd": "clipboard", "pane": 2, "allow": False})
say(reply.get("ok") and reply["result"]["written"] is False, "refused (%r)" % (reply,))
say(buffers() == [] and not [m for m in seen if event("clipboard", 2)(m)],
    "refused, it went nowhere: no buffer, nothing to the client's terminal")
reply = request({"cmd": "clipboard", "pane": 2, "allow": True})
say(not reply.get("ok") and reply["error"]["code"] == "invalid_state",
    "nothing is held any more: invalid_state (%r)" % (reply.get("error"),))

open(os.path.join(work, "go"), "w").close()
ask = until(event("ask", 2), 10)
say(ask is not None, "its next write is asked about again")
reply = request({"cmd": "clipboard", "pane": 2, "allow": True})
say(reply.get("ok") and reply["result"]["written"] is True, "allowed")
# The event may come before the reply: it is among those seen.
got = ([m for m in seen if event("clipboard", 2)(m)] or [until(event("clipboard", 2), 10)])[0]
say(got is not None and got.get("text") == "secret 2",
    "allowed, it reaches the client (%r)" % (got,))
names = buffers()
say(len(names) == 1 and
    request({"cmd": "show-buffer", "name": names[0]})["result"]["text"] == "secret 2",
    "and becomes a server buffer")
PY
cat "$T_DIR/report"
grep -q "^not ok" "$T_DIR/report" && T_FAILED=1
[ -s "$T_DIR/report" ] || not_ok "the protocol client reported nothing"

check "every decision is in the events log" sh -c \
	"grep '\"clipboard\"' '$XDG_STATE_HOME/sandmux/events.jsonl' | grep -o '\"decision\":\"[a-z]*\"' | tr '\n' ' ' |
	 grep -qx '\"decision\":\"off\" \"decision\":\"held\" \"decision\":\"refused\" \"decision\":\"held\" \"decision\":\"written\" '"

# "set_clipboard": "on": a host pane's write is a buffer at once.
sm kill-server >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/sandmux"
echo '{"set_clipboard": "on"}' >"$XDG_CONFIG_HOME/sandmux/config.json"
sm new -d -s on -x 80 -y 24 -- sh -c 'printf "\033]52;c;aG9zdCB0ZXh0\007on wrote\r\n"; exec sleep 600' >/dev/null
check "setup: the host pane wrote" wait_for 10 capture_has on "on wrote"
check "set_clipboard on: the host pane's write is a server buffer" sh -c \
	"[ \"\$('$SANDMUX_BIN' -L $T_NAME save-buffer -)\" = 'host text' ]"
finish
