#!/bin/sh
# make bench, an agent's full-screen TUI: 2,000 frames of 50 rows x 200
# coloured columns (tests/bench/agent-frames.c: header, conversation,
# status line, redrawn whole from the top-left corner each frame) played
# by `cat` in the pane of an attached client (a 200x52 PTY through
# ptyharness, which counts what the client's terminal receives), side by
# side with tmux in the same run, rounds interleaved.  Four cases: about
# a tenth of the rows changing a frame ("some") or all of them ("all"),
# each bare and with every frame inside a synchronized update (DEC 2026).
#
#   bytes  written to the outer terminal, until the last frame's marker
#   drain  from the first frame written (the pane's program let go) until
#          the outer terminal has received the last frame's marker
#
# A tool whose terminal falls behind skips frames (sandmux merges its
# damage, tmux discards and redraws), so the bytes depend on the load:
# each figure comes with its range over the rounds.
#
# Then memory while attached, with one frame on the screen: the client
# process's RSS (`sandmux attach` against `tmux attach`), and the
# server's RSS with a second client of another size (120x40) attached
# against one.
#
# Targets (issue 28): bytes and drain at most tmux's; client RSS at most
# tmux's client's; the server with two clients at most 5% above one.
#
# usage: tests/bench/agent.sh [BUILD [OTHER_BUILD]]
#   OTHER_BUILD: a second build directory measured in the same rounds.
#   BENCH_AGENT_ROUNDS (3), BENCH_AGENT_FRAMES (2000),
#   BENCH_AGENT_ONLY=memory: the memory rows alone.
BUILD=${1:-build}
OTHER=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS="$ROOT/$BUILD/helpers/ptyharness"
ROUNDS=${BENCH_AGENT_ROUNDS:-3}
FRAMES=${BENCH_AGENT_FRAMES:-2000}
ONLY=${BENCH_AGENT_ONLY:-}
SMN=${BENCH_SM_NAME:-benchagent}
TMN=${BENCH_TMUX_NAME:-smbenchagent}
# The end of the last frame: upper case and punctuation, which no earlier
# frame has in those columns, so every tool must write all of it.
MARKER='@AGENT-BENCH-DONE!'
[ -x "$HARNESS" ] || { echo "agent: $HARNESS is not built"; exit 1; }
W=$(mktemp -d /tmp/sandmux-agent.XXXXXX)
if [ -z "$XDG_RUNTIME_DIR" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
fi
# Both draw the frames' UTF-8 (the spinner, the tool-call bullet) as
# UTF-8: tmux would write '_' for them under a C locale.
export LC_ALL=C.UTF-8
trap 'tmux -L "$TMN" kill-server 2>/dev/null; rm -rf "$W"' EXIT

cc -O2 -std=c11 -o "$W/agent-frames" "$ROOT/tests/bench/agent-frames.c" || exit 1
for c in some all; do
	"$W/agent-frames" $c 0 "$FRAMES" 200 50 "$MARKER" >"$W/$c.0"
	"$W/agent-frames" $c 1 "$FRAMES" 200 50 "$MARKER" >"$W/$c.1"
done
# One frame and, below it at the left edge, a marker that stays in view
# when a second client makes the window smaller: the memory scenario.
"$W/agent-frames" some 0 1 200 50 "" >"$W/one"
printf '\r\n@AGENT-MEMORY!' >>"$W/one"

now() { date +%s.%N; }
gone() { while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; }
# seen OUT HARNESS_PID: until the harness has printed its line (the
# marker reached the terminal), or it died without.
seen() {
	until grep -q seen "$1"; do
		kill -0 "$2" 2>/dev/null || { echo "agent: the harness ended without the marker" >&2; return 1; }
		sleep 0.01
	done
}
# One try: stop waits for the previous server's exit, so a new server
# never meets one still exiting.
tmux_new() {
	tmux -L "$TMN" -f /dev/null new -d -x 200 -y 52 "$@" && return 0
	echo "agent: tmux new failed" >&2
	exit 1
}
start() { # TOOL COMMAND: a session running COMMAND, then the first client
	if [ "$1" = tmux ]; then
		tmux_new "$2"
		"$HARNESS" until 200 52 "$MARKER_NOW" -- tmux -L "$TMN" attach >"$W/out" &
		hp=$!
		until tmux -L "$TMN" list-clients 2>/dev/null | grep -q .; do sleep 0.01; done
	else
		"$1" -L "$SMN" new -d -s a -x 200 -y 52 -- sh -c "$2" >/dev/null
		"$HARNESS" until 200 52 "$MARKER_NOW" -- "$1" -L "$SMN" attach -t a >"$W/out" &
		hp=$!
		until "$1" -L "$SMN" ls --json | tr -d ' \t\n' | grep -q '"attached":[1-9]'; do sleep 0.01; done
	fi
}
stop() { # TOOL
	if [ "$1" = tmux ]; then
		pid=$(tmux -L "$TMN" display -p '#{pid}')
		tmux -L "$TMN" kill-server
	else
		pid=$("$1" -L "$SMN" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
		"$1" -L "$SMN" kill-server >/dev/null 2>&1
	fi
	wait
	gone "$pid"
}
# play TOOL FILE: "SECONDS BYTES SYNCS" for the frames of FILE.
play() {
	rm -f "$W/go"
	MARKER_NOW=$MARKER
	start "$1" "while [ ! -e '$W/go' ]; do sleep 0.01; done; cat '$2'; exec sleep 600"
	t0=$(now)
	touch "$W/go"
	seen "$W/out" "$hp" || exit 1
	stop "$1"
	awk -v t0="$t0" '/seen/ { printf "%.3f %d %d\n", $6 - t0, $2, $4 }' "$W/out"
}
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# memory TOOL: "CLIENT_RSS SERVER_RSS_ONE SERVER_RSS_TWO" in KiB.
memory() {
	MARKER_NOW='@AGENT-MEMORY!'
	start "$1" "cat '$W/one'; exec sleep 600"
	seen "$W/out" "$hp" || exit 1
	if [ "$1" = tmux ]; then
		client=$(tmux -L "$TMN" list-clients -F '#{client_pid}' | head -1)
		server=$(tmux -L "$TMN" display -p '#{pid}')
	else
		client=$("$1" -L "$SMN" ls --json | tr -d ' \t\n' | sed 's/.*"clients":\[{[^]]*"pid":\([0-9]*\).*/\1/')
		server=$("$1" -L "$SMN" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
	fi
	c=$(rss "$client")
	one=$(rss "$server")
	if [ "$1" = tmux ]; then
		"$HARNESS" until 120 40 '@AGENT-MEMORY!' -- tmux -L "$TMN" attach >"$W/out2" &
	else
		"$HARNESS" until 120 40 '@AGENT-MEMORY!' -- "$1" -L "$SMN" attach -t a >"$W/out2" &
	fi
	seen "$W/out2" $! || exit 1
	two=$(rss "$server")
	stop "$1"
	echo "$c $one $two"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%s-%s", $1, $2}'; }
col() { awk -v n="$1" '{print $n}' "$2"; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, a / b }'; }

echo "== agent-style redraw: $FRAMES frames of 50 x 200 coloured cells, attached, $ROUNDS rounds, medians (load: $(uptime | sed 's/.*load average: //'))"
tools="sm tmux"
[ -n "$OTHER" ] && tools="sm other tmux"
bin() { case $1 in sm) echo "$ROOT/$BUILD/sandmux" ;; other) echo "$OTHER/sandmux" ;; tmux) echo tmux ;; esac; }
for i in $(seq "$ROUNDS"); do
	[ "$ONLY" = memory ] || for c in some.0 some.1 all.0 all.1; do
		for t in $tools; do
			play "$(bin $t)" "$W/$c" >>"$W/$c.$t"
		done
	done
	for t in $tools; do
		memory "$(bin $t)" >>"$W/mem.$t"
	done
done
name() { case $1 in sm) echo sandmux ;; other) echo "other build" ;; tmux) echo tmux ;; esac; }
[ "$ONLY" = memory ] || for c in some.0 some.1 all.0 all.1; do
	case $c in
	some.0) what="a tenth of the rows change, bare" ;;
	some.1) what="a tenth of the rows change, DEC 2026" ;;
	all.0) what="every row changes, bare" ;;
	all.1) what="every row changes, DEC 2026" ;;
	esac
	tb=$(col 2 "$W/$c.tmux" | median)
	tt=$(col 1 "$W/$c.tmux" | median)
	line="$what: tmux $tt s ($(col 1 "$W/$c.tmux" | range)) $tb bytes ($(col 2 "$W/$c.tmux" | range); $(col 3 "$W/$c.tmux" | median) synchronized updates)"
	for t in $tools; do
		[ "$t" = tmux ] && continue
		line="$line; $(name $t) $(col 1 "$W/$c.$t" | median) s ($(col 1 "$W/$c.$t" | range)) $(col 2 "$W/$c.$t" | median) bytes ($(col 2 "$W/$c.$t" | range); $(col 3 "$W/$c.$t" | median) synchronized updates)"
	done
	echo "$line"
	for t in $tools; do
		[ "$t" = tmux ] && continue
		echo "RATIO agent redraw $(name $t)/tmux, $what: bytes $(ratio "$(col 2 "$W/$c.$t" | median)" "$tb")x, drain $(ratio "$(col 1 "$W/$c.$t" | median)" "$tt")x (target <= 1)"
	done
done
tc=$(col 1 "$W/mem.tmux" | median)
t1=$(col 2 "$W/mem.tmux" | median)
t2=$(col 3 "$W/mem.tmux" | median)
echo "tmux: client RSS $tc KiB, server RSS $t1 KiB with one client, $t2 KiB with two"
for t in $tools; do
	[ "$t" = tmux ] && continue
	c=$(col 1 "$W/mem.$t" | median)
	s1=$(col 2 "$W/mem.$t" | median)
	s2=$(col 3 "$W/mem.$t" | median)
	echo "$(name $t): client RSS $c KiB ($(col 1 "$W/mem.$t" | range)), server RSS $s1 KiB with one client ($(col 2 "$W/mem.$t" | range)), $s2 KiB with two ($(col 3 "$W/mem.$t" | range))"
	echo "RATIO client RSS $(name $t)/tmux: $(ratio "$c" "$tc")x (target <= 1)"
	echo "RATIO server RSS $(name $t) two clients/one: $(ratio "$s2" "$s1" 3)x (target <= 1.05; tmux $(ratio "$t2" "$t1" 3)x)"
done
exit 0
