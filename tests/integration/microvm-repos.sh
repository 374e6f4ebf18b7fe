#!/bin/sh
# A microvm guest root against the repositories of its work tree (issue
# 26): host-run components at any depth (hostrun.h: .git/hooks,
# .git/config, .vscode, ...) and everything in a `.git` but what
# everyday git writes (gitdir.h), in a nested repository there at
# launch and in one the guest makes.  The pane's shell is made guest
# root with every capability in a test-only way
# (SANDMUX_TEST_GUEST_ROOT), so nothing in the guest stands in the way:
# every check looks at the HOST's file afterwards, which only the work
# tree's diod and its guard (diod-guard.c) protect.  The work tree is a
# project directory, not $HOME (that one sits on the copy-on-write home).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
# Outside /tmp, which is private in the guest.
BASE=$(mktemp -d /var/tmp/sandmux-repos.XXXXXX)
trap 'cleanup; rm -rf "$BASE"' EXIT
HOME=$BASE/home
export HOME
mkdir -p "$HOME"
P=$BASE/proj   # the work tree, an outer repository
I=$P/sub/inner # a repository nested in it, there at launch
N=$P/made      # one the guest makes
hgit() { git -c user.name=host -c user.email=host@example.com "$@"; }
hgit init -q "$P"
mkdir -p "$P/sub" "$P/deep/er/.vscode"
hgit init -q "$I"
printf '#!/bin/sh\necho host-hook\n' >"$I/.git/hooks/pre-commit"
chmod 755 "$I/.git/hooks/pre-commit"
echo host-tasks >"$P/deep/er/.vscode/tasks.json"
echo readme >"$P/README"
hgit -C "$P" add README && hgit -C "$P" commit -qm first
touch -d 2001-01-01 "$I/.git/hooks/pre-commit"
HOOK=$(cat "$I/.git/hooks/pre-commit")
HOOK_STAT=$(stat -c '%a %Y %i' "$I/.git/hooks/pre-commit")
CONFIG=$(cat "$I/.git/config")
# Git directories by another name (gitdir.h, by shape): a
# --separate-git-dir target the host's .git file points at, and a bare
# repository.
hgit init -q --separate-git-dir "$P/store" "$P/sep"
hgit -C "$P/sep" commit -q --allow-empty -m first
hgit init -q --bare "$P/bare.git"
STORE_CONFIG=$(cat "$P/store/config")
# A secret's hard link made outside ~/.ssh before launch
# (linked-secret.h): the share must not serve its bytes.
mkdir -p "$HOME/.ssh"
echo "KEY-$$-SECRET" >"$HOME/.ssh/id_k"
ln "$HOME/.ssh/id_k" "$P/klink"
export SANDMUX_TEST_GUEST_ROOT=1 SANDMUX_MICROVM_PREPARE=0
cd "$P" || exit 1

