/*
 * sv-deny: the seccomp filter's outright denials, tried one at a time
 * from inside a native pane.
 *
 *   sv-deny CHECK
 *
 * CHECK: tiocsti (push a byte into the terminal's input), tiocsti-high
 * (the same request with junk in the high 32 bits), userns
 * (unshare(CLONE_NEWUSER)), clone3, io_uring, ptrace, mount, x32 (a
 * syscall by its x32 number: the process must be killed).
 * Prints "CHECK: ERRNO-NAME" or "CHECK: ok"; exits 0 when the call was
 * refused, 1 when it succeeded.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

static int report(const char *check, long rc)
{
	if (rc < 0) {
		printf("%s: %s\n", check, strerrorname_np(errno));
		return 0;
	}
	printf("%s: ok\n", check);
	return 1;
}

int main(int argc, char **argv)
{
	const char *check = argc == 2 ? argv[1] : "";
	char c = '#';

	if (strcmp(check, "tiocsti") == 0)
		return report(check, ioctl(0, TIOCSTI, &c));
	if (strcmp(check, "tiocsti-high") == 0)
		return report(check, syscall(SYS_ioctl, 0, 0x100000000UL | TIOCSTI, &c));
	if (strcmp(check, "userns") == 0)
		return report(check, unshare(CLONE_NEWUSER));
	if (strcmp(check, "clone3") == 0)
		return report(check, syscall(SYS_clone3, NULL, 0));
	if (strcmp(check, "io_uring") == 0)
		return report(check, syscall(SYS_io_uring_setup, 1, NULL));
	if (strcmp(check, "ptrace") == 0)
		return report(check, ptrace(PTRACE_TRACEME, 0, NULL, NULL));
	if (strcmp(check, "mount") == 0)
		return report(check, mount("none", "/tmp", "tmpfs", 0, NULL));
	if (strcmp(check, "x32") == 0) {
		fflush(stdout);
		return report(check, syscall(__X32_SYSCALL_BIT | SYS_getpid));
	}
	fprintf(stderr, "usage: sv-deny tiocsti|tiocsti-high|userns|clone3|io_uring|ptrace|mount|x32\n");
	return 2;
}
