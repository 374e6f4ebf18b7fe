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
    if s["name"] == "tick":
        continue
    for w in s["windows"]:
        print(w["index"], w["name"], "active" if w["active"] else "-")'
}
# tick_name: the name of the window of the session "tick", the witness
# that the server's name check ran (it runs once a second)
tick_name() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["result"]["sessions"]:
    if s["name"] == "tick":
        print(s["windows"][0]["name"])'
}
tick_name_is() { [ "$(tick_name)" = "$1" ]; }
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
# Has the name check run since sleep started in window 0?  A witness
# session, started after it, runs sleep too and then its shell again:
# once its window has followed both, the check ran at least once after
# window 0's sleep began (and would have renamed it).
shell_pid=$(pane_field "$(active_pane)" pid)
wait_for 5 pgrep -P "$shell_pid" -x sleep
sm new -d -s tick -x 80 -y 24 >/dev/null
tick_shell=$(tick_name)
sm send-keys -t tick 'sleep 600' Enter
check "the witness window is named after its program" wait_for 10 tick_name_is sleep
sm send-keys -t tick C-c
check "and after its shell again" wait_for 10 tick_name_is "$tick_shell"
check "the name sticks while another program runs" window_name_is 0 work
sm kill-session -t tick >/dev/null 2>&1
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
check "answering n closes the question" wait_screen_gone "kill window? (y/n)"
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
wait_for 5 server_gone
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
