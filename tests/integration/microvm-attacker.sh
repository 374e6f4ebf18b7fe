#!/bin/sh
# The microvm guest as the attacker (design invariant 7: the guest
# kernel and root inside it are never trusted).  The pane's shell is made
# guest root with every capability in a test-only way
# (SANDMUX_TEST_GUEST_ROOT: the core_pattern route of a real attack,
# without depending on it), so the guest's own masks and read-only binds
# can be removed; every check then looks at the host: what the shares'
# file servers on the host refuse (diod-guard.c) holds on its own.
# The pane's work tree is $HOME, so both shares are attacked: the work
# tree's (writable, ~/.ssh inside it) and, once the work tree's mount is
# gone too, the host-root share underneath.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
# Outside /tmp, which is private in the guest.
HOME=$(mktemp -d /var/tmp/sandmux-attacker-home.XXXXXX)
export HOME
trap 'cleanup; rm -rf "$HOME"' EXIT
mkdir -p "$HOME/.ssh"
echo "host-bashrc-$$" >"$HOME/.bashrc"
chmod 644 "$HOME/.bashrc"
SECRET="sandmux-attacker-secret-$$"
echo "$SECRET" >"$HOME/.ssh/id_demo"
chmod 600 "$HOME/.ssh/id_demo"
export SANDMUX_TEST_GUEST_ROOT=1 SANDMUX_MICROVM_PREPARE=0
cd "$HOME" || exit 1

root_vm "$HOME"

# --- violations: the host's refusals in the events log, the feed, the title ----
# The host's own refusals: source host (a guest root passes the guest's
# masks, so nothing here is the guest's report).
violation() { # ACTION TARGET
	grep '"kind":"violation"' "$XDG_STATE_HOME/sandmux/events.jsonl" 2>/dev/null |
		grep "\"pane\":$vm," | grep '"backend":"microvm"' | grep '"source":"host"' |
		grep -F "\"action\":\"$1\"" | grep -qF "\"target\":\"$2\""
}
# The guest's own mask of ~/.ssh goes first (guest root passes a
# mode-000 mask anyway: it would read an empty directory).
out=$(run "$vm" V1 "umount -l $HOME/.ssh; cat $HOME/.ssh/id_demo")
check "a denied secret read is a violation event within 1 s ($out)" \
	wait_for 1 violation 'file-read*' "$HOME/.ssh/id_demo"
# The work tree is $HOME: the work share stands on the profile's
# copy-on-write home (docs/security.md), so a ~/.bashrc write succeeds
# in the guest and lands in the layer, never in the host's file.
LAYER="$XDG_STATE_HOME/sandmux/home-layer/terminal/upper"
out=$(run "$vm" V2 "echo evil >>$HOME/.bashrc && echo written")
check "a guest root's ~/.bashrc write lands in the home layer, the host's file unchanged ($out)" \
	sh -c "[ \"\$(cat '$HOME/.bashrc')\" = host-bashrc-$$ ] && grep -q evil '$LAYER/.bashrc'"
check "and sandmux changes lists it as host-run" \
	sh -c '"$1" -L "$2" changes --json | grep -qF "\"path\":\".bashrc\",\"change\":\"changed\",\"directory\":false,\"host_run\":true"' - "$SANDMUX_BIN" "$T_NAME"
out=$(run "$vm" V4 "echo evil >$HOME/.ssh/planted && echo written")
check "a write into a deny-read root is refused ($out)" \
	sh -c "! echo '$out' | grep -q written && [ ! -e '$HOME/.ssh/planted' ] && [ ! -e '$LAYER/.ssh/planted' ]"
check "and it is a violation event within 1 s" wait_for 1 violation 'file-write-create' "$HOME/.ssh/planted"
out=$(run "$vm" V3 "rm -f $HOME/.bashrc; mv $HOME/.bashrc $HOME/old-bashrc; chmod 777 $HOME/.bashrc; cat $HOME/.bashrc")
check "nor removes, moves or chmods it ($out)" \
	sh -c "[ \"\$(cat '$HOME/.bashrc')\" = host-bashrc-$$ ] && [ \"\$(stat -c %a '$HOME/.bashrc')\" = 644 ] && [ ! -e '$HOME/old-bashrc' ]"
counted() { [ "$(field "$vm" 'p["violations"]')" -ge 2 ]; }
check "the pane's count has both ($(field "$vm" 'p["violations"]'))" wait_for 1 counted
sm events --json 2>/dev/null | grep '"kind":"violation"' | grep -q "\"pane\":$vm," &&
	ok "sandmux events shows them" || not_ok "sandmux events shows them"

