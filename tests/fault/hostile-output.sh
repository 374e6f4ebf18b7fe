#!/bin/sh
# Fault: a sandboxed program writes hostile bytes to its terminal.  The
# server parses every pane's output in its one event loop, so a sequence
# that makes the emulator spin would freeze every pane and client.  Each
# case runs in a native pane; afterwards the server must answer `ls`
# within 5 s and another pane must still be counting.  A server that
# froze is killed (-9) and a fresh one serves the next case, so every
# case is judged on its own.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fault-lib"
# Every CLI call is bounded: a frozen server must fail the test, not hang it.
sm() { timeout 10 "$SANDMUX_BIN" -L "$T_NAME" "$@"; }
start_server() {
	sm new -d -s f -x 160 -y 50 -c "$FW" -- /bin/bash -c "$TICKER" "$FW/tick-host" >/dev/null
}
responsive() { timeout 5 "$SANDMUX_BIN" -L "$T_NAME" ls >/dev/null 2>&1 && advancing %1; }
start_server

# hostile NAME PRINTF-FORMAT: the pane prints it once, when the test
# says go (the pane labelled native: its output reaches a confirmed
# pane), and sleeps.
hostile() {
	if ! quiet sm ls; then # the previous case left it dead
		kill -9 "$(server_pid)" 2>/dev/null
		start_server
	fi
	f="$FW/$(printf '%s' "$1" | tr -c 'a-zA-Z0-9' '_').bytes"
	printf "$2" >"$f"
	sm split -t %1 -v -l 10 --backend native -c "$FW" -- /bin/sh -c "while [ ! -e '$f.go' ]; do sleep 0.05; done; cat '$f'; touch '$f.done'; exec sleep 1000" >/dev/null
	p=$(newest_pane)
	# The label appears once the sandbox confirms (split returns before).
	if ! wait_for 10 field_is "$p" backend native; then
		not_ok "hostile output, $1: the native pane did not start ($(pane_field "$p" reason))"
		sm kill-pane -t "%$p" >/dev/null 2>&1
		return
	fi
	touch "$f.go"
	# Written once cat returns: the server has read all but the last
	# of it (cat blocks on a full pty); then the judgement.
	wait_for 10 test -e "$f.done"
	if responsive; then
		ok "hostile output, $1: the server stays responsive"
		sm kill-pane -t "%$(newest_pane)" >/dev/null 2>&1
	else
		not_ok "hostile output, $1: the server stays responsive (it froze: killed)"
		spid=$(server_pid)
		kill -9 "$spid" 2>/dev/null
		wait_for 5 dead "$spid"
		start_server
	fi
}
# libvterm 0.1.4: REP with no previous character repeats a zero-width glyph forever
hostile "REP after a reset (ESC c, CSI b)" '\033c\033[b'
hostile "REP as the first output" '\033[5b'
hostile "REP behind a stray byte after ESC (ESC 0xff [ 3 b: libvterm stays in ESC)" '\033\377[3b'
hostile "REP behind a C0 control after ESC (ESC ^E [ 3 b)" '\033\005[3b'
hostile "REP after a zero-width character" 'ab\342\200\213\033[3b'
# libvterm 0.1.4: a C1 control in UTF-8 is a glyph of width -1, the cursor walks left of column 0
hostile "a C1 control in UTF-8, then a space (putglyph at column -1)" '\302\225 '
C1=$(i=0; while [ "$i" -lt 3000 ]; do printf '\\302\\225'; i=$((i + 1)); done)
hostile "3000 C1 controls, then text (writes far before the row's cells)" "${C1}XXXXXXXXXXXXXXXX"
# libvterm 0.1.4: more than 16 CSI parameters overrun the parser's argument array
hostile "a CSI with 30 parameters (overruns the parser's arguments)" '\033[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30r'
hostile "REP with a huge count" 'x\033[2147483647b'
hostile "insert/delete huge counts" 'ab\033[999999999@\033[999999999P\033[999999999L\033[999999999M'
hostile "scroll region and huge scrolls" '\033[2;5r\033[999999999S\033[999999999T\033[r'
hostile "cursor far away" '\033[999999999;999999999H\033[999999999C\033[999999999B.'
hostile "a 256 KiB title" "\033]2;$(head -c 262144 /dev/zero | tr '\0' 'T')\007"
hostile "DECALN, alternate screen toggles, wide and combining" '\033#8\033[?1049h\033[?1049l\357\274\241\314\201\314\201\314\201'
hostile "an unterminated DCS of 256 KiB" "\033P$(head -c 262144 /dev/zero | tr '\0' 'q')"
# libvterm 0.1.4: a scroll region the pane set is left below the bottom
# when the pane shrinks (any split beside it), and the next scroll
# memmoves a negative size.
quiet sm ls || { kill -9 "$(server_pid)" 2>/dev/null; start_server; }
# Once labelled, the pane sets the region, says so, waits for the split,
# scrolls, says so.
sm split -t %1 -v --backend native -c "$FW" -- /bin/sh -c \
	'while [ ! -e region-go ]; do sleep 0.05; done; printf "\033[15;19r"; touch region-set; while [ ! -e split-done ]; do sleep 0.1; done
	printf "\033[3S"; printf "x\n%.0s" 1 2 3 4 5 6; touch scrolled; exec sleep 1000' >/dev/null
p=$(newest_pane)
if wait_for 10 field_is "$p" backend native && touch "$FW/region-go" &&
	wait_for 10 test -e "$FW/region-set"; then
	sm split -t "%$p" -v -l 80 -- /bin/sleep 1000 >/dev/null
	touch "$FW/split-done"
	wait_for 10 test -e "$FW/scrolled"
	check "hostile output, a scroll region left below the bottom by a split, then a scroll: the server stays responsive" responsive
else
	not_ok "hostile output, scroll region then shrink: the native pane did not start ($(pane_field "$p" reason))"
fi
finish
