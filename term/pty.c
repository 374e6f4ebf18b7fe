/*
 * pty: open a pseudo-terminal and start a program on it.
 *
 * The child is a session leader with the slave as its controlling
 * terminal, which is what makes job control (Ctrl-Z, fg, Ctrl-C reaching
 * the foreground job) work inside a pane.  An exec failure travels back
 * over a close-on-exec pipe so the caller learns of it synchronously.
 *
 * The child is started the way posix_spawn starts one: clone with
 * CLONE_VM | CLONE_VFORK on a stack of its own, the caller suspended
 * until the child's exec (or exit).  A fork would copy the server's page
 * tables, make every page copy-on-write for the server and have the
 * child's exec tear the copy down again: measured here on a loaded host,
 * fork to exec took 1.6-3.9 ms against 0.7-1.1 ms this way, on every
 * pane start, native or not.  Sharing the server's memory puts rules on
 * the child (pty_child): async-signal-safe calls only, as before, no
 * allocation, nothing written but its own stack (errno is the caller's
 * thread's, which the caller does not read after a successful clone),
 * and no signal handler of the server may run in it, so every signal is
 * blocked across the clone and the child resets the handlers before it
 * unblocks them.
 *
 * macOS has no clone: there the child is a fork (the same rules hold,
 * and it keeps to them), execvpe is execvp with the child's environ set,
 * and the fds left over are closed one by one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "pty.h"

#ifndef __linux__
extern char **environ; /* macOS's <unistd.h> does not declare it */
#endif

static int pty_open_master(int *master, char *slave_name, size_t size)
{
#ifdef __linux__
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
#else
	int fd = posix_openpt(O_RDWR | O_NOCTTY);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif

	if (fd < 0)
		return -errno;
	if (grantpt(fd) < 0 || unlockpt(fd) < 0 || ptsname_r(fd, slave_name, size) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	*master = fd;
	return 0;
}

/* Closes every fd from 3 up that is neither report_fd nor kept: one
 * close_range(2) per gap between the kept fds, instead of a close(2) per
 * possible fd (a thousand syscalls per pane start, and blind to fds past
 * the loop's end).  Kernels without close_range get the loop, up to the
 * fd limit.  Async-signal-safe: no allocation, the kept set sorted on
 * the stack. */
static int close_range_once(unsigned int from, unsigned int to)
{
#ifdef __linux__
	return (int)syscall(SYS_close_range, from, to, 0);
#else
	(void)from;
	(void)to;
	return -1;
#endif
}

static void close_others(const struct pty_spawn_opts *opts, int report_fd)
{
	int keep[PTY_MAX_KEEP_FDS + 1], n = 0;
	unsigned int from = 3;

	keep[n++] = report_fd;
	for (int i = 0; i < opts->nkeep_fds && n < PTY_MAX_KEEP_FDS + 1; i++)
		if (opts->keep_fds[i] >= 3)
			keep[n++] = opts->keep_fds[i];
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i <= n; i++) {
		unsigned int to = i < n ? (unsigned int)keep[i] : ~0U;

		if (to > from && close_range_once(from, to - 1) != 0) {
			struct rlimit rl;
			long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
					   ? (long)rl.rlim_cur
					   : 65536;

			for (long fd = from; fd < max && fd < (long)to; fd++)
				close((int)fd);
		}
		if (i < n && (unsigned int)keep[i] + 1 > from)
			from = (unsigned int)keep[i] + 1;
	}
}

/* What the child needs, on the caller's stack (the caller is suspended
 * until the child's exec). */
struct pty_child_args {
	const struct pty_spawn_opts *opts;
	const char *slave_name;
	int report_fd;
};

/* Runs in the child between clone and exec, in the caller's memory (see
 * the top of the file): only async-signal-safe calls, no allocation.
 * Every signal arrives blocked; the handlers are reset before the mask
 * is cleared. */
static int pty_child(void *arg)
{
	const struct pty_child_args *a = arg;
	const struct pty_spawn_opts *opts = a->opts;
	const char *slave_name = a->slave_name;
	int report_fd = a->report_fd;
	struct winsize ws = { .ws_row = opts->rows, .ws_col = opts->cols };
	sigset_t none;
	int slave, err;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setsid() < 0)
		goto fail;
	if (opts->child_setup != NULL && opts->child_setup(opts->child_arg) != 0)
		goto fail;
	slave = open(slave_name, O_RDWR);
	if (slave < 0)
		goto fail;
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		goto fail;
	ioctl(slave, TIOCSWINSZ, &ws);
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		goto fail;
	if (slave > 2)
		close(slave);
	for (int i = 0; i < opts->nkeep_fds; i++) {
		int flags = fcntl(opts->keep_fds[i], F_GETFD);
		if (flags >= 0)
			fcntl(opts->keep_fds[i], F_SETFD, flags & ~FD_CLOEXEC);
	}
	/* Nothing of the server (its socket, other panes' masters, proxy
	 * tunnels) may leak into a pane: close every fd that was not asked
	 * for, however high it is numbered. */
	close_others(opts, report_fd);
	if (opts->cwd != NULL && chdir(opts->cwd) < 0)
		goto fail;
#ifdef __linux__
	execvpe(opts->argv[0], opts->argv, opts->envp);
