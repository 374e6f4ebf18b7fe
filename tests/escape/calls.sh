#!/bin/sh
# Every call family judged on the final object (issue 25, item 3), and
# the session keyring.
#
# For a server run as root and one run as uid 65534, each with its own
# HOME and work tree, every attempt runs inside a native pane of the
# `terminal` profile and of `agent`, through the real server and the
# real bubblewrap.  The target is a hook of a repository nested in the
# work tree: no mount protects it, only the supervisor's write-deny
# (.git/hooks).  Each attempt is one syscall (progs/calls.c):
# truncate(2); chmod, fchmodat2, and fchmod on a read-only fd; chown and
# fchown on a read-only fd; utimensat and futimens on a read-only fd;
# setxattr, fsetxattr on a read-only fd, removexattr; bind(2) of a Unix
# socket at a hook's name.  The same calls on an ordinary file of the
# work tree, a Unix socket bound there and a TCP port bound, all done by
# the supervisor, still work.  Then rmdir(2) of an empty .git (its hooks
# and config lie below it), and a symlink, a FIFO and a hard link made
# where a protected path's missing ancestor would be (`.claude`, above
# `.claude/commands`).  The host then judges from outside: the hook's
# content, mode, owner, times (ctime included) and xattrs are what they
# were, or the name still does not exist, and the supervisor reported a
# file-write* violation naming it.
#
# In `agent` panes, new files named server.PEM, id.Key, .ENV, prod.Env
# are refused by the name rule (it ignores case).
#
# The keyring: the server is started in a session keyring holding a
# user key that only a possessor may see; the pane can neither read it
# (keyctl is refused) nor see it in /proc/keys (it no longer possesses
# the server's session keyring, and the supervisor, which does, does not
# open /proc/keys for it).
#
# Run against the code before this change (no notification for these
# calls, no keyring of the pane's own), every attempt succeeds and the
# host file changes: each check below then fails.
. "$(dirname "$0")/../lib.sh"
ESCAPE_DIR=$(cd "$(dirname "$0")" && pwd)

HOST_PATH=$PATH
. "$(dirname "$0")/../native-ctx.sh"
native_start calls bwrap cc setpriv
BIN="$W/bin"
mkdir -p "$BIN"
if ! cc -O1 -o "$BIN/calls" "$ESCAPE_DIR/progs/calls.c" 2>"$W/cc.log"; then
	not_ok "calls.c compiles"
	cat "$W/cc.log"
	finish
fi
CALLS="$BIN/calls"

# The wrapper every attempt runs through: output and status into $3.
cat >"$BIN/run" <<'EOF'
sh "$1/$2.sh" >"$3/$2.tmp" 2>&1
echo " rc=$?" >>"$3/$2.tmp"
mv "$3/$2.tmp" "$3/$2"
EOF

populate() {
	H="$D/home"
	WORK="$D/work"
	A="$D/attempts"
	mkdir -p "$WORK/.r" "$WORK/sub/.git/hooks" "$WORK/empty/.git" "$A"
	HOOK="$WORK/sub/.git/hooks/pre-commit"
	printf '#!/bin/sh\necho original hook\n' >"$HOOK"
	chmod 755 "$HOOK"
	"$CALLS" setxattr "$HOOK" >/dev/null
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	chmod 755 "$A"
	chmod 700 "$D/run"
}

# The hook as the host sees it: content, mode, owner, size, mtime,
# ctime (nanoseconds), and its xattr.
hook_state() {
	cksum <"$HOOK"
	stat -c '%a %u %g %s %y %z' "$HOOK"
	"$CALLS" getxattr "$HOOK" user.evil
}

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
pane_in() {
	sm split -t %1 -v -l 6 --backend native --profile "$1" -c "$WORK" -e PS1='$ ' \
		-- /bin/sh >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}
