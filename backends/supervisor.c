/*
 * supervisor: answers the seccomp notifications of every native pane
 * (see supervisor.h for the threads, docs/supervisor.md for the rules).
 *
 * The order of one answer:
 *
 *   1. receive the notification; read its path arguments once from the
 *      child's memory (process_vm_readv) and make them absolute in the
 *      child's view (a relative path joins the child's cwd or dirfd,
 *      read from /proc/PID/cwd or /proc/PID/fd/N, which the kernel
 *      spells from the sandbox's own root; a plain read may take the
 *      thread's kept cwd, see "the child's fs_struct");
 *   2. check the notification is still live (SECCOMP_IOCTL_NOTIF_ID_VALID):
 *      only then do the strings belong to the call being decided;
 *   3. pin the parent directory: openat2(/proc/PID/root, dir,
 *      RESOLVE_IN_ROOT) resolves it exactly as the child would, and the
 *      kernel's name for that fd is the canonical location decided on;
 *   4. decide; a refusal is an errno and a violation event; an allowed
 *      create, link, rename, mkdir, mknod, symlink or unlink is done
 *      here, on the pinned directory and the checked name, with the
 *      child's fsuid/fsgid and umask, and the result (an fd injected
 *      with SECCOMP_IOCTL_NOTIF_ADDFD, or the return value) is the
 *      child's.  A racing thread in the child can change its strings
 *      after step 1; it cannot change what is done here.
 *
 * Every write open is emulated like a create, decided on the final
 * object (a symlink at the last component followed, /proc links
 * resolved): see emulate_open.  So is every plain read (emulate_read): a
 * deny-read root missing at launch has no mask, and a read answered
 * CONTINUE would be walked again by the kernel after the check.  Only
 * O_PATH and O_TMPFILE opens are let through (CONTINUE).
 *
 * The thread holds no capabilities (dropped at start, for this thread
 * only): it must never be able to do more in the sandbox than the child
 * could, and root's CAP_DAC_OVERRIDE would walk through the masks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "gitconfig.h"
#include "gitdir.h"
#include "linked-secret.h"
#include "log.h"
#include "seccomp-compat.h"
#include "strvec.h"
#include "supervisor.h"
#include "subpath.h"
#include "xalloc.h"

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define MAX_SYMLINK_HOPS 40

/* The final-object resolution: a symlink at the last component followed
 * where the kernel would follow it, the /proc links the pinning openat2
 * cannot follow (self, cwd, root, fd/N) resolved, the file behind a
 * reopened or linked fd checked, both names of a RENAME_EXCHANGE judged
 * as new.  Threat: a name rule decided on the spelling ("l") while the
 * kernel makes or writes another object ("c.env", a nested git hook).
 * The mutation build (make's build/sandmux-spelling, -DSV_SPELLING_ONLY)
 * turns it off, so tests/escape/final-object.sh can show that its
 * attempts then succeed; nothing else defines it. */
#ifdef SV_SPELLING_ONLY
static const bool final_object = false;
#else
static const bool final_object = true;
#endif

/* --- the panes ----------------------------------------------------------- */

/* Unix sockets remembered per pane as its own (sv_pane.bound). */
#define SV_BOUND 256

struct sv_pane {
	int pane_id;
	int listener;
	int root; /* O_PATH fd of the sandbox's root, once known */
	char session[64];
	char profile[64];
	struct strvec writable, private_roots, shown_roots, deny_read, patterns, write_denies, protected_paths;
	bool delete_guard;	   /* deletes only below delete_roots (delete_refused) */
	struct strvec delete_roots;
	struct linked_secrets linked; /* the deny-read roots' files, for hand_over */
	struct strvec connect_sockets; /* sockets it may connect to unbound (the egress proxies') */
	/* The Unix sockets the pane bound (bind is done here, emulate_bind):
	 * the only others it may connect to (emulate_connect).  A ring: the
	 * oldest is forgotten first. */
	struct sv_bound {
		bool used, abstract;
		dev_t dev; /* a path's socket */
		ino_t ino;
		socklen_t len; /* an abstract name's bytes */
		char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
	} bound[SV_BOUND];
	unsigned bound_next;
	bool gone; /* supervision ended abnormally */
	bool detached;
	bool ids_known; /* fsuid, fsgid read (every process of the pane has them) */
	uid_t fsuid;
	gid_t fsgid;
	/* Each thread's umask and cwd, kept (see "the child's fs_struct"). */
	struct sv_thread {
		pid_t tid; /* 0: unused */
		int pidfd; /* PIDFD_THREAD: readable once the thread is gone */
		unsigned epoch;
		bool umask_known, cwd_known;
		mode_t umask;
		char cwd[PATH_MAX];
	} threads[16];
	unsigned thread_next; /* the entry replaced next */
	unsigned fs_epoch;    /* bumped by every umask, chdir, fchdir */
	struct {
		pid_t tid;
		int nr;
	} fs_pending[8]; /* those calls let through, maybe not landed yet */
	unsigned fs_pending_n;
	bool fs_uncached; /* more pending than that: keep nothing again */
	struct sv_pane *next;
};

struct sv_report {
	struct sv_report *next;
	int pane_id;
	cJSON *event; /* NULL: the pane's supervision is gone */
};

static struct {
	bool running;
	pthread_t thread;
	int wake_fd;
	int threads_ep; /* epoll over every kept thread's pidfd: threads_gone */
	pthread_mutex_t lock;	     /* panes, panes_changed */
	pthread_mutex_t report_lock; /* reports; taken inside lock, never around it */
	struct sv_pane *panes;
	bool panes_changed; /* the thread's poll set is out of date */
	struct sv_report *reports, **reports_tail;
	bool quit;
	bool die; /* test hook: stop as if crashed */
	struct supervisor_sink sink;
	uv_async_t async;
	uv_signal_t test_signal;
	uid_t fsuid;
	gid_t fsgid;
} sv = {.wake_fd = -1, .threads_ep = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
      .report_lock = PTHREAD_MUTEX_INITIALIZER};

/* --- policy helpers ------------------------------------------------------ */

static int copy_list(struct strvec *out, const char *const *in)
{
	for (size_t i = 0; in != NULL && in[i] != NULL; i++)
		if (strvec_push(out, in[i]) != 0)
			return -1;
	return 0;
}

static void sv_pane_free(struct sv_pane *p)
{
	if (p->root >= 0)
		close(p->root);
	for (size_t i = 0; i < sizeof p->threads / sizeof p->threads[0]; i++)
		if (p->threads[i].tid != 0)
			close(p->threads[i].pidfd);
	strvec_free(&p->writable);
	strvec_free(&p->private_roots);
	strvec_free(&p->shown_roots);
	strvec_free(&p->deny_read);
	strvec_free(&p->patterns);
	strvec_free(&p->write_denies);
	strvec_free(&p->protected_paths);
	strvec_free(&p->delete_roots);
	linked_secrets_free(&p->linked);
	strvec_free(&p->connect_sockets);
	free(p);
}

/* Does the run of components `rule` (".git/hooks") occur in path, ending
 * at a component boundary?  With below, also when path lies inside such
 * a run (".git/hooks/pre-commit"); with above, also when the run lies
 * inside path ("/w/.git" holds ".git/hooks"). */
static bool component_run_hits(const char *path, const char *rule, bool above)
{
	size_t n = strlen(rule);

	for (const char *p = path; (p = strchr(p, '/')) != NULL; p++) {
		const char *c = p + 1;
		size_t left = strlen(c);

		if (strncmp(c, rule, n) == 0 && (c[n] == '\0' || c[n] == '/'))
			return true;
		/* path ends inside the rule: "/w/.git" against ".git/hooks" */
		if (above && left < n && strncmp(rule, c, left) == 0 && rule[left] == '/')
			return true;
	}
	return false;
}

/* The rule that keeps path read-only: a write-deny's component run, or
 * a protected path it lies under (with above, also one it holds). */
static const char *write_denied(const struct sv_pane *p, const char *path, bool above)
{
	for (size_t i = 0; i < p->write_denies.n; i++)
		if (component_run_hits(path, p->write_denies.v[i], above))
			return p->write_denies.v[i];
	for (size_t i = 0; i < p->protected_paths.n; i++)
		if (subpath_of(path, p->protected_paths.v[i]) ||
		    (above && subpath_of(p->protected_paths.v[i], path)))
			return p->protected_paths.v[i];
	return NULL;
}

/* write_denied (not above), but for one rule: which other rule, if
 * any, keeps path read-only. */
static const char *write_denied_except(const struct sv_pane *p, const char *path,
				       const char *except)
{
	for (size_t i = 0; i < p->write_denies.n; i++)
		if (strcmp(p->write_denies.v[i], except) != 0 &&
		    component_run_hits(path, p->write_denies.v[i], false))
			return p->write_denies.v[i];
	for (size_t i = 0; i < p->protected_paths.n; i++)
		if (subpath_of(path, p->protected_paths.v[i]))
			return p->protected_paths.v[i];
	return NULL;
}

/* The new-file name pattern a name matches, ignoring case.  Threat: a
 * secret that the rule means to keep out made under another spelling
 * (server.PEM, id.Key, .ENV): tools that read or publish secrets by
 * name (dotenv loaders on case-insensitive file systems, editors,
 * scanners, a sync to macOS or Windows) do not care about case. */
static const char *create_pattern_hit(const struct sv_pane *p, const char *name)
{
	for (size_t i = 0; i < p->patterns.n; i++)
		if (fnmatch(p->patterns.v[i], name, FNM_PERIOD | FNM_CASEFOLD) == 0)
			return p->patterns.v[i];
	return NULL;
}

static void normalize(const char *in, char *out, size_t size);

/* A kernel-wide setting under /proc (sysctls, sysrq-trigger, ...), as
 * opposed to a process's own entries (/proc/PID, self, thread-self). */
static bool proc_global(const char *path)
{
	const char *rest = path + 5;

	if (!subpath_of(path, "/proc") || *rest == '\0')
		return false;
	rest++;
	if (strncmp(rest, "self", 4) == 0 && (rest[4] == '/' || rest[4] == '\0'))
		return false;
	if (strncmp(rest, "thread-self", 11) == 0 && (rest[11] == '/' || rest[11] == '\0'))
		return false;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	return !(rest > path + 6 && (*rest == '/' || *rest == '\0'));
}

/* --- reports to the loop thread ----------------------------------------- */

/* Out of memory is xalloc's: a violation is never dropped (docs/design.md
 * invariant 6), the server aborts instead. */
static void queue_report(int pane_id, cJSON *event)
{
	struct sv_report *r = xcalloc(1, sizeof *r);

	r->pane_id = pane_id;
	r->event = event;
	pthread_mutex_lock(&sv.report_lock);
	*sv.reports_tail = r;
	sv.reports_tail = &r->next;
	pthread_mutex_unlock(&sv.report_lock);
	uv_async_send(&sv.async);
}

static void on_reports(uv_async_t *async)
{
	struct sv_report *r;

	pthread_mutex_lock(&sv.report_lock);
	r = sv.reports;
	sv.reports = NULL;
	sv.reports_tail = &sv.reports;
	pthread_mutex_unlock(&sv.report_lock);
	while (r != NULL) {
		struct sv_report *next = r->next;

		if (r->event != NULL)
			sv.sink.emit(r->event);
		else if (sv.sink.gone != NULL)
			sv.sink.gone(r->pane_id);
		free(r);
		r = next;
	}
}

/* --- one notification ---------------------------------------------------- */

/* A path argument as the child gave it and as decided on. */
struct sv_path {
	int dirfd;	       /* the child's dirfd argument (AT_FDCWD for cwd) */
	char raw[PATH_MAX];    /* as read from the child */
	char abs[PATH_MAX];    /* absolute, in the child's view */
	int parent;	       /* pinned parent directory, or -1 */
	char canon[PATH_MAX];  /* canonical parent + "/" + name */
	char name[NAME_MAX + 1]; /* last component */
};

struct sv_call {
	struct sv_pane *pane;
	struct seccomp_notif *req;
	const char *syscall;
	int root; /* the pane's root fd (not owned) */
	struct sv_path a, b;
	uint64_t flags;
	mode_t mode;
	dev_t dev;
	char target[PATH_MAX]; /* symlink's target */
	mode_t umask;
	uid_t fsuid;
	gid_t fsgid;
	bool plain_read; /* an open that neither creates nor writes */
	/* The attribute calls (chmod, chown, utimensat, setxattr, truncate)
	 * and bind. */
	bool fd_form;	 /* the call names the child's fd a.dirfd, not a path */
	bool nofollow;	 /* a symlink at the last component is changed itself */
	uid_t owner;	 /* chown's */
	gid_t group;
	off_t length;	 /* truncate's */
	bool times_now;	 /* utimensat's NULL: both times now */
	struct timespec times[2];
	char xname[XATTR_NAME_MAX + 1];
	size_t xsize; /* the value, in xattr_value */
	int xflags;
	int sockfd; /* bind's socket (the child's fd) and address */
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* A setxattr's value, read from the child (one call at a time). */
static char xattr_value[XATTR_SIZE_MAX];

/* Empty strings, no fd.  Not a memset: the buffers are 12 KiB a path,
 * and zeroing them (and the call's, 29 KiB in all) on every notification
 * cost more than reading the path. */
static void sv_path_init(struct sv_path *p)
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

static void sv_call_init(struct sv_call *c, struct sv_pane *pane, struct seccomp_notif *req)
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

static bool notif_valid(int listener, uint64_t id)
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
						     : snprintf(cur, sizeof cur, "/proc/%ld/task/%ld",
								tgid, tid));
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
static void threads_gone(void)
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
static void fs_changing(struct sv_pane *p, pid_t tid, int nr)
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
static void fs_settled(struct sv_pane *p, pid_t tid)
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
static void dirs_moved(void)
{
	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		p->fs_epoch++;
	pthread_mutex_unlock(&sv.lock);
}

