#!/bin/sh
# Fault: kill -9 of a native pane's bubblewrap, and of the shell inside
# another native pane.  Each pane must end visibly with the reason (state
# destroyed with --remain, "[exited with status N]" on screen, an exit
# event with that status), leave no process behind, and nothing else may
# notice: the host pane and the third native pane keep counting.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fault-lib"

sm new -d -s f -x 160 -y 60 -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-host" >/dev/null
sm events --follow --json >"$FW/events" 2>&1 &
FOLLOW=$!
trap 'kill $FOLLOW 2>/dev/null; fault_cleanup' EXIT
for n in 2 3 4; do
	sm split -t %1 -v --remain --backend native -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-native$n" >/dev/null
	wait_for 10 field_is "$n" backend native
done
check "setup: three native panes counting" sh -c "[ \"$(pane_field 2 backend)$(pane_field 3 backend)$(pane_field 4 backend)\" = nativenativenative ]"
exit_event() { grep '"kind":"exit"' "$FW/events" | grep "\"pane\":$1[,}]" | grep -q "\"exitCode\":$2[,}]"; }

# kill -9 of bwrap (the pane's own process, the PTY's session leader)
BW=$(pane_field 2 pid)
check "pane 2's process is bwrap ($BW)" sh -c "tr '\0' ' ' </proc/$BW/cmdline | grep -q '^[^ ]*bwrap '" || tr '\0' ' ' </proc/$BW/cmdline
kill -9 "$BW"
check "kill -9 bwrap: pane 2 ends (state destroyed)" wait_for 5 field_is 2 state destroyed
check "... its screen says why: [exited with status 137]" wait_for 3 capture_has %2 "[exited with status 137]"
check "... an exit event with exitCode 137" wait_for 3 exit_event 2 137
check "... nothing of its sandbox is left (die-with-parent, pid namespace)" wait_for 5 none_left "$FW/tick-native2"
check "... the host pane still counts" advancing %1
check "... pane 3 still counts" advancing %3
check "... pane 4 still counts" advancing %4

# kill -9 of the shell inside pane 3 (its host pid, seen from outside)
SH=$(marker_pids "$FW/tick-native3" | while read -r p; do
	tr '\0' ' ' <"/proc/$p/cmdline" | grep -q '^/bin/bash' && echo "$p"; done | head -1)
check "pane 3's shell found on the host ($SH)" [ -n "$SH" ]
kill -9 "$SH"
check "kill -9 of the sandboxed shell: pane 3 ends (state destroyed)" wait_for 5 field_is 3 state destroyed
check "... its screen says why: [exited with status 137]" wait_for 3 capture_has %3 "[exited with status 137]"
check "... an exit event with exitCode 137" wait_for 3 exit_event 3 137
check "... nothing of its sandbox is left" wait_for 5 none_left "$FW/tick-native3"
check "... the host pane still counts" advancing %1
check "... pane 4 still counts" advancing %4
check "... the server answers" sh -c "'$SANDMUX_BIN' -L $T_NAME ls >/dev/null"
finish
