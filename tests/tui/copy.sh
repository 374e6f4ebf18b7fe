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
# The output's last line, not the command line that spells it: copy mode
# freezes what the pane has when it begins.
wait_for 5 screen_matches '^600 *$'

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
# cat runs once its file is there; the shell left the terminal cooked,
# so the paste waits in it for cat.  Enter and C-d once it is echoed.
wait_for 5 test -e "$T_DIR/pasted"
prefix ]
wait_for 5 screen_matches '^248 *$'
keys Enter C-d
check "prefix ] pastes the copied text into the pane" wait_for 5 file_has "$T_DIR/pasted" "248"

# n repeats the last search's direction and N goes against it, press
# after press (N used to flip the remembered direction: up, down, up,
# ...), and both wrap at the ends of the history as tmux's wrap-search.
# Every tenth line, 9 19 ... 119, says "hit"; the copy-mode cursor's
# row on the outer screen tells where a search landed.
keys clear Enter
# (The command line spells it "h" "it", so only the output matches.)
keys "seq 1 120 | awk '{ print (\$1 % 10 == 9 ? \"h\" \"it \" : \"    \") \$1 }'" Enter
wait_screen "hit 119"
cursor_row() { screen | sed -n "$(($(tm display -p -t main '#{cursor_y}') + 1))p"; }
cursor_on() { cursor_row | grep -qE "^hit $1( |\$)"; }
prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys "?" h i t Enter
check "? finds the nearest match above (119)" wait_for 5 cursor_on 119
keys n
check "n goes on up (109)" wait_for 5 cursor_on 109
keys n
check "n again (99)" wait_for 5 cursor_on 99
keys N
check "N goes down (109)" wait_for 5 cursor_on 109
keys N
check "N again goes down, not back up (119)" wait_for 5 cursor_on 119
keys N
check "N past the last match wraps to the first one (9)" wait_for 5 cursor_on 9
keys N
check "N keeps going down after the wrap (19)" wait_for 5 cursor_on 19
keys n
wait_for 5 cursor_on 9
keys n
check "n past the first match wraps to the last one (119)" wait_for 5 cursor_on 119
keys q

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
