#!/bin/sh
# Runs every test: cmocka unit tests, then the shell-driven integration,
# backend and TUI tests.  Scripts speak a TAP-like dialect ("ok - what",
# "not ok - what"); a script that exits non-zero without saying what
# failed counts as one failure.  Closes with "N passed, N failed".
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SANDMUX_BIN="$ROOT/$BUILD/sandmux" SANDMUX_BUILD="$ROOT/$BUILD" SANDMUX_ROOT="$ROOT"
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

for t in "$ROOT/$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
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

for dir in integration backends tui escape fault fuzz; do
	for t in "$ROOT"/tests/$dir/*.sh; do
		[ -f "$t" ] || continue
		name="$dir/$(basename "$t" .sh)"
		out="$log/$(echo "$name" | tr / _).out"
		timeout 600 sh "$t" >"$out" 2>&1
		rc=$?
		before=$failed
		count "$out"
		if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
			failed=$((failed + 1))
			failures="$failures $name"
			echo "not ok - $name exited $rc" >>"$out"
		fi
		if [ "$failed" -gt "$before" ]; then
			echo "FAIL $name"
			grep -E '^not ok|^#' "$out" | head -30
			tail -5 "$out"
		else
			echo "pass $name ($(grep -c '^ok ' "$out"))"
		fi
	done
done

[ -n "$failures" ] && echo "failures:$failures (logs in $log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
