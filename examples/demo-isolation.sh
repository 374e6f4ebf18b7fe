#!/bin/sh
# The isolation demo: one session, panes side by side, the same attempt
# in each.  Left runs on the host (backend none), then inside the
# OS-native sandbox (backend native), and, when the probe offers it,
# inside a microvm (its own kernel).  All live in a throwaway HOME
# holding a fake key, ~/.ssh/id_demo; each pane tries to read it and to
# write /etc/sandmux-demo.  Expected: the none pane reads the key, the
# contained panes are denied both, and the pane labels say which is
# which.
#
#   sandmux demo [--no-attach]      (or: SANDMUX=path/to/sandmux sh demo-isolation.sh)
#
# With a terminal it attaches to the session (detach to end the demo).
# Without one, or with --no-attach, it prints both panes' screens and
# exits 0 when the result is the expected one, 1 otherwise.  The demo
# runs its own server (-L demo-PID) with private XDG dirs, and removes
# everything it made when it ends.
set -u
SANDMUX=${SANDMUX:-sandmux}
ATTACH=1
[ "${1:-}" = "--no-attach" ] && ATTACH=0
{ [ -t 0 ] && [ -t 1 ]; } || ATTACH=0

# Not under /tmp: the native pane gets a private /tmp, and the demo's
# HOME must be the same directory inside and out.
DEMO=$(mktemp -d /var/tmp/sandmux-demo.XXXXXX) || exit 1
chmod 755 "$DEMO"
export HOME="$DEMO/home" XDG_RUNTIME_DIR="$DEMO/run" XDG_STATE_HOME="$DEMO/state" \
	XDG_CONFIG_HOME="$DEMO/config" SHELL=/bin/sh
mkdir -p "$HOME/.ssh" "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR" "$HOME/.ssh"
echo "-----BEGIN OPENSSH PRIVATE KEY----- sandmux demo key, not a real one" >"$HOME/.ssh/id_demo"
chmod 600 "$HOME/.ssh/id_demo"
NAME="demo-$$"

sm() { "$SANDMUX" -L "$NAME" "$@"; }
cleanup() {
	sm kill-server >/dev/null 2>&1
	rm -rf "$DEMO"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# What each pane runs: the attempt, then an interactive shell to poke at.
# noclobber, so an /etc/sandmux-demo that already exists is never
# overwritten, and only a file this attempt created is removed again.
cat >"$HOME/attempt.sh" <<'EOF'
echo "== backend $1: I am $(id -un), HOME=$HOME"
echo '$ cat ~/.ssh/id_demo'
if cat ~/.ssh/id_demo; then echo "RESULT read: ALLOWED"; else echo "RESULT read: DENIED"; fi
echo '$ echo pwned >/etc/sandmux-demo'
set -C
if { echo pwned >/etc/sandmux-demo; } 2>&1; then
	echo "RESULT write: ALLOWED"
	rm -f /etc/sandmux-demo
else
	echo "RESULT write: DENIED"
fi
set +C
exec /bin/sh -i
EOF

sm new -d -s demo -x 160 -y 24 -c "$HOME" -- /bin/sh "$HOME/attempt.sh" none >/dev/null || exit 1
sm split -t %1 -h --backend native -c "$HOME" -- /bin/sh "$HOME/attempt.sh" native >/dev/null 2>&1
PANES="1 2"
if sm probe | grep -q '^microvm: available'; then
	sm split -t %2 -h --backend microvm -c "$HOME" -- /bin/sh "$HOME/attempt.sh" microvm \
		>/dev/null 2>&1
	PANES="1 2 3"
fi

# field PANE KEY: a pane's field from `ls --json` (quotes dropped).
field() {
	sm ls --json | awk -v id="$1" -v key="\"$2\":" '
		$1 == "\"id\":" { v = $2; sub(/,$/, "", v); cur = v }
		cur == id && $1 == key {
			v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/,$/, "", v)
			gsub(/^"|"$/, "", v); print v; exit }'
}
settled() { # PANE: the attempt finished, or the pane failed
	[ "$(field "$1" state)" = error ] || sm capture -t "%$1" | grep -q '^RESULT write'
}
all_settled() {
	for p in $PANES; do settled "$p" || return 1; done
}
# A microvm boots in seconds (more under TCG on a busy host).
i=0
while [ "$i" -lt 600 ] && ! all_settled; do
	sleep 0.1
	i=$((i + 1))
done

if [ "$ATTACH" -eq 1 ]; then
	echo "sandmux demo: left pane runs on the host (none), then the native sandbox$( [ "$PANES" = "1 2" ] || echo ", then a microvm")."
	echo "Detach to end the demo."
	sleep 1
	sm attach -t demo
	exit 0
fi

show() { # PANE
	echo "---- pane %$1: requested $(field "$1" requested), label $(field "$1" backend)," \
		"state $(field "$1" state)"
	reason=$(field "$1" reason)
	[ -n "$reason" ] && echo "FAILED: $reason" && echo "hint: $(field "$1" hint)"
	sm capture -t "%$1" | grep -v '^$'
}
for p in $PANES; do show "$p"; done

verdict=0
expect() { # DESCRIPTION COMMAND...
	desc=$1
	shift
	"$@" || {
		echo "UNEXPECTED: $desc"
		verdict=1
	}
}
result() { sm capture -t "%$1" | grep -q "^RESULT $2: $3"; }
key_hidden() { ! sm capture -t "%$1" | grep -q 'demo key'; }
expect "the left pane is labelled none" [ "$(field 1 backend)" = none ]
expect "the right pane is labelled native" [ "$(field 2 backend)" = native ]
expect "none reads ~/.ssh/id_demo" result 1 read ALLOWED
expect "native is denied ~/.ssh/id_demo" result 2 read DENIED
expect "native is denied /etc/sandmux-demo" result 2 write DENIED
expect "native never shows the key" key_hidden 2
if [ "$PANES" = "1 2 3" ]; then
	expect "the third pane is labelled microvm" [ "$(field 3 backend)" = microvm ]
	expect "microvm is denied ~/.ssh/id_demo" result 3 read DENIED
	expect "microvm is denied /etc/sandmux-demo" result 3 write DENIED
	expect "microvm never shows the key" key_hidden 3
fi
if [ "$verdict" -eq 0 ]; then
	echo "==== as expected: the host pane read the key; the contained panes could neither read it nor write /etc"
else
	echo "==== NOT as expected (see above)"
fi
exit "$verdict"
