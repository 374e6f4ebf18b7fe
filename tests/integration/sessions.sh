#!/bin/sh
# Sessions that survive the server (docs/sessions.md), with real servers
# and the real bubblewrap: a session of three windows with splits, none
# and native panes in different directories and a program that is not a
# shell (vi) and a floating pane is saved, its server killed with -9,
# and restored: layout (the floating pane's box too),
# directories, labels and backends equal; vi not run again without a
# yes, its last screen shown above the line that says so.  Then: the
# save on kill-server and every interval; a stored "docker" restored as
# native with the line saying so (and null as none); a stored native on
# a host without bwrap, and a stored microvm without its image, restored
# FAILED (never none); a truncated file, an unknown version and a bad
# field refused with the reason and nothing running touched; save
# --layout and new --layout; and a native pane that can neither read nor
# write the stored sessions, as root and as uid 65534.
. "$(dirname "$0")/../lib.sh"

for tool in bwrap socat python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (apt-get install bubblewrap socat python3)"
		finish
	fi
done
# Outside /tmp: a native pane has a private /tmp, and its directory must
# be the same path inside and out.
W=$(mktemp -d /var/tmp/sandmux-sessions.XXXXXX)
chmod 755 "$W"
mkdir -p "$W/a" "$W/b" "$W/c" "$W/bin-empty"
printf 'first line of notes\n' >"$W/notes.txt"
# The state directory where a native pane could see it if it were not
# masked (lib.sh's is under /tmp, which a native pane has its own of).
export XDG_STATE_HOME="$W/state"
STORE="$XDG_STATE_HOME/sandmux/sessions"
cleanup_all() {
	sm kill-server >/dev/null 2>&1
	rm -rf "$W"
	cleanup
}
trap cleanup_all EXIT

has() { printf '%s\n' "$1" | grep -qF -- "$2"; }
field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
# The oldest of that name: the server's probe children (forks of it,
# beside its first requests) carry its command line for a moment.
server_pid() { pgrep -o -f "sandmux -L $T_NAME server\$"; }
# No server process of this test's name is left (its socket goes first).
server_gone() { ! pgrep -f "sandmux -L $T_NAME server\$" >/dev/null; }
# The session's shape, pane ids aside: per window, its panes by place,
# each with its size, label, requested backend and directory.
shape() {
	sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] != sys.argv[1]:
        continue
    for w in s["windows"]:
        print("window", w["index"])
        for p in sorted(w["panes"], key=lambda p: (p["y"], p["x"])):
            print(" ", p["x"], p["y"], p["cols"], p["rows"], p["backend"],
                  p["requested"], p["state"], p["current_path"],
                  json.dumps(p.get("float"), sort_keys=True))
' "$1"
}
pane_of() { # pane_of SESSION WINDOW-INDEX Nth(by place): its id
	sm ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["name"] == sys.argv[1]:
        w = [w for w in s["windows"] if w["index"] == int(sys.argv[2])][0]
        print(sorted(w["panes"], key=lambda p: (p["y"], p["x"]))[int(sys.argv[3])]["id"])
' "$@"
}
warm() { field_is "$1" state warm; }
is_floating() { # is_floating ID: the pane is a floating one
	sm ls --json | python3 -c '
import json, sys
panes = [p for s in json.load(sys.stdin)["sessions"] for w in s["windows"] for p in w["panes"]]
sys.exit(0 if any(p["id"] == int(sys.argv[1]) and "float" in p for p in panes) else 1)' "$1"
}

# --- a session of three windows --------------------------------------------
sm new -d -s work -x 160 -y 48 -c "$W/a" >/dev/null
sm split -t %1 -h -l 40 -b native -c "$W/b" >/dev/null
sm rename-window -t %1 edit
sm new-window -t work -c "$W/b" -- vi "$W/notes.txt" >/dev/null
sm split -t %3 -v -l 30 -c "$W/c" >/dev/null
sm new-window -t work -c "$W/c" >/dev/null
sm split -t %5 -h -l 50 -b native -c "$W/a" >/dev/null
sm split -t %6 -v -l 50 -c "$W/b" >/dev/null
# A floating pane over the vi window, below its first pane's top.
sm split --float -t %3 -w 50 --height 12 -x 30 -y 6 -c "$W/c" >/dev/null
for p in 1 2 3 4 5 6 7 8; do wait_for 10 warm "$p"; done
check "vi shows the notes" wait_for 10 capture_has %3 "first line of notes"
before=$(shape work)
check "the session has three windows and eight panes" \
	test "$(printf '%s\n' "$before" | grep -c '^window')" = 3
check "... one of them floating" test "$(printf '%s\n' "$before" | grep -c '"x": 30, "y": 6')" = 1

