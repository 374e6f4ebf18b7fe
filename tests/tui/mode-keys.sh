#!/bin/sh
# TUI: the prompt, the help overlay, display-panes and ask mode's
# question each have a key table (tmux's bind -T), as copy mode does
# (copy-keys.sh): `list-keys -T NAME` lists it, the config's key_tables
# and bind-key/unbind-key -T at the prompt rebind it, a command the mode
# does not have is refused with its code, and the keys left alone do
# what they always did.  Ask mode's answers grant access: a key is an
# answer only when it comes from the terminal and its table binds it;
# a pane's output, its send-keys and send-keys -X answer nothing.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<'JSON'
{
	"set_clipboard": "ask",
	"key_tables": {
		"prompt": {"C-x": "delete-line", "C-u": null},
		"help-mode": {"n": "send-keys -X scroll-down"},
		"display-panes": {"x": "select-pane-1", "0": null}
	}
}
JSON

start_client
run() {
	prefix :
	wait_for 3 status_matches ':'
	keys "$1" Enter
}
# listed TABLE PATTERN...: list-keys -T TABLE shows the table, a line
# matching each PATTERN; closed after.
listed() {
	table=$1
	shift
	run "list-keys -T $table"
	wait_screen "key table $table" 3 || return 1
	for pattern; do
		screen_matches "$pattern" || { echo "# $table: no line $pattern"; return 1; }
	done
	keys q
	wait_screen_gone "key table $table" 3
}

# ---- each table listed, as the config left it ----
check "list-keys -T prompt: C-x bound by the config, Enter as ever" \
	listed prompt 'C-x  *send-keys -X delete-line  *delete the whole line' \
	'Enter  *send-keys -X enter' ' Tab  *send-keys -X complete'
no_cu() { ! screen_matches ' C-u  *send-keys'; }
run "list-keys -T prompt"
wait_screen "key table prompt" 3
check "... C-u, unbound by the config, is not in it" no_cu
keys q
wait_screen_gone "key table prompt" 3
check "list-keys -T help-mode: n bound, j and q as ever" \
	listed help-mode ' n  *send-keys -X scroll-down  *a line down' \
	' j  *send-keys -X scroll-down' ' q  *send-keys -X cancel'
check "list-keys -T display-panes: x bound, the digits" \
	listed display-panes ' x  *send-keys -X select-pane-1  *focus pane 1' \
	' 9  *send-keys -X select-pane-9'
check "list-keys -T ask-mode: a allow, d deny, as they were" \
	listed ask-mode ' a  *send-keys -X allow' ' d  *send-keys -X deny'

# ---- the prompt ----
prefix :
wait_for 3 status_matches ':'
keys "abc" C-x "display-message one" Enter
check "prompt: C-x, bound to delete-line, cleared what was typed" \
	wait_for 3 status_matches '^one'
prefix :
wait_for 3 status_matches ':'
keys "display-message x" C-u "y" Enter
check "prompt: C-u, unbound, deletes nothing (and types nothing)" \
	wait_for 3 status_matches '^xy'
prefix :
wait_for 3 status_matches ':'
keys "display-message zz" C-w "kept" Enter
check "prompt: C-w, a default left alone, still deletes a word" \
	wait_for 3 status_matches '^kept'
run "bind-key -T prompt C-t start-of-line"
prefix :
wait_for 3 status_matches ':'
keys "message bound" C-t "display-" Enter
check "prompt: bind-key -T prompt at the prompt (C-t: start-of-line)" \
	wait_for 3 status_matches '^bound'

# ---- the help overlay ----
prefix ?
wait_screen "key bindings (prefix C-b)" 3
screen >"$T_DIR/help-top"
keys n
check "help: n, bound to scroll-down, scrolls" wait_for 3 screen_changed "$T_DIR/help-top"
check "... and the help stays open" screen_has "key bindings (prefix C-b)"
keys q
check "help: q closes it, as ever" wait_screen_gone "key bindings (prefix C-b)" 3
run "unbind-key -T help-mode j"
prefix ?
wait_screen "key bindings (prefix C-b)" 3
keys j
check "help: j, unbound at the prompt, closes it as any unbound key" \
	wait_screen_gone "key bindings (prefix C-b)" 3

