#!/bin/sh
# Runs every test: cmocka unit tests, then the shell-driven integration,
# backend and TUI tests.  Scripts speak a TAP-like dialect ("ok - what",
# "not ok - what"); a script that exits non-zero without saying what
# failed counts as one failure.  Closes with the seconds each suite took
# and "N passed, N failed".
#
# usage: tests/run.sh BUILD [SANITIZER_BUILD]
# With a second build tree (compiled with ASan + UBSan), the unit and
# integration tests run again against it; any sanitizer report, leaks
# included, is a failure.
#
# Two workers, one per core, take the tests from one queue: the unit,
# integration, escape, fault and fuzz suites, plain and under the
# sanitizers (each test has its own server, XDG dirs and namespaces, so
# any two may run side by side).  The queue is ordered longest first by
# the seconds each test took in the last run ($BUILD/check-times; tests
# it does not know come first), so that the two workers end together.
# Beside them a third worker takes the TUI suite from a queue of its own,
# ordered the same way: its tests wait on what the outer tmux shows and
# take little CPU.  The TUI tests that time what the user sees
# (TUI_ALONE) run after all of them, alone.  A "# SKIP" line is not
# counted as passed.  The full microvm suite (real guests under TCG, a
# minute of CPU) runs plain only; the sanitizer build runs
# tests/sanitizer/ instead, a short microvm run that walks the server's
# microvm code paths once (and skips the cgroup v2 guest, whose
# sanitizer reports could not leave the guest).  So do the integration
# tests that never run a program of the build (SAN_STATIC): they read
# sources, docs and objects, which the sanitizers cannot check.
# Before the time per suite it lists the waits that ran out (wait_for
# in tests/lib.sh), which a passing test should not have but for what
# must not happen.  CHECK_WORKERS=N changes the number of workers,
# CHECK_TUI_WORKERS=N that of the TUI suite's.
BUILD=${1:-build}
SAN_BUILD=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SANDMUX_ROOT="$ROOT"
WORKERS=${CHECK_WORKERS:-2}
TUI_WORKERS=${CHECK_TUI_WORKERS:-1}
log=$(mktemp -d /tmp/sandmux-check.XXXXXX)
check_began=$(date +%s)
san_logs="$log/sanitizer"
mkdir -p "$san_logs"
: >"$log/times"
: >"$log/results"
# The sanitizer build's tests that do not run under it (see above).
SAN_SKIP=" integration/microvm integration/microvm-attacker integration/microvm-repos integration/microvm-uid integration/microvm-guest-report integration/native-limits-cgroup2 "
# Those that run no program of the build: the sources' layering and map,
# the dead globals and layers read off the objects with nm, the macOS
# build's check (its own compile), the packages a fresh machine has.
SAN_STATIC=" integration/code-map integration/dead-code integration/layers integration/macos-check integration/fresh-machine "
# The TUI tests that assert a time (a number's display time, the feed's
# latency, repeat_time, a ticker's beat), which a test beside them would
# stretch.
TUI_ALONE=" tui/display-panes tui/echo-busy tui/feed tui/repeat "

