#!/bin/sh
# Secret environment variables stay out of native panes (backends/
# secret-env.c), with the real server and bwrap, as root and as uid
# 65534.  The server starts with tokens, keys and the ssh agent socket
# exported, and secrets under names no list of secret-looking names
# foresees (a connection string, a JWT, a webhook URL); inside a cold
# native pane, a prepared one and an agent pane (behind the egress
# bridge) neither `env` nor any /proc/*/environ visible inside holds a
# secret's value: what a pane inherits is an allowlist (PATH, HOME,
# LANG and LC_*, ...), so an ordinary setting of the server is withheld
# too, and listed; `-e` on the command line loses only what looks like
# a secret; a profile's "pass_env" lets the named ones through; `ls
# --json` names what was withheld and never a value; a `none` pane
# keeps everything.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start env bwrap setpriv socat

SECRETS="GITHUB_TOKEN=ghp_VALUE1 GH_TOKEN=gho_VALUE2 AWS_SECRET_ACCESS_KEY=awsVALUE3
AWS_ACCESS_KEY_ID=AKIAVALUE4 AWS_SESSION_TOKEN=awsVALUE5 OPENAI_API_KEY=skVALUE6
NPM_TOKEN=npmVALUE7 SSH_AUTH_SOCK=/tmp/agentVALUE8 DB_PASSWORD=pwVALUE9
DATABASE_CONNECTION_STRING=Server=db;Pwd=VALUE11 SESSION_JWT=eyJVALUE12
SLACK_WEBHOOK_URL=https://hooks.slack.com/services/VALUE13"
VALUES="VALUE1 VALUE2 VALUE3 VALUE4 VALUE5 VALUE6 VALUE7 VALUE8 VALUE9 VALUE10 VALUE11 VALUE12 VALUE13"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
# run SESSION BACKEND PROFILE OUT [ARGS...]: a pane that writes its
# environment and every environ it can see to OUT; prints its id.
run() {
	s=$1 backend=$2 profile=$3 out=$4
	shift 4
	id=$(sm new -d -s "$s" -x 120 -y 30 --backend "$backend" --profile "$profile" -c "$D/work" "$@" -- \
		sh -c "{ env; echo ---; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' <\$f; done; } >'$out' 2>/dev/null; echo ALL-DONE; sleep 600" |
		pane_id)
	wait_for 30 capture_has "%$id" ALL-DONE
	echo "$id"
}
# leaked FILE: the secret values FILE holds
leaked() { for v in $VALUES; do grep -qF "$v" "$1" && printf '%s ' "$v"; done; }
no_leak() { [ -s "$1" ] && [ -z "$(leaked "$1")" ]; }
has_line() { grep -qxF "$2" "$1"; }

