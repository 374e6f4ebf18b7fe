#!/bin/sh
# TUI: copy mode over a pane whose program clears it (issue 28: the
# copy-mode view mismatch after three clears and G).  clear(1) empties
# the history (ED 3), so that no one sees the cleared output again:
# copy mode, begun before the clears and scrolled up, must not keep
# showing them either.  Its view is taken anew from the pane as it is
# now; its position indicator counts the history the server has.
. "$(dirname "$0")/tui-lib"

start_client
mkfifo "$T_DIR/go"
# The clears run underneath copy mode, when the test says go.
keys "seq 1 100; (read x <$T_DIR/go; clear; seq 200 260; clear; seq 300 360; clear; echo after-clears-\$((1+2))) & echo started-\$((2+2))" Enter
check "history to scroll back through" wait_screen "started-4"
prefix [
check "copy mode begins" wait_for 5 screen_matches '\[0/[1-9][0-9]*\]'
keys PageUp
check "... and scrolls up" wait_for 5 screen_matches '\[[1-9][0-9]*/[1-9][0-9]*\]'
echo go >"$T_DIR/go"
check "the clears ran underneath" wait_for 10 capture_has "%$(active_pane)" after-clears-3
keys G

# the pane's rows (between the title and the status line) as shown
view() { screen | sed '1d;$d'; }
cleared_gone() { ! view | grep -qE '^ *[0-9]+ *($|\[)'; }
history_now() {
	sm ctl "{\"cmd\":\"capture\",\"pane\":$(active_pane)}" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["history"])'
}
indicator_total_is_servers() { screen_matches "\[0/$(history_now)\]"; }
check "G: at the bottom, the indicator counts the history the server has ($(history_now) lines)" \
	wait_for 5 indicator_total_is_servers
check "... and copy mode shows none of the cleared lines" cleared_gone
view | grep -v '^ *$' | sed 's/^/# view | /'
keys PageUp
check "scrolled up, still none of them" cleared_gone
check "... and no history beyond the server's" indicator_total_is_servers
keys q
check "leaving copy mode, the pane as it is" wait_screen "after-clears-3"
check "... and none of the cleared lines" cleared_gone
finish
