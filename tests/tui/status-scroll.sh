#!/bin/sh
# TUI: a window list longer than the status line, at 80x24 and 160x45.
# It scrolls as tmux's does: the current window is always shown, a < or
# > says windows are cut on that side, and status_right (the clock) keeps
# its place.  Once the list was cut at the right edge: the current window
# and the clock vanished.
. "$(dirname "$0")/tui-lib"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "s$cols" -x "$cols" -y "$rows" >/dev/null
	n=$((cols / 8))
	i=1
	while [ "$i" -le "$n" ]; do
		sm new-window -t "s$cols" >/dev/null
		i=$((i + 1))
	done
	i=0
	while [ "$i" -le "$n" ]; do
		sm ctl "{\"cmd\":\"rename-window\",\"pane\":$(sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == sys.argv[1]:
        for w in s["windows"]:
            if w["index"] == int(sys.argv[2]):
                print(w["panes"][0]["id"])' "s$cols" "$i"),\"name\":\"win$i\"}" >/dev/null
		i=$((i + 1))
	done
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "s$cols")"
	wait_screen "─" 10
	clock() { status_matches '[0-9][0-9]:[0-9][0-9] [0-9][0-9]-[A-Z][a-z][a-z] *$'; }
	# The last window is the current one (new-window focuses it).
	check "$size: the current (last) window is shown" wait_for 5 status_matches "$n:win$n\\*"
	check "$size: ... with < for the windows cut on its left" status_matches "<"
	check "$size: the clock keeps its place" clock
	prefix 0
	check "$size: at window 0, it is shown" wait_for 5 status_matches "0:win0\\*"
	check "$size: ... with > for the windows cut on its right" status_matches ">"
	check "$size: ... and the clock" clock
	status_line | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "s$cols" >/dev/null
done
finish
