#!/bin/sh
# TUI: the ":" prompt reads the same command table as the command line:
# Tab completes a command's name from it, numbers are strict (":split -l
# abc" is refused in the status line and splits nothing), and a target is
# resolved as on the command line (":split -t SESSION:0.0").
. "$(dirname "$0")/tui-lib"

start_client
session=$(sm ls | sed -n 's/^\([^:]*\): .*/\1/p' | head -1)

prefix :
keys "split -l abc" Enter
check ":split -l abc is refused with the reason" wait_for 3 status_matches "percentage 1..99"
check "... and splits nothing" pane_count_is 1

prefix :
keys "spl" Tab
check "Tab completes a unique command name (spl -> split)" wait_for 3 status_matches '^:split *$'
keys -- "-h" Enter
check "the completed command runs" wait_for 5 pane_count_is 2

prefix :
keys "sel" Tab
check "Tab stops where the names part (sel -> select-)" wait_for 3 status_matches '^:select-$'
keys "p" Tab
check "a second Tab completes the rest (select-p -> select-pane)" wait_for 3 status_matches '^:select-pane *$'
keys Escape

first=$(panes | awk 'NR == 1 { print $1 }')
prefix :
keys "select-pane -t $session:0.0" Enter
check ":select-pane -t SESSION:0.0 focuses that session's first pane" wait_for 3 active_pane_is "$first"

prefix :
keys "split -v -t $session:0.0" Enter
check ":split -t SESSION:0.0 splits it" wait_for 5 pane_count_is 3

prefix :
keys "kill-pane -t nosuch:0" Enter
check "an unknown session in a prompt target is the server's no_such_session" \
	wait_for 3 status_matches "no session nosuch\|no_such_session"
finish
