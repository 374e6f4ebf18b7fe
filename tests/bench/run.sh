#!/bin/sh
# make bench: sandmux side by side with tmux (and GNU screen / dvtm when
# installed) in the same run, reported as ratios.  Not part of make check:
# figures vary with the machine; the ratios are what the targets name.
#
#   throughput  100 MB of text through one 200x50 pane, headless and with
#               a client attached (through a PTY harness that discards
#               what the client draws)
#   floor       the same bytes into libvterm's state layer alone
#   memory      server RSS with a full 10,000-line x 200-column scrollback
#   latency     keystroke to echo, and a cursor-only change (Left in
#               bash), through an attached client, three rounds taking
#               turns with tmux's (latency.sh); echo
#               while another pane floods (flood-echo.sh)
#   workloads   attached throughput of base64, short words, C headers
#               and coloured logs (throughput.sh)
#   agent       an agent's full-screen redraw, 2,000 frames of 50 x 200
#               coloured cells, bare and in DEC 2026 updates: bytes to
#               the outer terminal and time to drain; the client's RSS,
#               and the server's with two clients against one (agent.sh)
#   native      split to first prompt output, none vs native
#   base        throughput, memory and echo of a base build (BENCH_BASE),
#               interleaved with this build's in the same run
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
HARNESS="$ROOT/$BUILD/helpers/ptyharness"
W=$(mktemp -d /tmp/sandmux-bench.XXXXXX)
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/sandmux"
chmod 700 "$XDG_RUNTIME_DIR"
printf '{"scrollback": 10000}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
# tmux reads history-limit when a pane is made: it must be set in the file.
printf 'set -g history-limit 10000\n' >"$W/tmux.conf"
MB=${BENCH_MB:-100}
RUNS=${BENCH_RUNS:-3}
trap 'tmux -L smbench kill-server 2>/dev/null; "$SM" -L bench kill-server 2>/dev/null; rm -rf "$W"' EXIT

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }
# server_pid: the pid of the running -L bench server (its hello reply).
server_pid() { "$SM" -L bench ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }

command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)"; exit 1; }

echo "== generating ${MB} MB of text (base64 lines of 199 chars, every 8th line coloured)"
head -c $((MB * 1000000 * 3 / 4)) /dev/urandom | base64 -w 199 |
	awk 'NR % 8 == 0 { printf "\033[3%dm%s\033[0m\n", NR % 7 + 1, $0; next } { print }' >"$W/bench.txt"
BYTES=$(stat -c %s "$W/bench.txt")
mbps() { echo "scale=1; $BYTES / 1000000 / $1" | bc -l; }

echo "== emulator floor (libvterm state layer alone) and sandmux's term_write"
cc -O2 -std=c11 -D_GNU_SOURCE -o "$W/floor" "$ROOT/tests/bench/floor.c" $(pkg-config --cflags --libs vterm)
cc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/term" -o "$W/termbench" "$ROOT/tests/bench/termbench.c" \
	"$ROOT/$BUILD/libsandmux.a" $(pkg-config --cflags --libs vterm)
# The emulator in a pane sees the file as the PTY hands it over: every
# newline made CR LF (the tty's onlcr).  The floor and term_write get the
# same bytes, so all three parse the same stream.
sed 's/$/\r/' "$W/bench.txt" >"$W/bench-pty.txt"
FLOOR=$("$W/floor" "$W/bench-pty.txt" | grep -o '[0-9.]* MB/s' | head -1 | cut -d' ' -f1)
TERMW=$("$W/termbench" "$W/bench-pty.txt" | grep -o '[0-9.]* MB/s' | head -1 | cut -d' ' -f1)
echo "floor $FLOOR MB/s, term_write $TERMW MB/s"

