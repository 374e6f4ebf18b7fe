#!/bin/sh
# The native backend through the real server and the real bubblewrap.
#
# native.sh checks the bwrap argv alone; this drives panes over the
# socket: a `none` and a `native` pane side by side, checked from inside
# their shells, once with the server running as root and once as uid
# 65534 (with HOME and XDG dirs it owns).  Then the label truth matrix
# (no bwrap on PATH, a bwrap that exits 1, a bwrap whose mount fails
# after it reported the child pid, a bwrap that never runs the command,
# --sandbox off, unknown names), the lifecycle and its events, and the
# config's default_backend.  Every case must end with a label equal to
# what really runs, or FAILED.  (Stored "docker" -> native is
# backend_from_name, covered in tests/unit/test_sandbox.c: no stored
# layout path exists yet.)
. "$(dirname "$0")/../lib.sh"

REAL_BWRAP=$(command -v bwrap)
HOST_PATH=$PATH
# Outside /tmp: the sandbox has a private /tmp, and homes, work trees and
# bwrap stand-ins must be the same path inside and out.
. "$(dirname "$0")/../native-ctx.sh"
native_start native-server bwrap socat setpriv
cd "$W" || exit 1
FOLLOWERS=""
SECRET="sandmux-secret-$$"

cleanup_all() {
	for f in $FOLLOWERS; do kill "$f" 2>/dev/null; done
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	rm -f "$HOST_MARK"
	native_cleanup
}
trap cleanup_all EXIT

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
# has TEXT PATTERN / lacks TEXT PATTERN: fixed-string match on a value.
has() { printf '%s\n' "$1" | grep -qF -- "$2"; }
lacks() { ! has "$@"; }
denied() { has "$1" 'Permission denied' && lacks "$1" "$SECRET"; }
contained() {
	has "$1" user: && has "$1" pid: && lacks "$1" "$HOST_USERNS" && lacks "$1" "$HOST_PIDNS"
}
failed() { field_is "$1" state error && field_is "$1" backend null; }
reason_has() { pane_field "$1" reason | grep -qF -- "$2"; }
pane_count() { sm ls --json | grep -c '"id":'; }
# new_pane ARGS...: split the first pane, print the new pane's number.  A
# pane whose sandbox could not start still exists (FAILED), but split
# then reports the error instead of the pane: take the newest id.
new_pane() {
	sm split -t %1 -v -l 20 "$@" >/dev/null 2>&1
	sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1
}
# probe PANE TAG COMMAND: run COMMAND in the pane's shell and print its
# output and status on one line: "...output... rc=N".  The typed line
# shows "TAG"=..., the answer TAG=[...], so only the answer matches.
N_PROBE=0
probe() {
	N_PROBE=$((N_PROBE + 1))
	tag="$2$N_PROBE"
	sm send-keys -t "%$1" "r=\$( { $3 ; echo \" rc=\$?\"; } 2>&1 | tr '\\n' ' '); echo \"$tag\"=\"[\$r]\"" Enter
	wait_for 10 capture_has "%$1" "$tag=["
	sm capture -t "%$1" -S - | sed -n "s/^$tag=\[\(.*\)\]\$/\1/p" | tail -1
}
# follow SESSION: start `events --follow --json` into $D/events; wait until
# subscribed: the backlog, sent once the subscription is live, holds SESSION's start.
follow() {
	sm events --follow --json >"$D/events" 2>&1 &
	FOLLOWERS="$FOLLOWERS $!"
	wait_for 5 grep -q "\"session\":\"$1\"" "$D/events"
}
# port_listens PORT: a TCP socket listens on 127.0.0.1:PORT
port_listens() { ss -Hltn | awk '{ print $4 }' | grep -qxF "127.0.0.1:$1"; }
event_seen() { grep "\"kind\":\"$2\"" "$D/events" | grep -q "\"pane\":$1[,}]"; }
exit_event() { grep '"kind":"exit"' "$D/events" | grep "\"pane\":$1[,}]" | grep -q "\"exitCode\":$2[,}]"; }

