#!/bin/sh
# TUI: windows as a tmux user knows them — named after the program in
# their active pane until rename-window (prefix ,) names them; kill-window
# (prefix &) asks first and goes back to the window used last; a new
# window takes the lowest free number; prefix l is last-window; killing
# a pane goes back to the pane used last (prefix ; goes there too).
. "$(dirname "$0")/tui-lib"

# The attached session's windows as "index name active".
windows() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["result"]["sessions"]:
    for w in s["windows"]:
        print(w["index"], w["name"], "active" if w["active"] else "-")'
}
window_indices_are() { [ "$(windows | awk '{ printf "%s ", $1 }')" = "$1 " ]; }
active_window_is() { [ "$(windows | awk '$3 == "active" { print $1 }')" = "$1" ]; }
window_name_is() { [ "$(windows | awk -v i="$1" '$1 == i { print $2 }')" = "$2" ]; }

start_client

# Names follow the running program (tmux's automatic-rename).
shell_name=$(windows | awk '$1 == 0 { print $2 }')
check "a window is named after its shell to begin with" [ -n "$shell_name" ] && [ "$shell_name" != 0 ]
keys "sleep 600" Enter
check "the window is named after the program running in it" wait_for 5 window_name_is 0 sleep
check "and the status line shows that name" wait_for 5 status_matches '0:sleep'

keys C-c
check "and the name goes back to the shell when it ends" wait_for 5 window_name_is 0 "$shell_name"

# rename-window sticks.
wait_for 5 status_matches "0:$shell_name"
prefix ,
check "prefix , opens the prompt with the window's name" wait_for 3 status_matches "^(rename-window) $shell_name *\$"
keys C-u "work" Enter
check "rename-window names the window" wait_for 5 window_name_is 0 work
check "the status line shows the new name" wait_for 5 status_matches '0:work'
keys "sleep 600" Enter
sleep 2.5
check "the name sticks while another program runs" window_name_is 0 work
keys C-c

# Numbers are reused; kill-window goes back to the window used last.
prefix c
check "prefix c opens window 1" wait_for 5 window_indices_are "0 1"
prefix c
check "prefix c opens window 2" wait_for 5 window_indices_are "0 1 2"
prefix 1
check "prefix 1 selects window 1" wait_for 5 active_window_is 1
prefix l
check "prefix l goes back to the window used last (2)" wait_for 5 active_window_is 2
prefix l
check "prefix l again goes back to 1" wait_for 5 active_window_is 1
prefix '&'
check "prefix & asks before killing the window" wait_screen "kill window? (y/n)"
keys n
sleep 0.3
check "answering n keeps it" window_indices_are "0 1 2"
prefix '&'
wait_screen "kill window? (y/n)"
keys y
check "answering y kills window 1" wait_for 5 window_indices_are "0 2"
check "the focus goes back to the window used last (2), not the first" wait_for 5 active_window_is 2
prefix c
check "a new window takes the lowest free number (1)" wait_for 5 window_indices_are "0 1 2"
check "and is the active one" active_window_is 1

# Killing a pane goes back to the pane used last; prefix ; goes there.
first=$(active_pane)
prefix %
wait_for 5 pane_count_is 2
second=$(active_pane)
prefix '"'
wait_for 5 pane_count_is 3
third=$(active_pane)
prefix '\;'
check "prefix ; goes back to the pane used last" wait_for 3 active_pane_is "$second"
prefix '\;'
check "prefix ; again goes back to the other" wait_for 3 active_pane_is "$third"
prefix x
wait_screen "(y/n)"
keys y
check "killing a pane goes back to the pane used last, not the first ($first)" \
	wait_for 5 active_pane_is "$second"

# The option renumber_windows closes the gaps, as tmux's does.
sm kill-server >/dev/null 2>&1
tm kill-server >/dev/null 2>&1
sleep 0.3
mkdir -p "$XDG_CONFIG_HOME/sandmux"
printf '{"renumber_windows": true}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
start_client
prefix c
wait_for 5 window_indices_are "0 1"
prefix c
wait_for 5 window_indices_are "0 1 2"
prefix 1
wait_for 5 active_window_is 1
session=$(sm ls --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"][0]["name"])')
sm kill-window -t "$session:1" >/dev/null
check "with renumber_windows, the windows after a killed one move down" \
	wait_for 5 window_indices_are "0 1"

finish
