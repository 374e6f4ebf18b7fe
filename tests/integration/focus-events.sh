#!/bin/sh
# Focus events (DECSET 1004): a program that asked is told, with CSI I
# and CSI O, when its pane gains and loses the focus: a client attaches
# to its session, another pane is split off and focused, it is selected
# again, the client goes.  A program that did not ask gets nothing.
. "$(dirname "$0")/../lib.sh"

recorder='
import os, sys, tty
tty.setraw(0)
if sys.argv[2] == "ask":
    os.write(1, b"\033[?1004h")
os.write(1, b"ready\r\n")
with open(sys.argv[1], "wb") as f:
    while True:
        f.write(os.read(0, 64)); f.flush()
'
sm new -d -s f -x 80 -y 24 -- python3 -c "$recorder" "$T_DIR/got" ask >/dev/null
check "setup: the program asked for focus events" wait_for 10 capture_has %1 ready
got_is() { [ "$(od -An -c "$T_DIR/got" | tr -d ' \n')" = "$1" ]; }
check "no client attached: no focus yet" got_is ""

SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"
mkfifo "$T_DIR/hold"
python3 - "$SOCK" "$T_DIR/hold" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'{"id":1,"cmd":"hello","version":1}\n{"id":2,"cmd":"attach","session":"f","cols":80,"rows":25}\n')
open(sys.argv[2]).read()  # until the test closes it
PY
CLIENT=$!
check "a client attached: focus in" wait_for 10 got_is '033[I'
sm split -t %1 -- python3 -c "$recorder" "$T_DIR/other" no >/dev/null
check "another pane split off and focused: focus out" wait_for 10 got_is '033[I033[O'
sm select-pane -t %1 >/dev/null
check "selected again: focus in" wait_for 10 got_is '033[I033[O033[I'
echo >"$T_DIR/hold"
wait "$CLIENT"
check "the client went: focus out" wait_for 10 got_is '033[I033[O033[I033[O'
check "the pane that did not ask got nothing" sh -c "[ ! -s '$T_DIR/other' ]"
finish
