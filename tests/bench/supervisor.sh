#!/bin/sh
# Bench: what the seccomp shim and supervisor cost against bare bwrap.
#
# Two workloads, RUNS times each (default 5), interleaved so drift hits
# both alike, medians reported:
#   tar   extract a tar of 20,000 small files (every create goes through
#         the supervisor and is emulated)
#   walk  find + cat over the extracted tree (every open is a
#         notification; the supervisor opens the file and hands the fd
#         over, as it does every plain read)
# The targets are issue 13's: at most 10% above the last figures
# recorded before it (2.03x and 1.93x), so tar <= 2.23x, walk <= 2.12x.
# (The first goals, 1.25x and 1.15x, allow less per call than one bare
# notification costs on a 2-vCPU guest: see the floor line.)
# "supervised" is a real native pane of a real server (bwrap + shim +
# supervisor); "bare" is bwrap with the same namespaces and mounts run
# directly, no shim.  Each run times itself inside the sandbox.
#
# Wall times on a shared host swing with its load and with the state of
# its file system (ext4 allocates new inodes slowly for a while after
# many were freed).  So the bench also prints CPU times, medians too:
# the workload's own (user + system, from `times` inside the sandbox)
# and the supervisor thread's ("sandmux-sv", from /proc), per call.
#
#   sh tests/bench/supervisor.sh [BUILD_DIR]
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SM="$ROOT/$BUILD/sandmux"
RUNS=${BENCH_SUPERVISOR_RUNS:-5}
FILES=${BENCH_SUPERVISOR_FILES:-20000}
# Not under /tmp: the sandbox has a private /tmp.
W=$(mktemp -d /var/tmp/sandmux-bench-sv.XXXXXX) || exit 1
W=$(cd "$W" && pwd -P)
export XDG_RUNTIME_DIR="$W/run" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
trap '"$SM" -L bsv kill-server >/dev/null 2>&1; rm -rf "$W"' EXIT

sm() { "$SM" -L bsv "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

command -v bwrap >/dev/null || { echo "bench: needs bwrap"; exit 1; }

echo "== making a tar of $FILES small files"
mkdir -p "$W/gen"
awk -v n="$FILES" -v dir="$W/gen" 'BEGIN {
	for (i = 0; i < n; i++) {
		d = sprintf("%s/d%03d", dir, i % 200)
		if (i < 200) system("mkdir -p " d)
		f = sprintf("%s/f%05d.c", d, i)
		printf "/* file %d */\nint f%d(void) { return %d; }\n", i, i, i > f
		close(f)
	}
}'
tar -cf "$W/src.tar" -C "$W/gen" .
rm -rf "$W/gen"

# The workload, run inside either sandbox: times in ms, appended to
# out-LABEL as "TAR WALK".  Every run extracts into a fresh directory and
# nothing is deleted until the end: ext4 allocates new inodes slowly
# right after many were freed, which would swamp what is measured.
# Also the workload's CPU in ms (children's user + system from `times`),
# "TAR WALK TAR_CPU WALK_CPU"; between the two it touches mark-LABEL-N
# and pauses, so that the supervisor thread's CPU can be read there.
cat >"$W/work.sh" <<'EOF'
cd "$1" || exit 1
mkdir "x-$2-$3" || exit 1
# `times` in this shell (in a $(...) it would count the subshell's
# children): its second line is the children's user and system time.
cpu() { tail -n 1 "times-$1-$2" | tr 'ms' '  ' | awk '{ printf "%d", ($2 + $4) * 1000 + ($1 + $3) * 60000 }'; }
t0=$(date +%s%N)
tar -xf src.tar -C "x-$2-$3"
t1=$(date +%s%N)
times >"times-$2-$3"
c1=$(cpu "$2" "$3")
: >"mark-$2-$3"
sleep 0.3
t1b=$(date +%s%N)
find "x-$2-$3" -type f -exec cat {} + >/dev/null
t2=$(date +%s%N)
times >"times-$2-$3"
c2=$(cpu "$2" "$3")
echo "$(((t1 - t0) / 1000000)) $(((t2 - t1b) / 1000000)) $c1 $((c2 - c1))" >>"out-$2"
EOF

bare() {
	bwrap --die-with-parent --unshare-user --unshare-pid --unshare-ipc --unshare-uts \
		--unshare-cgroup-try --cap-drop ALL --ro-bind / / --bind "$W" "$W" --tmpfs /tmp \
		--dev /dev --proc /proc --chdir "$W" -- sh "$W/work.sh" "$W" bare "$1"
}

# The supervisor thread's CPU so far, in ms (utime + stime, in ticks).
sv_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "$SV_STAT" 2>/dev/null || echo 0
}