for who in root nobody; do
	ctx "e-$who" "$who" "" $SECRETS PLAIN_SETTING=kept LANG=C.UTF-8 LC_TIME=C
	cat >"$D/config/sandmux/config.json" <<'JSON'
{ "profiles": { "gh": { "pass_env": ["GH_TOKEN", "PLAIN_*"] } } }
JSON
	[ "$who" = nobody ] && chown -R 65534:65534 "$D/config"
	out="$D/work"

	cold=$(run cold native terminal "$out/cold.txt")
	check "$who: a cold native pane runs native" [ "$(pane_field "$cold" backend)" = native ]
	check "$who: cold: no secret value in env or any /proc/*/environ inside (leaked: $(leaked "$out/cold.txt"))" \
		no_leak "$out/cold.txt"
	check "$who: cold: /proc/*/environ inside was read" grep -q -- '---' "$out/cold.txt"
	check "$who: cold: the allowlist is kept (LANG, LC_TIME, HOME)" sh -c "grep -qx LANG=C.UTF-8 '$out/cold.txt' &&
		grep -qx LC_TIME=C '$out/cold.txt' && grep -qx 'HOME=$D/home' '$out/cold.txt'"
	check "$who: cold: a setting off the allowlist is withheld" sh -c "! grep -q PLAIN_SETTING '$out/cold.txt'"
	check "$who: cold: SSH_AUTH_SOCK is not set inside" sh -c "! grep -q '^SSH_AUTH_SOCK=' '$out/cold.txt'"
	pane_json "$cold" >"$T_DIR/$who-cold.json"
	for name in GITHUB_TOKEN GH_TOKEN AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID AWS_SESSION_TOKEN \
		OPENAI_API_KEY NPM_TOKEN SSH_AUTH_SOCK DB_PASSWORD DATABASE_CONNECTION_STRING SESSION_JWT \
		SLACK_WEBHOOK_URL PLAIN_SETTING; do
		grep -q "\"withheld_env\":\[[^]]*\"$name\"" "$T_DIR/$who-cold.json" || missing="$missing $name"
	done
	check "$who: ls --json names every withheld variable (missing:${missing:-})" [ -z "${missing:-}" ]
	missing=""
	sm ls --json >"$T_DIR/$who-ls.json"
	check "$who: ls --json holds no secret value at all" no_leak "$T_DIR/$who-ls.json"
	check "$who: LANG is not listed as withheld" sh -c "! grep -q '\"LANG\"' '$T_DIR/$who-cold.json'"

	# The next pane takes the sandbox prepared after the first one.
	wait_for 10 has_waiting "$(server_pid)"
	warm=$(run warm native terminal "$out/warm.txt" -e GITLAB_TOKEN=glVALUE10 -e EXTRA_SETTING=too)
	check "$who: prepared: no secret value inside (leaked: $(leaked "$out/warm.txt"))" no_leak "$out/warm.txt"
	check "$who: prepared: the allowlist is kept, the rest withheld" sh -c "grep -qx LANG=C.UTF-8 '$out/warm.txt' &&
		! grep -q PLAIN_SETTING '$out/warm.txt'"
	check "$who: -e with a secret's name is withheld too, other -e kept" \
		sh -c "! grep -q GITLAB_TOKEN '$out/warm.txt' && grep -qx EXTRA_SETTING=too '$out/warm.txt'"
	pane_json "$warm" | grep -q '"GITLAB_TOKEN"' && ok "$who: GITLAB_TOKEN is in withheld_env" ||
		not_ok "$who: GITLAB_TOKEN is in withheld_env"

	gh=$(run gh native gh "$out/gh.txt")
	check "$who: pass_env: the named variables reach the pane" sh -c "grep -qx GH_TOKEN=gho_VALUE2 '$out/gh.txt' &&
		grep -qx PLAIN_SETTING=kept '$out/gh.txt'"
	check "$who: pass_env: the others still do not" sh -c "! grep -q 'VALUE1\|VALUE3\|VALUE8\|VALUE11' '$out/gh.txt'"
	pane_json "$gh" | grep -q '"GH_TOKEN"' && not_ok "$who: pass_env: GH_TOKEN is not listed as withheld" ||
		ok "$who: pass_env: GH_TOKEN is not listed as withheld"

	agent=$(run agent native agent "$out/agent.txt")
	check "$who: agent pane (egress bridge): no secret value inside (leaked: $(leaked "$out/agent.txt"))" \
		no_leak "$out/agent.txt"
	check "$who: agent pane: the proxy environment is there" grep -q '^HTTPS_PROXY=\|^https_proxy=' "$out/agent.txt"

	host=$(run host none terminal "$out/none.txt")
	check "$who: a none pane keeps every variable" sh -c "grep -qx GITHUB_TOKEN=ghp_VALUE1 '$out/none.txt' &&
		grep -qx SSH_AUTH_SOCK=/tmp/agentVALUE8 '$out/none.txt' && grep -qx AWS_SECRET_ACCESS_KEY=awsVALUE3 '$out/none.txt'"
	pane_json "$host" | grep -q withheld_env && not_ok "$who: a none pane lists nothing withheld" ||
		ok "$who: a none pane lists nothing withheld"
done
finish
