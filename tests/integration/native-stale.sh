#!/bin/sh
# What a native server killed with SIGKILL leaves on the host is removed
# by the next one (backends/native.c, remove_stale_masks): its mask files
# in /tmp (sandmux-mask-PID-*), while another live server's are kept.
. "$(dirname "$0")/../lib.sh"

command -v bwrap >/dev/null 2>&1 || { not_ok "bwrap is installed (apt-get install bubblewrap)"; finish; }
W=$(mktemp -d /var/tmp/sandmux-native-stale.XXXXXX)
# The second server first: cleanup removes the runtime directory that
# holds its socket.
trap '"$SANDMUX_BIN" -L "${T_NAME}b" kill-server >/dev/null 2>&1; cleanup; rm -rf "$W"' EXIT
smb() { "$SANDMUX_BIN" -L "${T_NAME}b" "$@"; }
server_pid() { "$SANDMUX_BIN" -L "$1" ctl '{"cmd":"hello","version":1}' | sed -n 's/.*"pid":\([0-9]*\).*/\1/p'; }
masks_of() { ls /tmp | grep -c "^sandmux-mask-$1-"; }
running() { state=$(pane_field "$1" state); [ "$state" = warm ] || [ "$state" = active ]; }

sm new -d -s a --backend native -c "$W" -- sleep 600 >/dev/null
check "a native pane runs" wait_for 20 running 1
dead=$(server_pid "$T_NAME")
smb new -d -s b --backend native -c "$W" -- sleep 600 >/dev/null
alive=$(server_pid "${T_NAME}b")
check "each server has its mask files, named by its pid" \
	sh -c "[ $(masks_of "$dead") -ge 1 ] && [ $(masks_of "$alive") -ge 1 ]"
kill -9 "$dead"
wait_for 10 sh -c "! kill -0 $dead 2>/dev/null"
check "a server killed with SIGKILL leaves its mask files" [ "$(masks_of "$dead")" -ge 1 ]
sm new -d -s c --backend native -c "$W" -- sleep 600 >/dev/null
check "the next server's first native pane runs" wait_for 20 running 1
check "... and the dead server's mask files are gone" wait_for 10 sh -c "[ \$(ls /tmp | grep -c '^sandmux-mask-$dead-') = 0 ]"
check "... while the live server's are kept" [ "$(masks_of "$alive")" -ge 1 ]
finish
