#!/bin/sh
# TUI: directional focus goes back to the pane used last, as tmux's: in
# L | (R1 over R2), from R2 C-b Left then C-b Right returns to R2 (it went
# to R1, the top of the column, whichever was used).  At 80x24 and
# 160x45.
. "$(dirname "$0")/tui-lib"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "f$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "f$cols")"
	wait_screen "─" 10
	left=$(active_pane)
	prefix %
	wait_for 5 pane_count_is 2
	r1=$(active_pane)
	prefix '"'
	wait_for 5 pane_count_is 3
	r2=$(active_pane)
	check "$size: R2, below R1, has the focus" [ "$r2" != "$r1" ]
	prefix Left
	check "$size: C-b Left goes to L" wait_for 3 active_pane_is "$left"
	prefix Right
	check "$size: C-b Right goes back to R2, the pane used last" wait_for 3 active_pane_is "$r2"
	prefix Up
	wait_for 3 active_pane_is "$r1"
	prefix Left
	wait_for 3 active_pane_is "$left"
	prefix Right
	check "$size: ... and from R1, back to R1" wait_for 3 active_pane_is "$r1"
	tm kill-session -t main
	sm kill-session -t "f$cols" >/dev/null
done
finish
