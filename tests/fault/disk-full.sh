#!/bin/sh
# Fault: the event log's disk fills up.  $XDG_STATE_HOME (where
# events.jsonl and the server log live) is a 256 KiB tmpfs; once the
# server runs, a file fills it.  Then panes come and go, which emits
# events that cannot be written.  Expected: an attached client is told
# (a `status` event naming the event log; the server log may be on the
# full disk too, so the check is on what the client receives), live
# subscribers still get every event, the panes keep running.  After
# space is freed, new events are written again and the log parses to
# its last line (no torn line left by a short write).
# Needs root for the tmpfs mount; without it the test says so and
# counts nothing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fault-lib"
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip disk-full: mounting a tmpfs needs root"
	finish
fi
if ! mount -t tmpfs -o size=256k,mode=0755 tmpfs "$XDG_STATE_HOME"; then
	not_ok "mount a 256 KiB tmpfs on XDG_STATE_HOME"
	finish
fi
RAW=""
FOLLOW=""
trap '[ -n "$RAW" ] && kill $RAW $FOLLOW 2>/dev/null; exec 7>&-; sm kill-server >/dev/null 2>&1; umount "$XDG_STATE_HOME"; fault_cleanup' EXIT
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"

sm new -d -s f -x 160 -y 60 -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-host" >/dev/null
sm split -t %1 -v --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-native" >/dev/null
wait_for 10 field_is 2 backend native
check "setup: events are logged on the small disk" wait_for 3 grep -q '"kind":"ready"' "$LOG"
sm events --follow --json >"$FW/live" 2>&1 &
FOLLOW=$!
# A raw protocol client attached to the session: it receives the status
# events a TUI client would show on its status line.
mkfifo "$FW/in"
socat -t 120 - "UNIX-CONNECT:$XDG_RUNTIME_DIR/sandmux/$T_NAME" <"$FW/in" >"$FW/raw" 2>&1 &
RAW=$!
exec 7>"$FW/in"
printf '%s\n%s\n' '{"id":1,"cmd":"hello","version":1}' \
	'{"id":2,"cmd":"attach","session":"f","cols":160,"rows":60}' >&7
check "setup: the raw client is attached" wait_for 5 grep -q '"event":"layout"' "$FW/raw"

dd if=/dev/zero of="$XDG_STATE_HOME/fill" bs=4k >/dev/null 2>&1
check "the disk is full" sh -c "! echo x >>'$XDG_STATE_HOME/probe' 2>/dev/null || [ ! -s '$XDG_STATE_HOME/probe' ]"
before=$(wc -l <"$LOG")
# Events until the log's last page is full too (tmpfs hands out whole
# pages): panes started and killed, up to 80 of them.
status_seen() { grep '"event":"status"' "$FW/raw" | grep -q 'event log.*unwritable'; }
n=0
while [ "$n" -lt 80 ] && ! status_seen; do
	sm split -t %1 -v -l 3 -c "$FW" -- /bin/sleep 100 >/dev/null
	sm kill-pane -t "%$(newest_pane)" >/dev/null
	n=$((n + 1))
done
echo "# $n panes started and killed on the full disk"
sm split -t %1 -v --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-full" >/dev/null
p=$(newest_pane)
wait_for 10 field_is "$p" backend native
sm kill-pane -t "%$p" >/dev/null
check "the attached client got a status event about the event log" wait_for 5 status_seen
grep '"event":"status"' "$FW/raw" | head -1 | sed 's/^/# /'
check "live subscribers still got the new panes' events (ready, killed)" \
	sh -c "grep -q '\"kind\":\"ready\".*\"pane\":$p[,}]' '$FW/live' && grep -q '\"kind\":\"killed\".*\"pane\":$p[,}]' '$FW/live'"
check "the host pane keeps counting" advancing %1
check "the native pane keeps counting" advancing %2
check "the server answers" quiet sm ls
check "the events did not reach the full log ($before lines before, $(wc -l <"$LOG") now)" \
	sh -c "! grep -q '\"pane\":$p[,}]' '$LOG'"

rm -f "$XDG_STATE_HOME/fill" "$XDG_STATE_HOME/probe"
sm split -t %1 -v --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-after" >/dev/null
p=$(newest_pane)
wait_for 10 field_is "$p" backend native
check "with space again, new events are written (pane $p ready)" \
	wait_for 5 sh -c "grep '\"kind\":\"ready\"' '$LOG' | grep -q '\"pane\":$p[,}]'"
check "the log parses to its last line ($(jsonl_ok "$LOG" | head -3 | tr '\n' ' '))" quiet jsonl_ok "$LOG"
finish
