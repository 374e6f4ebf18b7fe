#!/bin/sh
# `sandmux allow` from the command line (ask mode, docs/feed.md): real
# curl in a real native pane (the agent base), through the session's real
# egress proxy, to real origins in a private network (tests/origin-net.sh).
# A name on no allowlist is refused; after `allow` the next request
# reaches it, and the grant is a policy-grant event; deny-listed hosts,
# invalid names and unfiltered panes are refused with their codes;
# --persist asks at a terminal, refuses without one unless --yes, writes
# the profile's egress_allowlist (the config still passes --check-config);
# a session grant ends with its session, a profile grant does not.
. "$(dirname "$0")/../origin-net.sh"
. "$(dirname "$0")/../lib.sh"
trap 'cleanup; origin_net_stop; rm -rf "$HOME_DIR"' EXIT
origin_net_start

if ! command -v bwrap >/dev/null 2>&1; then
	echo "ok - # SKIP bubblewrap is not installed"
	finish
fi

CONFIG="$XDG_CONFIG_HOME/sandmux/config.json"
# $HOME outside /tmp, which a sandbox has private (its own tmpfs): a
# write there must meet the read-only host, not an empty directory.
HOME_DIR=$(mktemp -d /var/tmp/sandmux-home.XXXXXX)
export HOME="$HOME_DIR"
mkdir -p "$(dirname "$CONFIG")" "$T_DIR/work" "$HOME/cache"
cat >"$CONFIG" <<'EOC'
{
  "profiles": {
    "web": { "base": "agent" }
  }
}
EOC
cp "$CONFIG" "$T_DIR/config.orig"

# fetch PANE TAG HOST: the pane runs curl (through its proxy) and prints
# "TAG: BODY rc=RC"; the line is returned once it is on screen.
fetch() {
	sm send-keys -t "$1" -l "out=\$(curl -sS -f -m 5 http://$3/$2 2>&1); echo \"$2: \$out rc=\$?\""
	sm send-keys -t "$1" Enter
	wait_for 15 sh -c "$SANDMUX_BIN -L $T_NAME capture -t $1 -S - | grep -q '^$2: .*rc='"
	sm capture -t "$1" -S - | grep "^$2: .*rc=" | tail -1
}
reached() { case "$1" in *"origin $2 got: GET /"*" rc=0") true ;; *) false ;; esac; }
refused() { case "$1" in *"origin "*) false ;; *"rc=0") false ;; *rc=*) true ;; *) false ;; esac; }

pane=$(sm new -d -s one -x 160 -y 40 -c "$T_DIR/work" --backend native --profile web 2>&1)
id=$(sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == "one":
        print(s["windows"][0]["panes"][0]["id"])')
# The label comes once the sandbox is confirmed, not with the reply.
is_native() { [ "$(pane_field "$id" backend)" = native ]; }
if [ -z "$id" ] || ! wait_for 15 is_native; then
	not_ok "a native pane with profile web: $pane"
	finish
fi

got=$(fetch "%$id" before grant.test)
check "a name on no allowlist is refused ($got)" refused "$got"
if [ -z "$got" ]; then # say why, rather than fail every check below blind
	sm capture -t "%$id" -S - 2>&1 | tail -5 | sed 's/^/# pane: /'
	tail -20 "$XDG_STATE_HOME/sandmux/server-$T_NAME.log" 2>&1 | sed 's/^/# server: /'
	finish
fi

out=$(sm allow -t "%$id" grant.test 2>&1)
rc=$?
check "sandmux allow -t PANE HOST succeeds ($out)" [ "$rc" -eq 0 ]
check "... and says for how long" sh -c "echo '$out' | grep -qF 'allowed grant.test for session one until it ends'"
got=$(fetch "%$id" after grant.test)
check "the next request to it goes through ($got)" reached "$got" grant
got=$(fetch "%$id" other grant.test)
got=$(fetch "%$id" notgranted other.test)
check "another host is still refused ($got)" refused "$got"

sm events --json >"$T_DIR/events.json"
grant_event() { # PATTERN...: a policy-grant event holding every pattern
	lines=$(grep '"kind":"policy-grant"' "$T_DIR/events.json")
	for pat in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -- "$pat"); done
	[ -n "$lines" ]
}
check "the grant is a policy-grant event: what, scope, who" grant_event '"host":"grant.test"' \
	'"scope":"session"' '"via":"cli"' '"uid":' "\"pane\":$id" '"session":"one"'
