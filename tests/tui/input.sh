#!/bin/sh
# TUI: the keys of the client's terminal, which the server reads and
# decodes (server-tty.c, term_input_decode).  The pane must get exactly
# the bytes the keys stand for, in the order they were typed, in its own
# key modes; the prefix must still be the client's.
. "$(dirname "$0")/tui-lib"

# A program that records every byte it gets, in raw mode, as hex.
cat >"$T_DIR/rec.py" <<'PY'
import os, sys, termios, tty
out, mode = sys.argv[1], sys.argv[2]
tty.setraw(0)
if mode == "app":
    os.write(1, b"\033[?1h")  # application cursor keys
os.write(1, b"REC-READY\r\n")
with open(out, "w") as f:
    while True:
        b = os.read(0, 64)
        f.write(b.hex() + "\n")
        f.flush()
        if b"\x04" in b:
            break
PY
recorded() { tr -d '\n' <"$1"; }

# Panes stay after their program ends (--remain): the sessions and the
# client outlive the recorders.
sm new -d -s i -x 120 -y 38 --remain -- python3 "$T_DIR/rec.py" "$T_DIR/normal.hex" normal >/dev/null
start_client -t i
wait_screen "REC-READY"
keys "ab" Left "cd" Tab BSpace Enter "e" Up "f"
# Then one key per write, as fast as tmux sends them: text must never
# overtake an arrow (an escape sequence the decoder may wait on).
i=0
while [ "$i" -lt 15 ]; do
	keys g
	keys Left
	keys h
	i=$((i + 1))
done
keys C-d
wait_for 5 grep -q 04 "$T_DIR/normal.hex"
# a b ESC[D c d TAB DEL CR e ESC[A f, then (g ESC[D h) x 15, ^D
want="61621b5b446364097f0d651b5b4166$(printf '671b5b4468%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)04"
check "every byte arrives, in order" [ "$(recorded "$T_DIR/normal.hex")" = "$want" ]
prefix d
wait_screen "CLIENT-EXIT=0"
tm kill-session -t main

# Application cursor keys: the arrows come from the pane's encoder.
sm new -d -s j -x 120 -y 38 --remain -- python3 "$T_DIR/rec.py" "$T_DIR/app.hex" app >/dev/null
start_client -t j
wait_screen "REC-READY"
keys "x" Left "y" C-d
wait_for 5 grep -q 04 "$T_DIR/app.hex"
check "application cursor mode is honoured ($(recorded "$T_DIR/app.hex"))" \
	[ "$(recorded "$T_DIR/app.hex")" = "781b4f447904" ]
prefix d
wait_screen "CLIENT-EXIT=0"
tm kill-session -t main

# The prefix is the client's: C-b c makes a window, it never reaches a pane.
sm new -d -s k -x 120 -y 38 -- /bin/sh >/dev/null
start_client -t k
windows() { sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
for s in json.load(sys.stdin)["result"]["sessions"]:
    if s["name"] == "k":
        print(len(s["windows"]))'; }
prefix c
n=0
i=0
while [ "$i" -lt 100 ] && [ "$n" != 2 ]; do
	n=$(windows)
	sleep 0.05
	i=$((i + 1))
done
check "the prefix still works: C-b c made a second window ($n)" [ "$n" = 2 ]
keys "echo typed-in-new-window" Enter
check "typing in it works" wait_screen "typed-in-new-window"
prefix d
wait_screen "CLIENT-EXIT=0"
finish
