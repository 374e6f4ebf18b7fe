#!/bin/sh
# The microvm backend under real qemu (TCG here: this host's KVM cannot
# boot a stock kernel), with the guest image make microvm-image builds.
#
# One server boots four guests at once (boots are seconds each under
# TCG, so the checks share them): the guest kernel and init, the
# boundary (~/.ssh unreadable, the work tree written through to the
# host, the host's /etc read-only), resize, job control, labels in ls
# --json and in the real client's title, QMP suspend/resume, suspend
# --to-disk and resume (the shell's state kept, no qemu meanwhile), the
# shell's exit status, the agent profile's network only through the
# egress proxies, and no qemu left by kill-pane or kill-server.
# The prepared VM: taken by a split like the last, with the last shell's
# files copied in read-only.  Then the truth matrix on servers that
# cannot boot: no qemu on PATH, no guest image, a qemu stand-in that
# exits at once or hangs, --sandbox off; the nonce (stand-ins answering
# with none, another launch's, this one's); a prepared VM not taken once
# the shell's binary changed on the host; and an unspecified default of
# microvm stepping down to native.  The sanitizer lane runs
# tests/sanitizer/microvm-smoke.sh instead of this suite.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
# Outside /tmp, which is private in the guest, so the mask is what hides
# the key; NOQEMU too: the native probe runs bwrap from it inside a
# sandbox whose /tmp is private.
HOME=$(mktemp -d /var/tmp/sandmux-microvm-home.XXXXXX)
NOQEMU=$(mktemp -d /var/tmp/sandmux-noqemu.XXXXXX)
SHELL_DIR=$(mktemp -d /var/tmp/sandmux-microvm-shell.XXXXXX)
export HOME
trap 'cleanup; rm -rf "$HOME" "$NOQEMU" "$SHELL_DIR"' EXIT
mkdir -p "$HOME/.ssh" "$T_DIR/work"
SECRET="sandmux-microvm-secret-$$"
echo "$SECRET" >"$HOME/.ssh/id_test"
# Host-run files (hostrun.c) for the pane whose work tree is $HOME: one
# the agent profile's write-denies name (.bashrc), two only the host-run
# list does (.bash_logout, an autostart directory).
echo "host-bashrc-$$" >"$HOME/.bashrc"
echo "host-logout-$$" >"$HOME/.bash_logout"
mkdir -p "$HOME/.config/autostart"
WORK=$T_DIR/work
cd "$WORK" || exit 1

# --- the probe -------------------------------------------------------------
began=$(date +%s.%N)
sm new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
took=$(echo "$(date +%s.%N) - $began" | bc)
check "the server starts without waiting for the accelerator check (${took}s)" \
	[ "$(echo "$took < 2" | bc)" = 1 ]
probe=$(sm probe)
accel=$(sm probe --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["microvm"]["accelerator"])')
check "probe: $(echo "$probe" | grep microvm)" sh -c "echo '$probe' | grep -qx 'microvm: available ($accel)'"
check "probe: the accelerator is kvm or tcg ($accel)" sh -c "[ '$accel' = tcg ] || [ '$accel' = kvm ]"

# --- four guests ------------------------------------------------------------
# An origin on the host's own non-loopback address (loopback is never
# allowed), allowlisted for the session's egress proxies.
ORIGIN_IP=$(ip -4 -o addr show scope global | awk '{sub(/\/.*/, "", $4); print $4; exit}')
ORIGIN_PORT=$((20000 + $$ % 20000))
mkdir -p "$T_DIR/www"
echo "origin-ok-$$" >"$T_DIR/www/ok.txt"
(cd "$T_DIR/www" && exec python3 -m http.server "$ORIGIN_PORT" --bind "$ORIGIN_IP" \
	>/dev/null 2>&1) &
web=$!
trap 'kill $web 2>/dev/null; cleanup; rm -rf "$HOME" "$NOQEMU" "$SHELL_DIR"' EXIT
export SANDMUX_EGRESS_ALLOW="$ORIGIN_IP"
sm kill-server >/dev/null 2>&1
sm new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
began=$(date +%s.%N)
main=$(split_vm -- $BASH_CMD)
# killed's work tree is $HOME (the host-run checks, then kill-pane).
killed=$(split_vm -c "$HOME" -- $BASH_CMD)
exiting=$(split_vm --remain -- $BASH_CMD)
agent=$(split_vm --profile agent -- $BASH_CMD)
check "the panes exist ($main $killed $exiting)" [ -n "$main" ] && [ -n "$killed" ] && [ -n "$exiting" ]
check "before the guest agent's ready the pane has no label" \
	[ "$(field "$main" 'p["backend"]')" = None ]
