# Shared helpers for the shell tests.  Each test gets a private server
# (its own -L name) and private XDG dirs, so tests never see each other
# or the user's sessions.
SANDMUX_BIN=${SANDMUX_BIN:-$(pwd)/build/sandmux}
T_DIR=$(mktemp -d /tmp/sandmux-test.XXXXXX)
export XDG_RUNTIME_DIR="$T_DIR/run" XDG_STATE_HOME="$T_DIR/state" XDG_CONFIG_HOME="$T_DIR/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
T_NAME="t$$"

# Root's tests also run servers, bwrap and helpers as uid 65534, who must
# reach the binaries: with the checkout in a directory that uid cannot
# traverse (/root/project, /root mode 0700, as in a debian:12 container)
# bwrap fails with "Permission denied".  Then the build is staged in
# /var/tmp/sandmux-stage.* (0755; not under /tmp, where the escape suite
# checks a pane finds nothing of sandmux's: a pane sees the shim at its
# host path): hard links where it is on the same file system (no copy),
# else a copy; the parts a server or test runs (binaries, helpers, the
# trash rm, the guest image; not the objects), with themes/ beside it as
# in the checkout.  SANDMUX_BIN and SANDMUX_BUILD point at it until the
# test ends (cleanup removes it).
T_STAGE=""
stage_build() {
	build=${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}
	T_STAGE=$(mktemp -d /var/tmp/sandmux-stage.XXXXXX) || return 1
	stage=$T_STAGE
	mkdir -p "$stage/build"
	chmod 755 "$stage" "$stage/build"
	for part in "$build"/* "$(dirname "$build")/themes"; do
		case "${part##*/}" in
		src | term | backends | tests | shim-include | *.a | *.o | *.d) continue ;;
		esac
		[ -e "$part" ] || continue
		to="$stage/build"
		[ "${part##*/}" = themes ] && to="$stage"
		cp -al "$part" "$to/" 2>/dev/null || cp -a "$part" "$to/" || return 1
	done
	export SANDMUX_BUILD="$stage/build" SANDMUX_BIN="$stage/build/${SANDMUX_BIN##*/}"
}
if [ "$(id -u)" = 0 ] && [ -x "$SANDMUX_BIN" ] && command -v setpriv >/dev/null 2>&1 &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SANDMUX_BIN" 2>/dev/null; then
	stage_build || echo "# could not stage the build where uid 65534 reaches it" >&2
fi
T_FAILED=0
export SHELL=/bin/sh
# Run from inside a sandmux pane, the tests are still not nested in it.
unset SANDMUX

sm() { "$SANDMUX_BIN" -L "$T_NAME" "$@"; }

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; T_FAILED=1; }
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# wait_for SECONDS COMMAND...: retry until it succeeds.  One that runs
# out is written to $SANDMUX_WAIT_LOG when it is set (tests/run.sh lists
# them: in a test that passes, a wait that always runs out is time lost,
# unless what it waits for must not happen).
wait_for() {
	limit=$1
	shift
	i=0
	while [ "$i" -lt $((limit * 20)) ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		i=$((i + 1))
	done
	[ -n "${SANDMUX_WAIT_LOG:-}" ] && echo "${0#"${SANDMUX_ROOT:-}/"}: wait_for $limit $*" >>"$SANDMUX_WAIT_LOG"
	return 1
}

# waiting_bwrap [SERVER_PID]: the pid of the bwrap (a child of the
# server, $SRV by default) whose shim waits for a command (the prepared
# sandbox), or nothing.
waiting_bwrap() {
	srv=${1:-$SRV}
	[ -n "$srv" ] || return 1
	for shim in $(pgrep -f -- "--fd [0-9]+ (--nproc [0-9]+ )?(--userns [0-9]+:[0-9]+ )?(--ro(-try|-mount)? /[^ ]* )*--wait$"); do
		init=$(ps -o ppid= -p "$shim" | tr -d ' ')
		outer=$(ps -o ppid= -p "$init" 2>/dev/null | tr -d ' ')
		[ -n "$outer" ] && [ "$(ps -o ppid= -p "$outer" | tr -d ' ')" = "$srv" ] && echo "$outer"
	done | head -1
}
has_waiting() { [ -n "$(waiting_bwrap "$@")" ]; }
# dead PID: PID ended (gone, or a zombie not yet reaped: Z, or Zs for
# a session leader such as bwrap)
dead() { ! kill -0 "$1" 2>/dev/null || case $(ps -o stat= -p "$1") in Z*) true ;; *) false ;; esac; }
# server_gone: no server answers on the test's socket (after kill-server)
server_gone() { ! sm ls >/dev/null 2>&1; }

# capture_has PANE TEXT: the pane's screen or history contains TEXT
capture_has() { sm capture -t "$1" -S - | grep -qF -- "$2"; }

# pane_field ID KEY: one field of pane ID in `ls --json` (quotes dropped),
# through whatever `sm` the test defines.
pane_field() {
	sm ls --json | awk -v id="$1" -v key="\"$2\":" '
		$1 == "\"id\":" { v = $2; sub(/,$/, "", v); cur = v }
		cur == id && $1 == key {
			v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/,$/, "", v)
			gsub(/^"|"$/, "", v); print v; exit }'
}

# SANDMUX_KEEP=1: a failed test's directory (server log, state) is kept
# for a post-mortem instead of removed.
cleanup() {
	sm kill-server >/dev/null 2>&1
	if [ "${SANDMUX_KEEP:-0}" = 1 ] && [ "$T_FAILED" != 0 ]; then
		echo "# kept $T_DIR"
		[ -n "$T_STAGE" ] && rm -rf "$T_STAGE"
		return
	fi
	rm -rf "$T_DIR"
	[ -n "$T_STAGE" ] && rm -rf "$T_STAGE"
}
trap cleanup EXIT

finish() { exit "$T_FAILED"; }
