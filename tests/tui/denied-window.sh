#!/bin/sh
# TUI: a denial in a window that is not on screen marks that window in
# the status line (a D after its name, as tmux marks a bell with !),
# until the window is shown.  Once nothing changed: the denial went
# unseen.  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
sm kill-server >/dev/null 2>&1
export HOME="$T_DIR/h"
mkdir -p "$HOME/.ssh"
echo secret >"$HOME/.ssh/id_hidden"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "d$cols" -x "$cols" -y "$rows" >/dev/null
	native=$(sm new-window -t "d$cols" -b native | sed -n 's/^%\([0-9]*\) .*/\1/p')
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "d$cols")"
	wait_screen "─" 10
	prefix 0
	check "$size: window 0 is shown" wait_for 5 status_matches ' 0:[^ ]*\*'
	check "$size: window 1 carries no mark yet" status_matches ' 1:[^ D]* '
	sm send-keys -t "%$native" "cat ~/.ssh/id_hidden" Enter
	check "$size: a denial in window 1 marks it D" wait_for 10 status_matches ' 1:[^ ]*D '
	status_line | sed "s/^/# $size | /"
	prefix 1
	check "$size: shown, window 1 loses the mark" wait_for 5 status_matches ' 1:[^ D]*\* '
	prefix 0
	check "$size: ... and does not get it back" wait_for 5 status_matches ' 1:[^ D]* '
	tm kill-session -t main
	sm kill-session -t "d$cols" >/dev/null
done
finish
