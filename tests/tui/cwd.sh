#!/bin/sh
# TUI: the title's directory follows the shell.  After `cd` the title
# (drawn by the real client) and `ls --json` (current_path) show where the
# shell is now, in a host pane and in a native pane (real bwrap); splits
# open there.  OSC 7 is shown but never steers a new pane, and a native
# pane's path that means another directory on the host (its /tmp is its
# own) is not followed: the new pane opens where the sandbox started.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
# pane_field ID FIELD: from ls --json
pane_field() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    for w in s["windows"]:
        for p in w["panes"]:
            if p["id"] == int(sys.argv[1]):
                print(p[sys.argv[2]])' "$1" "$2"; }
field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
# title_has LABEL TEXT: a title line (the one with the label) shows TEXT
title_has() { screen | grep -F " $1 " | grep -qF -- "$2"; }

mkdir -p "$T_DIR/start" "$T_DIR/a/sub" "$T_DIR/osc"
cd "$T_DIR/start"
start_client
first=$(active_pane)
check "the title shows the starting directory" wait_for 5 title_has none "$T_DIR/start"

keys "cd $T_DIR/a" Enter
check "after cd, the title shows the new directory" wait_for 5 title_has none "$T_DIR/a"
check "after cd, ls --json reports it as current_path" wait_for 5 field_is "$first" current_path "$T_DIR/a"
check "cwd stays where the pane started" field_is "$first" cwd "$T_DIR/start"

prefix '"'
check "prefix \" splits" wait_for 5 pane_count_is 2
second=$(active_pane)
check "the new pane opens in the current directory" wait_for 5 field_is "$second" cwd "$T_DIR/a"
keys "pwd > $T_DIR/pwd.out" Enter
check "its shell really is there" wait_for 5 eval '[ "$(cat "$T_DIR/pwd.out" 2>/dev/null)" = "$T_DIR/a" ]'

# OSC 7 is shown; a split still opens where the shell really is.
keys "printf '\\033]7;file://elsewhere$T_DIR/osc\\007'" Enter
check "OSC 7 sets the title's directory" wait_for 5 field_is "$second" current_path "$T_DIR/osc"
keys "printf '\\033]7;file://h/evil%%1b[31mred\\007'" Enter
check "an OSC 7 with a control character is ignored (the kernel's answer stands)" \
	wait_for 5 field_is "$second" current_path "$T_DIR/a"
prefix '"'
check "prefix \" splits again" wait_for 5 pane_count_is 3
third=$(active_pane)
check "a split opens where the shell is, not where OSC 7 says" wait_for 5 field_is "$third" cwd "$T_DIR/a"

if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
prefix :
keys "new-window -b native" Enter
check "a native pane opens" wait_for 10 screen_has " native "
native=$(active_pane)
check "the native pane starts in the current directory" wait_for 5 field_is "$native" cwd "$T_DIR/a"
keys "cd sub" Enter
check "native: after cd, the title shows the new directory" wait_for 5 title_has native "$T_DIR/a/sub"
check "native: ls --json reports it" wait_for 5 field_is "$native" current_path "$T_DIR/a/sub"
prefix '"'
check "native: a split opens in the sandbox's current directory" \
	wait_for 5 eval '[ "$(pane_count)" -eq 2 ] && field_is "$(active_pane)" cwd "$T_DIR/a/sub"'
prefix Up
check "back to the native pane" wait_for 3 active_pane_is "$native"

# Inside, /tmp is the sandbox's own: its /tmp/x is not the host's.
mkdir -p "/tmp/sandmux-cwd-$$"
keys "mkdir -p /tmp/sandmux-cwd-$$ && cd /tmp/sandmux-cwd-$$" Enter
check "native: the title shows the path in the sandbox's view" \
	wait_for 5 field_is "$native" current_path "/tmp/sandmux-cwd-$$"
prefix '"'
check "native: a path naming another host directory is not followed" \
	wait_for 5 eval '[ "$(pane_count)" -eq 3 ] && field_is "$(active_pane)" cwd "$T_DIR/a"'
prefix Up
wait_for 3 active_pane_is "$native"
keys "cd /usr" Enter
check "native: cd out of the start directory shows in the title" \
	wait_for 5 field_is "$native" current_path "/usr"
prefix '"'
check "native: a directory outside where the sandbox started is not followed" \
	wait_for 5 eval '[ "$(pane_count)" -eq 4 ] && field_is "$(active_pane)" cwd "$T_DIR/a"'
rmdir "/tmp/sandmux-cwd-$$"

finish
