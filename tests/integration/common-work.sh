#!/bin/sh
# Common work in a native pane of the `terminal` profile, with the
# host-run files read-only (docs/security.md, "Host-run files"): git
# init, commit, clone (from a local repository), `git config` of a plain
# key and a push; `npm install` of a local tarball; `pip install` of a
# local package into a virtualenv; `cargo build` of a local crate; an
# editor writing its own files (vim: the edited file, ~/.viminfo; a
# ~/.cache file).  Offline: everything is local.  Run by a server as
# root and one as uid 65534.  Afterwards, from the host: every result is
# there, and none of the host-run names that did not exist before was
# created in $HOME (no stub "ghost" dotfiles, by bwrap or anyone).
. "$(dirname "$0")/../lib.sh"

# Debian's tools, not whatever a developer has under ~/.cargo or pyenv.
HOST_PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
. "$(dirname "$0")/../native-ctx.sh"
native_start common-work bwrap socat setpriv git

# The host-run names a pane must never leave behind in $HOME.
GHOSTS=".bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zshenv .zprofile
.gitconfig .config/git .local/bin bin .config/systemd .config/autostart .npmrc .cargo/config.toml
.cargo/bin .config/pip .vimrc .vim .ssh .aws .gnupg .config/gh .config/sandmux .local/state/sandmux"

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
# step NAME WHAT [TIMEOUT] < SCRIPT: run SCRIPT in the terminal pane $P,
# ok when it exits 0 within TIMEOUT seconds (default 60).
step() {
	cat >"$W/steps/$NAME-$1.sh"
	chmod 644 "$W/steps/$NAME-$1.sh"
	rm -f "$WORK/.r/$1"
	sm send-keys -t "%$P" "sh $W/steps/$NAME-$1.sh >$WORK/.r/$1.out 2>&1; echo \$? >$WORK/.r/$1" Enter
	if wait_for "${3:-60}" test -s "$WORK/.r/$1" && [ "$(cat "$WORK/.r/$1")" = 0 ]; then
		ok "$NAME: $2"
	else
		not_ok "$NAME: $2 (status $(cat "$WORK/.r/$1" 2>/dev/null || echo none))"
		tail -n 15 "$WORK/.r/$1.out" 2>/dev/null | sed 's/^/#   /'
	fi
}

mkdir -p "$W/steps"
chmod 755 "$W/steps"
for who in root nobody; do
	ctx "$who" "$who" "$HOST_PATH"
	H="$D/home"
	WORK="$D/work"
	LAYER="$D/state/sandmux/home-layer"
	mkdir -p "$WORK/.r" "$WORK/src"
	# The local things to install: a repository with a commit, an npm
	# package's tarball, a Python package, a crate with no dependencies.
	git init -q "$WORK/src/origin"
	echo hello >"$WORK/src/origin/README"
	git -C "$WORK/src/origin" add README
	git -C "$WORK/src/origin" -c user.name=h -c user.email=h@h commit -q -m first
	git init -q --bare "$WORK/src/bare.git"
	mkdir -p "$WORK/src/npmpkg" "$WORK/src/pypkg/localpy"
	printf '{"name":"localpkg","version":"1.0.0","main":"index.js"}\n' >"$WORK/src/npmpkg/package.json"
	echo 'module.exports = 42;' >"$WORK/src/npmpkg/index.js"
	printf 'from setuptools import setup\nsetup(name="localpy", version="1.0", packages=["localpy"])\n' \
		>"$WORK/src/pypkg/setup.py"
	echo 'ANSWER = 42' >"$WORK/src/pypkg/localpy/__init__.py"
	chown -R "$( [ "$who" = nobody ] && echo 65534:65534 || echo 0:0)" "$D"
	chmod 700 "$D/run"
	sm new -d -s cw -x 160 -y 50 -c "$WORK" -- /bin/sh >/dev/null
	sm split -t %1 -v --backend native -c "$WORK" -e PS1='$ ' -- /bin/sh >/dev/null 2>&1
	P=$(newest_pane)
	if ! wait_for 10 field_is "$P" state warm || ! field_is "$P" backend native; then
		not_ok "$NAME: a terminal native pane starts ($(pane_field "$P" reason))"
		sm kill-server >/dev/null 2>&1
		continue
	fi
	step git "git init, commit, clone from a local repository, config, commit, push" <<EOF
