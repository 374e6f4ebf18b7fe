#!/bin/sh
# The guest's own refusals as violations (issue 26): a read under a root
# the guest masks and a write to a path it binds read-only stop in the
# guest kernel, where the host's servers never see them; the guest agent
# reports each on its control port (agent.c, watch_install) and the
# host records it as a violation of the pane with "source":"guest".
# Then the host's parsing of those lines against a hostile guest: a
# qemu stand-in that, once labelled, sends forged and malformed reports.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
# Outside /tmp, which is private in the guest.
BASE=$(mktemp -d /var/tmp/sandmux-guest-report.XXXXXX)
trap 'cleanup; rm -rf "$BASE"' EXIT
HOME=$BASE/home
export HOME SANDMUX_MICROVM_PREPARE=0
P=$BASE/proj
mkdir -p "$HOME/.ssh" "$P/release"
echo "secret-$$" >"$HOME/.ssh/id_test"
echo "notes-$$" >"$P/release/notes"
mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<EOF
{"profiles": {"guarded": {"protected_paths": ["$P/release"]}}}
EOF
cd "$P" || exit 1

sm new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
vm=$(split_vm --profile guarded -- $BASH_CMD)
wait_ready "$vm"
if ! is_ready "$vm"; then
	not_ok "the pane runs in a microvm ($(field "$vm" 'p.get("reason", "")'))"
	finish
fi
ok "the pane runs in a microvm"
# guest_event PANE ACTION TARGET: a violation of PANE from the guest in
# sandmux events --json.
guest_event() {
	sm events --json 2>/dev/null | grep '"kind":"violation"' | grep "\"pane\":$1," |
		grep '"backend":"microvm"' | grep '"source":"guest"' | grep -F "\"action\":\"$2\"" |
		grep -qF "\"target\":\"$3\""
}
out=$(run "$vm" R "cat $HOME/.ssh/id_test")
check "a read under a root the guest masks is refused in the guest ($out)" \
	sh -c "echo '$out' | grep -q 'Permission denied' && ! echo '$out' | grep -q secret-$$"
check "and is a violation with source guest within 1 s" \
	wait_for 1 guest_event "$vm" 'file-read*' "$HOME/.ssh/id_test"
out=$(run "$vm" L "cd $HOME && ls .ssh; cat .ssh/other")
both_reported() {
	guest_event "$vm" 'file-read*' "$HOME/.ssh" && guest_event "$vm" 'file-read*' "$HOME/.ssh/other"
}
check "a listing of it and a read spelled relative, too ($out)" wait_for 1 both_reported
# A path longer than a kilobyte is reported whole, never cut to a
# shorter one (which would name another file).
LONG=$HOME/.ssh/$(printf '%0200d/' 1 2 3 4 5 6 7 | tr 0 a)key
out=$(run "$vm" G "cat $LONG")
# The events log cuts a target at 1 KiB and says how long it was.
long_reported() {
	sm events --json 2>/dev/null | grep '"source":"guest"' | grep "\"pane\":$vm," |
		grep -F "\"target\":\"$(echo "$LONG" | cut -c1-1000)" | grep -q "\"target_cut\":${#LONG}"
}
check "a long path under it is reported whole (${#LONG} bytes)" wait_for 1 long_reported
out=$(run "$vm" W "tee -a $P/release/notes </dev/null")
check "a write to a path the guest binds read-only is refused ($out)" \
	sh -c "echo '$out' | grep -q 'Read-only file system' && [ \"\$(cat '$P/release/notes')\" = notes-$$ ]"
check "and is a violation with source guest within 1 s" \
	wait_for 1 guest_event "$vm" 'file-write*' "$P/release/notes"
out=$(run "$vm" N "echo ok >$P/plain && cat $P/plain $P/release/notes")
check "what the policy allows is untouched: a new file, a read of the read-only one ($out)" \
	[ "$out" = "oknotes-$$" ]
check "nothing from the guest about them" \
	sh -c "! sm events --json 2>/dev/null | grep '\"source\":\"guest\"' | grep -q -e '$P/plain' -e '\"file-read\\*\",\"target\":\"$P/release'"
