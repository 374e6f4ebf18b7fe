#!/bin/sh
# make bench, echo under a flood: a keystroke's echo in one pane while
# `cat` of a large file floods another pane of the same window, through
# an attached client, side by side with tmux in the same run (rounds
# interleaved), median and p99 in ms and their ratios to tmux's.
#
# The flood is lines of digits, and the keys typed are letters: a letter
# in the terminal's stream can only be the echo (ptyharness's `shown`
# skips escape sequences), never the flood's own text.
#
# usage: tests/bench/flood-echo.sh [BUILD [OTHER_BUILD]]
#   OTHER_BUILD: a second build directory measured in the same rounds
#   (before/after a change).  BENCH_FLOOD_ROUNDS (3), BENCH_KEYS (100).
BUILD=${1:-build}
OTHER=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS="$ROOT/$BUILD/helpers/ptyharness"
ROUNDS=${BENCH_FLOOD_ROUNDS:-3}
N=${BENCH_KEYS:-100}
SMN=${BENCH_SM_NAME:-benchflood}
TMN=${BENCH_TMUX_NAME:-smbenchflood}
[ -x "$HARNESS" ] || { echo "flood-echo: $HARNESS is not built"; exit 1; }
W=$(mktemp -d /tmp/sandmux-flood.XXXXXX)
if [ -z "$XDG_RUNTIME_DIR" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
fi
trap 'tmux -L "$TMN" kill-server 2>/dev/null; rm -rf "$W"' EXIT

# 40 MB shaped as the throughput bench's text (lines of 199 characters,
# every 8th coloured) but of digits, read again and again while the keys
# go.
head -c 30000000 /dev/urandom | base64 -w 199 | tr 'A-Za-z+/' '0-90-90-90-90-90-90-9' |
	awk 'NR % 8 == 0 { printf "\033[3%dm%s\033[0m\n", NR % 7 + 1, $0; next } { print }' >"$W/digits.txt"
FLOOD="while :; do cat '$W/digits.txt'; done"

tmux_new() {
	tmux -L "$TMN" -f /dev/null new -d -x 120 -y 40 "$@" || {
		echo "flood-echo: tmux new failed" >&2
		exit 1
	}
}
# gone PID: until the process has exited: the next round's server of the
# same name must not meet this one still holding its socket.
gone() { while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; }

# one_sandmux BINARY: the harness's line for a sh pane beside the flood.
one_sandmux() {
	"$1" -L "$SMN" new -d -s f -x 120 -y 40 -- /bin/sh >/dev/null
	shell=$("$1" -L "$SMN" ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
	"$1" -L "$SMN" split -t "%$shell" -h -- sh -c "$FLOOD" >/dev/null
	"$1" -L "$SMN" ctl "{\"cmd\":\"select-pane\",\"pane\":$shell}" >/dev/null
	"$HARNESS" latency 120 40 "$N" 1000 -- "$1" -L "$SMN" attach -t f
	pid=$("$1" -L "$SMN" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
	"$1" -L "$SMN" kill-server >/dev/null 2>&1
	gone "$pid"
}
one_tmux() {
	tmux_new /bin/sh \; split-window -h "$FLOOD" \; select-pane -L
	"$HARNESS" latency 120 40 "$N" 1000 -- tmux -L "$TMN" attach
	pid=$(tmux -L "$TMN" display -p '#{pid}')
	tmux -L "$TMN" kill-server
	gone "$pid"
}
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%s-%s", $1, $2}'; }

echo "== keystroke echo while cat of a large file floods another pane, $N keys, $ROUNDS rounds"
for i in $(seq "$ROUNDS"); do
	line=$(one_sandmux "$ROOT/$BUILD/sandmux")
	echo "round $i sandmux:       $line"
	echo "$line" >>"$W/sm"
	if [ -n "$OTHER" ]; then
		line=$(one_sandmux "$OTHER/sandmux")
		echo "round $i other build:   $line"
		echo "$line" >>"$W/other"
	fi
	line=$(one_tmux)
	echo "round $i tmux:          $line"
	echo "$line" >>"$W/tmux"
done
summary() { # NAME FILE
	m=$(field median <"$2" | median)
	p=$(field p99 <"$2" | median)
	tm=$(field median <"$W/tmux" | median)
	tp=$(field p99 <"$W/tmux" | median)
	echo "$1: median $m ms (rounds $(field median <"$2" | range)), p99 $p ms (rounds $(field p99 <"$2" | range))"
	echo "RATIO $1/tmux echo under flood: median $(echo "scale=2; $m / $tm" | bc -l)x, p99 $(echo "scale=2; $p / $tp" | bc -l)x (target <= 1)"
}
echo "tmux: median $(field median <"$W/tmux" | median) ms (rounds $(field median <"$W/tmux" | range)), p99 $(field p99 <"$W/tmux" | median) ms (rounds $(field p99 <"$W/tmux" | range))"
summary sandmux "$W/sm"
[ -n "$OTHER" ] && summary "other build" "$W/other"
exit 0
