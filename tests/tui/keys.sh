#!/bin/sh
# TUI: keys travel as names.  The client decodes what the terminal sends
# (ncurses key codes, ESC-prefixed Alt, control characters) into tmux key
# names, the server encodes them for the pane; `cat -v` shows what the
# program finally received.
. "$(dirname "$0")/tui-lib"

start_client
keys "stty -echo; cat -v" Enter
# (stty first: the keys below must not be echoed by the terminal)
wait_for 5 pane_runs cat
received() { sm capture -t "$(active_pane)" | grep -qF -- "$1"; }
# send KEY... then Enter, and expect cat -v to print EXPECTED
expect_keys() {
	what=$1
	expected=$2
	shift 2
	keys "$@" Enter
	check "$what reaches the program as $expected" wait_for 3 received "$expected"
}

expect_keys "Up" "X^[[AX" X Up X
expect_keys "Down Right Left" "Y^[[B^[[C^[[DY" Y Down Right Left Y
expect_keys "Home End" "H^[[H^[[FH" H Home End H
expect_keys "Delete, PageUp, PageDown" "P^[[3~^[[5~^[[6~P" P Delete PageUp PageDown P
expect_keys "F1 and F5" "F^[OP^[[15~F" F F1 F5 F
expect_keys "C-a (a control character)" "C^AC" C C-a C
expect_keys "M-x (ESC prefix)" "M^[xM" M M-x M
expect_keys "C-Left (modified cursor key)" "L^[[1;5DL" L C-Left L
expect_keys "S-Tab" "T^[[ZT" T BTab T
expect_keys "UTF-8 text" "hM-CM-)llo M-dM-8M--M-fM-^VM-^G" "héllo 中文"
keys "abc" BSpace "d" Enter
check "BSpace erases" wait_for 3 received "abd"
keys C-c
finish
