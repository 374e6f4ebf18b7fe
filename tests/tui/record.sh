#!/bin/sh
# TUI: a recording belongs to the server, not to the client.  The real
# client in tmux shows a pane; `sandmux record` starts recording it; what
# is typed in the client is recorded; prefix d detaches the client (it
# exits); what the pane prints after that is recorded too, and the file
# stays whole asciicast v2 JSON lines.
. "$(dirname "$0")/tui-lib"

start_client
pane=$(active_pane)
REC="$T_DIR/rec"
mkdir -p "$REC"
out=$(sm record -t "%$pane" "$REC/tui.cast" 2>&1)
check "record starts on the attached client's pane ($out)" [ -f "$REC/tui.cast" ]
keys 'echo BEFORE-$((6*7))' Enter
check "the client shows the typed command's output" wait_screen "BEFORE-42"
prefix d
check "prefix d detaches: the client exits" wait_screen "CLIENT-EXIT=0"
sm send-keys -t "%$pane" 'echo AFTER-$((6*8))' Enter
check "the pane runs on without a client" wait_for 5 capture_has "%$pane" "AFTER-48"
out=$(sm record -t "%$pane" --stop 2>&1)
check "--stop after the detach ($out)" sh -c 'case "$1" in *stopped*) exit 0 ;; esac; exit 1' _ "$out"
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["version"] == 2
out = "".join(e[2] for e in rows[1:] if e[1] == "o")
print("BEFORE" if "BEFORE-42" in out else "", "AFTER" if "AFTER-48" in out else "")
' "$REC/tui.cast" >"$T_DIR/seen" 2>&1
check "the recording holds what the client saw ($(cat "$T_DIR/seen"))" grep -q BEFORE "$T_DIR/seen"
check "... and what the pane printed after the detach" grep -q AFTER "$T_DIR/seen"
finish
