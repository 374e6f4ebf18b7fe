#!/bin/sh
# TUI: closing the last pane of a window switches to another window and
# draws it whole (issue 12, item 2): its text, not only its borders and
# title.  Once with kill-pane (C-b x y), once with the shell's own exit.
. "$(dirname "$0")/tui-lib"

# The active pane's rows as the client shows them and as the server
# holds them (text only, trailing blanks dropped), equal when the screen
# tells the truth.
pane_as_server() {
	set -- $(panes | awk '$6 == "active" { print $1, $3, $5 }')
	screen | sed -n "$(($2 + 1)),$(($2 + $3))p" | sed 's/ *$//' >"$T_DIR/client.txt"
	sm capture -t "%$1" | sed 's/ *$//' | head -n "$3" >"$T_DIR/server.txt"
	diff "$T_DIR/client.txt" "$T_DIR/server.txt" >"$T_DIR/diff.txt"
}
check_pane() {
	if wait_for 3 pane_as_server; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/# /' "$T_DIR/diff.txt" | head -10
	fi
}

sm new -d -s w -x 120 -y 38 -- env PS1='$ ' bash --norc --noprofile >/dev/null
start_client -t w
wait_prompt
keys "echo WINDOW-ZERO-TEXT" Enter
wait_screen 'WINDOW-ZERO-TEXT' 5

prefix c
check "a second window opens" wait_for 5 status_matches '1:'
wait_screen_gone 'WINDOW-ZERO-TEXT'
prefix x
check "kill-pane asks first" wait_screen 'y/n' 3
keys y
check "back in window 0 after C-b x y, its text drawn" wait_screen 'WINDOW-ZERO-TEXT' 3
check_pane "... every row as the server has it"

prefix c
wait_for 5 status_matches '1:'
wait_screen_gone 'WINDOW-ZERO-TEXT'
keys "exit" Enter
check "back in window 0 after exit, its text drawn" wait_screen 'WINDOW-ZERO-TEXT' 5
check_pane "... every row as the server has it"
finish