wait_ready "$main"
check "the pane is labelled microvm once the guest runs the shell" is_ready "$main"
echo "# first guest ready after $(echo "$(date +%s.%N) - $began" | bc)s (four booting at once)"
wait_ready "$killed"
wait_ready "$exiting"
wait_ready "$agent"
check "ls --json: requested microvm, backend microvm, state warm" \
	[ "$(field "$main" 'p["requested"], p["backend"], p["state"]')" = "('microvm', 'microvm', 'warm')" ]
check "ls --json: details.accelerator is the probe's ($accel)" \
	[ "$(field "$main" 'p["details"]["accelerator"]')" = "$accel" ]

out=$(run "$main" K 'uname -r')
check "uname -r inside is the guest kernel ($out), not the host's ($(uname -r))" \
	[ "$out" = "$GUEST_KERNEL" ] && [ "$out" != "$(uname -r)" ]
out=$(run "$main" I 'cat /proc/1/comm')
check "/proc/1/comm inside is the guest's init ($out)" [ "$out" = init ]
out=$(run "$main" S "cat $HOME/.ssh/id_test")
check "the host's ~/.ssh is unreadable inside ($out)" \
	sh -c "echo '$out' | grep -q 'Permission denied' && ! echo '$out' | grep -q '$SECRET'"
out=$(run "$main" L "ls $HOME/.ssh")
check "and cannot be listed ($out)" sh -c "echo '$out' | grep -q 'Permission denied'"
out=$(run "$main" W "echo from-guest-$$ >$WORK/from-guest && echo written")
check "a file written in the working directory appears on the host" \
	sh -c "[ '$out' = written ] && grep -qx 'from-guest-$$' '$WORK/from-guest'"
out=$(run "$main" E "echo x >/etc/sandmux-microvm-$$ || echo refused")
check "a write to the host's /etc fails ($out)" \
	sh -c "echo '$out' | grep -q refused && [ ! -e /etc/sandmux-microvm-$$ ]"
out=$(run "$main" H "echo x >$HOME/in-home || echo refused")
check "the host's \$HOME outside the work tree is read-only ($out)" \
	sh -c "echo '$out' | grep -q refused && [ ! -e '$HOME/in-home' ]"

# --- a work tree that is $HOME: the copy-on-write home (invariant 7) ----------
# The work share serves $HOME through the profile's layer (the shim's
# --home-layer step around the work tree's diod): the guest writes
# freely, and what the host runs later stays as it was, whatever the
# guest kernel does.  All of $HOME is the layer here, its plain entries
# too (diod does not cross mounts: docs/backends.md, "microvm").
LAYER="$XDG_STATE_HOME/sandmux/home-layer/terminal/upper"
out=$(run "$killed" R1 "echo evil >>$HOME/.bashrc && tail -1 $HOME/.bashrc")
check "cwd=\$HOME: an append to ~/.bashrc works in the guest and lands in the layer ($out)" \
	sh -c "[ '$out' = evil ] && [ \"\$(cat '$HOME/.bashrc')\" = host-bashrc-$$ ] && grep -qx evil '$LAYER/.bashrc'"
out=$(run "$killed" R2 "echo evil >>$HOME/.bash_logout; ln -s .bash_logout $HOME/logout-link && echo evil >>$HOME/logout-link; echo done")
check "cwd=\$HOME: ~/.bash_logout, directly and through a symlink, unchanged on the host ($out)" \
	sh -c "[ \"\$(cat '$HOME/.bash_logout')\" = host-logout-$$ ] && [ ! -e '$HOME/logout-link' ]"
out=$(run "$killed" R4 "rm -f $HOME/.bashrc; echo done")
check "cwd=\$HOME: ~/.bashrc removed in the guest stays on the host ($out)" \
	sh -c "[ -f '$HOME/.bashrc' ] && [ -c '$LAYER/.bashrc' ]"
out=$(run "$killed" R5 "echo evil >$HOME/.config/autostart/evil.desktop; echo evil >$HOME/.profile; mkdir -p $HOME/.config/systemd/user; mkfifo $HOME/.bash_login; echo done")
check "cwd=\$HOME: nothing is planted on the host: autostart, ~/.profile, systemd, a fifo ($out)" \
	sh -c "[ ! -e '$HOME/.config/autostart/evil.desktop' ] && [ ! -e '$HOME/.profile' ] &&
		[ ! -e '$HOME/.config/systemd' ] && [ ! -e '$HOME/.bash_login' ] && [ -f '$LAYER/.profile' ]"
out=$(run "$killed" R6 "echo plain-$$ >$HOME/plain-file && cat $HOME/plain-file")
check "cwd=\$HOME: a plain file is written in the guest, into the layer ($out)" \
	sh -c "[ '$out' = plain-$$ ] && [ ! -e '$HOME/plain-file' ] && grep -qx plain-$$ '$LAYER/plain-file'"
