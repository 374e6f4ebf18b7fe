#!/bin/sh
# TUI: sandmux run inside one of its panes talks to that pane's server,
# as tmux uses $TMUX and $TMUX_PANE: `sandmux ls` answers for the server
# the pane is in (not for "default"), and `sandmux split -h` without -t
# splits the pane it was typed in.  -L still chooses another server.
# At 80x24 and at 160x45.
. "$(dirname "$0")/tui-lib"

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "in$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "in$cols")"
	wait_screen "─" 10
	first=$(active_pane)
	keys "$SANDMUX_BIN ls" Enter
	check "$size: sandmux ls in a pane lists this server's session" \
		wait_screen "in$cols: 1 windows" 5
	check "$size: ... and never starts the default server" \
		[ ! -e "$XDG_RUNTIME_DIR/sandmux/default" ]
	keys "clear; $SANDMUX_BIN split -h && echo split-ok" Enter
	check "$size: sandmux split -h without -t splits this pane" wait_for 5 pane_count_is 2
	check "$size: ... and succeeds" wait_for 5 capture_has "%$first" split-ok
	second=$(active_pane)
	geometry() { panes | awk -v id="$1" '$1 == id { print $2, $3 }'; }
	beside() { [ "$(geometry "$second" | cut -d' ' -f2)" = "$(geometry "$first" | cut -d' ' -f2)" ]; }
	check "$size: ... beside it" beside
	sm select-pane -t "%$first" >/dev/null
	keys "clear; $SANDMUX_BIN -L elsewhere-$$ ls; echo ls-rc=\$?" Enter
	check "$size: -L still names another server" wait_for 5 capture_has "%$first" "ls-rc=1"
	screen | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "in$cols" >/dev/null
done
finish
