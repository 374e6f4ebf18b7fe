#!/bin/sh
# make macos-check can fail: what it exists to catch does fail it.  No
# Mac runs here; the check compiles the macOS build's sources with
# __APPLE__ defined and the Linux-only calls poisoned
# (tests/macos/poison.h), refuses Linux-only paths
# (tests/macos/check-file.sh) and links the objects as macOS would
# (Makefile).  Each mutant below is a source as a careless change would
# leave it; each must be refused, and the real source beside it passes.
ROOT=${SANDMUX_ROOT:-$(pwd)}
B=${SANDMUX_BUILD:-$ROOT/build}
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
# Not the flags of a make this test may run under (make check's).
FLAGS=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory macos-check-flags) ||
	exit 1
CC=${CC:-cc}
M=$T_DIR/mutants
mkdir -p "$M"

# refused WHAT SRC PATTERN: the check refuses SRC, saying PATTERN.
refused() {
	out=$M/$(basename "$2" .c).out
	# shellcheck disable=SC2086 # FLAGS is a list of flags
	if sh tests/macos/check-file.sh "$M/mutant.o" "$2" "$CC" $FLAGS >"$out" 2>&1; then
		not_ok "$1: the check passed it"
	elif grep -q -- "$3" "$out"; then
		ok "$1: refused ($3)"
	else
		not_ok "$1: refused, but not for $3: $(head -3 "$out")"
	fi
}

# shellcheck disable=SC2086
check "src/os.c as it is passes" sh tests/macos/check-file.sh "$M/os.o" src/os.c "$CC" $FLAGS

# os.c with its Linux branches taken on macOS: pipe2, SOCK_CLOEXEC, ...
sed 's/^#ifdef __linux__$/#if 1/' src/os.c >"$M/os-unguarded.c"
refused "os.c with its Linux branches unguarded" "$M/os-unguarded.c" 'poisoned "pipe2"'

cat >"$M/epoll.c" <<'C'
#include <sys/epoll.h>
int watch(void) { return epoll_create1(0); }
C
refused "a Linux-only header" "$M/epoll.c" "Linux-only header <sys/epoll.h>"

cat >"$M/prctl.c" <<'C'
#include <sched.h>
int alone(void) { return unshare(0); }
C
refused "a Linux-only call through a portable header" "$M/prctl.c" 'poisoned "unshare"'

cat >"$M/proc.c" <<'C'
#include <unistd.h>
long self(char *buf, unsigned long n) { return readlink("/proc/self/exe", buf, n); }
C
refused "a /proc path" "$M/proc.c" "Linux-only path"

cat >"$M/proc-guarded.c" <<'C'
#include <unistd.h>
long self(char *buf, unsigned long n)
{
#ifdef __linux__
	return readlink("/proc/self/exe", buf, n);
#else
	(void)buf;
	(void)n;
	return -1;
#endif
}
C
# shellcheck disable=SC2086
check "the same path under #ifdef __linux__ passes" \
	sh tests/macos/check-file.sh "$M/proc-guarded.o" "$M/proc-guarded.c" "$CC" $FLAGS

# The link: a call into a file only the Linux build has (native.c)
# leaves the macOS program with an undefined reference.
if [ -f "$B/macos-check/libsandmux.a" ] && [ -f "$B/macos-check/apple-stubs.o" ]; then
	cat >"$M/linux-call.c" <<'C'
#include "backend.h"
int main(void)
{
	native_describe(0, 0, 0);
	return 0;
}
C
	cat >"$M/portable-call.c" <<'C'
#include "os.h"
int main(void)
{
	char self[256];
	return os_self_exe(self, sizeof self);
}
C
	LIBS=$(pkg-config --libs vterm ncursesw libuv libcjson)
	for name in linux-call portable-call; do
		# shellcheck disable=SC2086
		sh tests/macos/check-file.sh "$M/$name.o" "$M/$name.c" "$CC" $FLAGS &&
			# shellcheck disable=SC2086
			"$CC" -o "$M/$name" "$M/$name.o" "$B/macos-check/libsandmux.a" \
				"$B/macos-check/apple-stubs.o" $LIBS -lpthread -lutil -lm >"$M/$name.link" 2>&1
		echo $? >"$M/$name.rc"
	done
	check "a call to a function of a Linux-only file does not link" \
		grep -q "undefined reference to .native_describe" "$M/linux-call.link"
	check "a call to a portable one links" [ "$(cat "$M/portable-call.rc")" = 0 ]
else
	echo "# SKIP the link: no $B/macos-check (make macos-check)"
fi
# The Makefile's Darwin branch, as a dry run: what `make` would build on
# a Mac.  The Linux-only files, the shim, the microvm preloads and the
# GNU linker script stay out; Seatbelt's backend and the microvm stand-in
# go in.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n UNAME_S=Darwin BUILD="$M/darwin" all \
	>"$M/darwin.txt" 2>&1
check "make on Darwin: no Linux-only file, shim, preload or linker script" \
	sh -c "! grep -E 'backends/(native|native-prepared|supervisor[a-z-]*|shim-filter|microvm|microvm-prepared|qmp)\.c|native-inside/shim|sandmux-shim|diod-guard|qemu-net-guard|-Wl,-T' '$M/darwin.txt'"
check "make on Darwin: Seatbelt's backend, the microvm stand-in, the seatbelt helper, the trash rm" \
	sh -c "grep -q 'seatbelt-native\.o' '$M/darwin.txt' && grep -q 'microvm-macos\.o' '$M/darwin.txt' &&
		grep -q 'sandmux-seatbelt-exec' '$M/darwin.txt' && grep -q 'sandmux-trash/rm' '$M/darwin.txt'"

# The pane's rm (backends/trash-rm.sh) on macOS: Finder's ~/.Trash, the
# files as they are, a second of the same name beside the first.  uname
# says Darwin here; nothing else of the script asks.
mkdir -p "$M/bin" "$M/home" "$M/work"
printf '#!/bin/sh\necho Darwin\n' >"$M/bin/uname"
chmod +x "$M/bin/uname"
echo one >"$M/work/f"
(cd "$M/work" && HOME="$M/home" PATH="$M/bin:$PATH" sh "$ROOT/backends/trash-rm.sh" f)
echo two >"$M/work/f"
(cd "$M/work" && HOME="$M/home" PATH="$M/bin:$PATH" sh "$ROOT/backends/trash-rm.sh" f)
check "macOS: rm moves to ~/.Trash, a second f beside the first" \
	sh -c "[ ! -e '$M/work/f' ] && [ \"\$(cat '$M/home/.Trash/f')\" = one ] &&
		[ \"\$(cat '$M/home/.Trash/f.2')\" = two ] && [ ! -e '$M/home/.Trash/info' ] &&
		[ ! -e '$M/home/.local/share/Trash' ]"
finish
