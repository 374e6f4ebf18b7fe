/* iouring: io_uring_setup().  io_uring submits opens and reads that a
 * seccomp filter never sees, so the shim denies the syscalls outright.
 * Prints the result; exits 0 if a ring was created. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	char params[120] = { 0 };
	long fd = syscall(SYS_io_uring_setup, 4, params);

	if (fd < 0) {
		printf("io_uring_setup: %s\n", strerror(errno));
		return 1;
	}
	printf("io_uring_setup: OK fd %ld\n", fd);
	return 0;
}
