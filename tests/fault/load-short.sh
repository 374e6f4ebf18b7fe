#!/bin/sh
# make check's short load run: tests/bench/load.sh with 8 panes for 10 s
# (two clients attaching and detaching, a third capturing; server alive,
# RSS bounded, a known output intact).  make bench runs the full one.
exec sh "$(dirname "$0")/../bench/load.sh" 8 10
