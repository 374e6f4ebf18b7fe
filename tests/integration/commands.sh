#!/bin/sh
# The one command table as a user meets it on the command line: targets
# resolve the same way for every verb (-t SESSION, -t %N, -t SESSION:W.P),
# numbers are parsed strictly (a usage error, exit 2, nothing done),
# `events -t SESSION` filters on that session's pane, and --help and
# list-commands come from the table.
. "$(dirname "$0")/../lib.sh"

# A pane's id from "%N backend state".
id_of() { sed -n 's/^%\([0-9]*\) .*/\1/p'; }
panes_in() { # SESSION WINDOW: how many panes that window has
	sm ls --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(len(w["panes"]) for s in d["sessions"] if s["name"] == sys.argv[1]
          for w in s["windows"] if w["index"] == int(sys.argv[2])))' "$1" "$2"
}
active_of() { # SESSION: the active pane of its active window
	sm ls --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["sessions"]:
    if s["name"] == sys.argv[1]:
        for w in s["windows"]:
            if w["active"]:
                print([p["id"] for p in w["panes"] if p["active"]][0])' "$1"
}

sm new -d -s work -x 160 -y 50 -- /bin/sh >/dev/null
sm new -d -s other -x 160 -y 50 -- /bin/sh >/dev/null
first=$(active_of work)

p=$(sm split -t work -h -- /bin/sh | id_of)
check "split -t SESSION splits that session's active pane (%$p in work)" \
	[ "$(pane_field "$p" session)" = work ]
check "... and only there" [ "$(panes_in other 0)" = 1 ]

w=$(sm new-window -t work -- /bin/sh | id_of)
check "new-window -t SESSION opens window 1 there" [ "$(pane_field "$w" window)" = 1 ]
p=$(sm split -t work:1 -v -- /bin/sh | id_of)
check "split -t work:1 splits window 1's active pane" \
	sh -c "[ '$(pane_field "$p" window)' = 1 ] && [ '$(panes_in work 1)' = 2 ]"
p=$(sm split -t work:0.1 -v -- /bin/sh | id_of)
check "split -t work:0.1 splits the second pane of window 0" \
	sh -c "[ '$(pane_field "$p" window)' = 0 ] && [ '$(panes_in work 0)' = 3 ]"
p=$(sm split -t "%$first" -v -- /bin/sh | id_of)
check "split -t %N splits pane N" [ "$(panes_in work 0)" = 4 ]

out=$(sm split -t nosuch 2>&1)
rc=$?
check "an unknown session: exit $rc, no_such_session ($out)" \
	sh -c "[ $rc -eq 1 ] && printf '%s' '$out' | grep -q no_such_session"
check "an unknown window: no_such_window" sh -c "$SANDMUX_BIN -L $T_NAME split -t work:9 2>&1 | grep -q no_such_window"
check "an unknown pane index: no_such_pane" sh -c "$SANDMUX_BIN -L $T_NAME split -t work:0.9 2>&1 | grep -q no_such_pane"
check "a malformed target: a usage error (exit 2, invalid_command)" \
	sh -c "$SANDMUX_BIN -L $T_NAME split -t work:x >$T_DIR/m.out 2>&1; [ \$? -eq 2 ] && grep -q invalid_command $T_DIR/m.out"

before=$(panes_in work 0)
sm split -t work -l abc >"$T_DIR/abc.out" 2>&1
rc=$?
check "split -l abc is a usage error (exit $rc, invalid_command)" \
	sh -c "[ $rc -eq 2 ] && grep -q 'invalid_command' '$T_DIR/abc.out' && grep -q 'percentage' '$T_DIR/abc.out'"
sm split -t work -l 40x >/dev/null 2>&1
rc2=$?
check "split -l 40x too (exit $rc2), and no pane was made" \
	sh -c "[ $rc2 -eq 2 ] && [ '$(panes_in work 0)' = '$before' ]"
sm new -d -s strict -x 12abc >/dev/null 2>&1
rc=$?
check "new -x 12abc is a usage error (exit $rc) and makes no session" \
	sh -c "[ $rc -eq 2 ] && ! $SANDMUX_BIN -L $T_NAME ls | grep -q '^strict:'"
sm resize -t work -L zero >/dev/null 2>&1
check "resize -L zero: exit 2" [ $? -eq 2 ]

# events -t SESSION: that session's active pane, not pane 0 (every pane).
sm split -t other -v --remain -- sh -c 'exit 3' >/dev/null
sm split -t work -v --remain -- sh -c 'exit 4' >/dev/null
wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME events --json | grep -q '\"exitCode\":3'"
wait_for 5 sh -c "$SANDMUX_BIN -L $T_NAME events --json | grep -q '\"exitCode\":4'"
sm events --json -t work >"$T_DIR/work-events.txt"
check "events -t work shows the events of work's active pane" grep -q '"exitCode":4' "$T_DIR/work-events.txt"
check "events -t work leaves out the other session's" sh -c "! grep -q '\"exitCode\":3' '$T_DIR/work-events.txt'"
check "events -t nosuch is refused (no_such_session)" sh -c "$SANDMUX_BIN -L $T_NAME events -t nosuch 2>&1 | grep -q no_such_session"

