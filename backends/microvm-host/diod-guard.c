/*
 * diod-guard: a preload library for the 9p servers (diod) of a microvm
 * pane, the host's side of every rule a guest could otherwise get past.
 * The guest kernel, and root inside it, is the attacker (design
 * invariant 7): its own masks and read-only binds are a second line a
 * guest root removes, so what the profile promises is decided here, in
 * the host process that touches the files, on the final object.
 *
 *   - Deny-read roots (SANDMUX_GUARD_DENY: ~/.ssh, ~/.aws, ... and the
 *     profile's own, resolved): opening anything at or below one fails
 *     with EACCES, for files that exist at launch and ones made later,
 *     and nothing is created, renamed or linked into or out of one, nor
 *     removed, truncated, made readable (chmod) or given away (lchown)
 *     there.  Threat: a guest root unmounting the
 *     guest's masks (or mounting the share afresh) and reading the
 *     user's keys through the host-root share.
 *   - Device nodes: never created (mknod of a character or block
 *     device) and never opened.  Threat: a guest root making a device
 *     node in the host's work tree (through a diod that runs as root,
 *     that is a host device) or opening one of the host's.
 *   - Set-user-ID and set-group-ID bits: stripped from new files and
 *     refused by chmod.  Threat: a guest root leaving a setuid program
 *     in the host's work tree.
 *   - Host-run paths of the launch that do not exist yet
 *     (SANDMUX_GUARD_PATHS, hostrun.h): never created, by open O_CREAT,
 *     mkdir, mknod, link, symlink or rename; rename and symlink onto an
 *     ancestor of one neither; and one that exists is not opened for
 *     writing, chmod'ed, renamed or removed.  The ones that existed at launch are also bound
 *     read-only around diod (microvm.c, share_argv).  Threat: planting
 *     what the host runs later through the work tree, say ~/.profile
 *     when the work tree is $HOME.
 *   - Host-run components at any depth (SANDMUX_GUARD_COMPONENTS,
 *     hostrun.h's hostrun_components: .git/hooks, .git/config,
 *     .gitmodules, .vscode, .claude/commands, ...) and everything in a
 *     `.git` directory but what everyday git writes (gitdir.h), in
 *     repositories there at launch and ones made later: not opened for
 *     writing or truncated, chmod'ed, chown'ed, given new times or
 *     extended attributes, renamed, removed, linked out of or
 *     created (open, mkdir, mknod, link, symlink, rename); a directory
 *     is neither renamed onto a name that leads to one (".git",
 *     ".claude") nor renamed away from it, and a `.git` is made only by
 *     mkdir (a `.git` file would point git at a directory the guest
 *     filled).  A repository's .git/config changes only by git's own
 *     rename of config.lock onto it, and only when gitconfig.h accepts
 *     the change (plain keys); what lands is the guard's copy of the
 *     checked bytes.  Threat: a guest root planting a hook, a
 *     core.fsmonitor, a commondir or a .vscode/tasks.json in a nested
 *     or new repository, which the host's next git or editor runs;
 *     with the guest's own mounts removed, nothing else stands in the
 *     way.
 *
 * Writes to the host-root share are refused by the host kernel: that
 * diod runs in a bubblewrap whose every mount is read-only.
 *
 * Decided on the final object, race-free: an existing object is opened
 * O_PATH first, its real path read back from the open file and checked,
 * and the object opened again through that same open file
 * (/proc/self/fd/N), so a path swapped for a symlink after the check
 * changes nothing.  A name to create is decided by its parent, opened
 * O_PATH the same way, and the call is made relative to that open
 * directory (openat, mkdirat, ...).  An O_CREAT open whose last
 * component is a symlink to nothing is refused (it would create the
 * symlink's target, wherever that is).
 *
 * Each refusal is reported as one line "ACTION<TAB>PATH" on the file
 * descriptor SANDMUX_GUARD_REPORT_FD (a pipe to the sandmux server),
 * which makes it a violation event of the pane (microvm.c).
 *
 * The lists are resolved absolute paths, one per line, set for diod
 * alone with bwrap's --setenv.  Built as build/sandmux-diod-guard.so,
 * beside the sandmux binary.  diod imports the path forms (open,
 * opendir, mkdir, __xmknod, ...), which are what is answered here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <pthread.h>
#include <unistd.h>

#include "gitconfig.h"
#include "gitdir.h"
#include "linked-secret.h"
#include "xalloc.h"

/* Built with -fvisibility=hidden: the rules compiled in (gitdir.c,
 * gitconfig.c, xalloc.c) stay the guard's own, and only the calls it
 * answers for diod are exported. */
