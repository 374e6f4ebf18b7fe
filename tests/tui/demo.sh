#!/bin/sh
# TUI: `sandmux demo` as a new user runs it, in a terminal of 80x24 and
# of 160x45: it attaches (it once refused as nested, its own $SANDMUX
# set for the script), shows the none, native and microvm columns side by
# side (microvm FAILED with its hint where it cannot run) with the feed
# full-width below, the attempts' results readable in the columns and
# the denials in the feed; C-b d ends it with the summary, the secret
# read in it, never "[detached", and nothing left in /var/tmp.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
sm kill-server >/dev/null 2>&1

demo_dirs() { ls -d /var/tmp/sandmux-demo.* 2>/dev/null | sort; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	before=$(demo_dirs | tr "\n" " ") demo_dir=""
	tm new-session -d -s main -x "$cols" -y "$rows" \
		"$SANDMUX_BIN demo; echo DEMO-EXIT=\$?; sleep 600"
	check "$size: the demo attaches and draws its panes" wait_screen "─" 20
	check "$size: the none column" wait_screen " none " 10
	check "$size: the native column" wait_screen " native " 10
	microvm_column() { screen_has " microvm " || screen_has " FAILED "; }
	check "$size: the microvm column (or FAILED with its hint)" wait_for 60 microvm_column
	check "$size: the feed, full-width below" wait_screen "feed · demo" 10
	check "$size: the feed's first line starts at the left edge" \
		wait_for 5 screen_matches "^feed · demo"
	check "$size: the native pane's read is denied, readable in its column" \
		wait_screen "RESULT read: DENIED" 30
	check "$size: the none pane's read is allowed" wait_screen "RESULT read: ALLOWED" 10
	check "$size: the native pane's ~/.bashrc write goes to its home layer" \
		wait_screen "RESULT bashrc: LAYER" 30
	check "$size: the feed shows the denied read of the key" \
		wait_for 10 screen_matches '%2 native *file-read\*.*id_demo'
	columns_whole() { screen | grep -q '^RESULT read: ALLOWED *│'; }
	check "$size: the none column keeps its result lines whole" columns_whole
	# The summary is made once every pane has finished.
	# (its own directory: the new one with a summary; other demos may run)
	summary_ready() { for d in $(demo_dirs); do case " $before " in *" $d "*) ;; *) [ -e "$d/summary" ] && demo_dir=$d && return 0 ;; esac; done; return 1; }
	check "$size: the demo has its summary ready" wait_for 30 summary_ready
	screen | sed "s/^/# $size | /"
	prefix d
	check "$size: C-b d ends the demo" wait_screen "DEMO-EXIT=0" 15
	check "$size: ... with the summary" screen_matches '^  native *read: DENIED, token: WITHHELD'
	check "$size: ... whose violations include the secret read" \
		screen_matches 'native violation file-read\* ~/.ssh/id_demo'
	check "$size: ... and the verdict" screen_has "==== as expected"
	check "$size: leaving never says detached" screen_lacks "[detached"
	gone() { [ -n "$demo_dir" ] && [ ! -e "$demo_dir" ]; }
	check "$size: the demo removed its directory" gone
	screen | sed "s/^/# $size | /"
	tm kill-session -t main
done
finish
