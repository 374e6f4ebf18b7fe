#!/bin/sh
# The isolation demo (examples/demo-isolation.sh) run without a terminal:
# it must print both panes, find the none pane reading the fake key and
# the native pane denied the read and the write, and exit 0.  With the
# sandbox switched off it must notice and exit 1, so its verdict is not
# a foregone conclusion.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
DEMO="$ROOT/examples/demo-isolation.sh"

out=$(SANDMUX="$SANDMUX_BIN" sh "$DEMO" --no-attach </dev/null 2>&1)
rc=$?
has() { printf '%s\n' "$out" | grep -qF -- "$1"; }
check "the demo exits 0 when isolation holds" [ "$rc" -eq 0 ]
check "it shows the none pane with its label" has "requested none, label none"
check "it shows the native pane with its label" has "requested native, label native"
check "the none pane read the key" has "sandmux demo key, not a real one"
check "the native pane got EACCES on the key" has "id_demo: Permission denied"
check "the native pane could not write /etc" has "Read-only file system"
if "$SANDMUX_BIN" -L "$T_NAME-probe" probe | grep -q '^microvm: available'; then
	check "it shows the microvm pane with its label" has "requested microvm, label microvm"
	check "and the microvm pane is denied the key" sh -c "printf '%s' \"\$1\" | sed -n '/^---- pane %3/,\$p' | grep -q 'RESULT read: DENIED'" - "$out"
fi
"$SANDMUX_BIN" -L "$T_NAME-probe" kill-server >/dev/null 2>&1
check "it says the result was as expected" has "==== as expected"
check "it cleaned up /etc" [ ! -e /etc/sandmux-demo ]

out=$(SANDMUX="$SANDMUX_BIN" SANDMUX_SANDBOX=off sh "$DEMO" --no-attach </dev/null 2>&1)
rc=$?
check "with --sandbox off the demo fails (exit 1)" [ "$rc" -eq 1 ]
check "and says the native pane FAILED and why" has "FAILED: native sandbox disabled by --sandbox off"
check "and never claims success" sh -c "! printf '%s' \"\$1\" | grep -q '==== as expected'" - "$out"

out=$("$SANDMUX_BIN" demo </dev/null 2>&1)
check "sandmux demo runs the same script" sh -c "printf '%s' \"\$1\" | grep -q '==== as expected'" - "$out"
finish
