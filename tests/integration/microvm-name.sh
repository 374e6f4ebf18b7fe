#!/bin/sh
# A microvm window is named after the program in the guest (its shell),
# like any other pane's window, not after qemu, which is what the host
# sees in the pane's terminal (#27 item 14).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"

window_name() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    for w in s["windows"]:
        if any(p["id"] == int(sys.argv[1]) for p in w["panes"]):
            print(w["name"])' "$1"; }

sm new -d -s m >/dev/null
p=$(sm new-window -t m -b microvm -- /bin/bash | sed -n 's/^%\([0-9]*\) .*/\1/p')
check "the microvm pane starts" wait_ready "$p"
sm send-keys -t "%$p" 'echo in-guest' Enter
wait_for 20 capture_has "%$p" in-guest
name=$(window_name "$p")
check "its window is named after the guest's program ($name)" [ "$name" = bash ]
check "... not after qemu" eval "! echo '$name' | grep -q qemu"
finish
