#!/bin/sh
# TUI: choose-tree as a tmux user knows it.  prefix w lists the sessions,
# their windows and each window's panes, every pane with the label of the
# backend that really wraps it and its violation count; Up/Down and j/k
# move, Enter shows the chosen pane (its window and session become the
# current ones), q and Escape leave changing nothing, Left/Right collapse
# and expand.  prefix s starts with the sessions collapsed, and Enter on
# another session switches the client to it.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi

# "SESSION WINDOW PANE" the session SESSION shows now (the server's view).
current() {
	sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] != sys.argv[1]:
        continue
    for w in s["windows"]:
        if w["active"]:
            print(s["name"], w["index"], [p["id"] for p in w["panes"] if p["active"]][0])' "$1"
}
current_is() { [ "$(current "$1")" = "$1 $2 $3" ]; }
not_current_is() { [ -n "$(current "$1")" ] && ! current_is "$@"; }
attached_to() {
	sm ls --json | python3 -c '
import json, sys
print(" ".join(s["name"] for s in json.load(sys.stdin)["sessions"] if s["attached"]))'
}
attached_is() { [ "$(attached_to)" = "$1" ]; }
violations_are() { [ "$(pane_field "$1" violations)" = "$2" ]; }
# The tree's pane lines, and whether one starts with TEXT (a regular
# expression).
pane_lines() { screen | grep -- "^       %"; }
tree_has() { pane_lines | grep -q -- "^       $1"; }
# pane_line_is N TEXT: the Nth pane line starts with TEXT
pane_line_is() { pane_lines | sed -n "$1p" | grep -q -- "^       $2"; }
# selected_has TEXT: the highlighted line (the default theme's
# copy.selection, black on yellow) holds TEXT
ESC=$(printf '\033')
selected_has() { tm capture-pane -p -e -t main | grep "^$ESC\[30m$ESC\[43m" | grep -qF -- "$1"; }
no_window_lines() { ! screen | grep -q '^   [-+] [0-9]'; }

export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh"
echo secret >"$HOME/.ssh/config"

start_client
check "prefix ? lists prefix w" help_lists '^ *w  *choose-tree -w  *pick a session'
check "prefix ? lists prefix s" help_lists '^ *s  *choose-tree -s  *pick a session'
session=$(sm ls | sed -n 's/^\([^:]*\): .*/\1/p' | head -1)
host=$(active_pane)

prefix :
keys "new-window -b native" Enter
check "a native window opens" wait_for 10 screen_has " native "
native=$(current "$session" | awk '{ print $3 }')
keys "cat ~/.ssh/config 2>/dev/null || echo read-was-denied" Enter
check "its read of ~/.ssh is denied" wait_screen "read-was-denied"
check "and counted as a violation" wait_for 5 violations_are "$native" 1
prefix %
check "a host pane is split beside it (window 1's active pane now)" \
	wait_for 5 not_current_is "$session" 1 "$native"
beside=$(current "$session" | awk '{ print $3 }')
prefix 0
check "prefix 0 goes back to window 0" wait_for 5 current_is "$session" 0 "$host"

prefix w
check "prefix w opens the tree" wait_screen "choose-tree"
check "it lists the session" wait_for 3 screen_matches "^ - $session: 2 windows (attached)"
check "window 0, the current one (*), with its one pane" screen_matches "^   - 0: [^ ]*\* (1 pane)"
check "window 1 with its two panes" screen_matches "^   - 1: [^ *]* (2 panes)"
check "the host pane's line has its label and count: none, 0 denied" tree_has "%$host none 0 denied"
check "the native pane's line: native, 1 denied" tree_has "%$native native 1 denied"
check "the pane beside it: none, 0 denied" tree_has "%$beside none 0 denied"
check "window 1's panes are listed in layout order: the native one first" \
	pane_line_is 2 "%$native "
check "... then the host pane beside it" pane_line_is 3 "%$beside "

# Starting on window 0: Down x4 is window 1's second pane, k one up is
# the native pane.
keys Down Down j Down
check "Down Down j Down selects window 1's second pane" wait_for 5 selected_has "%$beside "
keys k
check "k selects the native pane" wait_for 5 selected_has "%$native "
keys Enter
check "Enter on the native pane makes window 1 current, with that pane active" \
	wait_for 5 current_is "$session" 1 "$native"
check "the tree is gone and the status line shows window 1 current" \
	wait_for 5 status_matches "1:[^ ]*\*"
check "the tree's lines are off the screen" wait_screen_gone "choose-tree"

prefix w
wait_screen "choose-tree"
keys Up Up q
check "q leaves the tree" wait_screen_gone "choose-tree"
check "... changing nothing" current_is "$session" 1 "$native"
prefix w
wait_screen "choose-tree"
keys Up Escape
check "Escape leaves it too" wait_screen_gone "choose-tree"
check "... changing nothing" current_is "$session" 1 "$native"

# Left collapses the window the tree starts on (window 1), Right opens it.
prefix w
wait_screen "choose-tree"
keys Left
check "Left collapses the current window: its panes go from the list" \
	wait_for 3 screen_lacks "%$native native"
check "... and it is marked collapsed" screen_matches "^   + 1: "
check "... window 0's pane stays" tree_has "%$host none"
keys Right
check "Right expands it again" wait_for 3 tree_has "%$native native 1 denied"
prefix c
check "the prefix works in the tree: prefix c opens window 2, which the open tree lists" \
	wait_for 5 screen_matches "^   - 2: "
check "... the tree stays open" screen_has "choose-tree"
keys q
wait_screen_gone "choose-tree"

# prefix s: sessions, collapsed; Enter on another switches the client.
sm new -d -s other >/dev/null
prefix s
check "prefix s opens the tree with the sessions collapsed" \
	wait_for 3 screen_matches "^ + $session: 3 windows (attached)"
check "... every session listed" screen_matches "^ + other: 1 window"
check "... no window lines" no_window_lines
keys j Enter
check "Enter on another session switches the client to it" wait_for 5 attached_is other
check "the status line names it" wait_for 5 status_matches "^\[other\]"
check "the screen shows its pane" wait_for 5 screen_matches "^ none "

sm ctl "{\"cmd\":\"switch-client\",\"pane\":$host}" >"$T_DIR/unattached" 2>&1
check "switch-client from a connection that is not attached: not_attached" \
	grep -q not_attached "$T_DIR/unattached"
finish
