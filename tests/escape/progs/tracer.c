/* tracer: reach another process's memory or signal it by pid.
 *   tracer attach PID     ptrace(PTRACE_ATTACH)
 *   tracer seize PID      ptrace(PTRACE_SEIZE)
 *   tracer vmwrite PID    process_vm_writev one byte at a stack-ish address
 *   tracer vmread PID     process_vm_readv
 *   tracer pidfd PID      pidfd_open + pidfd_send_signal(SIGKILL)
 *   tracer mem PID        open /proc/PID/mem for writing
 * Prints "OK" or the errno; exits 0 only if the operation succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char byte = 0, path[64];
	struct iovec local = { &byte, 1 }, remote = { (void *)0x400000, 1 };
	pid_t pid;
	long rc = -1;

	if (argc < 3)
		return 2;
	pid = atoi(argv[2]);
	if (strcmp(argv[1], "attach") == 0)
		rc = ptrace(PTRACE_ATTACH, pid, 0, 0);
	else if (strcmp(argv[1], "seize") == 0)
		rc = ptrace(PTRACE_SEIZE, pid, 0, 0);
	else if (strcmp(argv[1], "vmwrite") == 0)
		rc = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	else if (strcmp(argv[1], "vmread") == 0)
		rc = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	else if (strcmp(argv[1], "pidfd") == 0) {
		int fd = syscall(SYS_pidfd_open, pid, 0);
		rc = fd < 0 ? -1 : syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	} else if (strcmp(argv[1], "mem") == 0) {
		snprintf(path, sizeof path, "/proc/%d/mem", pid);
		rc = open(path, O_RDWR);
		if (rc >= 0)
			rc = 0;
	}
	if (rc < 0 && errno != 0) {
		printf("%s %d: %s\n", argv[1], pid, strerror(errno));
		return 1;
	}
	printf("%s %d: OK\n", argv[1], pid);
	return 0;
}