# --- headless: no client attached -------------------------------------
# Both multiplexers run the same command, which marks its end with a
# file; the harness waits on the file, not on either tool's CLI.
wait_done() { while [ ! -e "$W/done" ]; do sleep 0.005; done; }
# tmux new, again if it met the previous server still exiting after its
# kill-server ("server exited unexpectedly"): the bench would wait forever.
again() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		"$@" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "bench: $* failed" >&2
	exit 1
}
tmux_new() { again tmux -L smbench -f "$W/tmux.conf" new "$@"; }
sandmux_headless() {
	rm -f "$W/done"
	t0=$(now)
	"$SM" -L bench new -d -s b -x 200 -y 51 -- sh -c "cat '$W/bench.txt'; : >'$W/done'" >/dev/null
	wait_done
	t1=$(now)
	"$SM" -L bench kill-server >/dev/null 2>&1
	elapsed "$t0" "$t1"
}
tmux_headless() {
	rm -f "$W/done"
	t0=$(now)
	tmux_new -d -x 200 -y 50 "cat '$W/bench.txt'; : >'$W/done'; sleep 5"
	wait_done
	t1=$(now)
	tmux -L smbench kill-server
	elapsed "$t0" "$t1"
}
echo "== headless throughput, $RUNS runs each, median"
S=$(for i in $(seq $RUNS); do sandmux_headless; done | median)
T=$(for i in $(seq $RUNS); do tmux_headless; done | median)
echo "sandmux headless: ${S}s ($(mbps $S) MB/s)"
echo "tmux    headless: ${T}s ($(mbps $T) MB/s)"
echo "RATIO headless sandmux/tmux throughput: $(ratio $T $S)x (target >= 1.8)"
echo "RATIO sandmux vs floor: floor is $(ratio $(mbps $S) $FLOOR | awk '{printf "%.2f", 1/$1}')x faster (target <= 1.3)"

# --- attached: a client on a 200x52 PTY -----------------------------------
sandmux_attached() {
	rm -f "$W/go"
	"$SM" -L bench new -d -s a -x 200 -y 52 -- sh -c "while [ ! -e '$W/go' ]; do sleep 0.01; done; cat '$W/bench.txt'" >/dev/null
	"$HARNESS" drain 200 52 -- "$SM" -L bench attach -t a &
	hp=$!
	# The clock starts once the client is attached.
	until "$SM" -L bench ls --json | tr -d ' \t\n' | grep -q '"attached":[1-9]'; do sleep 0.01; done
	t0=$(now)
	touch "$W/go"
	wait $hp
	elapsed "$t0" "$(now)"
}
tmux_attached() {
	rm -f "$W/go"
	tmux_new -d -x 200 -y 52 \
		"while [ ! -e '$W/go' ]; do sleep 0.01; done; cat '$W/bench.txt'"
	"$HARNESS" drain 200 52 -- tmux -L smbench attach &
	hp=$!
	until tmux -L smbench list-clients 2>/dev/null | grep -q .; do sleep 0.01; done
	t0=$(now)
	touch "$W/go"
	wait $hp
	elapsed "$t0" "$(now)"
}
if "$SM" --help >/dev/null 2>&1 && [ -x "$HARNESS" ]; then
	echo "== attached throughput (client on a PTY), $RUNS runs each, median"
	S=$(for i in $(seq $RUNS); do sandmux_attached; done | median)
	T=$(for i in $(seq $RUNS); do tmux_attached; done | median)
	echo "sandmux attached: ${S}s ($(mbps $S) MB/s)"
	echo "tmux    attached: ${T}s ($(mbps $T) MB/s)"
	echo "RATIO attached sandmux/tmux throughput: $(ratio $T $S)x (target >= 1.8)"
	# The attached figure is the one that counts (issue 2): the floor
	# against it, as for the headless one above (below 1.0: sandmux
	# with a client is faster than libvterm's state layer alone).
	echo "RATIO attached sandmux vs floor: floor is $(ratio $(mbps $S) $FLOOR | awk '{printf "%.2f", 1/$1}')x faster (target <= 1.3)"
fi

# The four workloads attached (base64, short words, C headers, coloured
# logs), against tmux.
[ -x "$HARNESS" ] && sh "$ROOT/tests/bench/throughput.sh" "$BUILD"

