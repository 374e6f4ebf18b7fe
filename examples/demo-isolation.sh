#!/bin/sh
# The isolation demo: one session, panes side by side, the same attempt
# in each.  Left runs on the host (backend none), then inside the
# OS-native sandbox (backend native), and, when the probe offers it,
# inside a microvm (its own kernel).  All live in a throwaway HOME
# holding a fake key, ~/.ssh/id_demo, and a .bashrc, with a fake
# GITHUB_TOKEN exported; each pane tries to read the key, to print the
# token, to append to ~/.bashrc (what the host's next shell would run)
# and to write /etc/sandmux-demo.  Expected: the none pane does all but
# the /etc write, the native pane none of it (the token withheld, the
# .bashrc write landing in its copy-on-write home layer, the host's file
# unchanged), the microvm pane neither reads the key nor sees the token
# nor writes /etc nor the host's ~/.bashrc, and the pane labels say
# which is which.
#
#   sandmux demo [--no-attach]      (or: SANDMUX_BIN=path/to/sandmux sh demo-isolation.sh)
#
# With a terminal it attaches to the session: the panes side by side on
# top, the violation feed full-width below, and the attempts start once
# the screen is up, so each denial reaches the feed as it happens.
# C-b d ends the demo (it kills the demo's server) and prints the
# summary.  Without a terminal, with --no-attach, or inside a sandmux
# pane (as tmux, it does not nest), it prints every pane's screen and the
# violations, and exits 0 when the result is the expected one, 1
# otherwise.  The demo runs its own server (-L demo-PID) with private
# XDG dirs, and removes everything it made when it ends.
set -u
SANDMUX_BIN=${SANDMUX_BIN:-sandmux}
ATTACH=1
case ${1:-} in
--no-attach) ATTACH=0 ;;
"") ;;
*)
	echo "usage: sandmux demo [--no-attach] [--record FILE]" >&2
	exit 2
	;;
esac
{ [ -t 0 ] && [ -t 1 ]; } || ATTACH=0
if [ "$ATTACH" -eq 1 ] && [ -n "${SANDMUX:-}" ]; then
	echo "sandmux demo: inside a sandmux pane, so not attaching (unset \$SANDMUX to force); the summary follows" >&2
	ATTACH=0
fi
# Every command below names the demo's server with -L.
unset SANDMUX SANDMUX_PANE

# Not under /tmp: the native pane gets a private /tmp, and the demo's
# HOME must be the same directory inside and out.
DEMO=$(mktemp -d /var/tmp/sandmux-demo.XXXXXX) || exit 1
chmod 755 "$DEMO"
export HOME="$DEMO/home" XDG_RUNTIME_DIR="$DEMO/run" XDG_STATE_HOME="$DEMO/state" \
	XDG_CONFIG_HOME="$DEMO/config" SHELL=/bin/sh
mkdir -p "$HOME/.ssh" "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME/sandmux"
chmod 700 "$XDG_RUNTIME_DIR" "$HOME/.ssh"
echo "sandmux demo key, not a real one" >"$HOME/.ssh/id_demo"
chmod 600 "$HOME/.ssh/id_demo"
echo "# the demo's .bashrc" >"$HOME/.bashrc"
# C-b d ends the demo: its server goes, and the client says so.
printf '{ "bindings": { "d": "kill-server" } }\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
# A fake token in the environment the server (and every pane) starts from.
export GITHUB_TOKEN="ghp_sandmux_demo_token_not_real"
NAME="demo-$$"

