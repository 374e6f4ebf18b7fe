#!/bin/sh
# $SANDMUX in every pane, as tmux's $TMUX: "socket,server pid,%pane",
# this server's own (not one inherited by a server started inside
# another's pane), in host panes, in native panes started cold and in
# native panes that take over the prepared sandbox (backends/native.c
# hands those their environment through the shim, not bwrap's argv).
# Nothing else rides on it: the value is exactly those three fields.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start paneenv bwrap setpriv

# A server started from inside another's pane: its own SANDMUX wins.
ctx env root "$HOST_PATH" SANDMUX=/elsewhere/sock,1,%99
state_is() { [ "$(pane_field "$1" state)" = "$2" ]; }
PRINT='printf "S=[%s]\n" "$SANDMUX"; exec sleep 60'
sm new -d -s s -x 100 -y 30 -c "$D/work" -- sh -c "$PRINT" >/dev/null
pid=$(sm ctl '{"cmd":"hello","version":1}' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
sock="$D/run/sandmux/$NAME"
env_is() { sm capture -t "$1" | grep -qxF "S=[$sock,$pid,%$1]"; }
show() { sm capture -t "$1" | grep '^S=' | sed 's/^/# /'; }
if wait_for 5 env_is 1; then ok "a host pane has SANDMUX=socket,pid,%1"; else
	not_ok "a host pane has SANDMUX=socket,pid,%1"; show 1; fi
sm split -t %1 --backend native -c "$D/work" -- sh -c "$PRINT" >/dev/null
wait_for 10 state_is 2 warm
if wait_for 5 env_is 2; then ok "a native pane (cold) has SANDMUX=socket,pid,%2"; else
	not_ok "a native pane (cold) has SANDMUX=socket,pid,%2"; show 2; fi

# The sandbox prepared after that launch: the next native pane is its
# waiting bwrap (as tests/integration/native-prepared.sh checks).
waiting_bwrap() {
	for shim in $(pgrep -f -- "--fd [0-9]+ (--nproc [0-9]+ )?(--userns [0-9]+:[0-9]+ )?(--ro(-try|-mount)? /[^ ]* )*--wait$"); do
		init=$(ps -o ppid= -p "$shim" | tr -d ' ')
		outer=$(ps -o ppid= -p "$init" 2>/dev/null | tr -d ' ')
		[ -n "$outer" ] && [ "$(ps -o ppid= -p "$outer" | tr -d ' ')" = "$pid" ] && echo "$outer"
	done | head -1
}
has_waiting() { [ -n "$(waiting_bwrap)" ]; }
wait_for 10 has_waiting
prepared=$(waiting_bwrap)
sm split -t %2 --backend native -c "$D/work" -- sh -c "$PRINT" >/dev/null
wait_for 10 state_is 3 warm
took_prepared() { [ -n "$prepared" ] && [ "$(pane_field 3 pid)" = "$prepared" ]; }
check "setup: the third pane took the prepared sandbox (bwrap $prepared)" took_prepared
if wait_for 5 env_is 3; then ok "a native pane from the prepared sandbox has SANDMUX=socket,pid,%3"; else
	not_ok "a native pane from the prepared sandbox has SANDMUX=socket,pid,%3"; show 3; fi
finish
