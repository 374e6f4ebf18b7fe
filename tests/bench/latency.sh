#!/bin/sh
# make bench, latency: a keystroke's echo and a cursor-only change
# (Left and Right in bash's line editor, which change no cell) through
# an attached client, side by side with tmux, median / p90 / p99 in ms.
# The cursor change must reach the terminal as fast as the echo does.
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
[ -x "$HARNESS" ] || { echo "latency: $HARNESS is not built"; exit 1; }
if [ -z "$XDG_RUNTIME_DIR" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	W=$(mktemp -d /tmp/sandmux-latency.XXXXXX)
	export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
	trap 'rm -rf "$W"' EXIT
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

echo "== keystroke-to-echo latency, $N keys, attached client"
"$SM" -L "$SMN" new -d -s l -x 120 -y 40 -- /bin/sh >/dev/null
echo "sandmux: $("$HARNESS" latency 120 40 "$N" 1000 -- "$SM" -L "$SMN" attach -t l)"
"$SM" -L "$SMN" kill-server
tmux_new /bin/sh
echo "tmux:    $("$HARNESS" latency 120 40 "$N" 1000 -- tmux -L "$TMN" attach)"
tmux -L "$TMN" kill-server
echo "bare pty: $("$HARNESS" latency 120 40 "$N" 300 -- /bin/sh)"

echo "== keystroke-to-echo latency in bash (the shell of the cursor figures), $N keys"
"$SM" -L "$SMN" new -d -s b -x 120 -y 40 -- sh -c "exec $BASH_CMD" >/dev/null
echo "sandmux: $("$HARNESS" latency 120 40 "$N" 1000 -- "$SM" -L "$SMN" attach -t b)"
"$SM" -L "$SMN" kill-server
tmux_new "$BASH_CMD"
echo "tmux:    $("$HARNESS" latency 120 40 "$N" 1000 -- tmux -L "$TMN" attach)"
tmux -L "$TMN" kill-server

echo "== cursor-only change (Left/Right in bash) to the terminal, $N keys, attached client"
"$SM" -L "$SMN" new -d -s c -x 120 -y 40 -- sh -c "exec $BASH_CMD" >/dev/null
echo "sandmux: $("$HARNESS" cursor 120 40 "$N" 1000 -- "$SM" -L "$SMN" attach -t c) (target: as the echo)"
"$SM" -L "$SMN" kill-server
tmux_new "$BASH_CMD"
echo "tmux:    $("$HARNESS" cursor 120 40 "$N" 1000 -- tmux -L "$TMN" attach)"
tmux -L "$TMN" kill-server
