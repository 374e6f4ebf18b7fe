#!/bin/sh
# respawn-pane with the real server and bwrap: the program starts again
# in the same pane (same id and place) under the same backend and
# profile; a pane still running needs -k; and a respawn that cannot start
# its sandbox leaves the pane FAILED with the reason — never a pane on
# the host in its place.
. "$(dirname "$0")/../lib.sh"

W=$(mktemp -d /var/tmp/sandmux-respawn.XXXXXX)
chmod 755 "$W"
trap 'cleanup; rm -rf "$W"' EXIT

field() { pane_field "$1" "$2"; }
field_is() { [ "$(field "$1" "$2")" = "$3" ]; }
pane_ids() { sm ls --json | python3 -c '
import json, sys
print(" ".join(str(p["id"]) for s in json.load(sys.stdin)["sessions"] for w in s["windows"] for p in w["panes"]))'; }

sm new -d -x 80 -y 24 -c "$W" -- sh -c 'echo FIRST-RUN; exec sleep 600' >/dev/null
check "the first program runs" wait_for 10 capture_has 1 FIRST-RUN
sm respawn-pane -t %1 -- sh -c 'echo SECOND-RUN; exec sleep 600' >"$T_DIR/out" 2>&1
check "a running pane is not respawned without -k" grep -q "invalid_state" "$T_DIR/out"
check "the refusal says to use -k" grep -q "respawn-pane -k" "$T_DIR/out"
check "so the first program still runs" capture_has 1 FIRST-RUN
sm respawn-pane -k -t %1 -- sh -c 'echo SECOND-RUN; pwd; exec sleep 600' >/dev/null
check "respawn-pane -k runs the new program in the same pane (%1)" wait_for 10 capture_has 1 SECOND-RUN
check "in the pane's directory" wait_for 5 capture_has 1 "$W"
check "the pane list is unchanged (one pane, id 1)" [ "$(pane_ids)" = "1" ]
check "a host pane stays a host pane" field_is 1 backend none

if ! command -v bwrap >/dev/null 2>&1; then
	not_ok "bwrap is installed (apt-get install bubblewrap)"
	finish
fi
sm split -t %1 -b native -P agent -c "$W" -- sh -c 'echo NATIVE-ONE; exec sleep 600' >/dev/null
check "a native agent pane starts" wait_for 20 capture_has 2 NATIVE-ONE
sm respawn-pane -k -t %2 -- sh -c 'echo NATIVE-TWO; exec sleep 600' >/dev/null
check "the respawned pane runs its new program" wait_for 20 capture_has 2 NATIVE-TWO
check "under the same backend (native)" field_is 2 backend native
check "with the same profile (agent)" field_is 2 profile agent
sm respawn-pane -k -t %2 -c "$W/missing" >"$T_DIR/fail" 2>&1
rc=$?
check "a respawn whose sandbox cannot start fails (exit 1)" [ "$rc" -eq 1 ]
check "with the launch's reason and code" grep -q "launch_failed" "$T_DIR/fail"
check "the pane is FAILED (state error)" field_is 2 state error
check "it still asked for native" field_is 2 requested native
check "nothing took its place on the host (panes 1 2)" [ "$(pane_ids)" = "1 2" ]
not_host() { [ "$(field 2 backend)" != none ]; }
check "and it is not labelled as a host pane" not_host

finish
