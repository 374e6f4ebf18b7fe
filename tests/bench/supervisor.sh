#!/bin/sh
# Bench: what the seccomp shim and supervisor cost against bare bwrap.
#
# Two workloads, RUNS times each (default 5), interleaved so drift hits
# both alike, medians reported:
#   tar   extract a tar of 20,000 small files (every create goes through
#         the supervisor and is emulated; target <= 1.25x bare bwrap)
#   walk  find + cat over the extracted tree (every open is a
#         notification answered CONTINUE; target <= 1.15x)
# "supervised" is a real native pane of a real server (bwrap + shim +
# supervisor); "bare" is bwrap with the same namespaces and mounts run
# directly, no shim.  Each run times itself inside the sandbox.
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
cat >"$W/work.sh" <<'EOF'
cd "$1" || exit 1
mkdir "x-$2-$3" || exit 1
t0=$(date +%s%N)
tar -xf src.tar -C "x-$2-$3"
t1=$(date +%s%N)
find "x-$2-$3" -type f -exec cat {} + >/dev/null
t2=$(date +%s%N)
echo "$(((t1 - t0) / 1000000)) $(((t2 - t1) / 1000000))" >>"out-$2"
EOF

bare() {
	bwrap --die-with-parent --unshare-user --unshare-pid --unshare-ipc --unshare-uts \
		--unshare-cgroup-try --cap-drop ALL --ro-bind / / --bind "$W" "$W" --tmpfs /tmp \
		--dev /dev --proc /proc --chdir "$W" -- sh "$W/work.sh" "$W" bare "$1"
}

supervised() {
	before=$(wc -l <"$W/out-sup")
	sm new -d -s "run$1" --backend native -c "$W" -- sh "$W/work.sh" "$W" sup "$1" >/dev/null
	i=0
	while [ "$(wc -l <"$W/out-sup")" -le "$before" ] && [ $i -lt 6000 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

echo "== $RUNS runs each, interleaved"
: >"$W/out-sup"
: >"$W/out-bare"
sm new -d -s keep -- /bin/sh >/dev/null
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
echo "RATIO supervisor tar $(ratio "$tar_sup" "$tar_bare")x (target <= 1.25x)"
echo "walk find+cat $FILES files: bare bwrap ${walk_bare} ms, supervised ${walk_sup} ms"
echo "RATIO supervisor walk $(ratio "$walk_sup" "$walk_bare")x (target <= 1.15x)"

# The floor: one notification alone, answered CONTINUE with no work
# (build/helpers/notify-floor), against what each target allows per call:
# the tar makes one supervised create per file, the walk one open per
# file plus one per directory (200).
FLOOR="$ROOT/$BUILD/helpers/notify-floor"
if [ -x "$FLOOR" ]; then
	added=$("$FLOOR" 20000 | sed -n 's/.*"added_us":\([0-9.]*\).*/\1/p')
	echo "floor: one seccomp notification adds ${added:-?} us per call here;" \
		"the targets allow $(awk -v b="$tar_bare" -v n="$FILES" 'BEGIN { printf "%.1f", 0.25 * b * 1000 / n }') us" \
		"per create (tar) and $(awk -v b="$walk_bare" -v n="$FILES" 'BEGIN { printf "%.1f", 0.15 * b * 1000 / (n + 200) }') us per open (walk)"
fi