counted() { [ "$(field "$vm" 'p["violations"]')" -ge 5 ]; }
check "the pane's count has them ($(field "$vm" 'p["violations"]'))" wait_for 1 counted
sm kill-server >/dev/null 2>&1

# --- a hostile guest's reports -----------------------------------------------
# A qemu stand-in answering this launch's nonce (as microvm.sh's), then
# writing report lines on the control channel: the guest says anything.
STANDIN=$T_DIR/standin
mkdir -p "$STANDIN"
cat >"$STANDIN/qemu-system-x86_64" <<'STANDIN'
#!/usr/bin/python3
import os, sys, time
if sys.argv[1:2] == ["--version"]:
    print("QEMU emulator version 7.2.0")
    sys.exit(0)
ctl = [int(a.split("fd=")[1]) for a in sys.argv if a.startswith("socket,id=ctl,fd=")][0]
launch = b""
while b"\ngo\n" not in launch:
    chunk = os.read(ctl, 65536)
    if not chunk:
        sys.exit(1)
    launch += chunk
nonce = [l[6:].decode() for l in launch.split(b"\n") if l.startswith(b"nonce ")][0]
os.write(ctl, b"booted\nready %s 1\n" % nonce.encode())
time.sleep(1)
os.write(ctl, b"violation file-read* /forged/plain\n"
    b"violation network-outbound 1.2.3.4:80\n"
    b"violation file-write-create /forged/action\n"
    b"violation file-read* relative/path\n"
    b"violation file-read* /forged/nul%00x\n"
    b"violation file-read* /forged/esc%1B]52;c;x%07%0A\x1b[2J\n"
    b"violation file-read* /forged/long/" + b"a" * 20000 + b"\n"
    b"violation file-read* /forged/after {\"pane\":99,\"backend\":\"native\",\"source\":\"host\"}\n")
time.sleep(86400)
STANDIN
chmod +x "$STANDIN/qemu-system-x86_64"
T_NAME="t$$-hostile"
# A log of its own: only this server's events.
export XDG_STATE_HOME="$T_DIR/state-hostile"
mkdir -p "$XDG_STATE_HOME"
env PATH="$STANDIN:$PATH" SANDMUX_MICROVM_ACCEL=tcg "$SANDMUX_BIN" -L "$T_NAME" new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null
p=$(env PATH="$STANDIN:$PATH" "$SANDMUX_BIN" -L "$T_NAME" split -t v -v --backend microvm -- /bin/sh |
	sed -n 's/.*%\([0-9]*\).*/\1/p')
wait_for 20 is_ready "$p"
violations() { sm events --json 2>/dev/null | grep '"kind":"violation"'; }
guest_lines() { violations | grep '"source":"guest"'; }
has_after() { guest_lines | grep -q '/forged/after'; }
wait_for 10 has_after
echo "# guest reports recorded: $(guest_lines | wc -l)"
plain_recorded() {
	guest_lines | grep '"target":"/forged/plain"' | grep "\"pane\":$p," | grep -q '"backend":"microvm"'
}
check "a well-formed report is recorded for the pane, backend microvm, source guest" plain_recorded
no_other_action() { ! violations | grep -q -e '1.2.3.4:80' -e '/forged/action'; }
check "no action the guest's policy cannot give (network-outbound, file-write-create)" no_other_action
no_malformed() { ! violations | grep -q -e 'relative/path' -e '/forged/nul' -e 'aaaaaaaaaa'; }
check "no relative path, no NUL, no overlong line" no_malformed
esc_shown() { violations | grep -qF '/forged/esc?]52;c;x???[2J' && ! violations | grep -q "$(printf '\033')"; }
check "control bytes arrive as ?, never raw" esc_shown
forged_is_text() {
	[ "$(guest_lines | grep '/forged/after' | grep -c "\"pane\":$p,")" = 1 ] &&
		! violations | grep -q -e '"pane":99' -e '"backend":"native"'
}
check "a report that names another pane, backend or source stays text in its target" forged_is_text
sm kill-server >/dev/null 2>&1
finish