/* The child's umask, for what it creates, and only read by the calls
 * that create with a mode. */
static int child_umask(struct sv_call *c)
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

static int make_absolute(struct sv_call *c, struct sv_path *p)
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
static bool has_dotdot(const char *path)
{
	for (const char *q = path; (q = strstr(q, "..")) != NULL; q += 2)
		if ((q == path || q[-1] == '/') && (q[2] == '/' || q[2] == '\0'))
			return true;
	return false;
}

/* Split abs into its directory and last component; pin the directory
 * inside the child's root and spell it canonically. */
static int pin_parent(struct sv_call *c, struct sv_path *p)
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
static int child_ids(struct sv_call *c)
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
static int become_child(struct sv_call *c)
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

/* --- answers ------------------------------------------------------------- */

static int respond(struct sv_call *c, int64_t val, int error, bool proceed)
{
	struct seccomp_notif_resp resp = {
	    .id = c->req->id,
	    .val = val,
	    .error = error,
	    .flags = proceed ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	if (ioctl(c->pane->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
		log_debug("%s: pane %d: %s", __func__, c->pane->pane_id, strerror(errno));
	return 0;
}

static int respond_errno(struct sv_call *c, int err)
{
	return respond(c, 0, -err, false);
}

/* Hand an fd we opened to the child as the call's result. */
static int respond_fd(struct sv_call *c, int fd, bool cloexec)
{
	struct seccomp_notif_addfd addfd = {
	    .id = c->req->id,
	    .flags = SECCOMP_ADDFD_FLAG_SEND,
	    .srcfd = (uint32_t)fd,
	    .newfd_flags = cloexec ? O_CLOEXEC : 0,
	};

	if (ioctl(c->pane->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0) {
		/* The child died, or its fd table is full: answer for it. */
		int err = errno;
		close(fd);
		if (err != ENOENT)
			respond_errno(c, err == EMFILE ? EMFILE : EIO);
		return 0;
	}
	close(fd);
	return 0;
}

static int respond_result(struct sv_call *c, int rc)
{
	return rc < 0 ? respond_errno(c, errno) : respond(c, 0, 0, false);
}

/* --- violations ---------------------------------------------------------- */

static void violation(struct sv_call *c, const char *action, const char *target, int err,
		      const char *why)
{
	struct timespec ts;
	char raw[PATH_MAX + 256];

	clock_gettime(CLOCK_REALTIME, &ts);
	if (c->b.raw[0] != '\0')
		snprintf(raw, sizeof raw, "%s(\"%s\", \"%s\") = -%s (%s)", c->syscall, c->a.raw,
			 c->b.raw, strerrorname_np(err), why);
	else
		snprintf(raw, sizeof raw, "%s(\"%s\") = -%s (%s)", c->syscall, c->a.raw,
			 strerrorname_np(err), why);
	queue_report(c->pane->pane_id,
		     sandbox_violation_to_json(&(struct sandbox_violation){
			 .action = action,
			 .target = target,
			 .source = "supervisor",
			 .time = ts.tv_sec + ts.tv_nsec / 1e9,
			 .pane = c->pane->pane_id,
			 .session = c->pane->session[0] != '\0' ? c->pane->session : NULL,
			 .backend = "native",
			 .profile = c->pane->profile[0] != '\0' ? c->pane->profile : NULL,
			 .raw = raw,
			 .syscall = c->syscall,
			 .pid = (pid_t)c->req->pid,
		     }));
}

static int deny(struct sv_call *c, const char *action, const char *target, int err,
		const char *why)
{
	violation(c, action, target, err, why);
	return respond_errno(c, err);
}

/* --- git directories, by shape (gitdir.h) ------------------------------ */

/* Up to GITCONFIG_MAX bytes of a regular file, or -1 (errno set). */
static ssize_t read_small_file(int dir, const char *name, char *buf, mode_t *mode)
{
	struct stat st;
	ssize_t n, got = 0;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > GITCONFIG_MAX) {
		close(fd);
		errno = EACCES;
		return -1;
	}
	*mode = st.st_mode & 07777;
	while (got <= GITCONFIG_MAX && (n = read(fd, buf + got, GITCONFIG_MAX + 1 - got)) > 0)
		got += n;
	close(fd);
	if (got > GITCONFIG_MAX) {
		errno = EACCES;
		return -1;
	}
	return got;
}

/* Put text in place as dir's `name`, a new file of the supervisor's own
 * (the caller is the child: become_child), made with mode 0 and given
 * mode once renamed there: nothing the pane holds open, or links
 * elsewhere, is that file.  0, or -1 with errno set. */
static int install_copy(struct sv_call *c, int dir, const char *name, const char *text, size_t len,
			mode_t mode, unsigned flags)
{
	char tmp[64];
	int fd, rc;

	snprintf(tmp, sizeof tmp, ".config.sandmux-%llx", (unsigned long long)c->req->id);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	rc = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	if (rc == 0)
		rc = (int)syscall(SYS_renameat2, dir, tmp, dir, name, flags);
	if (rc != 0) {
		int err = errno;
		unlinkat(dir, tmp, 0);
		close(fd);
		errno = err;
		return -1;
	}
	fchmod(fd, mode);
	close(fd);
	return 0;
}

/* The outermost writable root holding path: its length, or 0. */
static size_t writable_root_len(const struct sv_pane *pane, const char *path)
{
	size_t best = 0;

	for (size_t i = 0; i < pane->writable.n; i++) {
		size_t n = strlen(pane->writable.v[i]);

		if (subpath_of(path, pane->writable.v[i]) && (best == 0 || n < best))
			best = n;
	}
	return best;
}

/*
 * dir is about to take a git directory's shape.  Threat: a hook, an
 * info/attributes, a config.worktree, a config with a core.fsmonitor,
 * planted while the directory was nothing to git, then the last name
 * made: the host's next git in a work tree whose `.git` file (or a
 * worktree's commondir) points there would run it.  So the shape comes
 * only to a directory that holds nothing but what git init, clone or
 * worktree add put there first (gitdir_born_with), and its config is
 * checked as a change from nothing (gitconfig.h) and replaced by the
 * supervisor's copy of the checked bytes: the pane may hold the old
 * file open, or linked elsewhere, to write it after the check.  NULL,
 * or why not.
 */
static const char *birth_refused(struct sv_call *c, int dir)
{
	static char why[NAME_MAX + 160];
	static char text[GITCONFIG_MAX + 1];
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	bool config = false;
	struct dirent *e;
	ssize_t len;
	mode_t mode;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return "a git directory's shape over a directory that cannot be read";
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!gitdir_born_with(e->d_name)) {
			snprintf(why, sizeof why, "a git directory's shape over its %s", e->d_name);
			closedir(d);
			return why;
		}
		config = config || strcmp(e->d_name, "config") == 0;
	}
	closedir(d);
	if (!config)
		return NULL;
	if ((len = read_small_file(dir, "config", text, &mode)) < 0)
		return "a git directory's shape over an unreadable config";
	if (!gitconfig_change_ok(NULL, 0, text, (size_t)len, why, sizeof why))
		return why;
	if (become_child(c) != 0 || install_copy(c, dir, "config", text, (size_t)len, mode, 0) != 0)
		return "a git directory's shape over a config that cannot be copied";
	return NULL;
}

/* The git directories p lies in, judged: by the name of its first
 * `.git`, and by the shape of each directory from its parent up to the
 * writable root (every one judges: a worktree's admin directory both as
 * itself and as its repository's worktrees/NAME).  And, when the call
 * makes the name that gives its parent the shape (new_entry), whether
 * the parent may take it.  The first refusal's rule in *why. */
static enum gitdir_verdict git_verdict(struct sv_call *c, const struct sv_path *p, bool new_entry,
				       bool removes, const char **why)
{
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	enum gitdir_verdict verdict = gitdir_judge_named(p->canon);
	size_t root = writable_root_len(c->pane, p->canon);
	char up[PATH_MAX] = "", parent[PATH_MAX];
	const char *slash = strrchr(p->canon, '/');
	enum gitdir_shape own = GITDIR_NONE;
	int dir = p->parent;

	*why = GITDIR_RULE;
	if (root == 0 || slash == NULL || verdict == GITDIR_REFUSED)
		return verdict;
	if (dir < 0) {
		snprintf(parent, sizeof parent, "%.*s", (int)(slash - p->canon), p->canon);
		dir = (int)syscall(SYS_openat2, c->root, parent[0] != '\0' ? parent : "/", &how,
				   sizeof how);
		/* No parent: nothing can be made or changed there. */
		if (dir < 0)
			return errno == ENOENT || errno == ENOTDIR ? verdict : GITDIR_REFUSED;
	}
	for (size_t end = (size_t)(slash - p->canon); end >= root && end > 0;) {
		enum gitdir_shape shape = gitdir_shape_at(dir, up);
		enum gitdir_verdict v;

		if (up[0] == '\0')
			own = shape;
		v = removes ? gitdir_judge_removal(shape, p->canon + end + 1)
			    : gitdir_judge(shape, p->canon + end + 1);
		if (v > verdict)
			verdict = v;
		if (verdict == GITDIR_REFUSED)
			break;
		while (end > 0 && p->canon[--end] != '/')
			;
		if (strlen(up) + 4 > sizeof up)
			break;
		strcat(up, "../");
	}
	if (verdict != GITDIR_REFUSED && new_entry && own == GITDIR_NONE &&
	    gitdir_shape_name(p->name)) {
		struct stat st;

		if (fstatat(dir, gitdir_shape_partner(p->name), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (*why = birth_refused(c, dir)) != NULL)
			verdict = GITDIR_REFUSED;
	}
	if (dir != p->parent)
		close(dir);
	return verdict;
}

static bool nr_makes_dir(int nr)
{
	return nr == SYS_mkdir || nr == SYS_mkdirat;
}

static bool nr_removes(int nr)
{
	return nr == SYS_unlink || nr == SYS_unlinkat || nr == SYS_rmdir;
}

/* A refusal: what check_mutation reports and answers. */
struct sv_refusal {
	const char *action;
	int err;
	const char *why;
};

/* The checks every name that is about to be made, replaced or removed
 * goes through: true, with the refusal filled in, when one refuses. */
static bool mutation_refused(struct sv_call *c, const struct sv_path *p, bool creates, bool above,
			     struct sv_refusal *r)
{
	const char *rule;

	/* Threat: planting or swapping files inside a secret store. */
	if (subpath_of_any(p->canon, &c->pane->deny_read))
		return *r = (struct sv_refusal){"file-write*", EACCES, "deny-read root"}, true;
	if (!subpath_of_any(p->canon, &c->pane->writable)) {
		/* The sandbox's own /tmp, /dev, /proc: nothing of the host,
		 * but for a read-only host directory shown through it (a
		 * $HOME under /tmp), whose refused writes are reported. */
		if (subpath_of_any(p->canon, &c->pane->private_roots) &&
		    !subpath_of_any(p->canon, &c->pane->shown_roots))
			return false;
		/* Threat: writing to the host outside the writable roots
		 * (the read-only mounts refuse it too; this reports it). */
		return *r = (struct sv_refusal){"file-write*", EROFS, "outside the writable roots"},
		       true;
	}
	/* Threat: planting what the host later runs unsandboxed (shell rc
	 * files, git hooks and config, editor and agent settings). */
	if ((rule = write_denied(c->pane, p->canon, above)) != NULL)
		return *r = (struct sv_refusal){"file-write*", EROFS, rule}, true;
	/* Threat: the same through any other file of a git directory, at
	 * any depth, whatever its name, made before launch or after: a
	 * commondir, an info/ entry, a worktree's config.worktree, a
	 * submodule's config, a bare repository's hooks (gitdir.h).  The
	 * config is replaced only on its own road (replace_git_config).
	 * A `.git` file may be made (git worktree add, --separate-git-dir):
	 * wherever it points, git takes only a directory of that shape,
	 * and every one is held so. */
	if (git_verdict(c, p, creates || nr_makes_dir(c->req->data.nr), nr_removes(c->req->data.nr),
			&rule) != GITDIR_EVERYDAY)
		return *r = (struct sv_refusal){"file-write*", EROFS, rule}, true;
	/* Threat: a new secret-looking file (.env, *.pem, *.key) that tools
	 * would later read or commit. */
	if (creates && (rule = create_pattern_hit(c->pane, p->name)) != NULL)
		return *r = (struct sv_refusal){"file-write-create", EACCES, rule}, true;
	return false;
}

/* mutation_refused, reported and answered.  Returns 1 when it answered
 * (denied), 0 when allowed. */
static int check_mutation(struct sv_call *c, const struct sv_path *p, bool creates, bool above)
{
	struct sv_refusal r;

	if (!mutation_refused(c, p, creates, above, &r))
		return 0;
	return deny(c, r.action, p->canon, r.err, r.why), 1;
}

/* A symlink at the last component: where it leads, as a new absolute
 * path in the child's view.  0, or -errno. */
static int follow_link(struct sv_path *p)
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

static bool is_magic_fd_path(const char *abs, int *fd)
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

/* "/dev/tty" names the opener's controlling terminal: here it would be
 * the server's (it has none).  The child's is one of its own fds 0-2
 * whose device is its controlling terminal; reopen that. */
static int reopen_ctty(struct sv_call *c, int flags)
{
	char path[64];
	struct proc_stat ps;
	unsigned long long tty_nr = proc_stat_read(c->req->pid, &ps) == 0 ? ps.tty_nr : 0;

	for (int fd = 0; tty_nr != 0 && fd <= 2; fd++) {
		struct stat st;

		snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c->req->pid, fd);
		if (stat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == tty_nr) {
			int tty = open(path, (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC | O_NOCTTY);
			return tty < 0 ? respond_errno(c, errno) : respond_fd(c, tty, flags & O_CLOEXEC);
		}
	}
	return respond_errno(c, ENXIO);
}

/* An existing FIFO: opened without blocking this thread.  A writer
 * with no reader yet gets ENXIO instead of waiting for one. */
static int open_fifo(struct sv_call *c, struct sv_path *p, int flags)
{
	int fd, rc = become_child(c);

	if (rc != 0)
		return respond_errno(c, -rc);
	fd = openat(p->parent, p->name, (flags & ~(O_CREAT | O_EXCL)) | O_NONBLOCK | O_NOFOLLOW |
					     O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return respond_errno(c, errno);
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return respond_fd(c, fd, flags & O_CLOEXEC);
}

/* The file behind the child's fd fdnum, held here as an O_PATH fd
 * (*obj) and judged: as a write (reopened for writing, or given a new
 * name by linkat) or as a read.  1 when the call was refused (and
 * answered), 0 when it may go on, on *obj and nothing else.  Threats: an
 * O_PATH fd of a protected file coming back writable through
 * /proc/self/fd/N, or linked to an unprotected name and written there;
 * an O_PATH fd of a late secret read back through /proc/self/fd/N; and a
 * second thread that dup2()s another file onto fd N between the check
 * and the act (so the act is on the object held, never on the child's
 * fd table again).  Pipes, sockets and unnamed files (O_TMPFILE, memfd,
 * deleted) have no path a rule could cover. */
static int child_fd_object(struct sv_call *c, int fdnum, bool writes, int *obj)
{
	struct sv_path at;
	char link[64];
	ssize_t n;
	int rc = 0;

	snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)c->req->pid, fdnum);
	if ((*obj = open(link, O_PATH | O_CLOEXEC)) < 0)
		return respond_errno(c, errno == ENOENT ? EBADF : errno), 1;
	if (!final_object)
		return 0;
	sv_path_init(&at);
	snprintf(link, sizeof link, "/proc/self/fd/%d", *obj);
	if ((n = readlink(link, at.abs, sizeof at.abs - 1)) <= 0)
		rc = (respond_errno(c, EBADF), 1);
	else if ((at.abs[n] = '\0', at.abs[0] != '/') ||
		 (n > 10 && strcmp(at.abs + n - 10, " (deleted)") == 0))
		rc = 0;
	else if (!writes)
		rc = subpath_of_any(at.abs, &c->pane->deny_read)
			 ? (deny(c, "file-read*", at.abs, EACCES, "deny-read root"), 1)
			 : 0;
	else if ((rc = pin_parent(c, &at)) != 0)
		rc = (respond_errno(c, -rc), 1);
	else
		rc = check_mutation(c, &at, false, false);
	if (at.parent >= 0)
		close(at.parent);
	if (rc != 0) {
		close(*obj);
		*obj = -1;
	}
	return rc;
}

static int hand_over(struct sv_call *c, int fd, bool added);

/* Re-opening one of the child's own fds (">/dev/stdout",
 * "/proc/self/fd/N"): nothing is created, and only the child's fd table
 * knows the file.  The kernel re-checks permissions on the reopen. */
static int reopen_fd(struct sv_call *c, int fdnum, int flags)
{
	bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC), added;
	char link[64];
	int obj, fd;

	if (child_fd_object(c, fdnum, writes, &obj))
		return 0;
	/* seccomp cannot inject an O_PATH fd (SECCOMP_IOCTL_NOTIF_ADDFD
	 * takes no O_PATH source); it names no content, so the kernel
	 * reopens it. */
	if (flags & O_PATH) {
		close(obj);
		return respond(c, 0, 0, true);
	}
	/* A FIFO or pipe must not hold this thread in open(2) either: a
	 * reader waits in fifo_wait, a writer with no reader gets ENXIO. */
	added = !(flags & (O_NONBLOCK | O_DIRECTORY));
	snprintf(link, sizeof link, "/proc/self/fd/%d", obj);
	fd = open(link, (flags & ~(O_CREAT | O_EXCL | O_CLOEXEC)) | O_CLOEXEC | O_NOCTTY |
			    (added ? O_NONBLOCK : 0));
	close(obj);
	return fd < 0 ? respond_errno(c, errno) : hand_over(c, fd, added);
}

