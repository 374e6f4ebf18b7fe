#!/bin/sh
# One source of the macOS build, checked on Linux (make macos-check):
# compiled as macOS would compile it, with the flags the Makefile passes
# (-U__linux__ -D__APPLE__, tests/macos/poison.h forced in), to OUT
# (an object, which the check then links), and its preprocessed text
# searched for what the compiler cannot poison: string paths that exist
# only on Linux ("/proc/..." and "/sys/...").
#
# usage: tests/macos/check-file.sh OUT SRC CC FLAGS...
# With MACOS_PATHS_ARE_DATA=1 (the Makefile sets it for bwrap.c, whose
# "/proc/..." strings are bubblewrap's arguments, paths inside a Linux
# sandbox that sandmux never opens) the path search is skipped.
out=$1 src=$2 cc=$3
shift 3
mkdir -p "$(dirname "$out")"
"$cc" "$@" -MMD -MP -c -o "$out" "$src" || exit 1
# The paths appear in string literals in the program's own lines: a
# preprocessed line that opens a string with one of them.
[ "${MACOS_PATHS_ARE_DATA:-0}" = 1 ] && exit 0
found=$("$cc" "$@" -E -P "$src" | grep -n '"/proc/\|"/sys/')
if [ -n "$found" ]; then
	echo "$src: a Linux-only path outside #ifdef __linux__ (macOS has no /proc or /sys):" >&2
	echo "$found" | head -5 >&2
	rm -f "$out"
	exit 1
fi
