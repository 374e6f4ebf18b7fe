#!/bin/sh
# TUI: two clients of different sizes on one session, 80x24 and 160x45,
# each with its own size, keys and modes (issue 28).  A seeded random
# sequence of actions (tests/helpers/converge.c: typing, splits, kills,
# windows, zoom, resizes, the help overlay, copy mode...) is typed into
# one client; after each action both screens must be what the server's
# data says each client shows at its own size: the typing client's
# with its modes, the other's with none of them, larger than the
# session (the rest blank) or smaller (what fits).  Then the other way
# round, on a new session, from a pane beyond the small client's width.
#   CLIENTS_SEED     the seed (default 1); `random` for a new one, printed
#   CLIENTS_ACTIONS  actions each way (default 150)
. "$(dirname "$0")/tui-lib"

SEED=${CLIENTS_SEED:-1}
[ "$SEED" = random ] && SEED=$(($(date +%s) % 100000))
ACTIONS=${CLIENTS_ACTIONS:-150}
HELPER="${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}/helpers/converge"
if [ ! -x "$HELPER" ]; then
	not_ok "the converge helper is built ($HELPER: make build-tests)"
	finish
fi

# Panes run bash with a plain prompt, as in converge.sh.
mkdir -p "$T_DIR/home"
export CONVERGE_PROMPTS="$T_DIR/prompts"
: >"$CONVERGE_PROMPTS"
printf '%s\n' "PS1='\$ '" "PROMPT_COMMAND='echo >>\"$CONVERGE_PROMPTS\"'" >"$T_DIR/home/.bashrc"
export HOME="$T_DIR/home" SHELL=/bin/bash
seq 1 300 >"$T_DIR/data.txt"

# attach_both SESSION: the 80x24 client in tmux session "small", the
# 160x45 one in "big".
attach_both() {
	tm kill-session -t small >/dev/null 2>&1
	tm kill-session -t big >/dev/null 2>&1
	tm new-session -d -s small -x 80 -y 24 "$(client_cmd -t "$1")"
	tm new-session -d -s big -x 160 -y 45 "$(client_cmd -t "$1")"
	wait_screen "─" 10 small && wait_screen "─" 10 big
}
attached_is() {
	[ "$(sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
for s in json.load(sys.stdin)["result"]["sessions"]:
    if s["name"] == sys.argv[1]:
        print(len(s.get("clients", [])))' "$1")" = "$2" ]
}

echo "# seed $SEED, $ACTIONS actions each way"
sm new -d -s one >/dev/null
check "two clients attach to session one" eval 'attach_both one && wait_for 5 attached_is one 2'
CONVERGE_WATCH=big "$HELPER" "$SEED" "$ACTIONS" "$TMUX_NAME" "$T_DIR/tmux.conf" small "$T_NAME" one "$T_DIR/data.txt" ||
	T_FAILED=1

sm new -d -s two >/dev/null
check "both attach to session two" eval 'attach_both two && wait_for 5 attached_is two 2'
# The large client types first: the session takes its size, and a pane
# split off to the right has its cursor where the small client's
# terminal does not reach.
tm send-keys -t big C-b %
two_panes() {
	[ "$(sm ctl '{"cmd":"list","session":"two"}' | python3 -c '
import json, sys
s = json.load(sys.stdin)["result"]["sessions"][0]
print(sum(len(w["panes"]) for w in s["windows"]))')" = 2 ]
}
check "a split in the large client" wait_for 5 two_panes
CONVERGE_WATCH=small "$HELPER" "$((SEED + 1))" "$ACTIONS" "$TMUX_NAME" "$T_DIR/tmux.conf" big "$T_NAME" two "$T_DIR/data.txt" ||
	T_FAILED=1
finish
