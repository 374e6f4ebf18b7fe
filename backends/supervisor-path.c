/*
 * supervisor-path: reading the child.  What each supervised call's
 * arguments are (the table below, as strace's syscallent: the number,
 * the name, where its paths and flags are), read once from the child's
 * memory; a path made absolute in the child's view and its parent
 * pinned inside the sandbox's root (pin_parent), the /proc links the
 * pin cannot follow walked here (resolve_walk); the child's ids, and
 * each thread's umask and cwd kept until it changes them ("the child's
 * fs_struct").  Nothing here decides: supervisor-decide.c does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "subpath.h"
#include "supervisor-internal.h"

/* --- a call's arguments and paths ---------------------------------------- */

/* A setxattr's value, read from the child (one call at a time). */
char xattr_value[XATTR_SIZE_MAX];

/* Empty strings, no fd.  Not a memset: the buffers are 12 KiB a path,
 * and zeroing them (and the call's, 29 KiB in all) on every notification
 * cost more than reading the path. */
void sv_path_init(struct sv_path *p)
{
	p->dirfd = AT_FDCWD;
	p->raw[0] = p->abs[0] = p->canon[0] = p->name[0] = '\0';
	p->parent = -1;
}

/* An open that neither creates nor writes. */
static bool plain_read_flags(uint64_t flags)
{
	return (flags & (O_CREAT | O_TRUNC | O_ACCMODE)) == 0 && (flags & O_TMPFILE) != O_TMPFILE;
}

void sv_call_init(struct sv_call *c, struct sv_pane *pane, struct seccomp_notif *req)
{
	c->pane = pane;
	c->req = req;
	c->syscall = "?";
	c->root = -1;
	sv_path_init(&c->a);
	sv_path_init(&c->b);
	c->flags = 0;
	c->mode = 0;
	c->dev = 0;
	c->target[0] = '\0';
	c->umask = 0;
	c->fsuid = 0;
	c->fsgid = 0;
	c->plain_read = false;
	c->fd_form = c->nofollow = c->times_now = false;
	c->xname[0] = '\0';
	c->xsize = 0;
	c->addrlen = 0;
}

/* Read a NUL-terminated string at addr in pid with process_vm_readv:
 * first to the end of its page (most paths end there: one page pinned
 * instead of two), then the rest in one call, one remote piece per page,
 * so a string that ends just before an unmapped page is still read (the
 * call stops at the first piece it cannot read and returns what it
 * got). */
static int read_child_string(pid_t pid, uint64_t addr, char *out, size_t size)
{
	struct iovec local, remote[PATH_MAX / 4096 + 2];
	size_t pieces = 0, first = 4096 - (addr & 4095), got;
	ssize_t n;

	if (addr == 0)
		return -EFAULT;
	if (first > size)
		first = size;
	local = (struct iovec){out, first};
	remote[0] = (struct iovec){(void *)(uintptr_t)addr, first};
	n = process_vm_readv(pid, &local, 1, remote, 1, 0);
	if (n <= 0)
		return -EFAULT;
	if (memchr(out, '\0', (size_t)n) != NULL)
		return 0;
	if ((size_t)n < first)
		return -EFAULT;
	got = first;
	while (got < size && pieces < sizeof remote / sizeof remote[0]) {
		size_t want = size - got < 4096 ? size - got : 4096;

		remote[pieces].iov_base = (void *)(uintptr_t)(addr + got);
		remote[pieces++].iov_len = want;
		got += want;
	}
	if (pieces == 0)
		return -ENAMETOOLONG;
	local = (struct iovec){out + first, got - first};
	n = process_vm_readv(pid, &local, 1, remote, pieces, 0);
	if (n <= 0)
		return -EFAULT;
	if (memchr(out + first, '\0', (size_t)n) != NULL)
		return 0;
	return (size_t)n < got - first ? -EFAULT : -ENAMETOOLONG;
}

bool notif_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The child's directory for dirfd, spelled in its own view. */
static int child_dir(pid_t pid, int dirfd, char *out, size_t size)
{
	char link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
	n = readlink(link, out, size - 1);
	if (n <= 0)
		return -EBADF;
	out[n] = '\0';
	if (out[0] != '/')
		return -ENOTDIR; /* a pipe, a socket, an unreachable directory */
	return 0;
}

/* The last number on a /proc/PID/status line ("NSpid:\t812\t3"). */
static long last_number(const char *p)
{
	long v = -1;
	char *end;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return v;
		v = strtol(p, &end, 10);
		p = end;
	}
}

/* /proc/PID/status into buf, NUL-terminated: 0, or -ESRCH when the
 * process is gone.  One read: the file is far smaller than buf. */
static int proc_status_read(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -ESRCH;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return 0;
}

/* The child's own ids in its pid namespace: what "self" and
 * "thread-self" name in the sandbox's /proc. */
static int child_ns_ids(pid_t pid, long *tgid, long *tid)
{
	char buf[4096];
	const char *p, *q;

	if (proc_status_read(pid, buf, sizeof buf) != 0)
		return -ESRCH;
	if ((p = strstr(buf, "\nNStgid:")) == NULL || (q = strstr(buf, "\nNSpid:")) == NULL)
		return -ESRCH;
	*tgid = last_number(p + 8);
	*tid = last_number(q + 7);
	return *tgid > 0 && *tid > 0 ? 0 : -ESRCH;
}

