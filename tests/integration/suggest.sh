#!/bin/sh
# `sandmux profile suggest`: a profile learned from the violation log.
#  1. On a recorded log with known denials (tests/golden/suggest/
#     events.jsonl.in, paths filled in for this run) it prints exactly the
#     golden profile and the golden list of what it will not allow.
#  2. That output passes --check-config.
#  3. -t, --session and --since choose the violations; bad options are
#     usage errors.
#  4. --apply shows the diff and writes only after a yes (or --yes).
#  5. For real: an agent pane's write outside its work tree and its curl
#     to a local origin are refused; the profile suggested from the log
#     makes a new pane (real bwrap, real proxies) succeed at both.
. "$(dirname "$0")/../lib.sh"

GOLDEN="$SANDMUX_ROOT/tests/golden/suggest"
[ -n "$SANDMUX_ROOT" ] || GOLDEN="$(cd "$(dirname "$0")/../.." && pwd)/tests/golden/suggest"
export HOME="$T_DIR/home"
R=$(cd "$T_DIR" && pwd -P)
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
CONF="$XDG_CONFIG_HOME/sandmux/config.json"
mkdir -p "$HOME/.cache/tool" "$HOME/.ssh" "$HOME/.aws" "$HOME/projects/app" "$R/data/out" \
	"$R/work/.git/hooks" "$XDG_STATE_HOME/sandmux" "$XDG_CONFIG_HOME/sandmux"
ln -s "$HOME/.aws" "$R/link"
fill() { sed -e "s#@HOME@#$R/home#g" -e "s#@ROOT@#$R#g" "$1"; }
unfill() { sed -e "s#$R/home#@HOME@#g" -e "s#$R#@ROOT@#g"; }
fill "$GOLDEN/events.jsonl.in" >"$LOG"

# --- 1. the golden profile ----------------------------------------------------
sm profile suggest -t %3 >"$T_DIR/out.json" 2>"$T_DIR/err.txt"
rc=$?
check "suggest -t %3 exits 0 (rc $rc)" [ "$rc" = 0 ]
unfill <"$T_DIR/out.json" >"$T_DIR/out.golden"
unfill <"$T_DIR/err.txt" >"$T_DIR/err.golden"
if cmp -s "$T_DIR/out.golden" "$GOLDEN/profile.json"; then
	ok "stdout is the golden profile"
else
	not_ok "stdout is the golden profile"
	diff "$GOLDEN/profile.json" "$T_DIR/out.golden" | sed 's/^/# /'
fi
if cmp -s "$T_DIR/err.golden" "$GOLDEN/refused.txt"; then
	ok "stderr lists the golden refusals, each with its reason"
else
	not_ok "stderr lists the golden refusals"
	diff "$GOLDEN/refused.txt" "$T_DIR/err.golden" | sed 's/^/# /'
fi
check "stdout is one JSON document" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_DIR/out.json"

# --- 2. it passes --check-config -----------------------------------------------
out=$(sm --check-config "$T_DIR/out.json" 2>&1)
check "the suggested config passes --check-config ($out)" \
	sh -c '"$@" >/dev/null' _ "$SANDMUX_BIN" --check-config "$T_DIR/out.json"
echo '{"profiles": {"p": {"base": "agent", "egress_allowlist": ["*.com"]}}}' >"$T_DIR/wide.json"
out=$(sm --check-config "$T_DIR/wide.json" 2>&1)
check "egress_allowlist entries are checked: *.com is config_invalid" \
	sh -c 'case "$1" in *egress_allowlist*config_invalid*) exit 0 ;; esac; exit 1' _ "$out"

# --- 3. choosing violations ---------------------------------------------------------
sm profile suggest --session other >"$T_DIR/other.json" 2>/dev/null
check "--session other: its own write (the nearest existing directory, data)" \
	grep -qF "\"$R/data\"" "$T_DIR/other.json"
check "--session other: its own host, none of pane 3's" \
	sh -c 'grep -q far.away.test "$1" && ! grep -q example "$1" && grep -q "\"base\":.*\"terminal\"" "$1"' _ "$T_DIR/other.json"
sm profile suggest --session learn >/dev/null 2>"$T_DIR/mixed.err"
rc=$?
check "--session whose panes ran under different profiles: an error naming them (rc $rc)" \
	sh -c '[ "$1" = 1 ] && grep -q "different profiles (agent, terminal)" "$2"' _ "$rc" "$T_DIR/mixed.err"
sm profile suggest -t %3 --since 1795900002.5 >"$T_DIR/since.json" 2>/dev/null
check "--since: only the later (network) denials" \
	sh -c 'grep -q example.com "$1" && ! grep -q writable "$1"' _ "$T_DIR/since.json"
sm profile suggest -t %99 >"$T_DIR/none.json" 2>"$T_DIR/none.err"
check "a pane without denials: the base profile alone, and says so" \
	sh -c 'grep -q "0 violations" "$1" && ! grep -q writable "$2"' _ "$T_DIR/none.err" "$T_DIR/none.json"
sm profile suggest -t work:1 >/dev/null 2>"$T_DIR/bad.err"
rc=$?
check "-t takes a pane id: usage error (rc $rc)" sh -c '[ "$1" = 2 ] && grep -q invalid_command "$2"' _ "$rc" "$T_DIR/bad.err"
sm profile suggest >/dev/null 2>&1
check "neither -t nor --session: usage error" [ $? = 2 ]
sm profile suggest -t %3 --session learn >/dev/null 2>&1
check "both -t and --session: usage error" [ $? = 2 ]
sm profile suggest -t %3 --since yesterday >/dev/null 2>&1
check "a bad --since: usage error" [ $? = 2 ]