/* O_CREAT | O_EXCL, the common case of a create (tar, compilers, git's
 * objects), in one call: with no ".." spelled, openat2 with
 * RESOLVE_NO_SYMLINKS makes the file exactly at the spelling, collapsed
 * (no symlink on the way, and O_EXCL never follows one at the end), so
 * the rules are judged on that name and the parent need not be pinned.
 * A directory swapped under the spelling between the check and the call
 * would have to be renamed there, and renames are judged here too (a
 * directory holding a protected path, or inside a deny root, does not
 * move).  0: answered; a negative errno to answer; 1: not this case
 * (a refusal, /proc, a symlink met), for emulate_open's long road, which
 * decides and reports it. */
static int create_new(struct sv_call *c)
{
	struct sv_path *p = &c->a;
	struct sv_refusal why;
	struct open_how how;
	int fd, rc, magic;
	char *slash;

	if (has_dotdot(p->abs) || is_magic_fd_path(p->abs, &magic))
		return 1;
	normalize(p->abs, p->canon, sizeof p->canon);
	slash = strrchr(p->canon, '/');
	if (slash[1] == '\0' || strlen(slash + 1) > NAME_MAX || subpath_of(p->canon, "/proc") ||
	    strcmp(p->canon, "/dev/tty") == 0)
		return 1;
	snprintf(p->name, sizeof p->name, "%s", slash + 1);
	if (mutation_refused(c, p, true, false, &why))
		return 1;
	if ((rc = become_child(c)) != 0 || (rc = child_umask(c)) != 0)
		return rc;
	how = (struct open_how){
	    .flags = (c->flags & ~(uint64_t)O_CLOEXEC) | O_CLOEXEC | O_NOCTTY,
	    .mode = c->mode & ~c->umask & 07777,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	fd = (int)syscall(SYS_openat2, c->root, p->canon, &how, sizeof how);
	if (fd >= 0)
		return respond_fd(c, fd, c->flags & O_CLOEXEC);
	if (errno == ELOOP || errno == EINVAL)
		return 1;
	return -errno;
}

/* The open family with O_CREAT (or creat), and every open that writes:
 * the one place a file is made or opened for writing on the child's
 * behalf.  Decided on the final object: a symlink
 * at the last component is followed (unless O_EXCL or O_NOFOLLOW say the
 * kernel would not), and the act is openat(O_NOFOLLOW) on the pinned
 * parent, so a link swapped in after the check sends us round again
 * instead of leading the open elsewhere. */
static int emulate_open(struct sv_call *c)
{
	struct sv_path *p = &c->a;
	int flags = (int)c->flags, fd, rc, magic;
	int nofollow = final_object ? O_NOFOLLOW : 0;
	bool added;
	char norm[PATH_MAX];

	if ((flags & O_CREAT) && (flags & O_EXCL) && final_object && (rc = create_new(c)) <= 0)
		return rc == 0 ? 0 : respond_errno(c, -rc);
	for (int hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
		struct sv_refusal why;
		struct stat st;
		int open_flags = flags;

		if (is_magic_fd_path(p->abs, &magic))
			return reopen_fd(c, magic, flags);
		normalize(p->abs, norm, sizeof norm);
		if (strcmp(norm, "/dev/tty") == 0)
			return reopen_ctty(c, flags);
		if ((rc = pin_parent(c, p)) != 0) {
			if (subpath_of_any(norm, &c->pane->deny_read))
				return deny(c, "file-write*", norm, EACCES, "deny-read root");
			if ((flags & O_CREAT) && subpath_of(norm, "/proc"))
				return deny(c, "file-write*", norm, EACCES,
					    "/proc is not written by creat");
			return respond_errno(c, -rc);
		}
		/* Threat: files under /proc mean what they mean to their
		 * opener (kernel settings, other processes' memory); opened
		 * here they would be the supervisor's.  Not created, not
		 * written through the supervisor, and not left to the kernel
		 * either (CONTINUE): a racing thread could swap the path. */
		if (subpath_of(p->canon, "/proc")) {
			if (!(flags & O_CREAT) && proc_global(p->canon))
				return deny(c, "file-write*", p->canon, EROFS,
					    "kernel setting under /proc");
			return deny(c, "file-write*", p->canon, EACCES,
				    flags & O_CREAT ? "/proc is not written by creat"
						    : "/proc is not written through the supervisor");
		}
		if ((flags & O_CREAT) && (flags & O_EXCL) && !mutation_refused(c, p, true, false, &why)) {
			/* Nothing to look at first: O_EXCL makes nothing but a
			 * new name (a name that is there, symlink or not, is
			 * EEXIST from the openat below, as in the kernel), and
			 * that name may be made.  What is there already could
			 * only be refused by a rule that refuses the new name
			 * too (a create is judged by every rule a write is). */
		} else if (fstatat(p->parent, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISLNK(st.st_mode) && final_object) {
				if ((flags & O_CREAT) && (flags & O_EXCL))
					return respond_errno(c, EEXIST);
				if (flags & O_NOFOLLOW)
					return respond_errno(c, ELOOP);
				if ((rc = follow_link(p)) != 0)
					return respond_errno(c, -rc);
				continue;
			}
			if (S_ISFIFO(st.st_mode)) {
				if (check_mutation(c, p, false, false))
					return 0;
				return open_fifo(c, p, flags);
			}
			/* An existing file: not new, so only the write rules,
			 * and opened without O_CREAT (no umask needed).  Gone
			 * by the open: round again, judged as a create.  (A
			 * symlink gets here only in the spelling-only build,
			 * whose open follows it, O_CREAT and all.) */
			if (check_mutation(c, p, false, false))
				return 0;
			/* (It was there when looked at: EEXIST is the answer.) */
			if ((flags & O_CREAT) && (flags & O_EXCL))
				return respond_errno(c, EEXIST);
			if (!S_ISLNK(st.st_mode))
				open_flags &= ~O_CREAT;
		} else if (check_mutation(c, p, (flags & O_CREAT) != 0, false)) {
			return 0;
		} else if (!(flags & O_CREAT)) {
			return respond_errno(c, ENOENT);
		}
		if ((rc = become_child(c)) != 0 ||
		    ((open_flags & O_CREAT) && (rc = child_umask(c)) != 0))
			return respond_errno(c, -rc);
		/* A FIFO swapped in under the checked name must not hold
		 * this thread in open(2) (see "plain reads"): O_NONBLOCK for
		 * the open, unless only a new file can come of it. */
		added = !(flags & (O_NONBLOCK | O_DIRECTORY)) &&
			!((open_flags & O_CREAT) && (open_flags & O_EXCL));
		fd = openat(p->parent, p->name,
			    open_flags | nofollow | O_CLOEXEC | O_NOCTTY | (added ? O_NONBLOCK : 0),
			    c->mode & ~c->umask & 07777);
		if (fd < 0 && errno == ELOOP && !(flags & O_NOFOLLOW))
			continue;
		if (fd < 0 && errno == ENOENT && open_flags != flags)
			continue;
		return fd < 0 ? respond_errno(c, errno) : hand_over(c, fd, added);
	}
	return respond_errno(c, ELOOP);
}

/* --- plain reads: opened here too -------------------------------------- */

/* A plain read is not answered CONTINUE either: the kernel would walk
 * the child's path again after the check, and a second thread that
 * swaps a component in between (a symlink, a renamed directory) would
 * lead that walk to a secret the host put under a deny-read root after
 * launch, which no mask covers.  So the supervisor opens what it judged,
 * as the child (its fsuid, no capabilities), and injects the fd.
 *
 * O_NONBLOCK is added to every such open the child did not ask it for
 * (unless O_DIRECTORY or O_PATH rule a FIFO out) and taken off again
 * after: a FIFO swapped in under a checked name would otherwise hold
 * this thread, and every native pane with it, in open(2) until a writer
 * came.  A FIFO the child wanted to wait on is handed to a waiter
 * thread (fifo_wait). */

/* What fcntl(F_SETFL) gives back of the child's own open flags
 * (O_ASYNC is left out: open(2) ignores it, F_SETFL would arm it). */
#define SV_SETFL_FLAGS (O_APPEND | O_DIRECT | O_NOATIME | O_NONBLOCK)

/* Blocking FIFO opens waiting at once, across every pane.  Threat: a
 * pane opening FIFOs from many threads to make the server start
 * thread after thread. */
#define SV_FIFO_WAITERS 32

struct sv_fifo_wait {
	int listener; /* a dup: the pane may be gone before the writer comes */
	uint64_t id;
	int fd;	   /* the FIFO, opened O_NONBLOCK */
	int pidfd; /* the calling thread: readable once it is gone */
	int flags; /* the child's */
};

static int fifo_waiting;
/* Guards the waiter counts (fifo_waiting, connect_waiting): waiter
 * threads end on their own. */
static pthread_mutex_t waiters_lock = PTHREAD_MUTEX_INITIALIZER;

/* Wait for the FIFO's first writer as the child's open(2) would, then
 * answer with the fd.  Linux raises POLLIN on the first data and POLLHUP
 * on a writer that came and went, not on a writer's open: the child's
 * open returns at its writer's first write (or close) instead of at its
 * open, the one difference.  The call dies with its thread (the pidfd),
 * and the wait is given up when the notification is no longer live. */
static void *fifo_waiter(void *arg)
{
	struct sv_fifo_wait *w = arg;
	struct pollfd pfd[2] = {{.fd = w->fd, .events = POLLIN}, {.fd = w->pidfd, .events = POLLIN}};

	for (;;) {
		int n = poll(pfd, 2, 1000);

		if ((n < 0 && errno != EINTR) || pfd[1].revents != 0)
			break;
		if (pfd[0].revents != 0) {
			struct seccomp_notif_addfd addfd = {
			    .id = w->id,
			    .flags = SECCOMP_ADDFD_FLAG_SEND,
			    .srcfd = (uint32_t)w->fd,
			    .newfd_flags = (w->flags & O_CLOEXEC) ? O_CLOEXEC : 0,
			};

			fcntl(w->fd, F_SETFL, w->flags & SV_SETFL_FLAGS);
			if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0 &&
			    errno == EMFILE) {
				struct seccomp_notif_resp resp = {.id = w->id, .error = -EMFILE};
				ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			}
			break;
		}
		if (n == 0 && !notif_valid(w->listener, w->id))
			break;
	}
	close(w->fd);
	close(w->pidfd);
	close(w->listener);
	free(w);
	pthread_mutex_lock(&waiters_lock);
	fifo_waiting--;
	pthread_mutex_unlock(&waiters_lock);
	return NULL;
}

