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

prefix d
check "prefix d detaches with a message" wait_screen "[detached"
check "the client exits 0 on detach" wait_screen "CLIENT-EXIT=0"
check "the server keeps the session after detach" wait_for 2 session_listed

tm kill-session -t main
start_client
check "re-attach redraws the earlier output" wait_screen "tui-marker-42"
finish
