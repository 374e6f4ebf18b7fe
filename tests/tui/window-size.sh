#!/bin/sh
# TUI: two clients of different sizes (80x24 and 160x45) on one session.
# window_size "latest" (tmux 3.3's default): the client used last (a
# key, an attach, its terminal resized) sizes the session, so typing in
# the large one makes it use its whole terminal, and the small one then
# shows what fits; "smallest" and
# "largest" as in tmux, set in the config or with set-option.
. "$(dirname "$0")/tui-lib"

session_size() { sm ls | sed -n 's/^[^ ]*: [0-9]* windows (\([0-9]*x[0-9]*\)).*/\1/p' | head -1; }
size_is() { [ "$(session_size)" = "$1" ]; }
big_keys() { tm send-keys -t big "$@"; }

sm new -d -s w -x 100 -y 30 >/dev/null
tm new-session -d -s main -x 80 -y 24 "$(client_cmd -t w)"
wait_screen "─" 10
tm new-session -d -s big -x 160 -y 45 "$(client_cmd -t w)"
wait_screen "─" 10 big
check "latest: the client attached last sizes the session ($(session_size))" wait_for 5 size_is 160x44
keys "echo small-\$((1+1))" Enter
check "latest: typing in the 80x24 client makes it the size ($(session_size))" wait_for 5 size_is 80x23
check "... and it draws the output" wait_screen "small-2"
big_keys "echo big-\$((2+1))" Enter
check "latest: typing in the 160x45 client makes it the size ($(session_size))" wait_for 5 size_is 160x44
check "... the large client draws its full width" wait_for 5 eval "screen big | grep -q '^.\{150\}'"
check "... the small client shows what fits, its status line on its last row" \
	wait_for 5 status_matches '^\['
screen | sed 's/^/# small | /' | tail -3
tm resize-window -t main -x 90 -y 30
check "latest: resizing the 80x24 terminal to 90x30 makes that client the latest ($(session_size))" \
	wait_for 5 size_is 90x29
tm resize-window -t main -x 80 -y 24
check "... back to 80x24, still the latest ($(session_size))" wait_for 5 size_is 80x23
big_keys "echo big-again" Enter
check "... until the large client types ($(session_size))" wait_for 5 size_is 160x44

sm set-option window-size smallest >/dev/null
check "set-option window-size smallest: the smallest client sizes it ($(session_size))" wait_for 5 size_is 80x23
big_keys "echo again" Enter
check "... whoever types" wait_for 3 eval "! size_is 160x44 && size_is 80x23"
sm set-option window-size largest >/dev/null
check "set-option window-size largest: the largest ($(session_size))" wait_for 5 size_is 160x44
keys "echo x" Enter
check "... whoever types" wait_for 3 size_is 160x44
finish
