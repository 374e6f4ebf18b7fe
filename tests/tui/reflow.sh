#!/bin/sh
# TUI: reflow.  Long lines in a pane, the client's terminal narrowed to
# about 20 columns and widened back: the pane's screen and history come
# back as they were (autowrapped rows rejoin, a newline stays a newline),
# and the cursor lands where tmux 3.3a puts it in the same scenario.
. "$(dirname "$0")/tui-lib"

start_client
pane=$(active_pane)
geometry() { panes | awk -v id="$pane" '$1 == id { print $4, $5 }'; }
cols_are() { [ "$(geometry | cut -d' ' -f1)" = "$1" ]; }
# The same program in the pane and in a plain tmux pane of the same size:
# a long line, short ones, and a long last line the cursor ends.
cat >"$T_DIR/prog.sh" <<'PROG'
clear
seq -s ' ' 1 120
seq 1 12
printf '%s end> ' "$(seq -s ' ' 1 25)"
exec sleep 600
PROG
keys "exec sh $T_DIR/prog.sh" Enter
# (a screen's rows are read without their trailing blanks: "end>")
wait_screen "end>" 10
set -- $(geometry)
cols0=$1 rows0=$2
tm new-session -d -s ref -x "$cols0" -y "$rows0" "sh $T_DIR/prog.sh"
wait_screen "end>" 10 ref
# The window's name follows its program (sh, then sleep) on the server's
# next once-a-second look: the status line is compared after it.
check "the window is named after sleep" wait_for 5 eval 'status_line | grep -qF ":sleep"'
# The status line's clock may turn its minute before the comparison:
# the screen is compared without it.
screen_noclock() { screen | sed '$ s/[0-9][0-9]:[0-9][0-9] [0-9][0-9]-[A-Z][a-z][a-z] *$//'; }
before=$(sm capture -t "$pane" -S -)
screen_before=$(screen_noclock)

host_cursor() { tm display -p -t main '#{cursor_x} #{cursor_y}'; }
ref_cursor() { tm display -p -t ref '#{cursor_x} #{cursor_y}'; }
# ref_size_is COLS ROWS: the reference pane has that size (the cursor is
# read from it once it has been resized)
ref_size_is() { [ "$(tm display -p -t ref '#{pane_width} #{pane_height}')" = "$1 $2" ]; }
set -- $(host_cursor)
hx=$1 hy=$2
set -- $(ref_cursor)
dx=$((hx - $1)) dy=$((hy - $2))
# The pane's cursor, as the client draws it, in the pane's own terms.
pane_cursor() {
	set -- $(host_cursor)
	echo "$(($1 - dx)) $(($2 - dy))"
}

tm resize-window -t main -x 22
check "the pane narrows to about 20 columns" wait_for 5 eval '[ "$(geometry | cut -d" " -f1)" -le 22 ]'
set -- $(geometry)
cols1=$1
tm resize-window -t ref -x "$cols1" -y "$rows0"
narrow=$(sm capture -t "$pane" -S -)
# (capture trims each row's trailing blanks: compare without spaces)
joined() { printf '%s\n' "$1" | tr -d ' \n'; }
check "narrowed, the long line is split, not cut" \
	eval 'joined "$narrow" | grep -qF "$(seq -s "" 1 120)"'
check "narrowed, rows are no wider than the pane" \
	eval '[ "$(printf "%s\n" "$narrow" | awk "{ if (length > m) m = length } END { print m }")" -le "$cols1" ]'
wait_for 5 ref_size_is "$cols1" "$rows0"
ref_narrow=$(ref_cursor)
check "narrowed, the cursor is where tmux puts it ($ref_narrow)" \
	wait_for 5 eval '[ "$(pane_cursor)" = "$ref_narrow" ]'

tm resize-window -t main -x 120
check "the pane widens back" wait_for 5 cols_are "$cols0"
tm resize-window -t ref -x "$cols0" -y "$rows0"
after=$(sm capture -t "$pane" -S -)
check "widened back, screen and history are as before" [ "$after" = "$before" ]
check "widened back, the client shows what it showed" wait_for 5 eval '[ "$(screen_noclock)" = "$screen_before" ]'
wait_for 5 ref_size_is "$cols0" "$rows0"
ref_wide=$(ref_cursor)
check "widened back, the cursor is where tmux puts it ($ref_wide)" \
	wait_for 5 eval '[ "$(pane_cursor)" = "$ref_wide" ]'
if [ "$(screen_noclock)" != "$screen_before" ]; then
	printf '%s\n' "$screen_before" | sed 's/^/# shown before: /'
	screen_noclock | sed 's/^/# shown after:  /'
fi
if [ "$after" != "$before" ]; then
	printf '%s\n' "$after" | sed 's/^/# after: /' | head -20
fi

finish