sm() { "$SANDMUX_BIN" -L "$NAME" "$@"; }
WAITER=""
cleanup() {
	[ -n "$WAITER" ] && kill "$WAITER" 2>/dev/null
	sm kill-server >/dev/null 2>&1
	# The server may write its last lines as it goes: try again until
	# nothing is left (at most 5 s).
	i=0
	until rm -rf "$DEMO" 2>/dev/null && [ ! -e "$DEMO" ]; do
		[ "$i" -ge 50 ] && break
		sleep 0.1
		i=$((i + 1))
	done
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# What each pane runs: its name, a wait for Enter (sent by this script
# once the screen is up), the attempt, then an interactive shell to poke
# at.  Short lines, $HOME written ~, so that a third of 80 columns shows
# them.  noclobber, so an /etc/sandmux-demo that already exists is never
# overwritten, and only a file this attempt created is removed again.
cat >"$HOME/attempt.sh" <<'EOF'
short() { sed "s|$HOME|~|g; s|^[^ ]*attempt.sh: [0-9]*: ||"; }
echo "== $1, as $(id -un)"
read -r _go
if out=$(cat ~/.ssh/id_demo 2>&1); then r=ALLOWED; else r=DENIED; fi
printf '%s\n' "$out" | short
echo "RESULT read: $r"
if [ -n "${GITHUB_TOKEN:-}" ]; then
	echo "$GITHUB_TOKEN"
	echo "RESULT token: ALLOWED"
else
	echo "(empty)"
	echo "RESULT token: WITHHELD"
fi
# Where a write to $HOME lands: the server sets SANDMUX_HOME_LAYER only
# where the pane's $HOME is a copy-on-write layer (docs/security.md).
if out=$({ echo "echo evil from the $1 pane" >>~/.bashrc; } 2>&1); then
	r=ALLOWED
	[ -n "${SANDMUX_HOME_LAYER:-}" ] && r=LAYER && echo "(to its home layer)"
else
	r=DENIED
fi
[ -n "$out" ] && printf '%s\n' "$out" | short
echo "RESULT bashrc: $r"
set -C
if out=$({ echo pwned >/etc/sandmux-demo; } 2>&1); then
	r=ALLOWED
	rm -f /etc/sandmux-demo
else
	r=DENIED
fi
set +C
[ -n "$out" ] && printf '%s\n' "$out" | short
echo "RESULT write: $r"
exec /bin/sh -i
EOF

sm new -d -s demo -x 160 -y 24 -c "$HOME" -- /bin/sh "$HOME/attempt.sh" none >/dev/null || exit 1
sm split -t %1 -h --backend native -c "$HOME" -- /bin/sh "$HOME/attempt.sh" native >/dev/null 2>&1
# Always asked for: where it cannot run, its column says FAILED with the
# install hint, and the rest of the demo goes on.
sm split -t %2 -h --backend microvm -c "$HOME" -- /bin/sh "$HOME/attempt.sh" microvm \
	>/dev/null 2>&1
PANES="1 2 3"
# Equal columns; the feed then opens full-width below them (docs/feed.md).
sm select-layout -t demo even-horizontal >/dev/null 2>&1

# field PANE KEY: a pane's field from `ls --json` (quotes dropped).
field() {
	sm ls --json | awk -v id="$1" -v key="\"$2\":" '
		$1 == "\"id\":" { v = $2; sub(/,$/, "", v); cur = v }
		cur == id && $1 == key {
			v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/,$/, "", v)
			gsub(/^"|"$/, "", v); print v; exit }'
}
failed() { [ "$(field "$1" state)" = error ]; }
waiting() { sm capture -t "%$1" | grep -q '^== '; }
settled() { # PANE: the attempt finished, or the pane failed
	failed "$1" || sm capture -t "%$1" | grep -q '^RESULT write'
}
all_settled() {
	for p in $PANES; do settled "$p" || return 1; done
}
# go: Enter to each pane once it waits for it, then the attempts waited
# for.  A microvm boots in seconds (more under TCG on a busy host).
go() {
	for p in $PANES; do
		i=0
		while [ "$i" -lt 600 ] && ! failed "$p" && ! waiting "$p"; do
			sleep 0.1
			i=$((i + 1))
		done
		failed "$p" || sm send-keys -t "%$p" Enter >/dev/null
	done
	i=0
	while [ "$i" -lt 600 ] && ! all_settled; do
		sleep 0.1
		i=$((i + 1))
	done
}
# violations: what the sandboxes refused, one line each, as the feed has them.
violations() { sm events | grep ' violation '; }

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
token_hidden() { ! sm capture -t "%$1" -S - | grep -q 'ghp_sandmux_demo'; }
bashrc_only_none() {
	grep -q 'evil from the none pane' "$HOME/.bashrc" && ! grep -q 'evil from the native pane' "$HOME/.bashrc"
}
in_layer() { sm changes --json | grep -qF '"path":".bashrc","change":"changed"'; }
read_in_feed() { sm events --json -t "%2" --action 'file-read*' | grep -qF "\"target\":\"$HOME/.ssh/id_demo\""; }
judge() {
	expect "the left pane is labelled none" [ "$(field 1 backend)" = none ]
	expect "the right pane is labelled native" [ "$(field 2 backend)" = native ]
	expect "none reads ~/.ssh/id_demo" result 1 read ALLOWED
	expect "native is denied ~/.ssh/id_demo" result 2 read DENIED
	expect "native is denied /etc/sandmux-demo" result 2 write DENIED
	expect "native never shows the key" key_hidden 2
	expect "none sees \$GITHUB_TOKEN" result 1 token ALLOWED
	expect "native is started without \$GITHUB_TOKEN" result 2 token WITHHELD
	expect "native never shows the token" token_hidden 2
	expect "none appends to ~/.bashrc" result 1 bashrc ALLOWED
	expect "native's ~/.bashrc write lands in its home layer" result 2 bashrc LAYER
	expect "the host's ~/.bashrc holds the none pane's line only" bashrc_only_none
	expect "sandmux changes shows the layer's ~/.bashrc" in_layer
	expect "the refused read of ~/.ssh/id_demo is in the violation feed" read_in_feed
	if ! failed 3; then
		expect "the third pane is labelled microvm" [ "$(field 3 backend)" = microvm ]
		expect "microvm is denied ~/.ssh/id_demo" result 3 read DENIED
		expect "microvm is denied /etc/sandmux-demo" result 3 write DENIED
		expect "microvm's ~/.bashrc write lands in its home layer" result 3 bashrc LAYER
		expect "microvm never shows the key" key_hidden 3
		expect "microvm is started without \$GITHUB_TOKEN" result 3 token WITHHELD
	fi
	if [ "$verdict" -eq 0 ]; then
		echo "==== as expected: the host pane read the key, saw the token and changed"
		echo "     ~/.bashrc; the contained panes could not read the key, see the token"
		echo "     or write /etc, and their ~/.bashrc writes went to the home layer, not"
		echo "     the host (sandmux changes lists them, sandmux keep would copy one)"
	else
		echo "==== NOT as expected (see above)"
	fi
}
# summary: one line per pane, its results, then the violations and the verdict.
summary() {
	echo "sandmux demo: the same attempt in each pane"
	for p in $PANES; do
		if failed "$p"; then
			reason=$(field "$p" reason) hint=$(field "$p" hint)
			case "$reason" in *"$hint"*) hint="" ;; esac
			echo "  $(field "$p" requested): FAILED: $reason${hint:+ (install: $hint)}"
			continue
		fi
		printf '  %-8s %s\n' "$(field "$p" backend)" \
			"$(sm capture -t "%$p" | sed -n 's/^RESULT //p' | paste -sd ' ' - | sed 's/ \([a-z]*:\)/, \1/g')"
	done
	echo "  what the sandboxes refused:"
	violations | sed "s|$HOME|~|g; s/^/    /"
	judge
}

