#!/bin/sh
# TUI: with "set_clipboard": "on" a program's OSC 52 write in a host pane
# reaches the user's terminal's clipboard (src/clipboard.c: a server
# buffer, and every attached client writes it to its terminal).  The
# outer tmux, with set-clipboard on, turns what reaches it into a buffer
# we can read.  (hostile.sh checks the default, off: it does not reach.)
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
echo '{"set_clipboard": "on"}' >"$XDG_CONFIG_HOME/sandmux/config.json"
outer_has() { tm show-buffer 2>/dev/null | grep -qF -- "$1"; }
server_has() { sm save-buffer - 2>/dev/null | grep -qF -- "$1"; }

start_client
# base64 of "clip-from-pane"
keys "printf '\\033]52;c;Y2xpcC1mcm9tLXBhbmU=\\007'; echo done-1" Enter
wait_screen "done-1"
check "the pane's write is a server buffer" wait_for 5 server_has "clip-from-pane"
check "the pane's write reaches the outer terminal's clipboard (OSC 52)" \
	wait_for 5 outer_has "clip-from-pane"
finish
