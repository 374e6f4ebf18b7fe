#!/bin/sh
# Echo patches wait for the client to catch up (src/echo-share.h,
# lines_drawn): a client with a page and its own pty
# (tests/helpers/echo-peer.c) leaves a frame unread and types; the
# server must not patch its terminal then, and must once it has read and
# drawn everything.  The bug this stops: a patch written before the
# client drew a frame that scrolled, which the client's drawing then
# moved onto a row it believed held another line (converge: the prompt
# left over the command line that had scrolled up).
. "$(dirname "$0")/../lib.sh"

HELPER="${SANDMUX_BUILD:-$(dirname "$SANDMUX_BIN")}/helpers/echo-peer"
export HOME="$T_DIR/home" SHELL=/bin/sh
mkdir -p "$HOME"
sm new -d -s peer -x 80 -y 24 -- /bin/sh >/dev/null
wait_for 5 capture_has %1 "#" || wait_for 5 capture_has %1 '$'
"$HELPER" "$XDG_RUNTIME_DIR/sandmux/$T_NAME" peer || T_FAILED=1
finish