check "... in the durable log" grep -q '"kind":"policy-grant".*"host":"grant.test"' "$XDG_STATE_HOME/sandmux/events.jsonl"

# What can never be granted.
expect_code() { # CODE CMD...: fails, exit 1, with (CODE) on stderr
	code=$1
	shift
	"$@" >"$T_DIR/err" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] && grep -qF "($code)" "$T_DIR/err"
}
check "a deny-listed name cannot be allowed (host_denylisted)" expect_code host_denylisted sm allow -t "%$id" metadata.google.internal
check "... and the message says why" grep -qF "fixed deny list" "$T_DIR/err"
check "a metadata address cannot be allowed" expect_code host_denylisted sm allow -t "%$id" 169.254.169.254
check "a telemetry name cannot (wildcard rule)" expect_code host_denylisted sm allow -t "%$id" o1.ingest.sentry.io
check "loopback cannot" expect_code host_denylisted sm allow -t "%$id" 127.0.0.1
check "an invalid name is refused (invalid_allowlist_entry)" expect_code invalid_allowlist_entry sm allow -t "%$id" 'no/such host'
host=$(sm split -t "%$id" -h 2>&1 | awk '{ print substr($1, 2) }')
check "a host pane has nothing to allow (invalid_state)" expect_code invalid_state sm allow -t "%$host" grant.test
check "no such pane (no_such_pane)" expect_code no_such_pane sm allow -t %999 grant.test
check "--persist on a host pane is invalid_state too, not a question (confirm_needed)" \
	expect_code invalid_state sm allow -t "%$host" --persist grant.test </dev/null
check "no deny-listed grant was logged" sh -c "! grep '\"kind\":\"policy-grant\"' '$XDG_STATE_HOME/sandmux/events.jsonl' | grep -q -e metadata -e 169.254 -e sentry -e 127.0.0.1"

# --persist: the profile route.
check "--persist without a terminal and without --yes is refused (confirm_needed)" \
	expect_code confirm_needed sm allow -t "%$id" --persist other.test </dev/null
check "... and writes nothing" cmp -s "$CONFIG" "$T_DIR/config.orig"
if command -v script >/dev/null 2>&1; then
	printf 'n\n' | script -qec "$SANDMUX_BIN -L $T_NAME allow -t %$id --persist other.test" /dev/null >"$T_DIR/ask.out" 2>&1
	check "at a terminal it shows the diff first" grep -qF '+' "$T_DIR/ask.out"
	check "... the entry's line" grep -q '^+.*"other.test"' "$T_DIR/ask.out"
	check "... and asks" grep -qF "write this to $CONFIG? [y/N]" "$T_DIR/ask.out"
	check "answered n, it writes nothing" cmp -s "$CONFIG" "$T_DIR/config.orig"
else
	not_ok "script(1) is installed (util-linux) for the confirmation check"
