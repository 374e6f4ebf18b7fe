#!/bin/sh
# TUI: output from a pane cannot act on the user's terminal.  The client
# draws cells, never forwards bytes: a title full of control characters
# is drawn with them replaced, OSC 52 and title sequences printed in a
# pane do not reach the outer terminal (tmux here), and screen-clearing
# sequences stay inside their pane.
. "$(dirname "$0")/tui-lib"

outer_title() { tm display -p -t main '#{pane_title}'; }
clipboard_empty() { ! tm show-buffer 2>/dev/null | grep -q hack; }
no_bidi_override() { ! screen | grep -q "$(printf '\342\200\256')"; }

start_client
title_before=$(outer_title)
keys "printf '\\033]52;c;aGFjaw==\\007\\033]0;PWNED\\007\\033Ptmux;\\033\\033]0;PWNED2\\007\\033\\\\'; echo done-1" Enter
wait_screen "done-1"
keys "printf '\\033]2;EV\\001IL\\302\\233[31m\\342\\200\\256gnp.exe\\007'; echo done-2" Enter
wait_screen "done-2"
# A split makes the server send a layout, which carries the new title.
prefix %
wait_for 5 pane_count_is 2
check "the hostile title is drawn" wait_screen "gnp.exe"
# The emulator drops UTF-8 encoded C1 controls (libvterm 0.1.4 mishandles
# them), so the CSI in the title is neither drawn nor obeyed.
check "its C1 control is dropped, not obeyed (the [31m stays text)" screen_matches 'EV.*\[31mgnp' 
check "its right-to-left override is dropped" no_bidi_override
check "the outer terminal's title is untouched" [ "$(outer_title)" = "$title_before" ]
check "OSC 52 from a pane does not reach the outer clipboard" clipboard_empty

keys "printf '\\033[2J\\033[?1049h\\033[999;999H\\033[0m'; echo done-3" Enter
# Its d is printed in the right pane's last column: one-3 wraps to the
# start of the next row, beside the border.
wait_for 5 screen_matches '│one-3'
check "a clear-screen in one pane leaves the status line" status_matches '^\['
check "and leaves the other pane's title line" screen_has "gnp.exe"
finish
