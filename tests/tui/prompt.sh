#!/bin/sh
# TUI: the ":" command prompt speaks the CLI's verbs and shows errors —
# the client's own (unknown command, bad option) and the server's (a
# reply with ok:false) — in the status line; "?" lists every binding.
. "$(dirname "$0")/tui-lib"

start_client
prefix :
check "prefix : opens the prompt" wait_for 3 status_matches '^:'
keys "split -h" Enter
check ":split -h splits side by side" wait_for 5 pane_count_is 2

prefix :
keys "split -v --backend none -e SANDMUX_TUI_VAR=from-prompt -l 40" Enter
check ":split with CLI-style options splits" wait_for 5 pane_count_is 3
keys "echo var-\$SANDMUX_TUI_VAR" Enter
check "-e NAME=VALUE reaches the new pane's environment" wait_screen "var-from-prompt"
prefix :
keys "kill-pane" Enter
wait_for 5 pane_count_is 2

prefix :
keys "explode-pane" Enter
check "an unknown command is reported in the status line" wait_for 3 status_matches "unknown command: explode-pane"

prefix :
keys "split -q" Enter
check "a bad option is reported with the usage" wait_for 3 status_matches "unknown option -q"

prefix :
keys "select-pane -t %999" Enter
check "a server error is shown in the status line" wait_for 5 status_matches "no_such_pane\|no such pane\|999"

first=$(panes | awk 'NR == 1 { print $1 }')
prefix :
keys "select-pane -t %$first" Enter
check ":select-pane -t focuses that pane" wait_for 3 active_pane_is "$first"

cols_of_first() { panes | awk -v id="$first" '$1 == id { print $4 }'; }
cols_of_first_is() { [ "$(cols_of_first)" -eq "$1" ]; }
before=$(cols_of_first)
prefix :
keys "resize-pane -R 7" Enter
check ":resize-pane -R 7 widens the left pane by 7" wait_for 3 cols_of_first_is $((before + 7))
prefix :
keys "resize-pane -L 3" Enter
check ":resize-pane -L 3 narrows it by 3" wait_for 3 cols_of_first_is $((before + 4))

prefix :
keys "zoom" Enter
check ":zoom zooms" wait_for 3 status_matches '\*Z'
prefix :
keys "resize-pane -Z" Enter
not_zoomed() { ! status_matches '\*Z'; }
check ":resize-pane -Z unzooms" wait_for 3 not_zoomed

prefix :
keys "new-window" Enter
check ":new-window opens a window" wait_for 5 status_matches '1:[^ ]*\*'

prefix :
keys "kill-pane" Enter
check ":kill-pane closes the window's only pane" wait_for 5 status_matches '0:[^ ]*\*'

prefix :
keys "echo" Escape
check "Escape abandons the prompt" wait_for 3 status_matches '^\['

prefix '?'
check "prefix ? shows the help overlay" wait_screen "key bindings (prefix C-b)"
check "the help lists the split binding" screen_matches '%  *split -h'
# The list is longer than the screen: PageDown scrolls to its end.
check "the help lists tmux's window keys" screen_matches 'l  *last-window'
check "and its pane keys" screen_matches ';  *last-pane'
check "and the layout keys" screen_matches 'M-5  *select-layout tiled'
keys PageDown
check "the help lists itself (after PageDown)" wait_screen "list-keys"
keys q
check "q closes the help" wait_screen_gone "key bindings (prefix C-b)"
finish