check "cwd=\$HOME: sandmux changes lists them" \
	sh -c '"$@" | grep -qF "\"path\":\"plain-file\""' - env HOME="$HOME" XDG_STATE_HOME="$XDG_STATE_HOME" "$SANDMUX_BIN" changes --json
# The host's side alone: the work tree's diod serves $HOME from an
# overlay in its own mount namespace, whatever the guest kernel sends.
work_diod=""
for d in $(pgrep -x diod); do
	tr '\0' ' ' <"/proc/$d/cmdline" 2>/dev/null | grep -q -- "-e $HOME " && work_diod=$d
	tr '\0' ' ' <"/proc/$d/cmdline" 2>/dev/null | grep -q -- "-e $HOME\$" && work_diod=$d
done
fstype() { awk -v p="$1" '$5 == p { for (i = 7; i < NF; i++) if ($i == "-") print $(i + 1) }' "/proc/$work_diod/mountinfo"; }
check "the work tree's file server (diod $work_diod) serves \$HOME from the overlay ($(fstype "$HOME" | tr '\n' ' '))" \
	sh -c "echo '$(fstype "$HOME")' | grep -qx overlay"

# --- the network ------------------------------------------------------------
out=$(run "$main" N1 "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | tr '\\n' ' '")
check "terminal profile: the guest has its network device ($out)" \
	sh -c "echo '$out' | grep -q eth0"
out=$(run "$agent" N2 'echo $http_proxy $ALL_PROXY $NO_PROXY')
check "agent profile: the proxy environment of a native agent pane ($out)" \
	[ "$out" = "http://10.0.2.100:3128 socks5h://10.0.2.100:1080 localhost,127.0.0.1,::1" ]
out=$(run "$agent" N3 "curl -sS -m 20 http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt")
check "agent profile: an allowed origin is reached through the proxy ($out)" \
	[ "$out" = "origin-ok-$$" ]
out=$(run "$agent" N4 "curl -sS -m 20 -x \$ALL_PROXY http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt")
check "agent profile: and through SOCKS5 ($out)" [ "$out" = "origin-ok-$$" ]
out=$(run "$agent" N5 'curl -sS -m 20 -o /dev/null -w %{http_code} http://denied.test/')
check "agent profile: a denied origin is refused ($out)" [ "$out" = 403 ]
violation() {
	grep '"kind":"violation"' "$XDG_STATE_HOME/sandmux/events.jsonl" |
		grep '"action":"network-outbound"' | grep '"target":"denied.test:80"' |
		grep -q "\"pane\":$agent,"
}
check "agent profile: with a network-outbound violation for the pane" wait_for 5 violation
out=$(run "$agent" N6 "curl -sS -m 5 --noproxy '*' http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt || echo direct-refused")
check "agent profile: no direct connection around the proxy" \
	sh -c "echo '$out' | grep -q direct-refused && ! echo '$out' | grep -q origin-ok"
