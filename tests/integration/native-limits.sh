#!/bin/sh
# A runaway native pane cannot take the host down (backends/sandbox-limits.c),
# with the real server and bwrap, as root (control groups) and as uid
# 65534 (control groups when the host delegates them, else rlimits):
#   - a bounded fork bomb (`:(){ :|:& };:` under timeout) in one pane
#     never has more processes than the profile's pids_max, while another
#     pane echoes keys and the server answers `ls` within 1 s;
#     afterwards the bomb's processes are gone and `ls` still answers
#     within 1 s; with a pids group, the refusals are a `killed` event
#     whose reason names the process limit, in the events log;
#   - a memory eater stops at memory_max (killed, with a `killed` event
#     naming the memory limit, or refused by RLIMIT_DATA);
#   - ls --json says which limits hold the pane and by what;
#   - the built-in terminal profile has limits too;
#   - kill-server leaves no control group behind.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start limits bwrap setpriv bash timeout

PIDS_MAX=64
pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
now_ms() { date +%s%3N; }
# ls_ms: how long `ls` takes, in ms
ls_ms() {
	t0=$(now_ms)
	sm ls >/dev/null 2>&1 || echo 99999
	echo $(($(now_ms) - t0))
}
# ns_count INIT: processes in the pid namespace whose init (bwrap's
# child) is INIT, counted from the host
ns_init() { pgrep -P "$(pane_field "$1" pid)" | head -1; }
ns_count() { n=$(pgrep --ns "$1" --nslist pid -c '' 2>/dev/null); echo "${n:-0}"; }
# bash_count INIT: bash processes in the namespace of INIT
bash_count() { n=$(pgrep --ns "$1" --nslist pid -c -x bash 2>/dev/null); echo "${n:-0}"; }
bomb_gone() { [ "$(bash_count "$1")" = 0 ]; }
killed_events() {
	grep '"kind":"killed"' "$D/state/sandmux/events.jsonl" 2>/dev/null | grep "\"pane\":$1," | grep -c "$2"
}
reason_in_ls() { sm ls 2>/dev/null | grep -qF "$1"; }
running() { [ "$(pane_field "$1" state)" = warm ] || [ "$(pane_field "$1" state)" = active ]; }
events_at_least() { [ "$(killed_events "$1" "$2")" -ge 1 ]; }
no_group_left() { [ "$(find /sys/fs/cgroup -maxdepth 5 -name "sandmux-$1" | wc -l)" = 0 ]; }
# mechanism PANE WHAT: what holds the pane's pids or memory
mechanism() { pane_json "$1" | sed -n "s/.*\"limits\":{[^}]*\"$2\":\"\([^\"]*\)\".*/\1/p"; }
# A sanitizer build sets no RLIMIT_DATA: "none (sanitizer build)", with or
# without the blanks pane_json may have taken out.
no_data_limit() { [ "$(mechanism "$1" memory | tr -d ' ')" = "none(sanitizerbuild)" ]; }

