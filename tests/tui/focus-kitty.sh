#!/bin/sh
# TUI: keys and focus from the user's
# terminal reach a program in its own protocol.  A program that pushed
# the kitty keyboard protocol's disambiguate flag (CSI > 1 u) gets
# Escape, C-c and M-x typed on the outer terminal as CSI u, Enter as
# before; a program that asked for focus events (DECSET 1004) is told
# when the client's terminal loses and regains the focus (its CSI O and
# CSI I, which the server asks the terminal for), per client.
. "$(dirname "$0")/tui-lib"

sm new -d -s k -x 80 -y 24 -- python3 -c '
import os, sys, tty
tty.setraw(0)
os.write(1, b"\033[>1u\033[?1004h")
with open(sys.argv[1], "wb") as f:
    os.write(1, b"ready\r\n")
    while True:
        b = os.read(0, 64)
        f.write(b); f.flush()
' "$T_DIR/got" >/dev/null
check "setup: the program asked" wait_for 10 capture_has %1 ready
tm new-session -d -s main -x 100 -y 30 "$(client_cmd -t k)"
wait_screen ready 10

got() { od -An -c "$T_DIR/got" | tr -s ' \n' ' '; }
got_ends() { case "$(got)" in *"$1 ") true ;; *) false ;; esac; }
check "attached: the pane has the focus (CSI I)" wait_for 5 got_ends '033 [ I'
keys Escape
check "Escape as CSI 27 u" wait_for 5 got_ends '033 [ 2 7 u'
keys C-c
check "C-c as CSI 99;5 u" wait_for 5 got_ends '033 [ 9 9 ; 5 u'
keys M-x
check "M-x as CSI 120;3 u" wait_for 5 got_ends '033 [ 1 2 0 ; 3 u'
keys Enter
check "Enter as before" wait_for 5 got_ends '\r'

# The terminal's window loses the focus, then has it again: what a
# terminal asked for 1004 sends (typed into the outer pane here).
report() {
	printf '\033[%s' "$1" >"$T_DIR/focus.bin"
	tm load-buffer -b focus "$T_DIR/focus.bin"
	tm paste-buffer -b focus -d -t main
}
prog=$(active_pane)
report O
check "focus out reaches the pane's program (CSI O)" wait_for 5 got_ends '033 [ O'
# Another pane and back while the terminal has no focus: the program
# hears nothing (a pane is focused only while a terminal is), and the
# key typed after it comes next.
prefix %
wait_for 5 pane_count_is 2
prefix Left
wait_for 5 active_pane_is "$prog"
keys a
check "no focus in while the terminal is unfocused" wait_for 5 got_ends '033 [ O a'
report I
check "focus in again (CSI I)" wait_for 5 got_ends '033 [ I'
keys b
check "the report was no key: the next byte is the typed one" wait_for 5 got_ends '033 [ I b'
finish
