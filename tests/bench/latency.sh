#!/bin/sh
# make bench, latency: a keystroke's echo and a cursor-only change
# (Left and Right in bash's line editor, which change no cell) through
# an attached client, side by side with tmux, median / p90 / p99 in ms.
# The cursor change must reach the terminal as fast as the echo does.
#
# Each figure is taken in rounds that take turns (sandmux, then tmux,
# BENCH_LATENCY_ROUNDS of each, default 3): one round of 200 keys moved
# by 10-15% from run to run on an idle machine, more than the
# difference it was read for.  A round's line is printed; the summary is
# the median of the rounds' medians (and of their p90s and p99s), with
# the range of the rounds' medians, and its ratio to tmux's.
#
# usage: tests/bench/latency.sh [BUILD]   (run.sh calls it; the server
# names come from BENCH_SM_NAME and BENCH_TMUX_NAME, so a run of its own
# can use names no other bench uses)
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
HARNESS="$ROOT/$BUILD/helpers/ptyharness"
SMN=${BENCH_SM_NAME:-bench}
TMN=${BENCH_TMUX_NAME:-smbench}
N=${BENCH_KEYS:-200}
ROUNDS=${BENCH_LATENCY_ROUNDS:-3}
[ -x "$HARNESS" ] || { echo "latency: $HARNESS is not built"; exit 1; }
W=$(mktemp -d /tmp/sandmux-latency.XXXXXX)
trap 'rm -rf "$W"' EXIT
if [ -z "$XDG_RUNTIME_DIR" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
fi
BASH_CMD="env PS1='\$ ' bash --norc --noprofile"
# tmux new, again if it met the previous server still exiting.
tmux_new() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		tmux -L "$TMN" -f /dev/null new -d -x 120 -y 40 "$@" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "latency: tmux new failed" >&2
	exit 1
}
# gone PID: until the server has exited, so that the next round's server
# of the same name never meets it.
gone() { while [ -n "$1" ] && kill -0 "$1" 2>/dev/null; do sleep 0.01; done; }

# round KIND MODE SHELL_CMD: one round's "median M p90 P p99 Q".
round() {
	if [ "$1" = tmux ]; then
		tmux_new "$3"
		pid=$(tmux -L "$TMN" display -p '#{pid}')
		"$HARNESS" "$2" 120 40 "$N" 1000 -- tmux -L "$TMN" attach
		tmux -L "$TMN" kill-server
	else
		"$SM" -L "$SMN" new -d -s l -x 120 -y 40 -- sh -c "exec $3" >/dev/null
		pid=$("$SM" -L "$SMN" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
		"$HARNESS" "$2" 120 40 "$N" 1000 -- "$SM" -L "$SMN" attach -t l
		"$SM" -L "$SMN" kill-server
	fi
	gone "$pid"
}
# field NAME FILE: the median over the rounds of one figure (median,
# p90 or p99).
field() { awk -v f="$1" '{for (i = 1; i < NF; i++) if ($i == f) print $(i + 1)}' "$2" |
	sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
spread() { awk '{for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1)}' "$1" |
	sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%s-%s", $1, $2}'; }
summary() { # FILE
	echo "median $(field median "$1") p90 $(field p90 "$1") p99 $(field p99 "$1") (rounds' medians $(spread "$1"))"
}
# section TAG TITLE MODE SHELL_CMD [NOTE]
section() {
	echo "== $2, $N keys, $ROUNDS rounds each, taking turns"
	: >"$W/$1.sm"
	: >"$W/$1.tmux"
	for r in $(seq "$ROUNDS"); do
		line=$(round sandmux "$3" "$4")
		echo "round $r sandmux: $line"
		echo "$line" >>"$W/$1.sm"
		line=$(round tmux "$3" "$4")
		echo "round $r tmux:    $line"
		echo "$line" >>"$W/$1.tmux"
	done
	echo "sandmux: $(summary "$W/$1.sm")${5:+ $5}"
	echo "tmux:    $(summary "$W/$1.tmux")"
	sm_med=$(field median "$W/$1.sm") tm_med=$(field median "$W/$1.tmux")
	sm_99=$(field p99 "$W/$1.sm") tm_99=$(field p99 "$W/$1.tmux")
	echo "RATIO $1 sandmux/tmux: median $(echo "scale=2; $sm_med / $tm_med" | bc -l)x, p99 $(echo "scale=2; $sm_99 / $tm_99" | bc -l)x (target <= 1)"
}

section "echo (sh)" "keystroke-to-echo latency, attached client" latency /bin/sh
echo "bare pty: $("$HARNESS" latency 120 40 "$N" 300 -- /bin/sh)"
section "echo (bash)" "keystroke-to-echo latency in bash (the shell of the cursor figures)" \
	latency "$BASH_CMD"
section "cursor-only (bash)" "cursor-only change (Left/Right in bash) to the terminal, attached client" \
	cursor "$BASH_CMD" "(target: as the bash echo)"
