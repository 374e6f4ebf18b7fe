#!/bin/sh
# The event bus: lifecycle events reach subscribers, are appended to the
# durable log first, survive a server restart, and the feed pane shows
# them.
. "$(dirname "$0")/../lib.sh"
# A backend that cannot run here: microvm without its guest image.
export SANDMUX_MICROVM_DIR="$T_DIR/no-microvm-image"
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"

sm new -d -s ev -x 160 -y 30 -- /bin/sh >/dev/null
sm events --follow --json >"$T_DIR/follow.txt" &
follower=$!
# The subscription is live once the backlog (this session's start) is in.
wait_for 5 grep -q '"session":"ev"' "$T_DIR/follow.txt"
sm split -t ev -v --remain -- sh -c 'exit 7' >/dev/null
sm split -t ev -v --backend microvm >/dev/null 2>&1
wait_for 5 grep -q '"exitCode":7' "$T_DIR/follow.txt"
check "events --follow sees a pane's exit with its code" grep -q '"kind":"exit".*"exitCode":7' "$T_DIR/follow.txt"
check "events --follow sees starting and ready" sh -c "grep -q '\"kind\":\"starting\"' '$T_DIR/follow.txt' && grep -q '\"kind\":\"ready\"' '$T_DIR/follow.txt'"
check "a backend that cannot run emits an error event" grep -q '"kind":"error".*"requested":"microvm"' "$T_DIR/follow.txt"
check "every event names its session" sh -c "! grep -v '\"session\":\"ev\"' '$T_DIR/follow.txt' | grep -q pane"
kill $follower
check "the log holds the same events" grep -q '"exitCode":7' "$LOG"
check "the log is private (0600)" [ "$(stat -c %a "$LOG")" = 600 ]
check "every log line is JSON" sh -c "! grep -v '^{.*}\$' '$LOG' | grep -q ."

# A subscriber that arrives late gets the backlog first.
sm events --json >"$T_DIR/backlog.txt"
check "events without --follow prints the backlog" grep -q '"exitCode":7' "$T_DIR/backlog.txt"
sm events --json --action nothing-like-this >"$T_DIR/none.txt"
check "an action filter filters" [ ! -s "$T_DIR/none.txt" ]

# The feed pane.
feed=$(sm feed -t ev)
wait_for 5 capture_has "$feed" 'exit'
check "the feed pane shows events ($feed)" capture_has "$feed" 'microvm'
check "the feed pane is titled" sh -c "$SANDMUX_BIN -L $T_NAME ls --json | grep -q '\"title\":[[:space:]]*\"feed · ev'"

# After a restart the log and the backlog still hold everything.
lines=$(wc -l <"$LOG")
sm kill-server
wait_for 5 server_gone
sm new -d -s again -- /bin/sh >/dev/null
check "the log survives a restart" [ "$(wc -l <"$LOG")" -gt "$lines" ]
sm events --json >"$T_DIR/after.txt"
check "the backlog after a restart includes events from before it" grep -q '"exitCode":7' "$T_DIR/after.txt"

# The feed of a session of the same name shows them again, under a mark,
# and what is new below them.
sm new -d -s ev -- /bin/sh >/dev/null
feed=$(sm feed -t ev)
check "after a restart the feed marks the earlier events" \
	wait_for 5 capture_has "$feed" '── earlier ──'
sm capture -t "$feed" >"$T_DIR/feed.txt"
mark=$(grep -n '── earlier ──' "$T_DIR/feed.txt" | cut -d: -f1)
# (of an earlier server's lifecycle, only its errors: its panes are gone)
error=$(grep -n ' error ' "$T_DIR/feed.txt" | head -1 | cut -d: -f1)
ready=$(grep -n ' ready ' "$T_DIR/feed.txt" | tail -1 | cut -d: -f1)
check "the earlier events are below the mark" [ "${error:-0}" -gt "${mark:-99}" ]
check "... without the exits and starts of its panes, gone with it" sh -c "! sed -n '1,${ready:-1}p' '$T_DIR/feed.txt' | grep -q ' exit '"
check "this server's events come after them" [ "${ready:-0}" -gt "${error:-99}" ]
finish
