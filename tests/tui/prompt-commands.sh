#!/bin/sh
# TUI: the ":" prompt knows the command line's commands, with the same
# options (#27 item 13): ls shown in the overlay, list-panes and
# display-message -p as a message, record and allow, has-session,
# rename-session, set-option, source-file; an unknown one is one short
# error.  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

run() {
	prefix :
	wait_for 3 status_matches '^:'
	keys -l "$1"
	keys Enter
}

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	s="p$cols"
	sm new -d -s "$s" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "$s")"
	wait_screen "─" 10
	pane=$(sm list-panes -t "$s" | sed -n 's/.* %\([0-9]*\) .*/\1/p')

	run "ls"
	check "$size: :ls shows the listing in the overlay" wait_screen " ls — j/k scroll"
	check "... the session and its pane" sh -c "$SANDMUX_BIN -L $T_NAME ls >/dev/null && tmux -u -L $TMUX_NAME capture-pane -p -t main | grep -q '%$pane \\['"
	screen | sed "s/^/# $size | /" | head -4
	keys q
	check "$size: q closes it" wait_screen_gone " ls — j/k scroll"

	run "list-panes"
	check "$size: :list-panes, one line, as a message" wait_for 3 status_matches "0\\.0: \\[[0-9]*x[0-9]*\\] %$pane none (active)"
	run "display-message -p #{pane_id}:#S"
	check "$size: :display-message -p expands formats" wait_for 3 status_matches "%$pane:$s"
	run "has-session -t nosuch"
	check "$size: :has-session -t nosuch says there is none" wait_for 3 status_matches "no session nosuch"
	run "record $T_DIR/rec-$cols.cast"
	check "$size: :record fills the pane in and starts" wait_for 3 status_matches "recording %$pane to $T_DIR/rec-$cols.cast"
	check "... the file exists" wait_for 3 test -s "$T_DIR/rec-$cols.cast"
	run "record --stop"
	check "$size: :record --stop" wait_for 3 status_matches "recording of %$pane stopped"
	run "allow example.com"
	check "$size: :allow on a host pane: nothing to allow (invalid_state)" wait_for 3 status_matches "not filtered"
	run "set-option window-size largest"
	check "$size: :set-option is known" wait_for 3 eval "! status_matches 'unknown'"
	run "rename-session r$cols"
	check "$size: :rename-session renames it (status line)" wait_for 3 status_matches "^\\[r$cols\\]"
	printf 'rename-session s%s\n' "$cols" >"$T_DIR/src-$cols"
	run "source-file $T_DIR/src-$cols"
	check "$size: :source-file runs its lines" wait_for 3 status_matches "^\\[s$cols\\]"
	run "frobnicate"
	check "$size: an unknown command is one short error" wait_for 3 status_matches "unknown command: frobnicate"
	status_line | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "s$cols" >/dev/null
done
finish
