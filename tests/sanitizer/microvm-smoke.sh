#!/bin/sh
# The microvm backend's short run for the sanitizer lane (tests/run.sh):
# the full suite (tests/integration/microvm.sh) runs in the plain pass;
# this one walks each of the server's microvm code paths once under
# ASan + UBSan, on one real guest and one prepared VM: the launch, the
# nonce-checked label (and a stand-in's wrong nonce refused), resize,
# QMP suspend --to-disk and the restore, the shell's exit status, the
# prepared VM taken over, kill-pane and kill-server leaving no qemu.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
mkdir -p "$T_DIR/work"
WORK=$T_DIR/work
cd "$WORK" || exit 1

sm new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
main=$(split_vm -- $BASH_CMD)
check "before the guest agent's ready the pane has no label" \
	[ "$(field "$main" 'p["backend"]')" = None ]
check "the pane is labelled microvm once the guest runs the shell" wait_ready "$main"
out=$(run "$main" K 'uname -r')
check "uname -r inside is the guest kernel ($out)" [ "$out" = "$GUEST_KERNEL" ]

before=$(run "$main" Z1 'stty size')
sm resize -t "%$main" -y 12 >/dev/null
rows=$(field "$main" 'p["rows"]')
cols=$(field "$main" 'p["cols"]')
resized() { [ "$(run "$main" "Z$1" 'stty size')" = "$rows $cols" ]; }
n=0
until resized $n || [ $n -ge 20 ]; do n=$((n + 1)); done
check "resize changes stty size inside ($before -> $rows $cols)" resized x

sm send-keys -t "$main" "KEPT=before-disk-$$" Enter
run "$main" D0 'echo set' >/dev/null
disk_pid=$(field "$main" 'p["pid"]')
out=$(sm suspend --to-disk -t "%$main" 2>&1)
check "suspend --to-disk succeeds ($out)" [ -z "$out" ]
check "suspend --to-disk: state suspended, pid 0, the qemu gone" \
	sh -c "[ \"$(field "$main" 'p["state"], p["pid"]')\" = \"('suspended', 0)\" ] && ! kill -0 $disk_pid 2>/dev/null"
out=$(sm resume -t "%$main" 2>&1)
check "resume after suspend --to-disk succeeds ($out)" [ -z "$out" ]
out=$(run "$main" D1 'echo $KEPT')
check "and keeps the shell's variable ($out)" [ "$out" = "before-disk-$$" ]

# The first confirmed pane left a prepared VM; a split like it takes it.
prepared_booted() { grep -q 'microvm: qemu pid' "$XDG_STATE_HOME/sandmux/server-$T_NAME.log" &&
	[ "$(grep -c 'microvm: qemu pid' "$XDG_STATE_HOME/sandmux/server-$T_NAME.log")" -ge 2 ]; }
wait_for 30 prepared_booted
warm=$(split_vm --remain -- $BASH_CMD)
check "a split like the last is labelled" wait_ready "$warm"
check "and took the prepared VM ($(field "$warm" 'p["details"]["summary"]'))" \
	sh -c "echo \"$(field "$warm" 'p["details"]["summary"]')\" | grep -q 'prepared VM'"
out=$(run "$warm" W "echo from-guest-$$ >$WORK/from-guest && echo written")
check "its work tree reaches the host" \
	sh -c "[ '$out' = written ] && grep -qx 'from-guest-$$' '$WORK/from-guest'"
warm_pid=$(field "$warm" 'p["pid"]')
sm send-keys -t "$warm" 'exit 7' Enter
check "the shell's exit ends the VM" wait_for 30 gone "$warm_pid"
check "the pane shows the shell's exit status 7" \
	wait_for 10 capture_has "$warm" '[exited with status 7]'

main_pid=$(field "$main" 'p["pid"]')
sm kill-pane -t "%$main" >/dev/null
check "kill-pane leaves no qemu" wait_for 10 gone "$main_pid"
SERVER_PID=$(sed -n "s/.*sandmux server $T_NAME starting, pid \([0-9]*\).*/\1/p" \
	"$XDG_STATE_HOME/sandmux/server-$T_NAME.log" | tail -n 1)
children=$(for c in $(ps -o pid= --ppid "$SERVER_PID"); do qemu_alive "$c" && echo "$c"; done)
sm kill-server >/dev/null
all_gone() { for c in $children; do qemu_alive "$c" && return 1; done; return 0; }
check "kill-server leaves no qemu, the prepared VM's included ($(echo $children))" \
	wait_for 10 all_gone

# A qemu stand-in answering with another launch's nonce: never labelled.
mkdir -p "$T_DIR/nonce-wrong"
cat >"$T_DIR/nonce-wrong/qemu-system-x86_64" <<STANDIN
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
os.write(ctl, b"booted\nready %s 1\n" % (b"0" * 32))
time.sleep(86$$)
STANDIN
chmod +x "$T_DIR/nonce-wrong/qemu-system-x86_64"
T_NAME="t$$-nonce"
env PATH="$T_DIR/nonce-wrong:$PATH" SANDMUX_MICROVM_ACCEL=tcg \
	"$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
env PATH="$T_DIR/nonce-wrong:$PATH" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v \
	--backend microvm -- /bin/sh >/dev/null 2>&1
p=$(newest)
check "a stand-in answering another launch's nonce ends FAILED" \
	wait_for 30 failed_with "$p" "the guest answered with another launch's nonce"
sm kill-server >/dev/null 2>&1
check "the stand-in is gone with its server" \
	wait_for 10 sh -c "! pgrep -f '$T_DIR/nonce[-]' >/dev/null"
finish
