/*
 * supervisor-internal: what the supervisor's four files share, and
 * nothing outside them includes.  The supervisor is one concept in four
 * parts (supervisor.h says what it does):
 *
 *   supervisor.c           the thread, the pane table, the report queue
 *                          to the loop thread, one notification's road
 *                          (decode, then dispatch);
 *   supervisor-path.c      reading the child: its arguments (the table
 *                          of supervised calls), its paths made
 *                          absolute and pinned, its ids, umask and cwd;
 *   supervisor-decide.c    the rules: what a name may become, git
 *                          directories by shape, the delete guard, and
 *                          the answers and violations that carry them;
 *   supervisor-emulate.c   the calls done here on the child's behalf:
 *                          opens, creates, links, renames, attributes,
 *                          bind and connect.
 */
#ifndef SANDMUX_SUPERVISOR_INTERNAL_H
#define SANDMUX_SUPERVISOR_INTERNAL_H

#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "gitdir.h"
#include "linked-secret.h"
#include "seccomp-compat.h"
#include "strvec.h"
#include "supervisor.h"

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

/* The supervisor's own state (supervisor.c), one for the server. */
struct sv_state {
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
};
extern struct sv_state sv;

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

/* A refusal: what check_mutation reports and answers. */
struct sv_refusal {
	const char *action;
	int err;
	const char *why;
};

/* A setxattr's value, read from the child (one call at a time). */
extern char xattr_value[XATTR_SIZE_MAX];

/* supervisor.c: the panes and the reports */
void queue_report(int pane_id, cJSON *event);

/* supervisor-path.c: reading and resolving the child's paths */
void sv_path_init(struct sv_path *p);
void sv_call_init(struct sv_call *c, struct sv_pane *pane, struct seccomp_notif *req);
int decode(struct sv_call *c, int *kind);
bool notif_valid(int listener, uint64_t id);
void threads_gone(void);
void fs_changing(struct sv_pane *p, pid_t tid, int nr);
void fs_settled(struct sv_pane *p, pid_t tid);
void dirs_moved(void);
int child_umask(struct sv_call *c);
int make_absolute(struct sv_call *c, struct sv_path *p);
bool has_dotdot(const char *path);
int pin_parent(struct sv_call *c, struct sv_path *p);
int child_ids(struct sv_call *c);
int become_child(struct sv_call *c);
int follow_link(struct sv_path *p);
bool is_magic_fd_path(const char *abs, int *fd);
void normalize(const char *in, char *out, size_t size);

/* supervisor-decide.c: decisions, answers and violations */
const char *write_denied(const struct sv_pane *p, const char *path, bool above);
const char *write_denied_except(const struct sv_pane *p, const char *path, const char *except);
bool proc_global(const char *path);
int respond(struct sv_call *c, int64_t val, int error, bool proceed);
int respond_errno(struct sv_call *c, int err);
int respond_fd(struct sv_call *c, int fd, bool cloexec);
int respond_result(struct sv_call *c, int rc);
int deny(struct sv_call *c, const char *action, const char *target, int err, const char *why);
ssize_t read_small_file(int dir, const char *name, char *buf, mode_t *mode);
int install_copy(struct sv_call *c, int dir, const char *name, const char *text, size_t len,
		 mode_t mode, unsigned flags);
bool mutation_refused(struct sv_call *c, const struct sv_path *p, bool creates, bool above,
		      struct sv_refusal *r);
int check_mutation(struct sv_call *c, const struct sv_path *p, bool creates, bool above);
int child_fd_object(struct sv_call *c, int fdnum, bool writes, int *obj);
bool read_denied(struct sv_call *c, const char *path);
bool opener_keys(const char *path);
bool delete_refused(struct sv_call *c, const struct sv_path *from, const struct sv_path *to);
bool is_git_config(struct sv_call *c, const struct sv_path *p);

/* supervisor-emulate.c: the calls done on the child's behalf */
int decide_open(struct sv_call *c);
int emulate_mkdir(struct sv_call *c);
int emulate_mknod(struct sv_call *c);
int emulate_symlink(struct sv_call *c);
int emulate_unlink(struct sv_call *c);
int emulate_link(struct sv_call *c, bool empty_path_fd);
int emulate_rename(struct sv_call *c);
int emulate_attr(struct sv_call *c, int kind);
int emulate_bind(struct sv_call *c);
int emulate_connect(struct sv_call *c);

#endif
