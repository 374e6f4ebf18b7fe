#!/bin/sh
# TUI: C-b ? at 160x45 shows each binding's description whole (it was
# cut at about 37 columns whatever the width: the overlay was at most
# 100 wide); at 80x24 the command column gives the description room.
. "$(dirname "$0")/tui-lib"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "h$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "h$cols")"
	wait_screen "─" 10
	prefix ?
	check "$size: the help opens" wait_screen "key bindings (prefix C-b)" 5
	if [ "$cols" -ge 160 ]; then
		check "$size: a long description is whole" \
			screen_matches 'split -h  *split a pane (-h side by side, -v stacked)'
		check "$size: ... and another" \
			screen_matches 'select-layout even-horizontal  *arrange a window: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled'
	else
		check "$size: the description has room beside the command" \
			screen_matches 'split -h  *split a pane (-h side by'
	fi
	fits() { [ "$(screen | wc -L)" -le "$cols" ]; }
	check "$size: nothing is drawn past the screen" fits
	screen | sed -n 2,4p | sed "s/^/# $size | /"
	keys q
	tm kill-session -t main
	sm kill-session -t "h$cols" >/dev/null
done
finish
