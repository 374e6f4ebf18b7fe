#!/bin/sh
# TUI: screen convergence.  The real client in tmux goes through a random
# but seeded sequence of actions -- typing, cursor keys, Home/End, C-a/C-e,
# vim (-u NONE) and less, splits, kills (the window's last pane too),
# window switches, zoom, outer resizes (below the minimum and back), the
# help overlay, copy mode with searches -- and after each one has settled
# the outer screen and its cursor must be exactly what the server says
# the client shows: every visible pane's capture at its position, the
# active pane's cursor, borders, titles and the status line
# (tests/helpers/converge.c builds that screen and compares).
#
#   CONVERGE_SEED     the seed (default 1: make check plays the same
#                     sequence every time); `random` for a new one each
#                     run, printed
#   CONVERGE_ACTIONS  how many actions (default 500)
# `make soak` runs it longer, on random seeds (SOAK_SEED, SOAK_ACTIONS).
# A failure is a bug to find (the seed replays it), never a run to replay.
. "$(dirname "$0")/tui-lib"

SEED=${CONVERGE_SEED:-1}
[ "$SEED" = random ] && SEED=$(($(date +%s) % 100000))
ACTIONS=${CONVERGE_ACTIONS:-500}
HELPER="${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}/helpers/converge"
if [ ! -x "$HELPER" ]; then
	not_ok "the converge helper is built ($HELPER: make build-tests)"
	finish
fi

# Panes run bash (line editing for the cursor keys) with a plain prompt
# and nothing from the user's own startup files.  Each prompt adds a line
# to $CONVERGE_PROMPTS: the helper waits for the shell to prompt again
# after a command line, not for a screen that merely stood still.
mkdir -p "$T_DIR/home"
export CONVERGE_PROMPTS="$T_DIR/prompts"
: >"$CONVERGE_PROMPTS"
printf '%s\n' "PS1='\$ '" "PROMPT_COMMAND='echo >>\"$CONVERGE_PROMPTS\"'" >"$T_DIR/home/.bashrc"
export HOME="$T_DIR/home" SHELL=/bin/bash
seq 1 300 >"$T_DIR/data.txt"

# CONVERGE_TRACE=1: the outer pane's whole output (the client's drawing
# and the server's patches, as the terminal got them) goes to
# $T_DIR/outer.raw, for a post-mortem with SANDMUX_KEEP=1.
play() {
	start_client
	[ "${CONVERGE_TRACE:-0}" = 1 ] && tm pipe-pane -t main -o "cat >>'$T_DIR/outer.raw'"
	"$HELPER" "$SEED" "$ACTIONS" "$TMUX_NAME" "$T_DIR/tmux.conf" main "$T_NAME" 0 "$T_DIR/data.txt"
}

echo "# seed $SEED, $ACTIONS actions"
play
[ "$?" -eq 0 ] || T_FAILED=1
finish
