/*
 * diod-guard: a preload library for the 9p server (diod) of a microvm
 * pane's writable work tree, which refuses to create the host-run paths
 * of the launch (hostrun.h) that did not exist when the pane started.
 *
 * The ones that existed are bound read-only around diod (microvm.c,
 * share_argv).  A missing one has nothing to mount over, and making a
 * stub to mount over would litter the user's $HOME; native refuses it
 * by name in its seccomp supervisor, and this is the same refusal for a
 * process that has no supervisor: diod creates files with open(O_CREAT),
 * mkdir, mknod, link, symlink and rename (what its binary imports), and
 * each of those is answered here.  Threat: the guest (its shell, or a
 * compromised guest kernel sending its own 9p requests) planting what the
 * host runs later through the work tree, say ~/.profile when the work
 * tree is $HOME (design invariant 7).
 *
 * Decided on the final object, race-free: the parent directory is opened
 * (O_PATH) and its real path read back from the open file, the name is
 * checked against the list under that real path, and the call is made
 * relative to that same open directory (openat, mkdirat, ...), so a
 * parent swapped for a symlink after the check changes nothing.  An
 * O_CREAT open whose last component is a symlink to nothing is refused
 * (it would create the symlink's target, wherever that is); one that is
 * not a symlink gets O_NOFOLLOW, so it cannot become one in between.
 * rename and symlink are refused onto an ancestor of a listed path too
 * (a directory moved or linked into place would bring the path along).
 *
 * The list is SANDMUX_GUARD_PATHS (resolved absolute paths, one per
 * line), set for diod alone with bwrap's --setenv.  Built as
 * build/sandmux-diod-guard.so, beside the sandmux binary.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The listed paths, read once at load (before diod's threads exist). */
static char *guard_list;

__attribute__((constructor)) static void guard_load(void)
{
	const char *env = getenv("SANDMUX_GUARD_PATHS");

	guard_list = env != NULL ? strdup(env) : NULL;
}

/* Is full (an absolute real path) a listed path or inside one; with
 * ancestors, also a directory above one? */
static bool listed(const char *full, bool ancestors)
{
	size_t flen = strlen(full);

	for (const char *p = guard_list; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (len > 0 && flen >= len && strncmp(full, p, len) == 0 &&
		    (full[len] == '\0' || full[len] == '/'))
			return true;
		if (ancestors && len > flen && strncmp(full, p, flen) == 0 && p[flen] == '/')
			return true;
		p = nl != NULL ? nl + 1 : p + len;
	}
	return false;
}

/* A name to create: its parent opened (dirfd, the caller closes it) and
 * its last component (base); -1 when the parent cannot be opened, which
 * the real call then reports itself. */
struct target {
	int dirfd;
	char base[NAME_MAX + 1];
	char full[PATH_MAX * 2]; /* the parent's real path / base */
};

static int target_open(const char *path, struct target *t)
{
	char parent[PATH_MAX], link[64], real[PATH_MAX];
	const char *slash;
	size_t len = strlen(path);
	ssize_t n;

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
	t->dirfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0)
		return -1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", t->dirfd);
	n = readlink(link, real, sizeof real - 1);
	if (n <= 0) {
		close(t->dirfd);
		return -1;
	}
	real[n] = '\0';
	snprintf(t->full, sizeof t->full, "%s/%s", strcmp(real, "/") == 0 ? "" : real, t->base);
	return 0;
}

static int refuse(struct target *t)
{
	close(t->dirfd);
	errno = EACCES;
	return -1;
}

/* Every call is made with the *at() form (AT_FDCWD when nothing is
 * checked), so no real function has to be looked up. */
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);

static int guarded_open(const char *path, int flags, mode_t mode)
{
	struct target t;
	struct stat st;
	int fd;

	if (!(flags & O_CREAT) || target_open(path, &t) != 0)
		return openat(AT_FDCWD, path, flags, mode);
	if (fstatat(t.dirfd, t.base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		/* Through a symlink: only to something that exists, which
		 * is then opened, not created. */
		if (fstatat(t.dirfd, t.base, &st, 0) != 0)
			return refuse(&t);
		flags &= ~(O_CREAT | O_EXCL);
	} else {
		if (listed(t.full, false))
			return refuse(&t);
		flags |= O_NOFOLLOW;
	}
	fd = openat(t.dirfd, t.base, flags, mode);
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

int mkdir(const char *path, mode_t mode)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return mkdirat(AT_FDCWD, path, mode);
	if (listed(t.full, false))
		return refuse(&t);
	rc = mkdirat(t.dirfd, t.base, mode);
	close(t.dirfd);
	return rc;
}

int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	struct target t;

	(void)ver;
	int rc;

	if (target_open(path, &t) != 0)
		return mknodat(AT_FDCWD, path, mode, *dev);
	if (listed(t.full, false))
		return refuse(&t);
	rc = mknodat(t.dirfd, t.base, mode, *dev);
	close(t.dirfd);
	return rc;
}

int link(const char *old, const char *new)
{
	struct target t;
	int rc;

	if (target_open(new, &t) != 0)
		return linkat(AT_FDCWD, old, AT_FDCWD, new, 0);
	if (listed(t.full, false))
		return refuse(&t);
	rc = linkat(AT_FDCWD, old, t.dirfd, t.base, 0);
	close(t.dirfd);
	return rc;
}

int symlink(const char *target, const char *path)
{
	struct target t;
	int rc;

	if (target_open(path, &t) != 0)
		return symlinkat(target, AT_FDCWD, path);
	if (listed(t.full, true))
		return refuse(&t);
	rc = symlinkat(target, t.dirfd, t.base);
	close(t.dirfd);
	return rc;
}

int rename(const char *old, const char *new)
{
	struct target t;
	int rc;

	if (target_open(new, &t) != 0)
		return renameat(AT_FDCWD, old, AT_FDCWD, new);
	if (listed(t.full, true))
		return refuse(&t);
	rc = renameat(AT_FDCWD, old, t.dirfd, t.base);
	close(t.dirfd);
	return rc;
}