/* A thread of its own to answer c's notification later (fifo_wait,
 * connect_wait): *count more of its kind (at most max), the listener
 * dup'd into *listener (the pane may be gone before the answer) and the
 * calling thread's pidfd into *pidfd, then fn(arg) started.  0: the
 * thread owns arg; else -errno, and arg is still the caller's. */
static int waiter_start(struct sv_call *c, const char *kind, int *count, int max, int *listener,
			int *pidfd, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t thread;
	int err = 0;

	pthread_mutex_lock(&waiters_lock);
	if (*count < max)
		(*count)++;
	else
		err = EAGAIN;
	pthread_mutex_unlock(&waiters_lock);
	if (err != 0) {
		log_warn("supervisor: pane %d: too many %s waiting", c->pane->pane_id, kind);
		return -err;
	}
	*listener = fcntl(c->pane->listener, F_DUPFD_CLOEXEC, 0);
	*pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, PIDFD_THREAD);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	/* The new thread has this one's credentials: no capabilities. */
	if (*listener < 0 || *pidfd < 0 || pthread_create(&thread, &attr, fn, arg) != 0) {
		/* The caller gone already (no pidfd for it), or no room. */
		err = *pidfd < 0 && errno == ESRCH ? ESRCH : EAGAIN;
		if (*listener >= 0)
			close(*listener);
		if (*pidfd >= 0)
			close(*pidfd);
		pthread_mutex_lock(&waiters_lock);
		(*count)--;
		pthread_mutex_unlock(&waiters_lock);
	}
	pthread_attr_destroy(&attr);
	return -err;
}

static int fifo_wait(struct sv_call *c, int fd)
{
	struct sv_fifo_wait *w = malloc(sizeof *w);
	int rc;

	if (w == NULL) {
		close(fd);
		return respond_errno(c, EAGAIN);
	}
	*w = (struct sv_fifo_wait){.id = c->req->id, .fd = fd, .flags = (int)c->flags};
	rc = waiter_start(c, "FIFO opens", &fifo_waiting, SV_FIFO_WAITERS, &w->listener, &w->pidfd,
			  fifo_waiter, w);
	if (rc != 0) {
		free(w);
		close(fd);
		return respond_errno(c, -rc);
	}
	return 0;
}

/* The flags a plain read is opened with here, and whether O_NONBLOCK
 * was added to them. */
static int read_open_flags(int flags, bool *added)
{
	/* openat2 refuses flags open(2) would ignore: an O_PATH open keeps
	 * only what O_PATH allows, any other only the flags a read can
	 * mean (a 64-bit kernel adds O_LARGEFILE by itself). */
	if (flags & O_PATH) {
		*added = false;
		return (flags & (O_DIRECTORY | O_NOFOLLOW)) | O_PATH | O_CLOEXEC;
	}
	*added = !(flags & (O_NONBLOCK | O_DIRECTORY));
	return (flags & (O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | O_DIRECTORY |
			 O_NOFOLLOW | O_NOATIME | O_ASYNC)) |
	       O_CLOEXEC | O_NOCTTY | (*added ? O_NONBLOCK : 0);
}

/* fd, opened here (a read, a write, a reopen), with O_NONBLOCK added
 * for the open when added: the child's, with its own flags again. */
static int hand_over(struct sv_call *c, int fd, bool added)
{
	struct stat st;
	bool known = fstat(fd, &st) == 0;

	/* Threat: a secret read (or written) under a second name, a hard
	 * link made outside the masked directories (linked-secret.h). */
	if (known && linked_secret(&c->pane->linked, c->pane->deny_read.v, &st)) {
		close(fd);
		return deny(c, c->plain_read ? "file-read*" : "file-write*",
			    c->a.canon[0] != '\0' ? c->a.canon : c->a.abs, EACCES,
			    "a hard link of a file under a deny-read root");
	}
	if (added) {
		if (known && S_ISFIFO(st.st_mode) && (c->flags & O_ACCMODE) == O_RDONLY)
			return fifo_wait(c, fd);
		fcntl(fd, F_SETFL, (int)c->flags & SV_SETFL_FLAGS);
	}
	return respond_fd(c, fd, c->flags & O_CLOEXEC);
}

/* Threat: reading a secret store.  A root that existed at launch is
 * masked, and the kernel refuses the read whatever the spelling; the
 * supervisor answers first so the user sees it.  A root that did not
 * exist has no mask: what the host puts there later is refused here
 * alone. */
static bool read_denied(struct sv_call *c, const char *path)
{
	return subpath_of_any(path, &c->pane->deny_read);
}

/* /proc/keys lists the keys its opener may view, possessed ones by its
 * keyrings: opened here, that is the server's session keyring, not the
 * pane's own (the shim joins a new one).  Threat: the names of the keys
 * the user's login or tools put there. */
static bool opener_keys(const char *path)
{
	return strcmp(path, "/proc/keys") == 0;
}

/* A plain read, judged where it leads and opened here.  The common case
 * is one openat2 of the whole path: with no ".." spelled and no symlink
 * met (RESOLVE_NO_SYMLINKS; magic links are symlinks too), the kernel
 * walks exactly the components spelled, so the spelling, collapsed, is
 * the object's name, and that name was judged.  Any symlink on the way
 * takes the long road: the parent pinned (its symlinks resolved by
 * openat2, /proc links by the walk), the last component opened with
 * O_NOFOLLOW, and a symlink there followed hop by hop, each hop judged. */
static int emulate_read(struct sv_call *c)
{
	struct sv_path *p = &c->a;
	char norm[PATH_MAX];
	bool added;
	int oflags = read_open_flags((int)c->flags, &added), fd, magic, rc;

	normalize(p->abs, norm, sizeof norm);
	if (is_magic_fd_path(norm, &magic))
		return reopen_fd(c, magic, (int)c->flags);
	if (strcmp(norm, "/dev/tty") == 0)
		return reopen_ctty(c, (int)c->flags);
	if (read_denied(c, norm))
		return deny(c, "file-read*", norm, EACCES, "deny-read root");
	if (opener_keys(norm))
		return deny(c, "file-read*", norm, EACCES, "it would list the server's keys");
	/* An O_PATH open cannot be injected (SECCOMP_IOCTL_NOTIF_ADDFD
	 * takes no O_PATH source), and it names no content: it is let
	 * through.  Every way from such an fd to content is judged on the
	 * fd's object: a reopen through /proc/self/fd/N (reopen_fd), a path
	 * under it (the pin's walk), a dirfd (its link read). */
	if (c->flags & O_PATH)
		return respond(c, 0, 0, true);
	if ((rc = become_child(c)) != 0)
		return respond_errno(c, -rc);
	if (!has_dotdot(p->abs) && final_object) {
		struct open_how how = {
		    .flags = (uint64_t)oflags,
		    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};

		fd = (int)syscall(SYS_openat2, c->root, norm, &how, sizeof how);
		if (fd >= 0)
			return hand_over(c, fd, added);
		if (errno != ELOOP)
			return respond_errno(c, errno);
	}
	for (int hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
		const char *name;

		if ((rc = pin_parent(c, p)) != 0) {
			/* Inside a mask the lookup itself fails; still report it. */
			normalize(p->abs, norm, sizeof norm);
			if (read_denied(c, norm))
				return deny(c, "file-read*", norm, EACCES, "deny-read root");
			return respond_errno(c, -rc);
		}
		if (strcmp(p->name, "..") == 0) {
			/* The parent's parent: pinned by openat2, never by an
			 * openat("..") here, which could climb out of the
			 * sandbox's root. */
			if (strlen(p->abs) + 3 > sizeof p->abs)
				return respond_errno(c, ENAMETOOLONG);
			strcat(p->abs, "/.");
			continue;
		}
		if (read_denied(c, p->canon) || read_denied(c, p->abs))
			return deny(c, "file-read*", p->canon, EACCES, "deny-read root");
		if (opener_keys(p->canon))
			return deny(c, "file-read*", p->canon, EACCES, "it would list the server's keys");
		name = p->name[0] == '\0' ? "." : p->name;
		/* (The spelling-only build lets the open follow it.) */
		fd = openat(p->parent, name, oflags | (final_object ? O_NOFOLLOW : 0));
		if (fd >= 0)
			return hand_over(c, fd, added);
		if (errno != ELOOP || !final_object)
			return respond_errno(c, errno);
		/* A symlink at the last component (or the kernel's own ELOOP). */
		if (c->flags & O_NOFOLLOW)
			return respond_errno(c, ELOOP);
		if ((rc = follow_link(p)) != 0)
			return respond_errno(c, rc == -EINVAL ? ELOOP : -rc);
		normalize(p->abs, norm, sizeof norm);
		if (is_magic_fd_path(norm, &magic))
			return reopen_fd(c, magic, (int)c->flags);
		if (strcmp(norm, "/dev/tty") == 0)
			return reopen_ctty(c, (int)c->flags);
	}
	return respond_errno(c, ELOOP);
}

/* The open family: creates and every open that writes are emulated
 * (emulate_open), and so are plain reads (emulate_read). */
static int decide_open(struct sv_call *c)
{
	int acc = (int)(c->flags & O_ACCMODE);
	bool writes = acc != O_RDONLY || (c->flags & O_TRUNC);
	int rc;

	if ((c->flags & O_TMPFILE) == O_TMPFILE) {
		/* An unnamed file; naming it later is a linkat, checked
		 * there on the final object.  The directory must still be
		 * writable.  CONTINUE is not an enforcing answer here: a
		 * racing thread that swaps the directory after the check
		 * gets an unnamed file in another place the mounts let it
		 * write, and no name anywhere until that linkat. */
		if ((rc = pin_parent(c, &c->a)) != 0)
			return respond_errno(c, -rc);
		snprintf(c->a.name, sizeof c->a.name, "(O_TMPFILE)");
		return check_mutation(c, &c->a, false, false) ? 0 : respond(c, 0, 0, true);
	}
	/* Every write is done here, never CONTINUE: the kernel would
	 * re-read the path after the check, and a racing thread could swap
	 * it for a protected file the mounts leave writable (a write-deny
	 * nested in the work tree, a host-run file made after launch). */
	if ((c->flags & O_CREAT) || writes)
		return emulate_open(c);
	return emulate_read(c);
}

/* What every emulated call on path p does first: pin its parent, decide
 * (check_mutation), take the child's ids.  False when the call has been
 * answered here (refused, or its path could not be pinned); true when it
 * is the caller's to carry out. */
static bool emulation_may_proceed(struct sv_call *c, struct sv_path *p, bool creates, bool above)
{
	int rc = p->parent >= 0 ? 0 : pin_parent(c, p);

	if (rc != 0) {
		respond_errno(c, -rc);
		return false;
	}
	if (check_mutation(c, p, creates, above))
		return false;
	if ((rc = become_child(c)) != 0) {
		respond_errno(c, -rc);
		return false;
	}
	return true;
}

/* mkdir, mknod, symlink and link's new name fail on a name that is
 * there, whatever it is: answered EEXIST as the kernel would, without a
 * violation, since nothing would be made (`mkdir -p /w/x` tries "/",
 * "/w", ... first).  False when answered.  A name that appears after
 * this check makes the act itself fail with EEXIST. */
