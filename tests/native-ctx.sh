# Private servers for the native tests (sourced after tests/lib.sh, with
# $W set to the test's directory outside /tmp): each context is a server
# run as root/self or as uid 65534, with its own HOME, XDG dirs, work
# tree, PATH and extra environment under $W/NAME.
HOST_PATH=${HOST_PATH:-$PATH}
SERVERS=""

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
