#!/bin/sh
# Bench: what the seccomp supervisor costs, measured against what cannot
# be avoided, in the same run.
#
#   cpu    The supervisor thread's own CPU per notified call, above the
#          kernel's floor.  A real native pane of a real server (bwrap +
#          shim + supervisor, the terminal profile) runs a loop of
#          CALLS (default 50,000) calls of one kind:
#            read    open an existing file for reading, close it
#            create  create a new file (O_CREAT|O_EXCL), close it
#          and the same program with no calls, to take off what the
#          pane's start costs.  The thread's CPU comes from the kernel's
#          own count (/proc/PID/task/TID/schedstat, nanoseconds), so the
#          figure does not move with what else the host runs.  Both
#          calls are answered as every allowed open is: opened by the
#          supervisor and the fd handed over (ADDFD).  The floor is
#          build/helpers/notify-floor answering the same number of
#          notifications the same way (it opens /dev/null and hands it
#          over; for create, it makes a new file the same way and hands
#          that over) with no path read and no decision: its listener's
#          CPU per call, the file system's work included.  Target: the supervisor's CPU per call at most 5 us
#          above the floor.
#   build  A real build: `make -j2` of sandmux itself, from a clean copy
#          of the tree (`git archive HEAD`), in a native pane (the
#          terminal profile) and in a `none` pane, interleaved, each
#          timed inside the pane.  Target: native at most 1.15x none.
#
# ROUNDS (default 5 for cpu, 3 for build) alternate the kinds so that
# drift hits all alike; medians are reported.
#
#   sh tests/bench/supervisor.sh [BUILD_DIR]
#   BENCH_SUPERVISOR_PARTS="cpu build"  which parts to run
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
FLOOR="$ROOT/$BUILD/helpers/notify-floor"
PARTS=${BENCH_SUPERVISOR_PARTS:-cpu build}
CALLS=${BENCH_SUPERVISOR_CALLS:-50000}
CPU_ROUNDS=${BENCH_SUPERVISOR_ROUNDS:-5}
BUILD_ROUNDS=${BENCH_BUILD_ROUNDS:-3}
# Not under /tmp: the sandbox has a private /tmp.
W=$(mktemp -d /var/tmp/sandmux-bench-sv.XXXXXX) || exit 1
W=$(cd "$W" && pwd -P)
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
trap '"$SM" -L bsv kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT

