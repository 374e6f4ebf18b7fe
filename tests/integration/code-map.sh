#!/bin/sh
# docs/CODE-MAP.md cannot rot: every C file of term/, src/ and backends/
# (their subfolders included) has exactly one line of its own in its
# folder's table, no line names a file that is not there, and the
# map's "the one ..." claims that a grep can check still hold.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(pwd)}
MAP=$ROOT/docs/CODE-MAP.md

# The first cell of each table line of the term/, src/ and backends/
# sections, as FOLDER/NAME, one per named file ("several" when a line
# names more than one).
awk '
	/^## / { sec = ""; if (match($0, /^## (term|src|backends)\//)) sec = substr($2, 1, length($2) - 1) }
	sec != "" && /^\| `/ {
		split($0, cell, " \\| ")
		n = gsub(/`[^`]*`/, "&", cell[1])
		while (match(cell[1], /`[^`]*`/)) {
			name = substr(cell[1], RSTART + 1, RLENGTH - 2)
			print sec "/" name (n > 1 ? " several" : "")
			cell[1] = substr(cell[1], RSTART + RLENGTH)
		}
	}' "$MAP" >"$T_DIR/rows"
check "the map has the folders' tables ($(wc -l <"$T_DIR/rows") lines)" [ "$(wc -l <"$T_DIR/rows")" -gt 150 ]

(cd "$ROOT" && find term src backends -name '*.[ch]' | sort) >"$T_DIR/files"
cut -d' ' -f1 "$T_DIR/rows" | sort >"$T_DIR/named"
comm -23 "$T_DIR/files" "$T_DIR/named" >"$T_DIR/missing"
check "every .c and .h of term/, src/ and backends/ has a line ($(tr '\n' ' ' <"$T_DIR/missing"))" \
	[ ! -s "$T_DIR/missing" ]
uniq -d "$T_DIR/named" >"$T_DIR/twice"
check "no file has two lines ($(tr '\n' ' ' <"$T_DIR/twice"))" [ ! -s "$T_DIR/twice" ]
grep ' several$' "$T_DIR/rows" | cut -d' ' -f1 >"$T_DIR/several"
check "each line is one file's ($(tr '\n' ' ' <"$T_DIR/several"))" [ ! -s "$T_DIR/several" ]
while read -r f; do
	[ -e "$ROOT/$f" ] || echo "$f"
done <"$T_DIR/named" >"$T_DIR/stale"
check "every line's file is there ($(tr '\n' ' ' <"$T_DIR/stale"))" [ ! -s "$T_DIR/stale" ]

# "JSON lines: the one way a line is framed" (jsonl.c).
(cd "$ROOT" && grep -rln 'cJSON_PrintUnformatted' term src backends) |
	grep -v -e '^src/jsonl\.c$' >"$T_DIR/framers" || true
check "only jsonl.c frames a JSON line ($(tr '\n' ' ' <"$T_DIR/framers"))" [ ! -s "$T_DIR/framers" ]
# "the one SGR builder (term_style_sgr)": no other file writes the
# 256-colour or RGB forms of a colour but the server's tty writer,
# which sets the pen cap by cap (tty.c).
(cd "$ROOT" && grep -rlE '"[^"]*;(5|2);%d' term src backends) |
	grep -v -e '^term/term-output\.c$' -e '^src/tty\.c$' >"$T_DIR/sgr" || true
check "only term_style_sgr builds an SGR colour ($(tr '\n' ' ' <"$T_DIR/sgr"))" [ ! -s "$T_DIR/sgr" ]
finish
