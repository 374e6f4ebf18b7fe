#!/bin/sh
# TUI: several clients on one session.  What one types, the other sees;
# a split made in one is drawn in both; each keeps its own status line
# at its own last row whatever size the server chose; the prefix is
# each client's own; detaching one leaves the other attached.
. "$(dirname "$0")/tui-lib"

start_client
tm new-session -d -s other -x 90 -y 24 "$(client_cmd)"
check "a second client attaches" wait_screen "─" 10 other
other_keys() { tm send-keys -t other "$@"; }

keys "echo from-main-\$((20+1))" Enter
check "output typed in the first client is drawn in the second" wait_screen "from-main-21" 5 other
other_keys "echo from-other-\$((30+2))" Enter
check "and the other way round" wait_screen "from-other-32" 5 main

other_keys C-b %
check "a split in one client" wait_for 5 pane_count_is 2
check "is drawn in the other" wait_screen "│" 5 main
check "the second client keeps its status line on its last row" status_matches '^\[' other
check "so does the first" status_matches '^\[' main

# The prefix is the client's own key state: pressed in one, the
# other's keys still go to the pane, and the first's next key is the
# command.
keys C-b
check "the prefix pressed in the first client is marked there" wait_for 3 status_matches '^\[[^]]*\] \^ ' main
check "... not in the second" eval "! status_matches '^\[[^]]*\] \^ ' other"
other_keys "echo per-client-\$((3+4))" Enter
check "the second client's keys still go to the pane" wait_screen "per-client-7" 5 other
keys c
check "... and the first's next key is a command (a new window)" wait_for 5 status_matches ' 1:' main
prefix d
check "detaching the first client" wait_screen "[detached" 5 main
other_keys "echo still-here-\$((40+3))" Enter
check "leaves the second attached and working" wait_screen "still-here-43" 5 other
finish