#pragma GCC visibility push(default)

/* Read once at load (before diod's threads exist). */
static char *create_list; /* host-run paths never created */
static char *deny_list;	  /* deny-read roots */
static char *component_list; /* host-run components (".git/hooks") */
static char *work_root;	     /* the work tree served: where git directories are looked for */
static int report_fd = -1;

/* The deny-read roots as an array, for linked_secret (one cache for
 * every diod thread, behind a lock). */
static char **deny_roots;
static struct linked_secrets linked;
static pthread_mutex_t linked_lock = PTHREAD_MUTEX_INITIALIZER;

static void deny_roots_load(void)
{
	size_t n = 0, k = 0;

	for (const char *p = deny_list; p != NULL && *p != '\0'; p++)
		n += *p == '\n';
	deny_roots = xcalloc(n + 2, sizeof *deny_roots);
	for (char *p = deny_list; deny_roots != NULL && p != NULL && *p != '\0';) {
		char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (len > 0)
			deny_roots[k++] = xstrndup(p, len);
		p = nl != NULL ? nl + 1 : p + len;
	}
}

/* Threat: a secret served under a second name, a hard link made outside
 * the deny-read roots before launch (linked-secret.h). */
static bool linked_to_secret(const struct stat *st)
{
	bool hit;

	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return false;
	pthread_mutex_lock(&linked_lock);
	hit = linked_secret(&linked, deny_roots, st);
	pthread_mutex_unlock(&linked_lock);
	return hit;
}

__attribute__((constructor)) static void guard_load(void)
{
	const char *paths = getenv("SANDMUX_GUARD_PATHS");
	const char *deny = getenv("SANDMUX_GUARD_DENY");
	const char *fd = getenv("SANDMUX_GUARD_REPORT_FD");
	const char *comps = getenv("SANDMUX_GUARD_COMPONENTS");
	const char *work = getenv("SANDMUX_GUARD_WORK");
	const char *secrets = getenv("SANDMUX_GUARD_SECRETS");

	create_list = paths != NULL ? xstrdup(paths) : NULL;
	/* Out of memory aborts diod (xalloc's): a NULL here would serve
	 * the deny-read roots. */
	deny_list = deny != NULL ? xstrdup(deny) : NULL;
	deny_roots_load();
	/* The work tree's diod does not see the deny-read roots: the server
	 * walked them at launch for it. */
	if (secrets != NULL && linked_secrets_parse(&linked, secrets) != 0)
		linked_secrets_parse(&linked, ""); /* malformed: nothing known, noted by the server */
	component_list = comps != NULL ? xstrdup(comps) : NULL;
	work_root = work != NULL && work[0] == '/' ? xstrdup(work) : NULL;
	report_fd = fd != NULL ? atoi(fd) : -1;
}

/* One line to the server; a pipe write of less than PIPE_BUF is whole.
 * Never blocks diod for long: the server reads the pipe as it comes. */
static void report(const char *action, const char *path)
{
	char line[PATH_MAX * 2 + 64];
	int n;

	if (report_fd < 0)
		return;
	n = snprintf(line, sizeof line, "%s\t%s\n", action, path);
	if (n > 0 && n < PIPE_BUF && write(report_fd, line, (size_t)n) < 0)
		errno = 0;
}

/* Is full (an absolute real path) a path of list or inside one; with
 * ancestors, also a directory above one? */
static bool listed_in(const char *list, const char *full, bool ancestors)
{
	size_t flen = strlen(full);

	for (const char *p = list; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (len > 0 && flen >= len && strncmp(full, p, len) == 0 &&
		    (full[len] == '\0' || full[len] == '/' || (len == 1 && p[0] == '/')))
			return true;
		if (ancestors && len > flen && strncmp(full, p, flen) == 0 && p[flen] == '/')
			return true;
		p = nl != NULL ? nl + 1 : p + len;
	}
	return false;
}

static bool denied(const char *full)
{
	return listed_in(deny_list, full, false);
}

/* Is comp (".git/hooks") a run of components of full, at any depth:
 * "/.git/hooks" ending full or followed by '/'?  With ancestors, also
 * when full ends in a leading part of it ("/.git"): a directory of that
 * name brings the component along. */