# --- 4. --apply -----------------------------------------------------------------
echo '{ "scrollback": 5000 }' >"$CONF"
echo n | sm profile suggest -t %3 --apply learned >/dev/null 2>"$T_DIR/apply-n.err"
rc=$?
check "--apply, answered n: rc 1, config unchanged" \
	sh -c "[ $rc = 1 ] && ! grep -q learned '$CONF'"
check "--apply shows the diff before asking" \
	sh -c 'grep -q "^+ .*\"learned\"" "$1" && grep -q "Write profile learned" "$1"' _ "$T_DIR/apply-n.err"
echo y | sm profile suggest -t %3 --apply learned >/dev/null 2>&1
check "--apply, answered y: the profile is in the config" grep -q '"learned"' "$CONF"
check "... the rest of the config kept" grep -q '"scrollback":.*5000' "$CONF"
check "... and it passes --check-config" sh -c '"$@" >/dev/null' _ "$SANDMUX_BIN" --check-config "$CONF"
sm profile suggest -t %3 --apply agent --yes >/dev/null 2>"$T_DIR/apply-agent.err"
check "--apply agent: refused, a built-in name" grep -q config_invalid "$T_DIR/apply-agent.err"
rm -f "$CONF"
sm profile suggest -t %3 --apply learned2 --yes </dev/null >/dev/null 2>&1
check "--apply --yes with no config file: one is made" grep -q '"learned2"' "$CONF"
rm -f "$CONF" "$LOG"

# --- 5. a real pane, before and after -----------------------------------------
if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	not_ok "bwrap and curl are installed (sh tests/deps.sh)"
	finish
fi
ORIGIN_IP=$(ip -4 -o addr show scope global | awk '{sub(/\/.*/, "", $4); print $4; exit}')
ORIGIN_PORT=$((20000 + ($$ + 7) % 20000))
# Outside the work tree and outside /tmp (a sandbox's /tmp is its own):
# a host directory the agent pane sees read-only.
OUT=$(mktemp -d /var/tmp/sandmux-suggest.XXXXXX)
mkdir -p "$R/www" "$R/w1" "$R/w2"
echo "origin-ok-$$" >"$R/www/ok.txt"
(cd "$R/www" && exec python3 -m http.server "$ORIGIN_PORT" --bind "$ORIGIN_IP" >/dev/null 2>&1) &
web=$!
trap 'kill $web 2>/dev/null; rm -rf "$OUT"; cleanup' EXIT
wait_for 10 curl -sf --noproxy '*' "http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt"
check "setup: the local origin answers directly ($ORIGIN_IP:$ORIGIN_PORT)" \
	curl -sf --noproxy '*' -o /dev/null "http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
# run NAME PROFILE DIR: a native pane that writes outside its work tree
# and fetches from the origin; its report in DIR/report
run() {
	id=$(sm new -d -s "$1" -x 200 -y 50 --backend native --profile "$2" -c "$3" -- sh -c \
		"{ echo x >'$OUT/$1.txt'; echo write=\$?;
		   curl -fsS -m 10 http://$ORIGIN_IP:$ORIGIN_PORT/ok.txt; echo curl=\$?; } >report 2>&1;
		 echo ALL-DONE; sleep 600" | pane_id)
	wait_for 40 capture_has "%$id" ALL-DONE
	echo "$id"
}
first=$(run before agent "$R/w1")
check "agent pane: the write outside its work tree is refused" \
	sh -c "grep -qx 'write=[12]' '$R/w1/report' && [ ! -e '$OUT/before.txt' ]"
check "agent pane: the curl to the local origin is refused" \
	sh -c "grep -q '^curl=[1-9]' '$R/w1/report' && ! grep -q origin-ok '$R/w1/report'"
wait_for 5 grep -q "\"target\":\"$ORIGIN_IP:$ORIGIN_PORT\"" "$LOG"
sm profile suggest -t "%$first" --apply learned --yes >"$T_DIR/real.json" 2>"$T_DIR/real.err"
check "suggest from the real log: the directory written to" grep -qF "\"$OUT\"" "$T_DIR/real.json"
check "... and the origin's address" grep -qF "\"$ORIGIN_IP\"" "$T_DIR/real.json"
check "... written to the config" grep -q '"learned"' "$CONF"
# The server reads profiles when it starts.
sm kill-server >/dev/null 2>&1
second=$(run after learned "$R/w2")
sm ls --json | tr -d ' \t\n' >"$T_DIR/ls.json"
check "learned pane: runs native under the learned profile" \
	sh -c 'grep -q "\"profile\":\"learned\"" "$1" && grep -q "\"backend\":\"native\"" "$1"' _ "$T_DIR/ls.json"
check "learned pane: the same write succeeds ($(grep write= "$R/w2/report"))" \
	sh -c "grep -qx 'write=0' '$R/w2/report' && [ -e '$OUT/after.txt' ]"
check "learned pane: the same curl succeeds ($(grep curl= "$R/w2/report"))" \
	sh -c "grep -q 'origin-ok-$$' '$R/w2/report' && grep -qx 'curl=0' '$R/w2/report'"
finish
