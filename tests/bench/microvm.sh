#!/bin/sh
# Bench: how long a microvm pane takes to its first prompt, cold and
# from the prepared VM, and what each pane's qemu holds in RAM.
#
# Cold: a server with SANDMUX_MICROVM_PREPARE=0, so every split boots a
# guest.  Warm: the default server, where each confirmed microvm pane
# leaves the next VM booted; the bench waits WARM_GAP seconds after each
# sample so that VM has booted before the next split.  A sample is the
# time from starting `sandmux split --backend microvm` to the pane's
# interactive bash showing its prompt (capture polled every 20 ms).
# Reports medians of RUNS samples, the VmRSS of each pane's qemu and the
# CPU time qemu spent until the prompt (on a busy host the wall time is
# mostly waiting for a CPU; the CPU time is what the start costs): in
# all, and from the split on (for a prepared VM: what the launch itself
# cost, its boot left out).
#
#   sh tests/bench/microvm.sh [BUILD_DIR]
#   (targets under TCG: cold <= 4 s, warm <= 1 s, median of 5)
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
RUNS=${BENCH_MICROVM_RUNS:-5}
WARM_GAP=${BENCH_MICROVM_GAP:-8}
NAME=bmicrovm$$
W=$(mktemp -d /var/tmp/sandmux-bench-microvm.XXXXXX) || exit 1
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
[ -n "$SANDMUX_MICROVM_DIR" ] || export SANDMUX_MICROVM_DIR="$ROOT/$BUILD/microvm"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$W/work"
chmod 700 "$XDG_RUNTIME_DIR"
cd "$W/work" || exit 1
trap '"$SM" -L "$NAME" kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT

sm() { "$SM" -L "$NAME" "$@"; }
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
newest() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }

echo "== microvm: split to the first prompt, cold and prepared (median of $RUNS)"
if ! sm probe | grep -q '^microvm: available'; then
	echo "microvm: skipped, $(sm probe | grep microvm)"
	exit 0
fi
accel=$(sm probe | sed -n 's/^microvm: available (\(.*\))/\1/p')
sm kill-server >/dev/null 2>&1

cpu_of() { # PID: its CPU time so far, in seconds
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($12 + $13) / hz }'
}
# sample: one split; prints seconds to the prompt, the qemu's RSS (kB),
# its CPU time in all and since the split.
sample() {
	# The newest VM the server booted: the prepared one, if any.
	ready_vm=$(sed -n 's/.*microvm: qemu pid \([0-9]*\).*/\1/p' \
		"$XDG_STATE_HOME/sandmux/server-$NAME.log" 2>/dev/null | tail -1)
	cpu0=$(cpu_of "${ready_vm:-0}")
	began=$(now)
	sm split -t b -v --backend microvm -- /bin/bash --norc --noprofile -i >/dev/null 2>&1
	p=$(newest)
	i=0
	while [ "$i" -lt 1500 ] && ! sm capture -t "$p" | grep -q 'bash-'; do
		sleep 0.02
		i=$((i + 1))
	done
	took=$(echo "$(now) - $began" | bc)
	pid=$(sm ls --json | awk -v id="$p" '$1 == "\"id\":" { c = $2 + 0 } c == id && $1 == "\"pid\":" { print $2 + 0; exit }')
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	# qemu's CPU time so far: what the start costs whatever the load.
	cpu=$(cpu_of "$pid")
	[ "$pid" = "$ready_vm" ] || cpu0=0
	sm kill-pane -t "%$p" >/dev/null 2>&1
	echo "$took ${rss:-0} ${cpu:-0} $(echo "${cpu:-0} - ${cpu0:-0}" | bc)"
}

run_series() { # LABEL GAP: RUNS samples on the current server
	: >"$W/$1"
	for n in $(seq "$RUNS"); do
		sleep "$2"
		sample >>"$W/$1"
	done
	echo "$1 ($accel): median $(cut -d' ' -f1 "$W/$1" | median) s" \
		"[$(cut -d' ' -f1 "$W/$1" | tr '\n' ' ')]" \
		"qemu RSS median $(($(cut -d' ' -f2 "$W/$1" | median) / 1024)) MiB," \
		"qemu CPU time at the prompt (a prepared VM's boot included) median $(cut -d' ' -f3 "$W/$1" | median) s," \
		"of it since the split median $(cut -d' ' -f4 "$W/$1" | median) s" \
		"[$(cut -d' ' -f4 "$W/$1" | tr '\n' ' ')]," \
		"load average $(cut -d' ' -f1 /proc/loadavg)"
}

SANDMUX_MICROVM_PREPARE=0 sm new -d -s b -x 200 -y 50 -- /bin/sh >/dev/null
run_series cold 1
sm kill-server >/dev/null 2>&1
sm new -d -s b -x 200 -y 50 -- /bin/sh >/dev/null
# The first split boots cold and leaves a prepared VM behind.
sample >/dev/null
run_series warm "$WARM_GAP"