#else
	environ = (char **)opts->envp;
	execvp(opts->argv[0], opts->argv);
#endif
fail:
	err = errno;
	if (write(report_fd, &err, sizeof err) < 0)
		_exit(126);
	_exit(127);
}

#ifdef __linux__
/* The child's stack: execvpe's PATH search and script fallback keep
 * their buffers there.  Mapped once and kept (one child at a time: the
 * caller waits for each), with a guard page below. */
#define PTY_CHILD_STACK (256 * 1024)

static char *child_stack_top(void)
{
	static char *top;
	long page = sysconf(_SC_PAGESIZE);

	if (top == NULL) {
		char *base = mmap(NULL, PTY_CHILD_STACK + (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (base == MAP_FAILED)
			return NULL;
		if (mprotect(base, (size_t)page, PROT_NONE) != 0) {
			munmap(base, PTY_CHILD_STACK + (size_t)page);
			return NULL;
		}
		top = base + page + PTY_CHILD_STACK;
	}
	return top;
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* The child's frames never return: clear what they left in the shadow
 * before the next child uses the same stack. */
static void child_stack_reset(char *top)
{
	__asan_unpoison_memory_region(top - PTY_CHILD_STACK, PTY_CHILD_STACK);
}
#else
static void child_stack_reset(char *top)
{
	(void)top;
}
#endif

/* Start pty_child sharing our memory, suspended until its exec. */
static pid_t spawn_child(struct pty_child_args *args)
{
	char *top = child_stack_top();
	sigset_t all, saved;
	pid_t pid;
	int err;

	if (top == NULL)
		return -1;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	pid = clone(pty_child, top, CLONE_VM | CLONE_VFORK | SIGCHLD, args);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	child_stack_reset(top);
	errno = err;
	return pid;
}
#else
/* A fork: pty_child's exit status is the child's. */
static pid_t spawn_child(struct pty_child_args *args)
{
	sigset_t all, saved;
	pid_t pid;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	pid = fork();
	if (pid == 0)
		_exit(pty_child(args));
	err = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = err;
	return pid;
}
#endif

/* A pipe, both ends close-on-exec (macOS has no pipe2). */
static int pty_pipe_cloexec(int fds[2])
{
#ifdef __linux__
	return pipe2(fds, O_CLOEXEC);
#else
	if (pipe(fds) != 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

/* Start the program on the slave slave_name; the master is the caller's.
 * 0, or -errno with the message in errbuf. */
static int pty_start(const struct pty_spawn_opts *opts, const char *slave_name, pid_t *pid_out,
		     char *errbuf, size_t errsz)
{
	int report[2], child_errno = 0, rc;
	struct pty_child_args args = {opts, slave_name, -1};
	ssize_t n;
	pid_t pid;

	if (opts->nkeep_fds < 0 || opts->nkeep_fds > PTY_MAX_KEEP_FDS) {
		snprintf(errbuf, errsz, "cannot start %s: %d fds to pass, at most %d", opts->argv[0],
			 opts->nkeep_fds, PTY_MAX_KEEP_FDS);
		return -EINVAL;
	}
	if (pty_pipe_cloexec(report) < 0) {
		rc = -errno;
		snprintf(errbuf, errsz, "pipe: %s", strerror(-rc));
		return rc;
	}
	args.report_fd = report[1];
	pid = spawn_child(&args);
	if (pid < 0) {
		rc = -errno;
		close(report[0]);
		close(report[1]);
		snprintf(errbuf, errsz, "clone: %s", strerror(-rc));
		return rc;
	}
	close(report[1]);
	do
		n = read(report[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof child_errno) {
		waitpid(pid, NULL, 0);
		snprintf(errbuf, errsz, "cannot run %s: %s", opts->argv[0], strerror(child_errno));
		return -child_errno;
	}
	*pid_out = pid;
	return 0;
}

int pty_spawn(const struct pty_spawn_opts *opts, int *master_out, pid_t *pid_out, char *errbuf,
	      size_t errsz)
{
	char slave_name[128];
	int master = -1, rc;

	rc = pty_open_master(&master, slave_name, sizeof slave_name);
	if (rc < 0) {
		snprintf(errbuf, errsz, "cannot open a pty: %s", strerror(-rc));
		return rc;
	}
	rc = pty_start(opts, slave_name, pid_out, errbuf, errsz);
	if (rc < 0) {
		close(master);
		return rc;
	}
	/* The server's loop must never block on a pane. */
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	*master_out = master;
	return 0;
}

int pty_spawn_on(const struct pty_spawn_opts *opts, int master, pid_t *pid_out, char *errbuf,
		 size_t errsz)
{
	char slave_name[128];

	if (ptsname_r(master, slave_name, sizeof slave_name) != 0) {
		snprintf(errbuf, errsz, "ptsname: %s", strerror(errno));
		return -errno;
	}
	return pty_start(opts, slave_name, pid_out, errbuf, errsz);
}

int pty_resize(int master, int rows, int cols)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	/* The kernel sends SIGWINCH to the foreground group on change. */
	return ioctl(master, TIOCSWINSZ, &ws) < 0 ? -errno : 0;
}

pid_t pty_foreground(int master)
{
	return tcgetpgrp(master);
}
