#!/bin/sh
# The seccomp shim and supervisor, with the real bwrap and a real server:
# every way of making a denied name (.env, *.pem, *.key) in an agent pane
# is refused with exactly one violation event each; a racing thread
# flipping the path cannot sneak a denied name through; a secret read in
# a native pane reaches `events --follow` within 200 ms; the filter's
# outright denials hold (TIOCSTI among them); a killed supervisor makes
# supervised calls fail, not pass; the log keeps every violation across
# a server restart.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# Helpers from the plain build: inside the sandbox the filter denies
# ptrace, which LeakSanitizer's exit check needs.  They are copied into
# the panes' working directory: a checkout under /tmp is hidden by the
# sandbox's private /tmp.
HB=$ROOT/build/helpers
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
# The server honours SIGUSR2 as "supervisor crashed" only with this set.
export SANDMUX_SUPERVISOR_TEST=1

if ! command -v bwrap >/dev/null 2>&1 || [ ! -x "$HB/sv-make" ]; then
	echo "not ok - needs bwrap and the helpers in $HB (make build-tests)"
	exit 1
fi

export HOME="$T_DIR/home"
mkdir -p "$HOME/.ssh" "$T_DIR/work"
echo "not-a-real-key" >"$HOME/.ssh/id_test"
W=$(cd "$T_DIR/work" && pwd -P)
H=$W/bin
mkdir -p "$H" && cp "$HB/sv-make" "$HB/sv-racer" "$HB/sv-deny" "$H/"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
# violations TARGET: how many violation events name TARGET in the log
violations() { grep '"kind":"violation"' "$LOG" | grep -cF "\"target\":\"$1\""; }
# pane_json ID: the pane's object from ls --json, on one line
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
wait_done() { wait_for "${2:-30}" capture_has "$1" "ALL-DONE"; }
# pane SESSION ARGS... -- CMD: a new session with one pane; prints its id
pane() {
	name=$1
	shift
	sm new -d -s "$name" -x 200 -y 50 "$@" | pane_id
}

# --- the racer ------------------------------------------------------------
mkdir -p "$W/race"
race=$(pane race --backend native --profile agent -c "$W" -- sh -c \
	"cd race && '$H/sv-racer' 20000 allowed.txt .env >racer.out 2>&1; echo ALL-DONE; sleep 600")
wait_done "%$race" 120
check "racer: 20,000 racing creates made no denied file ($(cat "$W/race/racer.out" 2>/dev/null))" \
	grep -q 'created-denied 0$' "$W/race/racer.out"
check "racer: the allowed name was created too (the race really ran)" \
	sh -c "! grep -q 'created-allowed 0 ' '$W/race/racer.out'"
check "racer: no .env left behind" [ ! -e "$W/race/.env" ]

# --- every way of making a denied name --------------------------------------
methods="creat openat2 rename link symlink tmpfile tmpfile-empty mknod"
script=""
for m in $methods; do
	mkdir -p "$W/$m"
	script="$script cd '$W/$m'; '$H/sv-make' $m .env; '$H/sv-make' $m x.pem; '$H/sv-make' $m ok-$m.txt;"
done
agent=$(pane make --backend native --profile agent -c "$W" -- sh -c \
	"{ $script } >'$W/make.out' 2>&1; echo ALL-DONE; sleep 600")
wait_done "%$agent"
# every_create_reported: each refused create's violation is in the log
every_create_reported() {
	for m in $methods; do
		for name in .env x.pem; do
			[ "$(violations "$W/$m/$name")" -ge 1 ] || return 1
		done
	done
}
wait_for 5 every_create_reported
for m in $methods; do
	for name in .env x.pem; do
		check "$m $name: refused with EACCES" grep -qx "$m $name: EACCES" "$W/make.out"
		check "$m $name: no such file afterwards" [ ! -e "$W/$m/$name" ] && [ ! -L "$W/$m/$name" ]
		n=$(violations "$W/$m/$name")
		check "$m $name: exactly one file-write-create violation (got $n)" [ "$n" = 1 ]
	done
	check "$m: an allowed name is made the same way" [ -e "$W/$m/ok-$m.txt" ]
done
check "violations carry pane, backend, pid and syscall" \
	grep -q "\"action\":\"file-write-create\".*\"pane\":$agent,.*\"backend\":\"native\",\"pid\":[0-9]*,\"syscall\":\"openat\"" "$LOG"
check "violations carry the pane's profile and their source (docs/protocol.md, Violations)" \
	grep -q "\"action\":\"file-write-create\".*\"pane\":$agent,.*\"profile\":\"agent\",.*\"source\":\"supervisor\"" "$LOG"
check "an allowed create has the child's umask (0644)" [ "$(stat -c %a "$W/creat/ok-creat.txt")" = 644 ]