SHELL_CMD="/bin/bash --norc --noprofile"

# --- isolation, as root and as uid 65534 ---------------------------------
HOST_MARK=$(mktemp /tmp/sandmux-host-mark.XXXXXX)
HOST_USERNS=$(readlink /proc/self/ns/user)
HOST_PIDNS=$(readlink /proc/self/ns/pid)
PORT=$((20000 + $$ % 20000))
LISTENER=""

isolation_checks() {
	who=$1
	ctx "iso-$who" "$who"
	h="$D/home"
	mkdir -p "$D/keys" "$h/.aws" "$D/elsewhere"
	echo "$SECRET" >"$D/keys/id_ed25519"
	echo "$SECRET" >"$h/.aws/credentials"
	# ~/.ssh is itself a symlink out of HOME; a link in HOME points into it.
	ln -s "$D/keys" "$h/.ssh"
	ln -s "$h/.ssh/id_ed25519" "$h/link-to-key"
	chmod 700 "$D/keys" "$h/.aws"
	chmod 777 "$D/elsewhere"
	[ "$who" = nobody ] && chown -R 65534:65534 "$D"

	sm new -d -s iso -x 200 -y 50 -c "$D/work" -e PS1='$ ' -- $SHELL_CMD >/dev/null
	nat=$(new_pane --backend native -c "$D/work" -e PS1='$ ' -- $SHELL_CMD)
	wait_for 10 field_is "$nat" state warm
	check "[$who] the host pane is labelled none" field_is 1 backend none
	check "[$who] the native pane is labelled native once running" field_is "$nat" backend native
	out=$(probe 1 NS 'readlink /proc/self/ns/user')
	check "[$who] the host shell is on the host (same user namespace)" has "$out" "$HOST_USERNS"
	out=$(probe "$nat" NS 'readlink /proc/self/ns/user /proc/self/ns/pid')
	check "[$who] the native shell is in its own user and pid namespaces" contained "$out"

	out=$(probe 1 RD 'cat ~/.ssh/id_ed25519')
	check "[$who] none: the secret is readable" has "$out" "$SECRET"
	for path in '~/.ssh/id_ed25519' '~/link-to-key' "$D/keys/id_ed25519" '~/.aws/credentials'; do
		out=$(probe "$nat" RD "cat $path")
		check "[$who] native: cat $path fails with EACCES" denied "$out"
	done
	out=$(probe "$nat" LS 'ls ~/.ssh/')
	check "[$who] native: ls ~/.ssh/ fails with EACCES (not an empty dir)" denied "$out"

	out=$(probe "$nat" WR "echo x >$D/elsewhere/written")
	check "[$who] native: a write outside HOME and cwd fails" \
		sh -c "[ ! -e '$D/elsewhere/written' ]"
	check "[$who] native: ... as a failed write (rc=1)" has "$out" "rc=1"
	probe "$nat" WR 'echo x >/etc/sandmux-native-test' >/dev/null
	check "[$who] native: a write to /etc fails" [ ! -e /etc/sandmux-native-test ]
	out=$(probe "$nat" WR "echo x >~/in-home && echo x >$D/work/in-work && cat ~/in-home")
	# $HOME is the copy-on-write layer (docs/security.md): the write
	# succeeds inside, lands in the layer, and the host's home is left.
	check "[$who] native: HOME and the working directory are writable" \
		sh -c "[ -f '$D/work/in-work' ] && [ ! -e '$D/home/in-home' ]" && check "[$who] native: ... \$HOME through its layer (the pane reads back its write)" has "$out" "x  rc=0"

	out=$(probe "$nat" TMP "ls $HOST_MARK; echo inner >/tmp/sandmux-inner-$$")
	check "[$who] native: /tmp is private (the host's file is not there)" has "$out" "No such file"
	check "[$who] native: /tmp is private (the pane's file stays inside)" \
		[ ! -e "/tmp/sandmux-inner-$$" ]

	rm -f "$W/net-$who"
	socat -u "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" "CREATE:$W/net-$who" &
	LISTENER=$!
	wait_for 5 port_listens "$PORT"
	probe "$nat" NET "echo net-ok-$who >/dev/tcp/127.0.0.1/$PORT" >/dev/null
	wait_for 5 grep -q "net-ok-$who" "$W/net-$who"
	check "[$who] native: network works (loopback to a host listener)" \
		grep -q "net-ok-$who" "$W/net-$who"
	kill "$LISTENER" 2>/dev/null
	LISTENER=""

	# Job control: bwrap runs without --new-session, the PTY stays the
	# shell's controlling terminal.
	sm send-keys -t "%$nat" 'sleep 100' Enter
	check "[$who] native: a foreground job makes the pane active" wait_for 5 field_is "$nat" state active
	sm send-keys -t "%$nat" C-z
	check "[$who] native: C-z stops the job" wait_for 5 capture_has "%$nat" Stopped
	check "[$who] native: the shell is back in front (warm)" wait_for 5 field_is "$nat" state warm
	sm send-keys -t "%$nat" fg Enter
	check "[$who] native: fg resumes it in front" wait_for 5 field_is "$nat" state active
	sm send-keys -t "%$nat" C-c
	check "[$who] native: C-c ends the foreground job" wait_for 5 field_is "$nat" state warm
	sm send-keys -t "%$nat" 'echo "J"C=$?' Enter
	check "[$who] native: the job died of SIGINT (status 130)" wait_for 5 capture_has "%$nat" JC=130
	sm kill-server >/dev/null 2>&1
}

