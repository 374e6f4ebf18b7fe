/*
 * os: the calls Linux and macOS spell differently (os.h).  Linux keeps
 * the calls it always made, atomically close-on-exec; macOS, which has
 * no pipe2, SOCK_CLOEXEC or /proc, sets the flag right after creating
 * the fd.  Threat of that gap: a fork+exec in another thread between
 * the two calls inherits the fd.  The server runs its launches on its
 * one loop thread, so nothing forks in that gap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef __APPLE__
#include <libproc.h>
#include <mach-o/dyld.h>
#include <stdint.h>
#endif

#include "os.h"

#ifndef __linux__
static int set_cloexec(int fd, int flags)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return -1;
	if ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
		return -1;
	return 0;
}
#endif

int os_pipe_cloexec(int fds[2], int flags)
{
#ifdef __linux__
	return pipe2(fds, O_CLOEXEC | flags);
#else
	if (pipe(fds) != 0)
		return -1;
	if (set_cloexec(fds[0], flags) != 0 || set_cloexec(fds[1], flags) != 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	return 0;
#endif
}

int os_socket_cloexec(int domain, int type, int protocol)
{
#ifdef __linux__
	return socket(domain, type | SOCK_CLOEXEC, protocol);
#else
	int fd = socket(domain, type, protocol);

	if (fd >= 0 && set_cloexec(fd, 0) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
#endif
}

int os_peer_credentials(int fd, uid_t *uid, pid_t *pid)
{
#ifdef __linux__
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -1;
	if (uid != NULL)
		*uid = cred.uid;
	if (pid != NULL)
		*pid = cred.pid;
	return 0;
#else
	uid_t peer_uid;
	gid_t peer_gid;
	pid_t peer_pid = -1;
	socklen_t len = sizeof peer_pid;

	if (getpeereid(fd, &peer_uid, &peer_gid) != 0)
		return -1;
	if (pid != NULL && getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &peer_pid, &len) != 0)
		return -1;
	if (uid != NULL)
		*uid = peer_uid;
	if (pid != NULL)
		*pid = peer_pid;
	return 0;
#endif
}

int os_dup_cloexec(int fd, int to)
{
#ifdef __linux__
	return dup3(fd, to, O_CLOEXEC);
#else
	if (dup2(fd, to) < 0)
		return -1;
	if (set_cloexec(to, 0) != 0) {
		close(to);
		return -1;
	}
	return to;
#endif
}

void os_close_from(int lowest)
{
#ifdef __linux__
	close_range((unsigned int)lowest, ~0U, 0);
#else
	long max = sysconf(_SC_OPEN_MAX);

	for (long fd = lowest; fd < (max > 0 ? max : 65536); fd++)
		close((int)fd);
#endif
}

#ifdef __linux__
/* A /proc symlink's target into out: 0, or -1 (none, or too long). */
static int read_link(const char *link, char *out, size_t size)
{
	ssize_t n = readlink(link, out, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		return -1;
	out[n] = '\0';
	return 0;
}
#endif

int os_self_exe(char *out, size_t size)
{
#ifdef __linux__
	return read_link("/proc/self/exe", out, size);
#else
	char self[PATH_MAX], real[PATH_MAX];
	uint32_t n = sizeof self;

	if (_NSGetExecutablePath(self, &n) != 0 || realpath(self, real) == NULL ||
	    strlen(real) >= size)
		return -1;
	memcpy(out, real, strlen(real) + 1);
	return 0;
#endif
}

int os_fd_path(int fd, char *out, size_t size)
{
#ifdef __linux__
	char link[64];

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	return read_link(link, out, size);
#else
	char path[PATH_MAX];

	if (fcntl(fd, F_GETPATH, path) != 0 || strlen(path) >= size)
		return -1;
	memcpy(out, path, strlen(path) + 1);
	return 0;
#endif
}

int os_process_cwd(pid_t pid, char *out, size_t size)
{
#ifdef __linux__
	char link[64];

	snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	return read_link(link, out, size);
#else
	struct proc_vnodepathinfo info;

	if (proc_pidinfo(pid, PROC_PIDVNODEPATHINFO, 0, &info, sizeof info) != (int)sizeof info ||
	    strlen(info.pvi_cdir.vip_path) >= size)
		return -1;
	memcpy(out, info.pvi_cdir.vip_path, strlen(info.pvi_cdir.vip_path) + 1);
	return 0;
#endif
}

int os_process_cwd_stat(pid_t pid, struct stat *st)
{
#ifdef __linux__
	char link[64];

	snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	return stat(link, st);
#else
	char path[PATH_MAX];

	return os_process_cwd(pid, path, sizeof path) != 0 ? -1 : stat(path, st);
#endif
}

int os_process_name(pid_t pid, char *out, size_t size)
{
#ifdef __linux__
	char path[64];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(out, (int)size, f) == NULL)
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
#else
	out[0] = '\0';
	return proc_name(pid, out, (uint32_t)size) > 0 ? 0 : -1;
#endif
}
