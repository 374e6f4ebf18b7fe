#!/bin/sh
# The layers stay layers (docs/CODE-MAP.md, docs/design.md): term/ uses
# nothing but itself and the base; backends/ nothing but itself, term/
# and the base; the base (src/error, src/log, src/os, src/xalloc) nothing of any
# layer.  Checked twice: on the sources, by what they #include, and on
# the objects, by the program's symbols each one needs, so a function
# declared by hand instead of through a header is caught too.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(pwd)}
B=${SANDMUX_BUILD:-$ROOT/build}
BASE="error log os xalloc"

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

# The code that runs outside the server: the guest's /init, inside the
# VM (static, libc only: nothing of the host's program), the preloads
# of a microvm pane's diods and qemu, inside their processes, and what
# a native pane's sandbox runs before its command (the shim, its home
# step, the egress bridge: backends/native-inside/), backends/ and the
# base only.  A header beside the file is its own.
sub_includes() {
	dir=$1
	shift
	for f in "$ROOT/backends/$dir"/*.[ch]; do
		sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
			[ -e "$ROOT/backends/$dir/$h" ] && continue
			d=$(where "$(basename "$h")")
			ok=no
			for a in "$@"; do
				[ "$d" = "$a" ] && ok=yes
			done
			[ "$h" = "$(basename "$h")" ] || ok=no
			[ $ok = yes ] || echo "${f#"$ROOT"/}: $h ($d)"
		done
	done
}
sub_includes microvm-guest >"$T_DIR/guest-includes"
check "backends/microvm-guest/ includes only its own headers ($(tr '\n' ' ' <"$T_DIR/guest-includes"))" \
	[ ! -s "$T_DIR/guest-includes" ]
sub_includes microvm-host backends base >"$T_DIR/host-includes"
sub_includes native-inside backends base >"$T_DIR/inside-includes"
check "backends/microvm-host/ includes only its own, backends/ and the base ($(tr '\n' ' ' <"$T_DIR/host-includes"))" \
	[ ! -s "$T_DIR/host-includes" ]
check "backends/native-inside/ includes only its own, backends/ and the base ($(tr '\n' ' ' <"$T_DIR/inside-includes"))" \
	[ ! -s "$T_DIR/inside-includes" ]
# What the Makefile compiles into each: the guest's sources only its
# own; a preload's only its own, backends/ and the base.
listed_clean() { [ -s "$1" ] && [ ! -s "$2" ]; } # ALL STRAY: some listed, none stray
srcs_of() { sed -n "s/^$1 *:= *//p" "$ROOT/Makefile" | tr ' ' '\n' | grep -v '^$'; }
srcs_of GUEST_SRCS >"$T_DIR/guest-all"
grep -v '^backends/microvm-guest/' "$T_DIR/guest-all" >"$T_DIR/guest-srcs"
check "the guest's /init is built from backends/microvm-guest/ alone ($(tr '\n' ' ' <"$T_DIR/guest-srcs"))" \
	listed_clean "$T_DIR/guest-all" "$T_DIR/guest-srcs"
srcs_of SHIM_SRCS >"$T_DIR/shim-all"
grep -v '^backends/native-inside/' "$T_DIR/shim-all" >"$T_DIR/shim-srcs"
check "the static shim is built from backends/native-inside/ alone ($(tr '\n' ' ' <"$T_DIR/shim-srcs"))" \
	listed_clean "$T_DIR/shim-all" "$T_DIR/shim-srcs"
srcs_of DIOD_GUARD_SRCS >"$T_DIR/guard-all"
grep -v -e '^backends/' -e '^src/error\.c$' -e '^src/log\.c$' -e '^src/xalloc\.c$' \
	"$T_DIR/guard-all" >"$T_DIR/guard-srcs"
check "the diods' preload is built from backends/ and the base alone ($(tr '\n' ' ' <"$T_DIR/guard-srcs"))" \
	listed_clean "$T_DIR/guard-all" "$T_DIR/guard-srcs"
# and the undefined symbols of the built preloads and /init are none of
# the server's own (each carries what it uses).
for bin in sandmux-diod-guard.so sandmux-qemu-net-guard.so; do
	[ -e "$B/$bin" ] || continue
	nm -D --undefined-only "$B/$bin" 2>/dev/null | awk '{ print $2 }' | sed 's/@.*//' >"$T_DIR/$bin.u"
	nm -g --defined-only "$B/sandmux" 2>/dev/null | awk '$2 ~ /^[TDBRG]$/ { print $3 }' | sort -u >"$T_DIR/server.syms"
	sort -u "$T_DIR/$bin.u" | comm -12 - "$T_DIR/server.syms" |
		grep -v -e '^_' -e '^main$' >"$T_DIR/$bin.stray"
	check "$bin needs none of the server's functions ($(head -5 "$T_DIR/$bin.stray" | tr '\n' ' '))" \
		[ ! -s "$T_DIR/$bin.stray" ]
done

# Symbols: each object's undefined symbols that the program defines
# must come from an allowed layer (the rest are libc's and libraries').
ls "$B"/src/*.o "$B"/term/*.o "$B"/backends/*.o "$B"/backends/native-inside/*.o >"$T_DIR/objects" 2>/dev/null
check "the program's objects are there ($(wc -l <"$T_DIR/objects"))" [ "$(wc -l <"$T_DIR/objects")" -gt 40 ]
# One nm for them all (-A: each line starts "OBJECT:"), in the list's order.
# shellcheck disable=SC2046
nm -A -g --defined-only $(cat "$T_DIR/objects") | awk -v base=" $BASE " '
	$2 ~ /^[TDBRGC]$/ {
		o = $1; sub(/:[^:]*$/, "", o); n = split(o, p, "/")
		layer = p[n - 1]; name = p[n]; sub(/\.o$/, "", name)
		if (index(base, " " name " ")) layer = "base"
		print $3, layer
	}' >"$T_DIR/owners"

# OBJECT... -- ALLOWED...: print each symbol an object needs from a
# layer outside the allowed ones, as OBJECT: SYMBOL (LAYER).
stray_symbols() {
	objs=
	while [ "$1" != -- ]; do
		objs="$objs $1"
		shift
	done
	shift
	# One awk per object: the owners (the first line naming a symbol),
	# then the object's undefined symbols.
	for o in $objs; do
		nm -u "$o" | awk -v obj="$(basename "$o")" -v allowed=" $* " '
			NR == FNR { if (!($1 in owner)) owner[$1] = $2; next }
			($2 in owner) && index(allowed, " " owner[$2] " ") == 0 { print obj ": " $2 " (" owner[$2] ")" }' \
			"$T_DIR/owners" -
	done
}

stray_symbols "$B"/term/*.o -- term base >"$T_DIR/term-symbols"
check "term/'s objects need only term/ and the base ($(head -5 "$T_DIR/term-symbols" | tr '\n' ' '))" \
	[ ! -s "$T_DIR/term-symbols" ]
stray_symbols "$B"/backends/*.o -- backends term base >"$T_DIR/backends-symbols"
check "backends/'s objects need only backends/, term/ and the base ($(head -5 "$T_DIR/backends-symbols" | tr '\n' ' '))" \
	[ ! -s "$T_DIR/backends-symbols" ]
stray_symbols "$B"/backends/native-inside/*.o -- native-inside backends base >"$T_DIR/inside-symbols"
check "backends/native-inside/'s objects need only their own, backends/ and the base ($(head -5 "$T_DIR/inside-symbols" | tr '\n' ' '))" \
	[ ! -s "$T_DIR/inside-symbols" ]
stray_symbols "$B"/src/error.o "$B"/src/log.o "$B"/src/xalloc.o -- base >"$T_DIR/base-symbols"
check "the base's objects need nothing of a layer ($(tr '\n' ' ' <"$T_DIR/base-symbols"))" \
	[ ! -s "$T_DIR/base-symbols" ]
finish