static bool name_is_free(struct sv_call *c, struct sv_path *p)
{
	struct stat st;
	int rc = pin_parent(c, p);

	if (rc != 0 || fstatat(p->parent, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		respond_errno(c, rc != 0 ? -rc : EEXIST);
		return false;
	}
	return true;
}

static int emulate_mkdir(struct sv_call *c)
{
	int rc;

	if (!name_is_free(c, &c->a) || !emulation_may_proceed(c, &c->a, false, false))
		return 0;
	if ((rc = child_umask(c)) != 0)
		return respond_errno(c, -rc);
	return respond_result(c, mkdirat(c->a.parent, c->a.name, c->mode & ~c->umask & 07777));
}

static int emulate_mknod(struct sv_call *c)
{
	int rc;

	if (!name_is_free(c, &c->a) || !emulation_may_proceed(c, &c->a, true, true))
		return 0;
	if ((rc = child_umask(c)) != 0)
		return respond_errno(c, -rc);
	return respond_result(c, mknodat(c->a.parent, c->a.name,
					 (c->mode & S_IFMT) | (c->mode & ~c->umask & 07777),
					 c->dev));
}

/* mknod, symlink and link's new name are judged as a rename's
 * destination: a protected path below the new name counts.  Threat: a
 * symlink made where a protected path's missing ancestor would be
 * (~/.emacs.d -> ~/work/x), after which the protected path is a file
 * of the work tree. */
static int emulate_symlink(struct sv_call *c)
{
	if (!name_is_free(c, &c->a) || !emulation_may_proceed(c, &c->a, true, true))
		return 0;
	return respond_result(c, symlinkat(c->target, c->a.parent, c->a.name));
}

/*
 * The delete guard (profiles delete_guard, workspace_write, read_only).
 * Threat: a pane that may write the user's files deleting them: an
 * `rm -rf` of the wrong directory, a script cleaning up $HOME, a file
 * moved out of its place to be lost.  So removing a name (unlink,
 * rmdir) or renaming it into another directory is refused, and
 * reported, unless the name lies in the work tree (its repositories'
 * git directories with it) or the sandbox's own /tmp.  A rename inside
 * one directory stays (an editor's save, a backup `file~`): the file is
 * still there, and a write could have changed it anyway.  Judged on the
 * pinned parent's canonical name, like every other rule; a name that is
 * not there is left to the call's own ENOENT.  True when answered.
 */
static bool delete_refused(struct sv_call *c, const struct sv_path *from, const struct sv_path *to)
{
	struct stat st;
	const char *slash_from, *slash_to;

	if (!c->pane->delete_guard || !subpath_of_any(from->canon, &c->pane->writable) ||
	    subpath_of_any(from->canon, &c->pane->delete_roots) ||
	    fstatat(from->parent, from->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	if (to != NULL) {
		slash_from = strrchr(from->canon, '/');
		slash_to = strrchr(to->canon, '/');
		if (slash_from - from->canon == slash_to - to->canon &&
		    strncmp(from->canon, to->canon, (size_t)(slash_from - from->canon)) == 0)
			return false;
	}
	deny(c, "file-write*", from->canon, EACCES, "delete outside the work tree (delete guard)");
	return true;
}

static int emulate_unlink(struct sv_call *c)
{
	/* Removing a protected path (or a directory holding one) and
	 * putting something else there is the same as writing it. */
	int rc;

	if ((rc = pin_parent(c, &c->a)) != 0)
		return respond_errno(c, -rc);
	/* Only a directory holds anything: a file's removal (a worktree's
	 * `.git` file) is judged as itself, not as every rule below it. */
	if (delete_refused(c, &c->a, NULL) ||
	    !emulation_may_proceed(c, &c->a, false, (c->flags & AT_REMOVEDIR) != 0))
		return 0;
	rc = unlinkat(c->a.parent, c->a.name, (int)c->flags & AT_REMOVEDIR);
	if (rc == 0 && (c->flags & AT_REMOVEDIR))
		dirs_moved();
	return respond_result(c, rc);
}

/* link: a is the existing file, b the new name.  Threat: a second name
 * for a protected file is a way to write it; so the file that would be
 * linked is the one judged: the target of a symlink when
 * AT_SYMLINK_FOLLOW follows it, the file behind /proc/self/fd/N or an
 * AT_EMPTY_PATH fd. */
static int emulate_link(struct sv_call *c, bool empty_path_fd)
{
	int rc, flags = (int)c->flags, magic, obj;
	bool follow = flags & AT_SYMLINK_FOLLOW;
	char source[64];

	if (!name_is_free(c, &c->b) || !emulation_may_proceed(c, &c->b, true, true))
		return 0;
	for (int hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
		struct stat st;

		/* An O_TMPFILE (or any open file) given by fd: link the
		 * child's open file itself, through its /proc entry.
		 * Without AT_SYMLINK_FOLLOW the kernel would try to link
		 * the /proc link itself, which is on another mount. */
		if (empty_path_fd || is_magic_fd_path(c->a.abs, &magic)) {
			int fdnum = empty_path_fd ? c->a.dirfd : magic;

			if (!empty_path_fd && !follow && final_object)
				return respond_errno(c, EXDEV);
			if (child_fd_object(c, fdnum, true, &obj))
				return 0;
			snprintf(source, sizeof source, "/proc/self/fd/%d", obj);
			rc = linkat(AT_FDCWD, source, c->b.parent, c->b.name, AT_SYMLINK_FOLLOW);
			rc = rc < 0 ? -errno : 0;
			close(obj);
			return rc < 0 ? respond_errno(c, -rc) : respond(c, 0, 0, false);
		}
		if ((rc = pin_parent(c, &c->a)) != 0)
			return respond_errno(c, -rc);
		if (follow && final_object &&
		    fstatat(c->a.parent, c->a.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			if ((rc = follow_link(&c->a)) != 0)
				return respond_errno(c, -rc);
			continue;
		}
		if (check_mutation(c, &c->a, false, false))
			return 0;
		/* The object judged is the one linked: no following here (a
		 * link swapped in since is linked as itself). */
		return respond_result(c, linkat(c->a.parent, c->a.name, c->b.parent, c->b.name,
						final_object ? 0 : flags & AT_SYMLINK_FOLLOW));
	}
	return respond_errno(c, ELOOP);
}

/* A repository's config: `config` in a git directory, judged so by
 * every git directory p lies in (gitdir.h). */
static bool is_git_config(struct sv_call *c, const struct sv_path *p)
{
	const char *why;

	return strcmp(p->name, "config") == 0 && git_verdict(c, p, false, false, &why) == GITDIR_CONFIG;
}

/*
 * git writes a repository's config by renaming config.lock onto it
 * (init, clone, `git config`).  Threat: a config that makes the host's
 * next git run a program (core.fsmonitor, core.hooksPath, ...), planted
 * in a repository inside a writable root.  So the rename is let through
 * only when gitconfig_change_ok accepts the change, and what lands is a
 * copy the supervisor made of the checked bytes, never the pane's own
 * file: the pane may still hold that open and write to it after the
 * check (install_copy: made with mode 0, which no one without
 * capabilities can open, and given its mode once in place, where opening
 * it for writing is refused).  The same holds for a config in any git
 * directory, whatever its name (gitdir.h).
 */
static int replace_git_config(struct sv_call *c)
{
	static char new_text[GITCONFIG_MAX + 1], old_text[GITCONFIG_MAX + 1];
	char why[160];
	ssize_t new_len, old_len;
	mode_t mode, old_mode;

	if (c->flags & ~(uint64_t)RENAME_NOREPLACE)
		return deny(c, "file-write*", c->b.canon, EACCES,
			    ".git/config is replaced, never exchanged");
	if (!emulation_may_proceed(c, &c->a, false, true))
		return 0;
	if ((new_len = read_small_file(c->a.parent, c->a.name, new_text, &mode)) < 0)
		return deny(c, "file-write*", c->b.canon, EACCES,
			    ".git/config from an unreadable file");
	old_len = read_small_file(c->b.parent, c->b.name, old_text, &old_mode);
	if (old_len < 0 && errno != ENOENT)
		return deny(c, "file-write*", c->b.canon, EACCES,
			    "the .git/config there is unreadable");
	if (!gitconfig_change_ok(old_len < 0 ? NULL : old_text, old_len < 0 ? 0 : (size_t)old_len,
				 new_text, (size_t)new_len, why, sizeof why))
		return deny(c, "file-write*", c->b.canon, EACCES, why);
	if (install_copy(c, c->b.parent, c->b.name, new_text, (size_t)new_len, mode,
			 (unsigned)c->flags) != 0)
		return respond_errno(c, errno);
	unlinkat(c->a.parent, c->a.name, 0);
	return respond(c, 0, 0, false);
}

/* rename: a is the old name, b the new one. */
static int emulate_rename(struct sv_call *c)
{
	/* RENAME_EXCHANGE puts b's file under a's name too: both names
	 * get a new file, so both are judged as creates. */
	bool exchange = (c->flags & RENAME_EXCHANGE) && final_object;
	int rc;

	if ((rc = pin_parent(c, &c->a)) != 0 || (rc = pin_parent(c, &c->b)) != 0)
		return respond_errno(c, -rc);
	if (is_git_config(c, &c->b) &&
	    write_denied_except(c->pane, c->b.canon, ".git/config") == NULL &&
	    subpath_of_any(c->b.canon, &c->pane->writable) &&
	    !subpath_of_any(c->b.canon, &c->pane->deny_read))
		return replace_git_config(c);
	/* Moving a protected path (or its parent) away or onto it is
	 * writing it; moving onto a denied name is creating it.  An
	 * exchange loses no name: the delete guard leaves it be. */
	if ((!(c->flags & RENAME_EXCHANGE) && delete_refused(c, &c->a, &c->b)) ||
	    check_mutation(c, &c->a, exchange, true) || check_mutation(c, &c->b, true, true))
		return 0;
	if ((rc = become_child(c)) != 0)
		return respond_errno(c, -rc);
	rc = (int)syscall(SYS_renameat2, c->a.parent, c->a.name, c->b.parent, c->b.name,
			  (unsigned)c->flags);
	if (rc == 0)
		dirs_moved();
	return respond_result(c, rc);
}

/* --- attributes: mode, owner, times, extended attributes, size --------- */

/* chmod, chown, utimensat, setxattr, removexattr and truncate change a
 * file without a write open, and their fd forms (fchmod, fchown,
 * futimens, fsetxattr, fremovexattr) need no write access to the fd.
 * Threat: a hook that no mount protects (a repository nested in the
 * work tree) emptied by truncate(2) or disarmed by chmod -x, through a
 * read-only fd as well as by name; a protected file's owner, times or
 * xattrs changed.  So each is judged as a write on its final object
 * (the fd's file; or the path's, a symlink at the last component
 * followed unless the call says not to) and done here, on that object
 * held as an O_PATH fd: a component swapped after the check changes
 * nothing.  ftruncate needs an fd opened for writing, and that open was
 * judged. */

/* A path whose last component is "", "." or "..": the directory it
 * names, pinned whole, its canonical name judged.  1 when answered. */
static int attr_directory(struct sv_call *c, int *obj)
{
	struct sv_path *p = &c->a;
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char link[64];
	const char *slash;
	ssize_t n;

	*obj = (int)syscall(SYS_openat2, c->root, p->abs, &how, sizeof how);
	if (*obj < 0)
		return respond_errno(c, errno), 1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", *obj);
	if ((n = readlink(link, p->canon, sizeof p->canon - 1)) <= 0) {
		close(*obj);
		return respond_errno(c, EACCES), 1;
	}
	p->canon[n] = '\0';
	slash = strrchr(p->canon, '/');
	snprintf(p->name, sizeof p->name, "%s", slash + 1);
	/* The parent pinned was the spelling's; canon's own is found anew
	 * where it is needed (git_verdict). */
	if (p->parent >= 0)
		close(p->parent);
	p->parent = -1;
	if (check_mutation(c, p, false, false)) {
		close(*obj);
		return 1;
	}
	return 0;
}

/* git init and clone probe whether the file system keeps modes by
 * flipping the owner's x bit of the new .git/config and back; refused,
 * git would set core.filemode=false and drop the x bit of every file
 * committed from that repository.  That flip alone is let through: a
 * config's mode runs nothing, and its content is still only replaced
 * through gitconfig.c. */
static bool git_config_mode_probe(struct sv_call *c, const struct sv_path *p, int obj)
{
	struct stat st;

	return (c->req->data.nr == SYS_chmod || c->req->data.nr == SYS_fchmodat) &&
	       is_git_config(c, p) && fstat(obj, &st) == 0 && S_ISREG(st.st_mode) &&
	       ((st.st_mode ^ c->mode) & 07777) == S_IXUSR &&
	       write_denied_except(c->pane, p->canon, ".git/config") == NULL &&
	       subpath_of_any(p->canon, &c->pane->writable) &&
	       !subpath_of_any(p->canon, &c->pane->deny_read);
}

/* The object an attribute call changes, held in *obj and judged as a
 * write.  1 when the call was answered (refused, or not resolved). */
static int attr_object(struct sv_call *c, int *obj)
{
	struct sv_path *p = &c->a;
	bool follow = !c->nofollow && final_object;
	int magic, rc;

	if (c->fd_form)
		return child_fd_object(c, p->dirfd, true, obj);
	for (int hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
		char norm[PATH_MAX];
		struct stat st;

		normalize(p->abs, norm, sizeof norm);
		if (is_magic_fd_path(norm, &magic))
			return child_fd_object(c, magic, true, obj);
		if ((rc = pin_parent(c, p)) != 0) {
			if (subpath_of_any(norm, &c->pane->deny_read))
				return deny(c, "file-write*", norm, EACCES, "deny-read root"), 1;
			return respond_errno(c, -rc), 1;
		}
		if (p->name[0] == '\0' || strcmp(p->name, ".") == 0 || strcmp(p->name, "..") == 0)
			return attr_directory(c, obj);
		/* Threat: as for writes, files under /proc mean what they mean
		 * to their opener; nothing there is changed from here. */
		if (subpath_of(p->canon, "/proc"))
			return deny(c, "file-write*", p->canon, EPERM,
				    "/proc is not changed through the supervisor"),
			       1;
		/* (The spelling-only build lets the open follow it.) */
		*obj = openat(p->parent, p->name,
			      O_PATH | O_CLOEXEC | (follow || c->nofollow ? O_NOFOLLOW : 0));
		if (*obj < 0)
			return respond_errno(c, errno), 1;
		if (follow && fstat(*obj, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(*obj);
			if ((rc = follow_link(p)) != 0)
				return respond_errno(c, -rc), 1;
			continue;
		}
		if (git_config_mode_probe(c, p, *obj))
			return 0;
		if (check_mutation(c, p, false, false)) {
			close(*obj);
			return 1;
		}
		return 0;
	}
	return respond_errno(c, ELOOP), 1;
}

/* The call itself on obj, as the child: 0 or -errno.  Through
 * /proc/self/fd/N or AT_EMPTY_PATH, never by a name again. */
static int attr_act(struct sv_call *c, int kind, int obj)
{
	char self[64];
	struct stat st;
	int fd, rc;

	if ((rc = become_child(c)) != 0)
		return rc;
	if (fstat(obj, &st) != 0)
		return -errno;
	snprintf(self, sizeof self, "/proc/self/fd/%d", obj);
	switch (kind) {
	case SYS_chmod:
	case SYS_fchmod:
	case SYS_fchmodat:
	case SYS_fchmodat2:
		/* A symlink's own mode cannot be changed (the kernel's answer
		 * to fchmodat2's AT_SYMLINK_NOFOLLOW on one). */
		if (S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		rc = chmod(self, c->mode & 07777);
		break;
	case SYS_chown:
	case SYS_lchown:
	case SYS_fchown:
	case SYS_fchownat:
		rc = fchownat(obj, "", c->owner, c->group, AT_EMPTY_PATH);
		break;
	case SYS_utime:
	case SYS_utimes:
	case SYS_futimesat:
	case SYS_utimensat:
		rc = utimensat(obj, "", c->times_now ? NULL : c->times, AT_EMPTY_PATH);
		break;
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		/* No user xattrs on symlinks, and no capability here for
		 * the other namespaces: the kernel's answer. */
		if (S_ISLNK(st.st_mode))
			return -EPERM;
		rc = kind == SYS_setxattr || kind == SYS_lsetxattr || kind == SYS_fsetxattr
			 ? setxattr(self, c->xname, xattr_value, c->xsize, c->xflags)
			 : removexattr(self, c->xname);
		break;
	case SYS_truncate:
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
		if ((fd = open(self, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0)
			return -errno;
		rc = ftruncate(fd, c->length);
		if (rc != 0)
			rc = -errno;
		close(fd);
		return rc;
	default:
		return -ENOSYS;
	}
	return rc != 0 ? -errno : 0;
}

static int emulate_attr(struct sv_call *c, int kind)
{
	int obj, rc;

	if (attr_object(c, &obj))
		return 0;
	rc = attr_act(c, kind, obj);
	close(obj);
	return rc < 0 ? respond_errno(c, -rc) : respond(c, 0, 0, false);
}

/* --- bind: a Unix socket's name ---------------------------------------- */

/* bind(2) of a Unix socket to a path makes a name in the filesystem.
 * Threat: a socket at a protected name, or where a protected path's
 * ancestor would be (the agent socket a host tool connects to, a
 * directory's place taken); and a racing thread flipping the address
 * after the check, were the call answered CONTINUE.  So the child's
 * socket is taken here (pidfd_getfd) and bound by the supervisor to the
 * address it checked: a path is judged as a rename's destination and
 * bound in the pinned directory; any other address (another family, an
 * abstract or unnamed Unix one) is bound as read, so that no flip can
 * turn it into a path afterwards. */
/* The child's socket c->sockfd, as an fd of this process (the same
 * open file description); -1 when answered already. */
static int take_socket(struct sv_call *c)
{
	int pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, PIDFD_THREAD), sock;

	if (pidfd < 0 || !notif_valid(c->pane->listener, c->req->id)) {
		if (pidfd >= 0)
			close(pidfd);
		respond_errno(c, ESRCH);
		return -1;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, c->sockfd, 0);
	close(pidfd);
	if (sock < 0)
		respond_errno(c, errno == EBADF ? EBADF : EPERM);
	return sock;
}

static bool is_unix_socket(int sock)
{
	int domain = -1;
	socklen_t len = sizeof domain;

	return getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

static void remember_bound(struct sv_pane *p, const struct sv_bound *b)
{
	p->bound[p->bound_next] = *b;
	p->bound[p->bound_next].used = true;
	p->bound_next = (p->bound_next + 1) % SV_BOUND;
}

/* The abstract name a Unix socket of the pane now has (given, or chosen
 * by the kernel for an empty address), remembered as the pane's own. */
static void remember_abstract(struct sv_pane *p, int sock)
{
	struct sockaddr_un un;
	socklen_t len = sizeof un;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sv_bound b = {.abstract = true};

	if (!is_unix_socket(sock) || getsockname(sock, (struct sockaddr *)&un, &len) != 0 ||
	    len <= off || un.sun_path[0] != '\0')
		return;
	b.len = (socklen_t)(len - off);
	memcpy(b.name, un.sun_path, b.len);
	remember_bound(p, &b);
}

static int emulate_bind(struct sv_call *c)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&c->addr, at = {.sun_family = AF_UNIX};
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	int sock = take_socket(c), rc;
	struct stat st;

	if (sock < 0)
		return 0;
	if (un->sun_family != AF_UNIX || c->addrlen <= off || un->sun_path[0] == '\0') {
		rc = bind(sock, (struct sockaddr *)&c->addr, c->addrlen);
		rc = rc != 0 ? -errno : 0;
		if (rc == 0)
			remember_abstract(c->pane, sock);
		close(sock);
		return rc < 0 ? respond_errno(c, -rc) : respond(c, 0, 0, false);
	}
	n = strnlen(un->sun_path, c->addrlen - off);
	snprintf(c->a.raw, sizeof c->a.raw, "%.*s", (int)n, un->sun_path);
	rc = make_absolute(c, &c->a);
	if (rc == 0 && (rc = pin_parent(c, &c->a)) == 0 &&
	    fstatat(c->a.parent, c->a.name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = -EADDRINUSE; /* nothing would be made: no violation */
	if (rc != 0) {
		close(sock);
		return respond_errno(c, -rc);
	}
	if (!emulation_may_proceed(c, &c->a, true, true) || (rc = child_umask(c)) != 0) {
		close(sock);
		return rc != 0 ? respond_errno(c, -rc) : 0;
	}
	/* The name, relative to the pinned directory, as this thread's own
	 * cwd (its fs_struct is its own: drop_privileges), with the child's
	 * umask for the socket's mode. */
	snprintf(at.sun_path, sizeof at.sun_path, "%s", c->a.name);
	if (fchdir(c->a.parent) != 0) {
		rc = -errno;
	} else {
		umask(c->umask);
		rc = bind(sock, (struct sockaddr *)&at,
			  (socklen_t)(off + strlen(at.sun_path) + 1)) != 0 ? -errno : 0;
		umask(0);
		if (rc == 0 && fstatat(c->a.parent, c->a.name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			remember_bound(c->pane, &(struct sv_bound){.dev = st.st_dev, .ino = st.st_ino});
		if (chdir("/") != 0)
			log_warn("supervisor: cannot leave the bound directory");
	}
	close(sock);
	return rc < 0 ? respond_errno(c, -rc) : respond(c, 0, 0, false);
}

/* --- connect ------------------------------------------------------------- */

/* Threat: the pane reaching a process outside the sandbox through its
 * Unix socket: a desktop's D-Bus, an X server, docker or podman, a
 * user's daemon in the work tree, tmux, an editor's server, whatever
 * the host starts later.  Any of them can run a command on the host.
 * No list of such sockets is complete, so the rule is the other way
 * round: a pane connects only to a Unix socket it bound itself (bind is
 * done here and remembered: sv_pane.bound), or to the sockets its
 * policy names (an agent pane's egress proxies).  That holds for paths
 * (judged on the final object, symlinks followed as connect(2) would)
 * and for abstract names (which a pane sharing the host's network
 * namespace would otherwise share with the host's X server).  A socket
 * of another user's daemon, of the host's, of another pane: refused,
 * with a violation.  What this does not judge: a datagram sent with
 * sendto(2) or sendmsg(2) naming a path (a filter cannot see a
 * sendmsg's address, and every send of every socket would have to be
 * done here to judge it without a race); docs/backends.md says so.
 *
 * Every connect is done here on the child's socket (pidfd_getfd: the
 * same open file description), never answered CONTINUE: a thread could
 * swap the address, or the fd for a Unix socket, between the check and
 * the kernel's own read.  The connect is made non-blocking; a child's
 * blocking TCP connect still in progress is waited for by a thread of
 * its own (connect_waiter) and answered from there, within the socket's
 * SO_SNDTIMEO as connect(2) would.  One difference: a Unix stream
 * socket whose listener's backlog is full answers EAGAIN at once where
 * a blocking connect would wait. */

/* Blocking connects waiting at once, across every pane.  Threat: a pane
 * connecting from many threads to a host that never answers, to make
 * the server start thread after thread. */
#define SV_CONNECT_WAITERS 64

struct sv_connect_wait {
	int listener; /* a dup: the pane may be gone before the answer */
	uint64_t id;
	int sock;
	int pidfd; /* the calling thread: readable once it is gone */
	struct timespec deadline; /* CLOCK_MONOTONIC; tv_sec 0: none */
};

static int connect_waiting;

static void *connect_waiter(void *arg)
{
	struct sv_connect_wait *w = arg;
	struct pollfd pfd[2] = {{.fd = w->sock, .events = POLLOUT}, {.fd = w->pidfd, .events = POLLIN}};

	for (;;) {
		int n = poll(pfd, 2, 1000), err = 0;
		socklen_t len = sizeof err;
		struct timespec now;

		if ((n < 0 && errno != EINTR) || pfd[1].revents != 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (pfd[0].revents != 0 ||
		    (w->deadline.tv_sec != 0 &&
		     (now.tv_sec > w->deadline.tv_sec ||
		      (now.tv_sec == w->deadline.tv_sec && now.tv_nsec >= w->deadline.tv_nsec)))) {
			struct seccomp_notif_resp resp = {.id = w->id};

			if (pfd[0].revents == 0)
				err = EINPROGRESS;
			else if (getsockopt(w->sock, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
				err = errno;
			resp.error = -err;
			ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			break;
		}
		if (n == 0 && !notif_valid(w->listener, w->id))
			break;
	}
	close(w->sock);
	close(w->pidfd);
	close(w->listener);
	free(w);
	pthread_mutex_lock(&waiters_lock);
	connect_waiting--;
	pthread_mutex_unlock(&waiters_lock);
	return NULL;
}

/* Hand a connect in progress on sock (owned) to a waiter thread. */
static int connect_wait(struct sv_call *c, int sock)
{
	struct sv_connect_wait *w = malloc(sizeof *w);
	struct timeval tv = {0};
	socklen_t tvlen = sizeof tv;
	int rc;

	if (w == NULL) {
		close(sock);
		return respond_errno(c, EAGAIN);
	}
	*w = (struct sv_connect_wait){.id = c->req->id, .sock = sock};
	if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &tvlen) == 0 &&
	    (tv.tv_sec != 0 || tv.tv_usec != 0)) {
		clock_gettime(CLOCK_MONOTONIC, &w->deadline);
		w->deadline.tv_sec += tv.tv_sec;
		w->deadline.tv_nsec += tv.tv_usec * 1000L;
		if (w->deadline.tv_nsec >= 1000000000L) {
			w->deadline.tv_sec++;
			w->deadline.tv_nsec -= 1000000000L;
		}
	}
	rc = waiter_start(c, "connects", &connect_waiting, SV_CONNECT_WAITERS, &w->listener,
			  &w->pidfd, connect_waiter, w);
	if (rc != 0) {
		free(w);
		close(sock);
		return respond_errno(c, -rc);
	}
	return 0;
}

/* connect(2) of sock (owned) to addr as the child would: with its fsuid
 * (a Unix socket's write permission), answering as it would. */
static int connect_as_child(struct sv_call *c, int sock, const struct sockaddr *addr,
			    socklen_t len)
{
	int flags = fcntl(sock, F_GETFL), rc, err;

	if (flags < 0 || (rc = become_child(c)) != 0) {
		close(sock);
		return respond_errno(c, flags < 0 ? EBADF : -rc);
	}
	if (!(flags & O_NONBLOCK))
		fcntl(sock, F_SETFL, flags | O_NONBLOCK);
	rc = connect(sock, addr, len);
	err = rc != 0 ? errno : 0;
	if (!(flags & O_NONBLOCK))
		fcntl(sock, F_SETFL, flags);
	if (err == EINPROGRESS && !(flags & O_NONBLOCK))
		return connect_wait(c, sock);
	close(sock);
	return err != 0 ? respond_errno(c, err) : respond(c, 0, 0, false);
}

static bool bound_path(const struct sv_pane *p, const struct stat *st)
{
	for (size_t i = 0; i < SV_BOUND; i++)
		if (p->bound[i].used && !p->bound[i].abstract && p->bound[i].dev == st->st_dev &&
		    p->bound[i].ino == st->st_ino)
			return true;
	return false;
}

static bool bound_abstract(const struct sv_pane *p, const char *name, socklen_t len)
{
	for (size_t i = 0; i < SV_BOUND; i++)
		if (p->bound[i].used && p->bound[i].abstract && p->bound[i].len == len &&
		    memcmp(p->bound[i].name, name, len) == 0)
			return true;
	return false;
}

/* An abstract name for a violation: "@" and its printable bytes. */
static void abstract_target(const char *name, socklen_t len, char *out, size_t size)
{
	size_t o = 0;

	out[o++] = '@';
	for (socklen_t i = 1; i < len && o + 1 < size; i++)
		out[o++] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[o] = '\0';
}

/* Does the policy name the socket at p (its exact path, or "DIR/" for
 * the sockets directly in DIR)? */
static bool socket_named(const struct sv_pane *pane, const struct sv_path *p)
{
	size_t dir = strlen(p->canon) - strlen(p->name);

	for (size_t i = 0; i < pane->connect_sockets.n; i++) {
		const char *s = pane->connect_sockets.v[i];
		size_t len = strlen(s);

		if (len > 0 && s[len - 1] == '/' ? len == dir && strncmp(s, p->canon, len) == 0
						 : strcmp(s, p->canon) == 0)
			return true;
	}
	return false;
}

static int emulate_connect(struct sv_call *c)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&c->addr, at = {.sun_family = AF_UNIX};
	size_t off = offsetof(struct sockaddr_un, sun_path);
	int sock = take_socket(c), rc, obj;
	struct stat st;

	if (sock < 0)
		return 0;
	/* Another family, or no name to judge: the kernel's own answer. */
	if (!is_unix_socket(sock) || un->sun_family != AF_UNIX || c->addrlen <= off)
		return connect_as_child(c, sock, (struct sockaddr *)&c->addr, c->addrlen);
	if (un->sun_path[0] == '\0') {
		socklen_t len = (socklen_t)(c->addrlen - off);
		char target[sizeof un->sun_path + 2];

		if (bound_abstract(c->pane, un->sun_path, len))
			return connect_as_child(c, sock, (struct sockaddr *)&c->addr, c->addrlen);
		close(sock);
		abstract_target(un->sun_path, len, target, sizeof target);
		snprintf(c->a.raw, sizeof c->a.raw, "%s", target);
		return deny(c, "network-outbound", target, EACCES,
			    "an abstract Unix socket the sandbox did not bind");
	}
	snprintf(c->a.raw, sizeof c->a.raw, "%.*s", (int)strnlen(un->sun_path, c->addrlen - off),
		 un->sun_path);
	if ((rc = make_absolute(c, &c->a)) != 0) {
		close(sock);
		return respond_errno(c, -rc);
	}
	for (int hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
		char norm[PATH_MAX];

		if ((rc = pin_parent(c, &c->a)) != 0) {
			normalize(c->a.abs, norm, sizeof norm);
			close(sock);
			if (read_denied(c, norm))
				return deny(c, "network-outbound", norm, EACCES, "deny-read root");
			return respond_errno(c, -rc);
		}
		if (fstatat(c->a.parent, c->a.name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			close(sock);
			return respond_errno(c, errno);
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if ((rc = follow_link(&c->a)) != 0) {
			close(sock);
			return respond_errno(c, -rc);
		}
	}
	if (S_ISLNK(st.st_mode)) {
		close(sock);
		return respond_errno(c, ELOOP);
	}
	if (read_denied(c, c->a.canon)) {
		close(sock);
		return deny(c, "network-outbound", c->a.canon, EACCES, "deny-read root");
	}
	/* The object connected to is the one judged: pinned here by an
	 * O_PATH fd, and named to connect(2) through it. */
	obj = openat(c->a.parent, c->a.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj < 0 || fstat(obj, &st) != 0) {
		rc = errno;
		if (obj >= 0)
			close(obj);
		close(sock);
		return respond_errno(c, rc);
	}
	if (S_ISSOCK(st.st_mode) && !bound_path(c->pane, &st) && !socket_named(c->pane, &c->a)) {
		close(obj);
		close(sock);
		return deny(c, "network-outbound", c->a.canon, EACCES,
			    "a Unix socket of a process outside the sandbox");
	}
	snprintf(at.sun_path, sizeof at.sun_path, "/proc/self/fd/%d", obj);
	rc = connect_as_child(c, sock, (struct sockaddr *)&at,
			      (socklen_t)(off + strlen(at.sun_path) + 1));
	close(obj);
	return rc;
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

/* The attribute calls and bind (see "attributes"). */
static int decode_attr(struct sv_call *c, int nr)
{
	const __u64 *a = c->req->data.args;
	int rc;

#define DIRFD(x) ((int)(int32_t)(x))
	switch (nr) {
	case SYS_truncate:
		c->syscall = "truncate", c->length = (off_t)a[1];
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_chmod:
		c->syscall = "chmod", c->mode = (mode_t)a[1];
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_fchmod:
		c->syscall = "fchmod", c->mode = (mode_t)a[1];
		return fd_arg(c, DIRFD(a[0]));
	case SYS_fchmodat:
		c->syscall = "fchmodat", c->mode = (mode_t)a[2];
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	case SYS_fchmodat2:
		c->syscall = "fchmodat2", c->mode = (mode_t)a[2];
		return at_arg(c, DIRFD(a[0]), a[1], a[3]);
	case SYS_chown:
	case SYS_lchown:
		c->syscall = nr == SYS_chown ? "chown" : "lchown";
		c->owner = (uid_t)a[1], c->group = (gid_t)a[2], c->nofollow = nr == SYS_lchown;
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_fchown:
		c->syscall = "fchown", c->owner = (uid_t)a[1], c->group = (gid_t)a[2];
		return fd_arg(c, DIRFD(a[0]));
	case SYS_fchownat:
		c->syscall = "fchownat", c->owner = (uid_t)a[2], c->group = (gid_t)a[3];
		return at_arg(c, DIRFD(a[0]), a[1], a[4]);
	case SYS_utime:
	case SYS_utimes:
		c->syscall = nr == SYS_utime ? "utime" : "utimes";
		if ((rc = read_times(c, a[1], nr)) != 0)
			return rc;
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_futimesat:
	case SYS_utimensat:
		c->syscall = nr == SYS_futimesat ? "futimesat" : "utimensat";
		if ((rc = read_times(c, a[2], nr)) != 0)
			return rc;
		/* A NULL path: the fd itself (futimens). */
		if (a[1] == 0)
			return DIRFD(a[0]) == AT_FDCWD ? -EFAULT : fd_arg(c, DIRFD(a[0]));
		return at_arg(c, DIRFD(a[0]), a[1], nr == SYS_utimensat ? a[3] : 0);
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
		c->syscall = nr == SYS_setxattr ? "setxattr" : nr == SYS_lsetxattr ? "lsetxattr" : "fsetxattr";
		c->xflags = (int)a[4], c->nofollow = nr == SYS_lsetxattr;
		if ((rc = read_xattr(c, a[1], a[2], a[3])) != 0)
			return rc;
		return nr == SYS_fsetxattr ? fd_arg(c, DIRFD(a[0]))
					   : read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		c->syscall = nr == SYS_removexattr    ? "removexattr"
			     : nr == SYS_lremovexattr ? "lremovexattr"
						      : "fremovexattr";
		c->nofollow = nr == SYS_lremovexattr;
		if ((rc = read_xattr(c, a[1], 0, 0)) != 0)
			return rc;
		return nr == SYS_fremovexattr ? fd_arg(c, DIRFD(a[0]))
					      : read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_bind:
	case SYS_connect:
		c->syscall = nr == SYS_bind ? "bind" : "connect", c->sockfd = DIRFD(a[0]);
		if (a[2] > sizeof c->addr)
			return -EINVAL;
		c->addrlen = (socklen_t)a[2];
		return c->addrlen > 0 ? read_child(c, a[1], &c->addr, c->addrlen) : 0;
	}
#undef DIRFD
	return -ENOSYS;
}

/* Decode the call's arguments into c; -errno when they cannot be read. */
static int decode(struct sv_call *c, int *kind)
{
	const struct seccomp_data *d = &c->req->data;
	const __u64 *a = d->args;
	int nr = d->nr;
	int rc = 0;

#define DIRFD(x) ((int)(int32_t)(x))
	*kind = nr;
	c->syscall = "?";
	switch (nr) {
	case SYS_open:
		c->syscall = "open", c->flags = a[1], c->mode = (mode_t)a[2];
		c->plain_read = plain_read_flags(c->flags);
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_creat:
		c->syscall = "creat", c->flags = O_CREAT | O_WRONLY | O_TRUNC, c->mode = (mode_t)a[1];
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_openat:
		c->syscall = "openat", c->flags = a[2], c->mode = (mode_t)a[3];
		c->plain_read = plain_read_flags(c->flags);
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	case SYS_openat2: {
		struct open_how how = {0};
		struct iovec local = {&how, sizeof how}, remote = {(void *)(uintptr_t)a[2],
								    sizeof how};
		c->syscall = "openat2";
		if (a[3] < sizeof how ||
		    process_vm_readv(c->req->pid, &local, 1, &remote, 1, 0) != sizeof how)
			return -EFAULT;
		/* RESOLVE_* restrictions are relative to the dirfd; the
		 * emulation resolves from the root.  Nobody's libc needs
		 * them; refuse rather than resolve differently. */
		if (how.resolve != 0 && (how.flags & (O_CREAT | O_ACCMODE | O_TRUNC)))
			return -EOPNOTSUPP;
		c->flags = how.flags, c->mode = (mode_t)how.mode;
		c->plain_read = plain_read_flags(c->flags);
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	}
	case SYS_mkdir:
		c->syscall = "mkdir", c->mode = (mode_t)a[1];
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_mkdirat:
		c->syscall = "mkdirat", c->mode = (mode_t)a[2];
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	case SYS_mknod:
		c->syscall = "mknod", c->mode = (mode_t)a[1], c->dev = (dev_t)a[2];
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_mknodat:
		c->syscall = "mknodat", c->mode = (mode_t)a[2], c->dev = (dev_t)a[3];
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	case SYS_symlink:
		c->syscall = "symlink";
		if ((rc = read_child_string(c->req->pid, a[0], c->target, sizeof c->target)) != 0)
			return rc;
		return read_path_arg(c, &c->a, AT_FDCWD, a[1]);
	case SYS_symlinkat:
		c->syscall = "symlinkat";
		if ((rc = read_child_string(c->req->pid, a[0], c->target, sizeof c->target)) != 0)
			return rc;
		return read_path_arg(c, &c->a, DIRFD(a[1]), a[2]);
	case SYS_link:
		c->syscall = "link";
		if ((rc = read_path_arg(c, &c->a, AT_FDCWD, a[0])) != 0)
			return rc;
		return read_path_arg(c, &c->b, AT_FDCWD, a[1]);
	case SYS_linkat:
		c->syscall = "linkat", c->flags = a[4];
		c->a.dirfd = DIRFD(a[0]);
		if ((c->flags & AT_EMPTY_PATH) &&
		    read_child_string(c->req->pid, a[1], c->a.raw, sizeof c->a.raw) == 0 &&
		    c->a.raw[0] == '\0')
			; /* the file is the fd itself */
		else if ((rc = read_path_arg(c, &c->a, DIRFD(a[0]), a[1])) != 0)
			return rc;
		return read_path_arg(c, &c->b, DIRFD(a[2]), a[3]);
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2: {
		bool plain = nr == SYS_rename;
		c->syscall = plain ? "rename" : nr == SYS_renameat ? "renameat" : "renameat2";
		c->flags = nr == SYS_renameat2 ? a[4] : 0;
		if ((rc = read_path_arg(c, &c->a, plain ? AT_FDCWD : DIRFD(a[0]),
					plain ? a[0] : a[1])) != 0)
			return rc;
		return read_path_arg(c, &c->b, plain ? AT_FDCWD : DIRFD(a[2]), plain ? a[1] : a[3]);
	}
	case SYS_umask:
	case SYS_chdir:
	case SYS_fchdir:
		/* Nothing to read: they only change what is kept. */
		c->syscall = nr == SYS_umask ? "umask" : nr == SYS_chdir ? "chdir" : "fchdir";
		return 0;
	case SYS_unlink:
		c->syscall = "unlink";
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	case SYS_unlinkat:
		c->syscall = "unlinkat", c->flags = a[2];
		return read_path_arg(c, &c->a, DIRFD(a[0]), a[1]);
	case SYS_rmdir:
		c->syscall = "rmdir", c->flags = AT_REMOVEDIR;
		return read_path_arg(c, &c->a, AT_FDCWD, a[0]);
	}
#undef DIRFD
	return decode_attr(c, nr);
}

static int dispatch(struct sv_call *c, int kind)
{
	switch (kind) {
	case SYS_open:
	case SYS_creat:
	case SYS_openat:
	case SYS_openat2:
		return decide_open(c);
	case SYS_mkdir:
	case SYS_mkdirat:
		return emulate_mkdir(c);
	case SYS_mknod:
	case SYS_mknodat:
		return emulate_mknod(c);
	case SYS_symlink:
	case SYS_symlinkat:
		return emulate_symlink(c);
	case SYS_link:
		return emulate_link(c, false);
	case SYS_linkat:
		return emulate_link(c, (c->flags & AT_EMPTY_PATH) && c->a.raw[0] == '\0');
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
		return emulate_rename(c);
	case SYS_unlink:
	case SYS_unlinkat:
	case SYS_rmdir:
		return emulate_unlink(c);
	case SYS_bind:
		return emulate_bind(c);
	case SYS_connect:
		return emulate_connect(c);
	}
	return emulate_attr(c, kind);
}

/* Collapse "//", "." and ".." by spelling alone (no symlinks read). */
static void normalize(const char *in, char *out, size_t size)
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

static void handle_notification(struct sv_pane *pane, struct seccomp_notif *req)
{
	struct sv_call c;
	char root[64];
	int kind, rc;

	sv_call_init(&c, pane, req);
	if (pane->fs_pending_n > 0)
		fs_settled(pane, req->pid);
	rc = decode(&c, &kind);
	if (kind == SYS_umask || kind == SYS_chdir || kind == SYS_fchdir) {
		fs_changing(pane, req->pid, kind);
		respond(&c, 0, 0, true);
		return;
	}
	/* The strings read above belong to this call only if it is still
	 * waiting: a pid reused by another process would have other memory. */
	if (!notif_valid(pane->listener, req->id))
		goto done;
	if (rc != 0) {
		respond_errno(&c, -rc);
		goto done;
	}
	if (pane->root < 0) {
		/* Every process of a pane shares one root (chroot and new
		 * mount namespaces are out of reach inside), so it is opened
		 * once.  Threat: a pid reused by a host process between the
		 * check above and this open would give the host's root; the
		 * notification still being live after the open proves the
		 * pid was the child's. */
		snprintf(root, sizeof root, "/proc/%d/root", (int)req->pid);
		pane->root = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (pane->root >= 0 && !notif_valid(pane->listener, req->id)) {
			close(pane->root);
			pane->root = -1;
			goto done;
		}
	}
	c.root = pane->root;
	if (c.root < 0 || child_ids(&c) != 0) {
		/* Cannot see the child's world: fail closed. */
		respond_errno(&c, EACCES);
		goto done;
	}
	dispatch(&c, kind);
done:
	if (c.a.parent >= 0)
		close(c.a.parent);
	if (c.b.parent >= 0)
		close(c.b.parent);
}

/* --- the thread ---------------------------------------------------------- */

/* This thread only: no capabilities, its own umask. */
static void drop_privileges(void)
{
	struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{0}};

	/* Threat: root's CAP_DAC_OVERRIDE (and friends) walking through the
	 * mode-000 masks or the child's permission checks on its behalf. */
	if (syscall(SYS_capset, &header, data) != 0)
		log_warn("supervisor: cannot drop capabilities: %s", strerror(errno));
	/* The child's umask is applied by hand, so ours must not add to it;
	 * unshare(CLONE_FS) keeps this from the rest of the server. */
	if (unshare(CLONE_FS) == 0)
		umask(0);
	sv.fsuid = (uid_t)setfsuid((uid_t)-1);
	sv.fsgid = (gid_t)setfsgid((gid_t)-1);
}

static void close_pane(struct sv_pane *p, bool gone)
{
	close(p->listener);
	p->listener = -1;
	sv.panes_changed = true;
	if (gone && !p->detached) {
		p->gone = true;
		queue_report(p->pane_id, NULL);
	}
}

/* Drop panes that were detached or ended; under the lock. */
static void reap_panes(void)
{
	for (struct sv_pane **pp = &sv.panes; *pp != NULL;) {
		struct sv_pane *p = *pp;

		if (p->detached && p->listener >= 0)
			close_pane(p, false);
		if (p->detached) {
			*pp = p->next;
			sv_pane_free(p);
			sv.panes_changed = true;
		} else {
			pp = &p->next;
		}
	}
}

/* The thread's poll set: the wake eventfd, then every pane's listener;
 * rebuilt under the lock when the panes change. */
struct sv_pollset {
	struct pollfd *fds;
	struct sv_pane **panes;
	size_t n, cap;
};

static int pollset_rebuild(struct sv_pollset *set)
{
	size_t need = 2;

	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		need += p->listener >= 0;
	if (need > set->cap) {
		struct pollfd *fds = realloc(set->fds, need * sizeof *fds);
		struct sv_pane **panes = fds != NULL ? realloc(set->panes, need * sizeof *panes)
						     : NULL;

		if (fds != NULL)
			set->fds = fds;
		if (panes == NULL)
			return -1;
		set->panes = panes;
		set->cap = need;
	}
	set->fds[0] = (struct pollfd){.fd = sv.wake_fd, .events = POLLIN};
	set->panes[0] = NULL;
	set->fds[1] = (struct pollfd){.fd = sv.threads_ep, .events = POLLIN};
	set->panes[1] = NULL;
	set->n = 2;
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next) {
		if (p->listener < 0)
			continue;
		set->fds[set->n] = (struct pollfd){.fd = p->listener, .events = POLLIN};
		set->panes[set->n++] = p;
	}
	sv.panes_changed = false;
	return 0;
}

static void serve(struct sv_pane *pane, short revents, struct seccomp_notif *req, size_t req_size)
{
	if (revents & POLLIN) {
		memset(req, 0, req_size);
		if (ioctl(pane->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0)
			handle_notification(pane, req);
		return;
	}
	/* No process uses the filter any more: the pane's sandbox ended. */
	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		pthread_mutex_lock(&sv.lock);
		close_pane(pane, false);
		pane->detached = true;
		pthread_mutex_unlock(&sv.lock);
	}
}

/* Waits in poll(2), not epoll: a listener set to
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP wakes its waiter on the calling
 * child's CPU, and poll passes that wake-up through to this thread, so
 * child and supervisor hand the CPU to each other instead of waking a
 * second one (epoll's own wake-up of its waiter drops the hint).  One
 * notification round trip costs about a third less here. */
static void *supervisor_thread(void *arg)
{
	struct seccomp_notif_sizes sizes = {0};
	struct sv_pollset set = {0};
	struct seccomp_notif *req;
	size_t req_size;

	drop_privileges();
	syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
	req_size = sizes.seccomp_notif > sizeof *req ? sizes.seccomp_notif : sizeof *req;
	req = calloc(1, req_size);
	while (req != NULL) {
		int n;

		pthread_mutex_lock(&sv.lock);
		reap_panes();
		if (sv.quit || sv.die) {
			for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
				if (p->listener >= 0)
					close_pane(p, sv.die);
			pthread_mutex_unlock(&sv.lock);
			break;
		}
		if (sv.panes_changed && pollset_rebuild(&set) != 0) {
			pthread_mutex_unlock(&sv.lock);
			log_warn("supervisor: out of memory");
			break;
		}
		pthread_mutex_unlock(&sv.lock);
		n = poll(set.fds, set.n, -1);
		if (n < 0 && errno != EINTR)
			break;
		/* Gone threads first (threads_gone says why). */
		if (n > 0 && set.fds[1].revents != 0)
			threads_gone();
		for (size_t i = 2; n > 0 && i < set.n; i++)
			if (set.fds[i].revents != 0)
				serve(set.panes[i], set.fds[i].revents, req, req_size);
		if (n > 0 && set.fds[0].revents != 0) {
			uint64_t v;
			if (read(sv.wake_fd, &v, sizeof v) < 0) {
				/* nothing to do: the flags above say why */
			}
		}
	}
	free(set.fds);
	free(set.panes);
	free(req);
	return NULL;
}

static void supervisor_stop(void);

static void wake(void)
{
	uint64_t one = 1;

	if (write(sv.wake_fd, &one, sizeof one) < 0)
		log_warn("supervisor: cannot wake the thread: %s", strerror(errno));
}

/* Test hook (SANDMUX_SUPERVISOR_TEST=1 in the server's environment):
 * SIGUSR2 stops the supervisor as a crash would, closing every
 * listener, so tests can check that supervised calls then fail. */
static void on_test_signal(uv_signal_t *handle, int signum)
{
	log_warn("supervisor: stopped by the test signal");
	pthread_mutex_lock(&sv.lock);
	sv.die = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
}

bool supervisor_path_writable(const char *path, int *pane_id)
{
	bool writable = false;

	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL && !writable; p = p->next) {
		if (p->detached || p->listener < 0)
			continue;
		writable = subpath_of_any(path, &p->writable) && !subpath_of_any(path, &p->deny_read) &&
			   write_denied(p, path, false) == NULL && gitdir_write_refused(path) == NULL;
		if (writable && pane_id != NULL)
			*pane_id = p->pane_id;
	}
	pthread_mutex_unlock(&sv.lock);
	return writable;
}

int supervisor_start(const struct supervisor_sink *sink)
{
	if (sv.running)
		return 0;
	sv.sink = *sink;
	sv.reports_tail = &sv.reports;
	sv.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sv.threads_ep = epoll_create1(EPOLL_CLOEXEC);
	sv.panes_changed = true;
	if (sv.wake_fd < 0 || sv.threads_ep < 0)
		goto fail;
	uv_async_init(sink->loop, &sv.async, on_reports);
	uv_unref((uv_handle_t *)&sv.async);
	if (pthread_create(&sv.thread, NULL, supervisor_thread, NULL) != 0) {
		uv_close((uv_handle_t *)&sv.async, NULL);
		goto fail;
	}
	/* Its name in /proc/PID/task/TID/comm: the supervisor bench reads
	 * this thread's CPU time, perf and top tell it apart. */
	pthread_setname_np(sv.thread, "sandmux-sv");
	if (getenv("SANDMUX_SUPERVISOR_TEST") != NULL) {
		uv_signal_init(sink->loop, &sv.test_signal);
		uv_signal_start(&sv.test_signal, on_test_signal, SIGUSR2);
		uv_unref((uv_handle_t *)&sv.test_signal);
	}
	sv.running = true;
	atexit(supervisor_stop);
	log_info("supervisor: started");
	return 0;
fail:
	log_warn("supervisor: cannot start: %s", strerror(errno));
	if (sv.wake_fd >= 0)
		close(sv.wake_fd);
	if (sv.threads_ep >= 0)
		close(sv.threads_ep);
	sv.wake_fd = sv.threads_ep = -1;
	return -1;
}

int supervisor_attach(int pane_id, int listener_fd, const struct supervisor_policy *policy)
{
	struct sv_pane *p = calloc(1, sizeof *p);

	if (p == NULL || !sv.running || sv.die) {
		free(p);
		close(listener_fd);
		return -1;
	}
	p->pane_id = pane_id;
	p->listener = listener_fd;
	p->root = -1;
	p->delete_guard = policy->delete_guard;
	snprintf(p->session, sizeof p->session, "%s", policy->session ? policy->session : "");
	snprintf(p->profile, sizeof p->profile, "%s", policy->profile ? policy->profile : "");
	if (copy_list(&p->writable, policy->writable_roots) != 0 ||
	    copy_list(&p->private_roots, policy->private_roots) != 0 ||
	    copy_list(&p->shown_roots, policy->shown_roots) != 0 ||
	    copy_list(&p->deny_read, policy->deny_read) != 0 ||
	    copy_list(&p->patterns, policy->deny_create_patterns) != 0 ||
	    copy_list(&p->write_denies, policy->write_denies) != 0 ||
	    copy_list(&p->protected_paths, policy->protected_paths) != 0 ||
	    copy_list(&p->delete_roots, policy->delete_roots) != 0 ||
	    copy_list(&p->connect_sockets, policy->connect_sockets) != 0) {
		close(listener_fd);
		sv_pane_free(p);
		return -1;
	}
	/* Best effort: older kernels answer EINVAL and wake as usual. */
	ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	pthread_mutex_lock(&sv.lock);
	p->next = sv.panes;
	sv.panes = p;
	sv.panes_changed = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
	log_debug("%s: pane %d, listener %d", __func__, pane_id, listener_fd);
	return 0;
}

void supervisor_detach(int pane_id)
{
	bool found = false;

	if (!sv.running)
		return;
	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		if (p->pane_id == pane_id && !p->detached)
			p->detached = found = true;
	pthread_mutex_unlock(&sv.lock);
	if (found)
		wake();
}

bool supervisor_gone(int pane_id)
{
	bool gone = false;

	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		if (p->pane_id == pane_id && p->gone)
			gone = true;
	pthread_mutex_unlock(&sv.lock);
	return gone;
}

/* Stop the thread, close every listener, free everything. */
static void supervisor_stop(void)
{
	struct sv_report *r;

	if (!sv.running)
		return;
	pthread_mutex_lock(&sv.lock);
	sv.quit = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
	pthread_join(sv.thread, NULL);
	sv.running = false;
	while (sv.panes != NULL) {
		struct sv_pane *p = sv.panes;
		sv.panes = p->next;
		if (p->listener >= 0)
			close(p->listener);
		sv_pane_free(p);
	}
	while ((r = sv.reports) != NULL) {
		sv.reports = r->next;
		cJSON_Delete(r->event);
		free(r);
	}
	sv.reports_tail = &sv.reports;
	close(sv.wake_fd);
	close(sv.threads_ep);
	sv.wake_fd = sv.threads_ep = -1;
}
