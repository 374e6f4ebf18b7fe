#!/bin/sh
# Egress proxy bench: the HTTP CONNECT proxy against a direct loopback
# connection in the same run (build/helpers/egress-bench against
# build/helpers/egress-run).  Targets (issue 7):
#
#   bulk throughput through a tunnel   >= 0.9x direct
#   added connect latency (median)     <  1 ms
#   1,000 concurrent tunnels           no errors
#
# The throughput ratio is the median over EGRESS_PAIRS back-to-back pairs
# of one direct and one tunnelled transfer, of each pair's ratio; the
# MB/s figures are the medians of each kind (see bulk_pairs in
# tests/helpers/egress-bench.c for why).
#
#   sh tests/bench/egress.sh [BUILD]
#      (EGRESS_MB, EGRESS_PAIRS, EGRESS_ROUNDS, EGRESS_TUNNELS)
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN="$ROOT/$BUILD/helpers/egress-run"
BENCH="$ROOT/$BUILD/helpers/egress-bench"
MB=${EGRESS_MB:-512}
PAIRS=${EGRESS_PAIRS:-11}
ROUNDS=${EGRESS_ROUNDS:-500}
TUNNELS=${EGRESS_TUNNELS:-1000}
W=$(mktemp -d /tmp/sandmux-egress-bench.XXXXXX)
PROXY=""
trap '[ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; rm -rf "$W"' EXIT

for b in "$RUN" "$BENCH"; do
	[ -x "$b" ] || { echo "egress bench: $b missing (make build-tests)"; exit 1; }
done
# The bench origin listens on 127.0.0.1: listed exactly, so allowed.
"$RUN" --allow 127.0.0.1 >"$W/proxy.out" 2>"$W/proxy.err" &
PROXY=$!
i=0
while [ "$i" -lt 100 ] && ! grep -q '"ready"' "$W/proxy.out"; do
	sleep 0.05
	i=$((i + 1))
done
PORT=$(sed -n 's/.*"http":\([0-9]*\).*/\1/p' "$W/proxy.out")
[ -n "$PORT" ] || { echo "egress bench: proxy did not start: $(cat "$W/proxy.err")"; exit 1; }

echo "== egress: CONNECT proxy vs direct loopback (${PAIRS} pairs of ${MB} MB bulk, ${ROUNDS} connects, ${TUNNELS} tunnels)"
OUT=$("$BENCH" "$PORT" "$MB" "$ROUNDS" "$TUNNELS" "$PAIRS") || { echo "egress bench: failed"; exit 1; }
field() { printf '%s' "$OUT" | sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p"; }
verdict() { if [ "$1" = 1 ]; then echo "meets target"; else echo "MISSES target"; fi; }
ratio=$(field ratio)
added=$(field latency_added_ms)
terr=$(field tunnel_errors)
printf 'throughput  direct %s MB/s, through proxy %s MB/s: %sx, pairs %s to %s (target >= 0.9x, %s)\n' \
	"$(field direct_mbps)" "$(field proxy_mbps)" "$ratio" "$(field ratio_min)" "$(field ratio_max)" \
	"$(verdict "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9) }')")"
printf 'latency     connect+echo direct %s ms, through a new tunnel %s ms: +%s ms median (target < 1 ms, %s)\n' \
	"$(field latency_direct_ms)" "$(field latency_proxy_ms)" "$added" \
	"$(verdict "$(awk -v a="$added" 'BEGIN { print (a < 1) }')")"
printf 'concurrent  %s tunnels held at once, %s errors (target 0, %s)\n' \
	"$(field tunnels)" "$terr" "$(verdict "$([ "$terr" = 0 ] && echo 1)")"
