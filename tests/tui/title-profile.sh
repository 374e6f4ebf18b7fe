#!/bin/sh
# TUI: a sandboxed pane's title shows its profile beside the label (an
# agent pane looked exactly like a terminal pane), and a suspended pane
# says so; a host pane's title is unchanged.  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
backend_is() { [ "$(pane_field "$1" backend)" = "$2" ]; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "t$cols" -x "$cols" -y "$rows" >/dev/null
	agent=$(sm split -t "t$cols" -v -b native -P agent | sed -n 's/^%\([0-9]*\) .*/\1/p')
	term=$(sm split -t "%$agent" -v -b native -P terminal | sed -n 's/^%\([0-9]*\) .*/\1/p')
	wait_for 10 backend_is "$agent" native
	wait_for 10 backend_is "$term" native
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "t$cols")"
	wait_screen "─" 10
	check "$size: the agent pane's title says agent" wait_screen " native agent " 5
	check "$size: the terminal pane's title says terminal" wait_screen " native terminal " 5
	check "$size: the host pane's title is the label alone" screen_matches '^ none  '
	sm suspend -t "%$agent" >/dev/null
	check "$size: a suspended pane says so" wait_screen " native agent suspended " 5
	sm resume -t "%$agent" >/dev/null
	check "$size: ... and not once resumed" wait_screen_gone "suspended" 5
	screen | grep ' native ' | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "t$cols" >/dev/null
done
finish
