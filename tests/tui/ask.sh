#!/bin/sh
# TUI: ask mode, allowing from the feed (docs/feed.md), the real client
# in tmux.  In an agent pane (real bwrap), real curl through the
# session's real egress proxy to a private origin (tests/origin-net.sh)
# whose name is on no allowlist is refused; in the feed the user selects
# the line, presses a and chooses "this session"; the same curl then
# reaches the origin and `events --json` has the policy-grant.  A
# deny-listed name cannot be granted: the feed says why, the CLI fails
# with host_denylisted.  The profile route shows the config's diff and
# writes it only after y.  After kill-session, a new session's agent pane
# is refused again.
. "$(dirname "$0")/../origin-net.sh"
. "$(dirname "$0")/tui-lib"
trap 'tui_cleanup; origin_net_stop; rm -rf "$HOME_DIR"' EXIT
origin_net_start

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
feed_pane() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    for w in s["windows"]:
        for p in w["panes"]:
            if p.get("title", "").startswith("feed \u00b7 "):
                print(p["id"])'; }
has_feed() { [ -n "$(feed_pane)" ]; }
first_pane() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == sys.argv[1]:
        print(s["windows"][0]["panes"][0]["id"])' "$1"; }

CONFIG="$XDG_CONFIG_HOME/sandmux/config.json"
# $HOME outside /tmp, which a sandbox has private (its own tmpfs): a
# write there must meet the read-only host, not an empty directory.
HOME_DIR=$(mktemp -d /var/tmp/sandmux-home.XXXXXX)
export HOME="$HOME_DIR"
mkdir -p "$(dirname "$CONFIG")" "$T_DIR/work" "$HOME/cache"
printf '{ "profiles": { "web": { "base": "agent" }, "asker": { "base": "agent", "network": "ask" } } }\n' >"$CONFIG"
cp "$CONFIG" "$T_DIR/config.orig"

if ! native_available; then
	echo "ok - # SKIP native sandbox not available here"
	finish
fi

# fetch PANE TAG HOST: curl in the pane, through its proxy, into
# work/TAG.out (the work tree is the agent profile's writable root), then
# "BODY rc=RC" from that file once curl is done.
fetch() {
	sm send-keys -t "$1" -l "clear; out=\$(curl -sS -f -m 5 http://$3/$2 2>&1); echo \"\$out rc=\$?\" >$2.out"
	sm send-keys -t "$1" Enter
	wait_for 15 grep -q "rc=" "$T_DIR/work/$2.out"
	tr '\n' ' ' <"$T_DIR/work/$2.out" | sed 's/ $//'
}
reached() { case "$1" in *"origin $2 got: GET /"*" rc=0") true ;; *) false ;; esac; }
refused() { case "$1" in *"origin "*) false ;; *"rc=0") false ;; *rc=*) true ;; *) false ;; esac; }
feed_has() { sm capture -t "%$feed" | grep -qF -- "$1"; }
dump() { [ -n "$ASK_DEBUG" ] && sm capture -t "%$feed" | sed "s/^/# feed: /"; true; }

sm new -d -s work -c "$T_DIR/work" --backend native --profile agent >/dev/null
agent=$(first_pane work)
start_client -t work
backend_is() { [ "$(pane_field "$1" backend)" = "$2" ]; }
check "the agent pane is labelled native" wait_for 10 backend_is "$agent" native

prefix v
check "prefix v opens the feed" wait_for 5 has_feed
feed=$(feed_pane)
# Room for whole lines and the diffs: at 120 columns the feed opens
# full-width below (docs/feed.md), made 26 rows tall here.
feed_cols() { panes | awk -v id="$feed" '$1 == id { print $4 }'; }
feed_rows() { panes | awk -v id="$feed" '$1 == id { print $5 }'; }
check "the feed is full-width ($(feed_cols))" [ "$(feed_cols)" -eq 120 ]
sm resize-pane -t "%$feed" -y 26 >/dev/null
feed_rows_is() { [ "$(feed_rows)" -eq "$1" ]; }
check "the feed is 26 rows tall ($(feed_rows))" wait_for 3 feed_rows_is 26
keys l
check "l hides the lifecycle lines" wait_for 3 sh -c "! $SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q ' ready '"

got=$(fetch "%$agent" md metadata.google.internal)
check "a deny-listed name is refused ($got)" refused "$got"
got=$(fetch "%$agent" before grant.test)
check "a curl to a name on no allowlist is refused ($got)" refused "$got"
check "the feed shows the refusal" wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '%$agent .*native .*network-outbound .*grant.test:80'"; dump

