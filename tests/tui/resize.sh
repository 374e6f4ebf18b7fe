#!/bin/sh
# TUI: the outer terminal is resized (issue 12, item 3).  The terminal
# rearranges what it shows to its new size (tmux pushes rows into its
# history, pulls them back), so the client must paint every cell anew:
# no stale cells in the title row, in copy mode, after the help overlay;
# and a terminal below the smallest session size shows what fits, with
# no error, and everything comes back when it grows again.
. "$(dirname "$0")/tui-lib"

size() { tm resize-window -t main -x "$1" -y "$2"; }
outer_size_is() { [ "$(tm display -p -t main '#{pane_width}x#{pane_height}')" = "$1" ]; }
# The whole screen as the server would have it drawn: the title row
# (label and cwd), each row of the pane as its capture, the status line.
screen_is_server() {
	set -- $(panes | awk '$6 == "active" { print $1, $3, $5 }')
	screen >"$T_DIR/screen.txt"
	sm capture -t "%$1" | sed 's/ *$//' | head -n "$3" >"$T_DIR/server.txt"
	sed -n "$(($2 + 1)),$(($2 + $3))p" "$T_DIR/screen.txt" | sed 's/ *$//' >"$T_DIR/client.txt"
	diff "$T_DIR/client.txt" "$T_DIR/server.txt" >"$T_DIR/diff.txt" &&
		sed -n "$2p" "$T_DIR/screen.txt" | grep -q "^ none  $PWD ──*\$" &&
		tail -n 1 "$T_DIR/screen.txt" | grep -q '^\[r\] 0:bash\*'
}
check_screen() {
	if wait_for 3 screen_is_server; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/# /' "$T_DIR/screen.txt" | head -6
		sed 's/^/# /' "$T_DIR/diff.txt" | head -6
	fi
}

sm new -d -s r -x 120 -y 38 -- env PS1='$ ' bash --norc --noprofile >/dev/null
start_client -t r
wait_prompt
keys "seq 1 60" Enter
wait_screen '60'
check_screen "before any resize the screen is the server's"

size 100 30
wait_for 3 outer_size_is 100x30
check_screen "after a resize to 100x30 every cell is the server's (title row too)"
size 120 40
wait_for 3 outer_size_is 120x40
check_screen "after growing back to 120x40 as well"

# Copy mode: a view of history, painted whole after a resize too.
prefix [
wait_for 3 screen_matches '\[[0-9]*/[0-9]*\]'
size 100 30
wait_for 3 outer_size_is 100x30
copy_view_ok() {
	screen >"$T_DIR/screen.txt"
	head -n 1 "$T_DIR/screen.txt" | grep -q "^ none  $PWD ─" &&
		python3 - "$T_DIR/screen.txt" <<'PY'
import sys
rows = open(sys.argv[1]).read().split("\n")[1:29]
nums = [r.split()[0] for r in rows if r.strip() and r.split()[0].isdigit()]
# the view: consecutive lines of `seq`, as many as fit in the pane
ok = len(nums) >= 20 and all(int(b) == int(a) + 1 for a, b in zip(nums, nums[1:]))
sys.exit(0 if ok else 1)
PY
}
if wait_for 3 copy_view_ok; then ok "copy mode after a resize: the title row and the view are whole"
else not_ok "copy mode after a resize: stale cells"; sed 's/^/# /' "$T_DIR/screen.txt" | head -4; fi
keys q
check_screen "copy mode left: the screen is the server's"
size 120 40
wait_for 3 outer_size_is 120x40

# The help overlay open across a resize leaves nothing behind.
prefix '?'
check "the help overlay opens" wait_screen "key bindings"
size 90 25
wait_for 3 outer_size_is 90x25
check "it is drawn again at the new size" wait_screen "key bindings"
keys q
check_screen "help closed after a resize: nothing of it is left"
check "... no scrap of its text anywhere" sh -c "! grep -qE 'select-pane|PageUp|split|bindings' '$T_DIR/screen.txt'"
size 120 40
wait_for 3 outer_size_is 120x40
check_screen "grown back: the screen is the server's"

# Below the smallest session (10x4): what fits, no error, and whole
# again when the terminal grows.
size 8 3
wait_for 3 outer_size_is 8x3
tiny_drawn() { screen | head -n 1 | grep -q '^ none  /'; }
wait_for 5 tiny_drawn
screen >"$T_DIR/tiny.txt"
check "a terminal of 8x3 shows no error" sh -c "! grep -q 'client' '$T_DIR/tiny.txt'"
check "... it shows the start of the title row" sh -c "head -n 1 '$T_DIR/tiny.txt' | grep -q '^ none  /'"
check "... and the start of the status line" sh -c "tail -n 1 '$T_DIR/tiny.txt' | grep -q '^\[r\] 0:'"
size 120 40
wait_for 3 outer_size_is 120x40
check_screen "grown back from 8x3: the screen is the server's, titles whole"
check "... and no error was shown" sh -c "! grep -q 'client size' '$T_DIR/screen.txt'"
finish