# The guest's attacks, as scripts outside the work tree (the guest reads
# them through the host-root share): no quoting through send-keys.
mkdir -p "$BASE/bin"
# The guest's root is not the files' owner (they are the guest user's,
# uid 1000): git's ownership check, not the guard, would stop it.
SAFE="export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'"
cat >"$BASE/bin/hook.sh" <<EOS
h=$I/.git/hooks
echo evil >>\$h/pre-commit
true >\$h/pre-commit
truncate -s 0 \$h/pre-commit
chmod 777 \$h/pre-commit
touch -d 2020-02-02 \$h/pre-commit
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.evil", b"1")' \$h/pre-commit
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.evil", b"1")' $I/.git/info/exclude
echo evil >$P/evil
mv \$h/pre-commit $P/moved-hook
mv $P/evil \$h/pre-commit
rm -f \$h/pre-commit
ln $P/evil \$h/post-merge
ln \$h/pre-commit $P/hook-link
ln -s $P/evil \$h/post-checkout
mkfifo \$h/fifo
cd \$h && echo evil >/proc/self/cwd/pre-commit
cd \$h && echo evil >/proc/self/cwd/pre-push
ls \$h
EOS
cat >"$BASE/bin/config.sh" <<EOS
$SAFE
c=$I/.git/config
echo '[core] fsmonitor = touch $BASE/pwned' >>\$c
truncate -s 0 \$c
chmod 666 \$c
git -C $I config core.fsmonitor 'touch $BASE/pwned'
printf '[core]\n\tfsmonitor = touch $BASE/pwned\n' >$I/.git/config.lock && mv $I/.git/config.lock \$c
rm -f $I/.git/config.lock
mv $I/.git/hooks/pre-commit \$c
mkfifo $I/.git/config.lock && mv $I/.git/config.lock \$c
rm -f $I/.git/config.lock
python3 - \$c <<'EOP'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
m[0:1] = b"#"
m.flush()
print("mapped")
EOP
git -C $I config user.email guest@example.com && echo plain-key-set
EOS
cat >"$BASE/bin/new.sh" <<EOS
$SAFE
git init -q $N && echo initialised
mkdir -p $N/.git/hooks
printf '#!/bin/sh\ntouch $BASE/pwned\n' >$N/.git/hooks/pre-commit && chmod 755 $N/.git/hooks/pre-commit
git -C $N config core.hooksPath $BASE/bin
printf '[core]\n\tfsmonitor = touch $BASE/pwned\n' >$N/.git/config.lock && mv $N/.git/config.lock $N/.git/config
rm -f $N/.git/config.lock
echo 'gitdir: $BASE/bin' >$P/sub/.git
mkdir -p $P/fake/hooks && echo evil >$P/fake/hooks/pre-commit && mv $P/fake $P/sub/.git
mv $I/.git $P/stolen-gitdir
git init -q $P/third && echo '[x]' >$P/third/.git/commondir
EOS
cat >"$BASE/bin/shape.sh" <<EOS
printf '#!/bin/sh\ntouch $BASE/pwned\n' >$P/store/hooks/pre-commit; chmod 755 $P/store/hooks/pre-commit
echo '[core] fsmonitor = touch $BASE/pwned' >>$P/store/config
printf '#!/bin/sh\ntouch $BASE/pwned\n' >$P/bare.git/hooks/post-update
mkdir -p $P/born/hooks && printf '#!/bin/sh\ntouch $BASE/pwned\n' >$P/born/hooks/pre-commit
mkdir $P/born/objects && mkdir $P/born/refs && echo shaped
cat $P/klink
echo done
EOS
cat >"$BASE/bin/vscode.sh" <<EOS
echo evil >>$P/deep/er/.vscode/tasks.json
rm -f $P/deep/er/.vscode/tasks.json
mv $P/deep/er/.vscode $P/deep/er/old-vscode
mkdir -p $N/a/b/.vscode && echo evil >$N/a/b/.vscode/tasks.json
echo evil >$P/deep/.gitmodules
EOS
cat >"$BASE/bin/race.sh" <<EOS
end=\$((\$(date +%s) + 5))
( while [ \$(date +%s) -lt \$end ]; do
	ln -sfn $I/.git/hooks/pre-commit $P/race; rm -f $P/race; echo plain >$P/race; rm -f $P/race
done ) &
( while [ \$(date +%s) -lt \$end ]; do
	echo evil 2>/dev/null >$P/race; truncate -s 0 $P/race 2>/dev/null; chmod 777 $P/race 2>/dev/null
done ) &
wait
echo raced
EOS
cat >"$BASE/bin/git.sh" <<EOS
$SAFE
set -e
cd $P
git checkout -q -b guest-branch
echo work >work.txt
git add work.txt
git -c user.name=guest -c user.email=guest@example.com commit -qm 'from the guest'
git init -q $P/fresh
echo f >$P/fresh/f
git -C $P/fresh add f
git -C $P/fresh -c user.name=guest -c user.email=guest@example.com commit -qm fresh
echo everyday-ok
EOS

root_vm "$P"