# --- memory: full 10,000 x 200 scrollback ---------------------------------
echo "== memory: one pane, 10,000 lines of 200 columns in scrollback"
head -c 2100000 /dev/urandom | base64 -w 200 | head -10100 >"$W/lines.txt"
# The memory is read once the server shows the end (base64 has no '-'):
# it has read and drawn all before it.
"$SM" -L bench new -d -s m -x 200 -y 51 -- sh -c "cat '$W/lines.txt'; echo bench-end; exec sleep 600" >/dev/null
until "$SM" -L bench capture -t m | grep -q bench-end; do sleep 0.02; done
SPID=$(server_pid)
SRSS=$(awk '/VmRSS/ {print $2}' /proc/$SPID/status)
HIST=$("$SM" -L bench ctl '{"cmd":"capture","pane":'"$("$SM" -L bench ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*' | tail -1 | cut -d: -f2)"',"start":0,"end":0}' | grep -o '"history":[0-9]*')
"$SM" -L bench kill-server
tmux_new -d -x 200 -y 50 "cat '$W/lines.txt'; echo bench-end; exec sleep 600"
until tmux -L smbench capture-pane -p | grep -q bench-end; do sleep 0.02; done
TPID=$(tmux -L smbench display -p '#{pid}')
TRSS=$(awk '/VmRSS/ {print $2}' /proc/$TPID/status)
tmux -L smbench kill-server
echo "sandmux server RSS: ${SRSS} KiB ($HIST)"
echo "tmux server RSS:    ${TRSS} KiB"
echo "RATIO memory sandmux/tmux: $(ratio $SRSS $TRSS) (target <= 0.5)"

# --- keystroke latency through an attached client -------------------------
if [ -x "$HARNESS" ]; then
	# Echo and cursor-only changes, side by side with tmux.
	sh "$ROOT/tests/bench/latency.sh" "$BUILD"
	# Echo while cat of a large file floods another pane, against tmux.
	sh "$ROOT/tests/bench/flood-echo.sh" "$BUILD"
	# An agent's TUI redrawing its screen, and memory while attached.
	sh "$ROOT/tests/bench/agent.sh" "$BUILD"
