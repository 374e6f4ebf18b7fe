/*
 * watch: the guest's own refusals, reported (watch.h says why and how):
 * the shell's seccomp filter, and the agent's answers to its
 * notifications.  Part of the guest agent (agent.c), static, libc only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "watch.h"

#define WATCH_MAX 256

/* What apply_policy really mounted. */
static const char *masked[WATCH_MAX], *bound_read_only[WATCH_MAX];
static int nmasked, nbound_read_only;

void watch_masked(const char *path)
{
	if (nmasked < WATCH_MAX)
		masked[nmasked++] = path;
}

void watch_read_only(const char *path)
{
	if (nbound_read_only < WATCH_MAX)
		bound_read_only[nbound_read_only++] = path;
}

static const int watched_calls[] = {SYS_open,  SYS_openat,  SYS_creat,	SYS_truncate,
				    SYS_mkdir, SYS_mkdirat, SYS_unlink, SYS_unlinkat};

int watch_install(int sock)
{
	enum { N = sizeof watched_calls / sizeof watched_calls[0] };
	struct sock_filter code[4 + N + 2];
	struct sock_fprog prog = {.len = 0, .filter = code};
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = "l", .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof control};
	int listener, n = 0;

	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	code[n++] =
	    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (int i = 0; i < N; i++)
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)watched_calls[i],
							 (unsigned char)(N - i), 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	prog.len = (unsigned short)n;
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		return -1;
	memset(control, 0, sizeof control);
	CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &listener, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		return -1;
	close(listener);
	return 0;
}

int watch_receive(int sock)
{
	char control[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1 ||
	    (c = CMSG_FIRSTHDR(&msg)) == NULL || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/* path made absolute against dir (a directory's path), "." and ".."
 * and repeated slashes resolved by name, into out. */
static void normalise(const char *dir, const char *path, char *out, size_t size)
{
	char joined[8192];
	size_t len = 0;

	snprintf(joined, sizeof joined, "%s/%s", path[0] == '/' ? "" : dir, path);
	out[0] = '\0';
	for (char *save = NULL, *part = strtok_r(joined, "/", &save); part != NULL;
	     part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") == 0) {
			char *slash = strrchr(out, '/');

			len = slash != NULL ? (size_t)(slash - out) : 0;
			out[len] = '\0';
			continue;
		}
		if (len + strlen(part) + 2 > size)
			break;
		out[len++] = '/';
		strcpy(out + len, part);
		len += strlen(part);
	}
	if (len == 0)
		snprintf(out, size, "/");
}

static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The call's path argument, absolute; -1 if it cannot be read. */
static int call_path(const struct seccomp_notif *req, int at_arg, int path_arg, char *out,
		     size_t size)
{
	char file[64], raw[4097], dir[4097] = "";
	int dirfd = at_arg >= 0 ? (int)req->data.args[at_arg] : AT_FDCWD;
	ssize_t n;
	int mem;

	snprintf(file, sizeof file, "/proc/%u/mem", req->pid);
	mem = open(file, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return -1;
	n = pread(mem, raw, sizeof raw - 1, (off_t)req->data.args[path_arg]);
	close(mem);
	if (n <= 0)
		return -1;
	raw[n] = '\0';
	if (raw[0] != '/') {
		if (dirfd == AT_FDCWD)
			snprintf(file, sizeof file, "/proc/%u/cwd", req->pid);
		else
			snprintf(file, sizeof file, "/proc/%u/fd/%d", req->pid, dirfd);
		n = readlink(file, dir, sizeof dir - 1);
		if (n <= 0)
			return -1;
		dir[n] = '\0';
	}
	normalise(dir, raw, out, size);
	return 0;
}

/* One line on the control port: bytes outside printable ASCII, and
 * '%', as %HH (the host decodes and bounds it).  Written whole or not
 * at all: a path cut short would name another file. */
static void report(int ctl, const char *action, const char *path)
{
	char line[32 + 3 * 4096 + 2];
	int n = snprintf(line, sizeof line, "violation %s ", action);

	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((size_t)n + 5 > sizeof line)
			return;
		if (*p > 0x20 && *p < 0x7f && *p != '%')
			line[n++] = (char)*p;
		else
			n += snprintf(line + n, sizeof line - (size_t)n, "%%%02X", *p);
	}
	line[n++] = '\n';
	if (write(ctl, line, (size_t)n) < 0)
		return;
}

/* The errno the guest's own policy gives the call, reported, or 0. */
static int judge(int listener, int ctl, struct seccomp_notif *req)
{
	int nr = req->data.nr, at = -1, path = 0, write;
	char abs[4096];

	if (nr == SYS_openat || nr == SYS_mkdirat || nr == SYS_unlinkat)
		at = 0, path = 1;
	if (nr == SYS_open || nr == SYS_openat) {
		long flags = (long)req->data.args[nr == SYS_open ? 1 : 2];

		write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
	} else {
		write = 1;
	}
	/* Still the caller's (not a reused pid's) once its memory is read. */
	if (call_path(req, at, path, abs, sizeof abs) != 0 ||
	    ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0)
		return 0;
	for (int i = 0; i < nmasked; i++)
		if (under(abs, masked[i])) {
			report(ctl, write ? "file-write*" : "file-read*", abs);
			return EACCES;
		}
	for (int i = 0; write && i < nbound_read_only; i++)
		if (under(abs, bound_read_only[i])) {
			report(ctl, "file-write*", abs);
			return EROFS;
		}
	return 0;
}

void watch_answer(int listener, int ctl)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int err;

	memset(&req, 0, sizeof req);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return;
	err = judge(listener, ctl, &req);
	memset(&resp, 0, sizeof resp);
	resp.id = req.id;
	/* CONTINUE decides nothing here: this filter only reports.  The
	 * guest's masks and read-only binds enforce (and before them the
	 * host's side of each share), so a thread that swaps the path after
	 * this look meets the same mounts; an answer of err is the one the
	 * mount would give. */
	if (err != 0)
		resp.error = -err;
	else
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller is gone (a signal), nothing to answer. */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
