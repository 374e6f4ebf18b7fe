#!/bin/sh
# TUI: a client stopped from outside (kill -STOP, which it cannot catch)
# gives its terminal back.  The server reads the client's terminal for
# keys and draws on it (server-tty.c); once the client is stopped and
# the user's shell has the terminal again, neither may go on: what the
# user types is the shell's, and a pane's output must not be painted
# over the shell's screen.  After `fg` the client redraws and keys reach
# the pane again.
. "$(dirname "$0")/tui-lib"

if ! command -v bash >/dev/null 2>&1; then
	not_ok "bash is installed (an interactive shell with job control)"
	finish
fi
sm new -d -s s -x 120 -y 38 -- /bin/sh >/dev/null
# The user's shell, with job control, runs the client as a job.
tm new-session -d -s main -x 120 -y 40 \
	"env PS1='host\$ ' bash --norc --noprofile -i"
wait_screen 'host$'
keys "$SANDMUX_BIN -L $T_NAME attach -t s" Enter
wait_screen "─" 10
keys "echo PANE-\$((6*7))" Enter
wait_for 5 capture_has %1 "PANE-42"
check "the attached client types into the pane" capture_has %1 "PANE-42"

client=$(pgrep -f -- "-L $T_NAME attach -t s" | head -1)
kill -STOP "$client"
wait_screen "Stopped" 5
# The server looks before it reads, at most every OWNER_CHECK_MS
# (server-tty.c); a person does not type that fast after a stop,
# tmux's send-keys does.
sleep 0.2
# The shell has the terminal again: what is typed now is the shell's.
# It is typed while the shell runs a command and reads nothing, so the
# keys wait in the terminal: a server that went on reading would take
# them (typed at a prompt, bash's waiting read tends to win the race,
# and the theft went unseen with the check turned off).
keys "sleep 1.37" Enter
wait_for 5 pgrep -f "^sleep 1.37"
keys "echo HOST-\$((7*6))-DONE" Enter
wait_screen "HOST-42-DONE" 5
check "with the client stopped, the shell gets what is typed" screen_has "HOST-42-DONE"
if capture_has %1 "HOST-"; then
	not_ok "... and the pane gets none of it"
else
	ok "... and the pane gets none of it"
fi
# Output in the pane while the client is stopped must stay off the
# shell's screen.
sm send-keys -t %1 "echo LATE-\$((5*5))" Enter
wait_for 5 capture_has %1 "LATE-25"
# The pane has it: the moment after is the test.
sleep 0.3
check "a pane's output is not painted over the shell's screen" screen_lacks "LATE-25"

keys "fg" Enter
wait_screen "LATE-25" 5
check "after fg the client redraws the pane" screen_has "LATE-25"
keys "echo BACK-\$((8*8))" Enter
wait_for 5 capture_has %1 "BACK-64"
check "after fg keys reach the pane again" capture_has %1 "BACK-64"
finish
