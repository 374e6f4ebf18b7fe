#!/bin/sh
# make bench, attached throughput on four workloads: the time for `cat`
# of each file in a 200x50 pane with a client attached (through
# ptyharness drain, which reads and discards what the client draws),
# side by side with tmux in the same run, rounds interleaved, medians
# and each tool's range over the rounds, as ratios (target: sandmux at
# least 2x tmux's throughput on every workload).
#
#   base64   long lines: base64 of random bytes, 199 columns
#   words    short lines of a few short words
#   headers  C headers (/usr/include), tabs and punctuation
#   logs     coloured log lines: time, level in colour, a message
#
# Each round also times the PTY alone: `cat` of the file on a PTY whose
# master ptyharness drain reads and throws away, no multiplexer and no
# emulator.  The kernel's side (the tty's onlcr writes each line's text
# and its CR LF as two writes, each queueing the worker that moves the
# bytes to the reader 4 KiB at a time) is there whoever reads, and on
# short lines (words, headers) it keeps a 2-CPU machine busy by itself:
# "PTY floor/tmux" is that bare reader's ratio in the same run, the
# reference for what is left to the server.  (How the reader reads
# moves cat's own kernel time a little: the server, which reads up to
# 128 KiB a wakeup, has been seen below this floor on words.)
#
# usage: tests/bench/throughput.sh [BUILD [OTHER_BUILD]]
#   OTHER_BUILD: a second build directory measured in the same rounds.
#   BENCH_TP_MB (20): megabytes per workload; BENCH_TP_ROUNDS (3).
BUILD=${1:-build}
OTHER=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS="$ROOT/$BUILD/helpers/ptyharness"
MB=${BENCH_TP_MB:-20}
ROUNDS=${BENCH_TP_ROUNDS:-3}
SMN=${BENCH_SM_NAME:-benchtp}
TMN=${BENCH_TMUX_NAME:-smbenchtp}
[ -x "$HARNESS" ] || { echo "throughput: $HARNESS is not built"; exit 1; }
W=$(mktemp -d /tmp/sandmux-tp.XXXXXX)
if [ -z "$XDG_RUNTIME_DIR" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
fi
trap 'tmux -L "$TMN" kill-server 2>/dev/null; rm -rf "$W"' EXIT
BYTES=$((MB * 1000000))

# fill NAME: repeat what stdin gives until the file holds BYTES.
fill() {
	cat >"$W/$1.one"
	[ -s "$W/$1.one" ] || { echo "throughput: no text for $1" >&2; exit 1; }
	: >"$W/$1.txt"
	while [ "$(stat -c %s "$W/$1.txt")" -lt "$BYTES" ]; do
		cat "$W/$1.one" >>"$W/$1.txt"
	done
	truncate -s "$BYTES" "$W/$1.txt"
	rm -f "$W/$1.one"
}
head -c $((BYTES * 3 / 4)) /dev/urandom | base64 -w 199 >"$W/base64.txt"
awk 'BEGIN { srand(7); split("a an the of to in it is be as at so we he by or on do if me my up go no us am", w, " ")
	for (i = 0; i < 400000; i++) { n = 1 + int(rand() * 6); s = w[1 + int(rand() * 26)]
		for (j = 1; j < n; j++) s = s " " w[1 + int(rand() * 26)]; print s } }' | fill words