# Emulated opens keep the kernel's meaning (the supervisor reads the
# child's umask only for what it creates, and opens an existing file
# without O_CREAT): the umask of the moment, changed between two
# creates; O_EXCL on an existing file; a write to an existing file.
mkdir -p "$W/modes"
echo old >"$W/modes/kept.txt"
chmod 666 "$W/modes/kept.txt"
# The supervisor keeps each thread's umask (supervisor-path.c, child_umask):
# one thread's umask(2) must reach the creates of the others, which
# were read and kept before it.
cat >"$W/modes/threads.py" <<'EOF'
import os, threading
def make(name):
    os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
make("t0")
read, changed = threading.Event(), threading.Event()
def worker():
    make("t1")
    read.set()
    changed.wait()
    make("t2")
    make("t3")
t = threading.Thread(target=worker)
t.start()
read.wait()
os.umask(0o077)
changed.set()
t.join()
EOF
modes=$(pane modes --backend native -c "$W/modes" -- sh -c \
	"{ echo a >a.txt; umask 077; echo b >b.txt; mkdir d; umask 022; echo c >c.txt; python3 threads.py; \
	   python3 -c 'import os; os.open(\"kept.txt\", os.O_WRONLY | os.O_CREAT | os.O_EXCL)'; \
	   echo excl=\$?; echo new >kept.txt; echo kept=\$?; } \
	 >out.txt 2>&1; echo ALL-DONE; sleep 600")
wait_done "%$modes"
check "a create after umask 077 is 600, the one before 644, after umask 022 644 again" \
	[ "$(stat -c %a "$W/modes/a.txt") $(stat -c %a "$W/modes/b.txt") $(stat -c %a "$W/modes/c.txt")" = "644 600 644" ]
check "mkdir after umask 077 is 700" [ "$(stat -c %a "$W/modes/d")" = 700 ]
check "another thread's umask 077 reaches the creates of a thread whose umask was kept (644 644 600 600)" \
	[ "$(cd "$W/modes" && stat -c %a t0 t1 t2 t3 | tr '\n' ' ')" = "644 644 600 600 " ]
check "O_CREAT|O_EXCL on an existing file: File exists" \
	sh -c "grep -q 'excl=1' '$W/modes/out.txt' && grep -q 'FileExistsError' '$W/modes/out.txt'"
check "a write to an existing file replaces its contents and keeps its mode" \
	sh -c "grep -q 'kept=0' '$W/modes/out.txt' && [ \"\$(cat '$W/modes/kept.txt')\" = new ] && [ \"\$(stat -c %a '$W/modes/kept.txt')\" = 666 ]"

# Plain reads are opened by the supervisor (supervisor-emulate.c, emulate_read)
# and must keep the kernel's meaning: a FIFO's reader waits for its
# writer (a waiter thread, not the supervisor's own); an O_NONBLOCK
# reader of a FIFO with no writer does not wait; a shell whose cwd was
# renamed under it (by another process) still reads relative names from
# it; a directory opened as "." and ".."; O_PATH, and reopening it
# through /proc/self/fd; a file read through /dev/stdin.
mkdir -p "$W/reads/r/a"
cat >"$W/reads/fifo.py" <<'EOF'
import os, sys, time
os.mkfifo("f")
if os.fork() == 0:
    time.sleep(1)
    with open("f", "w") as w:
        w.write("fifo-data\n")
    os._exit(0)
t = time.time()
with open("f") as r:
    print("fifo", r.read().strip(), "waited" if time.time() - t > 0.5 else "early")
os.wait()
fd = os.open("f", os.O_RDONLY | os.O_NONBLOCK)
print("nonblock-open", "ok", os.read(fd, 10) == b"")
os.close(fd)
p = os.open("r", os.O_PATH)
print("opath", sorted(os.listdir("/proc/self/fd/%d" % p)))
print("reopen", os.open("/proc/self/fd/%d" % p, os.O_RDONLY | os.O_DIRECTORY) >= 0)
print("flags", os.get_blocking(os.open("fifo.py", os.O_RDONLY)))
EOF
reads=$(pane reads --backend native -c "$W/reads" -- sh -c \
	"{ python3 fifo.py; cd r/a && echo kept >f && read l <f && mv ../a ../b && read m <f && echo \"cwd \$l \$m\"; \
	   ls . >/dev/null && ls .. && cat </dev/stdin <../b/f; } >out.txt 2>&1 </dev/null; echo ALL-DONE; sleep 600")
wait_done "%$reads"
check "read of a FIFO: waits for its writer, then reads what it wrote" \
	grep -qx "fifo fifo-data waited" "$W/reads/out.txt"
check "O_NONBLOCK read of a FIFO with no writer: opens at once, reads nothing" \
	grep -qx "nonblock-open ok True" "$W/reads/out.txt"