# attempt NAME < SCRIPT: run SCRIPT in pane $P; $OUT gets its output.
attempt() {
	n="$NAME-$PROF-$1"
	cat >"$A/$n.sh"
	chmod 644 "$A/$n.sh"
	rm -f "$WORK/.r/$n"
	sm send-keys -t "%$P" "sh $BIN/run $A $n $WORK/.r" Enter
	if wait_for 20 test -f "$WORK/.r/$n"; then
		OUT=$(cat "$WORK/.r/$n")
	else
		OUT="(no result within 20 s)"
	fi
}
absent() { for f in "$@"; do [ ! -e "$f" ] && [ ! -L "$f" ] || return 1; done; }
events() { sm events --json 2>/dev/null | grep '"kind":"violation"' | grep -F "\"pane\":$P,"; }
# reported SYSCALL TARGET: a file-write* violation of this pane, by that
# call, names TARGET.
reported() {
	events | grep -F '"action":"file-write*"' | grep -F "\"syscall\":\"$1\"" |
		grep -qF "\"target\":\"$2\""
}
# reported_times N TARGET: the file-write* refusals naming TARGET add up
# to N (a line the server folded stands for its "count" of them).
reported_times() {
	events | grep -F '"action":"file-write*"' | grep -F "\"target\":\"$2\"" |
		awk -v n="$1" '{ c = 1; if (match($0, /"count":[0-9]+/)) c = substr($0, RSTART + 8, RLENGTH - 8); t += c }
			END { exit t != n }'
}
# verdict WHAT SYSCALL TARGET CHECK...: the call failed in the pane, the
# host held (CHECK), and the refusal was reported.
verdict() {
	what=$1 call=$2 target=$3
	shift 3
	if printf '%s\n' "$OUT" | grep -q " rc=[1-9]" && "$@"; then
		ok "$TAG: $what: refused, the host is unchanged"
	else
		not_ok "$TAG: $what: refused, the host is unchanged"
		printf '%s\n' "$OUT" | head -c 600 | sed 's/^/#   /'
	fi
	check "$TAG: $what: reported file-write* by $call on $target" wait_for 3 reported "$call" "$target"
}
hook_held() { [ "$(hook_state 2>&1)" = "$BEFORE" ]; }

attempts() {
	TAG="$NAME/$PROF"
	BEFORE=$(hook_state 2>&1)
	# threat: a nested repository's hook emptied (issue 25)
	attempt truncate <<EOF
$CALLS truncate $HOOK
EOF
	verdict "truncate(2) a nested hook" truncate "$HOOK" hook_held
	# threat: the hook disarmed, by name or through a read-only fd
	attempt chmod <<EOF
$CALLS chmod $HOOK 644
EOF
	verdict "chmod -x a nested hook" chmod "$HOOK" hook_held
	attempt fchmodat2 <<EOF
$CALLS fchmodat2 $HOOK 644
EOF
	verdict "fchmodat2 a nested hook" fchmodat2 "$HOOK" hook_held
	attempt fchmod <<EOF
$CALLS fchmod $HOOK 644
EOF
	verdict "fchmod a nested hook through a read-only fd" fchmod "$HOOK" hook_held
	# threat: its owner, times and extended attributes changed
	attempt chown <<EOF
$CALLS chown $HOOK
EOF
	verdict "chown a nested hook" chown "$HOOK" hook_held
	attempt fchown <<EOF
$CALLS fchown $HOOK
EOF
	verdict "fchown a nested hook through a read-only fd" fchown "$HOOK" hook_held
	attempt utimes <<EOF
$CALLS utimes $HOOK
EOF
	verdict "utimensat a nested hook" utimensat "$HOOK" hook_held
	attempt futimens <<EOF
$CALLS futimens $HOOK
EOF
	verdict "futimens a nested hook through a read-only fd" utimensat "$HOOK" hook_held
	attempt setxattr <<EOF
$CALLS setxattr $WORK/sub/.git/hooks
EOF
	verdict "setxattr on a nested .git/hooks" setxattr "$WORK/sub/.git/hooks" \
		sh -c "! '$CALLS' getxattr '$WORK/sub/.git/hooks' user.evil"
	attempt fsetxattr <<EOF
$CALLS fsetxattr $WORK/sub/.git/hooks
EOF
	verdict "fsetxattr on a nested .git/hooks through a read-only fd" fsetxattr \
		"$WORK/sub/.git/hooks" sh -c "! '$CALLS' getxattr '$WORK/sub/.git/hooks' user.evil"
	attempt removexattr <<EOF
$CALLS removexattr $HOOK user.evil
EOF
	verdict "removexattr on a nested hook" removexattr "$HOOK" hook_held
	# threat: a socket at a protected name (what a host tool connects to)
	attempt bind <<EOF
$CALLS bind $WORK/sub/.git/hooks/post-checkout
EOF
	verdict "bind(2) a Unix socket at a nested hook's name" bind \
		"$WORK/sub/.git/hooks/post-checkout" absent "$WORK/sub/.git/hooks/post-checkout"
	# threat: a directory holding protected paths removed, so that
	# something else (a symlink out) can take its place
	attempt rmdir <<EOF
rmdir $WORK/empty/.git
EOF
	verdict "rmdir(2) an empty .git (hooks and config below it)" rmdir "$WORK/empty/.git" \
		test -d "$WORK/empty/.git"
	# threat: a name made where a protected path's missing ancestor
	# would be: .claude -> elsewhere makes .claude/commands writable
	mkdir -p "$WORK/up-$PROF-$NAME"
	[ "$WHO" = nobody ] && chown 65534:65534 "$WORK/up-$PROF-$NAME"
	U="$WORK/up-$PROF-$NAME"
	attempt above <<EOF
mkdir -p $WORK/x-$PROF && ln -s $WORK/x-$PROF $U/.claude
echo a >$U/f; mkfifo $U/.claude; ln $U/f $U/.claude; test -e $U/.claude
EOF
	verdict "symlink, mkfifo, link at .claude (above .claude/commands)" symlinkat "$U/.claude" \
		absent "$U/.claude"
	# The three name the same target within a second: the server logs
	# the symlink's, folds the mkfifo's and the link's into one line
	# with count 2 (docs/security.md, "Evidence a flood cannot erase").
	check "$TAG: ... the mkfifo reported (three refusals on .claude in all)" \
		wait_for 3 reported_times 3 "$U/.claude"
	check "$TAG: ... the link reported" wait_for 3 reported linkat "$U/.claude"
}

