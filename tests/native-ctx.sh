# Private servers for the native tests (sourced after tests/lib.sh; then
# native_start makes $W, the test's directory): each context is a server
# run as root/self or as uid 65534, with its own HOME, XDG dirs, work
# tree, PATH and extra environment under $W/NAME.
HOST_PATH=${HOST_PATH:-$PATH}
SERVERS=""

# native_start NAME TOOL...: the native tests' start.  Each TOOL must be
# on PATH (else "not ok" with its package, and the test ends).  $W, the
# test's directory, is made outside /tmp (a pane has a private /tmp, and
# homes and work trees must be the same path inside and out), 0755 (the
# uid-65534 contexts live in it).  On exit every context's server is
# killed and $W and the test's directories removed (a test with more to
# undo sets its own trap and calls native_cleanup).
native_start() {
	name=$1
	shift
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 && continue
		case $tool in
		bwrap) pkg=bubblewrap ;; setpriv) pkg=util-linux ;; timeout) pkg=coreutils ;;
		cc) pkg=gcc ;; *) pkg=$tool ;;
		esac
		not_ok "$tool is installed (apt-get install $pkg)"
		finish
	done
	W=$(mktemp -d "/var/tmp/sandmux-$name.XXXXXX")
	chmod 755 "$W"
	trap native_cleanup EXIT
}
native_cleanup() {
	servers_kill
	rm -rf "$W"
	cleanup
}

# ctx NAME WHO [PATH] [VAR=VALUE...]: make context NAME and switch to it.
ctx() {
	d="$W/$1"
	mkdir -p "$d/home" "$d/run" "$d/state" "$d/config/sandmux" "$d/work"
	chmod 700 "$d/run"
	echo "$2" >"$d/.who"
	echo "${3:-$HOST_PATH}" >"$d/.path"
	shift 2
	[ $# -gt 0 ] && shift
	echo "$*" >"$d/.env"
	[ "$(cat "$d/.who")" = nobody ] && chown -R 65534:65534 "$d"
	SERVERS="$SERVERS ${d##*/}"
	ctx_load "${d##*/}"
}
ctx_load() {
	NAME=$1
	D="$W/$1"
	WHO=$(cat "$D/.who")
	SM_PATH=$(cat "$D/.path")
	EXTRA=$(cat "$D/.env")
	AS=""
	[ "$WHO" = nobody ] && AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
}
# sm ARGS...: the CLI against the current context's server (started on
# first use with that context's user, HOME, XDG dirs, PATH and extras).
sm() {
	env HOME="$D/home" XDG_RUNTIME_DIR="$D/run" XDG_STATE_HOME="$D/state" \
		XDG_CONFIG_HOME="$D/config" PATH="$SM_PATH" SHELL=/bin/sh $EXTRA \
		$AS "$SANDMUX_BIN" -L "$NAME" "$@"
}
# servers_kill: kill every context's server.
servers_kill() {
	for s in $SERVERS; do
		ctx_load "$s"
		sm kill-server >/dev/null 2>&1
	done
}

# server_pid: this context's server, as it says itself.  Not by its
# name: every run of a test names its servers alike (p-root, p-nobody),
# and another run on the same host (make check beside a helper's run)
# has servers of the same names; taking theirs made the prepared-sandbox
# checks fail now and then.
server_pid() { sm ctl '{"cmd":"hello","version":1}' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p'; }
