#!/bin/sh
# TUI: copy mode jumps between the prompts a shell marked with OSC 133
# (tmux 3.8's previous-prompt and next-prompt): `{` goes to the previous
# one, fetching history when it is there, `}` to the next; what is
# copied from there is that prompt's line.
. "$(dirname "$0")/tui-lib"

copied() { [ "$(sm save-buffer - 2>/dev/null)" = "$1" ]; }

start_client
keys "mark() { printf '\\033]133;%s\\007' \"\$1\"; }" Enter
keys "clear; mark A; echo 'P1 first'; seq 1 60; mark A; echo 'P2 second'; echo out; mark A; echo 'P3 end'" Enter
# The output's line, not the command line that spells it: copy mode
# begun before the command ran would have no marks to go to.
wait_for 5 screen_matches '^P3 end *$'

prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys "{" "{" "{" Space '$' Enter
check "{ three times: the first prompt, in history (fetched)" wait_for 5 copied "P1 first"
prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys "{" "{" "{" "}" Space '$' Enter
check "} goes to the next one" wait_for 5 copied "P2 second"
finish