# restrict=on itself, not just the missing default route: 10.0.2.2 is
# qemu's way to the host's loopback and lies on the guest's own subnet,
# so the guest's kernel sends the SYN; only qemu can drop it.  The
# terminal pane's open network does not reach it either: qemu's sockets
# refuse the host's loopback (qemu-net-guard.c; microvm-attacker.sh has
# the host's own address too).
LO_PORT=$((40000 + $$ % 20000))
(cd "$T_DIR/www" && exec python3 -m http.server "$LO_PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
lo_web=$!
trap 'kill $web $lo_web 2>/dev/null; cleanup; rm -rf "$HOME" "$NOQEMU" "$SHELL_DIR"' EXIT
wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$LO_PORT/ok.txt"
out=$(run "$main" N7 "curl -sS -m 10 http://10.0.2.2:$LO_PORT/ok.txt || echo direct-refused")
check "terminal profile: the open network does not reach the host's loopback at 10.0.2.2 ($out)" \
	sh -c "echo '$out' | grep -q direct-refused && ! echo '$out' | grep -q origin-ok"
out=$(run "$agent" N8 "curl -sS -m 5 --noproxy '*' http://10.0.2.2:$LO_PORT/ok.txt || echo direct-refused")
check "agent profile: restrict=on: the same connection from the agent pane fails ($out)" \
	sh -c "echo '$out' | grep -q direct-refused && ! echo '$out' | grep -q origin-ok"
out=$(run "$agent" N9 "curl -sS -m 5 --noproxy '*' http://10.0.2.100:$LO_PORT/ok.txt || echo direct-refused")
check "agent profile: and a port of the proxies' address that is no guestfwd fails ($out)" \
	sh -c "echo '$out' | grep -q direct-refused && ! echo '$out' | grep -q origin-ok"
kill $lo_web 2>/dev/null

# The control port is the agent's alone: the shell (uid 1000 in the
# guest, with no capabilities: microvm-uid.sh) cannot open it to forge
# "ready" or "exit".
out=$(run "$main" P "for port in /dev/vport*; do echo ready forged 1 >\$port && echo opened; done")
check "the shell cannot open the control port ($out)" \
	sh -c "echo '$out' | grep -q 'Device or resource busy\|Permission denied' && ! echo '$out' | grep -q opened"

# --- resize ----------------------------------------------------------------
before=$(run "$main" Z1 'stty size')
sm resize -t "%$main" -y 12 >/dev/null
rows=$(field "$main" 'p["rows"]')
cols=$(field "$main" 'p["cols"]')
# The new size reaches the guest over its control port: asked until the
# guest's terminal has it (each ask with a tag of its own, none of them
# holding another: run waits for ">TAG" on the screen; no tag starts
# with G), or 20 s.
n=0
guest_resized() {
	n=$((n + 1))
	after=$(run "$main" "GSIZE$n" 'stty size')
	[ "$after" = "$rows $cols" ]
}
wait_for 20 guest_resized
after=$(run "$main" Z2 'stty size')
check "resize changes stty size inside ($before -> $after, pane ${rows}x$cols)" \
	[ "$after" = "$rows $cols" ] && [ "$after" != "$before" ]

# --- job control ------------------------------------------------------------
# The job says when it runs and when it is continued, in the shared work
# tree: C-z and C-c are typed once it is the terminal's foreground.
sm send-keys -t "$main" "bash -c 'trap \"echo cont >>$WORK/jc\" CONT; echo run >>$WORK/jc; while :; do sleep 1; done'" Enter
check "the job runs in the guest" wait_for 20 grep -qx run "$WORK/jc"
sm send-keys -t "$main" C-z
check "C-z stops the foreground job" wait_for 10 capture_has "$main" Stopped
out=$(run "$main" J1 'jobs')
stopped_job() { printf '%s\n' "$out" | grep -q 'Stopped.*bash -c'; }
check "jobs lists it stopped ($out)" stopped_job
sm send-keys -t "$main" fg Enter
check "fg continues it" wait_for 10 grep -qx cont "$WORK/jc"
sm send-keys -t "$main" C-c
sm send-keys -t "$main" 'echo "C=$?=C"' Enter
check "fg brings it back and C-c reaches it (exit 130)" wait_for 10 capture_has "$main" 'C=130=C'

# --- the client's title ------------------------------------------------------
TMUX_SOCK="sm-microvm-$$"
tmux -L "$TMUX_SOCK" new-session -d -x 200 -y 60 \
	"env HOME=$HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $SANDMUX_BIN -L $T_NAME attach -t v"
title_shows() { tmux -L "$TMUX_SOCK" capture-pane -p | grep -q " microvm·$accel "; }
check "the client's title shows microvm·$accel" wait_for 10 title_shows
tmux -L "$TMUX_SOCK" kill-server 2>/dev/null

# --- suspend / resume (QMP stop / cont) ---------------------------------------
sm send-keys -t "$main" "(while :; do echo t >>$WORK/ticks; sleep 0.2; done) &" Enter
wait_for 10 test -s "$WORK/ticks"
sm suspend -t "%$main" >/dev/null
check "suspend: state suspended" [ "$(field "$main" 'p["state"]')" = suspended ]
n1=$(wc -l <"$WORK/ticks")
# The time passing is the thing under test: no tick while suspended.
sleep 1.5
n2=$(wc -l <"$WORK/ticks")
check "suspend stops the guest ($n1 -> $n2 ticks in 1.5 s)" [ "$n2" -le $((n1 + 1)) ]
sm resume -t "%$main" >/dev/null
ticking() { [ "$(wc -l <"$WORK/ticks")" -gt "$((n2 + 1))" ]; }
wait_for 15 ticking
n3=$(wc -l <"$WORK/ticks")
check "resume continues it ($n2 -> $n3)" [ "$n3" -gt "$((n2 + 1))" ]
sm send-keys -t "$main" 'kill %1' Enter

# qemu's own seccomp filter (-sandbox on, backends.md "What it does not
# stop"): on for a pane without a proxied network, and it survives a
# restore (the restored qemu is started with it too, checked below).
seccomp_mode() { awk '/^Seccomp:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
main_qemu=$(field "$main" 'p["pid"]')
check "qemu runs under its seccomp filter (pid $main_qemu: Seccomp $(seccomp_mode "$main_qemu"))" \
	[ "$(seccomp_mode "$main_qemu")" = 2 ]

# --- suspend --to-disk / resume (the VM saved to a file, no qemu left) --------
# The shell's state must survive: a variable, a background job, the
# working directory; and the shares must still work after the restore.
sm send-keys -t "$main" "KEPT=before-disk-$$; cd $WORK; sleep 1000 &" Enter
run "$main" D0 'echo set' >/dev/null
disk_pid=$(field "$main" 'p["pid"]')
out=$(sm suspend --to-disk -t "%$main" 2>&1)
check "suspend --to-disk succeeds ($out)" [ -z "$out" ]
check "suspend --to-disk: ls --json shows state suspended, pid 0" \
	[ "$(field "$main" 'p["state"], p["backend"], p["pid"]')" = "('suspended', 'microvm', 0)" ]
check "suspend --to-disk: the pane's qemu is gone ($disk_pid)" sh -c "! kill -0 $disk_pid 2>/dev/null"
pane_qemus() { # qemus whose command line feeds the pane's saved state or was the pane's
	for c in $(pgrep -f "qemu-system"); do
		[ "$c" = "$disk_pid" ] && echo "$c"
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q "pane-$main\." && echo "$c"
	done
}
check "suspend --to-disk: no qemu runs for the pane" [ -z "$(pane_qemus)" ]
state_file=$(ls "$XDG_STATE_HOME"/sandmux/pane-"$main".*.vmstate 2>/dev/null)
size=$(stat -c %s "$state_file" 2>/dev/null || echo 0)
check "suspend --to-disk: the state is a file in the state directory ($state_file, $size bytes, $(stat -c %a "$state_file" 2>/dev/null))" \
	sh -c "[ $size -gt 1000000 ] && [ \"\$(stat -c %a '$state_file')\" = 600 ]"
check "suspend --to-disk: a suspended event with toDisk" \
	sh -c "grep '\"kind\":\"suspended\"' '$XDG_STATE_HOME/sandmux/events.jsonl' | grep -q '\"toDisk\":true'"
out=$(sm resume -t "%$main" 2>&1)
check "resume after suspend --to-disk succeeds ($out)" [ -z "$out" ]
restored_pid=$(field "$main" 'p["pid"]')
check "resume: state warm again, a new qemu ($disk_pid -> $restored_pid)" \
	sh -c "[ \"\$(echo \"$(field "$main" 'p["state"]')\")\" = warm ] && [ '$restored_pid' != 0 ] && [ '$restored_pid' != '$disk_pid' ]"
check "resume: the new pid is a live qemu of the image" qemu_alive "$restored_pid"
check "resume: the restored qemu runs under its seccomp filter too" [ "$(seccomp_mode "$restored_pid")" = 2 ]
out=$(run "$main" D1 'echo $KEPT')
check "suspend --to-disk then resume keeps the shell's variable ($out)" [ "$out" = "before-disk-$$" ]
out=$(run "$main" D2 'jobs')
check "and its background job ($out)" sh -c "echo '$out' | grep -q 'Running.*sleep 1000'"
out=$(run "$main" D3 'pwd')
check "and its working directory ($out)" [ "$out" = "$WORK" ]
host_id=$(sed -n 's/^ID=//p' /etc/os-release)
out=$(run "$main" D4 "echo after-disk-$$ >$WORK/after-disk && sed -n 's/^ID=//p' /etc/os-release")
check "the shares work after the restore (work tree written, the host's root read: $out)" \
	sh -c "grep -qx 'after-disk-$$' '$WORK/after-disk' && [ '$out' = '$host_id' ]"
check "resume deletes the state file" [ ! -e "$state_file" ]
sm send-keys -t "$main" 'kill %?1000' Enter
out=$(sm suspend --to-disk -t 1 2>&1)
check "suspend --to-disk of a none pane: invalid_state ($out)" \
	sh -c "echo '$out' | grep -q invalid_state && echo '$out' | grep -q 'only a microvm pane'"

# --- the prepared VM -------------------------------------------------------------
# prepared_vm_running: the server has a qemu child no pane owns
prepared_vm_running() {
	server=$(sed -n "s/.*sandmux server $T_NAME starting, pid \([0-9]*\).*/\1/p" \
		"$XDG_STATE_HOME/sandmux/server-$T_NAME.log" | tail -n 1)
	owned=$(sm ls --json | sed -n 's/.*"pid":[^0-9]*\([0-9]*\).*/\1/p')
	for c in $(ps -o pid= --ppid "$server"); do
		qemu_alive "$c" && ! echo "$owned" | grep -qx "$c" && return 0
	done
	return 1
}
# Confirmed microvm panes leave the next VM booted like them; a split
# with the same working directory takes it, once the server runs it.
check "the server runs a prepared VM" wait_for 30 prepared_vm_running
began=$(date +%s.%N)
warm=$(split_vm --profile terminal --remain -- $BASH_CMD)
wait_ready "$warm"
took=$(echo "$(date +%s.%N) - $began" | bc)
check "a split like the last takes the prepared VM ($(field "$warm" 'p["details"]["summary"]'), ready in ${took}s)" \
	sh -c "[ \"\$(echo '$(field "$warm" 'p["details"]["summary"]')')\" != '' ] && echo '$(field "$warm" 'p["details"]["summary"]')' | grep -q 'prepared VM'"
out=$(run "$warm" K2 'uname -r')
check "and it is a guest like the others ($out)" [ "$out" = "$GUEST_KERNEL" ]
# The prepared VM had the last shell's files copied in ahead, each bound
# read-only over its own path (copy_ahead in the agent): bash and libc.
out=$(run "$warm" C1 "awk '\$5 ~ /(bin\/bash|libc\.so\.6)\$/ { print \$5, substr(\$6, 1, 2) }' /proc/self/mountinfo | sort -u | tr '\n' ' '")
check "and the last shell's files copied in, read-only ($out)" \
	sh -c "echo '$out' | grep -q 'bin/bash ro' && echo '$out' | grep -q 'libc.so.6 ro'"
out=$(run "$warm" S2 "cat $HOME/.ssh/id_test")
check "with the same masks ($out)" sh -c "echo '$out' | grep -q 'Permission denied'"
# qemu dying under the pane (our own qemu: the pid ls --json gives).
warm_pid=$(field "$warm" 'p["pid"]')
qemu_alive "$warm_pid" && kill -9 "$warm_pid"
died() { field "$1" 'p.get("reason", "")' | grep -q 'qemu died of signal 9'; }
check "qemu killed under a pane: the pane says so" wait_for 10 died "$warm"
check "and its exit status is 137" [ "$(field "$warm" 'p.get("exit_status")')" = 137 ]

# --- the end of a guest --------------------------------------------------------
exit_pid=$(field "$exiting" 'p["pid"]')
killed_pid=$(field "$killed" 'p["pid"]')
main_pid=$(field "$main" 'p["pid"]')
check "each pane's pid is its own qemu" qemu_alive "$main_pid"
sm send-keys -t "$exiting" 'exit 7' Enter
check "the shell's exit ends the VM (qemu gone)" wait_for 20 gone "$exit_pid"
wait_for 10 capture_has "$exiting" 'exited with status'
check "the pane shows the shell's exit status 7" capture_has "$exiting" '[exited with status 7]'
check "the exit event carries exitCode 7" \
	grep -q "\"kind\":\"exit\".*\"pane\":$exiting.*\"exitCode\":7\|\"kind\":\"exit\".*\"exitCode\":7.*\"pane\":$exiting" \
	"$XDG_STATE_HOME/sandmux/events.jsonl"
sm kill-pane -t "%$killed" >/dev/null
check "kill-pane leaves no qemu" wait_for 10 gone "$killed_pid"
# Every qemu the server started (panes and the prepared VM) is its child.
SERVER_PID=$(sed -n "s/.*sandmux server $T_NAME starting, pid \([0-9]*\).*/\1/p" \
	"$XDG_STATE_HOME/sandmux/server-$T_NAME.log" | tail -n 1)
children=$(for c in $(ps -o pid= --ppid "$SERVER_PID"); do qemu_alive "$c" && echo "$c"; done)
check "the server runs the panes' qemus and a prepared one ($(echo $children))" \
	[ "$(echo "$children" | wc -w)" -ge 3 ]
servers=$(pgrep -P "$SERVER_PID" -x diod; pgrep -P "$SERVER_PID" -x bwrap)
check "the shares' file servers are the server's children ($(echo $servers))" \
	[ "$(echo "$servers" | wc -w)" -ge 2 ]
sm kill-server >/dev/null
check "kill-server leaves no qemu" wait_for 10 gone "$main_pid"
servers_gone() { for c in $servers; do kill -0 "$c" 2>/dev/null && return 1; done; return 0; }
check "kill-server leaves no file server (diod, bwrap)" wait_for 10 servers_gone
all_gone() { for c in $children; do qemu_alive "$c" && return 1; done; return 0; }
check "kill-server leaves no qemu, the prepared VM's included" wait_for 10 all_gone

# --- the truth matrix: hosts that cannot boot ------------------------------------
# matrix NAME TEXT VAR=VALUE...: a fresh server with the environment
# given; an explicit --backend microvm must end FAILED with TEXT in the
# reason, and an error event; nothing runs on the host.
matrix() {
	name=$1
	text=$2
	shift 2
	T_NAME="t$$-$name"
	state="$T_DIR/state-$name"
	env XDG_STATE_HOME="$state" "$@" "$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
	env "$@" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v --backend microvm -- /bin/sh \
		>/dev/null 2>&1
	p=$(newest)
	wait_for 30 sh -c "[ \"\$($SANDMUX_BIN -L $T_NAME ls --json | grep -c '\"state\":	\"error\"')\" -ge 1 ]"
	if failed_with "$p" "$text"; then
		ok "$name: FAILED with \"$text\""
	else
		not_ok "$name: FAILED with \"$text\" (state, reason: $(field "$p" 'p["state"], p.get("reason")'))"
	fi
	check "$name: an error event" grep -q "\"kind\":\"error\".*\"requested\":\"microvm\"" \
		"$state/sandmux/events.jsonl"
	# The real client draws it as a FAILED banner with the reason, and
	# no title claims microvm.
	tmux -L "$TMUX_SOCK" new-session -d -x 200 -y 60 \
		"env XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $SANDMUX_BIN -L $T_NAME attach -t v"
	banner() { tmux -L "$TMUX_SOCK" capture-pane -p -J | tr -d '\n' | grep -q "FAILED:.*reason: .*$1"; }
	check "$name: the client shows the FAILED banner with the reason" \
		wait_for 10 banner "$(echo "$text" | cut -c1-30)"
	check "$name: its title says FAILED and none claims microvm" sh -c \
		"tmux -L '$TMUX_SOCK' capture-pane -p | grep '─' | grep -q ' FAILED ' &&
		 ! tmux -L '$TMUX_SOCK' capture-pane -p | grep '─' | grep -q ' microvm'"
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
	sm kill-server >/dev/null 2>&1
}
for tool in bwrap socat sh; do
	ln -s "$(command -v $tool)" "$NOQEMU/$tool"
done
matrix no-qemu "qemu-system-x86_64 not found on PATH (install: apt-get install qemu-system-x86)" \
	PATH="$NOQEMU"
matrix no-kernel "guest image missing: $T_DIR/none/vmlinux (install: make microvm-image)" \
	SANDMUX_MICROVM_DIR="$T_DIR/none"
FAKE=$T_DIR/fake-exit
mkdir -p "$FAKE"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "QEMU emulator version 7.2.0"; exit 0; }\necho "fake qemu: no VM today" >&2\nexit 1\n' >"$FAKE/qemu-system-x86_64"
chmod +x "$FAKE/qemu-system-x86_64"
matrix qemu-exits "qemu exited before the guest ran the shell (the guest did not boot): fake qemu: no VM today" \
	PATH="$FAKE:$PATH"
HANG=$T_DIR/fake-hang
mkdir -p "$HANG"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "QEMU emulator version 7.2.0"; exit 0; }\nexec sleep 86%s\n' "$$" >"$HANG/qemu-system-x86_64"
chmod +x "$HANG/qemu-system-x86_64"
matrix qemu-hangs "the guest did not start the shell within 3 s (boot hung)" \
	PATH="$HANG:$PATH" SANDMUX_MICROVM_BOOT_TIMEOUT_MS=3000
