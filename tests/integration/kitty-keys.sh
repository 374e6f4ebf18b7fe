#!/bin/sh
# The kitty keyboard protocol's "disambiguate escape codes" flag, through
# the server's key path (send-keys, as the client's keys go): a program
# that pushed it (CSI > 1 u) gets Escape, Ctrl and Alt keys as
# CSI CODE ; MODIFIERS u, Enter as before; after it pops it (CSI < u),
# the legacy bytes again.  A query (CSI ? u) is answered.
. "$(dirname "$0")/../lib.sh"

sm new -d -s k -x 80 -y 24 -- python3 -c '
import os, sys, tty
tty.setraw(0)
os.write(1, b"\033[>1u\033[?u")
reply = os.read(0, 16)
with open(sys.argv[1], "wb") as f:
    f.write(b"reply " + reply + b"\n"); f.flush()
    os.write(1, b"ready\r\n")
    while True:
        b = os.read(0, 64)
        if b == b"p":
            os.write(1, b"\033[<upopped\r\n")
            b = b"(popped)"
        f.write(b); f.flush()
' "$T_DIR/got" >/dev/null
check "setup: the program pushed the flag" wait_for 10 capture_has %1 ready
got_is() { [ "$(od -An -c "$T_DIR/got" | tr -s ' \n' ' ')" = " $1 " ]; }
check "its query is answered with the flags" got_is 'r e p l y 033 [ ? 1 u \n'
sm send-keys -t %1 Escape C-c M-x Enter
check "Escape, C-c, M-x as CSI u; Enter as before" wait_for 10 got_is \
	'r e p l y 033 [ ? 1 u \n 033 [ 2 7 u 033 [ 9 9 ; 5 u 033 [ 1 2 0 ; 3 u \r'
sm send-keys -t %1 p
# Shown on its screen: the server has read the pop.
check "setup: the program popped the flag" wait_for 10 capture_has %1 popped
sm send-keys -t %1 C-c
check "popped: C-c is 0x03 again" wait_for 10 got_is \
	'r e p l y 033 [ ? 1 u \n 033 [ 2 7 u 033 [ 9 9 ; 5 u 033 [ 1 2 0 ; 3 u \r ( p o p p e d ) 003'
finish
