#!/bin/sh
# Runs every test: cmocka unit tests, then the shell-driven integration,
# backend and TUI tests.  Scripts speak a TAP-like dialect ("ok - what",
# "not ok - what"); a script that exits non-zero without saying what
# failed counts as one failure.  Closes with "N passed, N failed".
#
# usage: tests/run.sh BUILD [SANITIZER_BUILD]
# With a second build tree (compiled with ASan + UBSan), the unit and
# integration tests run again against it; any sanitizer report, leaks
# included, is a failure.
#
# Two lanes, to keep make check near its 15 minutes on two cores: the
# sanitizer pass runs beside the plain integration, escape, fault and
# fuzz suites (it walks the integration scripts in reverse order, so the
# two lanes are on the same script at most once, in passing: each test
# has its own server, XDG dirs and namespaces anyway); the TUI suite,
# whose tests time what the user sees, runs after both, alone.  A "# SKIP"
# line is not counted as passed.  The full microvm suite (real guests
# under TCG, a minute of CPU) runs in the plain pass only; the sanitizer
# lane runs tests/sanitizer/ instead, a short microvm run that walks the
# server's microvm code paths once (and skips the cgroup v2 guest, whose
# sanitizer reports could not leave the guest); it ends with the plain
# fault and fuzz suites, to end near the plain lane.
BUILD=${1:-build}
SAN_BUILD=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SANDMUX_ROOT="$ROOT"
passed=0
failed=0
failures=""
log=$(mktemp -d /tmp/sandmux-check.XXXXXX)
check_began=$(date +%s)
: >"$log/times"

count() { # file: adds its ok/not ok lines to the totals
	p=$(grep '^ok ' "$1" | grep -vc '# SKIP')
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -gt 0 ] && failures="$failures $(basename "$1" .out)"
	return 0
}

run_suite() { # BUILD DIRS LABEL [units] [reverse] [SKIP: dir/name ...]
	suite_build=$1
	dirs=$2
	label=$3
	units=$4
	order=${5:-cat}
	skip=" $6 "
	export SANDMUX_BIN="$ROOT/$suite_build/sandmux" SANDMUX_BUILD="$ROOT/$suite_build"
for t in "$ROOT/$suite_build"/tests/test_*; do
	[ "$units" = units ] || break
	[ -x "$t" ] || continue
	name="$label$(basename "$t")"
	out="$log/$name.out"
	began=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
	rc=$?
	echo "${label}unit $(($(date +%s) - began))" >>"$log/times"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		failed=$((failed + 1))
	fi
	if [ "$rc" -ne 0 ]; then
		failures="$failures $name"
		echo "FAIL $name"
		grep -E 'FAILED|ERROR|error' "$out" | head -20
	else
		echo "pass $name (${p:-0})"
	fi
done

for dir in $dirs; do
	for t in $(ls "$ROOT"/tests/$dir/*.sh 2>/dev/null | $order); do
		[ -f "$t" ] || continue
		case "$skip" in *" $dir/$(basename "$t" .sh) "*) continue ;; esac
		name="$label$dir/$(basename "$t" .sh)"
		out="$log/$(echo "$name" | tr /: __).out"
		began=$(date +%s)
		timeout 600 sh "$t" >"$out" 2>&1
		rc=$?
		took=$(($(date +%s) - began))
		echo "$label$dir $took" >>"$log/times"
		before=$failed
		count "$out"
		if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
			failed=$((failed + 1))
			failures="$failures $name"
			echo "not ok - $name exited $rc" >>"$out"
		fi
		if [ "$failed" -gt "$before" ]; then
			echo "FAIL $name (${took}s)"
			grep -E '^not ok|^#' "$out" | head -30
			tail -5 "$out"
		else
			echo "pass $name ($(grep -c '^ok ' "$out"), ${took}s)"
		fi
	done
done

}

# The sanitizer lane: its totals come back through a file.
sanitized() {
	passed=0 failed=0 failures=""
	echo "== under AddressSanitizer + UndefinedBehaviorSanitizer (beside the plain suites)"
	san_logs="$log/sanitizer"
	mkdir -p "$san_logs"
	# Reports go to files: the server is a daemon with no stderr.
	# check_printf=0: libvterm's DECRQSS reply (tests/fuzz/run.sh says why).
	export ASAN_OPTIONS="log_path=$san_logs/asan:detect_leaks=1:abort_on_error=0:check_printf=0"
	export UBSAN_OPTIONS="log_path=$san_logs/ubsan:print_stacktrace=1:halt_on_error=1"
	run_suite "$SAN_BUILD" "integration sanitizer" "asan:" units "sort -r" \
		"integration/microvm integration/microvm-attacker integration/microvm-repos integration/microvm-uid integration/microvm-guest-report integration/native-limits-cgroup2"
	unset ASAN_OPTIONS UBSAN_OPTIONS
	reports=$(ls "$san_logs" 2>/dev/null | wc -l)
	if [ "$reports" -gt 0 ]; then
		failed=$((failed + 1))
		failures="$failures sanitizer-reports"
		echo "not ok - sanitizers reported problems ($reports files):"
		head -40 "$san_logs"/*
	else
		passed=$((passed + 1))
		echo "ok - no sanitizer report from any process"
	fi
	# The plain fault and fuzz suites end this lane: the plain lane
	# holds the full microvm suite and the cgroup v2 guest, minutes of
	# TCG, and the two lanes should end near each other.
	echo "== the plain fault and fuzz suites (in the sanitizer lane)"
	run_suite "$BUILD" "fault fuzz" ""
	echo "$passed $failed$failures" >"$log/sanitized.totals"
}

san_pid=""
if [ -n "$SAN_BUILD" ]; then
	sanitized >"$log/sanitized.log" 2>&1 &
	san_pid=$!
fi
plain_dirs="integration escape"
[ -n "$SAN_BUILD" ] || plain_dirs="$plain_dirs fault fuzz"
run_suite "$BUILD" "$plain_dirs" "" units
if [ -n "$san_pid" ]; then
	wait "$san_pid"
	cat "$log/sanitized.log"
	if read -r p f rest <"$log/sanitized.totals"; then
		passed=$((passed + p))
		failed=$((failed + f))
		[ -n "$rest" ] && failures="$failures $rest"
	else
		failed=$((failed + 1))
		failures="$failures sanitizer-lane"
		echo "not ok - the sanitizer lane ended without its totals"
	fi
fi
echo "== the TUI suite, alone"
run_suite "$BUILD" "tui" ""

# Time per suite (the sum of its tests' seconds; the sanitizer lane ran
# beside the plain one), then the whole run's.
echo "== time per suite"
awk '{ t[$1] += $2; n[$1]++ } END { for (s in t) printf "%6d s  %-24s (%d files)\n", t[s], s, n[s] }' \
	"$log/times" | sort -rn
printf "%6d s  make check, from start to end\n" "$(($(date +%s) - check_began))"
[ -n "$failures" ] && echo "failures:$failures (logs in $log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
