#!/bin/sh
# TUI: clients that go wrong do not hold up the others (issue 28).
#  - A client killed with SIGKILL: the server lets go of its terminal at
#    once (no descriptor of it kept, its modes given back, so the shell
#    reads the next line itself), and the other client goes on.
#  - A client whose terminal stops reading: a real pty pair whose other
#    side (a small holder program, standing for a stopped terminal
#    emulator) no longer reads.  The server keeps what it owes that
#    terminal (terminal_pending in `list`), never waits for it: the other
#    client draws and every key typed in it arrives, and so does what is
#    typed into the stuck terminal itself.  When it reads again it gets
#    the newest screen; detached, nothing of it stays in the server.
#    Killed while a screenful behind, it is given back without a wait.
. "$(dirname "$0")/tui-lib"

# clients: "pid cols rows terminal_pending behind|-" for each client
# attached to the session, from the server (a server that blocked on a terminal does
# not answer: the check fails rather than waits for ever).
clients() {
	timeout 10 "$SANDMUX_BIN" -L "$T_NAME" ctl '{"cmd":"list"}' | python3 -c '
import json, sys
for s in json.load(sys.stdin)["result"]["sessions"]:
    for c in s.get("clients", []):
        print(c.get("pid", 0), c["cols"], c["rows"], c.get("terminal_pending", 0),
              "behind" if c.get("terminal_behind") else "-")'
}
client_count_is() { [ "$(clients | wc -l)" -eq "$1" ]; }
pending_of() { clients | awk -v pid="$1" '$1 == pid { print $4 }'; }
pending_above() { [ "$(pending_of "$1")" -gt "$2" ]; }
behind() { clients | awk -v pid="$1" '$1 == pid && $5 == "behind" { found = 1 } END { exit !found }'; }
LOG="$XDG_STATE_HOME/sandmux/server-$T_NAME.log"
# holds TTY: the server has a descriptor open on TTY
holds() { ls -l "/proc/$SERVER_PID/fd" 2>/dev/null | grep -q " $1\$"; }
lets_go() { ! holds "$1"; }

start_client
SERVER_PID=$(ps -o ppid= -p "$(pane_field "$(active_pane)" pid)" | tr -d ' ')
check "the server's pid is known ($SERVER_PID)" kill -0 "$SERVER_PID"

# --- SIGKILL -------------------------------------------------------------
# After the client the pane's shell waits for its terminal's canonical
# mode (the server gives it back: a killed client cannot, and the shell
# runs on at once), says how the client ended, and reads one line.
tm new-session -d -s killed -x 80 -y 24 \
	"$SANDMUX_BIN -L $T_NAME attach; status=\$?; until stty -a | tr ' ;' '\n\n' | grep -qx icanon; do sleep 0.1; done; echo CLIENT-EXIT=\$status canonical; read line; echo got:\$line; sleep 600"
check "a second client attaches" wait_screen "─" 10 killed
KILLED_TTY=$(tm display -p -t killed '#{pane_tty}')
KILLED_PID=$(pgrep -P "$(tm display -p -t killed '#{pane_pid}')" -x sandmux)
check "the server holds its terminal ($KILLED_TTY) while it is attached" holds "$KILLED_TTY"
kill -KILL "$KILLED_PID"
check "SIGKILL: the client is gone from the server's list at once" wait_for 3 client_count_is 1
check "... and the server holds nothing of its terminal" wait_for 3 lets_go "$KILLED_TTY"
check "... its terminal is in canonical mode again (not raw), the client seen killed" \
	wait_screen "CLIENT-EXIT=137 canonical" 5 killed
tm send-keys -t killed "typed-after" Enter
check "... and the shell reads what is typed there, not the server" wait_screen "got:typed-after" 5 killed
keys "echo main-goes-on-\$((2*3))" Enter
check "the other client goes on" wait_screen "main-goes-on-6"

# --- a terminal that stops reading -----------------------------------------
# hold.py: the other side of a pty pair for a client.  It copies what
# the client's terminal gets to OUT while reading is on; commands on a
# FIFO: "stop" and "go" reading, "type HEX" (bytes typed into the
# terminal).  The pty's name goes to OUT.tty, the client's pid to
# OUT.pid, its exit status to OUT.exit.
cat >"$T_DIR/hold.py" <<'PY'
import fcntl, os, select, struct, sys, termios
out_path, fifo, cols, rows = sys.argv[1:5]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", int(rows), int(cols), 0, 0))
with open(out_path + ".tty", "w") as f:
    f.write(os.ttyname(slave) + "\n")
pid = os.fork()
if pid > 0:
    with open(out_path + ".pid", "w") as f:
        f.write("%d\n" % pid)
if pid == 0:
    os.close(master)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execvp(sys.argv[5], sys.argv[5:])