check "qemu-hangs: the hung stand-in is gone" sh -c "! pgrep -f 'slee[p] 86$$' >/dev/null"
matrix sandbox-off "microvm sandbox disabled by --sandbox off" SANDMUX_SANDBOX=off

# --- the nonce: only this launch's agent labels the pane ------------------------
# qemu stand-ins that answer on the control channel (the fd qemu's
# "-chardev socket,id=ctl,fd=N" names) like an agent would: with no
# nonce, with another launch's, and, as the control that the stand-in
# is heard at all, with the nonce the launch sent.  No guest runs.
standin() { # DIR BODY: a qemu stand-in in DIR whose answer is BODY (python)
	mkdir -p "$1"
	cat >"$1/qemu-system-x86_64" <<STANDIN
#!/usr/bin/python3
import os, sys, time
if sys.argv[1:2] == ["--version"]:
    print("QEMU emulator version 7.2.0")
    sys.exit(0)
ctl = [int(a.split("fd=")[1]) for a in sys.argv if a.startswith("socket,id=ctl,fd=")][0]
launch = b""
while b"\ngo\n" not in launch:
    chunk = os.read(ctl, 65536)
    if not chunk:
        sys.exit(1)
    launch += chunk
nonce = [l[6:].decode() for l in launch.split(b"\n") if l.startswith(b"nonce ")][0]
$2
time.sleep(86$$)
STANDIN
	chmod +x "$1/qemu-system-x86_64"
}
never_labelled() { # STATE_DIR: no ready event, no microvm label in the log
	! grep '"kind":"ready"' "$1/sandmux/events.jsonl" | grep -q '"backend":"microvm"'
}
standin "$T_DIR/nonce-none" 'os.write(ctl, b"booted\nready\nready 1\n")'
matrix ready-without-nonce "the guest did not start the shell within 3 s (booted, no answer)" \
	PATH="$T_DIR/nonce-none:$PATH" SANDMUX_MICROVM_ACCEL=tcg SANDMUX_MICROVM_BOOT_TIMEOUT_MS=3000