hook_kept() {
	[ "$(cat "$I/.git/hooks/pre-commit")" = "$HOOK" ] &&
		[ "$(stat -c '%a %Y %i' "$I/.git/hooks/pre-commit")" = "$HOOK_STAT" ]
}
out=$(run "$vm" H "sh $BASE/bin/hook.sh 2>&1 | tr '\\n' '|'")
echo "# hook attempts: $out" | sed "s#$P#P#g"
check "a nested repository's hook survives write, truncate, chmod, touch, rename, unlink, /proc/self/cwd" hook_kept
check "no extended attribute on it, nor on its info/exclude" \
	python3 -c 'import os, sys; sys.exit(1 if any(os.listxattr(f) for f in sys.argv[1:]) else 0)' \
	"$I/.git/hooks/pre-commit" "$I/.git/info/exclude"
check "nothing made in its hooks/ by rename, link, symlink or mkfifo ($(ls "$I/.git/hooks" | grep -v sample | tr '\n' ' '))" \
	sh -c "[ \"\$(ls '$I/.git/hooks' | grep -v sample)\" = pre-commit ]"
check "nor a second name for it outside" sh -c "[ ! -e '$P/hook-link' ] && [ ! -e '$P/moved-hook' ]"

violation() { # ACTION TARGET
	grep '"kind":"violation"' "$XDG_STATE_HOME/sandmux/events.jsonl" 2>/dev/null |
		grep "\"pane\":$vm," | grep '"backend":"microvm"' | grep -F "\"action\":\"$1\"" |
		grep -qF "\"target\":\"$2\""
}
grep '"kind":"violation"' "$XDG_STATE_HOME/sandmux/events.jsonl" 2>/dev/null | grep -F "$I/.git/hooks" | grep -v pre-commit | head -5 | sed 's/^/# /'
check "the refusals are violation events of the pane" \
	wait_for 10 violation 'file-write*' "$I/.git/hooks/pre-commit"
check "a created hook is a file-write-create violation" \
	wait_for 10 violation file-write-create "$I/.git/hooks/post-checkout"

out=$(run "$vm" C "sh $BASE/bin/config.sh 2>&1 | tr '\\n' '|'")
echo "# config attempts: $out" | sed "s#$P#P#g"
check "its .git/config gains no fsmonitor by append, truncate, git config, a lock file's rename or mmap" \
	sh -c "! grep -q fsmonitor '$I/.git/config' && ! grep -q '^#' '$I/.git/config' && grep -q repositoryformatversion '$I/.git/config'"
check "its mode is kept ($(stat -c %a "$I/.git/config"))" [ "$(stat -c %a "$I/.git/config")" = 644 ]
check "but git config of a plain key works from the guest" \
	sh -c "echo '$out' | grep -q plain-key-set && grep -q guest@example.com '$I/.git/config'"

out=$(run "$vm" N "sh $BASE/bin/new.sh 2>&1 | tr '\\n' '|'")
echo "# new repository attempts: $out" | sed "s#$P#P#g"
check "git init of a new repository works in the guest" \
	sh -c "echo '$out' | grep -q initialised && [ -f '$N/.git/HEAD' ] && grep -q repositoryformatversion '$N/.git/config'"
check "its hooks cannot be made" sh -c "[ ! -e '$N/.git/hooks' ]"
check "nor its config given a hooksPath or an fsmonitor" \
	sh -c "! grep -qi -e hookspath -e fsmonitor '$N/.git/config'"
check "nor a commondir in a third one" sh -c "[ -d '$P/third/.git' ] && [ ! -e '$P/third/.git/commondir' ]"
check "no .git file, no directory moved in as .git, no .git moved away" \
	sh -c "[ ! -e '$P/sub/.git' ] && [ -d '$P/fake' ] && [ -d '$I/.git' ] && [ ! -e '$P/stolen-gitdir' ]"

