#!/bin/sh
# Every libuv handle a pane opened is closed before the pane is freed.
#
# A handle that is only stopped stays linked in the loop's handle queue;
# once its pane is freed, closing a neighbouring handle writes into the
# freed block, which is how the server once died in malloc_consolidate
# (docs/security.md, known issue 5: the confirmation poll of every
# confirmed native pane was left behind).  Neither sanitizer sees it:
# the writes happen inside libuv, which is not instrumented.
#
# So the loop's handle queue is walked from the outside with gdb: after
# native panes were confirmed and killed, exited at once, failed to
# start, or exited and stayed (--remain) and were then killed, it must
# hold exactly the handles it held before, each well linked; under
# AddressSanitizer none of them may lie in freed memory.  Without gdb,
# or without permission to attach, the test says so and counts nothing.
. "$(dirname "$0")/../lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	echo "# skip pane-handles: gdb is not installed"
	finish
fi
for tool in bwrap socat; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (apt-get install bubblewrap socat)"
		finish
	fi
done
# Outside /tmp: the sandbox has a private /tmp.
W=$(mktemp -d /var/tmp/sandmux-pane-handles.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"; cleanup' EXIT
cat >"$W/walk.py" <<'PY'
import gdb
loop = gdb.parse_and_eval("server.loop")
head = int(loop["handle_queue"].address)
off = [f.bitpos // 8 for f in gdb.lookup_type("uv_handle_t").fields()
       if f.name == "handle_queue"][0]
asan = gdb.lookup_global_symbol("__asan_address_is_poisoned") is not None or \
    gdb.lookup_symbol("__asan_address_is_poisoned")[0] is not None
def ptr(addr):
    return int(gdb.parse_and_eval("*(void **)%d" % addr))
node, prev, n, bad = ptr(head), head, 0, []
while node != head and n < 10000:
    if ptr(node + 8) != prev:
        bad.append("badly linked")
        break
    if asan and int(gdb.parse_and_eval(
            "(int)__asan_address_is_poisoned((void *)%d)" % (node - off))):
        bad.append("freed")
    prev, node, n = node, ptr(node), n + 1
print("HANDLES %d %s" % (n, ",".join(bad) if bad else "clean"))
PY

SERVER=""
# handles: "N clean", or what is wrong with the loop's handle queue.
handles() {
	gdb -p "$SERVER" -batch -nx -ex "source $W/walk.py" 2>/dev/null |
		sed -n 's/^HANDLES //p'
}
back_to() { [ "$(handles)" = "$1" ]; }

sm new -d -s h -x 200 -y 100 -c "$W" -- /bin/sh >/dev/null
for d in /proc/[0-9]*; do
	{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -q -- "-L $T_NAME server" &&
		SERVER=${d#/proc/} && break
done
# A native pane that stays: the supervisor (and its async handle) runs.
sm split -t %1 -v -l 10 --backend native -c "$W" -- /bin/sh >/dev/null
check "setup: a native pane is confirmed" wait_for 10 sh -c \
	"'$SANDMUX_BIN' -L $T_NAME ls | grep -q '%2 .* native warm'"
# The count is taken once the sandbox prepared after that launch waits
# (its handles are part of the base).
wait_for 10 has_waiting "$SERVER"
BASE=$(handles)
if [ -z "$BASE" ]; then
	echo "# skip pane-handles: gdb cannot attach to the server (pid $SERVER)"
	finish
fi
check "before: the loop's handle queue is sound ($BASE)" sh -c "[ \"${BASE#* }\" = clean ]"

for round in 1 2 3; do
	# confirmed, then killed
	sm split -t %1 -v -l 5 --backend native -c "$W" -- /bin/sh >/dev/null
	p=$(sm ls | sed -n 's/^ *%\([0-9]*\) .*/\1/p' | sort -n | tail -1)
	check "round $round: %$p confirmed native" wait_for 10 sh -c \
		"'$SANDMUX_BIN' -L $T_NAME ls | grep -q '%$p .* native warm'"
	sm kill-pane -t "%$p" >/dev/null
	# exits at once (confirmed by its exit code, removed)
	sm split -t %1 -v -l 5 --backend native -c "$W" -- /bin/true >/dev/null
	# never starts (the shim cannot exec it): FAILED, then killed
	sm split -t %1 -v -l 5 --backend native -c "$W" -- /nonexistent/cmd >/dev/null 2>&1
	p=$(sm ls | sed -n 's/^ *%\([0-9]*\) .*/\1/p' | sort -n | tail -1)
	check "round $round: %$p failed to start" wait_for 10 sh -c \
		"'$SANDMUX_BIN' -L $T_NAME ls | grep '%$p ' | grep -qi 'error\|failed'"
	sm kill-pane -t "%$p" >/dev/null 2>&1
	# exits and stays (--remain), then killed
	sm split -t %1 -v -l 5 --remain --backend native -c "$W" -- /bin/sh -c 'exit 3' >/dev/null
	p=$(sm ls | sed -n 's/^ *%\([0-9]*\) .*/\1/p' | sort -n | tail -1)
	check "round $round: %$p exited and stays" wait_for 10 sh -c \
		"'$SANDMUX_BIN' -L $T_NAME ls | grep -q '%$p .* dead (status 3)'"
	sm kill-pane -t "%$p" >/dev/null 2>&1
done
check "after 12 native panes came and went: every handle they opened is closed ($BASE)" \
	wait_for 5 back_to "$BASE"
[ "$(handles)" = "$BASE" ] || echo "# now: $(handles)"
check "the server answers" sh -c "'$SANDMUX_BIN' -L $T_NAME ls >/dev/null"
finish
