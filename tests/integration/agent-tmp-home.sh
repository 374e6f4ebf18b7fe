#!/bin/sh
# An agent pane whose $HOME lies under /tmp: the private /tmp would hide
# it, and a write there would land in that tmpfs, lost at exit, with no
# violation.  The home shows through read-only instead: the write fails
# and is reported, and the host's home is untouched.
. "$(dirname "$0")/../lib.sh"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
sm kill-server >/dev/null 2>&1
export HOME="$T_DIR/h"
mkdir -p "$HOME"
echo host >"$HOME/seen"
sm new -d -s a >/dev/null
p=$(sm new-window -t a -b native -P agent | sed -n 's/^%\([0-9]*\) .*/\1/p')
wait_for 10 eval '[ "$(pane_field "$p" backend)" = native ]'
sm send-keys -t "%$p" 'cat ~/seen; echo hi >~/written; echo rc=$?' Enter
check "the home under /tmp shows through (the host's file is read)" wait_for 10 capture_has "%$p" host
check "a write into it fails" wait_for 10 capture_has "%$p" "rc=2"
check "... and is a violation" wait_for 10 eval "sm events --json | grep -q 'violation.*$HOME/written'"
check "nothing reached the host's home" [ ! -e "$HOME/written" ]
finish