static bool component_in(const char *full, const char *comp, size_t len, bool ancestors)
{
	size_t flen = strlen(full);

	for (const char *at = strstr(full, "/"); at != NULL; at = strstr(at + 1, "/"))
		if (strncmp(at + 1, comp, len) == 0 && (at[1 + len] == '\0' || at[1 + len] == '/'))
			return true;
	for (size_t k = 0; ancestors && k < len; k++)
		if (comp[k] == '/' && flen > k && full[flen - k - 1] == '/' &&
		    strncmp(full + flen - k, comp, k) == 0)
			return true;
	return false;
}

/* In a host-run component of the list, at any depth. */
static bool component_hit(const char *full, bool ancestors)
{
	for (const char *p = component_list; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (len > 0 && component_in(full, p, len, ancestors))
			return true;
		p = nl != NULL ? nl + 1 : p + len;
	}
	return false;
}

/* The git directories full lies in, by their shape (gitdir.h): each
 * directory from full's parent up to the work tree's root judges the
 * rest of the path.  Threat: a hook or a config planted in a git
 * directory not named `.git` (a bare repository, a --separate-git-dir
 * target, a worktree's admin directory or common directory), which the
 * host's git finds through a `.git` file, a commondir or its cwd. */
static enum gitdir_verdict shape_verdict(const char *full)
{
	enum gitdir_verdict verdict = GITDIR_EVERYDAY;
	char dir[PATH_MAX];
	size_t root = work_root != NULL ? strlen(work_root) : 0;
	char *slash;

	if (component_list == NULL || root == 0 || strlen(full) >= sizeof dir ||
	    strncmp(full, work_root, root) != 0 || (full[root] != '/' && full[root] != '\0'))
		return GITDIR_EVERYDAY;
	snprintf(dir, sizeof dir, "%s", full);
	while ((slash = strrchr(dir, '/')) != NULL && (size_t)(slash - dir) >= root) {
		int fd;
		enum gitdir_verdict v;

		*slash = '\0';
		/* openat: open is this guard's own, and judges what it opens. */
		fd = openat(AT_FDCWD, dir[0] != '\0' ? dir : "/",
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = gitdir_judge(gitdir_shape_at(fd, ""), full + strlen(dir) + 1);
		close(fd);
		if (v > verdict)
			verdict = v;
		if (verdict == GITDIR_REFUSED)
			break;
	}
	return verdict;
}

/* A host-run path (or inside one), a host-run component at any depth,
 * or a file of a `.git` directory that everyday git does not write:
 * never written, moved or removed.  The components and the `.git` rule
 * hold where SANDMUX_GUARD_COMPONENTS is set (the writable work tree's
 * diod). */
static bool host_run(const char *full)
{
	return listed_in(create_list, full, false) ||
	       (component_list != NULL &&
		(component_hit(full, false) || gitdir_write_refused(full) != NULL ||
		 shape_verdict(full) != GITDIR_EVERYDAY));
}

/* Moved, linked or made as a symlink: also a name leading to a
 * host-run path or component ("x/.git" brings .git/hooks along). */
static bool host_run_above(const char *full)
{
	return host_run(full) || listed_in(create_list, full, true) ||
	       (component_list != NULL && component_hit(full, true));
}

/* The real path of an open file; -1 if it cannot be read. */
static int fd_path(int fd, char out[PATH_MAX])
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, out, PATH_MAX - 1);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

/* A name to create or remove: its parent opened (dirfd, the caller
 * closes it) and its last component (base); -1 when the parent cannot
 * be opened, which the real call then reports itself. */
struct target {
	int dirfd;
	char base[NAME_MAX + 1];
	char full[PATH_MAX * 2]; /* the parent's real path / base */
};