/* Where path leads in the child's view, resolved one component at a
 * time as the kernel would, including the /proc links that the pinning
 * openat2 cannot follow: "self" and "thread-self" (they would name the
 * supervisor, which is not in the sandbox's pid namespace) and the magic
 * links cwd, root and fd/N (RESOLVE_NO_MAGICLINKS refuses them; read
 * here from the sandbox's own /proc, they give the child's directory in
 * its own view).  out is absolute, with no symlink before its first
 * missing component.  Only used after a pin failed, so the common case
 * pays nothing; the act is still pinned by openat2 on what this gives. */
static int resolve_walk(struct sv_call *c, const char *path, char *out, size_t size)
{
	char rest[PATH_MAX], cur[PATH_MAX] = "", link[PATH_MAX], next[PATH_MAX];
	long tgid = -1, tid = -1;
	size_t len = 0, pos = 0;
	int hops = 0;

	if (snprintf(rest, sizeof rest, "%s", path) >= (int)sizeof rest)
		return -ENAMETOOLONG;
	while (rest[pos] != '\0') {
		const char *comp = rest + pos, *end;
		struct stat st;
		size_t n;
		ssize_t k;

		while (*comp == '/')
			comp++;
		end = strchrnul(comp, '/');
		n = (size_t)(end - comp);
		pos = (size_t)(end - rest);
		if (n == 0 || (n == 1 && comp[0] == '.'))
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			while (len > 0 && cur[--len] != '/')
				;
			cur[len] = '\0';
			continue;
		}
		if (len + n + 2 > sizeof cur)
			return -ENAMETOOLONG;
		cur[len++] = '/';
		memcpy(cur + len, comp, n);
		len += n;
		cur[len] = '\0';
		if (strcmp(cur, "/proc/self") == 0 || strcmp(cur, "/proc/thread-self") == 0) {
			if (tgid < 0 && child_ns_ids(c->req->pid, &tgid, &tid) != 0)
				return -ESRCH;
			len = (size_t)(cur[6] == 's' ? snprintf(cur, sizeof cur, "/proc/%ld", tgid)
						     : snprintf(cur, sizeof cur,
								"/proc/%ld/task/%ld", tgid, tid));
			continue;
		}
		if (fstatat(c->root, cur + 1, &st, AT_SYMLINK_NOFOLLOW) != 0)
			break; /* missing: the rest stays as spelled */
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++hops > MAX_SYMLINK_HOPS)
			return -ELOOP;
		if ((k = readlinkat(c->root, cur + 1, link, sizeof link - 1)) <= 0)
			return -ENOENT;
		link[k] = '\0';
		if (subpath_of(cur, "/proc")) {
			/* A magic link to a pipe, a socket ("pipe:[81]") or a
			 * deleted directory leads nowhere a name can be made. */
			if (link[0] != '/' && strchr(link, ':') != NULL)
				return -ENOTDIR;
			if (k > 10 && strcmp(link + k - 10, " (deleted)") == 0)
				return -ENOENT;
		}
		/* The link's own component goes; its target is walked next. */
		if (link[0] == '/')
			len = 0;
		else
			while (len > 0 && cur[--len] != '/')
				;
		cur[len] = '\0';
		if (snprintf(next, sizeof next, "%s%s", link, rest + pos) >= (int)sizeof next)
			return -ENAMETOOLONG;
		memcpy(rest, next, strlen(next) + 1);
		pos = 0;
	}
	if (snprintf(out, size, "%s%s", len > 0 ? cur : "", rest + pos) >= (int)size)
		return -ENAMETOOLONG;
	if (out[0] == '\0')
		snprintf(out, size, "/");
	return 0;
}

/* --- the child's fs_struct: umask and cwd, kept per thread ------------- */

/* Two things the supervisor needs from a calling thread cost more to read
 * than the rest of an answer: its umask, for what it creates (only
 * /proc/PID/status holds it, formatted whole on every read: 23 us here,
 * more than all the rest of an emulated create), and its cwd, for every
 * relative path (a readlink of /proc/PID/cwd, a fifth of a read's
 * answer).  Both live in the thread's fs_struct, and only umask(2),
 * chdir(2) and fchdir(2) change them (chroot needs a capability the pane
 * does not have; setns, unshare of a mount namespace and pivot_root are
 * denied), so they are kept per thread, and kept true:
 * - the filter sends every umask, chdir and fchdir here, let through
 *   (CONTINUE: they name no file a rule could refuse).  Each one drops
 *   every kept value of the pane (threads and CLONE_FS processes share
 *   one fs_struct), and leaves its thread "pending" until the change has
 *   landed: the thread made another call, or /proc/TID/syscall shows it
 *   asleep in another syscall, or gone.  While a thread is pending,
 *   nothing is kept;
 * - a thread that is gone (its PIDFD_THREAD pidfd is readable) loses its
 *   entry, so a reused id is read afresh.
 * A kept cwd serves plain reads only, as the start of their path (the
 * read is then judged where it leads, and opened there: emulate_read).
 * A rename or rmdir done here drops every kept value (dirs_moved), since
 * it may move a thread's directory; one the host does is not seen, and a
 * relative read then starts from the old spelling.  Creates, writes and
 * every pin read the cwd afresh.  A kept umask is fidelity, not a
 * rule: a process can fchmod whatever it makes (allowed there). */