check "ready-without-nonce: never labelled microvm (no ready event)" never_labelled "$T_DIR/state-ready-without-nonce"
standin "$T_DIR/nonce-wrong" 'os.write(ctl, b"booted\nready %s 1\n" % ("0" * 32).encode())'
matrix ready-with-wrong-nonce "the guest answered with another launch's nonce" \
	PATH="$T_DIR/nonce-wrong:$PATH" SANDMUX_MICROVM_ACCEL=tcg
check "ready-with-wrong-nonce: never labelled microvm (no ready event)" never_labelled "$T_DIR/state-ready-with-wrong-nonce"
standin "$T_DIR/nonce-right" 'os.write(ctl, b"booted\nready %s 1\n" % nonce.encode())'
T_NAME="t$$-nonce-right"
env PATH="$T_DIR/nonce-right:$PATH" SANDMUX_MICROVM_ACCEL=tcg SANDMUX_MICROVM_PREPARE=0 \
	"$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
p=$(env PATH="$T_DIR/nonce-right:$PATH" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v \
	--backend microvm -- /bin/sh | sed -n 's/.*%\([0-9]*\).*/\1/p')
check "control: a stand-in answering with this launch's nonce is labelled microvm" \
	wait_for 20 is_ready "$p"
sm kill-server >/dev/null 2>&1

