#!/bin/sh
# The cgroup v2 path of backends/sandbox-limits.c, for real.  This host
# is hybrid (pids and memory sit on v1 hierarchies, v2 has no controller
# the limits need), so native-limits.sh can only run the v1 and rlimit
# paths here.  This test boots the guest kernel `make microvm-image`
# fetched (Debian's linux-image-amd64) in qemu, with a v2-only
# /sys/fs/cgroup holding every controller, the host's / read-only over
# virtio-9p and a scratch directory writable, and runs the real server,
# bwrap and a native pane in it:
#   - as root: the groups are v2 (ls --json and `sandmux probe` say so),
#     the pane's group has pids.max and memory.max from the profile and
#     the cpu controller, the pane's processes are in it; a bounded fork
#     bomb never has more than pids_max processes in the group and its
#     refusals are a `killed` event naming the process limit; a memory
#     eater is killed by the group (memory.events oom_kill, a `killed`
#     event naming the memory limit); kill-pane removes the group and
#     kill-server the server's own directory;
#   - as uid 65534, who may not write the v2 root and has no v1: rlimits,
#     said so in ls --json and by `sandmux probe`;
#   - as uid 65534 in a group delegated to it (as systemd's Delegate=yes
#     makes one): the groups are v2 below it, the server moves itself
#     into a leaf, a bomb is held to pids_max, and kill-server gives the
#     group back as it was.
# The guest's own checks are TAP lines written to the scratch directory;
# a guest that never reaches its last line is a failure.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD_DIR=${SANDMUX_BUILD:-$ROOT/build}
IMAGE=$BUILD_DIR/microvm
[ -s "$IMAGE/vmlinux" ] || IMAGE=$ROOT/build/microvm
version=$(cat "$IMAGE/kernel-version" 2>/dev/null)
mods=$IMAGE/cache/root/lib/modules/$version/kernel
if [ ! -s "$IMAGE/vmlinux" ] || [ ! -d "$mods" ]; then
	not_ok "the guest kernel and its modules are unpacked (make microvm-image)"
	finish
fi
for tool in qemu-system-x86_64 busybox; do
	command -v "$tool" >/dev/null 2>&1 || {
		not_ok "$tool is installed (apt-get install qemu-system-x86 busybox-static)"
		finish
	}
done

# The scratch directory: writable in the guest, where the guest writes
# its results.  Not under /tmp, which is a tmpfs in the guest.
W=$(mktemp -d /var/tmp/sandmux-cgroup2.XXXXXX)
chmod 755 "$W"
qemu=""
trap '[ -n "$qemu" ] && kill "$qemu" 2>/dev/null; cleanup; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$W/work" "$T_DIR/initrd/bin" "$T_DIR/initrd/modules" "$T_DIR/initrd/proc" \
	"$T_DIR/initrd/sys" "$T_DIR/initrd/dev" "$T_DIR/initrd/host" "$T_DIR/initrd/hostroot"
chmod 777 "$W/work"

# An initramfs of its own: busybox, the virtio-mmio and virtio-9p
# modules in dependency order, and an init that mounts the host's / and
# the scratch directory, a v2-only cgroup file system, fresh /proc,
# /dev, /tmp and /run, then switch_roots into the host's / (bwrap cannot
# make a user namespace from a chroot) and runs the checks there.
cp "$(command -v busybox)" "$T_DIR/initrd/bin/busybox"
order="virtio_ring virtio virtio_mmio netfs fscache 9pnet 9pnet_virtio 9p overlay"
for m in $order; do
	f=$(find "$mods" -name "$m.ko" | head -n 1)
	[ -n "$f" ] || { not_ok "the guest kernel has the module $m"; finish; }
	cp "$f" "$T_DIR/initrd/modules/$m.ko"
