#!/bin/sh
# TUI: every pane wears the label of the backend that really wraps it, in
# that backend's theme colour (invariant 1).  A native pane (when this
# host can run one) is labelled "native" in the native colour; the host
# pane keeps "none"; the violation count shows on the title line.
. "$(dirname "$0")/tui-lib"

ansi() { tm capture-pane -e -p -t main; }
# In the default theme: none on colour 250, native on green (2).
label_is_coloured() { ansi | grep -q "$1 $2 "; }
native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }

# A private home with an ~/.ssh the terminal profile denies reading.
export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh"
echo secret >"$HOME/.ssh/config"

start_client
check "the host pane is labelled none in the none colour" wait_for 3 label_is_coloured '48;5;250m' none

if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
prefix :
keys "split -h -b native" Enter
check "a native pane is labelled native" wait_for 10 screen_has " native "
check "in the native colour" wait_for 3 label_is_coloured '4\(2\|8;5;2\)m' native
check "the host pane is still labelled none" screen_has " none "

# A read the profile denies becomes a violation on the title line (the
# zoom toggle forces a layout, which carries the count).
keys "cat ~/.ssh/config 2>/dev/null || echo read-was-denied" Enter
check "the read of ~/.ssh is denied" wait_screen "read-was-denied"
prefix :
keys "zoom" Enter
prefix :
keys "zoom" Enter
check "the denied read shows as a violation count" wait_for 5 screen_matches ' [1-9][0-9]* denied '
finish