static void thread_drop(struct sv_thread *e)
{
	if (e->tid != 0)
		close(e->pidfd);
	e->tid = 0;
}

/* Every kept thread's pidfd is in one epoll set (sv.threads_ep), which
 * sits in the thread's poll set: a thread that exits makes it readable,
 * and threads_gone drops its entry before any notification of that
 * round is served.  Threat: a thread id reused (pid_max may be 32768)
 * by another thread of the pane, whose cwd and umask are not the kept
 * ones.  That is airtight without a per-call check: a notification
 * being served was queued by a thread that is alive (it waits for the
 * answer), so a thread that had that id before it died before the
 * notification was queued, and its pidfd was readable before poll(2)
 * looked at any fd. */
void threads_gone(void)
{
	struct epoll_event ev[32];
	int n;

	do {
		n = epoll_wait(sv.threads_ep, ev, 32, 0);
		for (int i = 0; i < n; i++)
			thread_drop(ev[i].data.ptr);
	} while (n == 32);
}

/* umask, chdir, fchdir: the pane's kept values are no longer true. */
void fs_changing(struct sv_pane *p, pid_t tid, int nr)
{
	p->fs_epoch++;
	if (p->fs_pending_n < sizeof p->fs_pending / sizeof p->fs_pending[0]) {
		p->fs_pending[p->fs_pending_n].tid = tid;
		p->fs_pending[p->fs_pending_n++].nr = nr;
	} else {
		p->fs_uncached = true;
	}
}

/* Every notification: its thread is back from any such call it made. */
void fs_settled(struct sv_pane *p, pid_t tid)
{
	for (unsigned i = 0; i < p->fs_pending_n; i++)
		if (p->fs_pending[i].tid == tid)
			p->fs_pending[i--] = p->fs_pending[--p->fs_pending_n];
}

/* Is tid still in (or about to enter, or running after) syscall nr?
 * "running" says nothing, and neither does a file that cannot be read
 * for another reason than the thread being gone: both count as still
 * in. */
static bool still_in(pid_t tid, int nr)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno != ENOENT && errno != ESRCH;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH && errno != ENOENT;
	buf[n] = '\0';
	return strncmp(buf, "running", 7) == 0 || atoi(buf) == nr;
}

/* May anything be kept (or used) now? */
static bool fs_keepable(struct sv_pane *p)
{
	for (unsigned i = 0; i < p->fs_pending_n; i++)
		if (!still_in(p->fs_pending[i].tid, p->fs_pending[i].nr))
			p->fs_pending[i--] = p->fs_pending[--p->fs_pending_n];
	return p->fs_pending_n == 0 && !p->fs_uncached;
}

/* The calling thread's entry, still true; or NULL. */
static struct sv_thread *thread_find(struct sv_call *c)
{
	struct sv_pane *p = c->pane;

	for (size_t i = 0; i < sizeof p->threads / sizeof p->threads[0]; i++) {
		struct sv_thread *e = &p->threads[i];

		if (e->tid != (pid_t)c->req->pid)
			continue;
		if (e->epoch == p->fs_epoch)
			return e;
		thread_drop(e);
		return NULL;
	}
	return NULL;
}

/* A new, empty entry for the calling thread, or NULL.  The pidfd comes
 * first: a value read after it, on a call still live after the read
 * (thread_store), belongs to the thread the pidfd names. */
static struct sv_thread *thread_add(struct sv_call *c)
{
	struct sv_pane *p = c->pane;
	struct sv_thread *e;
	int pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, PIDFD_THREAD);
	struct epoll_event ev = {.events = EPOLLIN};

	if (pidfd < 0)
		return NULL;
	e = &p->threads[p->thread_next++ % (sizeof p->threads / sizeof p->threads[0])];
	thread_drop(e);
	ev.data.ptr = e;
	if (epoll_ctl(sv.threads_ep, EPOLL_CTL_ADD, pidfd, &ev) != 0) {
		close(pidfd);
		return NULL;
	}
	e->tid = c->req->pid;
	e->pidfd = pidfd;
	e->epoch = p->fs_epoch;
	e->umask_known = e->cwd_known = false;
	return e;
}

/* The entry to keep a value just read in: the call is still live. */
static struct sv_thread *thread_store(struct sv_call *c, struct sv_thread *e)
{
	if (e != NULL && !notif_valid(c->pane->listener, c->req->id)) {
		thread_drop(e);
		return NULL;
	}
	return e;
}

/* A rename or rmdir done here may have moved (or removed) the directory
 * a thread's kept cwd names, in any pane: a kept cwd is a spelling, and
 * plain reads are opened here from it (emulate_read).  So every kept
 * value goes, as after a chdir, and is read afresh. */
void dirs_moved(void)
{
	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		p->fs_epoch++;
	pthread_mutex_unlock(&sv.lock);
}

/* The child's umask, for what it creates, and only read by the calls
 * that create with a mode. */
