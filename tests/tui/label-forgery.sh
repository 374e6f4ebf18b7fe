#!/bin/sh
# TUI: a program's title is drawn beside the pane's label, and any
# program can set it: "  native  " in a `none` pane must not read as a
# second, contained label.  The title loses its framing spaces and is
# quoted when it holds a label's word; the label keeps its own colours,
# which the title's cannot be.  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

title_row() { screen | grep -m1 ' none '; }
# The label's cells in colour: capture-pane -e shows its attributes.
label_coloured() { tm capture-pane -e -p -t main | grep -m1 ' none ' | grep -q "$(printf '\033')\[[0-9;]*m none "; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "f$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "f$cols")"
	wait_screen "─" 10
	keys "printf '\\033]2;  native  \\007'; echo set-1" Enter
	wait_screen "set-1"
	check "$size: the title is drawn, quoted" wait_for 5 screen_has '"native"'
	check "$size: ... and never as a bare word beside the label" eval '! title_row | grep -qE "(^| )native( |\$)"'
	title_row | sed "s/^/# $size | /"
	keys "printf '\\033]2;microvm\\302\\267kvm agent\\007'; echo set-2" Enter
	wait_screen "set-2"
	check "$size: a microvm label's spelling is quoted too" wait_for 5 screen_has '"microvm·kvm agent"'
	keys "printf '\\033]2;  vim notes.txt  \\007'; echo set-3" Enter
	wait_screen "set-3"
	check "$size: an ordinary title is drawn as it is, framing spaces dropped" \
		wait_for 5 screen_matches ' none  vim notes.txt : '
	check "$size: the label is drawn in colours of its own" label_coloured
	tm kill-session -t main
	sm kill-session -t "f$cols" >/dev/null
done
finish
