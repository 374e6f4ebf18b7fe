#!/bin/sh
# The layers stay layers (docs/CODE-MAP.md, docs/design.md): term/ uses
# nothing but itself and the base; backends/ nothing but itself, term/
# and the base; the base (src/error, src/log, src/xalloc) nothing of any
# layer.  Checked twice: on the sources, by what they #include, and on
# the objects, by the program's symbols each one needs, so a function
# declared by hand instead of through a header is caught too.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(pwd)}
B=${SANDMUX_BUILD:-$ROOT/build}
BASE="error log xalloc"

# The directory a quoted include resolves to (the build passes -Isrc
# -Iterm -Ibackends, so a header is named alone), "base" for the base.
where() {
	for b in $BASE; do
		[ "$1" = "$b.h" ] && { echo base; return; }
	done
	for d in term backends src; do
		[ -e "$ROOT/$d/$1" ] && { echo "$d"; return; }
	done
	echo unknown
}

# FILE ALLOWED...: print each quoted include of FILE that resolves
# outside the allowed places, as FILE: HEADER (DIR).
stray_includes() {
	f=$1
	shift
	sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		d=$(where "$(basename "$h")")
		ok=no
		for a in "$@"; do
			[ "$d" = "$a" ] && ok=yes
		done
		[ "$h" = "$(basename "$h")" ] || ok=no # no ../src/ spelling
		[ $ok = yes ] || echo "${f#"$ROOT"/}: $h ($d)"
	done
}

for f in "$ROOT"/term/*.[ch]; do
	stray_includes "$f" term base
done >"$T_DIR/term-includes"
check "term/ includes only term/ and the base ($(tr '\n' ' ' <"$T_DIR/term-includes"))" \
	[ ! -s "$T_DIR/term-includes" ]

for f in "$ROOT"/backends/*.[ch]; do
	stray_includes "$f" backends term base
done >"$T_DIR/backends-includes"
check "backends/ includes only backends/, term/ and the base ($(tr '\n' ' ' <"$T_DIR/backends-includes"))" \
	[ ! -s "$T_DIR/backends-includes" ]

for b in $BASE; do
	for f in "$ROOT/src/$b.h" "$ROOT/src/$b.c"; do
		stray_includes "$f" base
	done
done >"$T_DIR/base-includes"
check "the base includes nothing of a layer ($(tr '\n' ' ' <"$T_DIR/base-includes"))" \
	[ ! -s "$T_DIR/base-includes" ]

# Symbols: each object's undefined symbols that the program defines
# must come from an allowed layer (the rest are libc's and libraries').
ls "$B"/src/*.o "$B"/term/*.o "$B"/backends/*.o >"$T_DIR/objects" 2>/dev/null
check "the program's objects are there ($(wc -l <"$T_DIR/objects"))" [ "$(wc -l <"$T_DIR/objects")" -gt 40 ]
: >"$T_DIR/owners"
while read -r o; do
	layer=$(basename "$(dirname "$o")")
	for b in $BASE; do
		[ "$(basename "$o")" = "$b.o" ] && layer=base
	done
	nm -g --defined-only "$o" | awk -v l="$layer" '$2 ~ /^[TDBRGC]$/ { print $3, l }' >>"$T_DIR/owners"
done <"$T_DIR/objects"

# OBJECT... -- ALLOWED...: print each symbol an object needs from a
# layer outside the allowed ones, as OBJECT: SYMBOL (LAYER).
stray_symbols() {
	objs=
	while [ "$1" != -- ]; do
		objs="$objs $1"
		shift
	done
	shift
	for o in $objs; do
		nm -u "$o" | awk '{ print $2 }' | while read -r sym; do
			owner=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$T_DIR/owners")
			[ -n "$owner" ] || continue
			ok=no
			for a in "$@"; do
				[ "$owner" = "$a" ] && ok=yes
			done
			[ $ok = yes ] || echo "$(basename "$o"): $sym ($owner)"
		done
	done
}

stray_symbols "$B"/term/*.o -- term base >"$T_DIR/term-symbols"
check "term/'s objects need only term/ and the base ($(head -5 "$T_DIR/term-symbols" | tr '\n' ' '))" \
	[ ! -s "$T_DIR/term-symbols" ]
stray_symbols "$B"/backends/*.o -- backends term base >"$T_DIR/backends-symbols"
check "backends/'s objects need only backends/, term/ and the base ($(head -5 "$T_DIR/backends-symbols" | tr '\n' ' '))" \
	[ ! -s "$T_DIR/backends-symbols" ]
stray_symbols "$B"/src/error.o "$B"/src/log.o "$B"/src/xalloc.o -- base >"$T_DIR/base-symbols"
check "the base's objects need nothing of a layer ($(tr '\n' ' ' <"$T_DIR/base-symbols"))" \
	[ ! -s "$T_DIR/base-symbols" ]
finish