# Select the grant.test line: up to the metadata line (paused), then down.
wait_for 3 active_pane_is "$feed" || sm select-pane -t "%$feed"
keys k
check "k selects the line above (the metadata refusal)" wait_for 3 feed_has PAUSED
keys a
check "a on a deny-listed host: the feed says why it cannot be allowed" \
	wait_for 3 feed_has "metadata.google.internal is on the fixed deny list"
check "... and offers nothing" sh -c "! $SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -qF 'this session, until'"
check "the CLI refuses it with its code (host_denylisted)" sh -c \
	"$SANDMUX_BIN -L $T_NAME allow -t %$agent metadata.google.internal 2>&1 | grep -qF '(host_denylisted)'"
keys j
keys a
check "a on the refused host offers: this session" wait_for 3 feed_has "s  this session, until it ends"
check "... the profile" feed_has "p  profile agent, in the config"
check "... or cancel" feed_has "c  cancel"
check "no grant before the choice" sh -c "! grep -q '\"kind\":\"policy-grant\"' '$XDG_STATE_HOME/sandmux/events.jsonl'"
keys c
check "c cancels" wait_for 3 feed_has "cancelled: nothing allowed"
got=$(fetch "%$agent" cancelled grant.test)
check "... and the host is still refused ($got)" refused "$got"
sm select-pane -t "%$feed"
keys a
wait_for 3 feed_has "this session, until"
keys s
check "s allows it for the session" wait_for 5 feed_has "allowed grant.test for session work until it ends"
got=$(fetch "%$agent" after grant.test)
check "the same curl now reaches the origin ($got)" reached "$got" grant
sm events --json >"$T_DIR/events.json"
check "events --json has the policy-grant: who, what, scope" sh -c "grep '\"kind\":\"policy-grant\"' '$T_DIR/events.json' | grep -F '\"host\":\"grant.test\"' | grep -F '\"scope\":\"session\"' | grep -F '\"via\":\"feed\"' | grep -qF '\"pane\":$agent'"
check "... with one \"profile\" key" sh -c "grep '\"kind\":\"policy-grant\"' '$T_DIR/events.json' | grep -o '\"profile\":' | wc -l | grep -qx 1"
check "events' human line names the host and the scope" sh -c "$SANDMUX_BIN -L $T_NAME events | grep -q 'policy-grant network-outbound grant.test (session)'"
check "the feed shows the grant, lifecycle hidden or not" wait_for 3 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '%$agent .*policy-grant .*grant.test (session)'"

# The profile route: a built-in profile cannot change; a config one
# shows its diff, and is written after y.  p follows the newest line again.
sm select-pane -t "%$feed"
keys p
got=$(fetch "%$agent" agentother other.test)
wait_for 5 feed_has "other.test:80"
keys a
wait_for 3 feed_has "this session, until"
keys p
check "p on a built-in profile says it cannot change (profile_builtin)" wait_for 5 feed_has "profile_builtin"
web=$(sm split -t "%$agent" -v -b native -P web | awk '{ print substr($1, 2) }')
got=$(fetch "%$web" webbefore other.test)
check "a web pane is refused other.test ($got)" refused "$got"
sm select-pane -t "%$feed"
wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '%$web .*other.test:80'"
keys a
check "a offers profile web" wait_for 3 feed_has "p  profile web, in the config"; dump
keys p
check "p shows the config's diff" wait_for 5 feed_has "--- $CONFIG"; dump
check "... with the entry" wait_for 3 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '^+.*other.test'"
check "... and asks first" feed_has "write this to $CONFIG? y/n"
check "nothing is written before y" cmp -s "$CONFIG" "$T_DIR/config.orig"
keys y
check "y writes it" wait_for 5 feed_has "new panes of profile web get other.test"; dump
check "the config has it" python3 -c "
import json, sys
sys.exit(0 if json.load(open('$CONFIG'))['profiles']['web']['egress_allowlist'] == ['other.test'] else 1)"
check "... and passes --check-config" "$SANDMUX_BIN" --check-config "$CONFIG"
got=$(fetch "%$web" webafter other.test)
check "the web pane reaches other.test now ($got)" reached "$got" other

