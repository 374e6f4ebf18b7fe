/*
 * notify-floor: what one seccomp user notification costs on this host,
 * alone: the floor under every supervised call (docs/supervisor.md,
 * Costs).
 *
 *   notify-floor [CALLS [WORK_US [SPIN_US [continue|addfd|create DIR]]]]
 *
 * A child opens /dev/null CALLS times (default 20,000) bare, then again
 * under a filter that sends openat to a listener.  The parent answers
 * each notification CONTINUE and does nothing else: no path read, no
 * /proc, no decision.  It waits the way the supervisor does (poll, with
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP where the kernel has it).  WORK_US
 * makes the child compute that long between calls, as a real workload
 * does (a cat reading the file it opened); SPIN_US makes the parent poll
 * without sleeping that long after each answer before it sleeps.  With
 * addfd the parent answers as an emulated open does (supervisor-decide.c,
 * respond_fd): it opens /dev/null itself and hands the fd over with
 * SECCOMP_IOCTL_NOTIF_ADDFD and SECCOMP_ADDFD_FLAG_SEND, which returns
 * only once the child has installed the fd (kernel/seccomp.c waits for
 * it): one more sleep and wake-up of the parent per call.  With create
 * the calls are creates of new files in DIR (O_CREAT|O_EXCL, bare and
 * notified alike), and the parent makes each file itself and hands it
 * over as addfd does: the floor under an emulated create, the file
 * system's work included.  Prints
 * one JSON line: {"calls":N,"bare_us":B,"notified_us":T,"added_us":T-B}
 * (microseconds per call), then the listener's own CPU (user + system)
 * per notification: {"listener_cpu_us":C}, the least a supervisor
 * answering that way spends per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seccomp-compat.h"


static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double work_us;
static const char *create_dir; /* create mode: new files here */

/* The i-th file of a loop (phase 'b' bare, 'n' notified) in create mode. */
static int create_file(char phase, long i)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%c%ld", create_dir, phase, i);
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

static double open_loop(long calls, char phase)
{
	double t0 = now_us();

	for (long i = 0; i < calls; i++) {
		double until = now_us() + work_us;

		while (work_us > 0 && now_us() < until)
			;
		int fd = create_dir ? create_file(phase, i) : open("/dev/null", O_RDONLY);

		if (fd < 0) {
			perror("notify-floor: open");
			_exit(1);
		}
		close(fd);
	}
	return (now_us() - t0) / calls;
}

static int send_fd(int sock, int fd)
{
	char byte = 0, control[CMSG_SPACE(sizeof fd)] = {0};
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fd);
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1 || (c = CMSG_FIRSTHDR(&msg)) == NULL)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/* The child: bare loop, filter, hand the listener over, notified loop. */
static void child(int sock, int out, long calls)
{
	struct sock_filter insns[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof insns / sizeof insns[0], insns};
	double bare, notified;
	char line[128];
	int listener, n;

	bare = open_loop(calls, 'b');
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0 ||
	    send_fd(sock, listener) != 0) {
		perror("notify-floor: filter");
		_exit(1);
	}
	close(listener);
	notified = open_loop(calls, 'n');
	n = snprintf(line, sizeof line,
		     "{\"calls\":%ld,\"bare_us\":%.2f,\"notified_us\":%.2f,\"added_us\":%.2f}\n",
		     calls, bare, notified, notified - bare);
	if (write(out, line, (size_t)n) != n)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000;
	double spin_us = argc > 3 ? atof(argv[3]) : 0;
	int addfd = argc > 4 && (strcmp(argv[4], "addfd") == 0 || strcmp(argv[4], "create") == 0);
	long answered = 0;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct rusage usage;
	int pair[2], listener, status;
	pid_t pid;

	work_us = argc > 2 ? atof(argv[2]) : 0;
	if (argc > 4 && strcmp(argv[4], "create") == 0)
		create_dir = argc > 5 ? argv[5] : ".";
	if (calls <= 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
		return 2;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(pair[0]);
		child(pair[1], STDOUT_FILENO, calls);
	}
	close(pair[1]);
	listener = recv_fd(pair[0]);
	if (listener < 0) {
		fprintf(stderr, "notify-floor: no listener from the child\n");
		return 1;
	}
	/* Where the kernel has it (6.6): answer on the caller's CPU. */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	for (;;) {
		struct pollfd pfd = {listener, POLLIN, 0};
		double until = now_us() + spin_us;
		int n;

		while ((n = poll(&pfd, 1, 0)) == 0 && now_us() < until)
			;
		if (n == 0 && poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd.revents & (POLLHUP | POLLERR))
			break;
		memset(&req, 0, sizeof req);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
			continue;
		if (addfd) {
			int fd = create_dir ? create_file('n', answered++) : open("/dev/null", O_RDONLY | O_CLOEXEC);
			struct seccomp_notif_addfd add = {
			    .id = req.id,
			    .flags = SECCOMP_ADDFD_FLAG_SEND,
			    .srcfd = (__u32)fd,
			};

			if (fd >= 0 && ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0) {
				close(fd);
				continue;
			}
			if (fd >= 0)
				close(fd);
		}
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	/* The listener slept through the bare loop: its CPU is the
	 * answering.  RUSAGE_SELF leaves the child out. */
	if (getrusage(RUSAGE_SELF, &usage) != 0)
		return 1;
	printf("{\"listener_cpu_us\":%.2f}\n",
	       (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 / calls +
		       (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / (double)calls);
	return 0;
}
