#!/bin/sh
# TUI: copy mode's keys are a key table the config rebinds (tmux's
# bind -T copy-mode): "key_tables" binds C-n and C-p to copy commands,
# x to cancel, and unbinds q; copy mode then moves with C-n and C-p,
# ignores q and leaves with x, and `list-keys -T copy-mode` lists the
# table as bound.  A table that does not exist is refused with its code.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<'JSON'
{
	"key_tables": {
		"copy-mode": {
			"C-n": "send-keys -X cursor-down",
			"C-p": "cursor-up",
			"x": "send-keys -X cancel",
			"q": null
		}
	}
}
JSON

start_client
keys "seq 1 100 | sed 's/^/line /'" Enter
wait_for 5 screen_matches '^line 100 *$'

cursor_row() { screen | sed -n "$(($(tm display -p -t main '#{cursor_y}') + 1))p"; }
cursor_on() { cursor_row | grep -qE "^line $1( |\$)"; }
copying() { screen_matches '\[[0-9]*/[0-9]*\]'; }
not_copying() { ! copying; }

prefix [
check "prefix [ enters copy mode" wait_for 3 copying
keys "?" "line 50" Enter
check "? (a default key) searches up" wait_for 5 cursor_on 50
keys C-n C-n
check "C-n, bound to cursor-down, moves down" wait_for 5 cursor_on 52
keys C-p
check "C-p, bound as cursor-up alone, moves up" wait_for 5 cursor_on 51
keys j
check "j (a default key left alone) still moves down" wait_for 5 cursor_on 52
keys q j
# q is unbound: nothing happens, and the j after it is still copy mode's.
check "q, unbound, does not leave copy mode" wait_for 5 cursor_on 53
check "... and copy mode is still on" copying
# send-keys -X: copy commands from the command line and the prompt.
out_has() { echo "$out" | grep -q -- "$1"; }
pane=$(active_pane)
sm send-keys -t "%$pane" -X cursor-down cursor-down
check "send-keys -X from the command line runs copy commands" wait_for 5 cursor_on 55
prefix :
wait_for 3 status_matches ':'
keys "send-keys -X cursor-up" Enter
check "... and from the prompt" wait_for 5 cursor_on 54
out=$(sm send-keys -t "%$pane" -X explode 2>&1)
check "send-keys -X with no copy command: invalid_command ($out)" \
	out_has invalid_command
keys x
check "x, bound to cancel, leaves copy mode" wait_for 3 not_copying
out=$(sm send-keys -t "%$pane" -X cancel 2>&1)
check "send-keys -X with the pane in no copy mode: invalid_state ($out)" \
	out_has invalid_state

prefix :
wait_for 3 status_matches ':'
keys "list-keys -T copy-mode" Enter
check "list-keys -T copy-mode opens the table" wait_screen "key table copy-mode"
check "it lists C-n bound to cursor-down" \
	screen_matches 'C-n  *send-keys -X cursor-down  *the cursor a line down'
check "it lists x bound to cancel" screen_matches ' x  *send-keys -X cancel'
no_q() { ! screen_matches ' q  *send-keys'; }
check "q is not in it" no_q
keys q
wait_screen_gone "key table copy-mode"

prefix :
wait_for 3 status_matches ':'
keys "list-keys -T nosuch" Enter
check "an unknown table is refused with a message naming the tables" \
	wait_for 3 status_matches 'no key table "nosuch" (prefix, copy-mode, choose-mode, prompt, help-mode, display-panes, ask-mode) (unknown_table)'

# bind-key and unbind-key at the prompt and in a sourced file (tmux's
# lines as they are): this client's tables.
run() {
	prefix :
	wait_for 3 status_matches ':'
	keys "$1" Enter
}
cat >"$T_DIR/keys.conf" <<'CONF'
# tmux's spelling
bind -T copy-mode-vi C-e send-keys -X history-bottom
unbind -T copy-mode j
bind-key Y display-message "from the file"
CONF
run "source-file $T_DIR/keys.conf"
prefix Y
check "a prefix binding from a sourced file works" wait_for 3 status_matches 'from the file'
prefix [
wait_for 3 copying
keys "?" "line 50" Enter
wait_for 5 cursor_on 50
keys j C-n
check "a copy-mode key unbound by the file does nothing (j)" wait_for 5 cursor_on 51
keys C-e
check "a copy-mode key bound by the file works (C-e: history-bottom)" \
	wait_for 5 screen_matches '\[0/[0-9]*\]'
keys x
wait_for 3 not_copying
run "bind -T nosuch x cancel"
check "bind -T with an unknown table: its message and code" \
	wait_for 3 status_matches 'no key table "nosuch".*(unknown_table)'
run "bind -T copy-mode x kill-pane"
check "bind -T copy-mode with no copy command: refused (invalid_command)" \
	wait_for 3 status_matches '"kill-pane" is no copy-mode command.*(invalid_command)'

# list-keys alone lists every table: the prefix's, then copy-mode's.
prefix ?
wait_screen "key bindings (prefix C-b)"
found_table() {
	screen_has "bind -T copy-mode:" && return 0
	keys PageDown
	return 1
}
check "list-keys lists copy-mode's table after the prefix's" wait_for 10 found_table
keys q
finish