# The prepared VM's copies of the last shell's files must be what the
# host has: once a listed file changed on the host, the next launch boots
# a fresh VM.  Decided by the server alone, so the VMs are the stand-in
# (a prepared one gets its launch at the split).  The shell is a copy of
# bash outside the work tree, so the test may change it.
cp /bin/bash "$SHELL_DIR/bash"
T_NAME="t$$-stale"
env PATH="$T_DIR/nonce-right:$PATH" SANDMUX_MICROVM_ACCEL=tcg \
	"$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
split_standin() {
	env PATH="$T_DIR/nonce-right:$PATH" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v \
		--backend microvm -- "$SHELL_DIR/bash" --norc --noprofile -i |
		sed -n 's/.*%\([0-9]*\).*/\1/p'
}
prepared_after() { # PANE: a VM booted after PANE was confirmed
	awk -v c="pane %$1: microvm confirmed" 'index($0, c) { seen = 1 }
		seen && /microvm: qemu pid/ { found = 1 } END { exit !found }' \
		"$XDG_STATE_HOME/sandmux/server-$T_NAME.log"
}
summary() { field "$1" 'p["details"]["summary"]'; }
first=$(split_standin)
wait_for 20 is_ready "${first:-0}"
wait_for 20 prepared_after "${first:-0}"
same=$(split_standin)
wait_for 20 is_ready "${same:-0}"
check "control: nothing changed, the next launch takes the prepared VM ($(summary "${same:-0}"))" \
	sh -c "echo \"$(summary "${same:-0}")\" | grep -q 'prepared VM'"
