#!/bin/sh
# The microvm guest's user (issue 26): the pane's shell runs as uid and
# gid 1000 in the guest, never as the server's uid, for a server run as
# root and as uid 65534 alike; the work tree still reads as its own and
# what it writes there is the server's on the host (each share's diod
# runs in a user namespace where the server's ids are 1000: microvm.c,
# guest_ids_argv).  The guest's /etc/passwd names it; /proc/sys is not
# its to write.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../microvm-lib.sh"
for tool in bwrap setpriv; do
	command -v $tool >/dev/null || { ok "# skip: no $tool"; finish; }
done
# Outside /tmp, which is private in the guest.
W=$(mktemp -d /var/tmp/sandmux-uid.XXXXXX)
chmod 755 "$W"
trap 'for who in root nobody; do as_server $who kill-server >/dev/null 2>&1; done; cleanup; rm -rf "$W"' EXIT
export SANDMUX_MICROVM_PREPARE=0

# as_server WHO ARGS...: the CLI against WHO's server (root or nobody,
# uid 65534), each with its own HOME, XDG dirs and work tree under $W.
as_server() {
	who=$1
	shift
	as=""
	[ "$who" = nobody ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	env HOME="$W/$who/home" XDG_RUNTIME_DIR="$W/$who/run" XDG_STATE_HOME="$W/$who/state" \
		XDG_CONFIG_HOME="$W/$who/config" $as "$SANDMUX_BIN" -L "$T_NAME-$who" "$@"
}

for who in root nobody; do
	mkdir -p "$W/$who/home" "$W/$who/run" "$W/$who/state" "$W/$who/config" "$W/$who/work"
	chmod 700 "$W/$who/run"
	echo "private-$who-$$" >"$W/$who/home/private"
	chmod 600 "$W/$who/home/private"
	[ "$who" = nobody ] && chown -R 65534:65534 "$W/$who"
	(cd "$W/$who/work" && as_server $who new -d -s v -x 200 -y 60 -- /bin/sh >/dev/null)
done
# Both guests boot at once (seconds each under TCG).
for who in root nobody; do
	pane=$(cd "$W/$who/work" && as_server $who split -t v -v --backend microvm -- $BASH_CMD |
		sed -n 's/.*%\([0-9]*\).*/\1/p')
	eval "pane_$who=\$pane"
done

for who in root nobody; do
	# microvm-lib.sh's helpers talk to this server through sm.
	sm() { as_server "$who" "$@"; }
	eval "vm=\$pane_$who"
	uid=$(id -u root)
	[ "$who" = nobody ] && uid=65534
	wait_ready "$vm"
	if ! is_ready "$vm"; then
		not_ok "$who server: the pane runs in a microvm ($(field "$vm" 'p.get("reason", "")'))"
		continue
	fi
	ok "$who server: the pane runs in a microvm"
	out=$(run "$vm" U 'echo $(id -u) $(id -g) $(id -un)')
	check "$who server: the shell's uid and gid in the guest are 1000, named ($out)" \
		[ "$out" = "1000 1000 sandmux" ]
	out=$(run "$vm" C "grep CapEff /proc/self/status")
	check "$who server: with no capability ($out)" sh -c "echo '$out' | grep -q 'CapEff:.*0000000000000000'"
	work=$W/$who/work
	out=$(run "$vm" W "echo guest-$$ >$work/made && mkdir $work/dir && echo x >$work/dir/f && stat -c '%u %g' $work/made")
	check "$who server: the work tree is the shell's own in the guest ($out)" [ "$out" = "1000 1000" ]
	check "$who server: what it made there is the server's uid on the host ($(stat -c '%u:%g' "$work/made" "$work/dir/f" 2>&1 | tr '\n' ' '))" \
		sh -c "[ \"\$(stat -c %u '$work/made' '$work/dir' '$work/dir/f' | sort -u)\" = $uid ] && grep -qx guest-$$ '$work/made'"
	out=$(run "$vm" H "cat $W/$who/home/private")
	check "$who server: the server's own 0600 file outside the work tree is readable ($out)" \
		[ "$out" = "private-$who-$$" ]
	out=$(run "$vm" E "echo x >$W/$who/home/written || echo refused")
	check "$who server: and read-only ($out)" \
		sh -c "echo '$out' | grep -q refused && [ ! -e '$W/$who/home/written' ]"
	out=$(run "$vm" K "echo '|/bin/sh -c id' >/proc/sys/kernel/core_pattern && echo set; echo 1 >/proc/sys/kernel/sysrq && echo set; cat /proc/sys/kernel/core_pattern")
	check "$who server: the shell cannot write /proc/sys ($out)" \
		sh -c "! echo '$out' | grep -q set && [ \"\$(echo '$out' | tail -n 1)\" = core ]"
	out=$(run "$vm" R "touch /etc/sandmux-uid-$$ && echo made")
	check "$who server: nor write the host's /etc ($out)" \
		sh -c "! echo '$out' | grep -q made && [ ! -e /etc/sandmux-uid-$$ ]"
	as_server $who kill-server >/dev/null 2>&1
done
finish