cat /usr/include/*.h 2>/dev/null | fill headers
awk 'BEGIN { srand(11); split("INFO WARN ERROR DEBUG", lv, " "); split("32 33 31 36", co, " ")
	for (i = 0; i < 200000; i++) { k = 1 + int(rand() * 4)
		printf "2026-12-05T03:%02d:%02d.%03dZ \033[%sm%-5s\033[0m \033[2m[worker-%d]\033[0m request %d took %d ms path=/api/v1/items/%d\n",
			i / 60 % 60, i % 60, i % 1000, co[k], lv[k], i % 8, i, int(rand() * 900), i } }' | fill logs

now() { date +%s.%N; }
# attached TOOL FILE: seconds for `cat FILE` in a pane with a client attached.
attached() {
	rm -f "$W/go"
	start="while [ ! -e '$W/go' ]; do sleep 0.01; done; cat '$2'"
	if [ "$1" = tmux ]; then
		# The previous round waited for its server's exit: one try.
		tmux -L "$TMN" -f /dev/null new -d -x 200 -y 52 "$start" || {
			echo "throughput: tmux new failed" >&2
			exit 1
		}
		"$HARNESS" drain 200 52 -- tmux -L "$TMN" attach &
	else
		"$1" -L "$SMN" new -d -s a -x 200 -y 52 -- sh -c "$start" >/dev/null
		"$HARNESS" drain 200 52 -- "$1" -L "$SMN" attach -t a &
	fi
	hp=$!
	# The clock starts once the client is attached: a bounded wait, so
	# that a round that never attaches stops the bench with a message
	# rather than hanging it.
	tries=0
	if [ "$1" = tmux ]; then
		until tmux -L "$TMN" list-clients 2>/dev/null | grep -q .; do
			tries=$((tries + 1)) && [ "$tries" -lt 3000 ] || stuck "$1"
			sleep 0.01
		done
		pid=$(tmux -L "$TMN" display -p '#{pid}')
	else
		until "$1" -L "$SMN" ls --json 2>/dev/null | tr -d ' \t\n' | grep -q '"attached":[1-9]'; do
			tries=$((tries + 1)) && [ "$tries" -lt 3000 ] || stuck "$1"
			sleep 0.01
		done
		pid=$("$1" -L "$SMN" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
	fi
	t0=$(now)
	touch "$W/go"
	wait $hp
	echo "$(now) - $t0" | bc -l
	# The pane's end ends the session and its server: the next round's
	# `new` must not reach this server while it exits (it answered
	# "the server closed the connection", and the round never attached).
	while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
}
# pty_only FILE: seconds for `cat FILE` on a PTY read and discarded.
pty_only() {
	t0=$(now)
	"$HARNESS" drain 200 52 -- cat "$1"
	echo "$(now) - $t0" | bc -l
}
# stuck TOOL: a round whose client never attached, in 30 s.
stuck() {
	echo "throughput: $1's client did not attach in 30 s; stopping" >&2
	kill "$hp" 2>/dev/null
	exit 1
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%.2f-%.2f", $1, $2}'; }

echo "== attached throughput, four workloads of $MB MB, $ROUNDS rounds each, medians"
for wl in base64 words headers logs; do
	for i in $(seq "$ROUNDS"); do
		attached "$ROOT/$BUILD/sandmux" "$W/$wl.txt" >>"$W/$wl.sm"
		[ -n "$OTHER" ] && attached "$OTHER/sandmux" "$W/$wl.txt" >>"$W/$wl.other"
		attached tmux "$W/$wl.txt" >>"$W/$wl.tmux"
		pty_only "$W/$wl.txt" >>"$W/$wl.pty"
	done
	s=$(median <"$W/$wl.sm")
	t=$(median <"$W/$wl.tmux")
	line="$wl: sandmux $(printf %.3f "$s")s ($(range <"$W/$wl.sm")), tmux $(printf %.3f "$t")s ($(range <"$W/$wl.tmux"))"
	if [ -n "$OTHER" ]; then
		o=$(median <"$W/$wl.other")
		line="$line, other build $(printf %.3f "$o")s ($(range <"$W/$wl.other"))"
	fi
	f=$(median <"$W/$wl.pty")
	line="$line, PTY floor $(printf %.3f "$f")s ($(range <"$W/$wl.pty"))"
	echo "$line"
	echo "RATIO attached throughput sandmux/tmux, $wl: $(echo "scale=2; $t / $s" | bc -l)x (target >= 2)"
	echo "RATIO attached throughput PTY floor/tmux, $wl: $(echo "scale=2; $t / $f" | bc -l)x (a reader that does nothing)"
	[ -n "$OTHER" ] && echo "RATIO attached throughput other build/tmux, $wl: $(echo "scale=2; $t / $o" | bc -l)x"
done
exit 0
