#!/bin/sh
# TUI: the server repaints only the cells that changed (tty.c keeps what
# the terminal shows), so what the client shows must still be exactly
# what the server holds.  A program overwrites its screen many times at
# random places -- wide over narrow, narrow over wide, the same text in
# another colour, erases, scrolls -- and at the end every row the client
# draws must equal the server's capture of the pane, colours included.
. "$(dirname "$0")/tui-lib"

cat >"$T_DIR/scribble.py" <<'PY'
import random, sys, time
random.seed(int(sys.argv[1]))
words = ["abc", "\u4e2d\u6587", "x", "\u00e9t\u00e9", "WIDE\uff21\uff22", "  ", "zz"]
out = sys.stdout
# The same text again in another colour: only the colour changes.
out.write("\033[30;1H\033[31mSAMECOLOUR\033[m")
out.flush()
time.sleep(0.4)
out.write("\033[30;1H\033[32mSAMECOLOUR\033[m")
out.flush()
for i in range(400):
    r = random.randrange(1, 30)
    c = random.randrange(1, 100)
    colour = random.choice(["", "\033[31m", "\033[32m", "\033[1;44m", "\033[38;5;200m"])
    out.write("\033[%d;%dH%s%s\033[m" % (r, c, colour, random.choice(words)))
    if i % 37 == 0:
        out.write("\033[%d;1H\033[K" % random.randrange(1, 30))
    if i % 91 == 0:
        out.write("\033[5;25r\033[2S\033[r")
    if i % 25 == 0:
        out.flush()
        time.sleep(0.02)
out.write("\033[31;1HSCRIBBLE-DONE")
out.flush()
time.sleep(600)
PY

# The program draws once the client shows the pane (its go).
sm new -d -s scribble -x 120 -y 38 -- sh -c "while [ ! -e '$T_DIR/scribble-go' ]; do sleep 0.05; done; exec python3 '$T_DIR/scribble.py' 7" >/dev/null
start_client -t scribble
touch "$T_DIR/scribble-go"
check "the program finished drawing" wait_screen "SCRIBBLE-DONE" 15
norm() { # plain text of each row, and the colour changes in it
	python3 -c '
import re, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")[:int(sys.argv[2])]:
    text = re.sub(r"\x1b\[[0-9;:]*m", "", line).rstrip()
    colours = [m for m in re.findall(r"\x1b\[([0-9;:]*)m", line) if m not in ("", "0", "39", "49", "39;49")]
    print(text, "|", len(colours))' "$1" "$rows"
}
# snap: the pane's rows as the client shows them (below the title row)
# and as the server holds them, text and colours, trailing blanks
# dropped; true when they match, text and coloured or not row by row.
# The client may still be drawing the last frames when SCRIBBLE-DONE
# shows: the checks take the first snap that matches, or the last one
# after 5 s.
rows=$(panes | awk 'NR == 1 { print $5 }')
top=$(panes | awk 'NR == 1 { print $3 }')
snap() {
	tm capture-pane -p -e -t main | sed -n "$((top + 1)),$((top + rows))p" >"$T_DIR/client.txt"
	sm capture -t %1 --ansi >"$T_DIR/server.txt"
	norm "$T_DIR/client.txt" >"$T_DIR/client.norm"
	norm "$T_DIR/server.txt" >"$T_DIR/server.norm"
	cut -d'|' -f1 "$T_DIR/server.norm" >"$T_DIR/s.txt"
	coloured() { sed 's/| [1-9][0-9]*$/| coloured/' "$1"; }
	[ "$(coloured "$T_DIR/client.norm")" = "$(coloured "$T_DIR/server.norm")" ]
}
wait_for 5 snap
check "every row's text matches the server's capture" \
	sh -c "cut -d'|' -f1 '$T_DIR/client.norm' | diff - '$T_DIR/s.txt' >&2"
check "coloured rows are coloured in the client too" \
	sh -c "[ \"\$(grep -vc '| 0\$' '$T_DIR/client.norm')\" -gt 0 ] && [ \"\$(grep -vc '| 0\$' '$T_DIR/client.norm')\" -eq \"\$(grep -vc '| 0\$' '$T_DIR/server.norm')\" ]"
check "the same text in a new colour is repainted (green, not red)" \
	sh -c "grep -F 'SAMECOLOUR' '$T_DIR/client.txt' | grep -q '32mSAMECOLOUR'"
finish
