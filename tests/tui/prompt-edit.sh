#!/bin/sh
# TUI: the command prompt edits like tmux's — C-a, C-e, C-b, C-f, C-w,
# C-k, M-b, M-f — and Up/Down go through the history, which the server
# keeps for its life (a client attached after a detach still has it).
. "$(dirname "$0")/tui-lib"

prompt_is() { status_matches "^:$1 *\$"; }

start_client
prefix :
keys "isplay-message middle end"
check "typed text shows" wait_for 3 prompt_is "isplay-message middle end"
keys C-a d
check "C-a goes to the start (d typed there)" wait_for 3 prompt_is "display-message middle end"
keys C-e "!"
check "C-e goes to the end" wait_for 3 prompt_is "display-message middle end!"
keys C-b C-b X
check "C-b moves back a character" wait_for 3 prompt_is "display-message middle enXd!"
keys C-f Y
check "C-f moves forward a character" wait_for 3 prompt_is "display-message middle enXdY!"
keys C-k
check "C-k deletes to the end" wait_for 3 prompt_is "display-message middle enXdY"
keys C-w
check "C-w deletes the word before the cursor (the blank stays, as in tmux)" wait_for 3 prompt_is "display-message middle"
keys M-b Z
check "M-b moves back a word" wait_for 3 prompt_is "display-message Zmiddle"
keys C-a M-f Q
check "M-f moves forward a word" wait_for 3 prompt_is "display-messageQ Zmiddle"
keys BSpace
check "BSpace deletes before the cursor" wait_for 3 prompt_is "display-message Zmiddle"
keys C-e " first-run" Enter
check "Enter runs the edited line" wait_for 3 status_matches "Zmiddle first-run"

prefix :
keys "display-message second-run" Enter
wait_for 3 status_matches "second-run"
prefix :
keys Up
check "Up recalls the last line" wait_for 3 prompt_is "display-message second-run"
keys Up
check "Up again the one before" wait_for 3 prompt_is "display-message Zmiddle  first-run"
keys Up
check "Up at the oldest stays there" wait_for 3 prompt_is "display-message Zmiddle  first-run"
keys Down Down
check "Down past the newest is the line being typed (empty)" wait_for 3 prompt_is ""
keys Escape
# The prompt closed (the status line is back): a C-b sooner would
# follow the Escape as one key, M-C-b, and no detach would come of it.
wait_for 3 status_matches '^\['

# The history is the server's: it survives the client.
prefix d
wait_screen "CLIENT-EXIT=0"
tm kill-server >/dev/null 2>&1
wait_for 5 tmux_gone
start_client
prefix :
keys Up
check "a new client's Up recalls a line run before the detach" \
	wait_for 3 prompt_is "display-message second-run"
keys Escape

finish
