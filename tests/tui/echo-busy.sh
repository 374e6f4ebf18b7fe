#!/bin/sh
# TUI: while a client's frames are held after an echo patch, another
# pane's output must not wait behind them: a pane printing a line every
# 50 ms keeps moving on the client's screen while the other pane is typed
# into (server.c, server_send_pane_frame).
. "$(dirname "$0")/tui-lib"

sm new -d -s b -x 120 -y 38 -- /bin/sh >/dev/null
sm split -t %1 -h -- sh -c 'i=0; while :; do i=$((i + 1)); echo tick$i; sleep 0.05; done' >/dev/null
sm ctl '{"cmd":"select-pane","pane":1}' >/dev/null
start_client -t b
wait_screen "tick"
last_tick() { screen | grep -o 'tick[0-9]*' | sed 's/tick//' | sort -n | tail -1; }
stalls=0
i=0
while [ "$i" -lt 8 ]; do
	keys "x"
	a=$(last_tick)
	# The interval is the thing under test: the ticker's 0.05 s beat
	# must go on while the keys are echoed.
	sleep 0.3
	b=$(last_tick)
	[ "${b:-0}" -gt "${a:-0}" ] || stalls=$((stalls + 1))
	i=$((i + 1))
done
check "the busy pane kept moving after each keystroke ($stalls stalls of 8)" [ "$stalls" = 0 ]
check "the typed text shows too" screen_has "xxxxxxxx"
finish