out=$(sm save 2>&1)
check "save stores the session in the state directory" has "$out" "$STORE/work.json"
check "the stored file is private (0600)" test "$(stat -c %a "$STORE/work.json")" = 600
cp "$STORE/work.json" "$W/work.json"
check "the stored file has the floating pane with its box" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["windows"][1]
f = w["floating"][0]
sys.exit(0 if (f["x"], f["y"], f["width"], f["height"], f["cwd"]) == (30, 6, 50, 12, sys.argv[2]) else 1)' "$W/work.json" "$W/c"

# --- a native pane can neither read nor write the store --------------------
sm send-keys -t %2 "cat $STORE/work.json >/dev/null; echo R=\$?; ls $STORE; echo L=\$?" Enter
check "a native pane cannot read a stored session" wait_for 10 capture_has %2 "R=1"
check "... refused, not absent (Permission denied)" \
	sh -c "$SANDMUX_BIN -L $T_NAME capture -t %2 | grep -q 'Permission denied' &&
		! $SANDMUX_BIN -L $T_NAME capture -t %2 | grep -q 'No such file'"
check "a native pane cannot list the sessions directory" wait_for 10 capture_has %2 "L=2"
sm send-keys -t %2 "echo '{}' > $STORE/evil.json; echo W=\$?" Enter
check "a native pane's write to the store fails" wait_for 10 sh -c "$SANDMUX_BIN -L $T_NAME capture -t %2 | grep -q 'W=[1-9]'"
check "nothing was written into the store" test ! -e "$STORE/evil.json"

# --- killed with -9, restored ------------------------------------------------
pid=$(server_pid)
kill -9 "$pid"
wait_for 5 sh -c "! kill -0 $pid"
out=$(sm restore -d work 2>&1)
rc=$?
check "restore after kill -9 succeeds" test "$rc" = 0
check "restore says commands were not run again without a terminal" \
	has "$out" "commands other than shells are not run again"
for p in 1 2 3 4 5 6 7 8; do wait_for 10 warm "$p"; done
after=$(shape work)
check "layout, directories, labels and backends are equal after restore" \
	test "$before" = "$after"
[ "$before" = "$after" ] || printf '# before:\n%s\n# after:\n%s\n' "$before" "$after"
check "the renamed window keeps its name" sh -c "$SANDMUX_BIN -L $T_NAME list-windows -t work | grep -q edit"
vi_pane=$(pane_of work 1 0)
check "the vi pane shows its last screen" capture_has "%$vi_pane" "first line of notes"
check "below it, the line saying it was restored and not run again" \
	capture_has "%$vi_pane" "restored; this pane ran: vi $W/notes.txt (not run again)"
sm send-keys -t "%$vi_pane" 'echo S=$$' Enter
check "the restored pane runs a shell" wait_for 10 capture_has "%$vi_pane" "S="
out=$(sm restore -d work 2>&1)
check "restoring a running session is refused" has "$out" "session work is running; nothing restored"

# With --rerun all (the yes of the prompt for every pane), vi runs.
out=$(sm restore --rerun all -d -s again "$W/work.json" 2>&1)
check "restore FILE -s NAME --rerun all succeeds" test "$?" = 0
again_vi=$(pane_of again 1 0)
check "the command runs again when the user said so" \
	wait_for 10 sh -c "$SANDMUX_BIN -L $T_NAME ls >/dev/null; case \$(cat /proc/\$1/comm) in vi*) ;; *) exit 1;; esac" _ "$(pane_field "$again_vi" pid)"
check "and no restored line is shown for it" sh -c "! $SANDMUX_BIN -L $T_NAME capture -t %$again_vi | grep -q 'not run again'"
sm kill-session -t again

# --- what restore reads leniently, and what it refuses -----------------------
sed 's/"backend":[[:space:]]*"native"/"backend": "docker"/' "$W/work.json" >"$W/docker.json"
out=$(sm restore --rerun none -d -s dock "$W/docker.json" 2>&1)
check "a stored docker backend is said to be read as native" \
	has "$out" 'backend "docker" read as native'
dock=$(pane_of dock 0 1)
check "a stored docker pane comes back native" wait_for 10 field_is "$dock" backend native
sm kill-session -t dock
sed 's/"backend":[[:space:]]*"native"/"backend": null/' "$W/work.json" >"$W/null.json"
out=$(sm restore --rerun none -d -s nul "$W/null.json" 2>&1)
check "a stored null backend is said to be read as none" \
	has "$out" 'windows[0].panes[1]: backend null or not given read as none'
check "a stored null pane comes back none" wait_for 10 field_is "$(pane_of nul 0 1)" backend none
sm kill-session -t nul

