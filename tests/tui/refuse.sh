#!/bin/sh
# TUI: where attach must not happen, as tmux refuses it.
#   - stdin or stdout not a terminal: "open terminal failed: not a
#     terminal", exit 1, nothing written to the file, no spinning, and the
#     session keeps the size its real client gave it;
#   - inside a pane ($SANDMUX set): "sessions should be nested with
#     care, unset $SANDMUX to force", exit 1, for attach and for new
#     (which then makes no session); with the variable unset it attaches;
#   - attach -t to a session that does not exist: the error, and not one
#     byte of screen drawn before it (no alternate screen, no clearing);
#   - attach with no server: "no server running on SOCKET", exit 1, and
#     no server started for it.
. "$(dirname "$0")/tui-lib"

sessions() { sm ls --json | grep -c '"name"'; }
session_size() { sm ls | sed -n 's/^0: .*(\([0-9]*x[0-9]*\)).*/\1/p'; }

# --- not a terminal ------------------------------------------------------
start_client
keys "echo ready" Enter
wait_screen "ready"
size=$(session_size)
began=$(date +%s)
timeout 10 "$SANDMUX_BIN" -L "$T_NAME" attach </dev/null >"$T_DIR/out" 2>"$T_DIR/err" &
attacher=$!
# The thing under test: nothing happens to the session while a refused
# attach runs (it exits at once; the second is its chance to go wrong).
sleep 1
during=$(session_size)
wait "$attacher"
rc=$?
took=$(($(date +%s) - began))
check "attach with no terminal exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "... at once (${took}s), not spinning until killed" [ "$took" -lt 5 ]
check "... saying: open terminal failed: not a terminal" grep -qxF "open terminal failed: not a terminal" "$T_DIR/err"
check "... with nothing written to its stdout" [ ! -s "$T_DIR/out" ]
check "... and the session keeps its client's size ($size, $during meanwhile)" [ "$during" = "$size" ]
# stdin a terminal, stdout a file: refused too (the outer tmux pane's
# shell gives it the terminal as stdin).
tm new-window -d -n plain -t main "sh"
plain_has() { tm capture-pane -p -t main:plain | grep -q -- "$1"; }
plain_line() { tm capture-pane -p -t main:plain | grep -qxF -- "$1"; }
wait_for 5 plain_has '^[$#]'
tm send-keys -t main:plain "$SANDMUX_BIN -L $T_NAME attach >$T_DIR/out2 2>$T_DIR/err2; echo RC=\$?" Enter
check "attach with stdout a file exits 1" wait_for 10 plain_has '^RC=1'
check "... saying why, and writing nothing to the file" \
	sh -c "grep -qxF 'open terminal failed: not a terminal' '$T_DIR/err2' && [ ! -s '$T_DIR/out2' ]"
n=$(sessions)
timeout 10 "$SANDMUX_BIN" -L "$T_NAME" new </dev/null >"$T_DIR/out3" 2>"$T_DIR/err3"
rc=$?
check "new (attaching) with no terminal exits 1 and says why" \
	sh -c "[ $rc -eq 1 ] && grep -qxF 'open terminal failed: not a terminal' '$T_DIR/err3'"
check "... making no session" [ "$(sessions)" -eq "$n" ]

# --- inside a pane ---------------------------------------------------------
keys "echo \"SM=\$SANDMUX\"" Enter
check "a pane has \$SANDMUX (socket,pid,%pane)" wait_for 5 screen_matches "^SM=/.*/sandmux/$T_NAME,[0-9][0-9]*,%1 *\$"
keys "$SANDMUX_BIN -L $T_NAME attach; echo NESTED-RC=\$?" Enter
check "attach inside a pane is refused (exit 1)" wait_screen "NESTED-RC=1"
check "... saying: sessions should be nested with care, unset \$SANDMUX to force" \
	screen_has 'sessions should be nested with care, unset $SANDMUX to force'
check "... and nothing nested is drawn (one status line)" screen_count_is "[0] " 1
n=$(sessions)
keys "$SANDMUX_BIN -L $T_NAME new; echo NEW-RC=\$?" Enter
check "new inside a pane is refused (exit 1)" wait_screen "NEW-RC=1"
check "... making no session" [ "$(sessions)" -eq "$n" ]
sm new -d -s other >/dev/null
keys "env -u SANDMUX $SANDMUX_BIN -L $T_NAME attach -t other; echo FORCED-RC=\$?" Enter
check "with \$SANDMUX unset it attaches (the nested status line shows [other])" \
	wait_screen "[other] "
sm kill-session -t other >/dev/null
check "... and that client leaves when its session ends" wait_screen "FORCED-RC=0"

# --- a session that is not there -----------------------------------------
tm send-keys -t main:plain "clear" Enter
# The recording starts once clear's own ESC [H ESC [2J are drawn (the
# screen holds the prompt alone): started before, it caught them, and
# the check below failed on a loaded host.
plain_cleared() { [ "$(tm capture-pane -p -t main:plain | grep -c .)" -eq 1 ] && plain_has '^[$#]'; }
wait_for 10 plain_cleared
tm pipe-pane -o -t main:plain "cat >$T_DIR/nosuch.bytes"
tm send-keys -t main:plain "$SANDMUX_BIN -L $T_NAME attach -t nosuch; echo NOSUCH-RC=\$?" Enter
check "attach -t nosuch exits 1" wait_for 10 plain_has '^NOSUCH-RC=1'
check "... saying: sandmux: no session nosuch" plain_line 'sandmux: no session nosuch'
# (closed once the recording has it all)
bytes_have() { grep -q "$1" "$T_DIR/nosuch.bytes" 2>/dev/null; }
wait_for 5 bytes_have NOSUCH-RC
tm pipe-pane -t main:plain
no_screen_drawn() { grep -q "no session nosuch" "$T_DIR/nosuch.bytes" && ! grep -q "$(printf '\033')\[?1049h\|$(printf '\033')\[H\|$(printf '\033')\[2J" "$T_DIR/nosuch.bytes"; }
check "... without drawing a screen first (no alternate screen, no clear)" no_screen_drawn

# --- no server: attach says so, as tmux attach does ----------------------
# (sandmux alone still makes a server and a session, as tmux alone does)
tm send-keys -t main:plain "clear; $SANDMUX_BIN -L nosrv-$$ attach; echo NOSRV-RC=\$?" Enter
check "attach with no server exits 1" wait_for 10 plain_has '^NOSRV-RC=1'
check "... saying: sandmux: no server running on SOCKET" \
	plain_line "sandmux: no server running on $XDG_RUNTIME_DIR/sandmux/nosrv-$$"
check "... and starting none" [ ! -e "$XDG_RUNTIME_DIR/sandmux/nosrv-$$" ]
finish