isolation_checks "$(id -u | sed 's/^0$/root/;s/^[1-9].*/self/')"
[ "$(id -u)" -eq 0 ] && isolation_checks nobody

# --- label truth matrix ----------------------------------------------------
# no bwrap (and no socat) on the server's PATH: the probe says so, a
# native request fails with the install hint.
mkdir -p "$W/bin-empty"
ctx nobwrap self "$W/bin-empty"
sm new -d -s m -x 200 -y 200 -- /bin/sh >/dev/null
pj=$(sm probe --json)
check "no bwrap: probe --json has available false, requiresInstall true" \
	sh -c "echo '$pj' | tr -d ' \t\n' | grep -q '\"available\":false,\"requiresInstall\":true'"
check "no bwrap: the startup line names the packages" \
	wait_for 10 grep -q 'sandbox: no OS-native sandbox on this host (install: apt-get install bubblewrap socat)' \
	"$D/state/sandmux/server-$NAME.log"
p=$(new_pane --backend native -- /bin/sh)
check "no bwrap: the native pane is FAILED (state error, no label)" failed "$p"
check "no bwrap: requested native is kept for the record" field_is "$p" requested native
check "no bwrap: the hint is apt-get install bubblewrap socat" \
	field_is "$p" hint "apt-get install bubblewrap socat"
check "no bwrap: no process runs for it" field_is "$p" pid 0

# A bwrap stand-in: passes the probe through to the real one, then
# misbehaves on the launch (the only call with --json-status-fd) the way
# $W/standin-mode says.  It records the pid it was started as.
mkdir -p "$W/bin-standin"
cat >"$W/bin-standin/bwrap" <<EOF
#!/bin/sh
case " \$* " in *" --json-status-fd "*) ;; *) exec $REAL_BWRAP "\$@" ;; esac
echo \$\$ >"$W/standin.pid"
case \$(cat "$W/standin-mode") in
exit1) echo "bwrap-standin: refusing to sandbox" >&2; exit 1 ;;
silent) exec sleep 60 ;;
mountfail) exec $REAL_BWRAP --bind /nonexistent-sandmux-source /mnt "\$@" ;;
stuck) exec 9<>"$W/block.fifo"; exec $REAL_BWRAP --block-fd 9 "\$@" ;;
esac
exec $REAL_BWRAP "\$@"
EOF
chmod 755 "$W/bin-standin/bwrap"
mkfifo "$W/block.fifo"
ctx standin self "$W/bin-standin:$HOST_PATH"
echo pass >"$W/standin-mode"
sm new -d -s m -x 200 -y 200 -- /bin/sh >/dev/null
follow m
# gone PID: neither PID nor anything in the session it led is alive.
gone() { ! kill -0 "$1" 2>/dev/null && ! ps -e -o sid= | grep -qx " *$1"; }

