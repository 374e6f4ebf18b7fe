#!/bin/sh
# Bad input on the protocol socket: every kind gets an error reply with a
# code, the connection is dropped only where it must be, and the server
# and its other clients carry on.
. "$(dirname "$0")/../lib.sh"

sm new -d -s proto -- /bin/sh >/dev/null
SOCK="$XDG_RUNTIME_DIR/sandmux/$T_NAME"
raw() { printf '%b' "$1" | socat -t 2 - "UNIX-CONNECT:$SOCK"; }
HELLO='{"id":1,"cmd":"hello","version":1}\n'

out=$(raw '{"id":5,"cmd":"list"}\n')
check "a request before hello is refused (hello_required)" sh -c "echo '$out' | grep -q '\"code\":\"hello_required\"'"
out=$(raw '{"id":1,"cmd":"hello","version":99}\n')
check "a foreign protocol version is refused" sh -c "echo '$out' | grep -q version_mismatch"
out=$(raw "$HELLO"'{"id":2,"cmd":\n{"id":3,"cmd":"list"}\n')
check "malformed JSON gives parse_error" sh -c "echo '$out' | grep -q '\"code\":\"parse_error\"'"
check "the connection survives malformed JSON" sh -c "echo '$out' | grep -q '\"id\":3,\"ok\":true'"
out=$(raw "$HELLO"'[1,2,3]\n"str"\n')
check "a JSON value that is not an object gives parse_error" [ "$(echo "$out" | grep -c parse_error)" -eq 2 ]
out=$(raw "$HELLO"'{"id":2}\n')
check "a missing cmd gives missing_field" sh -c "echo '$out' | grep -q '\"id\":2,\"ok\":false.*missing_field'"
out=$(raw "$HELLO"'{"id":2,"cmd":"frobnicate"}\n')
check "an unknown command gives unknown_command" sh -c "echo '$out' | grep -q unknown_command"
out=$(raw "$HELLO"'{"id":2,"cmd":"capture"}\n')
check "a missing field gives missing_field" sh -c "echo '$out' | grep -q '\"id\":2,\"ok\":false.*missing_field'"
out=$(raw "$HELLO"'{"id":2,"cmd":"capture","pane":"one"}\n')
check "a field of the wrong type gives invalid_argument" sh -c "echo '$out' | grep -q invalid_argument"
out=$(raw "$HELLO"'{"id":2,"cmd":"capture","pane":999}\n')
check "an unknown pane gives no_such_pane" sh -c "echo '$out' | grep -q no_such_pane"
out=$(raw "$HELLO"'{"id":2,"cmd":"split","pane":1,"backend":"docker2"}\n')
check "an unknown backend gives invalid_backend naming the valid ones" sh -c "echo '$out' | grep -q 'invalid_backend.*none.*native.*microvm'"
out=$(raw "$HELLO"'{"id":2,"cmd":"send-keys","pane":1,"keys":[1,2]}\n')
check "keys that are not strings give invalid_argument" sh -c "echo '$out' | grep -q invalid_argument"
out=$(raw "$HELLO"'\n\n{"id":7,"cmd":"list"}\n')
check "blank lines are ignored" sh -c "echo '$out' | grep -q '\"id\":7,\"ok\":true'"

# An oversized line: only that client goes, a bystander keeps working.
mkfifo "$T_DIR/bystander.in"
(sleep 30 >"$T_DIR/bystander.in") &
holder=$!
socat -t 30 "UNIX-CONNECT:$SOCK" - <"$T_DIR/bystander.in" >"$T_DIR/bystander.out" &
bystander=$!
exec 3>"$T_DIR/bystander.in"
printf '%s' "$HELLO" | sed 's/\\n//' >&3
echo >&3
big=$(head -c 1200000 /dev/zero | tr '\0' 'a')
out=$( (printf '%s\n' '{"id":1,"cmd":"hello","version":1}'; printf '{"id":2,"cmd":"x","pad":"%s"}\n' "$big"; printf '{"id":3,"cmd":"list"}\n') | socat -t 3 - "UNIX-CONNECT:$SOCK" 2>/dev/null)
check "a line over 1 MiB gives line_too_long" sh -c "echo '$out' | grep -q line_too_long"
check "and that client is disconnected" sh -c "! echo '$out' | grep -q '\"id\":3'"
printf '{"id":9,"cmd":"list"}\n' >&3
check "a bystander client carries on" wait_for 5 grep -q '"id":9,"ok":true' "$T_DIR/bystander.out"
exec 3>&-
kill $holder $bystander 2>/dev/null
check "the server still answers" sm ls

# Another user is refused even if the socket were reachable.
chmod 755 "$XDG_RUNTIME_DIR" "$XDG_RUNTIME_DIR/sandmux" "$T_DIR"
chmod 666 "$SOCK"
out=$(printf '%b' "$HELLO" | setpriv --reuid=65534 --regid=65534 --clear-groups socat -t 2 - "UNIX-CONNECT:$SOCK" 2>&1)
check "a peer with another uid is refused (peer_uid_mismatch)" sh -c "echo '$out' | grep -q peer_uid_mismatch"
chmod 600 "$SOCK"
chmod 700 "$XDG_RUNTIME_DIR/sandmux"

# A second server on the same name is refused; a stale socket is reclaimed.
out=$("$SANDMUX_BIN" -L "$T_NAME" server 2>&1)
check "a second server on the same socket is refused" sh -c "echo '$out' | grep -q 'already running'"
spid=$(sm ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
kill -9 "$spid"
wait_for 5 dead "$spid"
check "a crashed server leaves its socket" [ -S "$SOCK" ]
sm new -d -s again -- /bin/sh >/dev/null
check "a stale socket is reclaimed by the next server" sm ls
finish
