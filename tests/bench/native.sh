#!/bin/sh
# Bench: what the native sandbox adds to opening a pane.
#
# Measures, RUNS times each (default 20, interleaved so drift hits both
# alike), the time from starting `sandmux split --backend B` to the
# pane's command printing its first output, for B = none and B = native,
# and reports the medians.  The pane runs
#     sh -c 'printf READY; echo >FIFO; exec sleep 100'
# and the bench blocks on the FIFO, so the end of each sample is the
# moment the command got past its first output: no polling, no capture
# round trips.  Both backends pay the same CLI and date(1) costs, so the
# difference is the sandbox.  Also reported: the server's own view of
# native confirmation, the starting -> ready event times (bwrap spawned
# to the command seen exec'd inside), from `events --follow --json`.
#
# With a base build (BENCH_NATIVE_BASE: a build directory holding a
# sandmux, or a git commit to build into a scratch directory; by default
# b42b6d1, the last commit before issue 13's host-integrity rules, when
# the repository has it; empty: none), every sample is taken on both
# builds, interleaved, each with its own server, and the report adds
# what this build costs a native pane over the base, prepared and cold
# (target for issue 13's mounts, name rules, withheld environment and
# limits: <= 2 ms; and neither may get slower against none).
#
#   sh tests/bench/native.sh [BUILD_DIR]     (target: native adds <= 15 ms)
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
NEW_SM=$SM
BASE=${BENCH_NATIVE_BASE-b42b6d1}
RUNS=${BENCH_NATIVE_RUNS:-20}
# Not under /tmp: the native pane has a private /tmp, the FIFO must be
# the same file inside and out.
W=$(mktemp -d /var/tmp/sandmux-bench-native.XXXXXX) || exit 1
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$W/work"
chmod 700 "$XDG_RUNTIME_DIR"
FOLLOWER=""
BASE_SM=""
trap '[ -n "$FOLLOWER" ] && kill "$FOLLOWER" 2>/dev/null; "$NEW_SM" -L bnative kill-server >/dev/null 2>&1; [ -n "$BASE_SM" ] && "$BASE_SM" -L bnative-base kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT

# The base build: a directory with a sandmux, or a commit built here.
. "$ROOT/tests/bench/base.sh"
BASE_SM=$(base_sandmux "$BASE" "$W")