# A secret made on the host after the launch, in a deny-read root that
# did not exist then: no guest mask can cover it.
mkdir -p "$HOME/.aws"
echo "late-$SECRET" >"$HOME/.aws/credentials"

# --- deny-read through the work tree's share ---------------------------------
out=$(run "$vm" D1 "umount -l $HOME/.ssh; cat $HOME/.ssh/id_demo")
check "guest root, the guest's mask removed: ~/.ssh/id_demo unreadable through the work share ($out)" \
	sh -c "! echo '$out' | grep -q '$SECRET' && echo '$out' | grep -q 'Permission denied'"
out=$(run "$vm" D2 "ls $HOME/.ssh")
check "and ~/.ssh cannot be listed ($out)" \
	sh -c "! echo '$out' | grep -q id_demo && echo '$out' | grep -q 'Permission denied'"
out=$(run "$vm" D3 "cat $HOME/.aws/credentials")
check "a secret created after launch is unreadable ($out)" \
	sh -c "! echo '$out' | grep -q 'late-$SECRET' && echo '$out' | grep -q 'Permission denied'"
out=$(run "$vm" D4 "mv $HOME/.ssh/id_demo $HOME/stolen; ln $HOME/.ssh/id_demo $HOME/linked; cat $HOME/stolen $HOME/linked")
check "nor moved or linked out of its root ($out)" \
	sh -c "! echo '$out' | grep -q '$SECRET' && [ -f '$HOME/.ssh/id_demo' ] && [ ! -e '$HOME/stolen' ] && [ ! -e '$HOME/linked' ]"

# --- device nodes and set-user-ID bits in the writable work tree ---------------
out=$(run "$vm" M "mknod $HOME/evil-null c 1 3 && echo made")
check "mknod of a character device in the work tree fails on the host ($out)" \
	sh -c "! echo '$out' | grep -q made && [ ! -e '$HOME/evil-null' ] && [ ! -e '$LAYER/evil-null' ]"
out=$(run "$vm" B "mknod $HOME/evil-disk b 8 0 && echo made")
check "and of a block device ($out)" sh -c "! echo '$out' | grep -q made && [ ! -e '$HOME/evil-disk' ]"
out=$(run "$vm" X "cp /bin/true $HOME/suid && chmod 4755 $HOME/suid; chmod 2755 $HOME/suid; stat -c %a $HOME/suid")
check "a set-user-ID or set-group-ID bit is refused on the host, in the home layer ($out)" \
	sh -c "[ ! -e '$HOME/suid' ] && [ -f '$LAYER/suid' ] && [ ! -u '$LAYER/suid' ] && [ ! -g '$LAYER/suid' ]"

