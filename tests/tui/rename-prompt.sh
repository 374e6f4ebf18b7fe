#!/bin/sh
# TUI: prefix , opens the prompt prefilled with the window's current name,
# as tmux's command-prompt -I "#W" does: "(rename-window) NAME", the
# cursor at its end; Enter names the window with what the line then
# holds (blanks and quotes included, as one name); Escape leaves the name
# as it was.
. "$(dirname "$0")/tui-lib"

window_name() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["result"]["sessions"]:
    for w in s["windows"]:
        if w["active"]:
            print(w["name"])'
}
window_name_is() { [ "$(window_name)" = "$1" ]; }

start_client
check "prefix ? lists prefix , with the prompt it opens" \
	help_lists '^ *,  *command-prompt -I "#W" "rename-window -- \\"%%\\""  *name a window'
shell_name=$(window_name)
check "the window starts with its program's name" [ -n "$shell_name" ]

prefix ,
check "prefix , opens the prompt with the current (automatic) name in it" \
	wait_for 3 status_matches "^(rename-window) $shell_name *\$"
check "the cursor sits at the end of the name" \
	[ "$(outer_cursor)" = "$((16 + ${#shell_name})),39" ]
keys C-u 'my "odd" win' Enter
check "Enter names the window with the edited line, blanks and quotes kept" \
	wait_for 5 window_name_is 'my "odd" win'
check "the status line shows it" wait_for 5 status_matches '0:my "odd" win'

prefix ,
check "prefix , again shows the name given" \
	wait_for 3 status_matches '^(rename-window) my "odd" win *$'
keys BSpace BSpace BSpace "job" Enter
check "editing the prefilled name renames to the edit" wait_for 5 window_name_is 'my "odd" job'

prefix ,
wait_for 3 status_matches '^(rename-window) '
keys C-u "never" Escape
prompt_closed() { ! status_matches '^(rename-window) '; }
check "Escape closes the prompt" wait_for 3 prompt_closed
check "Escape leaves the name as it was" window_name_is 'my "odd" job'

prefix ,
wait_for 3 status_matches '^(rename-window) '
keys C-u Enter
check "an empty name gives the window back to its program (automatic-rename)" \
	wait_for 5 window_name_is "$shell_name"
finish
