#!/bin/sh
# Evidence a flood cannot erase, with the real bwrap and a real server:
# a pane's 100,000 denied opens, each of a new name, leave another pane's
# earlier violations (a secret read and a refused connection) and the
# flooding pane's own first 100 in the events log; the pane is marked as
# flooding in `ls` and `ls --json` while it floods, and in the feed; identical
# violations fold into one line with a count (the log, `events`, the
# feed); a target longer than 1 KiB is cut and the event says so; what
# rotation keeps of a log two days old: a pane's first 100 violations,
# but not a refused connection or a lifecycle event older than a day.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# The helper from the plain build: inside the sandbox the filter denies
# ptrace, which LeakSanitizer's exit check needs (as supervisor.sh).
HB=$ROOT/build/helpers
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
FLOOD=${FLOOD_COUNT:-100000}

if ! command -v bwrap >/dev/null 2>&1 || [ ! -x "$HB/sv-flood" ]; then
	echo "not ok - needs bwrap and $HB/sv-flood (make build-tests)"
	exit 1
fi

export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh" "$T_DIR/work/bin"
echo "not-a-real-key" >"$HOME/.ssh/id_test"
W=$(cd "$T_DIR/work" && pwd -P)
# Copied into the work tree: the sandbox's /tmp is its own.
cp "$HB/sv-flood" "$W/bin/"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane() {
	name=$1
	shift
	sm new -d -s "$name" -x 200 -y 50 "$@" | pane_id
}
wait_done() { wait_for "${2:-30}" capture_has "$1" "ALL-DONE"; }
# logged PATTERN...: a line of the log or of its rotated files has them all
logged() {
	lines=$(cat "$LOG".5 "$LOG".4 "$LOG".3 "$LOG".2 "$LOG".1 "$LOG" 2>/dev/null | grep -F -- "$1")
	shift
	for pat in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -- "$pat"); done
	[ -n "$lines" ]
}
# folded PREFIX: how many violations the log's lines for targets
# starting with PREFIX stand for, and in how many lines
folded() {
	grep -hF "\"target\":\"$1" "$LOG" | grep '"kind":"violation"' | awk '
		{ n = 1; if (match($0, /"count":[0-9]+/)) n = substr($0, RSTART + 8, RLENGTH - 8); s += n }
		END { print s + 0, NR }'
}
not_logged() { ! logged "$@"; }
flooding() { [ "$(pane_field "$1" flooding)" = true ]; }
not_flooding() { [ "$(pane_field "$1" flooding)" = false ]; }

# --- a log from two days ago -------------------------------------------------
# Pane 901's first 100 violations stay for ever; its refused connection
# after them and pane 902's lifecycle are older than a day: they go.
mkdir -p -m 700 "$XDG_STATE_HOME/sandmux"
old=$(($(date +%s) - 2 * 24 * 3600))
i=0
while [ $i -lt 100 ]; do
	echo "{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/old/first-$i\",\"pane\":901,\"time\":$old}"
	i=$((i + 1))
done >"$LOG"
echo "{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":\"network-outbound\",\"target\":\"old.test:80\",\"pane\":901,\"time\":$old}" >>"$LOG"
echo "{\"event\":\"sandbox\",\"kind\":\"ready\",\"pane\":902,\"time\":$old}" >>"$LOG"
chmod 600 "$LOG"

# --- earlier evidence: a secret read and a refused connection --------------
witness=$(pane witness --backend native --profile agent -c "$W" -- sh -c \
	"cat ~/.ssh/id_test; curl -sS -m 10 -o /dev/null http://denied.test/witness; echo ALL-DONE; sleep 600")
wait_done "%$witness"
check "witness: its secret read is in the log" wait_for 5 logged '"kind":"violation"' \
	"\"target\":\"$HOME/.ssh/id_test\"" "\"pane\":$witness,"
check "witness: its refused connection is in the log" wait_for 5 logged '"action":"network-outbound"' \
	'"target":"denied.test:80"' "\"pane\":$witness,"

# --- identical violations fold into one line with a count -------------------
same="$HOME/.ssh/same"
fold=$(pane fold --backend native -c "$W" -- sh -c \
	"'$W/bin/sv-flood' 500 '$same' 100 same; echo ALL-DONE; sleep 600")
