#!/bin/sh
# TUI: a pane whose sandbox could not start (here: native asked for with
# the server's sandboxing switched off) is drawn as a red FAILED banner
# with the reason, never as a live shell and never under the label of
# the backend it asked for (invariants 1 and 2).
. "$(dirname "$0")/tui-lib"

export SANDMUX_SANDBOX=off
banner_is_red() { tm capture-pane -e -p -t main | grep 'FAILED:' | grep -q '41m\|48;5;1m\|48;5;9m\|48;5;196m\|48;5;160m'; }
row_with() { screen | grep -F -- "$1" | head -n 1; }

start_client
prefix :
keys "split -h -b native" Enter
check "the failed pane shows a FAILED banner" wait_screen "FAILED:"
check "the banner gives the reason" wait_for 3 screen_matches "reason: .*sandbox off\|reason: .*disabled"
check "the banner is red" banner_is_red
check "its title label says FAILED" screen_matches ' FAILED '
no_native_title() { ! screen | grep -F '──' | grep -q ' native '; }
check "no title line claims native" no_native_title

failed_pane=$(panes | awk '$7 == "error" { print $1 }')
check "the server reports the pane in state error" [ -n "$failed_pane" ]
prefix :
keys "select-pane -t %$failed_pane" Enter
keys "echo SHOULD-NOT-RUN" Enter
# The thing under test: nothing comes of these keys.  The half second
# is the chance for an echo or a run to show.
sleep 0.5
check "keys sent to it are neither echoed nor run" screen_count_is "SHOULD-NOT-RUN" 0
check "the banner is still drawn" screen_has "FAILED:"
finish
