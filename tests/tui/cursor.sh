#!/bin/sh
# TUI: a change of the cursor alone reaches the screen.  A cursor key in
# a shell or an editor changes no cell, only where the cursor is: that
# must be drawn as fast as an echo (issue 12, item 1).  The outer
# terminal's cursor (tmux's #{cursor_x},#{cursor_y}) must be where the
# server says the active pane has it, after each key.
. "$(dirname "$0")/tui-lib"
server_cursor_is() { [ "$(server_cursor)" = "$1" ]; }

sm new -d -s c -x 120 -y 38 -- env PS1='$ ' bash --norc --noprofile >/dev/null
start_client -t c
wait_prompt
# The attach resizes the pane (37 rows to the client's 38), and bash
# redraws its line on the SIGWINCH ("\r\e[K\r$ ", then the text): typed
# before that, the text is erased and drawn again, the cursor passing
# column 2 on the way, where screen and server agree too.  So the keys
# wait for the client's size, and the first check for the line's end.
check "the attach gave the pane the client's rows" \
	wait_for 5 eval '[ "$(panes | awk "{ print \$5 }")" = 38 ]'
keys abcdef
wait_screen '$ abcdef'
check "the pane's cursor ends the typed text" wait_for 2 eval 'server_cursor | grep -q "^8,"'
check_cursor "after typing"
before=$(outer_cursor)
keys Left Left
check_cursor "after Left Left"
after=$(outer_cursor)
check "... two columns left of where it was ($before -> $after)" \
	[ "${before%,*}" -eq $((${after%,*} + 2)) ]
keys Home
check_cursor "after Home"
keys End
check_cursor "after End"
# Left and Right in turn, as fast as the screen follows: each move must
# be drawn, including one back to where the last frame had the cursor
# (frames held after an echo patch: the damage since that frame is none).
moves_ok=0
for i in $(seq 1 40); do
	if [ $((i % 2)) -eq 1 ]; then keys Left; else keys Right; fi
	wait_for 2 cursor_agrees && moves_ok=$((moves_ok + 1))
done
check "Left and Right 40 times in turn: every move drawn ($moves_ok of 40)" [ "$moves_ok" -eq 40 ]
keys C-a
check_cursor "after C-a"
# The next typed character lands where the cursor is drawn.
keys X
check "typed text lands at the drawn cursor" wait_screen '$ Xabcdef'
check_cursor "after typing at the start"
keys End C-u
wait_screen_gone 'Xabcdef'

# An editor: vim moves the cursor down a line per j and writes nothing.
seq 1 30 | sed 's/^/line /' >"$T_DIR/lines.txt"
keys "vim -u NONE -i NONE $T_DIR/lines.txt" Enter
check "vim shows the file" wait_screen "line 30" 10
# vim drops what is typed while it starts (it asks the terminal about
# itself first): give it a moment.
sleep 1
check_cursor "vim started"
top=$(server_cursor)
for n in 2 3 4 5 6 7; do
	keys j
	wait_for 2 server_cursor_is "${top%,*},$((${top#*,} + n - 1))"
	check_cursor "vim after j to line $n"
done
check "vim's cursor went down six lines (${top} -> $(server_cursor))" \
	[ "$(server_cursor)" = "${top%,*},$((${top#*,} + 6))" ]
keys l l l
check_cursor "vim after l l l"
# Away and back to where the last frame had the cursor (the frames held
# after an echo patch were sent a second before): the way back changes
# nothing since that frame, and must still be drawn.
sleep 1.5
keys l
keys h
check_cursor "vim after l then h"
keys x
check "x deletes under the drawn cursor (line 7)" wait_screen "lin 7"
keys G
check_cursor "vim after G"
keys g g
check_cursor "vim after gg"
keys Escape ":q!" Enter
check "vim left" wait_screen_gone "line 30"
check_cursor "the shell after vim"
finish