check "a renamed cwd: the same shell reads a relative name from it before and after the mv" \
	grep -qx "cwd kept kept" "$W/reads/out.txt"
check "ls .., cat </dev/stdin: read where the kernel would" \
	sh -c "grep -qx b '$W/reads/out.txt' && grep -qx kept '$W/reads/out.txt'"
check "O_PATH: listed through /proc/self/fd/N, and reopened" \
	sh -c "grep -qx \"opath \\['a'\\]\" '$W/reads/out.txt' || grep -q \"opath \\['b'\\]\" '$W/reads/out.txt'; grep -qx 'reopen True' '$W/reads/out.txt'"
check "a file opened for reading is blocking, as the child asked (O_NONBLOCK added for the open is taken off)" \
	grep -qx "flags True" "$W/reads/out.txt"

# Mandatory write-denies in the agent profile, even inside the work tree.
mkdir -p "$W/repo/.git"
prot=$(pane repo --backend native --profile agent -c "$W/repo" -- sh -c \
	"{ mkdir .git/hooks; echo mkdir=\$?; echo x >.mcp.json; echo mcp=\$?; echo x >.bashrc; echo rc=\$?; echo x >fine.txt; echo fine=\$?; } >out.txt 2>&1; echo ALL-DONE; sleep 600")
wait_done "%$prot"
check "agent: .git/hooks cannot be made" sh -c "grep -q '^mkdir=1' '$W/repo/out.txt' && [ ! -e '$W/repo/.git/hooks' ]"
check "agent: .mcp.json cannot be made" sh -c "grep -q '^mcp=[12]' '$W/repo/out.txt' && [ ! -e '$W/repo/.mcp.json' ]"
check "agent: .bashrc cannot be made" [ ! -e "$W/repo/.bashrc" ]
check "agent: other files can" [ -e "$W/repo/fine.txt" ]
check "agent: the refusals are file-write* violations" [ "$(violations "$W/repo/.mcp.json")" = 1 ]

# The terminal profile has no name patterns.
term=$(pane term --backend native -c "$W" -- sh -c \
	"echo x >'$W/term.env'; echo ALL-DONE; sleep 600")
wait_done "%$term"
check "terminal profile: .env names are allowed" [ -e "$W/term.env" ]

# --- outright denials -------------------------------------------------------
checks="tiocsti tiocsti-high userns clone3 io_uring ptrace mount"
script=""
for c in $checks; do script="$script '$H/sv-deny' $c; echo $c=\$?;"; done
denials=$(pane deny --backend native -c "$W" -- sh -c \
	"{ $script '$H/sv-deny' x32; echo x32=\$?; } >'$W/deny.out' 2>&1; echo ALL-DONE; sleep 600")
wait_done "%$denials"
for c in $checks; do
	check "filter: $c is refused ($(grep "^$c:" "$W/deny.out"))" grep -qx "$c=0" "$W/deny.out"
done
check "filter: TIOCSTI fails with EPERM" grep -qx "tiocsti: EPERM" "$W/deny.out"
check "filter: TIOCSTI with junk in the high bits too" grep -qx "tiocsti-high: EPERM" "$W/deny.out"
check "filter: an x32 syscall kills the process (SIGSYS)" grep -qx "x32=159" "$W/deny.out"

# --- shell redirections to devices, FIFOs and the kernel -------------------
# Every O_CREAT open is done by the supervisor (never CONTINUE): devices,
# the pane's own terminal and FIFOs must still work; kernel settings
# under /proc must not be writable through it.  A FIFO's writer that
# comes before its reader gets ENXIO (the supervisor never waits in
# open(2): supervisor.c, open_fifo), so the writer tries until the
# reader has the FIFO open.
devs=$(pane devs --backend native -c "$W" -- sh -c "{ echo a >/dev/null; echo null=\$?; echo b >/dev/tty; echo tty=\$?; mkfifo fifo; cat fifo >fifo.out & until echo through 2>/dev/null >fifo; do sleep 0.05; done; echo fifo=\$?; wait; cat /proc/sys/kernel/core_pattern >/proc/sys/kernel/core_pattern; echo core=\$?; } >devs.out 2>&1; echo via-dev-stdout >/dev/stdout; echo ALL-DONE; sleep 600")
wait_done "%$devs"
check "redirect to /dev/null works" grep -qx "null=0" "$W/devs.out"
check "redirect to /dev/tty works (the pane's own terminal)" grep -qx "tty=0" "$W/devs.out"
check "redirect to /dev/stdout works" capture_has "%$devs" "via-dev-stdout"
check "a FIFO carries data" sh -c "grep -qx 'fifo=0' '$W/devs.out' && grep -qx through '$W/fifo.out'"
check "writing /proc/sys/kernel/core_pattern fails" sh -c "grep -q '^core=[1-9]' '$W/devs.out'"
check "and is reported" [ "$(violations /proc/sys/kernel/core_pattern)" -ge 1 ]