out=$(run "$vm" V "sh $BASE/bin/vscode.sh 2>&1 | tr '\\n' '|'")
echo "# .vscode attempts: $out" | sed "s#$P#P#g"
check ".vscode/tasks.json at depth kept, .vscode neither moved nor made, no .gitmodules" \
	sh -c "[ \"\$(cat '$P/deep/er/.vscode/tasks.json')\" = host-tasks ] && [ ! -e '$P/deep/er/old-vscode' ] &&
		[ ! -e '$N/a/b/.vscode' ] && [ -d '$N/a/b' ] && [ ! -e '$P/deep/.gitmodules' ]"

out=$(run "$vm" S "sh $BASE/bin/shape.sh 2>&1 | tail -4")
check "a --separate-git-dir target's hooks and config kept: no hook made, config unchanged" \
	sh -c "[ ! -e '$P/store/hooks/pre-commit' ] && [ \"\$(cat '$P/store/config')\" = \"\$1\" ]" - "$STORE_CONFIG"
check "a bare repository's hooks kept" [ ! -e "$P/bare.git/hooks/post-update" ]
check "a directory with planted hooks does not take a git directory's shape" \
	sh -c "[ -d '$P/born/objects' ] && [ ! -e '$P/born/refs' ]"
check "a hard link of ~/.ssh/id_k is not served ($out)" \
	sh -c "echo '$out' | grep -q done && ! echo '$out' | grep -q 'KEY-$$-SECRET'"
check "... its refusal is a file-read* violation" wait_for 5 violation "file-read*" "$P/klink"
# The work tree's diod sees what it serves and what it runs on, not the
# rest of the host (a diod bug driven by the guest reaches nothing else).
work_diod=""
for d in $(pgrep -x diod); do
	tr '\0' ' ' <"/proc/$d/cmdline" 2>/dev/null | grep -q -- "-e $P\( \|\$\)" && work_diod=$d
done
check "the work tree's diod ($work_diod) sees the work tree but not the host's \$HOME" \
	sh -c "[ -n '$work_diod' ] && [ -e '/proc/$work_diod/root$P/README' ] &&
		[ ! -e '/proc/$work_diod/root$HOME/.ssh/id_k' ] && [ ! -e '/proc/$work_diod/root$HOME' ]"

out=$(run "$vm" R "sh $BASE/bin/race.sh")
check "a 5 s symlink-swap race leaves the hook as it was ($out)" \
	sh -c "echo '$out' | grep -q raced && [ \"\$(cat '$I/.git/hooks/pre-commit')\" = \"\$1\" ] &&
		[ \"\$(stat -c '%a %Y %i' '$I/.git/hooks/pre-commit')\" = \"\$2\" ]" - "$HOOK" "$HOOK_STAT"

out=$(run "$vm" G "sh $BASE/bin/git.sh 2>&1 | tail -3")
check "everyday git in the guest: checkout -b, add, commit, and init + commit of a new repository ($out)" \
	sh -c "echo '$out' | grep -q everyday-ok"
check "and the host's git sees them" \
	sh -c "[ \"\$(git -C '$P' log -1 --format=%s guest-branch)\" = 'from the guest' ] &&
		[ \"\$(git -C '$P/fresh' log -1 --format=%s)\" = fresh ] && git -C '$P' fsck --connectivity-only 2>/dev/null && git -C '$P/fresh' fsck --connectivity-only 2>/dev/null"
# The host's own git in each repository: a planted hook or
# core.fsmonitor would run now.
for repo in "$I" "$N" "$P/sep"; do
	git -C "$repo" status >/dev/null 2>&1
	hgit -C "$repo" commit -q --allow-empty -m host >/dev/null 2>&1
done
git --git-dir="$P/bare.git" log >/dev/null 2>&1
hgit -C "$P/sep" push -q "$P/bare.git" HEAD:refs/heads/host >/dev/null 2>&1
check "the host's git status, commit and push in each run nothing the guest planted" [ ! -e "$BASE/pwned" ]

sm kill-server >/dev/null 2>&1
finish
