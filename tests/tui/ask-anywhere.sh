#!/bin/sh
# TUI: ask mode asks wherever the user is.  An agent pane with
# "network": "ask" in window 1, the client looking at window 0 and no
# feed open anywhere: a curl to an unknown host is held, and the status
# line asks "pane %N asks for HOST: a allow, d deny".  a lets the held
# connection through at once; d refuses the next one at once (not after
# 30 s).  At 80x24 and 160x45.
. "$(dirname "$0")/../origin-net.sh"
. "$(dirname "$0")/tui-lib"
trap 'tui_cleanup; origin_net_stop; rm -rf "$HOME_DIR"' EXIT
origin_net_start

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }

CONFIG="$XDG_CONFIG_HOME/sandmux/config.json"
HOME_DIR=$(mktemp -d /var/tmp/sandmux-home.XXXXXX)
export HOME="$HOME_DIR"
mkdir -p "$(dirname "$CONFIG")" "$T_DIR/work"
printf '{ "profiles": { "asker": { "base": "agent", "network": "ask" } } }\n' >"$CONFIG"
if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi

# start_fetch PANE TAG HOST: curl through the pane's proxy in the
# background of its shell; "BODY rc=RC took=S" lands in work/TAG.out.
start_fetch() {
	sm send-keys -t "$1" -l "(s=\$(date +%s); out=\$(curl -sS -f -p -m 60 http://$3/$2 2>&1); echo \"\$out rc=\$? took=\$((\$(date +%s) - s))\" >$2.out) &"
	sm send-keys -t "$1" Enter
}
result_of() { wait_for "$2" grep -q "rc=" "$T_DIR/work/$1.out" && tr '\n' ' ' <"$T_DIR/work/$1.out"; }
backend_is() { [ "$(pane_field "$1" backend)" = "$2" ]; }

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	s="a$cols"
	sm new -d -s "$s" -x "$cols" -y "$rows" -c "$T_DIR/work" >/dev/null
	asker=$(sm new-window -t "$s" -c "$T_DIR/work" -b native -P asker | sed -n 's/^%\([0-9]*\) .*/\1/p')
	wait_for 10 backend_is "$asker" native
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "$s")"
	wait_screen "─" 10
	prefix 0
	check "$size: the client shows window 0, no feed" wait_for 5 status_matches ' 0:[^ ]*\*'

	start_fetch "%$asker" held-$cols ask.test
	check "$size: the status line asks, in the window the user is in" \
		wait_for 10 status_matches "pane %$asker asks for ask.test:80: a allow, d deny"
	status_line | sed "s/^/# $size | /"
	check "$size: the proxy has not replied while it asks" [ ! -s "$T_DIR/work/held-$cols.out" ]
	keys a
	got=$(result_of held-$cols 15)
	check "$size: a: the held connection goes through ($got)" \
		sh -c "echo '$got' | grep -q 'origin ask got: GET /held-$cols HTTP/1.1 rc=0'"
	check "$size: ... and the status line says so" wait_for 5 status_matches "allowed ask.test"

	start_fetch "%$asker" refused-$cols nope$cols.test
	check "$size: another unknown host asks" wait_for 10 status_matches "asks for nope$cols.test:80"
	keys d
	got=$(result_of refused-$cols 15)
	check "$size: d: refused at once ($got)" \
		sh -c "echo '$got' | grep -q 'rc=[1-9]' && ! echo '$got' | grep -q origin && [ \"\$(echo '$got' | sed -n 's/.*took=\([0-9]*\).*/\1/p')\" -lt 10 ]"
	tm kill-session -t main
	sm kill-session -t "$s" >/dev/null
done
finish
