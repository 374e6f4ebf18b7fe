#!/bin/sh
# TUI: clear(1) sends ED 3 (CSI 3 J), which empties the pane's history:
# the old output comes back neither in copy mode, nor in the server's
# capture, nor when the pane grows again after a resize (growing pulls
# lines back from history).  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

pane_rows() { panes | awk '{ print $5; exit }'; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "c$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "c$cols")"
	wait_screen "─" 10
	keys "seq -f old%g 1 300" Enter
	wait_screen "old300"
	check "$size: the output reached history" capture_has "c$cols" "old150"
	keys clear Enter
	check "$size: clear empties the screen" wait_screen_gone "old300"
	check "$size: ... and the server's history" wait_for 5 eval "! capture_has c$cols old150"
	prefix [
	check "$size: copy mode starts with no history" wait_for 5 screen_matches '\[0/0\]'
	keys g
	check "$size: g (the top of history) shows no old output" wait_for 3 screen_lacks "old"
	keys q
	wait_for 3 eval "! screen_matches '\[0/0\]'"
	full=$(pane_rows)
	tm resize-window -t main -y $((rows - 8))
	wait_for 5 eval '[ "$(pane_rows)" -lt "$full" ]'
	tm resize-window -t main -y "$rows"
	check "$size: the pane grows back" wait_for 5 eval '[ "$(pane_rows)" = "$full" ]'
	check "$size: ... without the cleared output" screen_lacks "old"
	screen | sed "s/^/# $size | /" | head -5
	tm kill-session -t main
	sm kill-session -t "c$cols" >/dev/null
done
finish
