#!/bin/sh
# TUI: the default key table — splits, focus movement, kill with
# confirmation, zoom, windows — each checked against the server's view
# of the session and against what is drawn.
. "$(dirname "$0")/tui-lib"

start_client
first=$(active_pane)

prefix %
check "prefix % splits side by side" wait_for 5 pane_count_is 2
check "side-by-side panes are separated by a vertical border" wait_screen "│"
right=$(active_pane)
right_of_first() { panes | awk -v id="$right" '$1 == id { found = $2 > 0 } END { exit !found }'; }
check "the new pane is to the right" right_of_first

prefix Left
check "prefix Left focuses the left pane" wait_for 3 active_pane_is "$first"
prefix Right
check "prefix Right focuses the right pane" wait_for 3 active_pane_is "$right"

prefix '"'
check "prefix \" splits stacked" wait_for 5 pane_count_is 3
bottom=$(active_pane)
prefix Up
check "prefix Up focuses the pane above" wait_for 3 active_pane_is "$right"
prefix Down
check "prefix Down focuses the pane below" wait_for 3 active_pane_is "$bottom"

prefix x
check "prefix x asks for confirmation" wait_screen "(y/n)"
keys n
check "answering n closes the question" wait_screen_gone "(y/n)"
check "answering n keeps the pane" pane_count_is 3
prefix x
wait_screen "(y/n)"
keys y
check "answering y kills the pane" wait_for 5 pane_count_is 2

prefix z
check "prefix z zooms: the status line marks the window" wait_screen "*Z"
check "zoomed: the other pane's title is not drawn" wait_for 3 screen_count_is " none " 1
prefix z
check "prefix z again unzooms" wait_screen_gone "*Z"

# A split of a zoomed pane unzooms it (as tmux does); when the unzoomed
# pane is then too small, the split is refused and the window is zoomed
# again, on the server and on the screen (it used to stay unzoomed on
# the server while the client still drew the zoomed pane).
small=$(sm split -t "$right" -v | awk '{ print substr($1, 2) }')
sm resize-pane -t "%$small" -y 2 >/dev/null
sm select-pane -t "%$small" >/dev/null
wait_for 3 active_pane_is "$small"
prefix z
wait_screen "*Z"
prefix '"'
check "a split with no room says so" wait_screen "too small to split"
check "a refused split leaves the window zoomed on the server" \
	sh -c "$SANDMUX_BIN -L $T_NAME ls --json | grep -q '\"zoomed\":[[:space:]]*true'"
check "a refused split leaves the window zoomed on the screen (the title's Z)" wait_screen " Z ─"
check "a refused split makes no pane" pane_count_is 3
prefix z
wait_screen_gone "*Z"
sm kill-pane -t "%$small"
wait_for 5 pane_count_is 2
# The error holds the status line for its 6 s: the window list below
# needs it back.
wait_screen_gone "too small to split" 10

prefix c
check "prefix c opens window 1" wait_for 5 status_matches '1:[^ ]*\*'
prefix 0
check "prefix 0 goes back to window 0" wait_for 5 status_matches '0:[^ ]*\*'
prefix n
check "prefix n goes to the next window" wait_for 5 status_matches '1:[^ ]*\*'
prefix p
check "prefix p goes to the previous window" wait_for 5 status_matches '0:[^ ]*\*'

# The prefix twice sends it to the program.
keys "cat -v" Enter
wait_for 5 pane_runs cat
prefix C-b
keys Enter
check "prefix prefix sends C-b to the pane" wait_screen "^B"
keys C-c
finish
