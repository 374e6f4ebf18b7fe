#!/bin/sh
# TUI: the mouse.  A click focuses the pane under it, dragging the border
# between two panes resizes them, the wheel scrolls back (copy mode) in
# the pane under the pointer, and a program that turned on mouse
# reporting gets the clicks itself.
. "$(dirname "$0")/tui-lib"

cols_of() { panes | awk -v id="$1" '$1 == id { print $4 }'; }
cols_of_is() { [ "$(cols_of "$1")" -eq "$2" ]; }

start_client
left=$(active_pane)
keys "seq 1 300" Enter
wait_screen "300"
prefix %
wait_for 5 pane_count_is 2
right=$(active_pane)

mouse 0 5 5
mouse 3 5 5
check "a click on the left pane focuses it" wait_for 3 active_pane_is "$left"
mouse 0 100 10
mouse 3 100 10
check "a click on the right pane focuses it" wait_for 3 active_pane_is "$right"

border=$(cols_of "$left")
before=$border
mouse 0 "$border" 10
mouse 32 $((border - 6)) 10
mouse 3 $((border - 6)) 10
check "dragging the border 6 columns left narrows the left pane by 6" wait_for 3 cols_of_is "$left" $((before - 6))

mouse 64 5 10
check "the wheel over the left pane enters copy mode there" wait_for 3 screen_matches '\[[0-9]*/[0-9]*\]'
mouse 64 5 10
check "the wheel scrolls back into history" wait_for 3 screen_matches '\[[1-9][0-9]*/[0-9]*\]'
# Back down to the bottom, copy mode ends by itself, as tmux's does when
# the wheel started it.
in_copy() { screen_matches '\[[0-9]*/[0-9]*\]'; }
out_of_copy() { ! in_copy; }
stays_in_copy() { ! wait_for 1 out_of_copy; }
tries=0
while [ "$tries" -lt 20 ] && in_copy; do
	mouse 65 5 10
	wait_for 1 out_of_copy
	tries=$((tries + 1))
done
check "the wheel back to the bottom leaves copy mode" wait_for 3 sh -c '! tmux -u -L "$1" -f "$2" capture-pane -p -t main | grep -q "\[[0-9]*/[0-9]*\]"' - "$TMUX_NAME" "$T_DIR/tmux.conf"
# Copy mode entered with keys stays at the bottom, as tmux's.
prefix [
check "prefix [ enters copy mode" wait_for 3 in_copy
mouse 65 5 10
# What must not happen is waited for: copy mode ending within 1 s.
check "... and the wheel down at the bottom leaves it on" stays_in_copy
keys q

# A program that asked for mouse reports (X10 mode 1000) gets the click.
# The server announces the mode with "mouse":true in the layout; the
# zoom toggle below forces a layout in case it does not push one when a
# program's mouse mode changes (that push is checked first).
mouse 0 100 10
mouse 3 100 10
keys "printf '\\033[?1000h'; cat -v" Enter
# Clicked once the server has the pane's mouse mode (ls --json).
mouse_on() { sm ctl '{"cmd":"list"}' | tr -d ' ' | grep -q '"mouse":true'; }
wait_for 5 mouse_on
mouse 0 100 10
mouse 3 100 10
keys Enter
check "the layout follows a program turning mouse reporting on" wait_screen "^[[M" 2
zoomed() { status_matches '\*Z'; }
not_zoomed() { ! zoomed; }
prefix z
wait_for 3 zoomed
prefix z
wait_for 3 not_zoomed
mouse 0 100 10
mouse 3 100 10
keys Enter
check "a click reaches a program that enabled mouse reporting" wait_screen "^[[M"
keys C-c "printf '\\033[?1000l'" Enter

# A nested split: in a new window, L | R, then L split again, so the
# layout is (L | M) | R.  Dragging the M|R border must move that border
# (M narrows, L keeps its width), not the L|M one nearest M in the tree.
prefix c
wait_for 5 pane_count_is 1
l=$(active_pane)
prefix %
wait_for 5 pane_count_is 2
r=$(active_pane)
prefix Left
wait_for 3 active_pane_is "$l"
prefix %
wait_for 5 pane_count_is 3
m=$(active_pane)
x_of() { panes | awk -v id="$1" '$1 == id { print $2 }'; }
l_cols=$(cols_of "$l")
m_cols=$(cols_of "$m")
r_cols=$(cols_of "$r")
border=$(($(x_of "$m") + m_cols))
mouse 0 "$border" 10
mouse 32 $((border - 4)) 10
mouse 3 $((border - 4)) 10
check "dragging the M|R border of (L|M)|R 4 columns left narrows M by 4" \
	wait_for 3 cols_of_is "$m" $((m_cols - 4))
check "... and leaves L's width alone" cols_of_is "$l" "$l_cols"
check "... and R widens by 4" cols_of_is "$r" $((r_cols + 4))
finish
