#!/bin/sh
# TUI: repeating keys, as tmux's bind -r: after prefix C-Left, further
# resize keys within repeat_time (500 ms) resize again without the
# prefix; after it has passed, the key goes to the program.
. "$(dirname "$0")/tui-lib"

width_of() { panes | awk -v id="$1" '$1 == id { print $4 }'; }
width_is() { [ "$(width_of "$1")" -eq "$2" ]; }

start_client
left=$(active_pane)
prefix %
wait_for 5 pane_count_is 2
right=$(active_pane)
start=$(width_of "$left")

# One send-keys call: the three presses arrive well within 500 ms.
tm send-keys -t main C-b C-Left C-Left C-Left
check "prefix C-Left then C-Left C-Left: three resizes of 5 ($start -> $((start - 15)))" \
	wait_for 5 width_is "$left" $((start - 15))

# Past repeat_time, the key is the program's again.  (The time passing
# is the thing under test: 1.5 s against repeat_time's 500 ms.)
sleep 1.5
keys "cat -v" Enter
wait_for 5 pane_runs cat
keys C-Left
check "the program got it" wait_screen "^[[1;5D"
check "after repeat_time C-Left goes to the pane, not the layout" width_is "$left" $((start - 15))
keys C-c

# A key that does not repeat ends the repeat and is typed.
tm send-keys -t main C-b C-Right QWERTY
check "a key that does not repeat after a resize is typed, not bound" wait_screen "QWERTY"
check "and the one resize happened" wait_for 5 width_is "$left" $((start - 10))

# repeat_time 0 turns repeating off.
sm kill-server >/dev/null 2>&1
tm kill-server >/dev/null 2>&1
wait_for 5 server_gone
wait_for 5 tmux_gone
mkdir -p "$XDG_CONFIG_HOME/sandmux"
printf '{"repeat_time": 0}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
start_client
left=$(active_pane)
prefix %
wait_for 5 pane_count_is 2
start=$(width_of "$left")
tm send-keys -t main C-b C-Left C-Left C-Left
check "with repeat_time 0 only the prefixed press resizes" wait_for 5 width_is "$left" $((start - 5))
# The thing under test: nothing more comes of the two presses.
sleep 1
check "and stays so" width_is "$left" $((start - 5))

finish
