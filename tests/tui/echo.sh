#!/bin/sh
# TUI: a keystroke's echo, drawn by the server on the client's terminal
# (server-tty.c, tty.c).  What the user sees must be exactly what the
# server holds: after typing, after erasing what was typed, on a coloured
# prompt; never over a copy-mode view; never on the shell's terminal once
# the client has gone.
. "$(dirname "$0")/tui-lib"

# The pane's rows as the client shows them and as the server holds them,
# text and colour changes; equal when the client's screen is the truth.
same_as_server() {
	rows=$(panes | awk 'NR == 1 { print $5 }')
	top=$(panes | awk 'NR == 1 { print $3 }')
	tm capture-pane -p -e -t main >"$T_DIR/client.txt"
	sm capture -t %1 --ansi >"$T_DIR/server.txt"
	python3 - "$T_DIR/client.txt" "$T_DIR/server.txt" "$top" "$rows" <<'PY'
import re, sys
def cells(path, first, rows):
    """Each row's visible characters with the foreground colour they are
    drawn in; the colour state carries over from row to row, as it does
    in a capture."""
    fg, out = "", []
    for line in open(path, encoding="utf-8", errors="replace").read().split("\n"):
        row = []
        for part in re.split(r"(\x1b\[[0-9;:]*m)", line):
            m = re.fullmatch(r"\x1b\[([0-9;:]*)m", part)
            if m:
                for c in (m.group(1) or "0").split(";"):
                    if c in ("0", "39"):
                        fg = ""
                    elif re.fullmatch(r"3[0-7]|9[0-7]", c):
                        fg = c
            else:
                row += [(ch, fg) for ch in part]
        while row and row[-1][0] == " ":
            row.pop()
        out.append([(ch, f) for ch, f in row if ch != " "])
    out = out[first:first + rows]
    return out + [[]] * (rows - len(out))
a = cells(sys.argv[1], int(sys.argv[3]), int(sys.argv[4]))
b = cells(sys.argv[2], 0, int(sys.argv[4]))
bad = [i for i in range(len(a)) if a[i] != b[i]]
for i in bad[:3]:
    print("# row %d: client %r" % (i, "".join(c + ("/" + f if f else "") for c, f in a[i][:30])))
    print("#        server %r" % "".join(c + ("/" + f if f else "") for c, f in b[i][:30]))
sys.exit(1 if bad else 0)
PY
}

# A shell whose prompt is coloured, so the echo row carries colours.
sm new -d -s e -x 120 -y 38 -- env PS1="$(printf '\033[32mprompt>\033[0m ')" sh >/dev/null
start_client -t e
wait_screen "prompt>"
keys "echo typed-one"
check "typed text shows" wait_screen "prompt> echo typed-one"
check "the screen is the server's, colours included" same_as_server
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
keys "two"
check "erased and retyped text shows as the server has it" wait_screen "prompt> two"
# The cursor stands after the typed text.
row=$(screen | grep -n "prompt> two" | head -1 | cut -d: -f1)
px=$(panes | awk 'NR == 1 { print $2 }')
want="$((px + 11)),$((row - 1))"
got=$(tm display -p -t main '#{cursor_x},#{cursor_y}')
check "the cursor stands after the typed text ($got, want $want)" [ "$got" = "$want" ]
check "... nothing of the erased text is left" screen_lacks "typed-one"
check "the screen is still the server's" same_as_server
keys Enter
wait_screen "two: not found"

# A key of the client's right after typing: copy mode starts from what
# the terminal showed.
keys "echo held-back"
wait_screen "prompt> echo held-back"
prefix [
check "copy mode entered right after typing shows the typed text" wait_screen "prompt> echo held-back"
keys q
keys C-u
wait_screen_gone "prompt> echo held-back"

# Copy mode: a view of history the server must not write over.
keys "seq 1 200" Enter
wait_screen "200"
prefix [
keys k k k k k k k k k k
# Copy mode's position ([0/N]: the cursor moves within the screen) is up.
wait_for 3 screen_matches '\[[0-9][0-9]*/[0-9][0-9]*\]'
sm send-keys -t %1 "echo WHILE-COPYING" Enter >/dev/null 2>&1 ||
	sm ctl '{"cmd":"key","pane":1,"text":"echo WHILE-COPYING\r"}' >/dev/null
# Once the pane has the output, the half second is the test: nothing of
# it may reach the client's screen meanwhile.
wait_for 5 capture_has %1 "WHILE-COPYING"
sleep 0.5
check "output during copy mode is not drawn over the copy view" screen_lacks "WHILE-COPYING"
keys q
check "it shows once copy mode is left" wait_screen "WHILE-COPYING"

# Detach: the outer shell gets its terminal back, and pane output must
# never reach it afterwards.
prefix d
wait_screen "CLIENT-EXIT=0"
sm ctl '{"cmd":"key","pane":1,"text":"echo AFTER-DETACH\r"}' >/dev/null
# Once the pane has the output, the half second is the test (as above).
wait_for 5 capture_has %1 "AFTER-DETACH"
sleep 0.5
check "after detach nothing of the pane reaches the old terminal" screen_lacks "AFTER-DETACH"
finish
