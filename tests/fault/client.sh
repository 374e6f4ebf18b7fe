#!/bin/sh
# Fault: kill -9 of an attached client.  Two clients (the real TUI under
# tmux) are attached to a session with a host pane and a native pane
# printing a steady count, while a third pane floods output (so the
# server is mid-write to the client when it dies).  kill -9 one client:
# the server, every pane and the other client carry on, and a new client
# can attach.  Then the same with the second client.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fault-lib"
command -v tmux >/dev/null || { not_ok "tmux is installed"; finish; }
TM="sm-fault-client-$$"
trap 'tmux -L "$TM" kill-server 2>/dev/null; fault_cleanup' EXIT

sm new -d -s f -x 160 -y 50 -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-host" >/dev/null
sm split -t %1 -h --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-native" >/dev/null
sm split -t %1 -v -c "$FW" -- /bin/sh -c 'exec yes "flood flood flood flood flood flood flood"' >/dev/null
wait_for 10 field_is 2 backend native
check "setup: the native pane runs (backend $(pane_field 2 backend))" field_is 2 backend native

# client N: a TUI client in tmux window N; prints the client's pid.
client() {
	tmux -L "$TM" new-window -d -t "fc:$1" \
		"exec env XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' TERM=screen-256color '$SANDMUX_BIN' -L $T_NAME attach -t f"
	wait_for 5 sh -c "tmux -L '$TM' capture-pane -p -t fc:$1 | grep -q native"
	tmux -L "$TM" list-panes -t "fc:$1" -F '#{pane_pid}'
}
tmux -L "$TM" new-session -d -s fc -x 160 -y 50 "sleep 600"
C1=$(client 1)
C2=$(client 2)
check "two clients attached (pids $C1 $C2)" sh -c "kill -0 $C1 && kill -0 $C2"
S=$(server_pid)

# attached_is N: session f has N clients, as the server counts them
attached_is() { [ "$(sm ls --json | tr -d ' \t\n' | grep -o '"attached":[0-9]*' | head -1 | cut -d: -f2)" = "$1" ]; }
check "two clients counted" wait_for 5 attached_is 2

kill -9 "$C1"
# The server has taken the hangup once it counts one client.
check "after kill -9 of client 1: the server counts one client" wait_for 10 attached_is 1
check "after kill -9 of client 1: the server lives" kill -0 "$S"
check "... and answers" sh -c "'$SANDMUX_BIN' -L $T_NAME ls >/dev/null"
check "... the host pane still counts" advancing %1
check "... the native pane still counts" advancing %2
check "... client 2 still draws (its screen shows the count moving)" \
	sh -c "a=\$(tmux -L '$TM' capture-pane -p -t fc:2 | md5sum); sleep 1; [ \"\$(tmux -L '$TM' capture-pane -p -t fc:2 | md5sum)\" != \"\$a\" ]"
C3=$(client 3)
check "... a new client attaches and sees the native label" \
	sh -c "tmux -L '$TM' capture-pane -p -t fc:3 | grep -q native"
kill -9 "$C2" "$C3"
check "after kill -9 of the other two clients: the server counts none" wait_for 10 attached_is 0
check "after kill -9 of the other two clients: the server lives and answers" \
	sh -c "kill -0 $S && '$SANDMUX_BIN' -L $T_NAME ls >/dev/null"
check "... the native pane still counts" advancing %2
check "... the flood pane still runs" kill -0 "$(pane_field 3 pid)"
finish
