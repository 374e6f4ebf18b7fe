#!/bin/sh
# TUI: the feed's `?` and `a` on a refused write to a host-run file (a
# repository's hook in a native pane's work tree) name the real reason,
# a host-run file that no profile makes writable, and never advise
# adding a writable root (issue 27 item 8: they said "add a writable
# root", then refused the change).  At 80x24 and 160x45.
. "$(dirname "$0")/tui-lib"

native_available() { sm probe --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["native"]["available"] else 1)'; }
feed_pane() { sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    for w in s["windows"]:
        for p in w["panes"]:
            if p.get("title", "").startswith("feed \u00b7 "):
                print(p["id"])'; }
has_feed() { [ -n "$(feed_pane)" ]; }

export HOME="$T_DIR/home"
WORK="$T_DIR/work"
mkdir -p "$HOME" "$WORK"
git init -q "$WORK"
mkdir -p "$WORK/.git/hooks"
echo "# host hook" >"$WORK/.git/hooks/pre-commit"

if ! native_available; then
	not_ok "the native sandbox is available here (bwrap)"
	finish
fi
for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	start_client
	tm resize-window -t main -x "$cols" -y "$rows"
	native=$(sm split -t "%$(active_pane)" -h --backend native -c "$WORK" -- /bin/sh | awk '{ print substr($1, 2) }')
	backend_is() { [ "$(pane_field "$1" backend)" = native ]; }
	wait_for 10 backend_is "$native"
	sm send-keys -t "%$native" "echo evil >$WORK/.git/hooks/pre-commit || echo refused-$size" Enter
	check "$size: the hook write is refused" wait_for 10 capture_has "%$native" "refused-$size"
	check "$size: the host's hook is unchanged" grep -qx "# host hook" "$WORK/.git/hooks/pre-commit"
	prefix v
	wait_for 5 has_feed
	feed=$(feed_pane)
	check "$size: the feed shows the refusal" wait_for 5 sh -c \
		"$SANDMUX_BIN -L $T_NAME capture -t %$feed | grep -q 'file-write\\*'"
	sm select-pane -t "%$feed"
	keys l
	keys "?"
	check "$size: ? names a host-run file" wait_screen "a host-run file" 5
	check "$size: ... not a writable root to add" screen_lacks 'Add a root to the profile'
	screen | sed "s/^/# $size ? | /"
	keys Escape
	keys a
	check "$size: a says the host would run it" wait_screen "host would run" 5
	check "$size: ... and offers no profile change" screen_lacks "p  profile"
	screen | sed "s/^/# $size a | /"
	sm kill-server >/dev/null 2>&1
	tm kill-server >/dev/null 2>&1
done
finish
