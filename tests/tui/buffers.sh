#!/bin/sh
# TUI: paste buffers live in the server — a copy survives the client's
# detach, a second client pastes what the first copied, list-buffers
# shows each with the label of the pane it came from, and pasting text
# from a pane of one backend into a pane of another asks once first
# (paste_across_backends "ask", the default).
. "$(dirname "$0")/tui-lib"

file_has() { grep -qF -- "$2" "$1" 2>/dev/null; }
buffers_have() { sm list-buffers | grep -qF -- "$1"; }
# paste_into_cat FILE TEXT PASTE...: cat >FILE in the active pane, PASTE
# (a command that pastes TEXT), then Enter and C-d once TEXT is on the
# screen once more (the shell leaves the terminal cooked: cat reads it).
paste_into_cat() {
	file=$1 text=$2
	shift 2
	pane=$(active_pane)
	keys "cat > $file" Enter
	wait_for 5 test -e "$file"
	before=$(text_count "%$pane" "$text")
	"$@"
	wait_for 5 text_count_above "%$pane" "$text" "$before"
	keys Enter C-d
}
# text_count PANE TEXT: how many lines of the pane's screen and history
# hold TEXT; text_count_above PANE TEXT N: more than N
text_count() { sm capture -t "$1" -S - | grep -cF -- "$2"; }
text_count_above() { [ "$(text_count "$1" "$2")" -gt "$3" ]; }

start_client
host=$(active_pane)
keys "printf 'COPY-%s\\n' FROM-HOST" Enter
wait_for 5 capture_has "$host" COPY-FROM-HOST
prefix [
wait_for 3 screen_matches '\[0/[0-9]*\]'
keys "?" C O P Y - F R O M Enter
# The search has landed when the copy-mode cursor is on the match's row.
check "the search lands on the output line" wait_for 5 cursor_on_row_of "COPY-FROM-HOST"
keys Enter
check "a copy becomes a server buffer" wait_for 5 buffers_have "COPY-FROM-HOST"
check "list-buffers labels it with its pane's backend" buffers_have "[none]"

# It survives the client: detach, attach again, paste.
prefix d
check "the client detaches" wait_screen "CLIENT-EXIT=0"
tm kill-server >/dev/null 2>&1
wait_for 5 tmux_gone
start_client
paste_into_cat "$T_DIR/after-detach" COPY-FROM-HOST prefix ]
check "prefix ] in a new client pastes what was copied before the detach" \
	wait_for 5 file_has "$T_DIR/after-detach" "COPY-FROM-HOST"

# Shared by two clients: the second pastes what the first copied.
tm new-window -d -n other "$(client_cmd)"
wait_screen "─" 10 other
sm set-buffer -b shared "TEXT-FOR-BOTH" >/dev/null
paste_into_cat "$T_DIR/second" TEXT-FOR-BOTH tm send-keys -t other C-b ]
check "the other client's prefix ] pastes the top buffer (set by the command line)" \
	wait_for 5 file_has "$T_DIR/second" "TEXT-FOR-BOTH"
tm kill-window -t other

# paste-buffer -b NAME and save-buffer.
sm set-buffer -b named "NAMED-TEXT" >/dev/null
sm set-buffer "TOP-TEXT" >/dev/null
sm save-buffer -b named "$T_DIR/saved" >/dev/null
check "save-buffer -b writes that buffer to a file" file_has "$T_DIR/saved" "NAMED-TEXT"
check "save-buffer - writes the top one to stdout" sh -c '"$0" -L "$1" save-buffer - | grep -q TOP-TEXT' \
	"$SANDMUX_BIN" "$T_NAME"
sm save-buffer -b nosuch "$T_DIR/none" >"$T_DIR/err" 2>&1
check "a missing buffer is an error with its code" grep -q "no_such_buffer" "$T_DIR/err"

# Paste across backends asks, once.
if command -v bwrap >/dev/null 2>&1; then
	sm split -t "%$host" -b native >/dev/null
	wait_for 20 screen_has " native "
	native=$(active_pane)
	keys "cat" Enter
	# (The shell leaves the terminal cooked: what is pasted before cat
	# reads waits in the terminal for it.)
	# Back to the host pane's copy at the top: delete the ones set since.
	for name in buffer1 named shared; do sm delete-buffer -b "$name" >/dev/null; done
	check "the top buffer is the host pane's copy again" \
		sh -c '"$0" -L "$1" list-buffers | head -1 | grep -q "\[none\]"' "$SANDMUX_BIN" "$T_NAME"
	sm paste-buffer -t "%$native" >"$T_DIR/cli-paste" 2>&1
	check "paste-buffer from the command line into the native pane is refused unconfirmed" \
		grep -q "confirm_needed" "$T_DIR/cli-paste"
	prefix ]
	check "pasting host text into a native pane asks first" \
		wait_screen "paste none text into a native pane? (y/n)"
	keys n
	# The answer is taken when the question goes; a paste would come
	# with it.
	check "n closes the question" wait_screen_gone "(y/n)"
	check "n pastes nothing" sh -c '! "$0" -L "$1" capture -t "%$2" | grep -q COPY' \
		"$SANDMUX_BIN" "$T_NAME" "$native"
	prefix ]
	wait_screen "(y/n)"
	keys y
	check "y pastes it" wait_for 5 capture_has "%$native" "COPY-FROM-HOST"
	keys Enter
	pasted() { sm capture -t "%$native" | grep -c COPY-FROM-HOST; }
	before=$(pasted)
	prefix ]
	# A question would hold the paste back: once it is pasted, no
	# question was asked.
	more_pasted() { [ "$(pasted)" -gt "$before" ]; }
	check "the next paste of that buffer into that pane pastes" wait_for 5 more_pasted
	check "and does not ask again" screen_lacks "(y/n)"
	keys Enter C-d
else
	not_ok "bwrap is installed (apt-get install bubblewrap)"
fi

finish