os.close(slave)
ctl = os.open(fifo, os.O_RDWR)
out = open(out_path, "ab", buffering=0)
reading, pending, status = True, b"", None
while True:
    ready, _, _ = select.select([ctl, master] if reading else [ctl], [], [], 0.1)
    if ctl in ready:
        pending += os.read(ctl, 4096)
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            word, _, arg = line.partition(b" ")
            if word == b"stop":
                reading = False
            elif word == b"go":
                reading = True
            elif word == b"type":
                os.write(master, bytes.fromhex(arg.decode()))
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        out.write(data)
        if not data and status is not None:
            break
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            with open(out_path + ".exit", "w") as f:
                f.write("%d\n" % status)
            if not reading:
                break
PY
mkfifo "$T_DIR/hold.fifo"
hold() { printf '%s\n' "$*" >"$T_DIR/hold.fifo"; }
hold_type() { hold "type $(printf '%s' "$1" | od -An -tx1 | tr -d ' \n')"; }
out_has() { grep -aqF -- "$1" "$T_DIR/stuck.out"; }
TERM=xterm-256color python3 "$T_DIR/hold.py" "$T_DIR/stuck.out" "$T_DIR/hold.fifo" 100 30 \
	"$SANDMUX_BIN" -L "$T_NAME" attach &
HOLD_PID=$!
check "a client in a pty pair attaches" wait_for 30 client_count_is 2
STUCK_TTY=$(cat "$T_DIR/stuck.out.tty")
STUCK_PID=$(cat "$T_DIR/stuck.out.pid")
check "it is drawn ($STUCK_TTY, client $STUCK_PID)" wait_for 10 out_has "─"

hold stop
keys "seq -w 1 40000 | sed 's/.*/& & & & & & & & & & & & & &/'; echo flood-\$((3*3))-done" Enter
check "the other client draws a flood while that terminal reads nothing" wait_screen "flood-9-done" 30
check "... the server keeps what it owes the stuck terminal" wait_for 10 pending_above "$STUCK_PID" 0
echo "# bytes held for the stuck terminal: $(pending_of "$STUCK_PID")"

# Keys typed in the working client, in chunks, while every echo is owed
# to the stuck terminal too: all of them arrive, in order.
type_to_cat 28 clear
check "every key typed in the working client arrived, in order (600 keys)" wait_for 10 typed_all
check "... the stuck terminal is still owed its screen" pending_above "$STUCK_PID" 0
# Its output in capitals: the stuck terminal is sent the difference to
# what it was last sent (the flood's digits), so only text with no
# character in common with that is sure to arrive whole.
hold_type "printf 'ST%sCK\\n' UUU$(printf '\r')"
check "keys typed into the stuck terminal arrive too (drawn in the other client)" \
	wait_screen "STUUUCK"

hold go
check "reading again, the stuck terminal gets the newest screen" wait_for 10 out_has "STUUUCK"
check "... and nothing is owed any more" wait_for 10 eval "[ \"\$(pending_of $STUCK_PID)\" = 0 ]"
hold_type "$(printf '\002')d"
check "detached, that client leaves the server's list" wait_for 5 client_count_is 1
check "... and the server holds nothing of its terminal" wait_for 3 lets_go "$STUCK_TTY"
check "... the client said so" wait_for 5 out_has "detached"
wait "$HOLD_PID"

# Killed while its terminal is a screenful behind: the server gives the
# terminal back without waiting for it to read (it would stand still).
: >"$T_DIR/stuck.out"
rm -f "$T_DIR/stuck.out.pid"
TERM=xterm-256color python3 "$T_DIR/hold.py" "$T_DIR/stuck.out" "$T_DIR/hold.fifo" 100 30 \
	"$SANDMUX_BIN" -L "$T_NAME" attach &
HOLD_PID=$!
check "another client in a pty pair attaches" wait_for 30 client_count_is 2
STUCK_PID=$(cat "$T_DIR/stuck.out.pid")
STUCK_TTY=$(cat "$T_DIR/stuck.out.tty")
check "... and is drawn" wait_for 10 out_has "─"
hold stop
keys "clear; seq -w 1 40000 | sed 's/.*/& & & & & & & & & & & & & &/'; echo flood-\$((4*4))-done" Enter
check "its terminal falls a screenful behind" wait_for 30 behind "$STUCK_PID"
kill -KILL "$STUCK_PID"
check "SIGKILLed while behind: gone from the list" wait_for 5 client_count_is 1
check "... its terminal given back without waiting for it" wait_for 5 \
	grep -q "client $STUCK_PID: its terminal stopped reading; given back without waiting" "$LOG"
check "... and the server holds nothing of it" wait_for 3 lets_go "$STUCK_TTY"
wait "$HOLD_PID"
keys "echo last-\$((5*5))" Enter
check "the working client still works" wait_screen "last-25" 30
finish
