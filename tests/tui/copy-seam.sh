#!/bin/sh
# TUI: copy mode's view is one moment of the pane.  Entered while the
# pane prints numbered lines without pause, the view must show them in
# order across the join of history and screen: no line twice, none
# missing.  (The client's own copy of the screen lags the server by up
# to a frame; history taken from the server a moment later, put above
# that copy, repeated the lines that had scrolled in between.)  At 80x24
# and 160x45.
. "$(dirname "$0")/tui-lib"

# numbers: the n<N> lines the outer screen shows, in order, one a line.
numbers() { screen | grep -o '^n[0-9]*' | cut -c2-; }
# in_order: every number is the one before plus one.
in_order() {
	numbers | awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad || NR < 5 }'
}

# Bursts of 500 lines, 10,000 and more a second: many lines between two
# frames.  A view made of two moments shows in about one round in ten
# (the build before the fix failed 6 to 11 of the 80 checks in each of
# four runs), hence 20 rounds at each size.
printer='i=0; while :; do i=$((i + 1)); echo "n$i"; [ $((i % 500)) = 0 ] && sleep 0.01; done'
for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "s$cols" -x "$cols" -y "$rows" -- sh -c "$printer" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "s$cols")"
	wait_screen "─" 10
	wait_for 10 screen_matches '^n[0-9]*[1-9][0-9][0-9]'
	for round in $(seq 1 20); do
		prefix [
		wait_for 5 screen_matches '\[[0-9]*/[1-9][0-9]*\]'
		keys C-u
		check "$size, round $round: half a page up, across history and screen, the lines are in order" \
			wait_for 3 in_order
		in_order || numbers | tr '\n' ' ' | sed 's/^/# /;s/$/\n/'
		keys G
		check "$size, round $round: G, the bottom, in order" wait_for 3 in_order
		keys q
		wait_for 3 eval "! screen_matches '\[[0-9]*/[0-9]*\]'"
	done
	tm kill-session -t main
	sm kill-session -t "s$cols" >/dev/null
done
finish
