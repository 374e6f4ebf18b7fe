#!/bin/sh
# The native backend's terminal profile under the real bubblewrap.
#
# The helper build/helpers/bwrap-argv prints the exact argv the backend
# builds (backends/bwrap.c); this test runs it, as root and as an
# unprivileged user (uid 65534 with a HOME it owns), and checks what the
# profile promises: secrets read as EACCES (cat and ls), also through a
# symlink in $HOME into ~/.ssh and with ~/.ssh itself a symlink; masks
# cannot be chmod-ed or unmounted open; $HOME and the working directory
# are writable and nothing else is; /tmp is private; no capabilities.
# Prints "ok - ..." / "not ok - ..." per check; exits 0 when all pass.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${SANDMUX_BUILD:-$ROOT/build}
HELPER=${BWRAP_ARGV:-$BUILD_DIR/helpers/bwrap-argv}
SECRET="sandmux-secret-$$"
FAILED=0

ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	FAILED=1
}

if ! command -v bwrap >/dev/null 2>&1; then
	not_ok "bwrap is installed (apt-get install bubblewrap)"
	exit 1
fi
if [ ! -x "$HELPER" ]; then
	not_ok "helper $HELPER is built (make build-tests)"
	exit 1
fi

# Outside /tmp, so the homes are not under the sandbox's private /tmp.
T=$(mktemp -d /var/tmp/sandmux-native.XXXXXX)
chmod 755 "$T"
HOST_MARK=$(mktemp /tmp/sandmux-native-host.XXXXXX)
TMP_CWD=$(mktemp -d /tmp/sandmux-native-cwd.XXXXXX)
chmod 777 "$TMP_CWD"
cleanup() { rm -rf "$T" "$HOST_MARK" "$TMP_CWD"; }
trap cleanup EXIT INT TERM
cp "$HELPER" "$T/bwrap-argv"
chmod 755 "$T/bwrap-argv"

# Root runs the checks as root and as uid 65534; anyone else as themselves.
USERS="root nobody"
[ "$(id -u)" -eq 0 ] || USERS=self

# as WHO CMD...: run a host command as root, as uid 65534, or as is (self).
as() {
	who=$1
	shift
	if [ "$who" != nobody ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}

# setup WHO: a home whose ~/.ssh is a symlink to a key directory outside
# it, a symlink in $HOME to a key, ~/.aws, a work tree, a host directory
# the user may write (so a failed write there is the sandbox's doing) and
# the mode-000 mask file the backend would create.
setup() {
	d="$T/$1"
	mkdir -p "$d/home/.aws" "$d/keys" "$d/work" "$d/elsewhere"
	echo "$SECRET" >"$d/keys/id_ed25519"
	echo "$SECRET" >"$d/home/.aws/credentials"
	ln -s "$d/keys" "$d/home/.ssh"
	ln -s "$d/home/.ssh/id_ed25519" "$d/home/link-to-key"
	mkdir -p "$d/home/tokens"
	echo "$SECRET" >"$d/home/token.txt"
	echo "$SECRET" >"$d/home/tokens/.hidden.key"
	echo "$SECRET" >"$d/home/tokens/deploy.key"
	echo public >"$d/home/tokens/readme"
	: >"$d/mask"
	chmod 000 "$d/mask"
	chmod 700 "$d/keys" "$d/home/.aws"
	[ "$1" = nobody ] && chown -R 65534:65534 "$d"
}

# inside WHO CWD SCRIPT: run SCRIPT in the terminal-profile sandbox of WHO
# with the working directory CWD; stdout+stderr to stdout.
inside() {
	who=$1
	cwd=$2
	script=$3
	d="$T/$who"
	as "$who" env HOME="$d/home" PATH="$PATH" sh -c '
		argv=$("$1" --home "$2" --cwd "$3" --mask "$4" --deny "~/token.txt" \
			--deny "~/tokens/*.key" -- sh -c "$5") || exit 99
		cd "$3" || exit 99
		set --
		while IFS= read -r arg; do set -- "$@" "$arg"; done <<EOF
$argv
EOF
		exec "$@"' sh "$T/bwrap-argv" "$d/home" "$cwd" "$d/mask" "$script" 2>&1
}

# expect WHO DESC PATTERN SCRIPT: the output of SCRIPT matches PATTERN
expect() {
	out=$(inside "$1" "$T/$1/work" "$4")
	if printf '%s\n' "$out" | grep -q -- "$3"; then
		ok "$1: $2"
	else
		not_ok "$1: $2 (got: $(printf '%s' "$out" | tr '\n' '|'))"
	fi
	case $out in *"$SECRET"*) not_ok "$1: $2: the secret leaked" ;; esac
}

