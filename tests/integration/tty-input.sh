#!/bin/sh
# The server reading a client's terminal (server-echo.c), driven step by
# step by a scripted client over the real socket with a real PTY as its
# terminal.  Printable text passes straight to the pane only while the
# client allows it, and never ahead of a forwarded chunk the client has
# not handled yet: the pane gets every byte in the order it was typed.
# Also: a page outside the server's directory is refused, and after the
# client detaches, the server does not read its terminal any more.
. "$(dirname "$0")/../lib.sh"

sm new -d -s t -x 80 -y 24 --remain -- python3 -c '
import os, sys, tty
tty.setraw(0)
with open(sys.argv[1], "wb") as f:
    while True:
        b = os.read(0, 64)
        f.write(b); f.flush()
' "$T_DIR/got" >/dev/null
SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"

python3 - "$SOCK" "$T_DIR/got" "$T_DIR/report" <<'PY'
import json, os, socket, struct, sys, time, tty
sock_path, got_path, report = sys.argv[1], sys.argv[2], sys.argv[3]
out = open(report, "w")
def say(ok, what):
    out.write(("ok - " if ok else "not ok - ") + what + "\n"); out.flush()

master, slave = os.openpty()
tty.setraw(slave)  # as the real client's ncurses leaves it
tty_path = os.ttyname(slave)
# The page: magic, version, drawing, patching, enabled ... (echo-share.h)
page = os.path.join(os.path.dirname(sock_path), "echo-test%d" % os.getpid())
with open(page, "wb") as f:
    f.write(struct.pack("<IIII", 0x6f686365, 3, 1, 0) + b"\0" * 4096)
s = socket.socket(socket.AF_UNIX); s.connect(sock_path)
buf = b""; nid = [0]
def send(obj):
    nid[0] += 1; obj["id"] = nid[0]
    s.sendall((json.dumps(obj) + "\n").encode()); return nid[0]
# events(): what arrives until a quiet 0.3 s (the chance for something
# that must not come); events(until=PRED): until PRED(what arrived) holds,
# or 10 s.
def events(timeout=0.3, until=None):
    global buf
    got = []
    end = time.time() + 10
    while True:
        s.settimeout(timeout if until is None else max(0.01, end - time.time()))
        try:
            chunk = s.recv(65536)
            if not chunk: break
            buf += chunk
        except socket.timeout:
            if until is None or time.time() >= end: break
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1); got.append(json.loads(line))
        if until is not None and (until(got) or time.time() >= end): break
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1); got.append(json.loads(line))
    return got
# replied(ID): the events up to the server's reply to request ID
def replied(rid):
    return events(until=lambda got: any(e.get("id") == rid for e in got))
# chunk(): the events up to the next tty-input chunk
def chunk():
    return events(until=lambda got: any(e.get("event") == "tty-input" for e in got))
# pane_got(): what the pane's program got, after 0.3 s (the chance for
# bytes that must not come); pane_got(WANT): once it is WANT, or after 10 s.
def pane_got(want=None):
    if want is None:
        time.sleep(0.3)
        return open(got_path, "rb").read()
    end = time.time() + 10
    while True:
        got = open(got_path, "rb").read()
        if got == want or time.time() >= end: return got
        time.sleep(0.05)

send({"cmd": "hello", "version": 1})
rid = send({"cmd": "attach", "session": "t", "cols": 80, "rows": 24, "tty": tty_path, "echo": page})
ev = replied(rid)
att = [e for e in ev if e.get("id") == rid]
say(att and att[0].get("ok") and att[0]["result"].get("echo") is True, "attach with a page and a terminal: echo true")
say(not os.path.exists(page), "the server unlinked the page once it had it")
send({"cmd": "tty", "read": True})
replied(send({"cmd": "tty", "passthrough": True, "seq": 0}))
os.write(master, b"g")
say(pane_got(b"g") == b"g", "typed text passes straight to the pane")
# Two chunks: h is typed once the escape sequence has come as the first.
os.write(master, b"\x1b[D")
got = chunk()
os.write(master, b"h")
got += chunk()
chunks = [e for e in got if e.get("event") == "tty-input"]
say([c["seq"] for c in chunks] == [1, 2] and chunks[0]["data"] == "1b5b44" and chunks[1]["data"] == "68",
    "after an escape sequence, input goes to the client in numbered chunks: %r" % [(c["seq"], c["data"]) for c in chunks])
say(pane_got() == b"g", "and nothing of it reached the pane by itself")
# The client handled chunk 1 only, and asks for passthrough: refused,
# chunk 2 is still on its way.
send({"cmd": "key", "key": "Left"})
replied(send({"cmd": "tty", "passthrough": True, "seq": 1}))
os.write(master, b"i")
more = [e for e in chunk() if e.get("event") == "tty-input"]
say([c["seq"] for c in more] == [3], "passthrough is refused while a chunk is unhandled (i forwarded as chunk 3)")
send({"cmd": "key", "text": "h"})
send({"cmd": "key", "text": "i"})
replied(send({"cmd": "tty", "passthrough": True, "seq": 3}))
os.write(master, b"j")
say(pane_got(b"g\x1b[Dhij") == b"g\x1b[Dhij", "the pane got every byte in the order typed: %r" % pane_got())
# Cursor keys, in either cursor-key mode, pass as keys once the client
# lets them: the pane gets them encoded for its own modes, in order with
# the text around them, and the client gets no chunk.
replied(send({"cmd": "tty", "cursor_keys": True, "passthrough": True, "seq": 3}))
os.write(master, b"x\x1b[Dy\x1bOCz")
passed = pane_got(b"g\x1b[Dhijx\x1b[Dy\x1b[Cz")
keyed = [e for e in events() if e.get("event") == "tty-input"]
say(passed == b"g\x1b[Dhijx\x1b[Dy\x1b[Cz" and keyed == [],
    "cursor keys pass straight to the pane when allowed: %r, chunks %r" % (passed, keyed))
# A page outside the server's directory is never opened.
bad = "/tmp/echo-elsewhere%d" % os.getpid()
with open(bad, "wb") as f:
    f.write(struct.pack("<IIII", 0x6f686365, 3, 1, 0) + b"\0" * 4096)
s2 = socket.socket(socket.AF_UNIX); s2.connect(sock_path)
s2.sendall(b'{"id":1,"cmd":"hello","version":1}\n{"id":2,"cmd":"attach","session":"t","cols":80,"rows":24,"tty":"%s","echo":"%s"}\n' % (tty_path.encode(), bad.encode()))
s2.settimeout(10); r = b""
try:
    while b'"id":2' not in r: r += s2.recv(65536)
except socket.timeout: pass
line = [l for l in r.split(b"\n") if b'"id":2' in l]
say(line and json.loads(line[0])["result"].get("echo") is False and os.path.exists(bad),
    "a page outside the server's directory is refused and left alone")
os.unlink(bad); s2.close()
# Detached: the terminal is the shell's again.
replied(send({"cmd": "detach"}))
os.write(master, b"k")
# The thing under test: the server does not read the k; its chance.
time.sleep(0.3)
os.set_blocking(slave, False)
try:
    left = os.read(slave, 64)
except BlockingIOError:
    left = b""
say(left == b"k", "after detach the server no longer reads the terminal (the k is still there: %r)" % left)
say(pane_got() == b"g\x1b[Dhijx\x1b[Dy\x1b[Cz", "and the pane did not get it")
PY
cat "$T_DIR/report"
grep -q '^not ok' "$T_DIR/report" && T_FAILED=1
[ -s "$T_DIR/report" ] || not_ok "the scripted client ran"
finish
