#!/bin/sh
# Bench: reading the work tree from a microvm guest against a native
# pane, in the same run.  The work tree holds FILES small files (default
# 5,000, 64 bytes each, 50 directories); a sample is `find` over it with
# `cat` of every file, run in the pane's shell, timed on the host from
# send-keys to the done file the command writes last.  Native and
# microvm samples are interleaved (RUNS each, default 3) so drift hits
# both alike; the report gives the medians and microvm / native.  Each
# read goes through the guest's 9p client, the virtio serial port and
# diod under TCG, so this is the cost of the share, not of the disk
# (the host's page cache holds the tree after the first sample).
#
#   sh tests/bench/microvm-read.sh [BUILD_DIR]
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
RUNS=${BENCH_READ_RUNS:-3}
FILES=${BENCH_READ_FILES:-5000}
NAME=bread$$
# Outside /tmp, which is private in the guest.
W=$(mktemp -d /var/tmp/sandmux-bench-read.XXXXXX) || exit 1
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
export SANDMUX_MICROVM_PREPARE=0
[ -n "$SANDMUX_MICROVM_DIR" ] || export SANDMUX_MICROVM_DIR="$ROOT/$BUILD/microvm"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$W/work/tree"
chmod 700 "$XDG_RUNTIME_DIR"
trap '"$SM" -L "$NAME" kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT

sm() { "$SM" -L "$NAME" "$@"; }
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
backend_of() { # PANE
	sm ls --json | awk -v id="$1" '$1 == "\"id\":" { c = $2 + 0 }
		c == id && $1 == "\"backend\":" { gsub(/[",]/, "", $2); print $2; exit }'
}

echo "== microvm-read: find + cat of $FILES small files in the work tree, microvm / native (median of $RUNS)"
if ! sm probe | grep -q '^microvm: available' || ! sm probe | grep -q '^native: available\|sandbox: native ON'; then
	echo "microvm-read: skipped ($(sm probe | tr '\n' ' '))"
	sm kill-server >/dev/null 2>&1
	exit 0
fi
sm kill-server >/dev/null 2>&1
awk -v n="$FILES" -v dir="$W/work/tree" 'BEGIN {
	for (i = 0; i < n; i++) {
		d = sprintf("%s/d%02d", dir, i % 50)
		if (i < 50) system("mkdir -p " d)
		f = sprintf("%s/f%05d", d, i)
		printf "%063d\n", i >f
		close(f)
	}
}'
cat >"$W/work/read.sh" <<'EOF'
find tree -type f -exec cat {} + >/dev/null
: >"done.$1"
EOF
cd "$W/work" || exit 1
sm new -d -s b -x 200 -y 50 -- /bin/sh >/dev/null
native=$(sm split -t b -v --backend native -- /bin/bash --norc --noprofile -i | sed -n 's/.*%\([0-9]*\).*/\1/p')
vm=$(sm split -t b -v --backend microvm -- /bin/bash --norc --noprofile -i | sed -n 's/.*%\([0-9]*\).*/\1/p')
n=0
while [ "$n" -lt 1500 ] && { [ "$(backend_of "$native")" != native ] || [ "$(backend_of "$vm")" != microvm ]; }; do
	sleep 0.05
	n=$((n + 1))
done
if [ "$(backend_of "$vm")" != microvm ] || [ "$(backend_of "$native")" != native ]; then
	echo "microvm-read: the panes did not start (native: $(backend_of "$native"), microvm: $(backend_of "$vm"))"
	exit 1
fi

sample() { # PANE TAG: seconds for one find + cat in the pane
	rm -f "done.$2"
	began=$(now)
	sm send-keys -t "$1" "sh read.sh $2" Enter
	n=0
	while [ ! -e "done.$2" ] && [ "$n" -lt 60000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	echo "$(now) - $began" | bc
}
: >"$W/native"
: >"$W/microvm"
for r in $(seq "$RUNS"); do
	sample "$native" "n$r" >>"$W/native"
	sample "$vm" "v$r" >>"$W/microvm"
done
n_med=$(median <"$W/native")
v_med=$(median <"$W/microvm")
echo "native: median $n_med s [$(tr '\n' ' ' <"$W/native")]"
echo "microvm: median $v_med s [$(tr '\n' ' ' <"$W/microvm")]"
echo "microvm / native: $(echo "scale=1; $v_med / $n_med" | bc -l)x, load average $(cut -d' ' -f1 /proc/loadavg)"