for who in root nobody; do
	ctx "l-$who" "$who"
	cat >"$D/config/sandmux/config.json" <<JSON
{ "profiles": { "bounded": { "pids_max": $PIDS_MAX, "memory_max": "64M" } } }
JSON
	[ "$who" = nobody ] && chown -R 65534:65534 "$D/config"

	echo_pane=$(sm new -d -s echo -x 80 -y 24 --backend native -c "$D/work" -- cat | pane_id)
	wait_for 20 running "$echo_pane"
	pane_json "$echo_pane" >"$T_DIR/$who-echo.json"
	check "$who: the terminal profile has a process limit (1024)" grep -q '"limits":{"pids_max":1024,' "$T_DIR/$who-echo.json"
	check "$who: ... and a memory limit" sh -c "grep -q '\"memory_max\":[1-9]' '$T_DIR/$who-echo.json'"

	bomb=$(sm new -d -s bomb -x 80 -y 24 --backend native --profile bounded -c "$D/work" -- \
		sh -c "timeout -s KILL 8 bash -c ':(){ :|:& };:; exec sleep 60' 2>/dev/null; echo BOMB-DONE; sleep 600" | pane_id)
	wait_for 20 running "$bomb"
	init=$(ns_init "$bomb")
	pane_json "$bomb" >"$T_DIR/$who-bomb.json"
	mech=$(mechanism "$bomb" pids)
	echo "# $who: pids held by ${mech:-?}"
	check "$who: ls --json names the limit and what holds it" \
		sh -c "grep -q '\"pids_max\":$PIDS_MAX,' '$T_DIR/$who-bomb.json' && [ -n '$mech' ]"
	max=0 slow=0 echoed=0 round=0
	while [ $round -lt 10 ]; do
		n=$(ns_count "$init")
		[ "$n" -gt "$max" ] && max=$n
		ms=$(ls_ms)
		[ "$ms" -gt "$slow" ] && slow=$ms
		sm send-keys -t "%$echo_pane" "key-$who-$round" Enter
		wait_for 3 capture_has "%$echo_pane" "key-$who-$round" && echoed=$((echoed + 1))
		# The rounds sample the bomb over time: the pause is the time under test.
		sleep 0.3
		round=$((round + 1))
	done
	echo "# $who: at most $max processes in the bomb's pane, ls took at most $slow ms, $echoed/10 keys echoed"
	check "$who: the bomb grew (it ran)" [ "$max" -gt 8 ]
	# The namespace's init, bwrap's pid 1, is not in the pids count.
	check "$who: the bomb never had more than pids_max processes ($max)" [ "$max" -le $((PIDS_MAX + 1)) ]
	check "$who: the server answered ls within 1 s during the bomb ($slow ms)" [ "$slow" -lt 1000 ]
	check "$who: the other pane echoed every key during the bomb" [ "$echoed" = 10 ]
	wait_for 30 capture_has "%$bomb" BOMB-DONE
	check "$who: the bomb's processes are gone after its timeout" wait_for 10 bomb_gone "$init"
	ms=$(ls_ms)
	check "$who: afterwards the server answers ls within 1 s ($ms ms)" [ "$ms" -lt 1000 ]
	# A bomb nobody stops: killing its pane ends it, group and all.
	wild=$(sm new -d -s wild -x 80 -y 24 --backend native --profile bounded -c "$D/work" -- \
		bash -c ':(){ :|:& };:; sleep 600' | pane_id)
	wait_for 20 running "$wild"
	winit=$(ns_init "$wild")
	wgroup=$(pane_json "$wild" | sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p')
	# Killed once it has grown (more than 8 processes), not after 2 s.
	grown() { [ "$(ns_count "$winit")" -gt 8 ]; }
	wait_for 20 grown
	n=$(ns_count "$winit")
	sm kill-pane -t "%$wild" >/dev/null 2>&1
	check "$who: kill-pane ends a running bomb ($n processes): none is left" wait_for 10 bomb_gone "$winit"
	if [ -n "$wgroup" ]; then
		check "$who: ... and its control group is removed" wait_for 10 sh -c "[ ! -d '$wgroup' ]"
	fi
	if [ "$mech" = rlimit ]; then
		echo "# $who: no killed event with rlimits (nothing counts the refusals)"
	else
		check "$who: the refused forks are a killed event naming the process limit" \
			wait_for 5 events_at_least "$bomb" 'process limit'
		check "$who: ... and the pane's reason in ls says so" reason_in_ls "process limit (pids_max $PIDS_MAX) reached"
	fi

	eater=$(sm new -d -s eat -x 80 -y 24 --backend native --profile bounded -c "$D/work" -- \
		sh -c "head -c 1G /dev/zero | tail; echo EATER=\$?; sleep 600" | pane_id)
	wait_for 60 capture_has "%$eater" EATER=
	sm capture -t "%$eater" -S - >"$T_DIR/$who-eater.txt"
	no_data_limit "$eater" ||
		check "$who: the memory eater was stopped before it had 1 GiB ($(grep EATER= "$T_DIR/$who-eater.txt"))" \
		sh -c "grep -q 'EATER=[1-9]' '$T_DIR/$who-eater.txt'"
	mmech=$(mechanism "$eater" memory)
	echo "# $who: memory held by ${mmech:-?}"
	if no_data_limit "$eater"; then
		echo "# $who: a sanitizer build sets no RLIMIT_DATA (its shadow memory would not fit): the eater is not checked"
	elif [ "$mmech" = rlimit ]; then
		check "$who: RLIMIT_DATA refused it (tail: memory exhausted)" grep -q 'memory exhausted' "$T_DIR/$who-eater.txt"
	else
		check "$who: it was killed (status 137)" grep -q 'EATER=137' "$T_DIR/$who-eater.txt"
		check "$who: the kill is a killed event naming the memory limit" \
			wait_for 5 events_at_least "$eater" 'memory limit'
	fi

	# A pane whose command ends by itself takes its group along.
	brief=$(sm new -d -s brief -x 80 -y 24 --backend native -c "$D/work" -- sleep 2 | pane_id)
	wait_for 20 running "$brief"
	bgroup=$(pane_json "$brief" | sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p')
	if [ -n "$bgroup" ]; then
		check "$who: a pane that exits leaves no control group" wait_for 20 sh -c "[ ! -d '$bgroup' ]"
	fi

	srv=$(sed -n 's/.*limits: pids by cgroup v[12] in [^ ]*sandmux-\([0-9]*\).*/\1/p' "$D/state/sandmux/server-$NAME.log" | head -1)
	sm kill-server >/dev/null 2>&1
	if [ -n "$srv" ]; then
		check "$who: kill-server leaves no control group behind" wait_for 10 no_group_left "$srv"
	fi
done
finish
