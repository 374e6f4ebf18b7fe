#!/bin/sh
# TUI: a pane's OSC 8 hyperlink is drawn
# on the user's terminal when that terminal shows links (terminfo's Hls,
# here a test entry built on xterm-256color), and a hostile URI (an ESC
# inside) never reaches it.  The user's terminal is a pty held by a
# script that records every byte the server writes to it; tmux 3.3a,
# the other TUI tests' terminal, shows no links.
. "$(dirname "$0")/tui-lib"

mkdir -p "$T_DIR/terminfo"
printf 'sandmux-links|xterm-256color with hyperlinks,\n\tHls=\\E]8;%%p1%%s;%%p2%%s\\E\\\\,\n\tuse=xterm-256color,\n' \
	>"$T_DIR/links.ti"
if ! tic -x -o "$T_DIR/terminfo" "$T_DIR/links.ti" 2>"$T_DIR/tic.err"; then
	echo "ok - # SKIP tic cannot build a terminfo entry: $(head -1 "$T_DIR/tic.err")"
	exit 0
fi
# The server reads terminfo for the client's TERM.
export TERMINFO="$T_DIR/terminfo"
sm new -d -s links -x 80 -y 24 >/dev/null

# The user's terminal: a pty; every byte written to it goes to out.bin.
python3 - "$SANDMUX_BIN" "$T_NAME" "$T_DIR/out.bin" "$T_DIR/stop" <<'PY' &
import os, pty, sys, time
sandmux, name, out, stop = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update(TERM="sandmux-links")
    os.execv(sandmux, [sandmux, "-L", name, "attach", "-t", "links"])
with open(out, "wb") as f:
    while not os.path.exists(stop):
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        f.write(data)
        f.flush()
PY
reader=$!

attached() { sm ls 2>/dev/null | grep -q attached; }
wait_for 10 attached
# What the pane prints, from a file: the command line typed would show
# the URIs as text.
cat >"$T_DIR/emit.sh" <<'SH'
printf '\033]8;;https://example.com/x\033\\linked\033]8;;\033\\ plain\n'
printf '\033]8;;https://evil.test/\033]52;c;aGk=\007\033\\hostile\033]8;;\033\\\n'
SH
sm send-keys -t links -l "sh $T_DIR/emit.sh"
sm send-keys -t links Enter
out_has() { grep -qaF -- "$1" "$T_DIR/out.bin"; }
check "the link is drawn on the terminal inside its OSC 8" \
	wait_for 10 out_has "$(printf '\033]8;;https://example.com/x\033\\linked\033]8;;\033\\')"
check "the hostile link's text is drawn" wait_for 10 out_has hostile
no_evil() { ! out_has 'evil.test'; }
check "... but not its URI" no_evil
sm kill-session -t links >/dev/null
touch "$T_DIR/stop"
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
finish
