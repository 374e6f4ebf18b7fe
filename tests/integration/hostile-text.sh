#!/bin/sh
# A file name a sandboxed pane chose, read in the text outputs: a native
# pane is denied reading ~/.ssh/NAME where NAME holds ESC ] 52 (a
# clipboard write), ESC [ 2J (a cleared screen), a lone 0x9b (CSI to an
# 8-bit terminal) and a newline followed by a forged event line.  Each
# text output, recorded on a pty (script(1)) as a person would see it,
# has the name with '?' for each of those: no ESC but sandmux's own
# colours, no line that starts with the forgery.  `events --json` keeps
# the name exact (sanitise.c).
. "$(dirname "$0")/../lib.sh"

if ! sm probe --json | grep -q '"available":[[:space:]]*true'; then
	echo "ok - # SKIP no native sandbox"
	finish
fi
for tool in script timeout; do
	command -v "$tool" >/dev/null || { echo "ok - # SKIP $tool is not installed"; finish; }
done
export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh"

sm new -d -s hostile -b native -- sh -c \
	'n=$(printf "x\033]52;c;SGVsbG8=\007\033[2J\233\nFORGED 00:00:00 %%9 none violation"); cat "$HOME/.ssh/$n"; echo evil-done; exec sleep 600' >/dev/null
check "the native pane tried the read" wait_for 10 capture_has %1 evil-done
denied() { sm events --json | grep -q 'FORGED'; }
check "the violation is logged" wait_for 5 denied

# on_pty FILE COMMAND...: what COMMAND writes to a terminal, kept in FILE
on_pty() {
	out=$1
	shift
	script -q -e -c "$*" "$out" </dev/null >/dev/null 2>&1
}
sm_cmd="$SANDMUX_BIN -L $T_NAME"
on_pty "$T_DIR/events" "$sm_cmd events"
on_pty "$T_DIR/pretty" "timeout 2 $sm_cmd events --pretty"
on_pty "$T_DIR/follow" "timeout 2 $sm_cmd events --follow"
on_pty "$T_DIR/suggest" "$sm_cmd profile suggest -t %1"
on_pty "$T_DIR/ls" "$sm_cmd ls"

# raw_escape FILE: an ESC that is not one of --pretty's SGR colours
raw_escape() { python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
data = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
sys.exit(0 if b"\x1b" in data or b"\x9b" in data or b"\x07" in data else 1)
PY
}
for out in events pretty follow suggest; do
	check "$out: the name is there, with ?s" grep -qF 'x?]52;c;SGVsbG8=??[2J??FORGED' "$T_DIR/$out"
	if raw_escape "$T_DIR/$out"; then
		not_ok "$out: a raw ESC, BEL or CSI reaches the terminal"
	else
		ok "$out: no raw ESC, BEL or CSI reaches the terminal"
	fi
	check "$out: no forged line" sh -c "! grep -q '^FORGED' '$T_DIR/$out'"
done
exact() { sm events --json | python3 -c '
import json, sys
want = "x\x1b]52;c;SGVsbG8=\x07\x1b[2J"
sys.exit(0 if any(want in json.loads(l).get("target", "") for l in sys.stdin) else 1)'; }
check "events --json keeps the name exact" exact
finish