target=$(sm ls --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["sessions"]:
    if s["name"] == "work":
        print(s["windows"][0]["panes"][0]["id"])')
sm select-pane -t work:0.0
check "select-pane -t work:0.0 focuses the first pane of window 0" [ "$(active_of work)" = "$target" ]

# A session named by a number is that session, not pane N's.
sm new -d -- /bin/sh >/dev/null
named=$(sm ls | sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | head -1)
sm kill-session -t "$named"
check "kill-session -t $named kills the session named $named" sh -c "! $SANDMUX_BIN -L $T_NAME ls | grep -q '^$named:'"
check "... and leaves the others" sh -c "$SANDMUX_BIN -L $T_NAME ls | grep -q '^work:' && $SANDMUX_BIN -L $T_NAME ls | grep -q '^other:'"

sm resize --help >"$T_DIR/help.txt"
check "resize --help is the table's: its name, usage and options" \
	sh -c "grep -q 'usage: sandmux .*resize-pane' '$T_DIR/help.txt' && grep -q -- '-x' '$T_DIR/help.txt' && grep -q 'also: resizep resize' '$T_DIR/help.txt'"
sm list-commands >"$T_DIR/list.txt"
check "list-commands lists the command line's and the prompt's commands" \
	sh -c "grep -q '^split ' '$T_DIR/list.txt' && grep -q '^copy-mode ' '$T_DIR/list.txt'"
# resize-pane -x/-y give the target that size, whichever side of its
# border it is on (the bottom or right pane used to grow instead).
top=$(sm new -d -s sizes -x 100 -y 41 -- /bin/sh | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^%/) { print substr($i, 2); exit } }')
bottom=$(sm split -t "%$top" -v | awk '{ print substr($1, 2) }')
sm resize-pane -t "%$bottom" -y 5 >/dev/null
check "resize-pane -y on the bottom pane gives it that height" [ "$(pane_field "$bottom" rows)" = 5 ]
sm resize-pane -t "%$top" -y 10 >/dev/null
check "resize-pane -y on the top pane gives it that height" [ "$(pane_field "$top" rows)" = 10 ]
right=$(sm split -t "%$bottom" -h | awk '{ print substr($1, 2) }')
sm resize-pane -t "%$right" -x 30 >/dev/null
check "resize-pane -x on the right pane gives it that width" [ "$(pane_field "$right" cols)" = 30 ]
sm resize-pane -t "%$bottom" -x 40 >/dev/null
check "resize-pane -x on the left pane gives it that width" [ "$(pane_field "$bottom" cols)" = 40 ]

# last-window from the command line (once a prompt-only command, "unknown
# verb"), as tmux's last-window -t SESSION.
sm new -d -s lastwin -- /bin/sh >/dev/null
sm new-window -t lastwin -- /bin/sh >/dev/null
active_window() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == sys.argv[1]:
        print([w["index"] for w in s["windows"] if w["active"]][0])' "$1"; }
before=$(active_window lastwin)
sm last-window -t lastwin >/dev/null
check "last-window -t SESSION on the command line goes to the window before" \
	[ "$(active_window lastwin)" != "$before" ]
sm last-window -t nosuch >/dev/null 2>&1
check "... and a session that is not there is an error (exit 1)" [ $? -eq 1 ]
# A --remain pane whose program ended: ls says dead and its status, as
# tmux, not its sandbox's "destroyed".
sm new -d -s remain -- /bin/sh >/dev/null
dead=$(sm split -t remain --remain -- sh -c 'exit 3' | sed -n 's/^%\([0-9]*\) .*/\1/p')
said_dead() { sm ls | grep -q "^  %$dead .* dead (status 3)\$"; }
check "ls says a --remain pane whose program exited is dead, with its status" wait_for 5 said_dead
err=$(sm no-such-verb 2>&1 >/dev/null)
check "an unknown verb is a usage error (exit 2)" [ $? -eq 2 ]
check "... said in one line, not the whole usage" [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
check "... with its code and a hint to --help" sh -c 'printf "%s" "$1" | grep -q "unknown_command.*sandmux --help"' - "$err"

# The tmux commands scripts use (#27 item 13).
sm new -d -s scr >/dev/null
sm split -t scr -h >/dev/null
sm has-session -t scr
check "has-session: exit 0 for a session" [ $? -eq 0 ]
sm has-session -t no-such 2>/dev/null
check "has-session: exit 1 for none" [ $? -eq 1 ]
check "list-windows: tmux's line" sh -c "$SANDMUX_BIN -L $T_NAME list-windows -t scr | grep -q '^0: .*\* (2 panes) \[[0-9]*x[0-9]*\]\$'"
check "list-panes: one line a pane, with its label" [ "$(sm list-panes -t scr | grep -c '^0\.[01]: \[[0-9]*x[0-9]*\] %[0-9]* none')" -eq 2 ]
check "display-message -p prints the expanded format" [ "$(sm display-message -p -t scr '#S/#{window_index}')" = scr/0 ]
sm rename-session -t scr renamed >/dev/null
check "rename-session" sh -c "$SANDMUX_BIN -L $T_NAME has-session -t renamed && ! $SANDMUX_BIN -L $T_NAME has-session -t scr 2>/dev/null"
before=$(sm ls | grep -c '^[^ ]')
sm new -A -d -s renamed >/dev/null
check "new -A with an existing name makes no session" [ "$(sm ls | grep -c '^[^ ]')" -eq "$before" ]
sm new -A -d -s fresh >/dev/null
check "new -A with a new name makes it" sm has-session -t fresh
sm set-option -g window-size smallest >/dev/null
check "set-option -g window-size smallest" [ $? -eq 0 ]
sm set-option window-size huge 2>/dev/null
check "set-option refuses a bad value (exit 1)" [ $? -eq 1 ]
printf '# a comment\n\nrename-session -t fresh sourced\nnew-window -t sourced\n' >"$T_DIR/cmds"
sm source-file "$T_DIR/cmds" >/dev/null
check "source-file runs each line" [ "$(sm list-windows -t sourced | wc -l)" -eq 2 ]
help=$(sm profile suggest --help)
check "profile suggest --help exits 0" [ $? -eq 0 ]
check "... and says what --since takes" sh -c 'printf "%s" "$1" | grep -q -- "--since.*30m"' - "$help"
finish