static int target_open(const char *path, struct target *t)
{
	char parent[PATH_MAX], real[PATH_MAX];
	const char *slash;
	size_t len = strlen(path);

	/* A trailing slash ("dir/") names the same entry. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || len >= sizeof parent)
		return -1;
	memcpy(parent, path, len);
	parent[len] = '\0';
	slash = strrchr(parent, '/');
	{
		const char *base = slash != NULL ? slash + 1 : parent;

		if (strlen(base) >= sizeof t->base)
			return -1;
		memcpy(t->base, base, strlen(base) + 1);
	}
	if (slash == NULL)
		memcpy(parent, ".", 2);
	else
		parent[slash == parent ? 1 : (size_t)(slash - parent)] = '\0';
	if (t->base[0] == '\0' || strcmp(t->base, ".") == 0 || strcmp(t->base, "..") == 0)
		return -1;
	t->dirfd = openat(AT_FDCWD, parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0)
		return -1;
	if (fd_path(t->dirfd, real) != 0) {
		close(t->dirfd);
		return -1;
	}
	snprintf(t->full, sizeof t->full, "%s/%s", strcmp(real, "/") == 0 ? "" : real, t->base);
	return 0;
}

static int refuse(struct target *t, const char *action, int err)
{
	if (action != NULL)
		report(action, t->full);
	close(t->dirfd);
	errno = err;
	return -1;
}

/* May a name be made at t (a new entry of any kind)?  Not in a deny-read
 * root, not a host-run path (with ancestors: a directory moved or
 * linked into place would bring the path along). */
static bool shape_birth_ok(const struct target *t);

static bool may_create(const struct target *t, bool ancestors)
{
	return !denied(t->full) && !(ancestors ? host_run_above(t->full) : host_run(t->full)) &&
	       shape_birth_ok(t);
}

/* A copy of dir's config, checked as a change from nothing, put in its
 * place: the guest may hold the old file open, or linked elsewhere, to
 * write it after the check. */
static bool config_copied(int dir)
{
	static char text[GITCONFIG_MAX + 1];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char tmp[64], why[160];
	struct stat st;
	ssize_t len = -1;
	bool ok = false;
	int fd, out;

	pthread_mutex_lock(&lock);
	fd = openat(dir, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		len = read(fd, text, sizeof text);
	if (fd >= 0)
		close(fd);
	if (len >= 0 && len <= GITCONFIG_MAX &&
	    gitconfig_change_ok(NULL, 0, text, (size_t)len, why, sizeof why)) {
		snprintf(tmp, sizeof tmp, ".config.sandmux-%ld-%lx", (long)getpid(),
			 (unsigned long)pthread_self());
		out = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);
		if (out >= 0) {
			ok = write(out, text, (size_t)len) == len && renameat(dir, tmp, dir, "config") == 0;
			if (!ok)
				unlinkat(dir, tmp, 0);
			else
				fchmod(out, st.st_mode & 0777 & ~(mode_t)0022);
			close(out);
		}
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* May t be made, where it would give its directory a git directory's
 * shape?  Threat: a hook, an info/attributes, a config with a
 * core.fsmonitor planted while the directory was nothing to git, then
 * the last name made.  Only a directory holding nothing but what git
 * init, clone or worktree add put there first takes the shape, its
 * config checked and replaced by the guard's copy (as the native
 * supervisor does it). */
static bool shape_birth_ok(const struct target *t)
{
	struct stat st;
	struct dirent *e;
	bool config = false;
	DIR *d;
	int fd;

	if (component_list == NULL || !gitdir_shape_name(t->base) ||
	    fstatat(t->dirfd, gitdir_shape_partner(t->base), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    gitdir_shape_at(t->dirfd, "") != GITDIR_NONE)
		return true;
	fd = openat(t->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!gitdir_born_with(e->d_name)) {
			closedir(d);
			return false;
		}
		config = config || strcmp(e->d_name, "config") == 0;
	}
	closedir(d);
	return !config || config_copied(t->dirfd);
}

/* A `.git` made by anything but mkdir: a file ("gitdir: elsewhere")
 * or a symlink would point the host's git at a directory the guest
 * filled, whose config is not at .git/config. */
static bool git_not_dir(const struct target *t)
{
	return component_list != NULL && strcmp(t->base, ".git") == 0;
}

/* An existing object, decided on what path leads to now: opened O_PATH
 * (following symlinks unless O_NOFOLLOW, as the call would), checked,
 * then opened for real through that open file. */
static int object_open(const char *path, int flags)
{
	char real[PATH_MAX], again[64];
	struct stat st;
	int obj = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)));
	int fd;

	if (obj < 0)
		return -1;
	if (fd_path(obj, real) != 0 || fstat(obj, &st) != 0) {
		close(obj);
		errno = EACCES;
		return -1;
	}
	if (denied(real) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || linked_to_secret(&st)) {
		report("file-read*", real);
		close(obj);
		errno = EACCES;
		return -1;
	}
	/* A host-run file there at launch is also a read-only mount around
	 * diod; refused here first so that the refusal is reported. */
	if ((flags & (O_WRONLY | O_RDWR | O_TRUNC | O_APPEND)) && host_run(real)) {
		report("file-write*", real);
		close(obj);
		errno = EACCES;
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		close(obj);
		errno = ELOOP;
		return -1;
	}
	snprintf(again, sizeof again, "/proc/self/fd/%d", obj);
	fd = openat(AT_FDCWD, again, flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW));
	close(obj);
	return fd;
}