# threat: a secret the agent profile's name rule means to keep out,
# made under another case (the rule matched case-sensitively)
create_reported() {
	events | grep -F '"action":"file-write-create"' | grep -qF "\"target\":\"$1\""
}
case_names() {
	C="$WORK/case-$NAME"
	mkdir -p "$C"
	[ "$WHO" = nobody ] && chown 65534:65534 "$C"
	attempt case <<EOF
cd $C; echo k >server.PEM; echo k >id.Key; echo k >.ENV; echo k >prod.Env
EOF
	if absent "$C/server.PEM" "$C/id.Key" "$C/.ENV" "$C/prod.Env"; then
		ok "$TAG: server.PEM, id.Key, .ENV, prod.Env are not made"
	else
		not_ok "$TAG: server.PEM, id.Key, .ENV, prod.Env are not made"
		ls -A "$C" | sed 's/^/#   /'
	fi
	check "$TAG: ... server.PEM reported as file-write-create" wait_for 3 create_reported "$C/server.PEM"
}

# What the rules allow still works, done by the supervisor: the same
# calls on an ordinary file of the work tree take effect on the host,
# and binds (a Unix socket in the work tree, a TCP port) succeed.
allowed() {
	F="$WORK/plain-$PROF"
	printf 'some text\n' >"$F"
	chmod 644 "$F"
	[ "$WHO" = nobody ] && chown 65534:65534 "$F"
	rm -f "$WORK/ok-$PROF.sock"
	attempt allowed <<EOF
$CALLS chmod $F 750 && $CALLS fchmod $F 751 && $CALLS setxattr $F && $CALLS chown $F &&
	$CALLS truncate $F && $CALLS utimes $F && $CALLS bind $WORK/ok-$PROF.sock && $CALLS bindtcp -
EOF
	if printf '%s\n' "$OUT" | grep -q " rc=0" && [ "$(stat -c '%a %s %Y' "$F")" = "751 0 0" ] &&
		"$CALLS" getxattr "$F" user.evil >/dev/null && [ -S "$WORK/ok-$PROF.sock" ]; then
		ok "$TAG: allowed chmod, fchmod, utimensat, setxattr, chown, truncate, bind (Unix, TCP) take effect"
	else
		not_ok "$TAG: allowed chmod, fchmod, utimensat, setxattr, chown, truncate, bind (Unix, TCP) take effect"
		printf '%s\n' "$OUT" | sed 's/^/#   /'
		stat -c '#   %a %s %Y' "$F"
	fi
}

keyring() {
	attempt keyring <<EOF
$CALLS keyread $(cat "$D/keyid")
cat /proc/keys
EOF
	if printf '%s\n' "$OUT" | grep -q "keyread: EPERM" &&
		! printf '%s\n' "$OUT" | grep -q "payload:\|sandmux-test-key"; then
		ok "$TAG: the server's session keyring is out of reach (keyctl refused, not in /proc/keys)"
	else
		not_ok "$TAG: the server's session keyring is out of reach (keyctl refused, not in /proc/keys)"
		printf '%s\n' "$OUT" | sed 's/^/#   /'
	fi
}

for who in root nobody; do
	ctx "$who" "$who"
	populate
	# The server in a session keyring of its own, holding a key.
	"$CALLS" keyrun sandmux-test-key "key-secret-$$" "$D/keyid" \
		env HOME="$D/home" XDG_RUNTIME_DIR="$D/run" XDG_STATE_HOME="$D/state" \
		XDG_CONFIG_HOME="$D/config" PATH="$SM_PATH" SHELL=/bin/sh \
		$AS "$SANDMUX_BIN" -L "$NAME" new -d -s calls -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	for PROF in terminal agent; do
		P=$(pane_in "$PROF")
		if ! field_is "$P" backend native; then
			not_ok "$NAME/$PROF: a native pane starts ($(pane_field "$P" reason))"
			continue
		fi
		attempts
		allowed
		keyring
		[ "$PROF" = agent ] && case_names
	done
	sm kill-server >/dev/null 2>&1
done
finish