standin_case() { # MODE DESCRIPTION REASON-TEXT SECONDS
	echo "$1" >"$W/standin-mode"
	rm -f "$W/standin.pid"
	p=$(new_pane --backend native -- $SHELL_CMD)
	wait_for "$4" field_is "$p" state error
	check "$2: FAILED (state error, backend null)" failed "$p"
	check "$2: never labelled on the way (no ready event)" sh -c "! grep '\"kind\":\"ready\"' '$D/events' | grep -q '\"pane\":$p[,}]'"
	check "$2: the reason says why ($(pane_field "$p" reason))" reason_has "$p" "$3"
	check "$2: an error event was emitted" wait_for 2 event_seen "$p" error
	spid=$(cat "$W/standin.pid" 2>/dev/null)
	check "$2: no process left" wait_for 3 gone "${spid:-1}"
	sm kill-pane -t "%$p" >/dev/null 2>&1
}
standin_case exit1 "bwrap exits 1" "bubblewrap exited before running the command: bwrap-standin: refusing" 5
standin_case mountfail "mount fails after child-pid" "Can't find source path /nonexistent-sandmux-source" 5
echo stuck >"$W/standin-mode"
p=$(new_pane --backend native -- $SHELL_CMD)
# The time passing is the thing under test: no label comes.
sleep 1
check "child-pid reported but the command never ran: still unlabelled after 1 s" \
	sh -c "[ '$(pane_field "$p" state)' = created ] && [ '$(pane_field "$p" backend)' = null ]"
sm kill-pane -t "%$p" >/dev/null
standin_case stuck "bwrap stuck before exec" "did not start the command within" 9
standin_case silent "bwrap never reports a sandbox" "it never reported a sandbox" 9
echo pass >"$W/standin-mode"
p=$(new_pane --backend native --remain -- /bin/sh -c 'exit 7')
wait_for 5 event_seen "$p" exit
check "a command that exits at once still confirms (ready event)" event_seen "$p" ready
check "and its exit status is the command's (exit event, exitCode 7)" exit_event "$p" 7
sm kill-server >/dev/null 2>&1

# --sandbox off: the host could, this server will not.
ctx off self
sm server --sandbox off >/dev/null 2>&1
wait_for 5 sm ls
sm new -d -s m -x 200 -y 200 -- /bin/sh >/dev/null
# The probe runs beside the first requests: its line comes when it ends.
check "--sandbox off: the startup line says DISABLED" \
	wait_for 10 grep -q 'sandbox: DISABLED by --sandbox off' "$D/state/sandmux/server-$NAME.log"
for b in native microvm; do
	p=$(new_pane --backend $b -- /bin/sh)
	check "--sandbox off: $b is FAILED" failed "$p"
	check "--sandbox off: $b's reason is \"disabled by --sandbox off\"" \
		reason_has "$p" "disabled by --sandbox off"
done
p=$(new_pane -- /bin/sh)
check "--sandbox off: none still works" field_is "$p" backend none
# unknown backend names are refused outright; no pane is made.
before=$(pane_count)
out=$(sm split -t %1 --backend docker -- /bin/sh 2>&1)
check "unknown backend on the CLI: invalid_backend listing the valid ones" \
	sh -c "echo '$out' | grep -q invalid_backend && echo '$out' | grep -q 'none, native, microvm'"
out=$(sm ctl '{"id":1,"cmd":"split","pane":1,"backend":"bogus"}')
check "unknown backend in a request: ok false, invalid_backend" \
	sh -c "echo '$out' | grep -q '\"ok\":false' && echo '$out' | grep -q invalid_backend"
check "no pane was created for either" [ "$(pane_count)" = "$before" ]
sm kill-server >/dev/null 2>&1