static int guarded_open(const char *path, int flags, mode_t mode)
{
	struct target t;
	struct stat st;
	int fd;

	if (!(flags & O_CREAT))
		return object_open(path, flags);
	if (target_open(path, &t) != 0)
		return openat(AT_FDCWD, path, flags, mode & ~(mode_t)(S_ISUID | S_ISGID));
	if (fstatat(t.dirfd, t.base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* It exists: no creation, the object decides.  Through a
		 * symlink only to something that exists. */
		if (S_ISLNK(st.st_mode) && fstatat(t.dirfd, t.base, &st, 0) != 0)
			return refuse(&t, "file-write-create", EACCES);
		if (flags & O_EXCL)
			return refuse(&t, NULL, EEXIST);
		close(t.dirfd);
		return object_open(path, flags & ~O_CREAT);
	}
	if (!may_create(&t, false) || git_not_dir(&t))
		return refuse(&t, "file-write-create", EACCES);
	fd = openat(t.dirfd, t.base, flags | O_NOFOLLOW, mode & ~(mode_t)(S_ISUID | S_ISGID));
	close(t.dirfd);
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return guarded_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return guarded_open(path, flags, mode);
}

DIR *opendir(const char *path)
{
	int fd = object_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (dir == NULL)
		close(fd);
	return dir;
}

int mkdir(const char *path, mode_t mode)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return mkdirat(AT_FDCWD, path, mode & ~(mode_t)S_ISUID);
	if (!may_create(&t, false))
		return refuse(&t, "file-write-create", EACCES);
	rc = mkdirat(t.dirfd, t.base, mode & ~(mode_t)S_ISUID);
	close(t.dirfd);
	return rc;
}

/* diod links against glibc's old stat-versioned mknod. */
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);

int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	struct target t;
	int rc;

	(void)ver;
	if (target_open(path, &t) != 0) {
		errno = EACCES;
		return -1;
	}
	if (S_ISCHR(mode) || S_ISBLK(mode) || !may_create(&t, false) || git_not_dir(&t))
		return refuse(&t, "file-write-create", EACCES);
	rc = mknodat(t.dirfd, t.base, mode & ~(mode_t)(S_ISUID | S_ISGID), *dev);
	close(t.dirfd);
	return rc;
}

/* chmod follows a symlink: decided on the object it leads to, through
 * the open file, so a link in the work tree to ~/.ssh/id changes
 * nothing there. */
int chmod(const char *path, mode_t mode)
{
	char real[PATH_MAX], again[64];
	struct stat st;
	int obj = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	int rc;

	if (obj < 0)
		return -1;
	if (fd_path(obj, real) != 0 || fstat(obj, &st) != 0) {
		close(obj);
		errno = EACCES;
		return -1;
	}
	if (denied(real) || host_run(real) || mode & S_ISUID ||
	    (mode & S_ISGID && !S_ISDIR(st.st_mode))) {
		report("file-write*", real);
		close(obj);
		errno = denied(real) || host_run(real) ? EACCES : EPERM;
		return -1;
	}
	snprintf(again, sizeof again, "/proc/self/fd/%d", obj);
	rc = fchmodat(AT_FDCWD, again, mode, 0);
	close(obj);
	return rc;
}

/* lchown does not follow: the entry itself.  Threat: a guest root
 * giving the user's key to another host user. */
int lchown(const char *path, uid_t owner, gid_t group)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return fchownat(AT_FDCWD, path, owner, group, AT_SYMLINK_NOFOLLOW);
	if (denied(t.full) || host_run(t.full))
		return refuse(&t, "file-write*", EACCES);
	rc = fchownat(t.dirfd, t.base, owner, group, AT_SYMLINK_NOFOLLOW);
	close(t.dirfd);
	return rc;
}

