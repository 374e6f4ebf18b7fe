#!/bin/sh
# make check's fuzz smoke: builds every libFuzzer target and runs each
# for FUZZ_SMOKE_RUNS inputs (default 4000, seed 1: reproducible) within
# FUZZ_SMOKE_SECONDS (default 8, at most 20) from its seed corpus in
# tests/fuzz/corpus/.  A crash or sanitizer report is "not ok" and fails
# make check.  The long run is tests/fuzz/run.sh (make fuzz).
secs=${FUZZ_SMOKE_SECONDS:-8}
[ "$secs" -gt 20 ] && secs=20
FUZZ_DETERMINISTIC=${FUZZ_SMOKE_RUNS:-4000} exec sh "$(dirname "$0")/run.sh" "$secs"
