#!/bin/sh
# TUI: each pane's damage drawn on its own.  A frame draws only the rows
# that changed in each pane (screen_draw_damage) while nothing else on
# the screen changed since the last whole draw.  Two panes flood at once
# while the third is typed into, then one of them changes its title in
# the middle of more output: after each, the outer screen must be
# exactly what the server says the client shows (the converge helper
# with no action of its own: every pane's cells, borders, title lines,
# the status line and the cursor).
. "$(dirname "$0")/tui-lib"

HELPER="${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}/helpers/converge"
if [ ! -x "$HELPER" ]; then
	not_ok "the converge helper is built ($HELPER: make build-tests)"
	finish
fi

# A pane that waits for $T_DIR/go1, prints 3000 lines, waits for
# $T_DIR/go2, names itself NAME and prints 200 lines more.
flood() {
	printf '%s' "until [ -e '$T_DIR/go1' ]; do sleep 0.01; done; seq 1 3000;" \
		"until [ -e '$T_DIR/go2' ]; do sleep 0.01; done;" \
		"printf '\\033]2;$1\\007'; seq 3001 3200; exec cat"
}

# compare WHAT: the outer screen against the server's model of it.
compare() {
	out=$("$HELPER" 0 0 "$TMUX_NAME" "$T_DIR/tmux.conf" main "$T_NAME" 0 /dev/null 2>&1)
	if [ $? -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "$out" | sed 's/^/# /'
	fi
}

# The last line of pane ID's capture is LINE.
pane_ends_with() { sm capture -t "%$1" 2>/dev/null | grep -v '^$' | tail -n 1 | grep -qx "$2"; }

start_client
typist=$(active_pane)
a=$(sm split -t "%$typist" -h -- sh -c "$(flood flood-a-title)" | awk '{ print substr($1, 2) }')
b=$(sm split -t "%$a" -v -- sh -c "$(flood flood-b-title)" | awk '{ print substr($1, 2) }')
sm select-pane -t "%$typist" >/dev/null
wait_for 5 active_pane_is "$typist"

touch "$T_DIR/go1"
keys "echo typed-during-flood" Enter
check "both floods ended" wait_for 20 sh -c "
	$SANDMUX_BIN -L $T_NAME capture -t %$a | grep -qx 3000 &&
	$SANDMUX_BIN -L $T_NAME capture -t %$b | grep -qx 3000"
check "the typed line was echoed" wait_screen "typed-during-flood"
compare "two panes flooding at once and a typist: every pane's rows drawn as the server has them"

touch "$T_DIR/go2"
keys "echo typed-again" Enter
check "both panes printed their second part" wait_for 20 sh -c "
	$SANDMUX_BIN -L $T_NAME capture -t %$a | grep -qx 3200 &&
	$SANDMUX_BIN -L $T_NAME capture -t %$b | grep -qx 3200"
check "a title changed in the middle of output is drawn" wait_screen "flood-b-title"
compare "titles changed while panes flood: the titles and every pane's rows drawn as the server has them"
finish
