#!/bin/sh
# TUI: the feed readable by default, at 80x24 and at 160x45.  Beside a
# pane too narrow for it (target and reason under 60 columns), C-b v
# opens it full-width below the window's panes, where a denied read's
# target shows whole; in a terminal so narrow that even that is tight,
# a ×101 count and the backend label never take the target column away
# (docs/feed.md).
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
feed_pane() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    for w in s["windows"]:
        for p in w["panes"]:
            if p.get("title", "").startswith("feed \u00b7 "):
                print(p["id"])'; }
has_feed() { [ -n "$(feed_pane)" ]; }
pane_geometry() { panes | awk -v id="$1" '$1 == id { print $2, $3, $4 }'; }

# The probe's server knew another HOME: the next one starts with this.
sm kill-server >/dev/null 2>&1
export HOME="$T_DIR/h"
key="$HOME/.ssh/id_ed25519"
mkdir -p "$HOME/.ssh"
echo secret >"$key"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "w$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "w$cols")"
	wait_screen "─" 10
	prefix S
	wait_for 10 pane_count_is 2
	native=$(active_pane)
	wait_screen " native " 10
	sm send-keys -t "%$native" "for i in \$(seq 101); do cat $key 2>/dev/null; done; echo burst-done" Enter
	wait_for 20 capture_has "%$native" burst-done
	prefix v
	check "$size: C-b v opens the feed" wait_for 5 has_feed
	feed=$(feed_pane)
	check "$size: ... full-width below the panes" sh -c '[ "$1" = "0 $2 $3" ]' - \
		"$(pane_geometry "$feed" | awk '{ print $1, ($2 > 1 ? "below" : "top"), $3 }')" below "$cols"
	counted() { screen_matches "×101 *$key"; }
	check "$size: the denied read's target shows whole, after its ×101" wait_for 5 counted
	screen | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "w$cols" >/dev/null
done

# A terminal of 40 columns: the feed below is 40 wide; the label and the
# action's end give way, the target's end (the file's name) stays.
sm new -d -s narrow -x 40 -y 24 >/dev/null
tm new-session -d -s main -x 40 -y 24 "$(client_cmd -t narrow)"
wait_screen "─" 10
prefix S
wait_for 10 pane_count_is 2
native=$(active_pane)
sm send-keys -t "%$native" "for i in \$(seq 101); do cat $key 2>/dev/null; done; echo burst-done" Enter
wait_for 20 capture_has "%$native" burst-done
prefix v
wait_for 5 has_feed
narrow_target() { screen_matches "×101 .*id_ed25519"; }
check "40 columns: the ×101 line keeps its target column" wait_for 5 narrow_target
screen | sed "s/^/# 40x24 | /"
finish