# A refused write offers only the profile route, for new panes.
sm send-keys -t "%$web" -l "echo x >$HOME/cache/f; echo rc=\$? >w1.out"
sm send-keys -t "%$web" Enter
wait_for 15 grep -q "rc=" "$T_DIR/work/w1.out"
check "the web pane cannot write \$HOME/cache ($(cat "$T_DIR/work/w1.out"))" [ "$(cat "$T_DIR/work/w1.out")" != rc=0 ]
sm select-pane -t "%$feed"
check "the feed shows the refused write" wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '%$web .*file-write.*cache/f'"
keys p
wait_for 3 sh -c "! $SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q PAUSED"
keys a
check "a on a file denial: a mount cannot change under a running pane" wait_for 3 feed_has "a mount cannot change under a running pane"
check "... the profile route only" sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -qF 'p  profile web' && ! $SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -qF 'this session, until'"
keys p
check "p shows the exact change: the directory in writable" wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q '^+.*\"writable\":.*$HOME/cache'"; dump
keys y
check "y writes it, for new panes" wait_for 5 feed_has "new panes of profile web get $HOME/cache writable"
check "the config still passes --check-config" "$SANDMUX_BIN" --check-config "$CONFIG"
web2=$(sm split -t "%$web" -h -b native -P web | awk '{ print substr($1, 2) }')
sm send-keys -t "%$web2" -l "echo x >$HOME/cache/f; echo rc=\$? >w2.out"
sm send-keys -t "%$web2" Enter
wait_for 15 grep -q "rc=" "$T_DIR/work/w2.out"
check "a new web pane can write there ($(cat "$T_DIR/work/w2.out"))" [ "$(cat "$T_DIR/work/w2.out")" = rc=0 ]

# Ask mode ("network": "ask"): a CONNECT to an unknown host is held
# while the feed asks; only the answer, or 30 s, makes the proxy reply.
# start_fetch PANE TAG HOST: curl (a CONNECT tunnel) in the background of
# the pane's shell; its "BODY rc=RC" lands in work/TAG.out when done.
start_fetch() {
	sm send-keys -t "$1" -l "clear; (s=\$(date +%s); out=\$(curl -sS -f -p -m 60 http://$3/$2 2>&1); echo \"\$out rc=\$? took=\$((\$(date +%s) - s))\" >$2.out) &"
	sm send-keys -t "$1" Enter
}
result_of() { wait_for "$2" grep -q "rc=" "$T_DIR/work/$1.out" && tr '\n' ' ' <"$T_DIR/work/$1.out"; }
asker=$(sm split -t "%$agent" -h -b native -P asker | awk '{ print substr($1, 2) }')
check "the asker pane is native" wait_for 10 backend_is "$asker" native
sm select-pane -t "%$feed"
keys p
start_fetch "%$asker" held ask.test
check "a CONNECT to an unknown host: the feed asks" wait_for 10 feed_has "pane %$asker asks to reach ask.test:80"
check "... offering this session, the profile, refuse now" sh -c "$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -qF '  s  allow for this session' && $SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -qF '  d  refuse now'"
# The feed asks: the two seconds of no answer are the test.
sleep 2
check "the proxy has not replied while it asks" [ ! -s "$T_DIR/work/held.out" ]
keys s
got=$(result_of held 15)
check "s: the held connection goes through ($got)" sh -c "echo '$got' | grep -q 'origin ask got: GET /held HTTP/1.1 rc=0'"
check "... and the feed says so (not that nothing was replayed)" feed_has "the held connection goes through now"
start_fetch "%$asker" refused nope.test
check "another unknown host asks" wait_for 10 feed_has "asks to reach nope.test:80"
keys d
got=$(result_of refused 10)
check "d: refused at once ($got)" sh -c "echo '$got' | grep -q 'rc=[1-9]' && ! echo '$got' | grep -q origin"
check "... reported as refused by the user" grep -q '"target":"nope.test:80".*refused by the user' "$XDG_STATE_HOME/sandmux/events.jsonl"
start_fetch "%$asker" md2 metadata.google.internal
got=$(result_of md2 10)
check "a deny-listed host is never held ($got)" sh -c "echo '$got' | grep -q 'rc=[1-9]'"
check "... nor asked about" sh -c "! grep '\"kind\":\"policy-ask\"' '$XDG_STATE_HOME/sandmux/events.jsonl' | grep -q metadata"
start_fetch "%$asker" late late.test
check "a third host asks" wait_for 10 feed_has "asks to reach late.test:80"
keys c
got=$(result_of late 45)
check "no answer: refused when the 30 s are up ($got)" sh -c "echo '$got' | grep -q 'rc=[1-9]' && [ \"\$(echo '$got' | sed -n 's/.*took=\([0-9]*\).*/\1/p')\" -ge 29 ]"
check "... reported as no answer in time" grep -q '"target":"late.test:80".*no answer in time' "$XDG_STATE_HOME/sandmux/events.jsonl"

# The session ends: its grant ends with it.
sm kill-session -t work
sm new -d -s again -c "$T_DIR/work" --backend native --profile agent >/dev/null
again=$(first_pane again)
got=$(fetch "%$again" newsession grant.test)
check "after kill-session, a new session's agent pane is refused again ($got)" refused "$got"
finish
