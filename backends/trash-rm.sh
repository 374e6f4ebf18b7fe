#!/bin/sh
# trash-rm: the `rm` first on the PATH of a pane whose profile has the
# trash (delete_guard, workspace_write).  It moves each operand into the
# user's trash as the freedesktop.org trash spec lays it out
# ($XDG_DATA_HOME/Trash, files/NAME and info/NAME.trashinfo), so what an
# `rm` typed in the pane removes can be restored.  It is a convenience,
# not the guard: the supervisor refuses deletes outside the work tree
# whatever program asks (/bin/rm, unlink(2)), and this `rm` asks the
# same, so a file it may not move stays where it is.
#
# rm's options are accepted: -f (no message for a missing operand, no
# failure), -r/-R/--recursive (directories), -d/--dir (empty ones),
# -i/-I/--interactive, -v/--verbose, --; the rest are refused.
#
# On macOS the trash is ~/.Trash, Finder's: files are put there as they
# are, with no files/ and info/ (a macOS native pane's profile makes it
# a writable root, backends/seatbelt.c).
set -u

case $(uname -s) in
Darwin) trash="$HOME/.Trash" files="$HOME/.Trash" ;;
*)
	trash="${XDG_DATA_HOME:-$HOME/.local/share}/Trash"
	files="$trash/files"
	;;
esac
force=0 recursive=0 dir=0 verbose=0 status=0

say() { printf 'rm: %s\n' "$*" >&2; }

# A path for the Path= key: percent-encoded but for the spec's unreserved
# characters and "/", byte by byte.
encode() {
	LC_ALL=C od -An -v -tu1 | LC_ALL=C awk '{
		for (i = 1; i <= NF; i++) {
			b = $i + 0
			if ((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) ||
			    b == 45 || b == 46 || b == 95 || b == 126 || b == 47)
				printf "%c", b
			else
				printf "%%%02X", b
		}
	}'
}

# The operand's absolute path, its last component cleaned of "/" ends.
absolute() {
	case "$1" in
	/*) printf '%s' "$1" ;;
	*) printf '%s/%s' "$(pwd -P)" "$1" ;;
	esac
}

trash_one() {
	path=$(absolute "$1")
	base=$(basename -- "$path")
	name=$base
	n=1
	# A name free in both files/ and info/.  The file moves first: a
	# .trashinfo left behind by a move that failed could not be removed
	# (the trash is no place to delete in).
	while [ -e "$files/$name" ] || [ -L "$files/$name" ] ||
		[ -e "$trash/info/$name.trashinfo" ]; do
		n=$((n + 1))
		name="$base.$n"
		[ "$n" -lt 10000 ] || { say "cannot name $1 in the trash"; return 1; }
	done
	mv -- "$1" "$files/$name" || return 1
	if [ "$files" != "$trash" ]; then
		{
			printf '[Trash Info]\nPath='
			printf '%s' "$path" | encode
			printf '\nDeletionDate=%s\n' "$(date +%Y-%m-%dT%H:%M:%S)"
		} >"$trash/info/$name.trashinfo"
	fi
	[ "$verbose" -eq 0 ] || printf "trashed '%s'\n" "$1"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--) shift; break ;;
	--force) force=1 ;;
	--recursive) recursive=1 ;;
	--dir) dir=1 ;;
	--verbose) verbose=1 ;;
	--interactive* | --one-file-system | --preserve-root* | --no-preserve-root) ;;
	--*) say "unrecognized option '$1' (this rm moves to the trash: $trash)"; exit 1 ;;
	-?*)
		flags=${1#-}
		while [ -n "$flags" ]; do
			case "$flags" in
			f*) force=1 ;;
			r* | R*) recursive=1 ;;
			d*) dir=1 ;;
			v*) verbose=1 ;;
			i* | I*) ;;
			*) say "invalid option -- '$(printf '%.1s' "$flags")'"; exit 1 ;;
			esac
			flags=${flags#?}
		done
		;;
	*) break ;;
	esac
	shift
done

if [ $# -eq 0 ]; then
	[ "$force" -eq 1 ] && exit 0
	say "missing operand"
	exit 1
fi
if [ "$files" = "$trash" ]; then
	mkdir -p "$trash" || exit 1
else
	mkdir -p "$files" "$trash/info" || exit 1
fi
for f in "$@"; do
	if [ ! -e "$f" ] && [ ! -L "$f" ]; then
		[ "$force" -eq 1 ] || { say "cannot remove '$f': No such file or directory"; status=1; }
		continue
	fi
	if [ -d "$f" ] && [ ! -L "$f" ] && [ "$recursive" -eq 0 ]; then
		if [ "$dir" -eq 0 ] || [ -n "$(ls -A -- "$f")" ]; then
			say "cannot remove '$f': Is a directory"
			status=1
			continue
		fi
	fi
	trash_one "$f" || status=1
done
exit $status
