# Shared helpers of the microvm tests (tests/integration/microvm.sh, the
# full suite; tests/sanitizer/microvm-smoke.sh, the sanitizer lane's
# short one), sourced after lib.sh: the guest image, and ways to read a
# pane and talk to its guest.
ROOT=${SANDMUX_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD_DIR=${SANDMUX_BUILD:-$ROOT/build}
IMAGE=$BUILD_DIR/microvm
[ -s "$IMAGE/vmlinux" ] || IMAGE=$ROOT/build/microvm
if [ ! -s "$IMAGE/vmlinux" ] || [ ! -s "$IMAGE/initramfs.cpio" ]; then
	not_ok "the guest image is built (make microvm-image)"
	finish
fi
export SANDMUX_MICROVM_DIR="$IMAGE"
# A loaded machine (make check's lanes side by side, several guests at
# once under TCG) can take minutes to boot a guest, past the server's
# 30 s limit.  These tests check what a guest can do, not how fast it
# boots (make bench measures that), so the servers they start allow 4
# minutes; the matrix's hang cases set their own short limit.
: "${SANDMUX_MICROVM_BOOT_TIMEOUT_MS:=240000}"
export SANDMUX_MICROVM_BOOT_TIMEOUT_MS
GUEST_KERNEL=$(cat "$IMAGE/kernel-version")
BASH_CMD="/bin/bash --norc --noprofile -i"

# field PANE EXPR: a Python expression over pane p of `ls --json`.
field() {
	sm ls --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
for s in doc.get("sessions", []):
    for w in s["windows"]:
        for p in w["panes"]:
            if p["id"] == int(sys.argv[1]):
                print(eval(sys.argv[2]))' "$1" "$2"
}
is_ready() { [ "$(field "$1" 'p["backend"]')" = microvm ]; }
# wait_ready PANE: wait until the guest runs the shell (labelled) or the
# pane FAILED, which the server's boot limit bounds; true if it runs.
settled() { case "$(field "$1" 'p["backend"] or p["state"]')" in microvm | error) return 0 ;; esac; return 1; }
wait_ready() {
	wait_for 300 settled "$1"
	is_ready "$1"
}
failed_with() { # PANE TEXT: state error, no label, no pid, reason has TEXT
	[ "$(field "$1" 'p["state"], p["backend"], p["pid"]')" = "('error', None, 0)" ] &&
		field "$1" 'p.get("reason", "")' | grep -qF -- "$2"
}
# run PANE TAG CMD: run CMD in the pane; its output is what the pane
# shows between TAG< and >TAG, which only the answer holds (the typed
# line reads printf '%s<%s>%s\n' TAG ... TAG).
run() {
	sm send-keys -t "$1" "printf '%s<%s>%s\\n' $2 \"\$($3 2>&1)\" $2" Enter
	wait_for 120 capture_has "$1" ">$2" || return 1
	sm capture -t "$1" -S - | tr -d '\n' | sed -n "s/.*$2<\(.*\)>$2.*/\1/p"
}
# newest: the newest pane's id (a split whose sandbox failed reports the
# error, not the pane, which exists FAILED).
newest() {
	"$SANDMUX_BIN" -L "$T_NAME" ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' |
		sort -n | tail -1
}
split_vm() { sm split -t v -v --backend microvm "$@" | sed -n 's/.*%\([0-9]*\).*/\1/p'; }
# qemu_alive PID: PID (a pane's, from ls --json) is still a live qemu
# booting this image (a zombie's or a reused pid's cmdline is not).
qemu_alive() {
	{ tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null | grep -q "qemu-system.*$IMAGE/vmlinux"
}
gone() { ! qemu_alive "$1"; }
# root_vm DIR: a session and a microvm pane working in DIR, its shell
# made guest root with every capability in the test-only way
# (SANDMUX_TEST_GUEST_ROOT=1 in the server's environment), in $vm; the
# test ends here when the pane does not run.
root_vm() {
	sm new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
	vm=$(split_vm -c "$1" -- $BASH_CMD)
	wait_ready "$vm"
	if ! is_ready "$vm"; then
		not_ok "the pane runs in a microvm ($(field "$vm" 'p.get("reason", "")'))"
		sm kill-server >/dev/null 2>&1
		finish
	fi
	ok "the pane runs in a microvm"
	out=$(run "$vm" U 'id -u; grep CapEff /proc/self/status')
	check "test-only: the guest's shell is root with every capability ($out)" \
		sh -c "echo '$out' | grep -q '^0' && echo '$out' | grep -q 'CapEff:.*1ff'"
}
