#!/bin/sh
# OSC 8 hyperlinks, as agents print file paths and URLs: kept per cell
# and written back by `capture --ansi` around their text (and after a
# scroll into history); a URI with a control or a space in it is not
# kept, and its text stays, unlinked.
. "$(dirname "$0")/../lib.sh"

sm new -d -s h -x 80 -y 10 -- sh -c '
printf "see \033]8;id=1;https://example.com/a?b=1\033\\\\the docs\033]8;;\033\\\\ now\r\n"
printf "\033]8;;http://bad host\007spaced\033]8;;\007 and \033]8;;file:///tmp/x\007file\033]8;;\007\r\n"
printf "done\r\n"; exec sleep 600' >/dev/null
check "setup: the pane printed" wait_for 10 capture_has %1 done

sm capture -t %1 --ansi >"$T_DIR/ansi"
check "capture --ansi writes the link back around its text" \
	grep -qF "$(printf 'see \033]8;id=1;https://example.com/a?b=1\033\\the docs\033]8;;\033\\ now')" "$T_DIR/ansi"
check "a URI with a space is not kept: its text is plain" \
	grep -qF "$(printf 'spaced and \033]8;;file:///tmp/x\033\\file\033]8;;\033\\')" "$T_DIR/ansi"
check "capture without --ansi is the text alone" sh -c \
	"sm() { \"$SANDMUX_BIN\" -L $T_NAME \"\$@\"; }; sm capture -t %1 | grep -qx 'see the docs now'"

# Into history and back out of it.
sm new -d -s old -x 80 -y 10 -- sh -c '
printf "\033]8;;https://example.com/old\033\\\\old link\033]8;;\033\\\\\r\n"; seq 1 30; exec sleep 600' >/dev/null
check "setup: the pane scrolled" wait_for 10 capture_has old 30
sm capture -t old -S - --ansi >"$T_DIR/history"
check "a link scrolled into history is kept" \
	grep -qF "$(printf '\033]8;;https://example.com/old\033\\old link\033]8;;\033\\')" "$T_DIR/history"
finish