sm() { "$SM" -L bsv "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{ printf "%s-%s", $1, $2 }'; }

command -v bwrap >/dev/null || { echo "bench: needs bwrap"; exit 1; }
if [ "$(sm probe --json | tr -d ' \t\n' | grep -c '"native":{"available":true')" -eq 0 ]; then
	echo "supervisor: skipped, $(sm probe | head -1)"
	exit 0
fi

# wait_file FILE: until it exists (at most 10 minutes).
wait_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 60000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# --- cpu: the supervisor's own CPU per call, above the floor ---------------
cat >"$W/calls.py" <<'EOF'
import os, sys
kind, n, where, mark = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if kind == "read":
    for _ in range(n):
        os.close(os.open(where, os.O_RDONLY))
else:
    os.mkdir(where)
    for i in range(n):
        os.close(os.open("%s/f%d" % (where, i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
open(mark, "w").close()
EOF

# The supervisor thread's CPU so far, in ns.
sv_ns() { cut -d' ' -f1 "$SV_SCHED" 2>/dev/null || echo 0; }

# sv_run KIND N TAG: the supervisor's CPU (ns) while a native pane makes
# N calls of KIND.
sv_run() {
	mark="$W/mark-$3"
	where="$W/target-$3"
	[ "$1" = read ] && where="$W/existing"
	c0=$(sv_ns)
	sm new -d -s "$3" --backend native -c "$W" -- \
		sh -c "python3 '$W/calls.py' $1 $2 '$where' '$mark'; exec sleep 600" >/dev/null
	wait_file "$mark" || { echo "bench: the $1 pane did not finish" >&2; exit 1; }
	echo "$(($(sv_ns) - c0))"
	sm kill-session -t "$3" >/dev/null 2>&1
}

cpu_part() {
	echo "== supervisor CPU per notified call, above the floor ($CALLS calls, $CPU_ROUNDS rounds, medians)"
	[ -x "$FLOOR" ] || { echo "bench: needs $FLOOR (make build-tests)"; return 1; }
	sm new -d -s keep -- /bin/sh >/dev/null
	# A native pane first, so that the supervisor thread is there to find.
	sm new -d -s warm --backend native -- /bin/sh >/dev/null
	SV_SCHED=
	i=0
	while [ -z "$SV_SCHED" ] && [ $i -lt 200 ]; do
		SRV=$(pgrep -o -f -- "sandmux -L bsv server")
		for t in /proc/"$SRV"/task/*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = sandmux-sv ] && SV_SCHED="$t/schedstat"
		done
		[ -n "$SV_SCHED" ] || sleep 0.05
		i=$((i + 1))
	done
	[ -n "$SV_SCHED" ] || { echo "bench: no supervisor thread found"; return 1; }
	echo "hi" >"$W/existing"
	: >"$W/read.us"
	: >"$W/create.us"
	: >"$W/floor-read.us"
	: >"$W/floor-create.us"
	for r in $(seq 1 "$CPU_ROUNDS"); do
		none=$(sv_run read 0 "none$r")
		read=$(sv_run read "$CALLS" "read$r")
		create=$(sv_run create "$CALLS" "create$r")
		awk -v a="$read" -v b="$none" -v n="$CALLS" 'BEGIN { printf "%.2f\n", (a - b) / n / 1000 }' >>"$W/read.us"
		awk -v a="$create" -v b="$none" -v n="$CALLS" 'BEGIN { printf "%.2f\n", (a - b) / n / 1000 }' >>"$W/create.us"
		"$FLOOR" "$CALLS" 0 0 addfd | sed -n 's/.*"listener_cpu_us":\([0-9.]*\).*/\1/p' >>"$W/floor-read.us"
		mkdir "$W/floor-$r"
		"$FLOOR" "$CALLS" 0 0 create "$W/floor-$r" |
			sed -n 's/.*"listener_cpu_us":\([0-9.]*\).*/\1/p' >>"$W/floor-create.us"
	done
	for k in read create; do
		us=$(median <"$W/$k.us")
		fl=$(median <"$W/floor-$k.us")
		echo "floor $k: notify-floor's listener doing the same call and answering with the fd: ${fl} us CPU per call (range $(range <"$W/floor-$k.us"))"
		echo "supervisor $k: ${us} us CPU per call (range $(range <"$W/$k.us"))"
		awk -v k="$k" -v us="$us" -v fl="$fl" 'BEGIN {
			printf "SUPERVISOR %s: %.2f us CPU per call above the floor (target <= 5 us)\n", k, us - fl }'
	done
	sm kill-server >/dev/null 2>&1
}

# --- build: make -j2 of sandmux itself, native against none ----------------
# One clean copy per build, each timed inside its pane; the result goes
# in the copy (the native pane may write only there).
build_run() { # BACKEND TAG
	dir="$W/src-$2"
	mkdir -p "$dir"
	git -C "$ROOT" archive HEAD | tar -x -C "$dir"
	sm new -d -s "$2" --backend "$1" -c "$dir" -- sh -c \
		"t0=\$(date +%s%N); make -j2 >make.log 2>&1; rc=\$?; t1=\$(date +%s%N); \
		 echo \"\$rc \$(((t1 - t0) / 1000000))\" >built.tmp && mv built.tmp built; exec sleep 600" >/dev/null
	wait_file "$dir/built" || { echo "bench: the $1 build did not finish" >&2; exit 1; }
	read -r rc ms <"$dir/built"
	[ "$rc" = 0 ] || { echo "bench: the $1 build failed ($dir/make.log):"; tail -5 "$dir/make.log"; exit 1; }
	echo "$ms" >>"$W/build-$1.ms"
	sm kill-session -t "$2" >/dev/null 2>&1
	rm -rf "$dir"
}

build_part() {
	echo "== make -j2 of sandmux from a clean tree, native vs none ($BUILD_ROUNDS rounds, interleaved, medians)"
	sm new -d -s keep -- /bin/sh >/dev/null
	: >"$W/build-none.ms"
	: >"$W/build-native.ms"
	for r in $(seq 1 "$BUILD_ROUNDS"); do
		order="none native"
		[ $((r % 2)) = 0 ] && order="native none"
		for b in $order; do build_run "$b" "$b$r"; done
	done
	n=$(median <"$W/build-none.ms")
	s=$(median <"$W/build-native.ms")
	echo "build none:   ${n} ms (range $(range <"$W/build-none.ms"))"
	echo "build native: ${s} ms (range $(range <"$W/build-native.ms"))"
	awk -v s="$s" -v n="$n" 'BEGIN { printf "RATIO build native/none: %.2fx (target <= 1.15x)\n", s / n }'
	sm kill-server >/dev/null 2>&1
}

for part in $PARTS; do
	"${part}_part" || exit 1
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
