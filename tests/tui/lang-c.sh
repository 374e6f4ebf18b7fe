#!/bin/sh
# TUI: a client in a C locale (LANG=C), at 80x24 and 160x45.  ncursesw
# draws nothing for a character the locale cannot encode, so the pane
# borders were blank columns; they are drawn in ASCII (| - +), as tmux
# draws them on a terminal without line drawing, and other characters
# the locale cannot show are '?'.
. "$(dirname "$0")/tui-lib"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "c$cols" -x "$cols" -y "$rows" >/dev/null
	sm split -t "c$cols" -h >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd LANG=C LC_ALL=C -t "c$cols")"
	wait_for 10 screen_matches ' none '
	row() { screen | sed -n "${1}p"; }
	vertical() { row 3 | grep -q '^ *|'; }
	check "$size: the border between the panes is drawn (|)" wait_for 5 vertical
	check "$size: the title lines are drawn (-) and meet the border (+)" \
		sh -c 'printf "%s\n" "$1" | grep -q -- "-+ none "' - "$(row 1)"
	row 1 | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "c$cols" >/dev/null
done
finish
