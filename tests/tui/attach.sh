#!/bin/sh
# TUI: attach draws the session, typing reaches the pane and its echo
# comes back, prefix d detaches and leaves the server and session
# running, and a second attach gets the same screen back.
. "$(dirname "$0")/tui-lib"

session_listed() { sm ls | grep -q .; }

start_client
check "status line shows the session" status_matches '^\[[^]]*\] '

check "pane title line shows the backend label none" screen_has " none "
check "one pane" pane_count_is 1

keys "echo tui-marker-\$((6*7))" Enter
check "typed command runs and its output is drawn" wait_screen "tui-marker-42"

# Keystroke echo: one key, drawn without waiting for more input.
keys "x"
check "a single typed key is echoed" wait_for 2 screen_matches '[#$] x$'
keys BSpace

# The terminal shrinks: the client tells the server and redraws, with
# the status line on the new last row.
tm resize-window -t main -x 90 -y 25
last_row_is_status() { [ "$(screen | wc -l)" -eq 25 ] && status_matches '^\['; }
session_is_90_wide() { sm ls | grep -q '(90x'; }
check "after a terminal resize the status line is on the new last row" wait_for 3 last_row_is_status
check "the server was told the new size" wait_for 3 session_is_90_wide
check "the pane is redrawn at the new size" wait_screen "tui-marker-42"

prefix d
check "prefix d detaches with a message" wait_screen "[detached"
check "the client exits 0 on detach" wait_screen "CLIENT-EXIT=0"
check "the server keeps the session after detach" wait_for 2 session_listed

tm kill-session -t main
start_client
check "re-attach redraws the earlier output" wait_screen "tui-marker-42"
finish