int child_umask(struct sv_call *c)
{
	bool keep = fs_keepable(c->pane);
	struct sv_thread *e = keep ? thread_find(c) : NULL;
	char buf[4096];
	unsigned mask;
	const char *p;

	if (e != NULL && e->umask_known) {
		c->umask = e->umask;
		return 0;
	}
	if (keep && e == NULL)
		e = thread_add(c);
	if (proc_status_read(c->req->pid, buf, sizeof buf) != 0 ||
	    (p = strstr(buf, "\nUmask:")) == NULL || sscanf(p + 7, "%o", &mask) != 1)
		return -ESRCH;
	c->umask = mask;
	if ((e = thread_store(c, e)) != NULL) {
		e->umask = mask;
		e->umask_known = true;
	}
	return 0;
}

/* The cwd a plain read's relative path starts from. */
static int read_cwd(struct sv_call *c, char *out, size_t size)
{
	bool keep = fs_keepable(c->pane);
	struct sv_thread *e = keep ? thread_find(c) : NULL;
	int rc;

	if (e != NULL && e->cwd_known) {
		snprintf(out, size, "%s", e->cwd);
		return 0;
	}
	if (keep && e == NULL)
		e = thread_add(c);
	if ((rc = child_dir(c->req->pid, AT_FDCWD, out, size)) != 0)
		return rc;
	if ((e = thread_store(c, e)) != NULL) {
		snprintf(e->cwd, sizeof e->cwd, "%s", out);
		e->cwd_known = true;
	}
	return 0;
}

int make_absolute(struct sv_call *c, struct sv_path *p)
{
	char dir[PATH_MAX];
	int rc;

	if (p->raw[0] == '/') {
		snprintf(p->abs, sizeof p->abs, "%s", p->raw);
		return 0;
	}
	if (c->plain_read && p->dirfd == AT_FDCWD)
		rc = read_cwd(c, dir, sizeof dir);
	else
		rc = child_dir(c->req->pid, p->dirfd, dir, sizeof dir);
	if (rc != 0)
		return rc;
	if (snprintf(p->abs, sizeof p->abs, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, p->raw) >=
	    (int)sizeof p->abs)
		return -ENAMETOOLONG;
	return 0;
}

/* Does path have a ".." component? */
bool has_dotdot(const char *path)
{
	for (const char *q = path; (q = strstr(q, "..")) != NULL; q += 2)
		if ((q == path || q[-1] == '/') && (q[2] == '/' || q[2] == '\0'))
			return true;
	return false;
}

/* Split abs into its directory and last component; pin the directory
 * inside the child's root and spell it canonically. */
int pin_parent(struct sv_call *c, struct sv_path *p)
{
	char dir[PATH_MAX], link[64], canon[PATH_MAX];
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    /* Threat: a symlink or ".." climbing out of the sandbox's root;
	     * magic links (/proc/self/...) would name the supervisor. */
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	size_t len = strlen(p->abs);
	char *slash;
	ssize_t n;

	while (len > 1 && p->abs[len - 1] == '/')
		p->abs[--len] = '\0';
	slash = strrchr(p->abs, '/');
	if (slash == NULL || strlen(slash + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	snprintf(p->name, sizeof p->name, "%s", slash + 1);
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - p->abs), p->abs);
	if (dir[0] == '\0')
		snprintf(dir, sizeof dir, "/");
	if (p->parent >= 0)
		close(p->parent);
	if (!has_dotdot(dir)) {
		/* The common case in one call.  A walk that met no symlink
		 * (RESOLVE_NO_SYMLINKS; magic links are symlinks too) and no
		 * "..": the kernel went down exactly the components spelled,
		 * so the spelling, collapsed, is the kernel's own name for
		 * the directory and the readlink below would only repeat it.
		 * Any symlink on the way fails here and takes the full road. */
		struct open_how plain = how;

		plain.resolve |= RESOLVE_NO_SYMLINKS;
		p->parent = (int)syscall(SYS_openat2, c->root, dir, &plain, sizeof plain);
		if (p->parent >= 0) {
			normalize(dir, canon, sizeof canon);
			goto pinned;
		}
	}
	p->parent = (int)syscall(SYS_openat2, c->root, dir, &how, sizeof how);
	if (p->parent < 0 && (errno == ENOENT || errno == ELOOP) && final_object) {
		/* Through /proc/self, /proc/PID/cwd, /dev/fd/N, a symlink to
		 * one of them: resolve those links here, then pin again. */
		char walked[PATH_MAX];
		int err = errno;

		if (resolve_walk(c, dir, walked, sizeof walked) != 0 || strcmp(walked, dir) == 0) {
			errno = err;
		} else {
			snprintf(dir, sizeof dir, "%s", walked);
			p->parent = (int)syscall(SYS_openat2, c->root, dir, &how, sizeof how);
		}
	}
	if (p->parent < 0)
		return -errno;
	snprintf(link, sizeof link, "/proc/self/fd/%d", p->parent);
	n = readlink(link, canon, sizeof canon - 1);
	if (n <= 0)
		return -EACCES;
	canon[n] = '\0';
pinned:
	if (snprintf(p->canon, sizeof p->canon, "%s/%s", strcmp(canon, "/") == 0 ? "" : canon,
		     p->name) >= (int)sizeof p->canon)
		return -ENAMETOOLONG;
	return 0;
}

static int read_path_arg(struct sv_call *c, struct sv_path *p, int dirfd, uint64_t addr)
{
	int rc;

	p->dirfd = dirfd;
	if ((rc = read_child_string(c->req->pid, addr, p->raw, sizeof p->raw)) != 0)
		return rc;
	if (p->raw[0] == '\0')
		return -ENOENT;
	return make_absolute(c, p);
}