# --- lifecycle and its events ---------------------------------------------
ctx life self
sm new -d -s l -x 120 -y 100 -e PS1='$ ' -- $SHELL_CMD >/dev/null
follow l
p=$(new_pane --backend native -e PS1='$ ' -- $SHELL_CMD)
check "lifecycle: created before the command runs" field_is "$p" requested native
wait_for 10 field_is "$p" state warm
check "lifecycle: warm when the shell waits" field_is "$p" state warm
check "lifecycle: starting and ready events" sh -c "grep -q '\"kind\":\"starting\"' '$D/events' && grep '\"kind\":\"ready\"' '$D/events' | grep -q '\"pane\":$p,'"
sm send-keys -t "%$p" 'sleep 5' Enter
check "lifecycle: active while sleep 5 runs" wait_for 5 field_is "$p" state active
sm suspend -t "%$p" >/dev/null
check "lifecycle: suspended" field_is "$p" state suspended
bpid=$(pane_field "$p" pid)
stopped() { ! ps -o stat= -s "$1" | grep -qv '^T'; }
check "lifecycle: suspend stops the whole tree" wait_for 3 stopped "$bpid"
sm resume -t "%$p" >/dev/null
check "lifecycle: resume continues it" wait_for 3 sh -c "ps -o stat= -s $bpid | grep -qv '^T'"
check "lifecycle: back to active or warm" sh -c "s=\$1; [ \"\$s\" = active ] || [ \"\$s\" = warm ]" - "$(pane_field "$p" state)"
# The shell may have seen its job stop: it warns once about stopped jobs.
sm send-keys -t "%$p" C-c
wait_for 5 field_is "$p" state warm
sm send-keys -t "%$p" 'exit 7' Enter
wait_for 2 exit_event "$p" 7 || sm send-keys -t "%$p" 'exit 7' Enter
check "lifecycle: exit event with exitCode 7" wait_for 5 exit_event "$p" 7
p=$(new_pane --backend native --remain -- /bin/sh -c 'exit 0')
check "lifecycle: destroyed once the command is gone (--remain)" wait_for 5 field_is "$p" state destroyed
p=$(new_pane --backend native -- $SHELL_CMD)
wait_for 10 field_is "$p" state warm
bpid=$(pane_field "$p" pid)
sm kill-pane -t "%$p" >/dev/null
check "lifecycle: killed event with a reason" \
	wait_for 5 sh -c "grep '\"kind\":\"killed\"' '$D/events' | grep '\"pane\":$p,' | grep -q '\"reason\":'"
check "lifecycle: kill-pane leaves no process" wait_for 3 gone "$bpid"
sm kill-server >/dev/null 2>&1

# --- default_backend in the config --------------------------------------------
ctx cfgnative self
echo '{"default_backend": "native"}' >"$D/config/sandmux/config.json"
sm new -d -s c -- $SHELL_CMD >/dev/null
wait_for 10 field_is 1 state warm
check "default_backend native: a plain new is native" field_is 1 backend native
p=$(new_pane --backend none -- $SHELL_CMD)
check "default_backend native: --backend none still means none" field_is "$p" backend none
sm kill-server >/dev/null 2>&1

# A host whose microvm cannot run here: its guest image is missing.
ctx cfgmicrovm self "" SANDMUX_MICROVM_DIR="$W/no-microvm-image"
echo '{"default_backend": "microvm"}' >"$D/config/sandmux/config.json"
sm new -d -s c -- $SHELL_CMD >/dev/null
follow c
p=$(new_pane -- $SHELL_CMD)
wait_for 10 field_is "$p" state warm
check "default microvm (unavailable) steps to native" field_is "$p" backend native
check "the step is a downgrade event" \
	sh -c "grep '\"kind\":\"downgrade\"' '$D/events' | grep '\"from\":\"microvm\"' | grep -q '\"to\":\"native\"'"
check "and one log line" grep -q 'default_backend microvm unavailable.*stepping down to native' \
	"$D/state/sandmux/server-$NAME.log"
p=$(new_pane --backend microvm -- $SHELL_CMD)
check "an explicit --backend microvm fails, never falls back" failed "$p"
sm kill-server >/dev/null 2>&1

finish
