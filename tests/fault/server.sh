#!/bin/sh
# Fault: the server dies, once by SIGTERM and once by kill -9.  Its
# native panes hold a counting shell and processes that try to stay:
# setsid + double fork with SIGHUP/SIGTERM ignored, nohup.  Afterwards no
# sandboxed process may be alive (a scan of every /proc/PID/cmdline for
# the markers), and the durable event log must be intact: every line a
# JSON object, the last one included, with the panes' ready events in it.
# (A second server on a live socket name and a stale socket left by a
# crash are covered in tests/integration/protocol.sh.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fault-lib"
BASE_NAME=$T_NAME
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"

# run_case SIGNAL: one server, three panes, orphans, then the signal.
run_case() {
	sig=$1
	T_NAME="$BASE_NAME$sig"
	m="$FW/$sig"
	sm new -d -s f -x 160 -y 60 -c "$FW" -- /bin/bash -c "$TICKER" "$m-host" >/dev/null
	sm split -t %1 -v --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$m-native" >/dev/null
	sm split -t %1 -v --backend native -c "$FW" -e PS1='$ ' -- /bin/bash --norc --noprofile >/dev/null
	wait_for 10 field_is 2 backend native
	wait_for 10 field_is 3 backend native
	sm send-keys -t %3 "setsid bash -c '(trap \"\" HUP TERM; exec -a $m-orphan1 sleep 1000 &) &'; nohup bash -c 'trap \"\" HUP TERM; exec -a $m-orphan2 sleep 1000' >/dev/null 2>&1 & disown" Enter
	check "[$sig] setup: two native panes, a counting one and one with 2 orphans" \
		wait_for 5 at_least "$m-orphan" 2
	check "[$sig] ... and the counting shell" at_least "$m-native" 1
	pid=$(server_pid)
	kill "-$sig" "$pid"
	check "[$sig] the server ($pid) is gone" wait_for 5 sh -c "! kill -0 $pid 2>/dev/null"
	check "[$sig] no sandboxed process survives (orphans, nohup, the shells)" \
		wait_for 5 none_left "$m-orphan" "$m-native"
	check "[$sig] the host pane's shell is gone too" wait_for 5 none_left "$m-host"
	check "[$sig] the event log parses to its last line ($(jsonl_ok "$LOG" | tail -1))" quiet jsonl_ok "$LOG"
	check "[$sig] ... and holds both panes' ready events" \
		sh -c "[ \$(grep '\"kind\":\"ready\"' '$LOG' | grep -c '\"pane\":[23][,}]') -ge 2 ]"
	: >"$LOG"
}
run_case TERM
run_case KILL
T_NAME=$BASE_NAME
finish
