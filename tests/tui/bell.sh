#!/bin/sh
# TUI: a program's bell (BEL) reaches the client.  The terminal rings
# (here: tmux, which plays the user's terminal, flags the client's
# window), as the config's bell_action says (tmux's any / none /
# current); a pane that rang while not focused is marked "!" in its title
# until it is focused, and a window with such a pane is marked "!" in the
# status line.
. "$(dirname "$0")/tui-lib"

# tmux's flag on one of its windows (main:NAME) that received a BEL.
bell_flag() { tm display -p -t "main:$1" '#{window_bell_flag}'; }
bell_flag_is() { [ "$(bell_flag "$1")" = "$2" ]; }
ring() { sm send-keys -t "%$1" "printf '\\a'; echo rang" Enter; }

start_client
tm rename-window -t main:0 client
first=$(panes | awk 'NR == 1 { print $1 }')
prefix %
wait_for 5 pane_count_is 2
second=$(active_pane)
check "the split pane is focused" [ "$second" != "$first" ]

ring "$first"
check "a bell in a pane that is not focused marks its title" wait_for 5 screen_matches ' ! '
check "... and not the focused one's" sh -c "[ \$(tmux -u -L $TMUX_NAME -f $T_DIR/tmux.conf capture-pane -p -t main | grep -c ' ! ') -eq 1 ]"
check "the server lists the pane with bell true" sh -c "$SANDMUX_BIN -L $T_NAME ls --json | tr -d ' \t\n' | sed 's/\"details\":{[^}]*}//g' | grep -q '\"id\":$first,[^}]*\"bell\":true'"
prefix :
keys "select-pane -t %$first" Enter
check "focusing the pane clears its mark" wait_for 5 sh -c "! tmux -u -L $TMUX_NAME -f $T_DIR/tmux.conf capture-pane -p -t main | grep -q ' ! '"

# The terminal rings (bell_action any, the default).
tm new-window -d -n away 'sleep 600'
# Selecting a window clears its flag: go there and away again.
tm select-window -t main:away
tm select-window -t main:client
tm select-window -t main:away
check "the client's window starts without a bell flag" bell_flag_is client 0
ring "$second"
check "a bell reaches the client's terminal (bell_action any)" wait_for 5 bell_flag_is client 1

# A bell in a window that is not on screen: marked in the status line.
tm select-window -t main:client
sm new-window -t "$(sm ls | sed -n 's/^\([^:]*\): .*/\1/p' | head -1)" -- /bin/sh >/dev/null
wait_for 5 status_matches '1:[^ ]*\*'
ring "$second"
check "a bell in another window marks it in the status line" wait_for 5 status_matches '0:[^ ]*!'

# bell_action none and current: clients of their own, in windows not on screen.
mkdir -p "$T_DIR/none/sandmux" "$T_DIR/current/sandmux"
echo '{"bell_action": "none"}' >"$T_DIR/none/sandmux/config.json"
echo '{"bell_action": "current"}' >"$T_DIR/current/sandmux/config.json"
tm new-window -d -n quiet "$(client_cmd XDG_CONFIG_HOME=$T_DIR/none)"
tm new-window -d -n current "$(client_cmd XDG_CONFIG_HOME=$T_DIR/current)"
wait_screen "─" 10 main:quiet
wait_screen "─" 10 main:current
tm select-window -t main:away
tm select-window -t main:client
tm select-window -t main:away
# Both clients show window 1 (the session's active one); window 0 rings.
ring "$first"
check "every client hears it: bell_action any (the main client) rings" wait_for 5 bell_flag_is client 1
# The other clients had the same bell: the second after it is the test.
sleep 1
check "bell_action none never rings" bell_flag_is quiet 0
check "bell_action current does not ring for another window" bell_flag_is current 0
sm send-keys -t "%$(sm ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*,"session":"[^"]*","window":1' | head -1 | sed 's/"id":\([0-9]*\).*/\1/')" "printf '\\a'" Enter
check "bell_action current rings for the window on screen" wait_for 5 bell_flag_is current 1
check "bell_action none still does not" bell_flag_is quiet 0
finish