if [ "$ATTACH" -eq 1 ]; then
	sm feed -t demo >/dev/null 2>&1
	attached() { sm ls --json | grep -q '"attached":[[:space:]]*[1-9]'; }
	# Behind the client: once it has drawn, the attempts start; the
	# summary is ready by the time the user leaves.
	(
		i=0
		while [ "$i" -lt 300 ] && ! attached; do
			sleep 0.1
			i=$((i + 1))
		done
		go
		summary >"$DEMO/summary.part" && mv "$DEMO/summary.part" "$DEMO/summary"
	) 2>/dev/null &
	WAITER=$!
	sm attach -t demo
	if [ -s "$DEMO/summary" ]; then
		cat "$DEMO/summary"
	else
		echo "sandmux demo: left before every pane had finished"
	fi
	echo "sandmux demo: ended; its server, panes and files are removed."
	exit 0
fi

go
show() { # PANE
	echo "---- pane %$1: requested $(field "$1" requested), label $(field "$1" backend)," \
		"state $(field "$1" state)"
	reason=$(field "$1" reason)
	[ -n "$reason" ] && echo "FAILED: $reason" && echo "hint: $(field "$1" hint)"
	sm capture -t "%$1" | grep -v '^$'
}
for p in $PANES; do show "$p"; done
echo "---- the violation feed"
violations
judge
exit "$verdict"