# run_one BUILD LABEL PATH: one unit binary (build/tests/test_*) or test
# script, with the build's environment (the sanitizers' options for the
# label asan:).  Its report is printed in one piece; its counts go to
# $log/results as "PASSED FAILED NAME", its seconds to $log/times (by
# suite) and $log/took (by test).
run_one() {
	build=$1 label=$2 t=$3
	export SANDMUX_BIN="$ROOT/$build/sandmux" SANDMUX_BUILD="$ROOT/$build"
	if [ "$label" = asan: ]; then
		# Reports go to files: the server is a daemon with no stderr.
		# check_printf=0: libvterm's DECRQSS reply (tests/fuzz/run.sh).
		export ASAN_OPTIONS="log_path=$san_logs/asan:detect_leaks=1:abort_on_error=0:check_printf=0"
		export UBSAN_OPTIONS="log_path=$san_logs/ubsan:print_stacktrace=1:halt_on_error=1"
	else
		unset ASAN_OPTIONS UBSAN_OPTIONS
	fi
	case $t in
	*/tests/test_*)
		name="$label$(basename "$t")" suite="${label}unit"
		;;
	*)
		dir=$(basename "$(dirname "$t")")
		name="$label$dir/$(basename "$t" .sh)" suite="$label$dir"
		;;
	esac
	out="$log/$(echo "$name" | tr /: __).out"
	report="$out.report"
	began=$(date +%s)
	case $t in
	*/tests/test_*)
		CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
		rc=$?
		took=$(($(date +%s) - began))
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
		p=${p:-0} f=${f:-0}
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		if [ "$rc" -ne 0 ]; then
			{
				echo "FAIL $name"
				grep -E 'FAILED|ERROR|error' "$out" | head -20
			} >"$report"
		else
			echo "pass $name ($p)" >"$report"
		fi
		;;
	*)
		timeout 600 sh "$t" >"$out" 2>&1
		rc=$?
		took=$(($(date +%s) - began))
		p=$(grep '^ok ' "$out" | grep -vc '# SKIP')
		f=$(grep -c '^not ok ' "$out")
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			echo "not ok - $name exited $rc" >>"$out"
		fi
		if [ "$f" -gt 0 ]; then
			{
				echo "FAIL $name (${took}s)"
				grep -E '^not ok|^#' "$out" | head -30
				tail -5 "$out"
			} >"$report"
		else
			echo "pass $name ($(grep -c '^ok ' "$out"), ${took}s)" >"$report"
		fi
		;;
	esac
	cat "$report"
	echo "$p $f $name" >>"$log/results"
	echo "$suite $took" >>"$log/times"
	echo "$name $took" >>"$log/took"
}

# queue_of BUILD LABEL DIRS [SKIP]: the queue's lines "BUILD LABEL PATH" for
# the build's unit binaries (when DIRS names units) and the scripts of
# DIRS, less those SKIP names (" dir/name ").
queue_of() {
	for dir in $3; do
		if [ "$dir" = units ]; then
			for t in "$ROOT/$1"/tests/test_*; do
				[ -x "$t" ] && echo "$1 ${2:--} $t"
			done
			continue
		fi
		for t in "$ROOT"/tests/"$dir"/*.sh; do
			[ -f "$t" ] || continue
			case "${4:-}" in *" $dir/$(basename "$t" .sh) "*) continue ;; esac
			echo "$1 ${2:--} $t"
		done
	done
}

# worker QUEUE: takes the jobs of $log/QUEUE in order, each once (mkdir
# is the lock).  The guests under TCG (the microvm suites, the cgroup v2
# guest) take a core each and time their boots: one at a time, the other
# worker takes the next job meanwhile and comes back for them.
worker() {
	q=$log/$1
	total=$(wc -l <"$q")
	while [ "$(ls -d "$q".claim.* 2>/dev/null | wc -l)" -lt "$total" ]; do
		i=0 ran=0
		while read -r build label t; do
			i=$((i + 1))
			[ -d "$q.claim.$i" ] && continue
			heavy=0
			case $t in */microvm*.sh | */native-limits-cgroup2.sh) heavy=1 ;; esac
			[ "$heavy" = 1 ] && ! mkdir "$log/guest" 2>/dev/null && continue
			if mkdir "$q.claim.$i" 2>/dev/null; then
				[ "$label" = - ] && label=""
				run_one "$build" "$label" "$t" </dev/null
				ran=1
			fi
			[ "$heavy" = 1 ] && rmdir "$log/guest"
		done <"$q"
		# Nothing it could take: the rest is claimed or a guest runs.
		[ "$ran" = 1 ] || sleep 1
	done
}

