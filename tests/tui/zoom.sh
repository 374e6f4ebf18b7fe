#!/bin/sh
# TUI: zoom, then a change of pane, as tmux: C-b z zooms the active pane;
# C-b Left (a pane change by key), select-pane from the command line, and
# Enter on a line of a zoomed feed each move the focus and end the zoom,
# so the screen shows the pane that now gets the keys.  Once it kept the
# old pane zoomed: nothing but the status line was drawn and typing went
# into a hidden pane.  At 80x24 and at 160x45.
. "$(dirname "$0")/tui-lib"

zoomed() { sm ls --json | grep -q '"zoomed":[[:space:]]*true'; }
not_zoomed() { ! zoomed; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "z$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "z$cols")"
	wait_screen "─" 10
	left=$(active_pane)
	sm send-keys -t "%$left" "echo LEFT''-MARK" Enter
	prefix %
	wait_for 5 pane_count_is 2
	right=$(active_pane)
	sm send-keys -t "%$right" "echo RIGHT''-MARK" Enter
	check "$size: both panes drawn" wait_screen "RIGHT-MARK" 5
	wait_screen "LEFT-MARK" 5

	prefix z
	check "$size: C-b z zooms the right pane" wait_for 3 zoomed
	check "$size: ... the left one is hidden" wait_screen_gone "LEFT-MARK" 3
	prefix Left
	check "$size: C-b Left focuses the left pane" wait_for 3 active_pane_is "$left"
	check "$size: ... and ends the zoom" wait_for 3 not_zoomed
	check "$size: the screen shows the left pane again" wait_screen "LEFT-MARK" 3
	check "$size: ... beside the right one" screen_has "RIGHT-MARK"
	keys "echo typed-here" Enter
	check "$size: typing goes to the pane on screen" wait_for 3 capture_has "%$left" typed-here

	prefix z
	check "$size: C-b z zooms the left pane" wait_for 3 zoomed
	sm select-pane -t "%$right" >/dev/null
	check "$size: select-pane -t the other pane ends the zoom" wait_for 3 not_zoomed
	check "$size: ... and the screen shows both" wait_screen "LEFT-MARK" 3

	# The feed, zoomed: Enter on a line focuses that line's pane, unzoomed.
	prefix v
	feed_open() { pane_count_is 3; }
	wait_for 5 feed_open
	feed=$(active_pane)
	check "$size: the feed shows the right pane's line" wait_for 5 capture_has "%$feed" "%$right"
	prefix z
	check "$size: C-b z zooms the feed" wait_for 3 zoomed
	# Select the right pane's newest line: Up until the selected line
	# (reverse video in the feed) names it.
	selected_is_right() { tm capture-pane -p -e -t main | grep -q "7m[0-9:]* %$right "; }
	tries=0
	while [ "$tries" -lt 8 ] && ! selected_is_right; do
		keys Up
		wait_for 1 selected_is_right
		tries=$((tries + 1))
	done
	keys Enter
	check "$size: Enter on the zoomed feed's line focuses its pane" wait_for 3 active_pane_is "$right"
	check "$size: ... and ends the zoom" wait_for 3 not_zoomed
	check "$size: ... and the screen shows it" wait_screen "RIGHT-MARK" 3
	screen | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "z$cols" >/dev/null
done
finish
