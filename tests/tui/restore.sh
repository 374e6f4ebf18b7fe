#!/bin/sh
# TUI: `sandmux` alone, with no session running and saved sessions in
# the state directory, offers them before making a new one (as zellij
# lists sessions to resurrect); the user picks one by its number; each
# command that is not a shell is asked about (y, n, a for all the rest,
# s to skip all the rest) before it runs again; the session is attached.
# A command not run again leaves its last screen above the line saying
# so.  Enter at the offer makes a new session instead.  `sandmux
# restore` with several saved asks which, by number.
. "$(dirname "$0")/tui-lib"

W=$(mktemp -d /var/tmp/sandmux-tui-restore.XXXXXX)
mkdir -p "$W/a"
printf 'notes from before the reboot\n' >"$W/notes.txt"
tui_cleanup_all() {
	rm -rf "$W"
	tui_cleanup
}
trap tui_cleanup_all EXIT

# A session of two windows, the second (the active one) with a shell
# and vi side by side.
sm new -d -s work -x 120 -y 39 -c "$W/a" >/dev/null
sm new-window -t work -c "$W/a" >/dev/null
sm split -t %2 -h -l 50 -c "$W/a" -- vi "$W/notes.txt" >/dev/null
check "vi shows the notes" wait_for 10 capture_has %3 "notes from before the reboot"
sm kill-server >/dev/null
cp "$XDG_STATE_HOME/sandmux/sessions/work.json" "$W/work.json"

# The user's terminal: sandmux with no verb.
tm new-session -d -s main -x 120 -y 40 \
	"env $SANDMUX_BIN -L $T_NAME; echo CLIENT-EXIT=\$?; sleep 600"
check "sandmux alone offers the saved sessions" \
	wait_screen "saved sessions from an earlier server:" 10
check "each with its windows, panes and when it was saved" \
	screen_matches "^  1  work  2 windows, 3 panes, saved 20[0-9-]*T"
check "and says how to choose" screen_has "Restore one? Its number, or Enter for a new session:"
keys 1 Enter
check "vi is asked about before it runs again" \
	wait_screen "window 1, pane 1 ran: vi $W/notes.txt" 5
check "with the choices for this pane and for all" \
	screen_has "Run it again? [y]es, [n]o, [a]ll the rest, [s]kip all the rest (default no):"
check "the shells are not asked about" screen_lacks "pane 0 ran"
keys n Enter
check "the restored session is attached, at its active window" wait_screen "─" 10
check "the pane not run again shows its last screen (vi's empty lines)" \
	wait_for 5 screen_matches '│~ *$'
check "all of it, the top in the pane's history" capture_has %3 "notes from before the reboot"
check "above the line saying it was restored and not run again" \
	wait_screen "(not run again) --" 5
check "the session is the saved one, with its two windows" \
	sh -c "$SANDMUX_BIN -L $T_NAME list-windows -t work | grep -c . | grep -qx 2"
tm kill-session -t main
sm kill-server >/dev/null

# restore FILE at a terminal: y runs vi again.
tm new-session -d -s main -x 120 -y 40 \
	"env $SANDMUX_BIN -L $T_NAME restore $W/work.json; echo CLIENT-EXIT=\$?; sleep 600"
check "restore FILE asks about vi" wait_screen "window 1, pane 1 ran: vi" 10
keys y Enter
check "after y the session is attached" wait_screen "─" 10
vi_pid=$(pane_field 3 pid)
check "after y, vi runs again in its pane" \
	wait_for 10 sh -c 'case $(cat /proc/$1/comm) in vi*) ;; *) exit 1 ;; esac' _ "$vi_pid"
check "and no restored line is drawn for it" screen_lacks "(not run again)"
tm kill-session -t main
sm kill-server >/dev/null

# Enter at the offer: a new session, the saved ones left for later.
tm new-session -d -s main -x 120 -y 40 \
	"env $SANDMUX_BIN -L $T_NAME; echo CLIENT-EXIT=\$?; sleep 600"
wait_screen "Restore one?" 10
keys Enter
check "Enter at the offer attaches a new session" wait_screen "─" 10
check "which is not the saved one" \
	sh -c "! $SANDMUX_BIN -L $T_NAME ls | grep -q '^work:'"
tm kill-session -t main
sm kill-server >/dev/null

# restore alone with two saved (work, and the new session kill-server
# just saved, newest first): it asks which, and restores the one named.
tm new-session -d -s main -x 120 -y 40 \
	"env $SANDMUX_BIN -L $T_NAME restore --rerun none; echo CLIENT-EXIT=\$?; sleep 600"
check "restore with several saved asks which" \
	wait_screen "Restore which? Its number (Enter: none):" 10
check "newest first: work, saved earlier, is second" screen_matches "^  2  work  2 windows, 3 panes"
keys 2 Enter
check "the session chosen is attached" wait_screen "─" 10
check "and it is work, restored" \
	sh -c "$SANDMUX_BIN -L $T_NAME list-windows -t work | grep -c . | grep -qx 2"
finish
