#!/bin/sh
# The "format" request over the real socket: tmux's formats expanded by
# the server for a pane (docs/protocol.md), and bad requests answered with
# a code, never a crash.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T_DIR/here"
cd "$T_DIR/here"
sm new -d -s fmt >/dev/null
pane=$(sm ls --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"][0]["windows"][0]["panes"][0]["id"])')
fmt() { sm ctl "{\"cmd\":\"format\",\"pane\":$pane,\"text\":\"$1\"}"; }
text_of() { python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["text"])'; }

out=$(fmt '#{session_name}:#{window_index}.#{pane_index} #{pane_id} #{pane_backend} #{pane_violations}' | text_of)
check "session, window, pane, backend and violations expand ($out)" [ "$out" = "fmt:0.0 %$pane none 0" ]
out=$(fmt '#{pane_current_path}|#{pane_start_path}' | text_of)
check "the current and start paths expand" [ "$out" = "$T_DIR/here|$T_DIR/here" ]
sm send-keys -t "%$pane" "cd /usr" Enter
cur() { [ "$(fmt '#{pane_current_path}' | text_of)" = /usr ]; }
check "pane_current_path follows cd" wait_for 5 cur
out=$(fmt '#{host}' | text_of)
check "host expands to the host name" [ "$out" = "$(hostname)" ]
out=$(fmt '#{pane_width}x#{pane_height} #{?pane_active,active,idle} ## #{bogus}.' | text_of)
check "size, conditionals, ## and unknown names ($out)" sh -c "echo '$out' | grep -qE '^[0-9]+x[0-9]+ active # \\.\$'"

out=$(sm ctl '{"cmd":"format","pane":'"$pane"'}' 2>&1)
check "a missing text gives missing_field" sh -c "echo '$out' | grep -q missing_field"
out=$(sm ctl '{"cmd":"format","pane":999,"text":"x"}' 2>&1)
check "an unknown pane gives no_such_pane" sh -c "echo '$out' | grep -q no_such_pane"
long=$(head -c 5000 /dev/zero | tr '\0' 'x')
out=$(sm ctl '{"cmd":"format","pane":'"$pane"',"text":"'"$long"'"}' 2>&1)
check "a text over 4096 bytes gives invalid_argument" sh -c "echo '$out' | grep -q invalid_argument"
big=$(python3 -c 'print("#{pane_current_path}" * 200)')
out=$(fmt "$big" | text_of)
check "output is bounded (8191 bytes at most)" [ "${#out}" -le 8191 ]
# Each condition is the one inside it, "yes" only if that one was: three
# deep expands, ten deep (the limit is eight) stops at the limit.
nest() { python3 -c 'import sys; n = int(sys.argv[1]); print("#{?" * n + "pane_active" + ",yes,}" * n)' "$1"; }
out=$(fmt "$(nest 3)" | text_of)
check "nesting within the limit expands ($out)" [ "$out" = yes ]
out=$(fmt "$(nest 10)" | text_of)
check "nesting past the limit stops expanding there ($out)" [ -z "$out" ]
check "the server carries on" eval 'sm ls >/dev/null'

finish