done
# The build directory may be under /tmp (a clone there): the guest binds
# it aside before its own tmpfs /tmp hides it, and moves it back after
# (a virtio-9p tag mounts once).
cat >"$T_DIR/initrd/init" <<EOF
#!/bin/busybox sh
bb=/bin/busybox
\$bb mount -t proc proc /proc
\$bb mount -t devtmpfs dev /dev
for m in $order; do \$bb insmod /modules/\$m.ko || echo "init: insmod \$m failed"; done
opts=trans=virtio,version=9p2000.L,msize=262144
\$bb mount -t 9p -o \$opts,ro hostroot /host || echo "init: no host root"
\$bb mount --bind "/host$BUILD_DIR" /hostroot
\$bb mount -t proc proc /host/proc
\$bb mount -t sysfs sys /host/sys
\$bb mount -t cgroup2 none /host/sys/fs/cgroup || echo "init: no cgroup2"
\$bb mount -t devtmpfs dev /host/dev
\$bb mkdir -p /host/dev/pts /host/dev/shm
\$bb mount -t devpts -o ptmxmode=0666 devpts /host/dev/pts
\$bb mount -t tmpfs shm /host/dev/shm
\$bb mount -t tmpfs tmp /host/tmp
\$bb mount -t tmpfs run /host/run
\$bb mkdir -p "/host$BUILD_DIR"
\$bb mount --move /hostroot "/host$BUILD_DIR" || echo "init: no build directory"
\$bb mount -t 9p -o \$opts scratch "/host$W" || echo "init: no scratch"
exec \$bb switch_root /host /bin/sh -c '/bin/sh "$W/inner.sh" >"$W/out" 2>&1; sync; /bin/busybox reboot -f'
EOF
chmod 755 "$T_DIR/initrd/init"
(cd "$T_DIR/initrd" && find . | LC_ALL=C sort | busybox cpio -o -H newc -R 0:0 2>/dev/null) >"$T_DIR/initrd.cpio"

