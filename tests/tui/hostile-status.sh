#!/bin/sh
# TUI: a pane's program chooses text that the status line and the pane
# titles show (its name, which automatic-rename puts in the window list;
# its OSC title), with ESC [2J (clear the screen) and ESC ]52 (write
# the clipboard) in it.  The bytes the client writes to the terminal
# while it is shown, recorded with pipe-pane, never hold either
# sequence, and the status line shows the name with the ESC as '?'.  At
# 80x24 and at 160x45.
. "$(dirname "$0")/tui-lib"

evil_name=$(printf 'x\033[2J')
cp /bin/sleep "$T_DIR/$evil_name"
bytes_have() { grep -q "$1" "$T_DIR/out.bytes" 2>/dev/null; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "h$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "h$cols")"
	wait_screen "─" 10
	rm -f "$T_DIR/out.bytes"
	tm pipe-pane -o -t main "cat >$T_DIR/out.bytes"
	keys "printf '\\033]2;\\033]52;c;SGVsbG8=\\007T\\007'; '$T_DIR/$evil_name' 30" Enter
	check "$size: the status line names the program, its ESC as ?" \
		wait_for 5 status_matches 'x?\[2J'
	keys "# mark-$cols"
	wait_for 5 bytes_have "mark-$cols"
	tm pipe-pane -t main
	clean() { python3 - "$T_DIR/out.bytes" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
sys.exit(1 if b"x\x1b[2J" in data or b"\x1b]52" in data or b"52;c;SGVsbG8" in data and b"\x1b]52" in data else 0)
PY
	}
	check "$size: no ESC [2J or ESC ]52 of the pane's reached the terminal" clean
	screen | tail -n 1 | sed "s/^/# $size | /"
	keys C-c
	tm kill-session -t main
	sm kill-session -t "h$cols" >/dev/null
done
finish
