/*
 * supervisor-emulate: the calls the supervisor does itself, on the
 * child's behalf, once decided: opens (creates, writes and plain reads,
 * on the final object, the fd handed over with ADDFD), mkdir, mknod,
 * symlink, link, rename, unlink, the attribute calls, bind and connect
 * on the child's own socket.  Each acts on the pinned parent and the
 * checked name, as the child (its fsuid, fsgid and umask), never
 * CONTINUE where a decision enforces something.  A FIFO open or a
 * blocking connect that must wait is answered by a waiter thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "gitconfig.h"
#include "log.h"
#include "subpath.h"
#include "supervisor-internal.h"
#include "xalloc.h"

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
 * objects), on the short road: with no ".." spelled, the parent opened
 * with RESOLVE_NO_SYMLINKS is exactly the directory spelled, collapsed
 * (no symlink on the way), and O_EXCL never follows one at the end, so
 * the rules are judged on that name.  The directory is opened once:
 * the rules' walk of git directories (git_verdict) starts from it and
 * the file is made in it, so a directory swapped under the spelling
 * after the check changes nothing (and renames are judged here too: a
 * directory holding a protected path, or inside a deny root, does not
 * move).  0: answered; a negative errno to answer; 1: not this case (a
 * refusal, /proc, a symlink met, a parent that cannot be opened), for
 * emulate_open's long road, which decides and reports it. */
static int create_new(struct sv_call *c)
{
	struct sv_path *p = &c->a;
	struct sv_refusal why;
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char dir[PATH_MAX];
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
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - p->canon), p->canon);
	p->parent =
	    (int)syscall(SYS_openat2, c->root, dir[0] != '\0' ? dir : "/", &how, sizeof how);
	if (p->parent < 0)
		return 1;
	if (mutation_refused(c, p, true, false, &why))
		goto long_road;
	if ((rc = become_child(c)) != 0 || (rc = child_umask(c)) != 0)
		return rc;
	fd = openat(p->parent, p->name,
		    (int)(c->flags & ~(uint64_t)O_CLOEXEC) | O_CLOEXEC | O_NOCTTY,
		    c->mode & ~c->umask & 07777);
	if (fd >= 0)
		return respond_fd(c, fd, c->flags & O_CLOEXEC);
	if (errno != ELOOP && errno != EINVAL)
		return -errno;
long_road:
	/* The long road pins the parent again, its own way. */
	close(p->parent);
	p->parent = -1;
	return 1;
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
	struct sv_fifo_wait *w = xmalloc(sizeof *w);
	int rc;

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
int decide_open(struct sv_call *c)
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

int emulate_mkdir(struct sv_call *c)
{
	int rc;

	if (!name_is_free(c, &c->a) || !emulation_may_proceed(c, &c->a, false, false))
		return 0;
	if ((rc = child_umask(c)) != 0)
		return respond_errno(c, -rc);
	return respond_result(c, mkdirat(c->a.parent, c->a.name, c->mode & ~c->umask & 07777));
}

int emulate_mknod(struct sv_call *c)
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
int emulate_symlink(struct sv_call *c)
{
	if (!name_is_free(c, &c->a) || !emulation_may_proceed(c, &c->a, true, true))
		return 0;
	return respond_result(c, symlinkat(c->target, c->a.parent, c->a.name));
}

int emulate_unlink(struct sv_call *c)
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
int emulate_link(struct sv_call *c, bool empty_path_fd)
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
int emulate_rename(struct sv_call *c)
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

int emulate_attr(struct sv_call *c, int kind)
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

int emulate_bind(struct sv_call *c)
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
	struct sv_connect_wait *w = xmalloc(sizeof *w);
	struct timeval tv = {0};
	socklen_t tvlen = sizeof tv;
	int rc;

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

int emulate_connect(struct sv_call *c)
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
