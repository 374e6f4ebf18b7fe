#!/bin/sh
# The isolation demo (examples/demo-isolation.sh) run without a terminal:
# it must print both panes, find the none pane reading the fake key and
# the native pane denied the read and the write, started without the
# GITHUB_TOKEN the none pane sees, its append to ~/.bashrc landing in its
# copy-on-write home layer (the host's file unchanged), and exit 0.  With the
# sandbox switched off it must notice and exit 1, so its verdict is not
# a foregone conclusion.
. "$(dirname "$0")/../lib.sh"
ROOT=${SANDMUX_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
DEMO="$ROOT/examples/demo-isolation.sh"

out=$(SANDMUX_BIN="$SANDMUX_BIN" sh "$DEMO" --no-attach </dev/null 2>&1)
rc=$?
has() { printf '%s\n' "$out" | grep -qF -- "$1"; }
check "the demo exits 0 when isolation holds" [ "$rc" -eq 0 ]
check "it shows the none pane with its label" has "requested none, label none"
check "it shows the native pane with its label" has "requested native, label native"
check "the none pane read the key" has "sandmux demo key, not a real one"
check "the native pane got EACCES on the key" has "id_demo: Permission denied"
check "the native pane could not write /etc" has "Read-only file"
if ! "$SANDMUX_BIN" -L "$T_NAME-probe" probe | grep -q '^microvm: available'; then
	check "the microvm column is there, FAILED with its hint" has "requested microvm, label null, state error"
fi
if "$SANDMUX_BIN" -L "$T_NAME-probe" probe | grep -q '^microvm: available'; then
	check "it shows the microvm pane with its label" has "requested microvm, label microvm"
	check "and the microvm pane is denied the key" sh -c "printf '%s' \"\$1\" | sed -n '/^---- pane %3/,\$p' | grep -q 'RESULT read: DENIED'" - "$out"
fi
"$SANDMUX_BIN" -L "$T_NAME-probe" kill-server >/dev/null 2>&1
# native_says TEXT: a line of the native pane's screen, as printed
native_says() { printf '%s\n' "$out" | sed -n '/^---- pane %2/,/^---- /p' | grep -qxF -- "$1"; }
check "the native pane was refused /etc/sandmux-demo" native_says "RESULT write: DENIED"
check "the none pane printed the exported token" has "ghp_sandmux_demo_token_not_real"
check "the native pane's token was empty" native_says "(empty)"
check "... and it never printed the token" sh -c "! printf '%s\n' \"\$1\" | sed -n '/^---- pane %2/,/^---- /p' | grep -q ghp_" - "$out"
check "the native pane's ~/.bashrc append went to its home layer" native_says "RESULT bashrc: LAYER"
check "the none pane's reached the host's file" has "RESULT bashrc: ALLOWED"
check "it says the host's ~/.bashrc was left, the writes in the layer" has "their ~/.bashrc writes went to the home layer"
feed_has() { printf '%s\n' "$out" | sed -n '/^---- the violation feed/,$p' | grep -q -- "$1"; }
check "... and the denied read of the secret, what the demo is about" feed_has '%2 native violation file-read\* /.*/home/\.ssh/id_demo$'
check "it says the result was as expected" has "==== as expected"
check "it cleaned up /etc" [ ! -e /etc/sandmux-demo ]

out=$(SANDMUX_BIN="$SANDMUX_BIN" SANDMUX_SANDBOX=off sh "$DEMO" --no-attach </dev/null 2>&1)
rc=$?
check "with --sandbox off the demo fails (exit 1)" [ "$rc" -eq 1 ]
check "and says the native pane FAILED and why" has "FAILED: native sandbox disabled by --sandbox off"
check "and never claims success" sh -c "! printf '%s' \"\$1\" | grep -q '==== as expected'" - "$out"

check "demo --help names --no-attach" sh -c '"$1" demo --help | grep -q -- --no-attach' - "$SANDMUX_BIN"
"$SANDMUX_BIN" demo --bogus </dev/null >/dev/null 2>&1
check "an unknown demo option is a usage error (exit 2)" [ $? -eq 2 ]
# Inside a pane ($SANDMUX set) it says it will not nest, and still runs.
out=$(SANDMUX=/nowhere,1,%1 "$SANDMUX_BIN" demo </dev/null 2>&1)
check "sandmux demo inside a pane still runs the script" sh -c "printf '%s' \"\$1\" | grep -q '==== as expected'" - "$out"
out=$("$SANDMUX_BIN" demo </dev/null 2>&1)
check "sandmux demo runs the same script" sh -c "printf '%s' \"\$1\" | grep -q '==== as expected'" - "$out"
finish
