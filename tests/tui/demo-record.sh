#!/bin/sh
# TUI: `sandmux demo --record FILE` in a terminal of 80x24 and of
# 160x45: the demo runs and is drawn as without it (its columns, the
# feed), C-b d ends it with the summary, and FILE is an asciicast v2 of
# all of it: a header with the terminal's size, then "o" events whose
# text, played back, holds the labels, a denied read and the verdict.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi
sm kill-server >/dev/null 2>&1

# cast_has FILE WHAT: the header's size is WHAT, or the played-back text holds it.
cast_size() { python3 -c '
import json, sys
h = json.loads(open(sys.argv[1]).readline())
print("%dx%d v%d" % (h["width"], h["height"], h["version"]))' "$1"; }
cast_text_has() { python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()[1:]
text = "".join(e[2] for e in map(json.loads, lines) if e[1] == "o")
sys.exit(0 if sys.argv[2] in text else 1)' "$1" "$2"; }

# cast_text_tail FILE: the played-back text's last lines (what a failure shows).
cast_text_tail() { python3 -c '
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()[1:]
text = "".join(e[2] for e in map(json.loads, lines) if e[1] == "o")
text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>78]", "", text)
print("\n".join(l for l in text.replace("\r", "\n").splitlines() if l.strip())[-2000:])' "$1" | tail -20; }

demo_dirs() { ls -d /var/tmp/sandmux-demo.* 2>/dev/null | sort; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	before=$(demo_dirs | tr "\n" " ")
	cast="$T_DIR/demo-$cols.cast"
	tm new-session -d -s main -x "$cols" -y "$rows" \
		"$SANDMUX_BIN demo --record $cast; echo DEMO-EXIT=\$?; sleep 600"
	check "$size: the recorded demo attaches and draws its panes" wait_screen "─" 20
	check "$size: the native column" wait_screen " native " 10
	check "$size: the feed" wait_screen "feed · demo" 10
	check "$size: the native pane's read is denied" wait_screen "RESULT read: DENIED" 30
	check "$size: the feed shows the denied read" \
		wait_for 10 screen_matches '%2 native *file-read\*.*id_demo'
	# C-b d ends it once the summary is made (in the demo's own directory).
	summary_ready() { for d in $(demo_dirs); do case " $before " in *" $d "*) ;; *) [ -e "$d/summary" ] && return 0 ;; esac; done; return 1; }
	check "$size: the demo's summary is made" wait_for 120 summary_ready
	prefix d
	check "$size: C-b d ends the demo" wait_screen "DEMO-EXIT=0" 30
	check "$size: ... saying where the recording is" screen_has "recording is in $cast"
	check "$size: the file is asciicast v2 at the terminal's size ($(cast_size "$cast"))" \
		[ "$(cast_size "$cast")" = "${size} v2" ]
	check "$size: ... holding the native label" cast_text_has "$cast" " native "
	check "$size: ... the denied read" cast_text_has "$cast" "RESULT read: DENIED"
	check "$size: ... and the verdict" cast_text_has "$cast" "==== as expected"
	cast_text_has "$cast" "==== as expected" || cast_text_tail "$cast" | sed 's/^/# /'
	tm kill-session -t main
done
finish
