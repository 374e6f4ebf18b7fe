#!/bin/sh
# TUI: display-panes (prefix q), as tmux's: every pane's number (its index
# in the window) is drawn in big digits at its centre, with its id and
# size below; a digit then focuses that pane; any other key takes the
# numbers away and goes nowhere; so does display_panes_time (1 s by
# default, as tmux's display-panes-time; the config sets another).
. "$(dirname "$0")/tui-lib"

# numbers_shown: every pane of the window on screen shows its own index,
# in the big digits, within its own rectangle, and its "%ID COLSxROWS".
numbers_shown() {
	screen >"$T_DIR/screen"
	sm ls --json >"$T_DIR/ls.json"
	python3 - "$T_DIR/screen" "$T_DIR/ls.json" <<'PY'
import json, sys
screen = open(sys.argv[1]).read().split("\n")
font = {
    "0": ["###", "# #", "# #", "# #", "###"], "1": [" # ", "## ", " # ", " # ", "###"],
    "2": ["###", "  #", "###", "#  ", "###"], "3": ["###", "  #", "###", "  #", "###"],
}
def big(d):
    return ["".join("██" if ch == "#" else "  " for ch in row).rstrip() for row in font[d]]
for s in json.load(open(sys.argv[2]))["sessions"]:
    for w in s["windows"]:
        if not w["active"]:
            continue
        for index, p in enumerate(w["panes"]):
            rect = [line[p["x"]:p["x"] + p["cols"]] for line in screen[p["y"]:p["y"] + p["rows"]]]
            rows = [r.strip() for r in rect]
            want = [r.strip() for r in big(str(index))]
            found = any(rows[i:i + 5] == want for i in range(len(rows) - 4))
            label = "%%%d %dx%d" % (p["id"], p["cols"], p["rows"])
            if not found or not any(label == r for r in rows):
                print("# pane %%%d: no big %d or no %s" % (p["id"], index, label))
                sys.exit(1)
PY
}
no_numbers() { screen_lacks "█"; }
pane_ids() { panes | awk '{ printf "%s ", $1 }'; }

# lasting MIN MAX COMMAND...: COMMAND shows the numbers, and they go
# between MIN and MAX ms after it (a loaded machine makes them late,
# never early).
now_ms() { echo $(($(date +%s%N) / 1000000)); }
lasting() {
	min=$1 max=$2
	shift 2
	start=$(now_ms)
	"$@"
	wait_for 2 screen_has "█" || return 1
	wait_for $((max / 1000 + 1)) no_numbers || return 1
	took=$(($(now_ms) - start))
	echo "# the numbers lasted $took ms"
	[ "$took" -ge "$min" ] && [ "$took" -le "$max" ]
}
prompt_command() {
	prefix :
	keys "$1" Enter
}

start_client
check "prefix ? lists prefix q" help_lists '^ *q  *display-panes  *number the panes'
prefix %
wait_for 5 pane_count_is 2
prefix '"'
wait_for 5 pane_count_is 3
set -- $(pane_ids)
first=$1 last=$3
check "the last pane made is the active one" active_pane_is "$last"

check "prefix q's numbers go after display_panes_time, 1 s by default" lasting 950 2500 prefix q
check "display-panes -d 2000 keeps them 2 s" lasting 1950 3500 prompt_command "display-panes -d 2000"

# The config's display_panes_time (the client reads it when it starts),
# checked like every key; 0 keeps the numbers until a key, which the
# checks of what keys do below need on a loaded machine.
tm kill-server >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/sandmux"
echo '{"display_panes_time": -1}' >"$T_DIR/bad.json"
"$SANDMUX_BIN" --check-config "$T_DIR/bad.json" >"$T_DIR/bad.out" 2>&1
check "a negative display_panes_time is refused with its code" \
	grep -q 'display_panes_time.*0..60000.*config_invalid' "$T_DIR/bad.out"
echo '{"display_panes_time": 0}' >"$XDG_CONFIG_HOME/sandmux/config.json"
start_client

prefix q
check "prefix q draws each pane's index big at its centre, with its id and size" \
	wait_for 3 numbers_shown
# The time passing is the thing under test (display_panes_time 0).
sleep 1.5
check "with display_panes_time 0 they are still there after 1.5 s" numbers_shown
keys 0
check "pressing 0 focuses pane 0" wait_for 3 active_pane_is "$first"
check "the numbers are gone" wait_for 2 no_numbers

focused=$(active_pane)
sm capture -t "%$focused" >"$T_DIR/before"
prefix q
wait_for 3 numbers_shown
keys x
check "another key takes the numbers away" wait_for 2 no_numbers
check "... focusing nothing" active_pane_is "$first"
# The thing under test: the x was not typed into the pane; its chance.
sleep 0.3
sm capture -t "%$focused" >"$T_DIR/after"
x_count() { tr -cd x <"$1" | wc -c; }
check "... and the key does not reach the active pane" [ "$(x_count "$T_DIR/before")" = "$(x_count "$T_DIR/after")" ]

prefix q
wait_for 3 numbers_shown
keys 7
check "a digit with no such pane only takes the numbers away" wait_for 2 no_numbers
check "... focusing nothing" active_pane_is "$first"

prefix q
wait_for 3 numbers_shown
keys 2
check "2 focuses pane 2" wait_for 3 active_pane_is "$last"
finish
