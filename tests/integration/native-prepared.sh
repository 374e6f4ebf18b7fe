#!/bin/sh
# The prepared sandbox (backends/native.c): after a native pane starts,
# the server builds the next native sandbox like it ahead of time, and a
# launch that would build exactly that sandbox takes it over.  Checked
# with the real server and bwrap, as root and as uid 65534:
#   - the next pane runs in the prepared sandbox (its pid is the waiting
#     bwrap's), with its own command, environment, working directory and
#     size, labelled native, secrets still denied, the host read-only;
#   - a pane in another directory, or after ~/.ssh appeared, does not
#     take it (it starts cold and the mask is there);
#   - a prepared sandbox killed from outside is noticed: the next pane
#     starts cold and is native;
#   - kill-server leaves no prepared sandbox behind;
#   - SANDMUX_NATIVE_PREPARE=0 prepares nothing.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start prepared bwrap setpriv

as_who() { $AS "$@"; }
last_pane() { sm ls --json | awk '$1 == "\"id\":" { v = $2; sub(/,$/, "", v); print v }' | sort -n | tail -1; }
state_is() { [ "$(pane_field "$1" state)" = "$2" ]; }

for who in root nobody; do
	ctx "p-$who" "$who"
	as_who mkdir -p "$D/keys" "$D/other"
	as_who sh -c "echo $who-secret >'$D/keys/id_demo'"
	sm new -d -s s -x 100 -y 30 --backend native -c "$D/work" -- sh >/dev/null
	SRV=$(server_pid)
	wait_for 10 state_is 1 warm
	# Generous deadlines: a sanitizer build on a loaded host may take
	# seconds to build a sandbox; a passing wait returns at once.
	if wait_for 20 has_waiting; then
		ok "$who: after a native pane, a sandbox waits for the next one"
	else
		not_ok "$who: after a native pane, a sandbox waits for the next one"
	fi
	prepared=$(waiting_bwrap)

	sm split -t %1 -v --backend native -c "$D/work" -e MARK=prep-$who -- \
		sh -c 'echo "env=$MARK cwd=$(pwd) size=$(stty size)"; cat ~/.ssh/id 2>&1; \
			echo x >/etc/sandmux-prepared 2>&1; echo done-$$; exec sleep 100' >/dev/null
	p=$(last_pane)
	wait_for 10 capture_has "%$p" "done-"
	check "$who: the next pane took the prepared sandbox" \
		[ -n "$prepared" ] && [ "$(pane_field "$p" pid)" = "$prepared" ]
	check "$who: it is labelled native" [ "$(pane_field "$p" backend)" = native ]
	check "$who: its command got its own environment" capture_has "%$p" "env=prep-$who"
	check "$who: its working directory" capture_has "%$p" "cwd=$D/work"
	check "$who: its size (not the prepared 24x80)" \
		capture_has "%$p" "size=$(pane_field "$p" rows) $(pane_field "$p" cols)"
	check "$who: the host stays read-only" capture_has "%$p" "Read-only file system"
	wait_for 20 has_waiting
	check "$who: another sandbox is prepared after it" \
		[ -n "$(waiting_bwrap)" ] && [ "$(waiting_bwrap)" != "$prepared" ]

	# ~/.ssh appears after the sandbox was prepared: the prepared one has
	# no mask there, so it must not be used.
	prepared=$(waiting_bwrap)
	as_who ln -s "$D/keys" "$D/home/.ssh"
	sm split -t %1 -h --backend native -c "$D/work" -- \
		sh -c 'cat ~/.ssh/id_demo 2>&1; echo done-$$; exec sleep 100' >/dev/null
	p=$(last_pane)
	wait_for 10 capture_has "%$p" "done-"
	check "$who: after ~/.ssh appeared, the prepared sandbox is not used" \
		[ "$(pane_field "$p" pid)" != "$prepared" ]
	check "$who: and the new ~/.ssh is denied" capture_has "%$p" "Permission denied"
	if capture_has "%$p" "$who-secret"; then
		not_ok "$who: the secret stays unread"
	else
		ok "$who: the secret stays unread"
	fi
	# Thrown away when the next one is prepared, 100 ms after this pane
	# is confirmed.
	check "$who: the unfit sandbox is gone" wait_for 5 \
		sh -c "! kill -0 $prepared 2>/dev/null || [ \"\$(ps -o stat= -p $prepared)\" = Z ]"

	# Another directory: cold, writable there.
	wait_for 20 has_waiting
	prepared=$(waiting_bwrap)
	sm split -t %1 -h --backend native -c "$D/other" -- \
		sh -c 'echo w >"$PWD/written" && echo wrote-$$; exec sleep 100' >/dev/null
	p=$(last_pane)
	wait_for 10 capture_has "%$p" "wrote-"
	check "$who: a pane in another directory starts cold" \
		[ "$(pane_field "$p" pid)" != "$prepared" ]
	check "$who: and its directory is the writable one" [ -f "$D/other/written" ]

	# Killed from outside while waiting: the next pane notices, starts
	# cold, and is native.
	wait_for 20 has_waiting
	prepared=$(waiting_bwrap)
	kill -9 "$prepared" 2>/dev/null
	wait_for 5 dead "$prepared"
	sm split -t %1 -v --backend native -c "$D/other" -- sh -c 'echo alive-$$; exec sleep 100' >/dev/null
	p=$(last_pane)
	wait_for 10 capture_has "%$p" "alive-"
	wait_for 10 state_is "$p" warm
	check "$who: a prepared sandbox killed from outside is not used" \
		[ "$(pane_field "$p" pid)" != "$prepared" ]
	check "$who: the pane after it is native" [ "$(pane_field "$p" backend)" = native ]

	wait_for 20 has_waiting
	prepared=$(waiting_bwrap)
	sm kill-server >/dev/null 2>&1
	check "$who: kill-server leaves no prepared sandbox" wait_for 10 dead "$prepared"
done

ctx p-off root "" SANDMUX_NATIVE_PREPARE=0
sm new -d -s s --backend native -c "$D/work" -- sh >/dev/null
SRV=$(server_pid)
wait_for 10 state_is 1 warm
# Nothing to wait on: the check is that nothing comes.  A prepared
# sandbox starts 100 ms (PREPARE_DELAY_MS, src/pane.c) after a pane is
# confirmed; on a loaded host the half second may be too short to see
# one, so this check can pass wrongly there, never fail wrongly.
sleep 0.5
check "SANDMUX_NATIVE_PREPARE=0: nothing is prepared" [ -z "$(waiting_bwrap)" ]
finish