# ---- display-panes ----
prefix %
wait_for 5 pane_count_is 2
set -- $(panes | awk '{ printf "%s ", $1 }')
first=$1 second=$2
sm select-pane -t "%$first" >/dev/null
wait_for 3 active_pane_is "$first"
run "display-panes -d 0"
wait_screen "█" 3
keys x
check "display-panes: x, bound to select-pane-1, focuses pane 1" \
	wait_for 3 active_pane_is "$second"
check "... and the numbers go" wait_screen_gone "█" 3
run "display-panes -d 0"
wait_screen "█" 3
keys 0
wait_screen_gone "█" 3
check "display-panes: 0, unbound by the config, focuses nothing" active_pane_is "$second"
sm select-pane -t "%$first" >/dev/null
wait_for 3 active_pane_is "$first"
run "display-panes -d 0"
wait_screen "█" 3
keys 1
check "display-panes: 1, a default, still focuses pane 1" wait_for 3 active_pane_is "$second"
keys "clear" Enter

# ---- ask mode ----
server_has() { sm save-buffer - 2>/dev/null | grep -qF -- "$1"; }
server_lacks() { ! server_has "$1"; }
# write_clipboard TEXT: the active pane's program writes TEXT with OSC 52,
# and prints "a" after it, as if answering.
write_clipboard() {
	b64=$(printf '%s' "$1" | base64)
	keys "printf '\\033]52;c;$b64\\007a\\n'" Enter
}
asking() { status_matches "asks to write your clipboard"; }
not_asking() { ! asking; }
out_has() { echo "$out" | grep -q -- "$1"; }
pane=$(active_pane)

write_clipboard clip-one
check "ask: the question names the default answers" \
	wait_for 5 status_matches 'asks to write your clipboard (8 bytes): a allow, d deny'
keys a
check "ask: a, the default, allows" wait_for 5 server_has clip-one

run "unbind-key -T ask-mode a"
run "bind-key -T ask-mode y allow"
write_clipboard clip-two
check "ask: the question names the keys bound now" \
	wait_for 5 status_matches 'asks to write your clipboard (8 bytes): y allow, d deny'
sm send-keys -t "%$pane" a >/dev/null
out=$(sm send-keys -t "%$pane" -X allow 2>&1)
check "ask: send-keys -X allow is no command of anything a pane reaches ($out)" \
	out_has invalid_command
check "ask: the pane's output and send-keys answered nothing" asking
check "... nothing was written" server_lacks clip-two
keys a
check "ask: a, unbound, leaves the write held" \
	wait_for 3 status_matches "clipboard write stays held"
check "... and writes nothing" server_lacks clip-two
sm send-keys -t "%$pane" C-u >/dev/null
write_clipboard clip-three
wait_for 5 asking
keys y
check "ask: y, bound to allow, allows" wait_for 5 server_has clip-three
write_clipboard clip-four
wait_for 5 asking
keys d
check "ask: d, a default left alone, denies" wait_for 3 not_asking
check "... nothing written" server_lacks clip-four

# ---- errors, with their codes ----
run "bind -T ask-mode x kill-pane"
check "bind -T ask-mode with no ask-mode command: invalid_command" \
	wait_for 3 status_matches '"kill-pane" is no ask-mode command (send-keys -X allow, deny.*(invalid_command)'
run "bind -T prompt x frobnicate"
check "bind -T prompt with no prompt command: invalid_command" \
	wait_for 3 status_matches '"frobnicate" is no prompt command.*(invalid_command)'
run "list-keys -T nosuch"
check "an unknown table is refused naming every table" \
	wait_for 3 status_matches 'no key table "nosuch" (prefix, copy-mode, choose-mode, prompt, help-mode, display-panes, ask-mode) (unknown_table)'
finish
