#!/bin/sh
# TUI: `:record FILE` and `:source-file
# PATH` with a relative path mean the user's directory, the one the
# client was attached from (the client sends it with attach), not
# the server's.  The server runs from this test's directory; the client
# runs from another one, which alone holds the sourced file.
. "$(dirname "$0")/tui-lib"

HERE="$T_DIR/here"
mkdir -p "$HERE"
printf 'rename-session from-here\n' >"$HERE/rel.conf"
sm new -d -s cwd >/dev/null
tm new-session -d -s main -x 120 -y 40 -c "$HERE" "$(client_cmd -t cwd)"
wait_screen "─" 10
pane=$(active_pane)

run() {
	prefix :
	wait_for 3 status_matches ':'
	keys "$1" Enter
}

run "source-file rel.conf"
check "source-file with a relative path reads the client's directory" \
	wait_for 3 status_matches '^\[from-here\]'
run "record rec.cast"
check "record with a relative path writes into the client's directory" \
	wait_for 3 status_matches "recording %$pane to $HERE/rec.cast"
check "... the file is there" wait_for 3 test -s "$HERE/rec.cast"
run "record --stop"
wait_for 3 status_matches "recording of %$pane stopped"
run "source-file missing.conf"
check "a missing relative file is named with the client's directory" \
	wait_for 3 status_matches "$HERE/missing.conf: No such file"
finish
