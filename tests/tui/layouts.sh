#!/bin/sh
# TUI: moving panes and tmux's preset layouts, checked against the
# server's geometry (ls --json): swap-pane (prefix { and }), break-pane
# (prefix !), join-pane, select-layout (prefix M-1..M-5) and next-layout
# (prefix Space).  The client is 120x40: the window is 120x39.
. "$(dirname "$0")/tui-lib"

# "id x y cols rows" of the active window's panes, in list order.
geometry() { panes | awk '{ print $1, $2, $3, $4, $5 }'; }
# The ids in the order of their position on screen (by y, then x).
ids_on_screen() { panes | sort -k3,3n -k2,2n | awk '{ printf "%s ", $1 }'; }
ids_on_screen_are() { [ "$(ids_on_screen)" = "$1 " ]; }
window_count() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
print(sum(len(s["windows"]) for s in json.load(sys.stdin)["result"]["sessions"]))'
}
window_count_is() { [ "$(window_count)" -eq "$1" ]; }
# geometry_is PYTHON-CONDITION: a check over the list p of (id, x, y, cols, rows)
geometry_is() {
	geometry | python3 -c '
import sys
p = [tuple(int(v) for v in line.split()) for line in sys.stdin]
sys.exit(0 if ('"$1"') else 1)'
}

start_client
a=$(active_pane)
prefix %
wait_for 5 pane_count_is 2
b=$(active_pane)
prefix %
wait_for 5 pane_count_is 3
c=$(active_pane)
check "three panes side by side: $a $b $c" ids_on_screen_are "$a $b $c"

# swap-pane: prefix { swaps with the previous pane, prefix } the next.
prefix '{'
check "prefix { swaps the active pane with the one before it" wait_for 3 ids_on_screen_are "$a $c $b"
check "the focus stays on the moved pane" active_pane_is "$c"
prefix '}'
check "prefix } swaps it back with the next" wait_for 3 ids_on_screen_are "$a $b $c"
sm swap-pane -s "%$a" -t "%$c" >/dev/null
check "swap-pane -s -t exchanges any two panes of a window" wait_for 3 ids_on_screen_are "$c $b $a"

# The presets.
prefix M-1
check "even-horizontal: one row of equal widths" wait_for 3 geometry_is \
	'len(set(q[2] for q in p)) == 1 and max(q[3] for q in p) - min(q[3] for q in p) <= 1 and all(q[4] == 38 for q in p)'
prefix M-2
check "even-vertical: one column of full width, equal heights" wait_for 3 geometry_is \
	'all(q[1] == 0 and q[3] == 120 for q in p) and max(q[4] for q in p) - min(q[4] for q in p) <= 1'
prefix M-3
check "main-horizontal: the first pane across the top, 24 rows with its title" wait_for 3 geometry_is \
	'p[0][1] == 0 and p[0][2] == 1 and p[0][3] == 120 and p[0][4] == 23 and all(q[2] == 25 for q in p[1:])'
prefix M-4
check "main-vertical: the first pane on the left, 80 columns" wait_for 3 geometry_is \
	'p[0][1] == 0 and p[0][3] == 80 and p[0][4] == 38 and all(q[1] == 81 and q[3] == 39 for q in p[1:])'
sm split -t "%$a" >/dev/null
wait_for 5 pane_count_is 4
prefix M-5
check "tiled: four panes in two rows of two" wait_for 3 geometry_is \
	'len(set(q[1] for q in p)) == 2 and len(set(q[2] for q in p)) == 2 and max(q[3] for q in p) - min(q[3] for q in p) <= 1'
prefix Space
check "prefix Space (next-layout) after tiled is even-horizontal" wait_for 3 geometry_is \
	'len(set(q[2] for q in p)) == 1 and len(p) == 4'
prefix Space
check "and then even-vertical" wait_for 3 geometry_is 'all(q[1] == 0 for q in p)'
check "select-layout refuses an unknown layout" sh -c '! "$0" -L "$1" select-layout -t "%$3" diagonal >"$2" 2>&1' \
	"$SANDMUX_BIN" "$T_NAME" "$T_DIR/bad" "$a"
check "select-layout refuses an unknown layout, naming the presets" grep -q "even-horizontal" "$T_DIR/bad"

# break-pane and join-pane.
prefix M-1
active_before=$(active_pane)
prefix '!'
check "prefix ! breaks the active pane into a window of its own" wait_for 5 window_count_is 2
check "the new window holds only that pane, full size" wait_for 3 geometry_is \
	"len(p) == 1 and p[0][0] == $active_before and p[0][3] == 120 and p[0][4] == 38"
prefix 0
wait_for 5 pane_count_is 3
target=$(panes | awk 'NR == 1 { print $1 }')
sm join-pane -h -s "%$active_before" -t "%$target" >/dev/null
check "join-pane brings it back into window 0 and the other window goes" wait_for 5 window_count_is 1
check "beside the target pane (-h)" wait_for 3 geometry_is \
	"len(p) == 4 and [q[0] for q in p].index($active_before) == [q[0] for q in p].index($target) + 1 and [q for q in p if q[0] == $active_before][0][2] == [q for q in p if q[0] == $target][0][2]"
sm break-pane -t "%$target" >/dev/null
sm join-pane -s "%$target" -t "%$target" >"$T_DIR/self" 2>&1
check "join-pane refuses a pane into its own window" grep -q "already in that window" "$T_DIR/self"

finish
