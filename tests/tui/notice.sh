#!/bin/sh
# TUI: what an agent says without drawing it, in the pane's title.  A
# notification (OSC 777) from a pane that is not focused is drawn after
# "!" until the pane is focused, through the sanitiser (a right-to-left
# override in it is dropped); OSC 9;4 progress is drawn as "[42%]"
# while set.
. "$(dirname "$0")/tui-lib"

start_client
first=$(panes | awk 'NR == 1 { print $1 }')
prefix %
wait_for 5 pane_count_is 2
check "the split pane is focused" [ "$(active_pane)" != "$first" ]

sm send-keys -t "%$first" "printf '\\033]777;notify;Agent;needs \\342\\200\\256input\\007'; echo sent" Enter
check "the unfocused pane's title shows the notification, sanitised" \
	wait_for 5 screen_matches '! Agent: needs input |'
sm send-keys -t "%$first" "printf '\\033]9;4;1;42\\007'; echo set" Enter
check "progress is drawn in the title" wait_for 5 screen_matches '\[42%\]'
prefix :
keys "select-pane -t %$first" Enter
check "focused, the notification goes" wait_for 5 sh -c "! tmux -u -L $TMUX_NAME -f $T_DIR/tmux.conf capture-pane -p -t main | grep -q '! Agent'"
check "the progress stays" screen_matches '\[42%\]'
sm send-keys -t "%$first" "printf '\\033]9;4;0\\007'; echo cleared" Enter
check "cleared, it goes" wait_for 5 sh -c "! tmux -u -L $TMUX_NAME -f $T_DIR/tmux.conf capture-pane -p -t main | grep -q '42%'"
finish
