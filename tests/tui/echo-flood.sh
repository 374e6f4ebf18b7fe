#!/bin/sh
# TUI: keys typed beside a flood.  A pane's read stops for keys waiting
# at the client's terminal, and the server reads them there and then,
# from inside the flooding pane's wake-up (server_tty_read_waiting);
# until a typed key's echo is drawn every other pane is left unread, for
# 3 ms at most (pane.c, echo_park_ms).  So: every key typed while
# another pane floods arrives, once and in order; and a key that shows
# nothing (a program that does not echo) does not stop the flood.
. "$(dirname "$0")/tui-lib"

sm new -d -s f -x 120 -y 38 -- /bin/sh >/dev/null
sm split -t %1 -h -- seq 1 1000000000 >/dev/null
sm ctl '{"cmd":"select-pane","pane":1}' >/dev/null
start_client -t f

# 600 keys in chunks, each chunk one write to the terminal, while the
# other pane floods.
type_to_cat 7
check "every key typed beside the flood arrived, once and in order (600 keys)" wait_for 10 typed_all

# Keys to a program that echoes nothing (no echo is ever drawn, so only
# the time bound lets the flood be read again), each key read at once
# (-icanon) into a file, which tells when all of them have arrived.
keys "stty -echo -icanon; cat >$T_DIR/silent" Enter
check "the silent cat reads the keys" wait_for 5 pane_runs cat
i=0
while [ "$i" -lt 40 ]; do
	keys x
	i=$((i + 1))
done
silent_all() { [ "$(wc -c <"$T_DIR/silent")" -eq 40 ]; }
check "the 40 keys that show nothing arrived" wait_for 10 silent_all
# The flood's count as drawn: the highest number right of a border (the
# flooding pane is on the right).
count() { screen | sed 's/.*│//' | awk '/^[0-9]+$/ && $1 + 0 > n { n = $1 + 0 } END { print n + 0 }'; }
counted=$(count)
moved_on() { [ "$(count)" -gt $((counted + 100000)) ]; }
check "... and the flood goes on after them, 100000 lines more ($counted at the last key)" \
	wait_for 10 moved_on
keys C-d
finish