set -e
cd $WORK
git init -q mine && cd mine
echo one >file && git add file && git -c user.name=p -c user.email=p@p commit -q -m one
cd $WORK
git clone -q $WORK/src/origin clone && cd clone
git config user.name pane && git config user.email pane@example.com
echo two >>README && git commit -q -am two
git remote add bare $WORK/src/bare.git && git push -q -u bare HEAD:main
git status --short
EOF
	check "$NAME: git's results are on the host" sh -c "
		git -C '$WORK/mine' -c safe.directory='*' log --oneline | grep -q one &&
		git -C '$WORK/clone' -c safe.directory='*' log --oneline | grep -q two &&
		git -C '$WORK/src/bare.git' -c safe.directory='*' log --oneline main | grep -q two &&
		[ \"\$(git -C '$WORK/clone' -c safe.directory='*' config user.email)\" = pane@example.com ]"
	check "$NAME: no hooks were made (empty template)" \
		sh -c "[ ! -e '$WORK/mine/.git/hooks' ] && [ ! -e '$WORK/clone/.git/hooks' ]"
	if command -v npm >/dev/null 2>&1; then
		step npm "npm install of a local package tarball, offline" 120 <<EOF
set -e
cd $WORK/src/npmpkg && npm pack --silent >/dev/null
mkdir -p $WORK/app && cd $WORK/app
printf '{"name":"app","version":"1.0.0"}\n' >package.json
npm install --offline --no-audit --no-fund --silent $WORK/src/npmpkg/localpkg-1.0.0.tgz
node -e 'process.exit(require("localpkg") === 42 ? 0 : 1)'
EOF
	else
		not_ok "$NAME: npm is installed (tests/deps.sh)"
	fi
	step pip "pip install of a local package into a virtualenv, no index" 180 <<EOF
set -e
cd $WORK && python3 -m venv venv
venv/bin/pip install -q --no-index --no-build-isolation $WORK/src/pypkg
venv/bin/python -c 'import localpy; assert localpy.ANSWER == 42'
EOF
	if command -v cargo >/dev/null 2>&1; then
		step cargo "cargo build of a local crate, offline" 300 <<EOF
set -e
cd $WORK && cargo new -q --vcs none hello && cd hello && cargo build -q --offline
./target/debug/hello | grep -q 'Hello, world'
EOF
	else
		not_ok "$NAME: cargo is installed (tests/deps.sh)"
	fi
	step editor "an editor writes its file and its own state (vim, ~/.viminfo, ~/.cache)" <<EOF
set -e
cd $WORK
vim -N -u NONE -i $H/.viminfo -c 'normal ihello from vim' -c 'wq' edited.txt </dev/null >/dev/null 2>&1
grep -q 'hello from vim' edited.txt
mkdir -p $H/.cache/editor && echo state >$H/.cache/editor/state
EOF
	# The work tree is real; $HOME is the copy-on-write layer: the
	# editor's state is there for the next pane, the host's is left.
	check "$NAME: the editor's file is on the host, its state in the home layer" \
		sh -c "[ -s '$WORK/edited.txt' ] && [ ! -e '$H/.viminfo' ] && [ ! -e '$H/.cache/editor/state' ] &&
			ls '$LAYER'/*/upper/.viminfo '$LAYER'/*/upper/.cache/editor/state >/dev/null"
	ghosts=""
	for g in $GHOSTS; do
		[ -e "$H/$g" ] || [ -L "$H/$g" ] && ghosts="$ghosts $g"
	done
	check "$NAME: no host-run file appeared in \$HOME (ghost dotfiles:${ghosts:- none})" \
		[ -z "$ghosts" ]
	sm kill-server >/dev/null 2>&1
done
finish
