#!/bin/sh
# The probe's bwrap check runs beside the server's first requests.
#
# A bwrap stand-in holds the probe's `bwrap --version` until the test
# opens a gate (a file), so the order is forced, not raced: the first
# session, a `none` pane, is answered while the check is held; a native
# request made while it is held waits for it and gets the label the
# answer decides, native when bwrap works, FAILED (never a host shell)
# when the check says it cannot; the probe runs once (one --version, one
# startup line) whatever asks for it.
. "$(dirname "$0")/../lib.sh"

for tool in bwrap socat; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (apt-get install bubblewrap socat)"
		finish
	fi
done
REAL_BWRAP=$(command -v bwrap)
HOST_PATH=$PATH
# Outside /tmp: the sandbox has a private /tmp; the stand-in must be the
# same path inside and out.
W=$(mktemp -d /var/tmp/sandmux-probe-beside.XXXXXX)
chmod 755 "$W"
. "$(dirname "$0")/../native-ctx.sh"
cd "$W" || exit 1
trap 'servers_kill; rm -rf "$W" "$T_DIR"' EXIT

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
ls_has() { sm ls --json | grep -qF -- "$1"; }
# The stand-in: `--version` (the probe's first question) writes a mark,
# waits for the gate, then answers as $W/mode says; everything else is
# the real bwrap's.
mkdir -p "$W/bin"
cat >"$W/bin/bwrap" <<EOF
#!/bin/sh
if [ "\$*" = --version ]; then
	echo x >>"$W/versions"
	while [ ! -e "$W/gate" ]; do sleep 0.02; done
	[ "\$(cat "$W/mode")" = fail ] && exit 1
fi
exec $REAL_BWRAP "\$@"
EOF
chmod 755 "$W/bin/bwrap"
held() { [ -e "$W/versions" ] && [ ! -e "$W/gate" ]; }
new_pane() {
	sm split -t %1 -v -l 5 "$@" >/dev/null 2>&1
	sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1
}
startup_lines() { grep -c 'info sandbox: ' "$D/state/sandmux/server-$NAME.log"; }

for mode in pass fail; do
	rm -f "$W/gate" "$W/versions"
	echo "$mode" >"$W/mode"
	ctx "$mode" self "$W/bin:$HOST_PATH"
	sm new -d -s m -x 120 -y 40 -- /bin/sh >/dev/null
	check "$mode: the bwrap check has started" wait_for 5 test -e "$W/versions"
	check "$mode: the first session was answered while the check is held" held
	check "$mode: its pane runs on the host" field_is 1 backend none
	check "$mode: no startup line before the answer" [ "$(startup_lines)" -eq 0 ]

	# A native request made while the check is held waits for it: the
	# server is seen waiting on the check's process (wait4), then the
	# gate opens.
	spid=$(sm ctl '{"cmd":"hello","version":1}' | sed 's/.*"pid":\([0-9]*\).*/\1/')
	new_pane --backend native -- /bin/sh >"$W/native.$mode" &
	asker=$!
	check "$mode: the native request waits for the check" \
		wait_for 5 grep -q '^61 ' "/proc/$spid/syscall"
	check "$mode: the check is still held meanwhile" held
	touch "$W/gate"
	wait "$asker"
	p=$(cat "$W/native.$mode")
	if [ "$mode" = pass ]; then
		check "pass: the native request is labelled native" wait_for 10 field_is "$p" backend native
		check "pass: and it runs" wait_for 10 field_is "$p" state warm
	else
		check "fail: the native request is FAILED, never a host shell" \
			wait_for 10 field_is "$p" state error
		check "fail: with no label" field_is "$p" backend null
		check "fail: the reason is the probe's (--version failed)" ls_has 'version failed'
	fi
	check "$mode: the probe ran once (one --version)" [ "$(wc -l <"$W/versions")" -eq 1 ]
	sm probe >/dev/null
	new_pane --backend native -- /bin/sh >/dev/null
	check "$mode: one startup line, after more readers" [ "$(startup_lines)" -eq 1 ]
	check "$mode: still one --version" [ "$(wc -l <"$W/versions")" -eq 1 ]
	sm kill-server >/dev/null 2>&1
done
finish