for who in $USERS; do
	setup "$who"
	d="$T/$who"
	h="$d/home"

	argv=$(as "$who" env HOME="$h" "$T/bwrap-argv" --home "$h" --cwd "$d/work" --mask "$d/mask" -- sh)
	if printf '%s\n' "$argv" | grep -qx -- --new-session; then
		not_ok "$who: argv has no --new-session (job control needs the pane's PTY)"
	else
		ok "$who: argv has no --new-session (job control needs the pane's PTY)"
	fi
	if printf '%s\n' "$argv" | grep -qx "$d/keys"; then
		ok "$who: the symlinked ~/.ssh is masked at its target too"
	else
		not_ok "$who: the symlinked ~/.ssh is masked at its target too"
	fi

	expect "$who" "the sandbox runs" "^alive$" 'echo alive'
	expect "$who" "cat ~/.ssh/id_ed25519 is EACCES" "Permission denied" \
		'cat "$HOME/.ssh/id_ed25519"'
	expect "$who" "ls ~/.ssh is EACCES" "Permission denied" 'ls "$HOME/.ssh"'
	expect "$who" "cat of the resolved key path is EACCES" "Permission denied" \
		"cat '$d/keys/id_ed25519'"
	expect "$who" "ls of the resolved key directory is EACCES" "Permission denied" \
		"ls '$d/keys'"
	expect "$who" "cat through a symlink in \$HOME into ~/.ssh is EACCES" \
		"Permission denied" 'cat "$HOME/link-to-key"'
	expect "$who" "cat ~/.aws/credentials is EACCES" "Permission denied" \
		'cat "$HOME/.aws/credentials"'
	expect "$who" "ls ~/.aws is EACCES" "Permission denied" 'ls "$HOME/.aws"'
	expect "$who" "cat of a denied file is EACCES" "Permission denied" \
		'cat "$HOME/token.txt"'
	expect "$who" "files matched by a deny glob are EACCES, dotfiles too" \
		"deploy.key: Permission denied" \
		'cat "$HOME/tokens/.hidden.key" && echo leaked; cat "$HOME/tokens/deploy.key"'
	expect "$who" "files a deny glob does not match stay readable" "^public$" \
		'cat "$HOME/tokens/readme"'
	expect "$who" "a file mask cannot be chmod-ed open" "Read-only file system" \
		'chmod 644 "$HOME/token.txt"'
	expect "$who" "a mask cannot be chmod-ed open" "Read-only file system" \
		'chmod 700 "$HOME/.aws"; cat "$HOME/.aws/credentials"'
	expect "$who" "replacing the ~/.ssh symlink does not uncover the keys" \
		"Permission denied" \
		"rm -f \"\$HOME/.ssh\" && ln -s '$d/keys' \"\$HOME/.ssh2\" && cat \"\$HOME/.ssh2/id_ed25519\""
	rm -f "$h/.ssh2"
	[ -L "$h/.ssh" ] || ln -s "$d/keys" "$h/.ssh"
	if command -v unshare >/dev/null 2>&1; then
		expect "$who" "a nested user namespace cannot unmount a mask" "^done$" \
			'unshare -rm sh -c "umount \"$HOME/.aws\"; cat \"$HOME/.aws/credentials\"" 2>/dev/null; echo done'
	fi
	expect "$who" "no capabilities inside" "CapEff:[[:space:]]*0*$" \
		'grep CapEff /proc/self/status'

	expect "$who" "\$HOME is writable" "^wrote$" 'echo x >"$HOME/written" && echo wrote'
	if [ -f "$h/written" ]; then ok "$who: the write to \$HOME reached the host"; else
		not_ok "$who: the write to \$HOME reached the host"; fi
	expect "$who" "the working directory is writable" "^wrote$" 'echo x >cwd-file && echo wrote'
	expect "$who" "a host directory the user owns is read-only" "Read-only file system" \
		"echo x >'$d/elsewhere/f'"
	expect "$who" "/etc is read-only" "Read-only file system\|Permission denied" \
		'echo x >/etc/sandmux-test'
	[ -e "$d/elsewhere/f" ] && not_ok "$who: nothing was written outside \$HOME and cwd"

	expect "$who" "/tmp is private (host files invisible)" "^private$" \
		"test ! -e '$HOST_MARK' && test -z \"\$(ls -A /tmp)\" && echo private"
	expect "$who" "/tmp is writable inside" "^wrote$" \
		'echo x >/tmp/inside-only && echo wrote'
	if [ -e /tmp/inside-only ]; then
		not_ok "$who: a file written to /tmp inside stays inside"
		rm -f /tmp/inside-only
	else
		ok "$who: a file written to /tmp inside stays inside"
	fi

	out=$(inside "$who" "$TMP_CWD" 'echo x >in-tmp-cwd && echo wrote')
	if [ "$out" = wrote ] && [ -f "$TMP_CWD/in-tmp-cwd" ]; then
		ok "$who: a working directory under /tmp stays writable"
	else
		not_ok "$who: a working directory under /tmp stays writable (got: $out)"
	fi
	rm -f "$TMP_CWD/in-tmp-cwd"
done

exit "$FAILED"