fi
# --- this build against a base build, side by side in this run ------------
# BENCH_BASE: a build directory holding a sandmux, or a commit built
# here (default 91d253b, the last landed build, stop 35, before the last
# of issue 28's work; native.sh is handed the same build, and
# defaults alone to b42b6d1, the commit before issue 13; empty: none).
# Throughput, memory and echo are sampled on both builds, interleaved,
# so that what the host does meanwhile hits both alike (issues 14 and
# 29: no figure worse than the previous build beyond the ranges printed,
# measured in one run).  history.sh takes the same base build.
BASE=${BENCH_BASE-91d253b}
. "$ROOT/tests/bench/base.sh"
BASE_SM=$(base_sandmux "$BASE" "$W")
if [ -n "$BASE_SM" ]; then
	# More rounds than the tmux figures: on a small virtual machine one
	# run's wall time moves by 20% with what the host does, which is more
	# than the difference asked about.  The order alternates each round,
	# so that a drift over the run (the host's page cache, its other
	# guests) favours neither build.
	BASE_RUNS=${BENCH_BASE_RUNS:-7}
	echo "== this build vs the base build ($BASE), $BASE_RUNS runs each, interleaved, medians"
	NEW_SM=$SM
	for f in h w c a m e; do : >"$W/$f.new"; : >"$W/$f.base"; done
	# headless_warm: the same 100 MB through a server whose probe has
	# settled (its qemu check, run at every server start since the
	# microvm backend, is over: `probe` waits for it), and the server's own CPU time (user
	# + system, from /proc) for it: throughput itself, and the server's
	# cost, which the wall time (mostly the kernel's PTY and cat) hides.
	headless_warm() { # FILE_TIME FILE_CPU
		"$SM" -L bench new -d -s idle -x 80 -y 24 -- sleep 600 >/dev/null
		"$SM" -L bench probe >/dev/null
		rm -f "$W/done"
		t0=$(now)
		"$SM" -L bench new -d -s b -x 200 -y 51 -- sh -c "cat '$W/bench.txt'; : >'$W/done'; exec sleep 600" >/dev/null
		wait_done
		t1=$(now)
		pid=$(server_pid)
		ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		"$SM" -L bench kill-server >/dev/null 2>&1
		elapsed "$t0" "$t1" >>"$1"
		echo "$ticks * 1000 / $(getconf CLK_TCK)" | bc >>"$2"
	}
	# rss: the server's RSS with the memory section's full scrollback.
	rss() {
		"$SM" -L bench new -d -s m -x 200 -y 51 -- sh -c "cat '$W/lines.txt'; echo bench-end; exec sleep 600" >/dev/null
		until "$SM" -L bench capture -t m | grep -q bench-end; do sleep 0.02; done
		pid=$(server_pid)
		awk '/VmRSS/ {print $2}' "/proc/$pid/status"
		"$SM" -L bench kill-server >/dev/null 2>&1
	}
	# echo_ms: the median keystroke-to-echo time in a sh pane.
	echo_ms() {
		"$SM" -L bench new -d -s e -x 120 -y 40 -- /bin/sh >/dev/null
		"$HARNESS" latency 120 40 200 1000 -- "$SM" -L bench attach -t e | sed -n 's/.*median \([0-9.]*\).*/\1/p'
		"$SM" -L bench kill-server >/dev/null 2>&1
	}
	for i in $(seq "$BASE_RUNS"); do
		order="new base"
		[ $((i % 2)) = 0 ] && order="base new"
		for b in $order; do
			if [ "$b" = base ]; then SM=$BASE_SM; else SM=$NEW_SM; fi
			sandmux_headless >>"$W/h.$b"
			headless_warm "$W/w.$b" "$W/c.$b"
			[ -x "$HARNESS" ] && sandmux_attached >>"$W/a.$b"
			rss >>"$W/m.$b"
			[ -x "$HARNESS" ] && echo_ms >>"$W/e.$b"
		done
	done
	SM=$NEW_SM
	# against WHAT FILE UNIT: both medians, this build's difference, and
	# each build's range over the runs (how far one run strays).
	against() {
		n=$(median <"$W/$2.new")
		b=$(median <"$W/$2.base")
		[ -n "$n" ] && [ -n "$b" ] || return 0
		nr=$(sort -n "$W/$2.new" | sed -n '1p;$p' | tr '\n' ' ')
		br=$(sort -n "$W/$2.base" | sed -n '1p;$p' | tr '\n' ' ')
		awk -v what="$1" -v n="$n" -v b="$b" -v unit="$3" -v nr="$nr" -v br="$br" 'BEGIN {
			split(nr, x, " "); split(br, y, " ")
			printf "THIS BUILD vs BASE, %s: %s %s against %s (%+.1f%%; lower is better; ranges %s-%s and %s-%s)\n",
				what, n, unit, b, (n / b - 1) * 100, x[1], x[2], y[1], y[2] }'
	}
	against "headless throughput, time for ${MB} MB (a server started for it)" h s
	against "headless throughput, time for ${MB} MB (a server started before)" w s
	against "headless throughput, the server's CPU time for ${MB} MB" c ms
	against "attached throughput, time for ${MB} MB" a s
	against "server RSS, 10,000 x 200 history" m KiB
	against "echo median (sh)" e ms
	export BENCH_NATIVE_BASE="$(dirname "$BASE_SM")"
fi

for extra in ${BENCH_EXTRAS-history native supervisor egress load microvm microvm-read}; do
	[ -f "$ROOT/tests/bench/$extra.sh" ] || continue
	# load.sh takes PANES SECONDS and finds the binary through SANDMUX_BIN.
	if [ "$extra" = load ]; then
		SANDMUX_BIN="$ROOT/$BUILD/sandmux" sh "$ROOT/tests/bench/load.sh"
	else
		sh "$ROOT/tests/bench/$extra.sh" "$BUILD"
	fi
done
exit 0