# The checks, run in the guest as root, then as uid 65534.
cat >"$W/inner.sh" <<EOF
SM="$BUILD_DIR/sandmux"
W="$W"
EOF
cat >>"$W/inner.sh" <<'EOF'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
began=$(date +%s)
ok() { echo "ok - $* [$(($(date +%s) - began))s]"; }
not_ok() { echo "not ok - $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, for SECONDS of
# the clock (not a count of tries: under TCG on a slow host each try
# takes longer, and a count made the checks outlast qemu's bound).
wait_for() {
	end=$(($(date +%s) + $1)); shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
as() { if [ "$who" = root ]; then "$@"; else setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; fi; }
# in_group COMMAND...: COMMAND started from the delegated group (the
# server it starts begins there), for the delegated leg; else as is.
in_group() {
	if [ "$who" = delegated ]; then
		(echo "$(sh -c 'echo $PPID')" >/sys/fs/cgroup/deleg/cgroup.procs && "$@")
	else
		"$@"
	fi
}
sm() { as env HOME="$H" XDG_RUNTIME_DIR="$H/run" XDG_STATE_HOME="$H/state" XDG_CONFIG_HOME="$H/config" "$SM" -L v2 "$@"; }
pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
field() { pane_json "$1" | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p"; }
state_is() { case "$(field "$1" state)" in warm|active) return 0 ;; esac; return 1; }
probe_says() { sm probe | grep -q "$1"; }
capture_has() { sm capture -t "%$1" -S - | grep -qF -- "$2"; }
events_with() { grep '"kind":"killed"' "$H/state/sandmux/events.jsonl" 2>/dev/null | grep "\"pane\":$1," | grep -q "$2"; }

echo "# guest kernel $(uname -r), cgroup controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
# The delegated leg's group: what systemd's Delegate=yes makes of a
# unit's group for uid 65534 (the group and its cgroup.procs,
# cgroup.subtree_control and cgroup.threads are theirs), with the
# controllers enabled above it.
mkdir /sys/fs/cgroup/deleg
echo "+pids +memory +cpu" >/sys/fs/cgroup/cgroup.subtree_control
chown 65534:65534 /sys/fs/cgroup/deleg /sys/fs/cgroup/deleg/cgroup.procs \
	/sys/fs/cgroup/deleg/cgroup.subtree_control /sys/fs/cgroup/deleg/cgroup.threads
for who in root nobody delegated; do
	H=/run/h-$who
	mkdir -p "$H/run" "$H/state" "$H/config/sandmux" "$W/work/$who"
	chmod 700 "$H/run"
	echo '{ "profiles": { "bounded": { "pids_max": 32, "memory_max": "32M" } } }' \
		>"$H/config/sandmux/config.json"
	[ "$who" != root ] && chown -R 65534:65534 "$H" "$W/work/$who"
	# uid 65534's pane only says what holds it: its rlimits are
	# native-limits.sh's, on any host.
	bomb_cmd="timeout -s KILL 15 bash -c ':(){ :|:& };:; exec sleep 60' 2>/dev/null; echo BOMB-DONE; sleep 600"
	[ "$who" = nobody ] && bomb_cmd="exec sleep 600"
	[ "$who" = delegated ] && bomb_cmd="timeout -s KILL 15 bash -c ':(){ :|:& };:; exec sleep 60' 2>/dev/null; echo BOMB-DONE; sleep 600"
	bomb=$(in_group sm new -d -s bomb -x 80 -y 24 --backend native --profile bounded -c "$W/work/$who" -- \
		sh -c "$bomb_cmd" | pane_id)
	if ! wait_for 60 state_is "$bomb"; then
		# Nothing after this could pass: say why and go on.
		not_ok "$who: the pane is running ($(sm ls 2>&1 | tail -n 1))"
		sm kill-server >/dev/null 2>&1
		continue
	fi
	ok "$who: the pane is running"
	mech=$(pane_json "$bomb" | sed -n 's/.*"limits":{[^}]*"pids":"\([^"]*\)".*/\1/p')
	group=$(field "$bomb" cgroup)
	echo "# $who: pids held by '$mech', group '$group'"
	# First, while the bomb is at its worst: its group's process count,
	# until it reaches the limit, or the bomb's timeout ended it, or
	# 60 s of the clock passed (a loaded host's TCG is slow to start
	# bash; the bombers outlive the timeout, in the group).
	max=0 end=$(($(date +%s) + 60))
	while [ -n "$group" ] && [ "$max" -lt 32 ] && [ "$(date +%s)" -lt "$end" ]; do
		n=$(cat "$group/pids.current" 2>/dev/null || echo 0)
		[ "$n" -gt "$max" ] && max=$n
		[ "$who" != nobody ] && capture_has "$bomb" BOMB-DONE && break
		sleep 0.2
	done
	if [ "$who" = root ]; then
		check "root: sandmux probe says the limits are cgroup v2" probe_says '^limits: pids by cgroup v2 in /sys/fs/cgroup/sandmux-[0-9]*, memory by cgroup v2,'
		# ls --json, blanks taken out by pane_json
		check "root: ls --json says the pane's pids are held by cgroup v2" [ "$mech" = "cgroupv2" ]
		check "root: the pane's group is below the v2 root ($group)" \
			sh -c "case '$group' in /sys/fs/cgroup/sandmux-*/sandbox-*) [ -d '$group' ] ;; *) false ;; esac"
		check "root: pids.max is the profile's 32" [ "$(cat "$group/pids.max" 2>/dev/null)" = 32 ]
		check "root: memory.max is the profile's 32M" [ "$(cat "$group/memory.max" 2>/dev/null)" = 33554432 ]
		check "root: the group has the cpu controller too" grep -qw cpu "$group/cgroup.controllers"
		pid=$(field "$bomb" pid)
		[ -n "$pid" ] || pid=$(pane_json "$bomb" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
		check "root: the pane's bwrap child is in the group" sh -c "pgrep -P '$pid' | grep -qxF -f '$group/cgroup.procs'"
		echo "# root: at most $max processes in the bomb's group"
		check "root: the bomb grew (it ran)" [ "$max" -gt 8 ]
		check "root: the bomb never had more than pids_max processes ($max)" [ "$max" -le 32 ]
		check "root: the refusals are counted by the group (pids.events)" \
			sh -c "awk '/^max/ { exit !(\$2 > 0) }' '$group/pids.events'"
		check "root: the refused forks are a killed event naming the process limit" \
			wait_for 10 events_with "$bomb" 'process limit'
		check "root: the bomb ends at its timeout" wait_for 60 capture_has "$bomb" BOMB-DONE
		eater=$(sm new -d -s eat -x 80 -y 24 --backend native --profile bounded -c "$W/work/$who" -- \
			sh -c "head -c 256M /dev/zero | tail; echo EATER=\$?; sleep 600" | pane_id)
		check "root: the memory eater's pane ends its eating" wait_for 90 capture_has "$eater" EATER=
		egroup=$(field "$eater" cgroup)
		check "root: the eater was killed by its group (status 137)" capture_has "$eater" EATER=137
		check "root: memory.events counts the kill" \
			sh -c "awk '/^oom_kill/ { exit !(\$2 > 0) }' '$egroup/memory.events'"
		check "root: the kill is a killed event naming the memory limit" \
			wait_for 10 events_with "$eater" 'memory limit'
		sm kill-pane -t "%$eater" >/dev/null 2>&1
		check "root: kill-pane removes the pane's group" wait_for 20 sh -c "[ ! -d '$egroup' ]"
		server_dir=${group%/*}
		sm kill-server >/dev/null 2>&1
		check "root: kill-server removes the server's own directory" wait_for 20 sh -c "[ ! -d '$server_dir' ]"
	elif [ "$who" = delegated ]; then
		check "delegated: ls --json says cgroup v2" [ "$mech" = "cgroupv2" ]
		check "delegated: sandmux probe says so, in the delegated group" \
			probe_says '^limits: pids by cgroup v2 in /sys/fs/cgroup/deleg/sandmux-[0-9]*, memory by cgroup v2,'
		server_dir=${group%/*}
		check "delegated: the pane's group is in the delegated one ($group)" \
			sh -c "case '$group' in /sys/fs/cgroup/deleg/sandmux-*/sandbox-*) [ -d '$group' ] ;; *) false ;; esac"
		spid=$(sm ctl '{"cmd":"hello","version":1}' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
		check "delegated: the server moved itself into its leaf (it holds no group with children)" \
			grep -qx "$spid" "$server_dir/server/cgroup.procs"
		check "delegated: nothing is left in the delegated group itself" \
			sh -c "[ ! -s /sys/fs/cgroup/deleg/cgroup.procs ]"
		check "delegated: pids.max is the profile's 32" [ "$(cat "$group/pids.max" 2>/dev/null)" = 32 ]
		echo "# delegated: at most $max processes in the bomb's group"
		check "delegated: the bomb grew (it ran)" [ "$max" -gt 8 ]
		check "delegated: the bomb never had more than pids_max processes ($max)" [ "$max" -le 32 ]
		check "delegated: the bomb ends at its timeout" wait_for 60 capture_has "$bomb" BOMB-DONE
		sm kill-server >/dev/null 2>&1
		check "delegated: kill-server removes the server's directory and leaf" \
			wait_for 20 sh -c "[ ! -d '$server_dir' ]"
		check "delegated: ... and turns the controllers it enabled off again" \
			sh -c "[ -z \"\$(cat /sys/fs/cgroup/deleg/cgroup.subtree_control)\" ]"
	else
		check "nobody: no v2 group (the root is not theirs, no v1): ls --json says rlimit" [ "$mech" = rlimit ]
		check "nobody: ... and so does sandmux probe" probe_says '^limits: no control group to be had, rlimits'
		sm kill-server >/dev/null 2>&1
	fi
done
echo "# the checks took $(($(date +%s) - began)) s in the guest"
echo "ok - the guest ran every check"
EOF

khz=$(awk -F': ' '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
# qemu runs until the guest's last check, however slow TCG is on this
# host: it is stopped only when the guest stops making progress, no new
# byte on its console or in its results for 300 s (the guest's longest
# wait is 90 s of its clock), not after a fixed time.
qemu-system-x86_64 -M microvm,isa-serial=on -accel tcg -smp 2 -m 768 -nodefaults \
	-no-user-config -no-reboot -display none -serial "file:$T_DIR/console.log" \
	-kernel "$IMAGE/vmlinux" -initrd "$T_DIR/initrd.cpio" \
	-append "console=ttyS0 panic=-1 tsc_early_khz=$khz" \
	-fsdev "local,id=r,path=/,security_model=none,readonly=on,multidevs=remap" \
	-device virtio-9p-device,fsdev=r,mount_tag=hostroot \
	-fsdev "local,id=w,path=$W,security_model=none,multidevs=remap" \
	-device virtio-9p-device,fsdev=w,mount_tag=scratch >"$T_DIR/qemu.log" 2>&1 &
qemu=$!
seen=-1 still=0
while kill -0 "$qemu" 2>/dev/null; do
	now=$(cat "$T_DIR/console.log" "$W/out" 2>/dev/null | wc -c)
	if [ "$now" != "$seen" ]; then seen=$now still=0; else still=$((still + 1)); fi
	if [ "$still" -ge 300 ]; then
		echo "# the guest made no progress for 300 s: qemu stopped"
		kill "$qemu"
		break
	fi
	sleep 1
done
wait "$qemu"
rc=$?
[ -f "$W/out" ] && cat "$W/out"
if ! grep -q '^ok - the guest ran every check' "$W/out" 2>/dev/null; then
	not_ok "the guest ran to its last check (qemu exited $rc)"
	tail -n 20 "$T_DIR/console.log" "$T_DIR/qemu.log" | sed 's/^/# /'
fi
grep -q '^not ok' "$W/out" 2>/dev/null && T_FAILED=1
finish