# --- the network: neither the host's loopback nor its own addresses ---------------
# The terminal profile's open network: qemu's user network would turn
# 10.0.2.2 into the host's 127.0.0.1 and connect to the host's own
# address as the user; qemu's sockets refuse both (qemu-net-guard.c).
mkdir -p "$T_DIR/www"
echo "host-only-$$" >"$T_DIR/www/ok.txt"
LO_PORT=$((40000 + $$ % 20000))
OWN_IP=$(ip -4 -o addr show scope global | awk '{sub(/\/.*/, "", $4); print $4; exit}')
(cd "$T_DIR/www" && exec python3 -m http.server "$LO_PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
lo_web=$!
(cd "$T_DIR/www" && exec python3 -m http.server "$LO_PORT" --bind "$OWN_IP" >/dev/null 2>&1) &
own_web=$!
trap 'kill $lo_web $own_web 2>/dev/null; cleanup; rm -rf "$HOME"' EXIT
wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$LO_PORT/ok.txt"
wait_for 10 curl -s -o /dev/null "http://$OWN_IP:$LO_PORT/ok.txt"
out=$(run "$vm" N1 "curl -sS -m 10 http://10.0.2.2:$LO_PORT/ok.txt || echo refused")
check "a service on the host's 127.0.0.1 is not reached at 10.0.2.2 ($out)" \
	sh -c "! echo '$out' | grep -q host-only && echo '$out' | grep -q refused"
check "and the refusal is a network-outbound violation" \
	wait_for 1 violation network-outbound "127.0.0.1:$LO_PORT"
out=$(run "$vm" N2 "curl -sS -m 10 http://$OWN_IP:$LO_PORT/ok.txt || echo refused")
check "nor one on the host's own address $OWN_IP ($out)" \
	sh -c "! echo '$out' | grep -q host-only && echo '$out' | grep -q refused"
kill $lo_web $own_web 2>/dev/null

out=$(run "$vm" C1 "ln -s $HOME/.ssh/id_demo $HOME/keylink; chmod 644 $HOME/keylink; chown 65534 $HOME/.ssh/id_demo; stat -c '%a %u' $HOME/.ssh/id_demo")
check "a deny-read file keeps its mode and owner, through a symlink too ($(stat -c '%a %u' "$HOME/.ssh/id_demo"))" \
	[ "$(stat -c '%a %u' "$HOME/.ssh/id_demo")" = "600 $(id -u)" ]

# --- the host-root share, with the work tree's mount gone too -------------------
out=$(run "$vm" R1 "umount -l $HOME; cat $HOME/.ssh/id_demo $HOME/.aws/credentials")
check "through the host-root share: ~/.ssh and the late secret unreadable ($out)" \
	sh -c "! echo '$out' | grep -q '$SECRET' && echo '$out' | grep -q 'Permission denied'"
out=$(run "$vm" R2 "mount -o remount,rw / ; echo x >/var/tmp/sandmux-attacker-$$ && echo written")
check "no write on the host-root share, even remounted read-write in the guest ($out)" \
	sh -c "! echo '$out' | grep -q written && [ ! -e /var/tmp/sandmux-attacker-$$ ]"
# --- the guest's second line (guest root with every capability here, so
# only what holds without a remount is checked) -------------------------------
out=$(run "$vm" K1 "echo '|/bin/sh -c id' >/proc/sys/kernel/core_pattern && echo set; cat /proc/sys/kernel/core_pattern")
check "/proc/sys is read-only in the guest: core_pattern not a pipe ($out)" \
	sh -c "! echo '$out' | grep -q set && ! echo '$out' | grep -q '|'"
out=$(run "$vm" K2 "echo b >/proc/sysrq-trigger && echo triggered")
check "and /proc/sysrq-trigger ($out)" sh -c "! echo '$out' | grep -q triggered"
out=$(run "$vm" K3 "cat /proc/sys/kernel/modules_disabled /proc/sys/kernel/kexec_load_disabled | tr '\\n' ' '")
check "module loading and kexec are switched off ($out)" [ "$out" = "1 1 " ]

# --- bounds: a fork loop stays in the shell's group; kill-pane still ends it ----
qemu_pid=$(field "$vm" 'p["pid"]')
out=$(run "$vm" F1 "cat /proc/self/cgroup")
check "the shell is in its own control group in the guest ($out)" [ "$out" = "0::/shell" ]
# The host's /proc under the guest's own: diod's is a fresh one of its
# sandbox, so no host process (nor its environment) is there to read.
out=$(run "$vm" R3 "umount -l /proc; ls /proc | grep -c '^[0-9]'; [ -e /proc/$$ ] && echo host-visible")
check "the host-root share's /proc shows no host process ($out)" \
	sh -c "! echo '$out' | grep -q host-visible"

tb_bounded() { tr '\0' ' ' <"/proc/$qemu_pid/cmdline" | grep -q -- '-accel tcg,tb-size=64 '; }
if [ "$(field "$vm" 'p["details"]["accelerator"]')" = kvm ]; then
	ok "# skip: KVM has no translation cache"
else
	check "TCG's translation cache is bounded (tb-size=64)" tb_bounded
fi
rss_mib() { echo $(($(awk '/^VmRSS:/ { print $2 }' "/proc/$qemu_pid/status") / 1024)); }
idle=$(rss_mib)
# The loop has run once qemu has spent 5 s of CPU more than now (its
# utime and stime, in clock ticks): time the guest really got.
qemu_ticks() { awk '{ print $14 + $15 }' "/proc/$qemu_pid/stat"; }
ticks0=$(qemu_ticks)
hz=$(getconf CLK_TCK)
looped() { [ $(($(qemu_ticks) - ticks0)) -ge $((5 * hz)) ]; }
sm send-keys -t "$vm" "dash -c 'f() { f | f & }; f' 2>/dev/null" Enter
wait_for 60 looped
busy=$(rss_mib)
echo "# qemu's RSS: ${idle} MiB idle, ${busy} MiB after 5 s of qemu CPU in a fork loop"
check "qemu's RSS stays under 512 MiB under the fork loop (${busy} MiB)" [ "$busy" -lt 512 ]
out=$(run "$vm" A1 "echo alive")
check "the console still answers while the loop runs ($out)" [ "$out" = alive ]
began=$(date +%s.%N)
sm kill-pane -t "$vm"
wait_for 2 gone "$qemu_pid"
took=$(echo "$(date +%s.%N) - $began" | bc)
check "kill-pane ends the fork-looping guest within 2 s (${took}s)" \
	[ "$(echo "$took < 2" | bc)" = 1 ] && gone "$qemu_pid"

sm kill-server >/dev/null 2>&1
finish
