#!/bin/sh
# The presets (read_only, workspace_write, delete_guard, full_access)
# with the real bwrap and a real server, judged on the host's files and
# the violation log: read_only writes nowhere but its /tmp;
# workspace_write writes the work tree, not $HOME; delete_guard writes
# $HOME (its layer) but unlink(2) of a file there is refused and
# reported, and `rm` in the pane moves a work-tree file to the trash
# (files/ + info/*.trashinfo); full_access runs as none, said in the log.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "not ok - needs bwrap and python3"
	exit 1
fi
export HOME="$T_DIR/home"
mkdir -p "$HOME" "$T_DIR/ro" "$T_DIR/ws" "$T_DIR/dg"
echo keep >"$HOME/keep.txt"
echo doomed >"$T_DIR/dg/doomed.txt"
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
# A native default: full_access must still run as none (every other pane
# here names its backend).
mkdir -p "$XDG_CONFIG_HOME/sandmux"
# "lists": the macOS-only lists, for profile show.
echo '{"default_backend": "native", "profiles": {"lists": {"network": "proxied",
	"exec_interpreters": ["/usr/bin/python3"], "unix_sockets": ["/run/agent.sock"]}}}' \
	>"$XDG_CONFIG_HOME/sandmux/config.json"
TRASH="$HOME/.local/share/Trash"

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
violations() { grep '"kind":"violation"' "$LOG" | grep -cF "\"target\":\"$1\""; }
# The log is appended after the refusal is answered: wait for it.
has_violations() { [ "$(violations "$1")" -ge "$2" ]; }
# run NAME PROFILE DIR SCRIPT: a native pane running SCRIPT; its report
# (stdout and stderr) on the pane, read back into $T_DIR/NAME.txt.
run() {
	id=$(sm new -d -s "$1" -x 200 -y 50 --backend native --profile "$2" -c "$3" -- sh -c \
		"$4 echo ALL-DONE; sleep 600" | pane_id)
	wait_for 30 capture_has "%$id" ALL-DONE
	sm capture -t "%$id" -S - >"$T_DIR/$1.txt"
	echo "$id"
}

# --- read_only: the work tree refuses a write, /tmp takes it ------------------
R=$(cd "$T_DIR/ro" && pwd -P)
ro=$(run ro read_only "$R" "echo x >new.txt; echo new=\$?; echo x >/tmp/t; echo tmp=\$?;")
pane_json "$ro" >"$T_DIR/ro.json"
check "read_only: runs native under its name" \
	sh -c "grep -q '\"backend\":\"native\"' '$T_DIR/ro.json' && grep -q '\"profile\":\"read_only\"' '$T_DIR/ro.json'"
check "read_only: a write in the work tree is refused" \
	sh -c "grep -q 'new=[12]' '$T_DIR/ro.txt' && [ ! -e '$R/new.txt' ]"
check "read_only: the sandbox's /tmp takes it" grep -q 'tmp=0' "$T_DIR/ro.txt"

# --- workspace_write: the work tree yes, $HOME no -----------------------------
S=$(cd "$T_DIR/ws" && pwd -P)
ws=$(run ws workspace_write "$S" "echo x >new.txt; echo new=\$?; echo x >\$HOME/h.txt; echo home=\$?;")
check "workspace_write: a write in the work tree lands on the host" \
	sh -c "grep -q 'new=0' '$T_DIR/ws.txt' && [ -e '$S/new.txt' ]"
check "workspace_write: a write in \$HOME is refused" \
	sh -c "grep -q 'home=[12]' '$T_DIR/ws.txt' && [ ! -e '$HOME/h.txt' ]"
wait_for 10 has_violations "$HOME/h.txt" 1
check "workspace_write: ... and reported" has_violations "$HOME/h.txt" 1
check "workspace_write: its trash exists, with files/ and info/" sh -c "[ -d '$TRASH/files' ] && [ -d '$TRASH/info' ]"