int link(const char *old, const char *new)
{
	struct target from, t;
	int rc;

	if (target_open(old, &from) != 0) {
		errno = ENOENT;
		return -1;
	}
	if (denied(from.full)) {
		close(from.dirfd);
		report("file-read*", from.full);
		errno = EACCES;
		return -1;
	}
	/* A second name for a hook or a config is a way to write it. */
	if (host_run(from.full)) {
		close(from.dirfd);
		report("file-write*", from.full);
		errno = EACCES;
		return -1;
	}
	if (target_open(new, &t) != 0) {
		close(from.dirfd);
		errno = ENOENT;
		return -1;
	}
	if (!may_create(&t, true) || git_not_dir(&t)) {
		close(from.dirfd);
		return refuse(&t, "file-write-create", EACCES);
	}
	rc = linkat(from.dirfd, from.base, t.dirfd, t.base, 0);
	close(from.dirfd);
	close(t.dirfd);
	return rc;
}

int symlink(const char *target, const char *path)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return symlinkat(target, AT_FDCWD, path);
	if (!may_create(&t, true) || git_not_dir(&t))
		return refuse(&t, "file-write-create", EACCES);
	rc = symlinkat(target, t.dirfd, t.base);
	close(t.dirfd);
	return rc;
}

/* Is t a repository's own config, "<...>/.git/config", its `.git` the
 * first of the path (as gitdir.h judges)? */
static bool git_config(const struct target *t)
{
	const char *first = strstr(t->full, "/.git/");

	if (component_list == NULL)
		return false;
	if (first != NULL)
		return strcmp(first, "/.git/config") == 0;
	/* A git directory by another name: its config, judged by shape. */
	return strcmp(t->base, "config") == 0 && shape_verdict(t->full) == GITDIR_CONFIG;
}

/*
 * git writes a repository's config by renaming config.lock onto it
 * (init, clone, `git config`).  Threat: a config that makes the host's
 * next git run a program (core.fsmonitor, core.hooksPath, ...).  So the
 * rename is let through only when gitconfig_change_ok accepts the
 * change, and what lands is a copy the guard made of the checked bytes,
 * never the guest's own file, which the guest may still hold open and
 * write after the check.  The copy is made with mode 0 (diod has no
 * CAP_DAC_OVERRIDE to open it, and its name in the `.git` is not one
 * the guest may open for writing) and given the lock file's mode once
 * in place, where opening it for writing is refused.
 */
static int replace_git_config(struct target *from, struct target *t)
{
	static char new_text[GITCONFIG_MAX + 1], old_text[GITCONFIG_MAX + 1];
	char tmp[64], why[160];
	ssize_t new_len, old_len = -1;
	struct stat st;
	int fd, old_fd, rc;

	/* O_NONBLOCK: a FIFO named config.lock must not hold diod's
	 * thread; only a regular file is read. */
	fd = openat(from->dirfd, from->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (new_len = read(fd, new_text, sizeof new_text)) < 0 || new_len > GITCONFIG_MAX) {
		if (fd >= 0)
			close(fd);
		report("file-write*", t->full);
		errno = EACCES;
		return -1;
	}
	close(fd);
	old_fd = openat(t->dirfd, t->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (old_fd >= 0) {
		struct stat old_st;

		old_len = fstat(old_fd, &old_st) == 0 && S_ISREG(old_st.st_mode)
				  ? read(old_fd, old_text, sizeof old_text)
				  : -1;
		close(old_fd);
		if (old_len < 0 || old_len > GITCONFIG_MAX) {
			report("file-write*", t->full);
			errno = EACCES;
			return -1;
		}
	} else if (errno != ENOENT) {
		report("file-write*", t->full);
		errno = EACCES;
		return -1;
	}
	if (!gitconfig_change_ok(old_len < 0 ? NULL : old_text, old_len < 0 ? 0 : (size_t)old_len,
				 new_text, (size_t)new_len, why, sizeof why)) {
		report("file-write*", t->full);
		errno = EACCES;
		return -1;
	}
	snprintf(tmp, sizeof tmp, ".config.sandmux-%ld-%lx", (long)getpid(),
		 (unsigned long)pthread_self());
	fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	rc = write(fd, new_text, (size_t)new_len) == new_len ? 0 : -1;
	if (rc == 0)
		rc = renameat(t->dirfd, tmp, t->dirfd, t->base);
	if (rc != 0) {
		int err = errno;

		unlinkat(t->dirfd, tmp, 0);
		close(fd);
		errno = err;
		return -1;
	}
	fchmod(fd, st.st_mode & 0777 & ~(mode_t)0022);
	close(fd);
	unlinkat(from->dirfd, from->base, 0);
	return 0;
}

int rename(const char *old, const char *new)
{
	struct target from, t;
	int rc;

	if (target_open(old, &from) != 0) {
		errno = ENOENT;
		return -1;
	}
	/* Moving a denied file out of its root would make it readable; a
	 * host-run file moved away would let a new one take its place. */
	if (target_open(new, &t) != 0) {
		close(from.dirfd);
		errno = ENOENT;
		return -1;
	}
	/* A protected file (a hook) renamed onto it would be removed
	 * after the copy: that one is judged below, and refused. */
	if (git_config(&t) && !denied(from.full) && !host_run_above(from.full) &&
	    !listed_in(create_list, t.full, false)) {
		rc = replace_git_config(&from, &t);
		close(from.dirfd);
		close(t.dirfd);
		return rc;
	}
	if (denied(from.full) || host_run_above(from.full)) {
		close(from.dirfd);
		close(t.dirfd);
		report("file-write*", from.full);
		errno = EACCES;
		return -1;
	}
	if (!may_create(&t, true)) {
		close(from.dirfd);
		return refuse(&t, "file-write-create", EACCES);
	}
	rc = renameat(from.dirfd, from.base, t.dirfd, t.base);
	close(from.dirfd);
	close(t.dirfd);
	return rc;
}

/* Removing or emptying what lies in a deny-read root. */
static int guarded_remove(const char *path, int flags)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return unlinkat(AT_FDCWD, path, flags);
	if (denied(t.full) || host_run(t.full))
		return refuse(&t, "file-write*", EACCES);
	rc = unlinkat(t.dirfd, t.base, flags);
	close(t.dirfd);
	return rc;
}

