#!/bin/sh
# Which backend and profile a new pane takes from the pane it is opened
# from, with the real bwrap: by default a split or window from a native
# pane runs as none (invariant 3); with "inherit_backend": true it keeps
# native; a sandboxed split that names no profile keeps the pane's own.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1; then
	echo "not ok - needs bwrap"
	exit 1
fi
export HOME="$T_DIR/home"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/sandmux"
pane_id() { sed -n 's/^%\([0-9][0-9]*\).*/\1/p' | head -1; }
running() { [ "$(pane_field "$1" state)" = active ] || [ "$(pane_field "$1" state)" = warm ]; }

sm new -d -s inh -b native -P agent -- /bin/sh >/dev/null
first=$(sm ls --json | awk '$1 == "\"id\":" { v = $2; sub(/,$/, "", v); print v; exit }')
wait_for 10 running "$first"
plain=$(sm split -t "%$first" -- /bin/sh | pane_id)
check "by default a split from a native pane runs as none" [ "$(pane_field "$plain" backend)" = none ]
win=$(sm new-window -t inh -- /bin/sh | pane_id)
check "... and so does a new window" [ "$(pane_field "$win" backend)" = none ]
sandboxed=$(sm split -t "%$first" -b native -- /bin/sh | pane_id)
wait_for 10 running "$sandboxed"
check "a native split that names no profile keeps the pane's (agent)" \
	[ "$(pane_field "$sandboxed" profile)" = agent ]
check "... and is native" [ "$(pane_field "$sandboxed" backend)" = native ]
sm kill-server

echo '{ "inherit_backend": true }' >"$XDG_CONFIG_HOME/sandmux/config.json"
sm new -d -s inh -b native -- /bin/sh >/dev/null
first=$(sm ls --json | awk '$1 == "\"id\":" { v = $2; sub(/,$/, "", v); print v; exit }')
wait_for 10 running "$first"
kept=$(sm split -t "%$first" -- /bin/sh | pane_id)
wait_for 10 running "$kept"
check "with inherit_backend a split keeps native" [ "$(pane_field "$kept" backend)" = native ]
sm select-pane -t "%$first"
win=$(sm new-window -t inh -- /bin/sh | pane_id)
wait_for 10 running "$win"
check "... and so does a new window" [ "$(pane_field "$win" backend)" = native ]
asked=$(sm split -t "%$first" -b none -- /bin/sh | pane_id)
check "an explicit -b none still runs on the host" [ "$(pane_field "$asked" backend)" = none ]
host=$(sm split -t "%$asked" -- /bin/sh | pane_id)
check "a split from a host pane stays none" [ "$(pane_field "$host" backend)" = none ]
finish
