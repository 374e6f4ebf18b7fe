#!/bin/sh
# `capture --last-command`: the output of the last command a shell marked
# with OSC 133 (prompt A, command B, output C, end D), as shells with
# prompt marks print them (here written by hand, as such a shell
# would); a pane whose shell marks nothing is refused with a reason.
. "$(dirname "$0")/../lib.sh"

sm new -d -s m -x 80 -y 24 -- sh -c '
mark() { printf "\033]133;%s\007" "$1"; }
mark A; printf "$ "; mark B; printf "make\r\n"; mark C; printf "cc -o x x.c\r\nwarning: unused\r\n"
mark "D;1"; mark A; printf "$ "; mark B; printf "ls\r\n"; mark C; printf "a.txt\r\nb.txt\r\n"
mark "D;0"; mark A; printf "$ done"; exec sleep 600' >/dev/null
check "setup: the pane printed" wait_for 10 capture_has %1 done
check "capture --last-command prints the last command's output" sh -c \
	"[ \"\$('$SANDMUX_BIN' -L $T_NAME capture -t %1 --last-command)\" = \"\$(printf 'a.txt\nb.txt')\" ]"

sm new -d -s plain -x 80 -y 24 -- sh -c 'echo no marks; exec sleep 600' >/dev/null
check "setup: the plain pane printed" wait_for 10 capture_has plain "no marks"
sm capture -t plain --last-command >"$T_DIR/out" 2>"$T_DIR/err"
check "a pane without marks: refused, with the reason" sh -c \
	"[ ! -s '$T_DIR/out' ] && grep -q 'marked no command' '$T_DIR/err' && grep -q invalid_state '$T_DIR/err'"
finish
