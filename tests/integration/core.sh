#!/bin/sh
# The multiplexer core through its real socket: sessions, panes, capture,
# colours, bulk output integrity, exit status, resize, many panes, keys.
. "$(dirname "$0")/../lib.sh"

# --- a session, exact text -------------------------------------------
out=$(sm new -d -s core -x 80 -y 24 --remain -- printf 'hello\tworld\n\033[1mbold\033[0m line\n')
check "new -d prints the session and pane" sh -c "echo '$out' | grep -q '^core %1 none'"
wait_for 5 sm capture -t %1 | grep -q 'exited'
cap=$(sm capture -t %1)
expected=$(printf 'hello   world\nbold line\n\n[exited with status 0]')
check "capture gives exact text" [ "$(printf '%s' "$cap" | head -4)" = "$expected" ]

# --- colours with --ansi -----------------------------------------------
sm new -d -s colours --remain -- printf '\033[31mred\033[0m \033[38;5;208morange\033[0m \033[38;2;1;2;3mrgb\033[0m\n' >/dev/null
wait_for 5 capture_has colours 'exited'
ansi=$(sm capture -t colours --ansi | head -1)
check "--ansi keeps a palette colour" sh -c "printf '%s' '$ansi' | grep -q '31m\\?red\|\[31mred'"
check "--ansi keeps a 256 colour" sh -c "printf '%s' '$ansi' | grep -q '38;5;208m'"
check "--ansi keeps an RGB colour" sh -c "printf '%s' '$ansi' | grep -q '38;2;1;2;3m'"
plain=$(sm capture -t colours | head -1)
check "plain capture has no escapes" [ "$plain" = "red orange rgb" ]

# --- exit status --------------------------------------------------------
sm new -d -s status --remain -- sh -c 'exit 3' >/dev/null
wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME ls --json | grep -q '\"exit_status\":[[:space:]]*3'"
check "exit status 3 is kept" sh -c "sm() { \"$SANDMUX_BIN\" -L $T_NAME \"\$@\"; }; sm ls --json | grep -q '\"exit_status\":[[:space:]]*3'"
check "the dead pane says how it ended" capture_has status 'exited with status 3'

# --- a pane without --remain goes away with its process ----------------
sm new -d -s brief -- true >/dev/null
wait_for 5 sh -c "! $SANDMUX_BIN -L $T_NAME ls | grep -q '^brief:'"
check "a finished pane closes its session" sh -c "! $SANDMUX_BIN -L $T_NAME ls | grep -q '^brief:'"

# --- interactive shell: keys, resize, C-c -----------------------------
sm new -d -s shell -x 100 -y 30 -- /bin/sh >/dev/null
sm send-keys -t shell 'echo typed-$((6*7))' Enter
wait_for 5 capture_has shell 'typed-42'
check "send-keys reaches the shell" capture_has shell 'typed-42'
sm resize -t shell -x 120 -y 40
sm send-keys -t shell 'stty size' Enter
wait_for 5 capture_has shell '40 120'
check "resize reaches the pane (TIOCSWINSZ)" capture_has shell '40 120'
sm send-keys -t shell 'sleep 30; echo not""-interrupted' Enter
# C-c once sleep runs (sent before, it reached the shell at its prompt).
shell_pid=$(sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == "shell":
        print(s["windows"][0]["panes"][0]["pid"])')
wait_for 5 pgrep -P "$shell_pid" -x sleep
sm send-keys -t shell C-c
sm send-keys -t shell 'echo after-interrupt' Enter
wait_for 5 capture_has shell 'after-interrupt'
check "C-c interrupts the foreground job" sh -c "! $SANDMUX_BIN -L $T_NAME capture -t shell | grep -q not-interrupted && $SANDMUX_BIN -L $T_NAME capture -t shell | grep -q after-interrupt"

# --- many panes ---------------------------------------------------------
sm new -d -s many -x 200 -y 60 -- /bin/sh >/dev/null
first=$(sm ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*,"session":"many"' | sed 's/"id":\([0-9]*\).*/\1/')
sm split -t "%$first" -h -- /bin/sh >/dev/null
for round in 1 2; do
	for id in $(sm ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*,"session":"many"' | sed 's/"id":\([0-9]*\).*/\1/'); do
		sm split -t "%$id" -v -- /bin/sh >/dev/null
	done
done
ids=$(sm ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*,"session":"many"' | sed 's/"id":\([0-9]*\).*/\1/')
check "eight panes in session many" [ "$(echo $ids | wc -w)" -eq 8 ]
good=0
for id in $ids; do
	sm send-keys -t "%$id" "echo pane-$id-alive" Enter
done
for id in $ids; do
	wait_for 5 capture_has "%$id" "pane-$id-alive" && good=$((good + 1))
done
check "every pane of many answers ($good)" [ "$good" -eq 8 ]

# --- bulk output survives capture ----------------------------------------
mkdir -p "$XDG_CONFIG_HOME/sandmux"
head -c 3750000 /dev/urandom | base64 -w 150 >"$T_DIR/bulk.txt" # 5 MB
lines=$(wc -l <"$T_DIR/bulk.txt")
sm kill-server
printf '{"scrollback": 60000}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
sm new -d -s bulk -x 200 -y 50 --remain -- sh -c "cat '$T_DIR/bulk.txt'; echo BULK-END" >/dev/null
wait_for 60 capture_has bulk 'exited with status'
sm capture -t bulk -S - | grep -v -e BULK-END -e 'exited with status' | sed '/^$/d' >"$T_DIR/captured.txt"
want=$(md5sum <"$T_DIR/bulk.txt")
got=$(md5sum <"$T_DIR/captured.txt")
check "5 MB of random text survives capture ($lines lines)" [ "$want" = "$got" ]

# --- kill-pane and kill-server ------------------------------------------
pid=$(sm ls --json | tr -d ' \t\n' | grep -o '"pid":[0-9]*' | head -1 | cut -d: -f2)
sm new -d -s victim -- sleep 300 >/dev/null
vpid=$(sm ls --json | tr -d ' \t\n' | grep -o '"session":"victim"[^}]*"pid":[0-9]*' | grep -o '"pid":[0-9]*' | cut -d: -f2)
sm kill-session -t victim
check "kill-session kills the pane's process" wait_for 5 dead "$vpid"
sm kill-server
check "kill-server removes the socket" wait_for 5 test ! -e "$XDG_RUNTIME_DIR/sandmux/$T_NAME"
check "usage errors exit 2" sh -c "$SANDMUX_BIN -L $T_NAME split >/dev/null 2>&1; [ \$? -eq 2 ]"
check "verbs have --help" sh -c "$SANDMUX_BIN capture --help | grep -q usage"

# The server may hold many descriptors (a thousand egress tunnels): it
# raises its soft open-file limit to the hard one.  Run under a low soft
# limit so the raise is what is checked.
(ulimit -Sn 256 && sm new -d -s fds -- /bin/sh >/dev/null)
spid=$(sm ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
soft=$(awk '/Max open files/ { print $4 }' "/proc/$spid/limits")
hard=$(awk '/Max open files/ { print $5 }' "/proc/$spid/limits")
check "the server's open-file limit is raised to the hard limit ($soft of $hard)" [ "$soft" = "$hard" ]
sm kill-server
finish