# --- a secret read reaches events --follow within 200 ms --------------------
# A witness's read first: the follower, filtered to file-read*, is
# subscribed once that event arrives as its backlog.
witness=$(pane witness --backend native -c "$W" -- sh -c "cat ~/.ssh/id_test; echo ALL-DONE; sleep 600")
wait_done "%$witness"
wait_for 5 sh -c "grep '\"kind\":\"violation\"' '$LOG' | grep -q '\"file-read\\*\"'"
sm events --follow --json --action 'file-read*' | while IFS= read -r line; do
	printf '%s %s\n' "$(date +%s.%N)" "$line"
done >"$T_DIR/follow.txt" &
wait_for 5 grep -q '"file-read\*"' "$T_DIR/follow.txt"
# The read waits for the test's go, given once the pane is labelled (the
# sandbox confirmed): the time measured is the violation's, not the start's.
reader=$(pane reader --backend native -c "$W" -- sh -c \
	"while [ ! -e '$W/reader-go' ]; do sleep 0.05; done; date +%s.%N >'$W/t0'; cat ~/.ssh/id_test; echo cat=\$?; echo ALL-DONE; sleep 600")
labelled_native() { pane_json "$1" | grep -q '"backend":"native"'; }
wait_for 10 labelled_native "$reader"
touch "$W/reader-go"
wait_done "%$reader"
# read_seen: the reader's read, live (not the backlog's), has arrived
read_seen() { grep '"file-read\*"' "$T_DIR/follow.txt" | grep -v '"backlog":true' | grep -q "\"pane\":$reader[,}]"; }
wait_for 5 read_seen
check "reading ~/.ssh fails in the pane" capture_has "%$reader" "cat=1"
check "the read is a file-read* violation naming the key" \
	sh -c "grep '\"pane\":$reader[,}]' '$T_DIR/follow.txt' | grep -q '\"action\":\"file-read\\*\",\"target\":\"$HOME/.ssh/id_test\"'"
arrived=$(grep '"file-read\*"' "$T_DIR/follow.txt" | grep -v '"backlog":true' | grep "\"pane\":$reader[,}]" | head -1 | cut -d' ' -f1)
started=$(cat "$W/t0" 2>/dev/null)
ms=$(awk -v a="${arrived:-0}" -v s="${started:-0}" 'BEGIN { printf "%d", (a - s) * 1000 }')
check "it reached events --follow ${ms} ms after the pane started cat (<= 200)" \
	[ -n "$arrived" ] && [ -n "$started" ] && [ "$ms" -le 200 ]
pane_json "$reader" >"$T_DIR/reader.json"
check "the pane's violation count went up ($(grep -o "\"violations\":[0-9]*" "$T_DIR/reader.json"))" grep -q '"violations":1[,}]' "$T_DIR/reader.json"

# --- a killed supervisor: supervised calls fail, never pass -----------------
victim=$(pane victim --backend native --remain -c "$W" -- sh -c \
	"echo x >before.txt; while [ ! -e go ]; do sleep 0.05; done; echo x >after.txt; echo after=\$?; echo ALL-DONE")
wait_for 10 test -e "$W/before.txt"
check "before the kill, creates work" [ -e "$W/before.txt" ]
server_pid=$(sed -n 's/.*starting, pid \([0-9]*\).*/\1/p' "$XDG_STATE_HOME/sandmux/server-$T_NAME.log" | tail -1)
kill -USR2 "$server_pid"
# sv_gone: the server has marked the victim's supervisor gone
sv_gone() { pane_json "$victim" | grep -q '"supervisor":"gone"'; }
check "the test signal stops the supervisor: the pane says so" wait_for 5 sv_gone
touch "$W/go"
wait_done "%$victim"
check "after the kill, a create fails" capture_has "%$victim" "after=2"
check "and the file was not made" [ ! -e "$W/after.txt" ]
pane_json "$victim" >"$T_DIR/victim.json"
check "the pane says its supervisor is gone" grep -q '"supervisor":"gone"' "$T_DIR/victim.json"

# --- the log keeps every violation across a restart -------------------------
before=$(grep -c '"kind":"violation"' "$LOG")
sm kill-server
wait_for 5 server_gone
sm new -d -s again -- /bin/sh >/dev/null
after=$(grep -c '"kind":"violation"' "$LOG")
check "the log still holds all $before violations after a restart" [ "$after" -ge "$before" ]
check "including the secret read" grep -q "\"file-read\\*\",\"target\":\"$HOME/.ssh/id_test\"" "$LOG"
sm events --json --action 'file-write-create' >"$T_DIR/backlog.txt"
check "events after a restart replays the create violations" grep -q "\"target\":\"$W/mknod/x.pem\"" "$T_DIR/backlog.txt"
finish