/* The pane's fsuid and fsgid, from the first call's /proc/PID/status.
 * Read once per pane, not per call (a /proc/PID/status read is three
 * syscalls and a file the kernel formats whole): every process of a
 * pane has the same ids and cannot change them.  bwrap maps the
 * user to itself and drops every capability; setuid and setfsuid
 * without CAP_SETUID only take the ids a process already has (real,
 * effective and saved are one id here), and no_new_privs keeps exec
 * from granting others (setuid binaries, file capabilities).  Threat:
 * a pid reused by a host process while its call waited would give that
 * process's ids: the call must still be live after the read. */
int child_ids(struct sv_call *c)
{
	char buf[4096];
	unsigned r, e, saved, fsuid, fsgid;
	const char *p, *q;

	if (!c->pane->ids_known) {
		if (proc_status_read(c->req->pid, buf, sizeof buf) != 0 ||
		    (p = strstr(buf, "\nUid:")) == NULL || (q = strstr(buf, "\nGid:")) == NULL ||
		    sscanf(p + 5, "%u %u %u %u", &r, &e, &saved, &fsuid) != 4 ||
		    sscanf(q + 5, "%u %u %u %u", &r, &e, &saved, &fsgid) != 4 ||
		    !notif_valid(c->pane->listener, c->req->id))
			return -ESRCH;
		c->pane->fsuid = fsuid;
		c->pane->fsgid = fsgid;
		c->pane->ids_known = true;
	}
	c->fsuid = c->pane->fsuid;
	c->fsgid = c->pane->fsgid;
	return 0;
}

/* Act as the child: its fsuid and fsgid on this thread.  Without
 * capabilities the kernel only lets us take our own ids, so a child
 * with other ids is refused rather than served with ours. */
int become_child(struct sv_call *c)
{
	if (c->fsuid != sv.fsuid) {
		setfsuid(c->fsuid);
		sv.fsuid = (uid_t)setfsuid((uid_t)-1);
	}
	if (c->fsgid != sv.fsgid) {
		setfsgid(c->fsgid);
		sv.fsgid = (gid_t)setfsgid((gid_t)-1);
	}
	return sv.fsuid == c->fsuid && sv.fsgid == c->fsgid ? 0 : -EPERM;
}

/* A symlink at the last component: where it leads, as a new absolute
 * path in the child's view.  0, or -errno. */
int follow_link(struct sv_path *p)
{
	char target[PATH_MAX], next[PATH_MAX];
	ssize_t n = readlinkat(p->parent, p->name, target, sizeof target - 1);
	char *slash;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (target[0] == '/') {
		snprintf(p->abs, sizeof p->abs, "%s", target);
		return 0;
	}
	/* Relative targets resolve from the link's directory, canonically. */
	slash = strrchr(p->canon, '/');
	if (snprintf(next, sizeof next, "%.*s/%s", (int)(slash - p->canon), p->canon, target) >=
	    (int)sizeof next)
		return -ENAMETOOLONG;
	snprintf(p->abs, sizeof p->abs, "%s", next);
	return 0;
}

bool is_magic_fd_path(const char *abs, int *fd)
{
	static const char *const prefixes[] = {"/proc/self/fd/", "/proc/thread-self/fd/",
					       "/dev/fd/"};
	char *end;

	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(abs, prefixes[i], n) == 0 && abs[n] >= '0' && abs[n] <= '9') {
			*fd = (int)strtol(abs + n, &end, 10);
			return *end == '\0';
		}
	}
	if (strcmp(abs, "/dev/stdin") == 0 || strcmp(abs, "/dev/stdout") == 0 ||
	    strcmp(abs, "/dev/stderr") == 0) {
		*fd = abs[5] == 'i' ? 0 : abs[8] == 'o' ? 1 : 2;
		return true;
	}
	return false;
}