before_all=$(sm ls)
head -c 300 "$W/work.json" >"$W/truncated.json"
out=$(sm restore -d -s cut "$W/truncated.json" 2>&1)
rc=$?
check "a truncated file is refused" test "$rc" = 1
check "with the reason: not valid JSON where it ends, truncated" \
	sh -c 'printf "%s" "$1" | grep -q "truncated.json: [(]file): not valid JSON at byte [0-9]* of 300 (truncated) (layout_invalid)"' _ "$out"
sed 's/"version":[[:space:]]*2/"version": 3/' "$W/work.json" >"$W/v3.json"
out=$(sm restore -d -s v3 "$W/v3.json" 2>&1)
check "an unknown version is a clear error" has "$out" "unknown version 3 (this sandmux reads versions 1 to 2) (unknown_version)"
# Version 1 (before floating panes) is read as it was; floating panes
# in it are no version 1 key.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["version"] = 1
d["windows"][1].pop("floating")
json.dump(d, open(sys.argv[2], "w"))
d["windows"][0]["floating"] = []
json.dump(d, open(sys.argv[3], "w"))' "$W/work.json" "$W/v1.json" "$W/v1-float.json"
out=$(sm restore --rerun none -d -s v1 "$W/v1.json" 2>&1)
check "a version 1 file is still restored" test "$?" = 0
sm kill-session -t v1 >/dev/null 2>&1
out=$(sm restore -d -s v1f "$W/v1-float.json" 2>&1)
check "... and floating panes in it refused by name" has "$out" "windows[0].floating: unknown key"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["windows"][1]["floating"][0]["width"] = 0
json.dump(d, open(sys.argv[2], "w"))' "$W/work.json" "$W/badfloat.json"
out=$(sm restore -d -s badf "$W/badfloat.json" 2>&1)
check "a floating pane's bad box is refused with its name" has "$out" "windows[1].floating[0].width: must be a whole number from 1 to 1000"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["windows"][2]["panes"][1]["size"] = "big"
json.dump(d, open(sys.argv[2], "w"))' "$W/work.json" "$W/badsize.json"
out=$(sm restore -d -s bad "$W/badsize.json" 2>&1)
check "a bad field is refused with its name" has "$out" "windows[2].panes[1].size: must be a percentage from 1 to 99"
check "nothing running was touched by the refusals" test "$before_all" = "$(sm ls)"

# A directory that is gone: a host pane opens in $HOME and says so; a
# native pane is FAILED with the reason (its directory is its work tree).
printf '{"version": 1, "session": "gone", "windows": [{"panes": [{"cwd": "%s"}, {"split": "h", "backend": "native", "cwd": "%s"}]}]}\n' \
	"$W/gone" "$W/gone" >"$W/gone.json"
out=$(HOME="$W/a" "$SANDMUX_BIN" -L "$T_NAME" restore -d "$W/gone.json" 2>&1)
check "a host pane whose directory is gone is said to open in \$HOME" \
	has "$out" "windows[0].panes[0]: directory $W/gone is gone; opening in $W/a"
check "... and runs there" wait_for 10 field_is "$(pane_of gone 0 0)" current_path "$W/a"
check "a native pane whose directory is gone is FAILED, not moved" \
	wait_for 10 field_is "$(pane_of gone 0 1)" state error
sm kill-session -t gone

# --- a stored native on a host without bwrap: FAILED, never none -------------
sm kill-server >/dev/null 2>&1
wait_for 10 server_gone
out=$(PATH="$W/bin-empty" "$SANDMUX_BIN" -L "$T_NAME" restore --rerun none -d "$W/work.json" 2>&1)
rc=$?
check "restore without bwrap exits 1 and says a pane FAILED" sh -c "[ $rc = 1 ] && printf '%s' '$out' | grep -q FAILED"
nat=$(pane_of work 0 1)
check "the stored native pane is FAILED (state error)" field_is "$nat" state error
check "its backend is no label, never none" field_is "$nat" backend null
check "it still asked for native" field_is "$nat" requested native
check "the none panes beside it run" wait_for 10 warm "$(pane_of work 0 0)"

# A stored microvm with no guest image here: FAILED too, never native or none.
sm kill-server >/dev/null 2>&1
wait_for 10 server_gone
mkdir -p "$W/no-image"
sed 's/"backend":[[:space:]]*"native"/"backend": "microvm"/' "$W/work.json" >"$W/vm.json"
SANDMUX_MICROVM_DIR="$W/no-image" "$SANDMUX_BIN" -L "$T_NAME" restore --rerun none -d "$W/vm.json" >/dev/null 2>&1
vm=$(pane_of work 0 1)
check "a stored microvm without its image is FAILED" wait_for 30 field_is "$vm" state error
check "... asked for microvm, wearing no label" \
	sh -c '[ "$1" = microvm ] && [ "$2" = null ]' _ "$(pane_field "$vm" requested)" "$(pane_field "$vm" backend)"

