#!/bin/sh
# TUI: a pane whose shell exits leaves no stale text (issue 12, item B).
# The typed `exit` and bash's printed `exit` are drawn as an echo, and
# the pane goes right after.  The pane that takes over its area must
# show exactly what the server has, not the dead pane's last words.
. "$(dirname "$0")/tui-lib"

# Every row of the window's one pane as the client shows it and as the
# server holds it (text only, trailing blanks dropped).
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

# Panes run bash, which prints `exit' as it goes, with a plain prompt.
mkdir -p "$T_DIR/home"
echo "PS1='\$ '" >"$T_DIR/home/.bashrc"
export HOME="$T_DIR/home" SHELL=/bin/bash
sm new -d -s w -x 100 -y 30 >/dev/null
start_client -t w
wait_prompt

# Twice: right of a split (%) and below one (").
for split in % '"'; do
	prefix "$split"
	check "a second pane opens ($split)" wait_for 5 pane_count_is 2
	new=$(active_pane)
	# (capture drops a row's trailing blanks: the prompt is "$")
	wait_for 10 capture_has "%$new" '$'
	# Typed slowly, a key at a time, so each echo is a patch: the next
	# key once the client shows the last one's echo.
	typed=""
	for k in e x i t; do
		keys "$k"
		typed=$typed$k
		wait_screen "\$ $typed"
	done
	keys Enter
	check "the pane exits ($split)" wait_for 5 pane_count_is 1
	# The left/top pane takes the area; its rows are blank where the
	# dead pane's `exit` was.
	check_pane "no stale text after the shell's exit ($split)"
	check "no \`exit' on the screen ($split)" screen_lacks exit
done
finish
