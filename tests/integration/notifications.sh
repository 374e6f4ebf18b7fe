#!/bin/sh
# What agents say without drawing it: a notification (OSC 9, OSC 777)
# from a pane that is not focused marks it (`notice` in every listing,
# drawn in its title after "!") until it is focused; one from the
# focused pane marks nothing; OSC 9;4 progress is in its listing (and
# title) while set.  The text is the pane's choice: the client draws it
# through the sanitiser (tests/tui/notice.sh).
. "$(dirname "$0")/../lib.sh"

W="$T_DIR/w"
mkdir "$W"
sm new -d -s n -x 100 -y 30 -c "$W" -- sh -c '
step() { while [ ! -e "$1" ]; do sleep 0.05; done; }
echo ready
step go1; printf "\033]9;tests passed\007"
step go2; printf "\033]777;notify;Claude;needs your input\033\\\\"
step go3; printf "\033]9;4;1;42\007"
step go4; printf "\033]9;4;0\007"
exec sleep 600' >/dev/null
check "setup: the pane is ready" wait_for 10 capture_has %1 ready
sm split -t %1 -c "$W" -- sh -c 'printf "\033]9;focused one\007"; echo here; exec sleep 600' >/dev/null
check "setup: the second pane is there, focused" wait_for 10 capture_has %2 here
# listed PATTERN: `ls --json` has a line matching it.
listed() { sm ls --json | grep -q -- "$1"; }
unlisted() { ! listed "$1"; }
check "a notification from the focused pane marks nothing" unlisted '"notice"'

touch "$W/go1"
check "OSC 9 from an unfocused pane marks it" wait_for 10 listed '"notice":[[:space:]]*"tests passed"'
touch "$W/go2"
check "OSC 777 replaces it: title and body" wait_for 10 listed '"notice":[[:space:]]*"Claude: needs your input"'
touch "$W/go3"
check "OSC 9;4 progress is listed while set" wait_for 10 listed '"progress":[[:space:]]*42'
sm select-pane -t %1 >/dev/null
check "focused, the pane's mark goes" wait_for 10 unlisted '"notice"'
check "and its progress stays" listed '"progress":[[:space:]]*42'
touch "$W/go4"
check "progress cleared: gone from the listing" wait_for 10 unlisted '"progress'
finish