# --- workspace_write in a linked worktree: its git metadata lies outside ------
git init -q "$T_DIR/main" && git -C "$T_DIR/main" -c user.name=t -c user.email=t@t \
	commit -q --allow-empty -m base && git -C "$T_DIR/main" worktree add -q "$T_DIR/linked" 2>/dev/null
M=$(cd "$T_DIR/main" && pwd -P)
L=$(cd "$T_DIR/linked" && pwd -P)
lw=$(run lw workspace_write "$L" "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m inpane; echo commit=\$?; echo x >'$M/.git/hooks/pre-commit'; echo hook=\$?;")
check "workspace_write, linked worktree: git commit writes its gitdir and commondir" \
	sh -c "grep -q 'commit=0' '$T_DIR/lw.txt' && git -C '$L' log -1 --format=%s | grep -qx inpane"
check "workspace_write, linked worktree: the commondir's hooks stay unwritable" \
	sh -c "grep -q 'hook=[12]' '$T_DIR/lw.txt' && [ ! -e '$M/.git/hooks/pre-commit' ]"

# --- delete_guard: writes in $HOME, no deletes there, rm to the trash ---------
G=$(cd "$T_DIR/dg" && pwd -P)
dg=$(run dg delete_guard "$G" "echo x >\$HOME/made.txt; echo made=\$?;
	python3 -c 'import os; os.unlink(os.path.expanduser(\"~/keep.txt\"))'; echo unlink=\$?;
	/bin/rm -f \$HOME/keep.txt; echo binrm=\$?; cat \$HOME/keep.txt;
	echo x >scratch; /bin/rm scratch; echo worktree_rm=\$?;
	echo rm=\$(command -v rm); rm doomed.txt; echo trash=\$?;")
check "delete_guard: \$HOME is writable (its copy-on-write layer)" \
	sh -c "grep -q 'made=0' '$T_DIR/dg.txt' && [ -e '$XDG_STATE_HOME/sandmux/home-layer/delete_guard/upper/made.txt' ]"
check "delete_guard: unlink(2) of a file in \$HOME is refused" \
	sh -c "grep -q 'unlink=1' '$T_DIR/dg.txt' && grep -q 'binrm=1' '$T_DIR/dg.txt' && grep -qx keep '$T_DIR/dg.txt'"
wait_for 10 has_violations "$HOME/keep.txt" 2
check "delete_guard: ... and each refusal is a violation" has_violations "$HOME/keep.txt" 2
check "delete_guard: the host's file is untouched" grep -qx keep "$HOME/keep.txt"
check "delete_guard: deletes in the work tree are fine" \
	sh -c "grep -q 'worktree_rm=0' '$T_DIR/dg.txt' && [ ! -e '$G/scratch' ]"
check "delete_guard: rm on PATH is the trash's: $(grep 'rm=/' "$T_DIR/dg.txt")" \
	grep -q 'rm=/.*/sandmux-trash/rm' "$T_DIR/dg.txt"
check "delete_guard: rm moved the work-tree file to the host's trash" \
	sh -c "grep -q 'trash=0' '$T_DIR/dg.txt' && [ ! -e '$G/doomed.txt' ] && grep -qx doomed '$TRASH/files/doomed.txt'"
check "delete_guard: ... with its .trashinfo (Path, DeletionDate)" \
	sh -c "grep -qx 'Path=$G/doomed.txt' '$TRASH/info/doomed.txt.trashinfo' && grep -q '^DeletionDate=2' '$TRASH/info/doomed.txt.trashinfo'"

# --- full_access: no sandbox, labelled none ------------------------------------
fa=$(sm new -d -s fa -x 100 -y 20 --profile full_access -- sh -c 'echo x >"$HOME/fa.txt"; echo FA-DONE; sleep 600' | pane_id)
wait_for 30 capture_has "%$fa" FA-DONE
pane_json "$fa" >"$T_DIR/fa.json"
check "full_access: the pane runs as none, default_backend native notwithstanding" grep -q '"backend":"none"' "$T_DIR/fa.json"
check "full_access: ... and wrote the host's \$HOME" [ -e "$HOME/fa.txt" ]
check "full_access: the log says it is not a sandbox" \
	grep -q 'profile full_access is not a sandbox: the pane runs as none' "$XDG_STATE_HOME/sandmux/server-$T_NAME.log"
out=$(sm new -d -s fa2 --backend native --profile full_access 2>&1)
check "full_access with -b native is refused, never run unrestricted as native: $out" \
	sh -c "printf '%s' \"\$1\" | grep -q invalid_profile" _ "$out"

# --- profile show -------------------------------------------------------------
for p in read_only workspace_write delete_guard full_access lists; do
	sm profile show "$p" -c "$G" >"$T_DIR/show-$p.linux" 2>&1
	sm profile show "$p" -c "$G" --platform macos >"$T_DIR/show-$p.macos" 2>&1
done
check "profile show read_only (linux): the bwrap argv, no writable root" \
	sh -c "grep -q '^/.*bwrap --die-with-parent' '$T_DIR/show-read_only.linux' && grep -q '^writable roots: *$' '$T_DIR/show-read_only.linux'"
check "profile show workspace_write (linux): the work tree and trash writable, deletes only in the work tree" \
	sh -c "grep -q '^writable roots: .*$G' '$T_DIR/show-workspace_write.linux' && grep -q 'Trash' '$T_DIR/show-workspace_write.linux' && grep -q '^deletes: only in $G' '$T_DIR/show-workspace_write.linux'"
check "profile show delete_guard (linux): the rm of the trash" \
	grep -q '^rm: .*sandmux-trash' "$T_DIR/show-delete_guard.linux"
check "profile show full_access (linux): not a sandbox" \
	grep -q 'not a sandbox' "$T_DIR/show-full_access.linux"
check "profile show delete_guard (macos): SBPL with the delete guard" \
	sh -c "grep -q '^(version 1)' '$T_DIR/show-delete_guard.macos' && grep -q '(allow file-write-unlink (subpath \"$G\"))' '$T_DIR/show-delete_guard.macos'"
check "profile show read_only (macos): SBPL, no root but the temp" \
	sh -c "grep -q '^(version 1)' '$T_DIR/show-read_only.macos' && ! grep -q '(allow file-write\\* (subpath \"$G\"))' '$T_DIR/show-read_only.macos'"
check "profile show workspace_write (macos): SBPL" grep -q '^(version 1)' "$T_DIR/show-workspace_write.macos"
check "profile show full_access (macos): not a sandbox" grep -q 'not a sandbox' "$T_DIR/show-full_access.macos"
check "profile show lists (macos): the interpreter may run, the socket be reached" \
	sh -c "grep -qF '(allow process-exec (literal \"/usr/bin/python3\"))' '$T_DIR/show-lists.macos' && grep -qF '(allow network-outbound (remote unix-socket (path-literal \"/run/agent.sock\")))' '$T_DIR/show-lists.macos'"
check "profile show lists (linux): both lists shown as macOS only" \
	sh -c "grep -q '^exec_interpreters (macOS only): /usr/bin/python3' '$T_DIR/show-lists.linux' && grep -q '^unix_sockets (macOS only): /run/agent.sock' '$T_DIR/show-lists.linux'"
out=$(sm profile show nope 2>&1)
check "profile show: an unknown profile is an error with its code: $out" \
	sh -c "printf '%s' \"\$1\" | grep -q 'invalid_profile' && printf '%s' \"\$1\" | grep -q delete_guard" _ "$out"
out=$(sm profile show read_only --platform beos 2>&1)
check "profile show: an unknown platform is an error with its code: $out" \
	sh -c "printf '%s' \"\$1\" | grep -q 'invalid_argument' && printf '%s' \"\$1\" | grep -q macos" _ "$out"
finish
