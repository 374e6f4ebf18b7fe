# Shared helpers for the shell tests.  Each test gets a private server
# (its own -L name) and private XDG dirs, so tests never see each other
# or the user's sessions.
SANDMUX_BIN=${SANDMUX_BIN:-$(pwd)/build/sandmux}
T_DIR=$(mktemp -d /tmp/sandmux-test.XXXXXX)
export XDG_RUNTIME_DIR="$T_DIR/run" XDG_STATE_HOME="$T_DIR/state" XDG_CONFIG_HOME="$T_DIR/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
T_NAME="t$$"
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

# wait_for SECONDS COMMAND...: retry until it succeeds
wait_for() {
	limit=$1
	shift
	i=0
	while [ "$i" -lt $((limit * 20)) ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

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
		return
	fi
	rm -rf "$T_DIR"
}
trap cleanup EXIT

finish() { exit "$T_FAILED"; }
