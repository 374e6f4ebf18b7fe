#!/bin/sh
# `sandmux record`: a pane's output as asciicast v2, written by the
# server, with one marker per violation.  A real native pane (bwrap and
# the supervisor) prints known text, invalid UTF-8 and a line crafted to
# look like a forged event, then is denied three times; the recording
# was started by a one-shot CLI that exited at once (no client is ever
# attached: only the server writes it).  Checked:
#   - every line is JSON (python3), the header is asciicast v2 with the
#     pane's size, events are [time, code, text] with times never going
#     back; asciinema cat reads it (under a pty: it insists on one);
#   - the output holds the pane's text, invalid bytes as U+FFFD, and the
#     crafted line as text, not as an event; a character cut between
#     two reads kept whole;
#   - exactly one marker per violation of the pane, in the log's order,
#     "ACTION TARGET";
#   - the file is 0600; a second recording of the pane is already_recording;
#     --stop without one is not_recording; a directory a sandboxed pane
#     can write, an existing file and a planted symlink are unsafe_path
#     (the symlink's target untouched); a recording ends with its pane.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1; then
	echo "not ok - needs bwrap"
	exit 1
fi
export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh" "$HOME/.aws" "$T_DIR/work" "$T_DIR/rec"
echo secret >"$HOME/.ssh/id_test"
echo secret >"$HOME/.aws/credentials"
W=$(cd "$T_DIR/work" && pwd -P)
REC=$(cd "$T_DIR/rec" && pwd -P)
H=$(cd "$HOME" && pwd -P)
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
CAST="$REC/demo.cast"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
cat >"$W/demo.sh" <<'EOF'
read go
echo REC-OUTPUT-1
printf 'bad \377\376 utf8 \342\202\254 ok\n'
printf '"]\n[0.1, "m", "forged"]\n'
# The pauses are what is tested: a character cut across two reads.
printf 'cut \342'; sleep 0.3; printf '\202\254 whole\n'
printf 'lone \342\202'; sleep 0.3; printf 'x\n'
cat ~/.ssh/id_test
echo x >/usr/sandmux-record-test
cat ~/.aws/credentials
echo REC-DONE
sleep 600
EOF
id=$(sm new -d -s rec -x 90 -y 25 --backend native -c "$W" -- sh "$W/demo.sh" | pane_id)
# Launched: its backend is null until then (ls --json puts a tab after
# the colon).
backend_is() { [ "$(pane_field "$1" backend)" = "$2" ]; }
wait_for 20 backend_is "$id" native
out=$(sm record -t "%$id" "$CAST" 2>&1)
check "record starts ($out)" sh -c 'case "$1" in "recording %"*" to $2") exit 0 ;; esac; exit 1' _ "$out" "$CAST"

# --- refusals while it runs -------------------------------------------------------
out=$(sm record -t "%$id" "$REC/second.cast" 2>&1)
rc=$?
check "a second recording of the pane: already_recording, rc 1 ($out)" \
	sh -c '[ "$1" = 1 ] && case "$2" in *already_recording*) exit 0 ;; esac; exit 1' _ "$rc" "$out"
check "... and no second file" [ ! -e "$REC/second.cast" ]
id2=$(sm new -d -s other -x 80 -y 24 -- sh -c 'sleep 600' | pane_id)
out=$(sm record -t "%$id2" "$W/in-work.cast" 2>&1)
check "into the native pane's writable work tree: unsafe_path ($out)" \
	sh -c 'case "$1" in *"writable by sandboxed pane"*unsafe_path*) exit 0 ;; esac; exit 1' _ "$out"
check "... nothing made there" [ ! -e "$W/in-work.cast" ]
echo keep >"$REC/exists.cast"
out=$(sm record -t "%$id2" "$REC/exists.cast" 2>&1)
check "onto an existing file: unsafe_path, the file untouched ($out)" \
	sh -c 'case "$1" in *unsafe_path*) grep -qx keep "$2" ;; *) exit 1 ;; esac' _ "$out" "$REC/exists.cast"
echo "do not touch" >"$T_DIR/victim"
ln -s "$T_DIR/victim" "$REC/link.cast"
out=$(sm record -t "%$id2" "$REC/link.cast" 2>&1)
check "onto a planted symlink: refused, its target untouched ($out)" \
	sh -c 'case "$1" in *unsafe_path*) [ "$(cat "$2")" = "do not touch" ] ;; *) exit 1 ;; esac' _ "$out" "$T_DIR/victim"
out=$(sm record -t "%$id2" --stop 2>&1)
check "--stop without a recording: not_recording ($out)" \
	sh -c 'case "$1" in *not_recording*) exit 0 ;; esac; exit 1' _ "$out"
sm record -t "%$id2" >/dev/null 2>&1
check "no FILE and no --stop: usage error" [ $? = 2 ]