fi
out=$(sm allow -t "%$id" --persist --yes other.test 2>&1)
check "--persist --yes writes the profile ($out)" sh -c "echo '$out' | grep -qF 'allowed other.test in profile web'"
check "the config holds it in web's egress_allowlist" python3 -c "
import json, sys
c = json.load(open('$CONFIG'))
sys.exit(0 if c['profiles']['web']['egress_allowlist'] == ['other.test'] and c['profiles']['web']['base'] == 'agent' else 1)"
check "the config still passes --check-config" "$SANDMUX_BIN" --check-config "$CONFIG"
sm events --json >"$T_DIR/events.json"
check "the profile grant is a policy-grant event (scope profile, the file)" grant_event '"host":"other.test"' '"scope":"profile"' "\"config\":\"$CONFIG\"" '"profile":"web"'
got=$(fetch "%$id" persisted other.test)
check "the session has it at once ($got)" reached "$got" other
check "--persist twice: already there (invalid_argument)" expect_code invalid_argument sm allow -t "%$id" --persist --yes other.test
agent=$(sm split -t "%$id" -v -b native -P agent 2>&1 | awk '{ print substr($1, 2) }')
check "--persist on a built-in profile is refused (profile_builtin)" expect_code profile_builtin sm allow -t "%$agent" --persist --yes grant.test
check "... saying how to make one" grep -qF '"egress_allowlist"' "$T_DIR/err"

# A refused write: only the profile route, and only new panes get it.
# pane_write PANE TAG FILE: the pane writes FILE; "rc=RC" in work/TAG.out.
pane_write() {
	sm send-keys -t "$1" -l "echo x >$3 2>/dev/null; echo rc=\$? >$2.out"
	sm send-keys -t "$1" Enter
	wait_for 15 grep -q "rc=" "$T_DIR/work/$2.out"
	cat "$T_DIR/work/$2.out"
}
check "the web pane cannot write \$HOME/cache ($(pane_write "%$id" w1 "$HOME/cache/f"))" [ "$(cat "$T_DIR/work/w1.out")" != rc=0 ]
check "a path without --persist is refused (invalid_argument)" expect_code invalid_argument sm allow -t "%$id" "$HOME/cache/f"
check "... saying why" grep -qF "a mount cannot change under a running pane" "$T_DIR/err"
check "a path outside \$HOME is refused (invalid_argument)" expect_code invalid_argument sm allow -t "%$id" --persist --yes /etc/passwd
check "a path that does not exist is refused" expect_code invalid_argument sm allow -t "%$id" --persist --yes "$HOME/none/such/f"
out=$(sm allow -t "%$id" --persist --yes "$HOME/cache/f" 2>&1)
check "--persist --yes writes the file's directory into writable ($out)" sh -c "echo '$out' | grep -qF 'allowed writes to $HOME/cache in profile web'"
check "the config holds it" python3 -c "
import json, sys
sys.exit(0 if json.load(open('$CONFIG'))['profiles']['web']['writable'] == ['$HOME/cache'] else 1)"
check "the config still passes --check-config" "$SANDMUX_BIN" --check-config "$CONFIG"
sm events --json >"$T_DIR/events.json"
check "the grant is a policy-grant event (file-write*, the path, scope profile)" grant_event '"action":"file-write*"' "\"path\":\"$HOME/cache\"" '"scope":"profile"'
check "the running pane keeps its mounts ($(pane_write "%$id" w2 "$HOME/cache/f"))" [ "$(cat "$T_DIR/work/w2.out")" != rc=0 ]
newweb=$(sm split -t "%$id" -v -b native -P web 2>&1 | awk '{ print substr($1, 2) }')
check "a new pane of the profile can write there ($(pane_write "%$newweb" w3 "$HOME/cache/f"))" [ "$(cat "$T_DIR/work/w3.out")" = rc=0 ]
check "... for real" grep -qx x "$HOME/cache/f"

# The session ends: its grant goes with it; the profile's stays.
sm kill-session -t one
sm new -d -s two -x 160 -y 40 -c "$T_DIR/work" --backend native --profile web >/dev/null 2>&1
id2=$(sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == "two":
        print(s["windows"][0]["panes"][0]["id"])')
got=$(fetch "%$id2" newsession grant.test)
check "a new session is refused again ($got)" refused "$got"
got=$(fetch "%$id2" newprofile other.test)
check "... while the profile's host is allowed there ($got)" reached "$got" other
finish
