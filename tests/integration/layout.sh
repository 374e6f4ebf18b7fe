#!/bin/sh
# Layout files: stored backend names are read leniently (missing or
# unknown -> none, "docker" -> native, each logged), bad files are refused
# with the file and field named, and nothing is created from them.
. "$(dirname "$0")/../lib.sh"

cat >"$T_DIR/good.json" <<'JSON'
{"session": "lay", "cols": 160, "rows": 40,
 "panes": [{"command": ["/bin/sh"]},
           {"split": "h", "backend": "docker", "command": ["/bin/sh"]},
           {"split": "v", "of": 0, "backend": "warp-drive", "command": ["/bin/sh"]},
           {"split": "v", "of": 1, "backend": "none", "command": ["/bin/sh"]}]}
JSON
out=$(sm layout "$T_DIR/good.json" 2>"$T_DIR/err.txt")
check "a layout makes four panes" [ "$(echo "$out" | grep -c '^%')" -eq 4 ]
json=$(sm ls --json | tr -d ' \t\n')
check "a missing backend is none" sh -c "echo '$json' | grep -q '\"id\":1,[^}]*\"requested\":\"none\",\"backend\":\"none\"'"
check "stored \"docker\" is native, really wrapped" sh -c "echo '$json' | grep -q '\"id\":2,[^}]*\"requested\":\"native\"'"
wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME ls --json | tr -d ' \t\n' | grep -q '\"id\":2,[^}]*\"backend\":\"native\"'"
check "the docker pane's label is native once confirmed" sh -c "$SANDMUX_BIN -L $T_NAME ls --json | tr -d ' \t\n' | grep -q '\"id\":2,[^}]*\"backend\":\"native\"'"
check "an unknown stored name is none" sh -c "echo '$json' | grep -q '\"id\":3,[^}]*\"requested\":\"none\",\"backend\":\"none\"'"
check "each substitution is logged" sh -c "grep -q docker '$T_DIR/err.txt' && grep -q warp-drive '$T_DIR/err.txt'"

printf '{"panes": [{}, {"split": "x"}]}' >"$T_DIR/bad1.json"
err=$(sm layout "$T_DIR/bad1.json" 2>&1)
check "a bad split names file and field" sh -c "echo '$err' | grep -q 'bad1.json: panes\[1\].split'"
printf '{"panes": [{"colour": 3}]}' >"$T_DIR/bad2.json"
err=$(sm layout "$T_DIR/bad2.json" 2>&1)
check "an unknown key is refused by name" sh -c "echo '$err' | grep -q 'panes\[0\].colour: unknown key'"
printf '{"panes": [' >"$T_DIR/bad3.json"
check "malformed JSON is refused with exit 1" sh -c "$SANDMUX_BIN -L $T_NAME layout '$T_DIR/bad3.json' 2>/dev/null; [ \$? -eq 1 ]"
check "no session was made from a bad file" [ "$(sm ls | grep -c '^[^ ]*:')" -eq 1 ]
# The shipped example, from a checkout: "sandmux" in a pane's command is
# the sandmux that reads the layout (PATH has none here), and the agent
# layout's sandboxed pane has the agent profile.
sm kill-server >/dev/null 2>&1
root=${SANDMUX_ROOT:-$(dirname "$0")/../..}
PATH=/usr/bin:/bin sm layout "$root/examples/layout-agent.json" >"$T_DIR/agent.txt" 2>&1
check "examples/layout-agent.json loads" [ "$(grep -c '^%' "$T_DIR/agent.txt")" -eq 3 ]
check "its sandboxed pane has the agent profile" [ "$(pane_field 1 profile)" = agent ]
check "its feed pane runs this sandmux (not one from PATH)" \
	wait_for 5 capture_has %3 "feed · agent"
sm capture -t %3 | sed 's/^/# feed | /' | head -4
check "... and is still running" [ "$(pane_field 3 state)" = warm ]
finish