# sm: the CLI of the build being sampled (use_build new|base).
use_build() {
	if [ "$1" = base ]; then SM=$BASE_SM SERVER=bnative-base; else SM=$NEW_SM SERVER=bnative; fi
}
use_build new
sm() { "$SM" -L "$SERVER" "$@"; }
now_ms() { date +%s%N | awk '{ printf "%.3f\n", $1 / 1000000 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== native: split to the pane's first output, none vs native (median of $RUNS)"
if [ "$(sm probe --json | tr -d ' \t\n' | grep -c '"native":{"available":true')" -eq 0 ]; then
	echo "native: skipped, $(sm probe | head -1)"
	exit 0
fi
# sample BACKEND: one split, milliseconds to the command's first output.
# After each sample the pane is killed and the bench waits 250 ms, the
# same for both backends: a person does not split twice in a quarter of
# a second, and in that time the server prepares the next native
# sandbox (docs/backends.md, "Start-up"), work that must not land in the
# next sample of either backend.
# The FIFO's reading end is open before the split: a pane faster than
# this script would otherwise open it for writing with no reader yet,
# which a native pane's supervisor answers ENXIO (it may not block on
# it; docs/supervisor.md), and the sample would wait for ever.
sample() {
	rm -f "$W/work/ready"
	mkfifo "$W/work/ready"
	exec 3<>"$W/work/ready"
	t0=$(now_ms)
	sm split -t %1 -v --backend "$1" -c "$W/work" -- \
		sh -c "printf READY; echo >'$W/work/ready'; exec sleep 100" >/dev/null 3<&-
	read -r _ <&3
	t1=$(now_ms)
	exec 3<&-
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
	pane=$(sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1)
	sm kill-pane -t "%$pane" >/dev/null
	sleep 0.25
}

# series LABEL: RUNS samples of each backend, interleaved, on a fresh
# server per build, into $W/LABEL.none.ms and $W/LABEL.native.ms (and
# $W/LABEL.base.none.ms, $W/LABEL.base.native.ms for the base build).
series() {
	builds="new"
	[ -n "$BASE_SM" ] && builds="new base"
	for b in $builds; do
		use_build "$b"
		sm new -d -s b -x 200 -y 60 -c "$W/work" -- sh -c 'exec sleep 100000' >/dev/null
	done
	use_build new
	sm events --follow --json >"$W/events.$1" 2>/dev/null &
	FOLLOWER=$!
	sleep 0.3
	for b in $builds; do
		use_build "$b"
		sample none >/dev/null
		sample native >/dev/null
		suffix=""
		[ "$b" = base ] && suffix=".base"
		: >"$W/$1$suffix.none.ms"
		: >"$W/$1$suffix.native.ms"
	done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		for b in $builds; do
			use_build "$b"
			suffix=""
			[ "$b" = base ] && suffix=".base"
			sample none >>"$W/$1$suffix.none.ms"
			sample native >>"$W/$1$suffix.native.ms"
		done
		i=$((i + 1))
	done
	kill "$FOLLOWER" 2>/dev/null
	FOLLOWER=""
	for b in $builds; do
		use_build "$b"
		sm kill-server >/dev/null 2>&1
	done
	use_build new
	sleep 0.2
}

# report LABEL: prints the medians, sets ADDED and RATIO.
report() {
	none=$(median <"$W/$1.none.ms")
	native=$(median <"$W/$1.native.ms")
	echo "$1: none   median $none ms (min $(sort -n "$W/$1.none.ms" | head -1), max $(sort -n "$W/$1.none.ms" | tail -1))"
	echo "$1: native median $native ms (min $(sort -n "$W/$1.native.ms" | head -1), max $(sort -n "$W/$1.native.ms" | tail -1))"
	ADDED=$(awk -v a="$none" -v b="$native" 'BEGIN { printf "%.1f", b - a }')
	RATIO=$(awk -v a="$none" -v b="$native" 'BEGIN { printf "%.2f", b / a }')
}

# The default: each native pane after the first finds its sandbox
# prepared.  Then the same with that turned off: every sandbox built
# from nothing, as for the first native pane of a server and for any
# pane unlike the one before it.
series prepared
export SANDMUX_NATIVE_PREPARE=0
series cold
unset SANDMUX_NATIVE_PREPARE
report cold
COLD=$ADDED
report prepared
echo "RATIO pane start native/none: $RATIO"
echo "ADDED by native: $ADDED ms (target <= 15 ms): $(awk -v d="$ADDED" 'BEGIN { print (d <= 15) ? "met" : "MISSED" }')"
echo "ADDED by native, sandbox built cold (the first native pane, or one unlike the last): $COLD ms"
if [ -n "$BASE_SM" ]; then
	PREPARED=$ADDED
	report prepared.base
	BASE_PREPARED=$ADDED
	report cold.base
	BASE_COLD=$ADDED
	against() { # LABEL: this build's native median minus the base's
		awk -v a="$(median <"$W/$1.base.native.ms")" -v b="$(median <"$W/$1.native.ms")" \
			'BEGIN { printf "%.1f", b - a }'
	}
	verdict() { awk -v d="$1" 'BEGIN { print (d <= 2) ? "met" : "MISSED" }'; }
	echo "base build ($BASE): native adds $BASE_PREPARED ms prepared, $BASE_COLD ms cold"
	echo "THIS BUILD vs BASE, native pane start, prepared: $(against prepared) ms (target <= 2 ms): $(verdict "$(against prepared)")"
	echo "THIS BUILD vs BASE, native pane start, cold:     $(against cold) ms (target <= 2 ms): $(verdict "$(against cold)")"
	echo "against none, prepared: $PREPARED ms now, $BASE_PREPARED ms before; cold: $COLD ms now, $BASE_COLD ms before"
fi

# Reference: bwrap's own start-up here, with the profile's namespaces and
# mounts, against a plain exec of the same program (no sandmux at all).
per_run_ms() { # COMMAND...: mean ms per run over RUNS runs
	t0=$(now_ms)
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		"$@" >/dev/null 2>&1
		i=$((i + 1))
	done
	t1=$(now_ms)
	awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN { printf "%.1f", (b - a) / n }'
}
PLAIN=$(per_run_ms /bin/true)
BWRAP=$(per_run_ms bwrap --die-with-parent --unshare-user --unshare-pid --unshare-ipc \
	--unshare-uts --unshare-cgroup-try --cap-drop ALL --ro-bind / / --tmpfs /tmp \
	--dev /dev --proc /proc -- /bin/true)
echo "reference, bwrap alone: $BWRAP ms vs $PLAIN ms for a plain exec (adds" \
	"$(awk -v a="$PLAIN" -v b="$BWRAP" 'BEGIN { printf "%.1f", b - a }') ms on this host)"

# Server clock: starting -> ready of every native pane (prepared).
CONFIRM=$(awk '
	/"requested":"native"/ {
		match($0, /"pane":[0-9]+/); p = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, /"time":[0-9.]+/); t = substr($0, RSTART + 7, RLENGTH - 7)
		if ($0 ~ /"kind":"starting"/) s[p] = t
		if ($0 ~ /"kind":"ready"/ && (p in s)) printf "%.3f\n", (t - s[p]) * 1000
	}' "$W/events.prepared" | median)
echo "native confirmation (starting -> ready, server clock): median ${CONFIRM:-?} ms"
