#!/bin/sh
# TUI: the status line's clock moves on its own, as tmux's does (its
# status-interval): with nothing typed and nothing written by any pane,
# a clock that shows seconds shows the host's time, second by second, at
# 80x24 and 160x45.  It stood still once: the status line was composed
# only when something else was drawn, so an idle screen kept the time of
# its last draw.  Typed keys' echoes do not compose it (its key is the
# same), and the clock still shows the time while they come.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
printf '{"status_right": " [%%H:%%M:%%S] "}\n' >"$XDG_CONFIG_HOME/sandmux/config.json"

clock_of() { status_line | sed -n 's/.*\[\([0-9][0-9]:[0-9][0-9]:[0-9][0-9]\)\].*/\1/p'; }
# clock_near: the status line's clock is within 2 s of the host's.
clock_near() {
	shown=$(clock_of)
	[ -n "$shown" ] || return 1
	at=$(date -d "$shown" +%s 2>/dev/null) || return 1
	d=$(($(date +%s) - at))
	[ "$d" -gt 43200 ] && d=$((d - 86400)) # a clock read across midnight
	[ "$d" -ge -1 ] && [ "$d" -le 2 ]
}
clock_is_not() { [ -n "$(clock_of)" ] && [ "$(clock_of)" != "$1" ]; }
# clock_past EPOCH: the status line's clock shows EPOCH or later.
clock_past() {
	shown=$(clock_of)
	[ -n "$shown" ] || return 1
	at=$(date -d "$shown" +%s 2>/dev/null) || return 1
	[ $((at - $1)) -lt -43200 ] && at=$((at + 86400)) # across midnight
	[ "$at" -ge "$1" ]
}
# type_until_tick: keys typed one by one, each waited for on the
# terminal, until the clock has moved past BEFORE (at most 400 keys).
# Each line of 40 keys is one letter, then C-c: a line's keys never
# match an earlier line's.
type_until_tick() {
	n=0
	run=""
	for letter in a b c d e f g h i j; do
		i=0
		while [ "$i" -lt 40 ]; do
			keys "$letter"
			run="$run$letter"
			wait_screen "$run" 3 || return 1
			n=$((n + 1))
			i=$((i + 1))
			[ "$n" -ge 10 ] && clock_is_not "$before" && return 0
		done
		keys C-c
		run=""
	done
	return 0
}

for size in 80x24 160x45; do
	cols=${size%x*} rows=${size#*x}
	sm new -d -s "s$cols" -x "$cols" -y "$rows" >/dev/null
	tm new-session -d -s main -x "$cols" -y "$rows" "$(client_cmd -t "s$cols")"
	wait_screen "─" 10
	wait_prompt 10
	check "$size: the status line shows the host's time" wait_for 5 clock_near
	first=$(clock_of)
	check "$size: with nothing drawn, the clock moves on" wait_for 4 clock_is_not "$first"
	second=$(clock_of)
	check "$size: ... and again" wait_for 4 clock_is_not "$second"
	check "$size: ... still the host's time" clock_near
	later=$(($(date -d "$second" +%s) + 3))
	check "$size: 3 s on, with nothing drawn" wait_for 6 clock_past "$later"
	check "$size: ... still the host's time" clock_near
	# Keys typed until the clock moves: their echoes leave the status
	# line as it was composed, and the clock still moves.
	before=$(clock_of)
	check "$size: each key's echo came" type_until_tick
	check "$size: while keys echo, the clock moves" clock_is_not "$before"
	check "$size: ... and shows the host's time" clock_near
	status_line | sed "s/^/# $size | /"
	tm kill-session -t main
	sm kill-session -t "s$cols" >/dev/null
done
finish
