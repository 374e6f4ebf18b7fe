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
BUILD=${1:-build}
SAN_BUILD=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SANDMUX_ROOT="$ROOT"
passed=0
failed=0
failures=""
log=$(mktemp -d /tmp/sandmux-check.XXXXXX)

count() { # file: adds its ok/not ok lines to the totals
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -gt 0 ] && failures="$failures $(basename "$1" .out)"
	return 0
}

run_suite() { # BUILD DIRS LABEL
	suite_build=$1
	dirs=$2
	label=$3
	export SANDMUX_BIN="$ROOT/$suite_build/sandmux" SANDMUX_BUILD="$ROOT/$suite_build"
for t in "$ROOT/$suite_build"/tests/test_*; do
	[ -x "$t" ] || continue
	name="$label$(basename "$t")"
	out="$log/$name.out"
	CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
	rc=$?
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
	for t in "$ROOT"/tests/$dir/*.sh; do
		[ -f "$t" ] || continue
		name="$label$dir/$(basename "$t" .sh)"
		out="$log/$(echo "$name" | tr /: __).out"
		began=$(date +%s)
		timeout 600 sh "$t" >"$out" 2>&1
		rc=$?
		took=$(($(date +%s) - began))
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

run_suite "$BUILD" "integration tui escape fault fuzz" ""
if [ -n "$SAN_BUILD" ]; then
	echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer"
	san_logs="$log/sanitizer"
	mkdir -p "$san_logs"
	# Reports go to files: the server is a daemon with no stderr.
	export ASAN_OPTIONS="log_path=$san_logs/asan:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$san_logs/ubsan:print_stacktrace=1:halt_on_error=1"
	run_suite "$SAN_BUILD" "integration" "asan:"
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
fi

[ -n "$failures" ] && echo "failures:$failures (logs in $log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
