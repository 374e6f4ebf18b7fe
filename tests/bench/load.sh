#!/bin/sh
# Floods and load: PANES panes (default 32) print continuously for
# SECONDS (default 60) while two clients attach and detach in a loop
# (the real TUI on a PTY: build/helpers/ptyharness drain) and a third
# client scripts `capture` and `ls` against random panes.  One pane
# prints a known sequence in bursts through the flood.  Afterwards:
#   - the server is alive and answers `ls` within 5 s;
#   - every pane still exists;
#   - its RSS is reported (VmRSS, VmHWM) and must stay under
#     LOAD_RSS_LIMIT_MB (default 1024);
#   - the known pane's output, captured back, has the expected checksum
#     (nothing lost or reordered in the emulator and scrollback);
#   - the slowest capture/ls during the flood is reported, and must be
#     under 5 s.
# Panes are sessions of four; every fourth pane is `native`.
#
# usage: tests/bench/load.sh [PANES [SECONDS]]
# (tests/fault/load-short.sh runs 8 panes for 10 s in make check.)
. "$(dirname "$0")/../lib.sh"
PANES=${1:-32}
SECS=${2:-60}
RSS_LIMIT=${LOAD_RSS_LIMIT_MB:-1024}
BUILD_DIR=${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}
HARNESS="$BUILD_DIR/helpers/ptyharness"
KNOWN_LINES=4000
LW=$(mktemp -d /var/tmp/sandmux-load.XXXXXX)
chmod 755 "$LW"
trap 'kill $LOOPS 2>/dev/null; sm kill-server >/dev/null 2>&1; rm -rf "$LW" "$T_DIR" ${T_STAGE:+"$T_STAGE"}' EXIT
if [ ! -x "$HARNESS" ]; then
	not_ok "ptyharness is built ($HARNESS)"
	finish
fi
quiet() { "$@" >/dev/null 2>&1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The known pane: KNOWN_LINES lines in bursts of 100, then a sentinel.
cat >"$LW/known.sh" <<'KNOWN'
i=0
while [ "$i" -lt "$1" ]; do
	j=0
	while [ "$j" -lt 100 ]; do
		i=$((i + 1)); j=$((j + 1))
		echo "known $i $(((i * 7919) % 100003))"
	done
	sleep 0.1
done
echo KNOWN-DONE
exec sleep 100000
KNOWN
expected=$(awk -v n="$KNOWN_LINES" 'BEGIN { for (i = 1; i <= n; i++) print "known " i " " (i * 7919) % 100003 }' | cksum)

start=$(now_ms)
i=0
s=0
while [ "$i" -lt "$PANES" ]; do
	backend=none
	[ $((i % 4)) -eq 3 ] && backend=native
	if [ "$i" -eq 0 ]; then
		cmd="/bin/sh $LW/known.sh $KNOWN_LINES"
	else
		cmd="/usr/bin/yes load-pane-$i-abcdefghijklmnopqrstuvwxyz-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	fi
	if [ $((i % 4)) -eq 0 ]; then
		s=$((i / 4))
		sm new -d -s "s$s" -x 200 -y 60 -c "$LW" --backend "$backend" -- $cmd >/dev/null
	else
		sm split -t "s$s" -h --backend "$backend" -c "$LW" -- $cmd >/dev/null 2>&1 ||
			sm split -t "s$s" -v --backend "$backend" -c "$LW" -- $cmd >/dev/null
	fi
	i=$((i + 1))
done
SESSIONS=$((s + 1))
npanes() { sm ls --json | grep -c '"id":'; }
check "setup: $PANES panes in $SESSIONS sessions ($(($(now_ms) - start)) ms)" [ "$(npanes)" -eq "$PANES" ]
SERVER=$(for d in /proc/[0-9]*; do
	{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -qF -- "-L $T_NAME server" && echo "${d#/proc/}"
done | head -1)
END=$(($(now_ms) + SECS * 1000))

# Two clients attaching and detaching: each cycle a TUI client on a PTY,
# killed after 1-3 s (its PTY closes, the client exits: a detach).
client_loop() {
	n=0
	while [ "$(now_ms)" -lt "$END" ]; do
		timeout -k 2 "$((1 + (n + $1) % 2)).$((n * 3 % 10))" "$HARNESS" drain 120 40 -- \
			"$SANDMUX_BIN" -L "$T_NAME" attach -t "s$((n % SESSIONS))" >/dev/null 2>&1
		n=$((n + 1))
	done
	echo "$n" >"$LW/client$1"
}
# The scripting client: capture and ls, timing each.
capture_loop() {
	n=0 bad=0 worst=0
	while [ "$(now_ms)" -lt "$END" ]; do
		t0=$(now_ms)
		sm capture -t "%$((n % PANES + 1))" -S - >/dev/null 2>&1 || bad=$((bad + 1))
		sm ls >/dev/null 2>&1 || bad=$((bad + 1))
		dt=$(($(now_ms) - t0))
		[ "$dt" -gt "$worst" ] && worst=$dt
		n=$((n + 1))
	done
	echo "$n $bad $worst" >"$LW/capture"
}
client_loop 0 &
LOOPS=$!
client_loop 1 &
LOOPS="$LOOPS $!"
capture_loop &
LOOPS="$LOOPS $!"
rss_peak=0
while [ "$(now_ms)" -lt "$END" ]; do
	r=$(sed -n 's/^VmRSS:[ \t]*\([0-9]*\) kB/\1/p' "/proc/$SERVER/status" 2>/dev/null)
	[ -n "$r" ] && [ "$r" -gt "$rss_peak" ] && rss_peak=$r
	sleep 1
done
wait $LOOPS
LOOPS=""

t0=$(now_ms)
check "after ${SECS} s: the server is alive" kill -0 "$SERVER"
check "... and answers ls within 5 s" quiet timeout 5 "$SANDMUX_BIN" -L "$T_NAME" ls
ls_ms=$(($(now_ms) - t0))
check "... all $PANES panes still exist" [ "$(npanes)" -eq "$PANES" ]
rss=$(sed -n 's/^VmRSS:[ \t]*\([0-9]*\) kB/\1/p' "/proc/$SERVER/status")
hwm=$(sed -n 's/^VmHWM:[ \t]*\([0-9]*\) kB/\1/p' "/proc/$SERVER/status")
echo "# load: server RSS $((rss / 1024)) MiB now, $((rss_peak / 1024)) MiB peak sampled, VmHWM $((hwm / 1024)) MiB"
check "... RSS is bounded: VmHWM $((hwm / 1024)) MiB < $RSS_LIMIT MiB" [ "$((hwm / 1024))" -lt "$RSS_LIMIT" ]
read -r cycles0 <"$LW/client0"
read -r cycles1 <"$LW/client1"
read -r caps bad worst <"$LW/capture"
echo "# load: clients attached/detached $cycles0 + $cycles1 times; $caps capture+ls rounds, $bad failed, slowest $worst ms; ls after the flood $ls_ms ms"
check "... both clients cycled (>= 3 times each)" [ "$cycles0" -ge 3 ] && [ "$cycles1" -ge 3 ]
check "... the scripted captures all succeeded ($caps rounds)" [ "$bad" -eq 0 ] && [ "$caps" -gt 0 ]
check "... the slowest capture+ls took $worst ms (< 5000)" [ "$worst" -lt 5000 ]
wait_for 20 capture_has %1 KNOWN-DONE
got=$(sm capture -t %1 -S - | grep '^known ' | cksum)
check "the known pane's $KNOWN_LINES lines survive intact (cksum $got, expected $expected)" [ "$got" = "$expected" ]
finish