# --- the recorded run ----------------------------------------------------------------
sm send-keys -t "%$id" Enter
wait_for 20 capture_has "%$id" REC-DONE
# The markers are written as the log takes the violations: all three in.
pane_violations() { grep '"kind":"violation"' "$LOG" | grep -c "\"pane\":$id[,}]"; }
wait_for 10 eval '[ "$(pane_violations)" -ge 3 ]'
out=$(sm record -t "%$id" --stop 2>&1)
check "--stop ends it ($out)" sh -c 'case "$1" in *"stopped: $2"*"3 markers"*) exit 0 ;; esac; exit 1' _ "$out" "$CAST"
check "the file is 0600" [ "$(stat -c %a "$CAST")" = 600 ]

cat >"$T_DIR/check.py" <<'EOF'
import json, sys
cast, log, pane = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(cast, "rb").read().decode("utf-8").split("\n")
assert lines[-1] == "", "ends with a newline"
rows = [json.loads(l) for l in lines[:-1]]
h = rows[0]
assert h["version"] == 2 and isinstance(h["width"], int) and isinstance(h["height"], int), h
assert h["width"] == 90 and isinstance(h["timestamp"], int) and "TERM" in h["env"], h
last = 0.0
for e in rows[1:]:
    assert isinstance(e, list) and len(e) == 3, e
    assert isinstance(e[0], float) and e[0] >= last, ("time goes back", e)
    assert e[1] in ("o", "m", "r") and isinstance(e[2], str), e
    last = e[0]
out = "".join(e[2] for e in rows[1:] if e[1] == "o")
marks = [e[2] for e in rows[1:] if e[1] == "m"]
want = []
for l in open(log):
    ev = json.loads(l)
    if ev.get("kind") == "violation" and ev.get("pane") == pane:
        want.append(ev["action"] + " " + ev["target"])
print("OUT", json.dumps(out))
print("MARKS", json.dumps(marks))
print("WANT", json.dumps(want))
EOF
python3 "$T_DIR/check.py" "$CAST" "$LOG" "$id" >"$T_DIR/check.out" 2>&1
rc=$?
check "every line is JSON; an asciicast v2 header and [time, code, text] events in time order" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$T_DIR/check.out"
field() { sed -n "s/^$1 //p" "$T_DIR/check.out"; }
check "it holds the pane's output" sh -c 'field() { sed -n "s/^$1 //p" "$2"; }; field OUT "$1" | grep -q "REC-OUTPUT-1.*REC-DONE"' _ "$T_DIR/check.out"
check "invalid UTF-8 became U+FFFD, valid kept" sh -c 'sed -n "s/^OUT //p" "$1" | grep -qF "bad \\ufffd\\ufffd utf8 \\u20ac ok"' _ "$T_DIR/check.out"
check "a character cut between two reads is held and kept whole" \
	sh -c 'sed -n "s/^OUT //p" "$1" | grep -qF "cut \\u20ac whole"' _ "$T_DIR/check.out"
check "a cut start that never completes is U+FFFD" \
	sh -c 'sed -n "s/^OUT //p" "$1" | grep -qF "lone \\ufffd\\ufffdx"' _ "$T_DIR/check.out"
check "the crafted line is output, not an event" \
	sh -c 'sed -n "s/^OUT //p" "$1" | grep -qF "forged" && ! sed -n "s/^MARKS //p" "$1" | grep -q forged' _ "$T_DIR/check.out"
want="[\"file-read* $H/.ssh/id_test\", \"file-write* /usr/sandmux-record-test\", \"file-read* $H/.aws/credentials\"]"
check "one marker per violation, in order: $(field MARKS)" [ "$(field MARKS)" = "$want" ]
check "... the same as the log's violations of the pane" [ "$(field MARKS)" = "$(field WANT)" ]

if command -v asciinema >/dev/null 2>&1; then
	script -qec "asciinema cat '$CAST'" /dev/null >"$T_DIR/cat.out" 2>&1
	check "asciinema cat reads it" sh -c 'grep -q REC-OUTPUT-1 "$1" && grep -q REC-DONE "$1" && ! grep -q Traceback "$1"' _ "$T_DIR/cat.out"
else
	not_ok "asciinema is installed (sh tests/deps.sh)"
fi

# --- relative paths, and the end of a pane -----------------------------------------------
(cd "$REC" && sm record -t "%$id2" rel.cast >/dev/null 2>&1)
check "a relative FILE is the caller's, not the server's" [ -f "$REC/rel.cast" ]
sm kill-pane -t "%$id2" >/dev/null 2>&1
out=$(sm record -t "%$id" "$REC/again.cast" 2>&1)
check "after --stop the pane can be recorded again ($out)" [ -f "$REC/again.cast" ]
sm kill-pane -t "%$id" >/dev/null 2>&1
# The recording ends with its pane: once ls no longer lists it.
wait_for 5 eval '! sm ls 2>/dev/null | grep -q "%$id "'
check "a killed pane's recording is whole JSON lines" \
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$REC/again.cast"
finish