int unlink(const char *path)
{
	return guarded_remove(path, 0);
}

int rmdir(const char *path)
{
	return guarded_remove(path, AT_REMOVEDIR);
}

int remove(const char *path)
{
	struct stat st;

	return guarded_remove(path,
			      lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

/* An entry's attributes (not following a symlink, as diod's l*
 * calls do): opened O_PATH, its real path checked, then changed
 * through the open file.  Threat: an attribute of a hook or config
 * (its times, a security.* or user.* extended attribute) changed by a
 * guest root; a deny-read file's likewise. */
static int entry_open(const char *path, bool follow, char again[64])
{
	char real[PATH_MAX];
	int obj = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));

	if (obj < 0)
		return -1;
	if (fd_path(obj, real) != 0) {
		close(obj);
		errno = EACCES;
		return -1;
	}
	if (denied(real) || host_run(real)) {
		report("file-write*", real);
		close(obj);
		errno = EACCES;
		return -1;
	}
	snprintf(again, 64, "/proc/self/fd/%d", obj);
	return obj;
}

int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	char again[64];
	int obj = entry_open(path, false, again);
	int rc;

	if (obj < 0)
		return -1;
	rc = setxattr(again, name, value, size, flags);
	close(obj);
	return rc;
}

int lremovexattr(const char *path, const char *name)
{
	char again[64];
	int obj = entry_open(path, false, again);
	int rc;

	if (obj < 0)
		return -1;
	rc = removexattr(again, name);
	close(obj);
	return rc;
}

/* Not inlined: the caller's path is declared nonnull, yet futimens'
 * form passes NULL. */
__attribute__((noinline)) static bool by_path(int dirfd, const char *path)
{
	return path != NULL && (dirfd == AT_FDCWD || path[0] == '/');
}

int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
	char again[64];
	int obj, rc;

	/* diod's calls name a path (from its cwd, or absolute); one by an
	 * open file (futimens' form) goes through as it is. */
	if (!by_path(dirfd, path))
		return (int)syscall(SYS_utimensat, dirfd, path, times, flags);
	if ((obj = entry_open(path, !(flags & AT_SYMLINK_NOFOLLOW), again)) < 0)
		return -1;
	rc = (int)syscall(SYS_utimensat, AT_FDCWD, again, times, 0);
	close(obj);
	return rc;
}

int truncate(const char *path, off_t length)
{
	int fd = object_open(path, O_WRONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = ftruncate(fd, length);
	close(fd);
	return rc;
}