supervised() {
	before=$(wc -l <"$W/out-sup")
	c0=$(sv_cpu)
	sm new -d -s "run$1" --backend native -c "$W" -- sh "$W/work.sh" "$W" sup "$1" >/dev/null
	i=0
	while [ ! -e "$W/mark-sup-$1" ] && [ $i -lt 30000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	c1=$(sv_cpu)
	i=0
	while [ "$(wc -l <"$W/out-sup")" -le "$before" ] && [ $i -lt 6000 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	echo "$((c1 - c0)) $(($(sv_cpu) - c1))" >>"$W/sv-cpu"
}

echo "== $RUNS runs each, interleaved"
: >"$W/out-sup"
: >"$W/out-bare"
sm new -d -s keep -- /bin/sh >/dev/null
# A native pane first, so that the supervisor thread is there to find.
sm new -d -s warm --backend native -- /bin/sh >/dev/null
: >"$W/sv-cpu"
SV_STAT=
i=0
while [ -z "$SV_STAT" ] && [ $i -lt 200 ]; do
	SRV=$(pgrep -n -f -- "sandmux -L bsv server")
	for t in /proc/"$SRV"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = sandmux-sv ] && SV_STAT="$t/stat"
	done
	[ -n "$SV_STAT" ] || sleep 0.05
	i=$((i + 1))
done
for r in $(seq 1 "$RUNS"); do
	bare "$r"
	supervised "$r"
done
[ "$(wc -l <"$W/out-sup")" -eq "$RUNS" ] || { echo "bench: supervised runs did not finish"; exit 1; }

tar_bare=$(cut -d' ' -f1 "$W/out-bare" | median)
tar_sup=$(cut -d' ' -f1 "$W/out-sup" | median)
walk_bare=$(cut -d' ' -f2 "$W/out-bare" | median)
walk_sup=$(cut -d' ' -f2 "$W/out-sup" | median)
echo "tar  extract $FILES files: bare bwrap ${tar_bare} ms, supervised ${tar_sup} ms"
echo "RATIO supervisor tar $(ratio "$tar_sup" "$tar_bare")x (target <= 2.23x)"
echo "walk find+cat $FILES files: bare bwrap ${walk_bare} ms, supervised ${walk_sup} ms"
echo "RATIO supervisor walk $(ratio "$walk_sup" "$walk_bare")x (target <= 2.12x)"
per_call() { awk -v ms="$1" -v n="$2" 'BEGIN { printf "%.1f", ms * 1000 / n }'; }
for w in tar walk; do
	col=3 svcol=1 calls=$FILES
	[ $w = walk ] && col=4 svcol=2 calls=$((FILES + 200))
	cb=$(cut -d' ' -f$col "$W/out-bare" | median)
	cs=$(cut -d' ' -f$col "$W/out-sup" | median)
	sv=$(cut -d' ' -f$svcol "$W/sv-cpu" | median)
	if [ -n "$SV_STAT" ]; then
		# The supervisor does the creates itself: what the file system
		# costs moves from the workload's CPU to its thread's.
		echo "cpu  $w: the workload's own ${cb} ms bare, ${cs} ms supervised;" \
			"the supervisor thread ${sv} ms; added CPU $(per_call "$((cs + sv - cb))" "$calls") us per call"
	else
		echo "cpu  $w: the workload's own ${cb} ms bare, ${cs} ms supervised (no supervisor thread found)"
	fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# The floor: one notification alone, answered CONTINUE with no work
# (build/helpers/notify-floor), and answered with an fd as the
# supervisor's emulated opens are, against what each target allows per call:
# the tar makes one supervised create per file, the walk one open per
# file plus one per directory (200).
FLOOR="$ROOT/$BUILD/helpers/notify-floor"
if [ -x "$FLOOR" ]; then
	added=$("$FLOOR" 20000 | sed -n 's/.*"added_us":\([0-9.]*\).*/\1/p')
	# The same, answered as an emulated open is (ADDFD with SEND: the
	# answering thread sleeps until the child has installed the fd).
	added_fd=$("$FLOOR" 20000 0 0 addfd | sed -n 's/.*"added_us":\([0-9.]*\).*/\1/p')
	echo "floor: one seccomp notification adds ${added:-?} us per call here answered CONTINUE," \
		"${added_fd:-?} us answered with an fd opened by the listener (ADDFD, as every emulated open);" \
		"the targets allow $(awk -v b="$tar_bare" -v n="$FILES" 'BEGIN { printf "%.1f", 1.23 * b * 1000 / n }') us" \
		"per create (tar) and $(awk -v b="$walk_bare" -v n="$FILES" 'BEGIN { printf "%.1f", 1.12 * b * 1000 / (n + 200) }') us per open (walk)"
fi
