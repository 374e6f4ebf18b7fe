#!/bin/sh
# TUI: the terminal is resized while an editor has the alternate screen;
# after the editor quits, the shell's prompt must come back where tmux
# puts it (issue 12, item 4).  The same keys go to a sandmux pane (the
# real client inside tmux) and, as the reference, to a plain tmux pane
# of the same size; the pane's cursor and its text must match tmux's.
. "$(dirname "$0")/tui-lib"

# The active pane's cursor, relative to the pane ("x,y").
pane_cursor() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
for s in json.load(sys.stdin)["result"]["sessions"]:
    for w in s["windows"]:
        for p in w["panes"] if w.get("active") else []:
            if p["active"]:
                print("%d,%d" % (p["cursor"]["x"], p["cursor"]["y"]))'
}
ref_cursor() { tm display -p -t ref '#{cursor_x},#{cursor_y}'; }
same_cursor() { [ "$(pane_cursor)" = "$(ref_cursor)" ]; }
same_text() {
	sm capture -t %1 | sed 's/ *$//' >"$T_DIR/sandmux.txt"
	tm capture-pane -p -t ref | sed 's/ *$//' >"$T_DIR/tmux.txt"
	diff "$T_DIR/sandmux.txt" "$T_DIR/tmux.txt" >"$T_DIR/diff.txt"
}
both() { keys "$@"; tm send-keys -t ref "$@"; }
# resize COLS ROWS: the client's terminal, and the reference pane to the
# size sandmux's pane then has (a title row and a status line less).
resize() {
	tm resize-window -t main -x "$1" -y "$2"
	tm resize-window -t ref -x "$1" -y $(($2 - 2))
	wait_for 3 pane_size_is "$1x$(($2 - 2))"
}
pane_size_is() { [ "$(panes | awk 'NR == 1 { print $4 "x" $5 }')" = "$1" ]; }
ref_has_prompt() { tm capture-pane -p -t ref | grep -q '\$'; }
# at_prompt N: both panes show seq's last number N and, after it, the
# shell's prompt with nothing typed yet (keys typed before bash reads
# them are echoed twice: once by the tty, once by readline).
last_line() { grep -v '^ *$' | tail -n 1 | sed 's/ *$//'; }
at_prompt() {
	[ "$(sm capture -t %1 | last_line)" = '$' ] &&
		[ "$(tm capture-pane -p -t ref | last_line)" = '$' ] &&
		sm capture -t %1 | grep -qx "$1 *" &&
		tm capture-pane -p -t ref | grep -qx "$1 *"
}

sm new -d -s v -x 120 -y 38 -- env PS1='$ ' bash --norc --noprofile >/dev/null
start_client -t v
tm new-session -d -s ref -x 120 -y 38 "env PS1='\$ ' bash --norc --noprofile"
wait_prompt
wait_for 5 ref_has_prompt

# scenario LINES "SIZES...": LINES of output, vim, the terminal resized
# through SIZES (COLSxROWS), :q; then cursor and text as in tmux.
scenario() {
	lines=$1
	shift
	both "clear; seq 1 $lines" Enter
	wait_for 5 at_prompt "$lines" || echo "# no prompt after seq 1 $lines"
	both "vim -u NONE -i NONE" Enter
	wait_screen "~" 10
	sleep 1 # vim drops what is typed while it asks the terminal about itself
	for s in "$@"; do
		resize "${s%x*}" "${s#*x}"
		sleep 0.3
	done
	both Escape ":q" Enter
	wait_screen_gone "~" 5
	if wait_for 3 same_cursor; then
		ok "$lines lines, vim, resized to $*, :q: the prompt's cursor is where tmux puts it ($(pane_cursor))"
	else
		not_ok "$lines lines, vim, resized to $*, :q: cursor $(pane_cursor), tmux has it at $(ref_cursor)"
	fi
	if wait_for 3 same_text; then
		ok "... and the pane's text is tmux's"
	else
		not_ok "... and the pane's text is tmux's"
		sed 's/^/# /' "$T_DIR/diff.txt" | head -8
	fi
	resize 120 40
	both C-l
	sleep 0.3
}

scenario 5 100x30
scenario 20 100x30
scenario 60 100x30
scenario 60 120x50
scenario 60 100x30 110x45
finish