# --- kill-server saves; so does the interval ---------------------------------
sm kill-server >/dev/null 2>&1
rm -f "$STORE"/*.json
wait_for 10 server_gone
sm new -d -s ks -c "$W/c" >/dev/null
sm kill-server >/dev/null 2>&1
check "kill-server saves every session" wait_for 5 test -s "$STORE/ks.json"
check "the saved file is a version 2 session file" grep -q '"version":[[:space:]]*2' "$STORE/ks.json"
wait_for 10 server_gone
sm new -d -s term -c "$W/c" >/dev/null
pid=$(server_pid)
kill -TERM "$pid"
check "SIGTERM (a shutdown) saves every session too" wait_for 5 test -s "$STORE/term.json"
wait_for 5 sh -c "! kill -0 $pid"
out=$(sm restore </dev/null 2>&1)
check "restore alone, with several saved, lists them newest first" \
	sh -c 'printf "%s\n" "$1" | grep -q "^  1  term  1 window, 1 pane, saved " &&
		printf "%s\n" "$1" | grep -q "^  2  ks  1 window, 1 pane, saved "' _ "$out"
wait_for 10 server_gone
SANDMUX_SAVE_INTERVAL=1 "$SANDMUX_BIN" -L "$T_NAME" new -d -s tick -c "$W/a" >/dev/null
check "the server saves every interval" wait_for 10 test -s "$STORE/tick.json"
sm kill-session -t tick >/dev/null 2>&1
check "kill-session forgets the stored session" wait_for 5 test ! -e "$STORE/tick.json"

# --- layout files: save --layout, new --layout ------------------------------
sm new -d -s lay -x 120 -y 40 -c "$W/a" >/dev/null
sm split -t lay -h -l 30 -c "$W/b" -- /bin/sh >/dev/null
sm split -t lay --float -w 40 --height 10 -x 5 -y 3 -c "$W/c" >/dev/null
sm toggle-floating -t lay >/dev/null
sm save -t lay --layout "$W/lay.json"
check "save --layout writes the floating pane, hidden" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["windows"][0]
sys.exit(0 if w["floating_hidden"] and w["floating"][0]["x"] == 5 else 1)' "$W/lay.json"
check "save --layout writes no screens" sh -c "! grep -q '\"screen\"' '$W/lay.json'"
check "save --layout writes no saved time" sh -c "! grep -q '\"saved\"' '$W/lay.json'"
lay_shape=$(shape lay | tail -n +2)
sm new -d -s lay2 --layout "$W/lay.json" >/dev/null
check "new --layout FILE builds the same panes" test "$lay_shape" = "$(shape lay2 | tail -n +2)"
root=${SANDMUX_ROOT:-$(dirname "$0")/../..}
out=$(sm layout "$root/examples/layout-agent.json" 2>&1)
feed=$(pane_of agent 0 2)
check "the example agent workspace has the feed pane" \
	wait_for 10 capture_has "%$feed" "feed · agent"
check "... floating" is_floating "$feed"
sm kill-server >/dev/null 2>&1

# --- as root and as uid 65534: the store, a native pane, kill -9 -------------
. "$(dirname "$0")/../native-ctx.sh"
trap 'servers_kill; rm -rf "$W"; cleanup' EXIT
write_refused() { capture_has %2 "W=" && ! capture_has %2 "W=0"; }
for who in root nobody; do
	[ "$who" = nobody ] && [ "$(id -u)" -ne 0 ] && continue
	ctx "store-$who" "$who"
	store="$D/state/sandmux/sessions"
	sm new -d -s s -x 120 -y 40 -c "$D/work" >/dev/null
	sm split -t %1 -h -b native -c "$D/work" >/dev/null
	wait_for 10 warm 2
	sm save >/dev/null
	check "[$who] the session is stored" test -s "$store/s.json"
	sm send-keys -t %2 "cat $store/s.json >/dev/null; echo R=\$?; echo x >$store/new.json; echo W=\$?" Enter
	check "[$who] a native pane cannot read the store" wait_for 10 capture_has %2 "R=1"
	check "[$who] nor write into it" wait_for 10 write_refused
	check "[$who] nothing was written" test ! -e "$store/new.json"
	pid=$(pgrep -f "sandmux -L store-$who server" | head -1)
	kill -9 "$pid"
	wait_for 5 sh -c "! kill -0 $pid"
	sm restore -d s >/dev/null 2>&1
	check "[$who] restored after kill -9: the native pane is native" wait_for 10 field_is 2 backend native
	check "[$who] in its directory" field_is 2 current_path "$D/work"
	sm kill-server >/dev/null 2>&1
done
finish