wait_done "%$fold"
target="$same/00000000-"
fold_total() { [ "$(folded "$target" | cut -d' ' -f1)" = 500 ]; }
wait_for 5 fold_total
check "fold: the 500 identical denials are all counted in the log ($(folded "$target" | cut -d' ' -f1))" fold_total
lines=$(folded "$target" | cut -d' ' -f2)
check "fold: in a few lines, not 500 (got $lines)" [ "$lines" -ge 2 -a "$lines" -le 10 ]
check "fold: a folded line carries its count" grep -qE "\"target\":\"$target.*\"count\":[0-9]{2,}" "$LOG"
sm events --json --action 'file-read*' >"$T_DIR/events.json"
check "fold: sandmux events shows the count" grep -qE "\"target\":\"$target.*\"count\":[0-9]{2,}" "$T_DIR/events.json"
sm events >"$T_DIR/events.txt"
check "fold: sandmux events (text) shows it as ×N" grep -qE "×[0-9]{2,}" "$T_DIR/events.txt"
feed=$(sm feed -t fold)
check "fold: the feed shows the 500 as one line ×500" wait_for 5 capture_has "$feed" "×500"

# --- a target longer than 1 KiB is cut, and the event says so ---------------
long=$(pane long --backend native -c "$W" -- sh -c \
	"'$W/bin/sv-flood' 1 '$HOME/.ssh/long' 3000; echo ALL-DONE; sleep 600")
wait_done "%$long"
check "long: the event says the target was cut, and from how long" \
	wait_for 5 logged "\"pane\":$long," '"target_cut":3000'
cut=$(grep -F "\"pane\":$long," "$LOG" | grep '"target_cut"' | sed 's/.*"target":"\([^"]*\)".*/\1/' | head -1)
check "long: the target kept is 1024 bytes (${#cut})" [ "${#cut}" = 1024 ]

# --- the flood --------------------------------------------------------------
began=$(date +%s)
# After the 100,000, the pane goes on flooding (one name, folded) until
# the marks are checked.
flood=$(pane flood --backend native -c "$W" -- sh -c \
	"'$W/bin/sv-flood' $FLOOD '$HOME/.ssh/flood' 400 >flood.out; \
	 while [ ! -e stop ]; do '$W/bin/sv-flood' 2000 '$HOME/.ssh/more' 100 same >/dev/null; done; \
	 echo ALL-DONE; sleep 600")
wait_for 300 test -s "$W/flood.out"
took=$(($(date +%s) - began))
check "flood: ls --json marks the pane as flooding while it floods" wait_for 10 flooding "$flood"
check "flood: ls marks it FLOODING" sh -c "\"$SANDMUX_BIN\" -L $T_NAME ls | grep -q '%$flood .*FLOODING'"
touch "$W/stop"
wait_done "%$flood" 30
check "flood: every one of its $FLOOD opens was refused ($(cat "$W/flood.out"))" \
	grep -qx "flood $FLOOD refused $FLOOD" "$W/flood.out"
check "flood: the log rotated (${took}s for the flood)" [ -e "$LOG.5" ]
check "flood: its end is logged" wait_for 10 logged '"kind":"flood"' "\"pane\":$flood," '"state":"end"'
check "flood: no longer marked once it stopped" wait_for 10 not_flooding "$flood"
# The feed opened now: its backlog ends with the flood's end.  (A feed
# open during the flood redraws once per event: the flood then takes a
# minute instead of seconds.)
ffeed=$(sm feed -t flood)
check "flood: the feed shows the flood, marked FLOODING" wait_for 10 capture_has "$ffeed" "FLOODING"
check "flood: and how many it made" capture_has "$ffeed" "flood over: "

check "after the flood: the witness's secret read is still in the log" \
	logged '"kind":"violation"' "\"target\":\"$HOME/.ssh/id_test\"" "\"pane\":$witness,"
check "after the flood: the witness's refused connection is still in the log" \
	logged '"action":"network-outbound"' '"target":"denied.test:80"' "\"pane\":$witness,"
check "after the flood: the witness pane's lifecycle is still in the log" \
	logged '"kind":"starting"' "\"pane\":$witness,"
check "after the flood: a pane's first 100 violations of two days ago are still in the log" \
	sh -c "cat '$LOG'.[1-5] '$LOG' | grep -F '\"pane\":901,' | grep -c '\"target\":\"/old/first-' | grep -qx 100"
check "after the flood: a refused connection of two days ago, after them, is not" not_logged old.test:80
check "after the flood: a lifecycle event of two days ago is not" sh -c "! cat '$LOG'.[1-5] '$LOG' | grep -q '\"pane\":902,'"
first=0
for i in 00000000 00000050 00000099; do
	logged "\"pane\":$flood," "\"target\":\"$HOME/.ssh/flood/$i-" || first=$((first + 1))
done
check "after the flood: the flooding pane's first 100 violations are still in the log ($first missing)" \
	[ "$first" = 0 ]
check "every log line is whole JSON" sh -c "! cat '$LOG'.[1-5] '$LOG' | grep -v '^{.*}\$' | grep -q ."
size=$(cat "$LOG".[1-5] "$LOG" | wc -c)
check "the log stays bounded ($size bytes in six files)" [ "$size" -lt 80000000 ]
finish
