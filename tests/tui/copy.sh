#!/bin/sh
# TUI: copy mode — history fetched from the server, search both ways,
# selection copied to the outer terminal's clipboard with OSC 52 (tmux,
# with set-clipboard on, turns it into a buffer we can read), and prefix ]
# pasting the copied text back into a pane.
. "$(dirname "$0")/tui-lib"

clipboard_has() { tm show-buffer 2>/dev/null | grep -qF -- "$1"; }
file_has() { grep -qF -- "$2" "$1" 2>/dev/null; }

start_client
keys "seq 1 600" Enter
wait_screen "600"

prefix [
check "prefix [ enters copy mode with a position indicator" wait_for 3 screen_matches '\[0/[0-9]*\]'
keys "?" "250" Enter
check "? searches up into history fetched from the server" wait_for 5 screen_matches '^250 *'
check "the position indicator shows how far back" screen_matches '\[[1-9][0-9]*/[0-9]*\]'
keys "?" "1" "2" "3" Enter
check "a second search goes further up" wait_for 5 screen_matches '^123 *'
keys "/" "1" "3" "0" Enter
check "/ searches down" wait_for 5 screen_matches '^130 *'
keys n
check "n repeats the search" wait_for 5 screen_matches '^1300*\|^131 *\|^230 *'

keys g
check "g goes to the top of history" wait_for 5 screen_matches '^1 *'
keys "/" "2" "4" "8" Enter
wait_for 5 screen_matches '^248 *'
keys Space j '$' Enter
check "Space, j, $, Enter copies the selection to the clipboard (OSC 52)" wait_for 5 clipboard_has "249"
check "the copied text spans both lines" clipboard_has "248"
check "leaving copy mode restores the live pane" wait_for 3 screen_matches '^600 *'

keys "cat > $T_DIR/pasted" Enter
sleep 0.3
prefix ]
sleep 0.3
keys Enter C-d
check "prefix ] pastes the copied text into the pane" wait_for 5 file_has "$T_DIR/pasted" "248"

prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys q
not_copying() { ! screen_matches '\[0/[0-9]*\]'; }
check "q leaves copy mode" wait_for 3 not_copying
prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys Escape
check "Escape leaves copy mode" wait_for 3 not_copying
finish
