#!/bin/sh
# A truly fresh machine: every external command the tests, the build and
# `make run` call must come from a package that a minimal Debian 12 root
# (debootstrap --variant=minbase bookworm) already has, or that
# tests/deps.sh installs, or a package those pull in.  Otherwise `make
# check` passes here only because this machine happens to have it.
#
# Which commands: in the test scripts, their shared helpers, the
# Makefile and the examples (comments left out), every word that stands
# where a shell runs a command (a line's start, after | ; & && || ( $( `
# then do else !, after the wrappers exec, timeout N, nice, env, sudo,
# command -v, sh -c ", and the tests' own check "..." and wait_for N)
# and names a program; in the C sources, the programs they exec or look
# up on PATH.  Programs are looked up on Debian's default PATH (shell
# builtins, the scripts' own functions and words that are no program do
# not count), then dpkg -S
# names the package of the program's file.  The minimal root's packages
# are data, tests/minbase-packages.txt (how it was made is written at its
# top); the rest is what tests/deps.sh --list installs, with everything
# those packages depend on.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(pwd)}
MINBASE="$ROOT/tests/minbase-packages.txt"

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-cache >/dev/null 2>&1; then
	echo "ok - # SKIP not a Debian system (no dpkg-query/apt-cache)"
	exit 0
fi

# What is there without asking: the minimal root's packages, and what
# the deps list installs with everything it depends on.
grep -v '^#' "$MINBASE" | sed '/^$/d' >"$T_DIR/have"
sh "$ROOT/tests/deps.sh" --list >"$T_DIR/deps"
# shellcheck disable=SC2046
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances $(cat "$T_DIR/deps") 2>/dev/null |
	sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)$/\1/p' >>"$T_DIR/have"
cat "$T_DIR/deps" >>"$T_DIR/have"
sort -u "$T_DIR/have" -o "$T_DIR/have"

{
	find "$ROOT/tests" "$ROOT/examples" -name '*.sh'
	echo "$ROOT/tests/tui/tui-lib" "$ROOT/tests/fault/fault-lib" "$ROOT/Makefile" |
		tr ' ' '\n'
} | sort -u >"$T_DIR/scripts"
while read -r f; do
	[ -f "$f" ] && sed 's/^[[:space:]]*#.*//; s/[[:space:]]#.*//' "$f"
done <"$T_DIR/scripts" >"$T_DIR/code"
# Where a command starts, and what may end its name, as extended
# regular expressions (a here-document, so no quoting gets in between).
cat >"$T_DIR/start.ere" <<'ERE'
(^[[:space:]]*|[|;&(`{!][[:space:]]*|\$\((shell )?|(then|do|else|exec|sudo|nice|xargs)[[:space:]]+|timeout( -[a-z]+( [A-Z0-9]+)?)* [0-9.]+[smh]?[[:space:]]+|env( [A-Za-z_]+=[^ ]*)*[[:space:]]+|command -v[[:space:]]+|(ba)?sh -c ["'][[:space:]]*|check "[^"]*"[[:space:]]+|wait_for [0-9.]+[[:space:]]+)
ERE
cat >"$T_DIR/end.ere" <<'ERE'
([[:space:];)"'|&]|$)
ERE
# One pass: every word is looked for with the two around it, only in
# the lines that have it (a grep of all the code per word took most of
# this test's time).  A match is the whole word: what may start and end
# a command is never a letter, digit or one of _.+-.
python3 - "$T_DIR/code" "$T_DIR/start.ere" "$T_DIR/end.ere" >"$T_DIR/words" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
start, end = (open(f).read().strip("\n").replace("[:space:]", r"\s") for f in sys.argv[2:4])
where = {}
for i, line in enumerate(lines):
    for word in set(re.findall(r"[A-Za-z0-9_.+-]+", line)):
        if re.fullmatch(r"[a-z][a-z0-9_.+-]*", word):
            where.setdefault(word, []).append(i)
for word in sorted(where):
    command = re.compile(start + re.escape(word) + end)
    if any(command.search(lines[i]) for i in where[word]):
        print(word)
PY
# The Makefile's $(CC) is cc; the C code execs these, or finds them on PATH.
echo cc >>"$T_DIR/words"
cat "$ROOT"/src/*.c "$ROOT"/backends/*.c "$ROOT"/backends/native-inside/*.c |
	grep -oE '(probe_find_on_path|execvp|execlp|execv|execl)\("[^"]*"' |
	sed 's/.*"\(.*\)"/\1/; s|.*/||' >>"$T_DIR/words"
# Words that stand where a command could but run nothing in make run or
# make check, each with the reason it is left out.
cat >"$T_DIR/not-run" <<'EOF'
clang-format	only `make format` runs it, neither make run nor make check
node	a variable of the Python gdb script in tests/integration/pane-handles.sh
EOF
cut -f1 "$T_DIR/not-run" >"$T_DIR/not-run-words"
# The scripts' own shell functions run no program, though one may share
# a program's name: tui-lib's `screen` (what the client shows) is not GNU
# screen, which make check never runs (the bench compares with it when
# installed); counting it made make check fail wherever screen was.
sed -n 's/^[[:space:]]*\([a-z][a-z0-9_]*\)()[[:space:]]*{.*/\1/p' "$T_DIR/code" |
	sort -u >>"$T_DIR/not-run-words"
sort -u "$T_DIR/words" | grep -vxF -f "$T_DIR/not-run-words" >"$T_DIR/words.kept"
mv "$T_DIR/words.kept" "$T_DIR/words"

# One dpkg -S for every program; usrmerge spells a file /usr/bin/X on
# disk and /bin/X in dpkg's database, so both spellings are asked.
: >"$T_DIR/programs"
while read -r word; do
	path=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v "$word" 2>/dev/null) || continue
	case $path in /*) ;; *) continue ;; esac
	real=$(readlink -f "$path")
	echo "$word $path $real" >>"$T_DIR/programs"
done <"$T_DIR/words"
awk '{ for (i = 2; i <= 3; i++) { print $i; p = $i; sub(/^\/usr/, "", p); print p } }' \
	"$T_DIR/programs" | sort -u | xargs dpkg -S 2>/dev/null |
	sed 's/^\([^:,]*\)[^ ]* \(.*\)$/\2 \1/' >"$T_DIR/owners"

: >"$T_DIR/missing"
used=0
while read -r word path real; do
	used=$((used + 1))
	pkg=""
	for f in "$real" "${real#/usr}" "$path" "${path#/usr}"; do
		pkg=$(awk -v f="$f" '$1 == f { print $2; exit }' "$T_DIR/owners")
		[ -n "$pkg" ] && break
	done
	if [ -z "$pkg" ]; then
		echo "$word ($path: no Debian package owns it)" >>"$T_DIR/missing"
	elif ! grep -qx -- "$pkg" "$T_DIR/have"; then
		echo "$word (package $pkg)" >>"$T_DIR/missing"
	fi
done <"$T_DIR/programs"
check "the tests call programs ($used found on this machine)" [ "$used" -gt 20 ]
if [ -s "$T_DIR/missing" ]; then
	sed 's/^/# not in a minbase root nor installed by tests\/deps.sh: /' "$T_DIR/missing"
fi
check "every program the tests and make run call is in a minbase root or tests/deps.sh ($(wc -l <"$T_DIR/missing") missing)" \
	[ ! -s "$T_DIR/missing" ]
finish
