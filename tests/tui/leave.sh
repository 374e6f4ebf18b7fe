#!/bin/sh
# TUI: leaving.  The client gives the outer terminal back the way tmux
# does: off the alternate screen first, so what the user had on screen
# before attaching is there again, untouched, and then the reason on a
# line of its own below it: "[detached (from session 0)]" after a
# detach, "[server exited]" after kill-server (not "[exited]").
. "$(dirname "$0")/tui-lib"

sm new -d >/dev/null
tm new-session -d -s main -x 80 -y 24 "sh"
wait_for 5 screen_matches '^[$#] *$'
keys "seq 1 5" Enter
wait_for 5 screen_matches '^5$'
attach_line="$SANDMUX_BIN -L $T_NAME attach"
keys "$attach_line" Enter
wait_screen "─" 10
# Typed one key at a time, as a person types: the echoes go out as the
# server's echo patches, which move the terminal's cursor themselves
# (the client's note of that move was what ended up on the user's
# screen after leaving).
for k in s e q Space 1 0 0 0 Space 1 0 3 0; do
	keys "$k"
	sleep 0.05
done
keys Enter
wait_screen "1030"

# row N (1-based) of the outer screen, and checks on it
row() { screen | sed -n "${1}p"; }
row_is() { [ "$(row "$1")" = "$2" ]; }
row_ends_with() { case "$(row "$1")" in *"$2") true ;; *) false ;; esac; }
prompt_at() { row "$1" | grep -qE '^[$#] *$'; }
left_alternate() { [ "$(tm display -p -t main '#{alternate_on}')" = 0 ]; }
earlier_output_intact() {
	for i in 1 2 3 4 5; do row_is $((i + 1)) "$i" || return 1; done
}

prefix d
check "prefix d detaches" wait_screen "[detached" 5
check "the client left the alternate screen" left_alternate
check "the output from before attaching is intact" earlier_output_intact
check "the attach command line is intact" row_ends_with 7 "$attach_line"
check "the message is on its own line right below it" row_is 8 "[detached (from session 0)]"
check "the shell's prompt comes back on the next line" wait_for 3 prompt_at 9
check "none of the session's screen is left behind" screen_lacks "1030"

keys "$attach_line" Enter
wait_screen "─" 10
sm kill-server >/dev/null 2>&1
check "after kill-server the client leaves" wait_screen "exited]" 5
check "... off the alternate screen" left_alternate
check "... the earlier lines intact" earlier_output_intact
check "... the first message intact" row_is 8 "[detached (from session 0)]"
check "... saying [server exited] on its own line" row_is 10 "[server exited]"
check "... below the second attach command" row_ends_with 9 "$attach_line"
check "... and the prompt back on the next line" wait_for 3 prompt_at 11
finish
