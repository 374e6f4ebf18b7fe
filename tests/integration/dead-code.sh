#!/bin/sh
# Dead code cannot come back quietly.  The compiler already refuses an
# unused static function or variable (-Wall -Werror: -Wunused-function,
# -Wunused-variable, -Wunused-const-variable); this finds what it cannot:
# a global function or variable that no object file of the program
# (build/src, build/term, build/backends and backends/native-inside,
# main included) references.  A
# call inside its own file does not count, so a global used only there
# shows too (it should be static).  The few kept for tests are listed,
# each with its reason, in tests/test-only-symbols.txt, and each must
# still be used by a test.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(pwd)}
B=${SANDMUX_BUILD:-$ROOT/build}

# The globals an object defines: code and data, not what a sanitizer
# adds by itself (ASan's __odr_asan.* indicators, one per global).
GLOBAL='$2 ~ /^[TDBRG]$/ && $3 !~ /^__(odr_)?asan/'
ls "$B"/src/*.o "$B"/term/*.o "$B"/backends/*.o "$B"/backends/native-inside/*.o >"$T_DIR/objects" 2>/dev/null
check "the program's objects are there ($(wc -l <"$T_DIR/objects"))" [ "$(wc -l <"$T_DIR/objects")" -gt 40 ]
# One nm for them all: "OBJECT SYMBOL" per global (-A: each line
# starts "OBJECT:").
# shellcheck disable=SC2046
nm -A -g --defined-only $(cat "$T_DIR/objects") |
	awk "$GLOBAL"' { o = $1; sub(/:[^:]*$/, "", o); print o, $3 }' >"$T_DIR/owned"
cut -d' ' -f2 "$T_DIR/owned" | sort -u >"$T_DIR/defined"
# Every symbol a relocation names in an object that does not define it:
# calls, addresses taken, tables of function pointers.  A reference
# from the symbol's own object is left out by name, not by what the
# assembler happened to emit: with one section per function (the
# Makefile's SERVER_CORE) a call inside a file is a relocation too.
# One objdump for them all: each object's records follow its
# "OBJECT:     file format" line.
# shellcheck disable=SC2046
objdump -r $(cat "$T_DIR/objects") | awk -v owned="$T_DIR/owned" '
	BEGIN { while ((getline line < owned) > 0) own[line] = 1 }
	/:[ \t]+file format / { o = $1; sub(/:$/, "", o); next }
	NF == 3 && $1 ~ /^[0-9a-f]+$/ {
		s = $3; sub(/[-+]0x[0-9a-f]*$/, "", s)
		if (!((o " " s) in own)) print s
	}' | sort -u >"$T_DIR/referenced"
grep -v '^#' "$ROOT/tests/test-only-symbols.txt" | cut -f1 | sed '/^$/d' | sort -u >"$T_DIR/kept"
comm -23 "$T_DIR/defined" "$T_DIR/referenced" | grep -vx main | comm -23 - "$T_DIR/kept" >"$T_DIR/dead"
check "every global the program defines, it uses ($(tr '\n' ' ' <"$T_DIR/dead"))" [ ! -s "$T_DIR/dead" ]

: >"$T_DIR/stale"
while read -r sym; do
	grep -rqw -- "$sym" "$ROOT/tests/unit" "$ROOT/tests/helpers" "$ROOT/tests/bench" "$ROOT/tests/fuzz" ||
		echo "$sym" >>"$T_DIR/stale"
	grep -qx -- "$sym" "$T_DIR/defined" || echo "$sym (no longer defined)" >>"$T_DIR/stale"
done <"$T_DIR/kept"
check "every symbol kept for tests is still used by one ($(tr '\n' ' ' <"$T_DIR/stale"))" [ ! -s "$T_DIR/stale" ]
finish
