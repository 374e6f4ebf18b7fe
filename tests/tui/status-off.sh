#!/bin/sh
# TUI: with "status": false there is no status line, and the panes get
# the whole terminal (issue 12, item 9): the session is as tall as the
# client, the pane's last row is the terminal's last row.  A message
# still shows there while it lasts, and the pane's row comes back after.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
printf '{"status": false}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
sm new -d -s s -x 120 -y 38 -- env PS1='$ ' bash --norc --noprofile >/dev/null
start_client -t s
wait_prompt
last_row() { screen | tail -n 1; }
last_row_is() { [ "$(last_row)" = "$1" ]; }
no_status_line() { ! last_row | grep -q '^\[s\] 0:'; }
pane_rows_are() { [ "$(panes | awk 'NR == 1 { print $5 }')" = "$1" ]; }
# 40 rows of terminal: one title row, 39 rows of pane.
check "the pane is 39 rows high in a 40-row terminal ($(panes | awk 'NR == 1 { print $5 }'))" \
	wait_for 3 pane_rows_are 39
check "... no status line drawn" no_status_line
keys "clear; seq 1 38; printf LAST-ROW" Enter
check "the pane's output reaches the terminal's last row" wait_for 5 last_row_is 'LAST-ROW$'
check "... and the row above it is the pane's too" sh -c "[ \"$(screen | tail -n 2 | head -n 1)\" = 38 ]"
# A message takes the last row while it lasts.
prefix :
keys "no-such-command" Enter
check "a message shows on the last row" wait_screen "no-such-command" 3
# Keys echoed on the pane's last row under the message: the echo draws
# that row again, and the message must stay over it while it lasts.
pane_echoed() { sm capture -t "%$(active_pane)" | grep -qF 'LAST-ROW$ abc'; }
keys "abc"
check "... the keys echo in the pane under it" wait_for 3 pane_echoed
check "... the terminal drew them (its cursor is the pane's)" wait_for 3 cursor_agrees
last_row_has() { last_row | grep -qF -- "$1"; }
check "... and the message still covers that row" last_row_has "no-such-command"
check "... then goes, the pane's row drawn again, with the echo" \
	wait_for 10 last_row_is 'LAST-ROW$ abc'
finish
