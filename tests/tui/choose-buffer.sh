#!/bin/sh
# TUI: choose-buffer (prefix =) lists the server's paste buffers, newest
# first, each with its name, size, the label of the pane it was copied
# from and the start of its text; Enter pastes the chosen one into the
# active pane, d deletes it (the list stays open on the rest), q leaves
# changing nothing; a buffer's text reaches the screen sanitised; the
# keys are the choose-mode key table.
. "$(dirname "$0")/tui-lib"

# The buffers' names, newest first ("no buffers" is printed when none).
buffers() { sm list-buffers | awk -F: '$0 != "no buffers" { printf "%s%s", n++ ? " " : "", $1 }'; }
buffers_are() { [ "$(buffers)" = "$1" ]; }
file_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

start_client
check "prefix ? lists prefix =" help_lists '^ *=  *choose-buffer  *pick a paste buffer'
host=$(active_pane)
sm set-buffer -b alpha "ALPHA-TEXT" >/dev/null
# As the client's copy mode sets one: from a pane, so it carries its label.
sm ctl "{\"cmd\":\"set-buffer\",\"name\":\"beta\",\"text\":\"BETA\\tTWO\\nLINES\",\"source\":$host}" >/dev/null
check "two buffers, newest first" buffers_are "beta alpha"

keys "cat > $T_DIR/pasted" Enter
wait_for 5 test -e "$T_DIR/pasted"
prefix =
check "prefix = opens the buffer list" wait_screen "choose-buffer"
check "the newest buffer first: name, size, its pane's label, its text, tab and newline shown escaped" \
	screen_matches '^ *beta: 14 bytes none "BETA\\tTWO\\nLINES"'
check "then the older one (set from the command line: no label)" \
	screen_matches '^ *alpha: 10 bytes "ALPHA-TEXT"'
keys q
check "q leaves the list" wait_screen_gone "choose-buffer"
# The thing under test: nothing comes of q.  The moment is its chance.
sleep 0.3
check "... pasting nothing" file_is "$T_DIR/pasted" ""
check "... deleting nothing" buffers_are "beta alpha"

prefix =
wait_screen "choose-buffer"
keys Down Enter
check "Enter pastes the chosen buffer (the second) into the active pane" \
	wait_for 5 capture_has "$host" "ALPHA-TEXT"
check "the list is gone" wait_screen_gone "choose-buffer"
keys Enter C-d
check "what reached the program is the buffer's text" wait_for 5 file_is "$T_DIR/pasted" "ALPHA-TEXT"

prefix =
wait_screen "choose-buffer"
keys d
check "d deletes the selected buffer (beta)" wait_for 5 buffers_are "alpha"
check "the list stays open without it" wait_for 3 screen_lacks "beta:"
check "... showing the rest" screen_matches '^ *alpha: 10 bytes'
keys d
check "deleting the last one leaves no buffers" wait_for 5 buffers_are ""
check "... and closes the list, saying so" wait_for 3 status_matches "no buffers"
check "... the list is gone" wait_screen_gone "choose-buffer"

prefix =
check "prefix = with no buffers says so" wait_for 3 status_matches "no buffers"
check "... and opens no list" screen_lacks "choose-buffer"

# A buffer's text is whatever a pane printed: shown only through the
# sanitiser, never as a clear-screen or a clipboard write to the
# terminal, nor with a right-to-left override reordering it.
sm ctl '{"cmd":"set-buffer","name":"evil","text":"\u001b[2JEVIL\u202egnp.exe\u001b]52;c;SGVsbG8=\u0007"}' >/dev/null
prefix =
check "a buffer holding escape sequences is listed with each control as ?, the override dropped" \
	wait_for 3 screen_has 'evil: 34 bytes "?[2JEVILgnp.exe?]52;c;SGVsbG8=?"'
check "... the list drawn whole around it" screen_has "choose-buffer"
keys q
wait_screen_gone "choose-buffer"

# The list's keys are the choose-mode key table: list-keys lists it, and
# a key bound there works.
prefix :
wait_for 3 status_matches ':'
keys "list-keys -T choose-mode" Enter
check "list-keys -T choose-mode lists its keys" \
	wait_for 3 screen_matches ' d  *send-keys -X delete  *the buffers: delete the buffer'
keys q
wait_screen_gone "key table choose-mode"
prefix :
wait_for 3 status_matches ':'
keys "bind-key -T choose-mode x send-keys -X cancel" Enter
prefix =
wait_screen "choose-buffer"
keys x
check "x, bound to cancel in choose-mode, leaves the list" wait_screen_gone "choose-buffer"
check "... deleting nothing" buffers_are "evil"
finish
