#!/bin/sh
# History and start-up costs, side by side with tmux in one run (and a
# base build's when BENCH_BASE_BIN names its sandmux binary):
#
#   rss-1       server RSS, one pane holding 10,000 lines x 200 columns
#               of history (history-limit 10000 in both)
#   rss-32      the same in 32 panes (32 sessions of one pane each)
#   rss-empty   server RSS with 32 empty 200x50 panes
#   start       server start and its first session, milliseconds
#   capture     `capture -S -` of the full history, milliseconds
#   search      copy mode's own search over the 10,000 lines, in the
#               server, for a string not there: both enter copy mode and
#               search once (sandmux's client attached inside a tmux
#               pane, its keys sent there: prefix [, ?, the string,
#               Enter, until "not found" shows), then each run times one
#               `send-keys -X search-again` (tmux: `send -X search-again`),
#               which returns once the whole history was searched
#
# capture and search run every kind's server at once and take turns, run
# by run (this machine's load comes and goes).
#
# Usage: history.sh [BUILD] (a path under the checkout, or absolute);
# BENCH_RUNS (default 5) runs each, medians; BENCH_WHAT picks sections
# (default: rss-1 rss-32 rss-empty start read).
# In make bench, the base build is run.sh's (BENCH_NATIVE_BASE).
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in
/*) SM="$BUILD/sandmux" ;;
*) SM="$ROOT/$BUILD/sandmux" ;;
esac
W=$(mktemp -d /var/tmp/sandmux-bench-history.XXXXXX)
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
# tmux's sockets in the run's own directory: a bench running beside
# this one never meets its servers.
export TMUX_TMPDIR="$W"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/sandmux"
chmod 700 "$XDG_RUNTIME_DIR"
printf '{"scrollback": 10000}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
printf 'set -g history-limit 10000\n' >"$W/tmux.conf"
RUNS=${BENCH_RUNS:-5}
BENCH_BASE_BIN=${BENCH_BASE_BIN-${BENCH_NATIVE_BASE:+$BENCH_NATIVE_BASE/sandmux}}
L=hbench
trap 'for n in $L hb-tmux hbench-host; do tmux -L $n kill-server 2>/dev/null; done; for b in $BINS; do for n in $L hb-sm hb-base; do "$b" -L $n kill-server 2>/dev/null; done; done; rm -rf "$W"' EXIT

BINS="$SM${BENCH_BASE_BIN:+ $BENCH_BASE_BIN}"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# keep TAG: the median of stdin's runs, the runs kept in $W/v.TAG for
# the ranges `line` prints (how far one run strays).
keep() { tee "$W/v.$1" | median; }
range_of() { [ -s "$W/v.$1" ] && sort -n "$W/v.$1" | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%s-%s", $1, $2}'; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }
command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)"; exit 1; }

head -c 2100000 /dev/urandom | base64 -w 200 | head -10100 >"$W/lines.txt"

# --- servers ---------------------------------------------------------
sm_pid() { "$1" -L $L ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/'; }
tmux_pid() { tmux -L $L display -p '#{pid}'; }
# gone PID: until the process has exited, so that the next server of
# the same name never meets it still holding its socket.
gone() { while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; }
sm_stop() { # BIN
	pid=$(sm_pid "$1")
	"$1" -L $L kill-server >/dev/null 2>&1
	gone "$pid"
}
tmux_stop() {
	pid=$(tmux_pid)
	tmux -L $L kill-server
	gone "$pid"
}
# run COMMAND...: once; a failure ends the bench, saying what failed.
run() { "$@" || { echo "bench: $* failed" >&2; exit 1; }; }
rss_of() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Each pane's command ends by printing END (base64 text has no '-'):
# once a server shows it, it has read and drawn all that came before.
END=bench-end
# shown KIND N: until each of the N panes shows END.
shown() {
	for i in $(seq "$2"); do
		if [ "$1" = tmux ]; then
			until tmux -L $L capture-pane -p -t "s$i" | grep -q "$END"; do sleep 0.02; done
		else
			until "$1" -L $L capture -t "s$i" | grep -q "$END"; do sleep 0.02; done
		fi
	done
}
# sm_panes BIN N COMMAND: N sessions of one 200x51 pane (status line
# included: 50 rows of pane, as tmux's 200x50 with its status line).
sm_panes() {
	for i in $(seq "$2"); do
		run "$1" -L $L new -d -s "s$i" -x 200 -y 51 -- sh -c "$3; echo $END; exec sleep 600" >/dev/null
	done
}
tmux_panes() {
	for i in $(seq "$1"); do
		run tmux -L $L -f "$W/tmux.conf" new -d -s "s$i" -x 200 -y 50 "$2; echo $END; exec sleep 600"
	done
}

# rss KIND N COMMAND TAG: the median server RSS (KiB) after N panes ran
# it (the runs kept under TAG).
rss() {
	kind=$1 n=$2 cmd=$3 tag=$4
	for r in $(seq "$RUNS"); do
		if [ "$kind" = tmux ]; then
			tmux_panes "$n" "$cmd"
			shown tmux "$n"
			rss_of "$(tmux_pid)"
			tmux_stop
		else
			sm_panes "$kind" "$n" "$cmd"
			shown "$kind" "$n"
			rss_of "$(sm_pid "$kind")"
			sm_stop "$kind"
		fi
	done | keep "$tag"
}

start_once() { # KIND: ms for one server start and its first session
	t0=$(now_ms)
	if [ "$1" = tmux ]; then
		run tmux -L $L -f "$W/tmux.conf" new -d -s a -x 200 -y 50 "exec sleep 600"
		t1=$(now_ms)
		tmux_stop
	else
		run "$1" -L $L new -d -s a -x 200 -y 51 -- sleep 600 >/dev/null
		t1=$(now_ms)
		sm_stop "$1"
	fi
	echo $((t1 - t0))
}
# start_rows: sandmux, tmux and the base build take turns, run by run,
# as the read rows do: a block of one kind's runs after another's read
# whatever the machine was doing then (the base build's block came last
# and read 8-9 ms against sandmux's 15-19 in two runs where, taking
# turns, the two builds read alike).  Prints the three medians.
start_rows() {
	kinds="$SM:sm tmux:tmux${BENCH_BASE_BIN:+ $BENCH_BASE_BIN:base}"
	for r in $(seq "$RUNS"); do
		for k in $kinds; do
			echo "${k##*:} $(start_once "${k%:*}")"
		done
	done >"$W/start-times"
	for name in sm tmux base; do
		awk -v n=$name '$1 == n {print $2}' "$W/start-times" | keep "st.$name"
	done | tr '\n' ' '
}

# The read rows run every kind's server at once, each under a name of
# its own, and take turns run by run: a load that comes and goes on this
# machine then weighs on every kind alike.
#
# The terminal sandmux's clients are attached in (tmux, another server),
# one session per server, named as it.
H=hbench-host
printf 'set -g status off\nset -g default-terminal tmux-256color\n' >"$W/host.conf"
host() { tmux -L $H -f "$W/host.conf" "$@"; }
# host_wait SESSION TEXT: until the client attached there shows TEXT (10 s).
host_wait() {
	for i in $(seq 1000); do
		host capture-pane -p -t "$1" | grep -qF -- "$2" && return 0
		sleep 0.01
	done
	echo "bench: the attached client never showed '$2'" >&2
	exit 1
}
NOT_THERE=sandmux-not-there
# read_setup KIND NAME: server NAME of KIND, its one pane holding the
# history, in copy mode after one search for a string not there
# (sandmux's client attached in a 200x51 tmux pane as a user's terminal,
# by its keys: prefix [, ?, the string, Enter).
read_setup() {
	if [ "$1" = tmux ]; then
		run tmux -L "$2" -f "$W/tmux.conf" new -d -s s1 -x 200 -y 50 \
			"$hist; echo $END; exec sleep 600"
		until tmux -L "$2" capture-pane -p -t s1 | grep -q "$END"; do sleep 0.02; done
		tmux -L "$2" copy-mode -t s1 \; send -t s1 -X search-backward "$NOT_THERE"
		return
	fi
	run "$1" -L "$2" new -d -s s1 -x 200 -y 51 -- sh -c "$hist; echo $END; exec sleep 600" >/dev/null
	until "$1" -L "$2" capture -t s1 | grep -q "$END"; do sleep 0.02; done
	host new -d -s "$2" -x 200 -y 51 "$1 -L $2 attach -t s1"
	host_wait "$2" '─'
	host send -t "$2" C-b [
	host_wait "$2" '[0/'
	host send -t "$2" '?' "$NOT_THERE" Enter
	host_wait "$2" "not found"
}
# read_once capture|search KIND NAME: one `capture -S -`, or one
# search-again over the whole history, which returns once it is done.
read_once() {
	case $1:$2 in
	capture:tmux) tmux -L "$3" capture-pane -p -S - -t s1 >"$W/capture" ;;
	capture:*) "$2" -L "$3" capture -t s1 -S - >"$W/capture" ;;
	search:tmux) run tmux -L "$3" send -t s1 -X search-again ;;
	search:*) run "$2" -L "$3" send-keys -t s1 -X search-again >/dev/null ;;
	esac
}
read_stop() { # KIND NAME
	if [ "$1" = tmux ]; then
		pid=$(tmux -L "$2" display -p '#{pid}')
		tmux -L "$2" kill-server
	else
		pid=$("$1" -L "$2" ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
		"$1" -L "$2" kill-server >/dev/null 2>&1
	fi
	gone "$pid"
}
# read_rows: "C S" medians (ms) for sandmux, tmux and the base build
# (C: capture -S -, S: copy mode's search), taking turns.
read_rows() {
	kinds="$SM:hb-sm tmux:hb-tmux${BENCH_BASE_BIN:+ $BENCH_BASE_BIN:hb-base}"
	for k in $kinds; do read_setup "${k%:*}" "${k##*:}"; done
	for what in capture search; do
		for r in $(seq "$RUNS"); do
			for k in $kinds; do
				t0=$(now_ms)
				read_once $what "${k%:*}" "${k##*:}"
				echo "$what ${k##*:} $(($(now_ms) - t0))"
			done
		done
	done >"$W/read-times"
	host kill-server
	for k in $kinds; do read_stop "${k%:*}" "${k##*:}"; done
	for name in hb-sm hb-tmux hb-base; do
		for what in capture search; do
			awk -v w=$what -v n=$name '$1 == w && $2 == n {print $3}' "$W/read-times" |
				keep "$what.${name#hb-}"
		done
	done | tr '\n' ' '
}

line() { # WHAT UNIT TARGET SANDMUX TMUX BASE TAG
	r=-
	[ "$5" -gt 0 ] 2>/dev/null && r=$(ratio "$4" "$5")
	printf 'RATIO %-46s sandmux %8s %s  tmux %8s %s  sandmux/tmux %s (target <= %s)' \
		"$1" "$4" "$2" "$5" "$2" "$r" "$3"
	[ -n "$6" ] && printf '  (base build %s %s; ranges %s and %s)' "$6" "$2" \
		"$(range_of "$7.sm")" "$(range_of "$7.base")"
	echo
}
hist="cat '$W/lines.txt'"
for what in ${BENCH_WHAT:-rss-1 rss-32 rss-empty start read}; do
	case $what in
	rss-1)
		line "server RSS, 1 pane x 10,000 x 200 history" KiB 0.5 "$(rss "$SM" 1 "$hist" r1.sm)" \
			"$(rss tmux 1 "$hist" r1.tmux)" \
			"${BENCH_BASE_BIN:+$(rss "$BENCH_BASE_BIN" 1 "$hist" r1.base)}" r1 ;;
	rss-32)
		line "server RSS, 32 panes x 10,000 x 200 history" KiB 0.5 "$(rss "$SM" 32 "$hist" r32.sm)" \
			"$(rss tmux 32 "$hist" r32.tmux)" \
			"${BENCH_BASE_BIN:+$(rss "$BENCH_BASE_BIN" 32 "$hist" r32.base)}" r32 ;;
	rss-empty)
		line "server RSS, 32 empty 200x50 panes" KiB 1.0 "$(rss "$SM" 32 true re.sm)" \
			"$(rss tmux 32 true re.tmux)" \
			"${BENCH_BASE_BIN:+$(rss "$BENCH_BASE_BIN" 32 true re.base)}" re ;;
	start)
		set -- $(start_rows)
		line "server start + first session" ms 1.0 "$1" "$2" "${3:-}" st ;;
	read)
		set -- $(read_rows)
		sc=$1 ss=$2 tc=$3 ts=$4 bc=${5:-} bs=${6:-}
		line "capture -S - of 10,000 lines" ms 1.0 "$sc" "$tc" "$bc" capture
		line "copy-mode search of 10,000 lines" ms 1.0 "$ss" "$ts" "$bs" search ;;
	esac
done
exit 0