# longest_first JOBS: the lines of JOBS, longest first by the last run's
# seconds (unknown tests first, then in the order given).
last="$ROOT/$BUILD/check-times"
longest_first() {
	awk -v root="$ROOT/" -v last="$last" '
		BEGIN { while ((getline line < last) > 0) { split(line, f, " "); secs[f[1]] = f[2] } }
		{
			t = $3; label = ($2 == "-") ? "" : $2
			if (t ~ /\/tests\/test_[^\/]*$/) { name = t; sub(/.*\//, "", name) }
			else { name = t; sub(/\.sh$/, "", name); n = split(name, p, "/"); name = p[n - 1] "/" p[n] }
			name = label name
			s = (name in secs) ? secs[name] : 100000
			printf "%d %d %s\n", s, NR, $0
		}' "$1" | sort -k1,1nr -k2,2n | cut -d' ' -f3-
}

# The queues: the plain suites, then the sanitizer build's; the TUI
# suite less TUI_ALONE.
{
	queue_of "$BUILD" "" "units integration escape fault fuzz"
	[ -n "$SAN_BUILD" ] && queue_of "$SAN_BUILD" asan: "units integration sanitizer" "$SAN_SKIP$SAN_STATIC"
} >"$log/jobs"
longest_first "$log/jobs" >"$log/queue"
queue_of "$BUILD" "" tui "$TUI_ALONE" >"$log/tui-jobs"
longest_first "$log/tui-jobs" >"$log/tui-queue"

export SANDMUX_WAIT_LOG="$log/waits"
echo "== the unit, integration, escape, fault and fuzz suites$([ -n "$SAN_BUILD" ] && echo ", plain and under AddressSanitizer + UndefinedBehaviorSanitizer"), $WORKERS at a time; the TUI suite beside them, $TUI_WORKERS at a time"
pids=""
n=0
while [ "$n" -lt "$WORKERS" ]; do
	worker queue &
	pids="$pids $!"
	n=$((n + 1))
done
n=0
while [ "$n" -lt "$TUI_WORKERS" ]; do
	worker tui-queue &
	pids="$pids $!"
	n=$((n + 1))
done
# shellcheck disable=SC2086
wait $pids

if [ -n "$SAN_BUILD" ]; then
	reports=$(ls "$san_logs" 2>/dev/null | wc -l)
	if [ "$reports" -gt 0 ]; then
		echo "0 1 sanitizer-reports" >>"$log/results"
		echo "not ok - sanitizers reported problems ($reports files):"
		head -40 "$san_logs"/*
	else
		echo "1 0 -" >>"$log/results"
		echo "ok - no sanitizer report from any process"
	fi
fi

echo "== the TUI tests that time what the user sees, alone"
for name in $TUI_ALONE; do
	run_one "$BUILD" "" "$ROOT/tests/$name.sh" </dev/null
done

# The seconds of each test, for the next run's order.
cp "$log/took" "$last" 2>/dev/null

# The waits that ran out (tests/lib.sh's wait_for), by test: time lost
# in a test that passes, unless what it waited for must not happen.
if [ -s "$log/waits" ]; then
	echo "== waits that ran out: $(wc -l <"$log/waits")"
	sort "$log/waits" | uniq -c | sort -rn | head -20
fi

# Time per suite (the sum of its tests' seconds; the workers ran side by
# side), then the whole run's.
echo "== time per suite"
awk '{ t[$1] += $2; n[$1]++ } END { for (s in t) printf "%6d s  %-24s (%d files)\n", t[s], s, n[s] }' \
	"$log/times" | sort -rn
printf "%6d s  make check, from start to end\n" "$(($(date +%s) - check_began))"
passed=$(awk '{ s += $1 } END { print s + 0 }' "$log/results")
failed=$(awk '{ s += $2 } END { print s + 0 }' "$log/results")
failures=$(awk '$2 > 0 { printf " %s", $3 }' "$log/results")
[ -n "$failures" ] && echo "failures:$failures (logs in $log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