wait_for 20 prepared_after "${same:-0}"
touch "$SHELL_DIR/bash"
fresh=$(split_standin)
wait_for 20 is_ready "${fresh:-0}"
check "the shell's binary changed on the host since: a fresh VM ($(summary "${fresh:-0}"))" \
	sh -c "is=\"$(summary "${fresh:-0}")\"; [ -n \"\$is\" ] && ! echo \"\$is\" | grep -q 'prepared VM'"
check "with its log line" grep -q "copies of the shell's files are out of date" \
	"$XDG_STATE_HOME/sandmux/server-$T_NAME.log"
sm kill-server >/dev/null 2>&1
check "the stand-ins are gone with their servers" \
	wait_for 10 sh -c "! pgrep -f '$T_DIR/nonce[-]' >/dev/null"

# Only an unspecified default steps down, to native, and says so.
T_NAME="t$$-default"
mkdir -p "$XDG_CONFIG_HOME/sandmux"
echo '{"default_backend": "microvm"}' >"$XDG_CONFIG_HOME/sandmux/config.json"
PATH="$NOQEMU" "$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
p=$(PATH="$NOQEMU" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v -- /bin/sh | sed -n 's/.*%\([0-9]*\).*/\1/p')
is_native() { [ "$(field "$1" 'p["backend"]')" = native ]; }
check "an unspecified default of microvm steps down to native" wait_for 20 is_native "$p"
is_native "$p" || { ls -la "$NOQEMU" | sed 's/^/#   /'
	grep -h "sandbox:" "$XDG_STATE_HOME/sandmux/server-$T_NAME.log" | sed 's/^/#   /'; }
check "with a downgrade event from microvm to native" \
	sh -c "grep '\"kind\":\"downgrade\"' '$XDG_STATE_HOME/sandmux/events.jsonl' | grep '\"from\":\"microvm\"' | grep -q '\"to\":\"native\"'"
PATH="$NOQEMU" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v --backend microvm -- /bin/sh >/dev/null 2>&1
p=$(newest)
wait_for 10 failed_with "$p" "not found"
check "an explicit --backend microvm there fails, never native" failed_with "$p" "qemu-system-x86_64 not found"
rm -f "$XDG_CONFIG_HOME/sandmux/config.json"
sm kill-server >/dev/null 2>&1
finish
