#!/bin/sh
# TUI: the feed after a kill-server, at 80x24 and at 160x45.  Pane ids
# start again at %1 with each server, so the feed keeps an earlier
# server's lines apart: its violations under "── earlier ──", never
# folded into today's; its panes' lifecycle lines (the starts and the
# kills of panes that are gone) not shown; and Enter on an earlier line
# says so instead of focusing today's unrelated pane of the same id.
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
echo secret >"$HOME/.ssh/old_key"
denied() { sm events --json | grep -q "$1"; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	# The earlier server: %1 on the host, %2 native, denied a read.
	sm new -d -s work -x "$cols" -y "$rows" >/dev/null
	sm split -t %1 -h -b native >/dev/null
	sm send-keys -t %2 "cat ~/.ssh/old_key" Enter
	wait_for 10 denied old_key
	sm kill-server >/dev/null
	# Today's server: %1 and a native %2 again, other panes of the same ids.
	sm new -d -s work -x "$cols" -y "$rows" >/dev/null
	sm split -t %1 -h -b native >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t work)"
	wait_screen "─" 10
	sm select-pane -t %1 >/dev/null
	prefix v
	check "$size: the feed opens" wait_screen "feed · work" 5
	check "$size: the earlier server's denial is under the earlier mark" \
		wait_screen "── earlier ──" 5
	check "$size: ... its line shows" wait_for 5 screen_matches '%2 native file-read\*.*old_key'
	check "$size: the earlier panes' kills are not shown" sh -c '! tmux -u -L "$1" -f "$2" capture-pane -p -t main | grep -q " killed "' - "$TMUX_NAME" "$T_DIR/tmux.conf"
	feed=$(active_pane)
	# Select the earlier line (the first one): Up until the reverse-video
	# line names old_key.
	selected_old() { tm capture-pane -p -e -t main | grep -q "7m[0-9:]* %2 .*old_key"; }
	# moved: the screen (reverse video included) is no longer the one
	# before the last Up: the selection moved
	moved() { ! tm capture-pane -p -e -t main | cmp -s - "$T_DIR/before-up"; }
	tries=0
	while [ "$tries" -lt 20 ] && ! selected_old; do
		tm capture-pane -p -e -t main >"$T_DIR/before-up"
		keys Up
		# the selection moves, or the top is reached: wait for it
		wait_for 1 moved
		tries=$((tries + 1))
	done
	check "$size: the earlier line can be selected" selected_old
	keys Enter
	check "$size: Enter on it says it is an earlier server's" wait_screen "an earlier server's line" 3
	check "$size: ... and today's %2 does not get the focus" active_pane_is "$feed"
	screen | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-server >/dev/null
done
finish