/* n bytes at addr in the child. */
static int read_child(struct sv_call *c, uint64_t addr, void *out, size_t n)
{
	struct iovec local = {out, n}, remote = {(void *)(uintptr_t)addr, n};

	return process_vm_readv(c->req->pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -EFAULT;
}

/* The call names the child's fd, not a path. */
static int fd_arg(struct sv_call *c, int fd)
{
	if (fd == AT_FDCWD) {
		/* AT_EMPTY_PATH on AT_FDCWD: the cwd itself. */
		snprintf(c->a.raw, sizeof c->a.raw, ".");
		return make_absolute(c, &c->a);
	}
	c->fd_form = true;
	c->a.dirfd = fd;
	snprintf(c->a.raw, sizeof c->a.raw, "fd %d", fd);
	return 0;
}

/* A path, or with AT_EMPTY_PATH and "" the fd; AT_SYMLINK_NOFOLLOW
 * read.  Other flags are refused as the kernel would. */
static int at_arg(struct sv_call *c, int dirfd, uint64_t addr, uint64_t flags)
{
	int rc;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	c->nofollow = (flags & AT_SYMLINK_NOFOLLOW) != 0;
	if (flags & AT_EMPTY_PATH) {
		if ((rc = read_child_string(c->req->pid, addr, c->a.raw, sizeof c->a.raw)) != 0)
			return rc;
		if (c->a.raw[0] == '\0')
			return fd_arg(c, dirfd);
	}
	return read_path_arg(c, &c->a, dirfd, addr);
}

/* utime's, utimes' and futimesat's times as utimensat's. */
static int read_times(struct sv_call *c, uint64_t addr, int nr)
{
	struct timeval tv[2];
	time_t tb[2];

	if (addr == 0) {
		c->times_now = true;
		return 0;
	}
	if (nr == SYS_utimensat)
		return read_child(c, addr, c->times, sizeof c->times);
	if (nr == SYS_utime) {
		if (read_child(c, addr, tb, sizeof tb) != 0)
			return -EFAULT;
		c->times[0] = (struct timespec){tb[0], 0};
		c->times[1] = (struct timespec){tb[1], 0};
		return 0;
	}
	if (read_child(c, addr, tv, sizeof tv) != 0)
		return -EFAULT;
	for (int i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
			return -EINVAL;
		c->times[i] = (struct timespec){tv[i].tv_sec, tv[i].tv_usec * 1000};
	}
	return 0;
}

/* An xattr call's name and (for a set) value. */
static int read_xattr(struct sv_call *c, uint64_t name, uint64_t value, uint64_t size)
{
	int rc = read_child_string(c->req->pid, name, c->xname, sizeof c->xname);

	if (rc != 0)
		return rc == -ENAMETOOLONG ? -ERANGE : rc;
	if (c->xname[0] == '\0')
		return -ERANGE;
	if (size > XATTR_SIZE_MAX)
		return -E2BIG;
	c->xsize = (size_t)size;
	return size > 0 ? read_child(c, value, xattr_value, (size_t)size) : 0;
}

/* --- the supervised calls: what each one's arguments are -------------- */

/* The argument that holds a dirfd or an fd, as the kernel reads it. */
#define DIRFD(x) ((int)(int32_t)(x))

/* What follows the flags and mode: the call's other arguments, read
 * before its paths (as the kernel reads them, for the same errno).  x
 * points at the entry's more_at-th argument. */
static int more_creat(struct sv_call *c, const __u64 *x)
{
	c->flags = O_CREAT | O_WRONLY | O_TRUNC;
	return 0;
}

static int more_rmdir(struct sv_call *c, const __u64 *x)
{
	c->flags = AT_REMOVEDIR;
	return 0;
}

/* openat2's struct open_how: x[0] the address, x[1] its size. */
static int more_open_how(struct sv_call *c, const __u64 *x)
{
	struct open_how how = {0};
	struct iovec local = {&how, sizeof how}, remote = {(void *)(uintptr_t)x[0], sizeof how};

	if (x[1] < sizeof how ||
	    process_vm_readv(c->req->pid, &local, 1, &remote, 1, 0) != sizeof how)
		return -EFAULT;
	/* RESOLVE_* restrictions are relative to the dirfd; the emulation
	 * resolves from the root.  Nobody's libc needs them; refuse rather
	 * than resolve differently. */
	if (how.resolve != 0 && (how.flags & (O_CREAT | O_ACCMODE | O_TRUNC)))
		return -EOPNOTSUPP;
	c->flags = how.flags, c->mode = (mode_t)how.mode;
	return 0;
}

static int more_dev(struct sv_call *c, const __u64 *x)
{
	c->dev = (dev_t)x[0];
	return 0;
}

/* symlink's target. */
static int more_target(struct sv_call *c, const __u64 *x)
{
	return read_child_string(c->req->pid, x[0], c->target, sizeof c->target);
}

static int more_length(struct sv_call *c, const __u64 *x)
{
	c->length = (off_t)x[0];
	return 0;
}

static int more_owner(struct sv_call *c, const __u64 *x)
{
	c->owner = (uid_t)x[0], c->group = (gid_t)x[1];
	return 0;
}

static int more_times(struct sv_call *c, const __u64 *x)
{
	return read_times(c, x[0], c->req->data.nr);
}

/* x: name, value, size, flags. */
static int more_xattr_set(struct sv_call *c, const __u64 *x)
{
	c->xflags = (int)x[3];
	return read_xattr(c, x[0], x[1], x[2]);
}

static int more_xattr_name(struct sv_call *c, const __u64 *x)
{
	return read_xattr(c, x[0], 0, 0);
}

/* bind's and connect's socket and address: x: fd, address, length. */
static int more_sockaddr(struct sv_call *c, const __u64 *x)
{
	c->sockfd = DIRFD(x[0]);
	if (x[2] > sizeof c->addr)
		return -EINVAL;
	c->addrlen = (socklen_t)x[2];
	return c->addrlen > 0 ? read_child(c, x[1], &c->addr, c->addrlen) : 0;
}

/* How a path argument is read. */
enum sv_form {
	SV_NONE,     /* the call has no such path */
	SV_PATH,     /* a path, from a dirfd or the cwd (read_path_arg) */
	SV_AT,	     /* a path, or with AT_EMPTY_PATH and "" the dirfd's file (at_arg) */
	SV_AT_OR_FD, /* SV_AT, and a NULL path names the dirfd's file (futimens) */
	SV_FD,	     /* the file of the child's fd in `dirfd` (fd_arg) */
	SV_LINK_FD,  /* SV_PATH, or with AT_EMPTY_PATH in the flags and "" the dirfd (linkat) */
};

/* Where a path argument is: indexes into the call's arguments. */
struct sv_path_arg {
	unsigned char form; /* enum sv_form */
	signed char dirfd;  /* the dirfd (or the fd of SV_FD); -1: AT_FDCWD */
	signed char path;
	signed char at; /* SV_AT's AT_* flags; -1: none */
};

/* One supervised call, as strace's syscallent describes one: its
 * name, where its paths, flags and mode are, and what else it carries
 * (more, reading from its more_at-th argument on). */
struct sv_syscall {
	const char *name;
	struct sv_path_arg a, b;
	signed char flags; /* what c->flags holds; -1: none */
	signed char mode;  /* c->mode; -1: none */
	bool opens;	   /* the open family: c->plain_read from its flags */
	bool nofollow;	   /* a symlink at the last component is changed itself */
	int (*more)(struct sv_call *c, const __u64 *x);
	signed char more_at;
};

/* clang-format off */
#define NOPATH {SV_NONE, -1, -1, -1}
#define CWD(p) {SV_PATH, -1, p, -1}
#define REL(d, p) {SV_PATH, d, p, -1}
#define AT(d, p, f) {SV_AT, d, p, f}
#define FD(d) {SV_FD, d, -1, -1}
#define LINK_FD(d, p) {SV_LINK_FD, d, p, -1}
#define AT_OR_FD(d, p, f) {SV_AT_OR_FD, d, p, f}
/* The five every entry has, named (clang's -Wmissing-field-initializers
 * wants an entry all positional or all designated). */
#define CALL(n, pa, pb, fl, mo) .name = n, .a = pa, .b = pb, .flags = fl, .mode = mo
/* clang-format on */

/* Indexed by the call's number.  The filter (shim-filter.c) sends no
 * other; umask, chdir and fchdir carry nothing to read (they only
 * change what is kept: "the child's fs_struct"). */
static const struct sv_syscall sv_syscalls[] = {
    [SYS_open] = {CALL("open", CWD(0), NOPATH, 1, 2), .opens = true},
    [SYS_creat] = {CALL("creat", CWD(0), NOPATH, -1, 1), .more = more_creat},
    [SYS_openat] = {CALL("openat", REL(0, 1), NOPATH, 2, 3), .opens = true},
    [SYS_openat2] = {CALL("openat2", REL(0, 1), NOPATH, -1, -1), .opens = true,
		     .more = more_open_how, .more_at = 2},
    [SYS_mkdir] = {CALL("mkdir", CWD(0), NOPATH, -1, 1)},
    [SYS_mkdirat] = {CALL("mkdirat", REL(0, 1), NOPATH, -1, 2)},
    [SYS_mknod] = {CALL("mknod", CWD(0), NOPATH, -1, 1), .more = more_dev, .more_at = 2},
    [SYS_mknodat] = {CALL("mknodat", REL(0, 1), NOPATH, -1, 2), .more = more_dev, .more_at = 3},
    [SYS_symlink] = {CALL("symlink", CWD(1), NOPATH, -1, -1), .more = more_target},
    [SYS_symlinkat] = {CALL("symlinkat", REL(1, 2), NOPATH, -1, -1), .more = more_target},
    [SYS_link] = {CALL("link", CWD(0), CWD(1), -1, -1)},
    [SYS_linkat] = {CALL("linkat", LINK_FD(0, 1), REL(2, 3), 4, -1)},
    [SYS_rename] = {CALL("rename", CWD(0), CWD(1), -1, -1)},
    [SYS_renameat] = {CALL("renameat", REL(0, 1), REL(2, 3), -1, -1)},
    [SYS_renameat2] = {CALL("renameat2", REL(0, 1), REL(2, 3), 4, -1)},
    [SYS_umask] = {CALL("umask", NOPATH, NOPATH, -1, -1)},
    [SYS_chdir] = {CALL("chdir", NOPATH, NOPATH, -1, -1)},
    [SYS_fchdir] = {CALL("fchdir", NOPATH, NOPATH, -1, -1)},
    [SYS_unlink] = {CALL("unlink", CWD(0), NOPATH, -1, -1)},
    [SYS_unlinkat] = {CALL("unlinkat", REL(0, 1), NOPATH, 2, -1)},
    [SYS_rmdir] = {CALL("rmdir", CWD(0), NOPATH, -1, -1), .more = more_rmdir},
    /* The attribute calls (supervisor-emulate.c, "attributes"), bind, connect. */
    [SYS_truncate] = {CALL("truncate", CWD(0), NOPATH, -1, -1), .more = more_length, .more_at = 1},
    [SYS_chmod] = {CALL("chmod", CWD(0), NOPATH, -1, 1)},
    [SYS_fchmod] = {CALL("fchmod", FD(0), NOPATH, -1, 1)},
    [SYS_fchmodat] = {CALL("fchmodat", REL(0, 1), NOPATH, -1, 2)},
    [SYS_fchmodat2] = {CALL("fchmodat2", AT(0, 1, 3), NOPATH, -1, 2)},
    [SYS_chown] = {CALL("chown", CWD(0), NOPATH, -1, -1), .more = more_owner, .more_at = 1},
    [SYS_lchown] = {CALL("lchown", CWD(0), NOPATH, -1, -1), .nofollow = true, .more = more_owner,
		    .more_at = 1},
    [SYS_fchown] = {CALL("fchown", FD(0), NOPATH, -1, -1), .more = more_owner, .more_at = 1},
    [SYS_fchownat] = {CALL("fchownat", AT(0, 1, 4), NOPATH, -1, -1), .more = more_owner,
		      .more_at = 2},
    [SYS_utime] = {CALL("utime", CWD(0), NOPATH, -1, -1), .more = more_times, .more_at = 1},
    [SYS_utimes] = {CALL("utimes", CWD(0), NOPATH, -1, -1), .more = more_times, .more_at = 1},
    [SYS_futimesat] = {CALL("futimesat", AT_OR_FD(0, 1, -1), NOPATH, -1, -1), .more = more_times,
		       .more_at = 2},
    [SYS_utimensat] = {CALL("utimensat", AT_OR_FD(0, 1, 3), NOPATH, -1, -1), .more = more_times,
		       .more_at = 2},
    [SYS_setxattr] = {CALL("setxattr", CWD(0), NOPATH, -1, -1), .more = more_xattr_set,
		      .more_at = 1},
    [SYS_lsetxattr] = {CALL("lsetxattr", CWD(0), NOPATH, -1, -1), .nofollow = true,
		       .more = more_xattr_set, .more_at = 1},
    [SYS_fsetxattr] = {CALL("fsetxattr", FD(0), NOPATH, -1, -1), .more = more_xattr_set,
		       .more_at = 1},
    [SYS_removexattr] = {CALL("removexattr", CWD(0), NOPATH, -1, -1), .more = more_xattr_name,
			 .more_at = 1},
    [SYS_lremovexattr] = {CALL("lremovexattr", CWD(0), NOPATH, -1, -1), .nofollow = true,
			  .more = more_xattr_name, .more_at = 1},
    [SYS_fremovexattr] = {CALL("fremovexattr", FD(0), NOPATH, -1, -1), .more = more_xattr_name,
			  .more_at = 1},
    [SYS_bind] = {CALL("bind", NOPATH, NOPATH, -1, -1), .more = more_sockaddr},
    [SYS_connect] = {CALL("connect", NOPATH, NOPATH, -1, -1), .more = more_sockaddr},
};

#undef NOPATH
#undef CWD
#undef REL
#undef AT
#undef FD

/* One path argument, read as the entry says. */
static int read_arg(struct sv_call *c, struct sv_path *p, const struct sv_path_arg *arg,
		    const __u64 *a)
{
	int dirfd = arg->dirfd >= 0 ? DIRFD(a[arg->dirfd]) : AT_FDCWD;

	switch (arg->form) {
	case SV_PATH:
		return read_path_arg(c, p, dirfd, a[arg->path]);
	case SV_AT:
		return at_arg(c, dirfd, a[arg->path], arg->at >= 0 ? a[arg->at] : 0);
	case SV_AT_OR_FD:
		/* A NULL path: the fd itself (futimens). */
		if (a[arg->path] == 0)
			return dirfd == AT_FDCWD ? -EFAULT : fd_arg(c, dirfd);
		return at_arg(c, dirfd, a[arg->path], arg->at >= 0 ? a[arg->at] : 0);
	case SV_FD:
		return fd_arg(c, dirfd);
	case SV_LINK_FD:
		p->dirfd = dirfd;
		if ((c->flags & AT_EMPTY_PATH) &&
		    read_child_string(c->req->pid, a[arg->path], p->raw, sizeof p->raw) == 0 &&
		    p->raw[0] == '\0')
			return 0; /* the file is the fd itself */
		return read_path_arg(c, p, dirfd, a[arg->path]);
	}
	return 0;
}

/* Decode the call's arguments into c, as its entry in sv_syscalls
 * says; -errno when they cannot be read. */
int decode(struct sv_call *c, int *kind)
{
	const struct seccomp_data *d = &c->req->data;
	const struct sv_syscall *e;
	int rc;

	*kind = d->nr;
	c->syscall = "?";
	if (d->nr < 0 || (size_t)d->nr >= sizeof sv_syscalls / sizeof sv_syscalls[0] ||
	    (e = &sv_syscalls[d->nr])->name == NULL)
		return -ENOSYS;
	c->syscall = e->name;
	if (e->flags >= 0)
		c->flags = d->args[e->flags];
	if (e->mode >= 0)
		c->mode = (mode_t)d->args[e->mode];
	c->nofollow = e->nofollow;
	if (e->more != NULL && (rc = e->more(c, d->args + e->more_at)) != 0)
		return rc;
	if (e->opens)
		c->plain_read = plain_read_flags(c->flags);
	if ((rc = read_arg(c, &c->a, &e->a, d->args)) != 0)
		return rc;
	return read_arg(c, &c->b, &e->b, d->args);
}

/* Collapse "//", "." and ".." by spelling alone (no symlinks read). */
void normalize(const char *in, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	while (*in != '\0') {
		const char *end;
		size_t n;

		while (*in == '/')
			in++;
		end = strchrnul(in, '/');
		n = (size_t)(end - in);
		if (n == 0 || (n == 1 && in[0] == '.')) {
			/* nothing */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
		} else if (len + n + 2 < size) {
			out[len++] = '/';
			memcpy(out + len, in, n);
			len += n;
			out[len] = '\0';
		}
		in = end;
	}
	if (len == 0)
		snprintf(out, size, "/");
}
