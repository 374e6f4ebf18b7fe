/*
 * home-layer: the copy-on-write home of a profile that makes $HOME
 * writable (home-layer.h says why; backends/native-inside/shim-home.c mounts it).
 *
 * A layer is overlayfs's upper directory: a file there is the pane's
 * version of the host's file at the same place under $HOME, a character
 * device 0/0 is a deletion ("whiteout"), and a directory marked with the
 * user.overlay.opaque attribute replaces the host's directory whole.
 * Reading it against the host is all `sandmux changes` needs.
 *
 * macOS has no overlayfs and Seatbelt no layer (docs/security.md): a
 * macOS pane's $HOME is never layered, there are no layers to read, and
 * `sandmux changes` finds none.  The file is built there all the same,
 * so the verbs answer as on a Linux host without layers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#endif
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "home-layer.h"
#include "hostrun.h"
#include "subpath.h"
#include "xalloc.h"

static char layer_root[PATH_MAX];

void home_layer_set_root(const char *dir)
{
	snprintf(layer_root, sizeof layer_root, "%s", dir != NULL ? dir : "");
}

/* A profile's name becomes a directory name: nothing that could climb
 * out of the root or need escaping in the overlay's options. */
static bool plain_name(const char *name)
{
	if (name == NULL || name[0] == '\0' || name[0] == '.' || strlen(name) > 64)
		return false;
	for (const char *c = name; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			return false;
	return true;
}

static int make_dir(const char *path, struct sm_error *err)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* mkdir -p of the root: its parents are the state directory's. */
static int make_parents(const char *path, struct sm_error *err)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof buf, "%s", path);
	for (char *slash = strchr(buf + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (make_dir(buf, err) != 0)
			return -1;
		*slash = '/';
	}
	return make_dir(buf, err);
}

int home_layer_dir(const char *profile, bool mkdirs, char *out, size_t size,
		   struct sm_error *err)
{
	char sub[PATH_MAX];

	if (layer_root[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "no state directory for the copy-on-write home");
		return -1;
	}
	if (!plain_name(profile)) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "profile name \"%s\" cannot name a home layer", profile ? profile : "");
		return -1;
	}
	if ((size_t)snprintf(out, size, "%s/%s", layer_root, profile) >= size) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the home layer's path is too long");
		return -1;
	}
	if (!mkdirs)
		return 0;
	if (make_parents(out, err) != 0)
		return -1;
	snprintf(sub, sizeof sub, "%s/upper", out);
	return make_dir(sub, err);
}

static int push_resolved_inside(const char *home, const char *path, struct strvec *out)
{
	char resolved[PATH_MAX];

	if (path == NULL || realpath(path, resolved) == NULL)
		return 0;
	if (!subpath_of(resolved, home) || strcmp(resolved, home) == 0 ||
	    strvec_contains(out, resolved))
		return 0;
	return strvec_push(out, resolved);
}

/* With the working directory at $HOME, the user's own files there are
 * the work tree: every entry but the dot-entries, where what the host
 * runs lives.  A symlink is left to the overlay: it leads wherever it
 * leads, and only replacing it lands in the layer. */
static int push_home_entries(const char *home, struct strvec *out)
{
	DIR *d = opendir(home);
	struct dirent *e;
	int rc = 0;

	if (d == NULL)
		return 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", home, e->d_name) >= sizeof path ||
		    lstat(path, &st) != 0 || S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
			rc = strvec_contains(out, path) ? 0 : strvec_push(out, path);
	}
	closedir(d);
	return rc;
}

int home_layer_real_roots(const char *home, const char *cwd, const struct strvec *writable,
			  struct strvec *out)
{
	char resolved[PATH_MAX];

	if (cwd != NULL && realpath(cwd, resolved) != NULL && strcmp(resolved, home) == 0) {
		if (push_home_entries(home, out) != 0)
			return -1;
	} else if (push_resolved_inside(home, cwd, out) != 0) {
		return -1;
	}
	for (size_t i = 0; writable != NULL && i < writable->n; i++)
		if (push_resolved_inside(home, writable->v[i], out) != 0)
			return -1;
	return 0;
}

bool home_layer_holds(const char *home, const struct strvec *real, const char *path)
{
	return subpath_of(path, home) && !subpath_of_any(path, real);
}

int home_layer_argv(const char *const *prefix, size_t nprefix, const char *home,
		    const char *layer, const char *work, const struct strvec *real,
		    char *const *command, struct strvec *out)
{
	if (strvec_pushv(out, prefix, nprefix) != 0 ||
	    strvec_pushv(out, (const char *const[]){"--home-layer", home, layer, work}, 4) != 0)
		return -1;
	for (size_t i = 0; i < real->n; i++)
		if (strvec_pushv(out, (const char *const[]){"--real", real->v[i]}, 2) != 0)
			return -1;
	if (strvec_push(out, "--") != 0)
		return -1;
	for (size_t i = 0; command[i] != NULL; i++)
		if (strvec_push(out, command[i]) != 0)
			return -1;
	return 0;
}

/* --- work directories ----------------------------------------------------- */

/* overlayfs empties its work directory when it mounts: two mounts
 * sharing one would pull it from under each other (a copy-up of the
 * first fails with EPERM).  So every mount gets its own, named after
 * the server (work.PID.XXXXXX) so that a later one can clear what a
 * server that died left; it exists exactly while its sandbox may run,
 * which is what home_layer_in_use counts. */
static bool work_of_live_server(const char *name, bool *live)
{
	int pid;

	if (sscanf(name, "work.%d.", &pid) != 1 || pid <= 0)
		return false;
	*live = kill(pid, 0) == 0 || errno != ESRCH;
	return true;
}

static int remove_tree_at(int dirfd, const char *name);

static void remove_stale_work(const char *layer)
{
	DIR *d = opendir(layer);
	struct dirent *e;
	bool live;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (work_of_live_server(e->d_name, &live) && !live)
			remove_tree_at(dirfd(d), e->d_name);
	closedir(d);
}

int home_layer_work_new(const char *layer, char **out, struct sm_error *err)
{
	char path[PATH_MAX];

	remove_stale_work(layer);
	if ((size_t)snprintf(path, sizeof path, "%s/work.%d.XXXXXX", layer, (int)getpid()) >=
		sizeof path ||
	    mkdtemp(path) == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make a work directory in %s: %s",
			     layer, strerror(errno));
		return -1;
	}
	*out = xstrdup(path);
	return 0;
}

void home_layer_work_remove(const char *work)
{
	const char *slash = strrchr(work, '/');
	char parent[PATH_MAX];
	int fd;

	if (slash == NULL || slash == work)
		return;
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - work), work);
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	remove_tree_at(fd, slash + 1);
	close(fd);
}

int home_layer_in_use(const char *layer)
{
	DIR *d = opendir(layer);
	struct dirent *e;
	int n = 0;
	bool live;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (work_of_live_server(e->d_name, &live) && live)
			n++;
	closedir(d);
	return n;
}

/* --- what a pane changed -------------------------------------------------- */

/* Every name a copy-up, a create or a deletion puts in the upper
 * directory gets a new ctime; a directory only holds the others.  At
 * most *budget entries are looked at (the walk runs on the server's
 * loop when a pane ends): *budget below 0 means the count is short. */
static int count_since(int dirfd, time_t since, int depth, long *budget)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	int n = 0;

	if (d == NULL) {
		close(dirfd);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (--*budget < 0)
			break;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = depth < 64 ? openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
									  O_NOFOLLOW | O_CLOEXEC)
					     : -1;

			if (sub >= 0)
				n += count_since(sub, since, depth + 1, budget);
		} else if (st.st_ctime >= since) {
			n++;
		}
	}
	closedir(d);
	return n;
}

int home_layer_changed_since(const char *profile, time_t since, bool *more)
{
	char layer[PATH_MAX], upper[PATH_MAX + 8];
	struct sm_error err = {0};
	long budget = HOME_LAYER_COUNT_MAX;
	int fd, n;

	*more = false;
	if (home_layer_dir(profile, false, layer, sizeof layer, &err) != 0)
		return -1;
	snprintf(upper, sizeof upper, "%s/upper", layer);
	fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = count_since(fd, since, 0, &budget);
	*more = budget < 0;
	return n;
}

/* --- reading a layer against the host ----------------------------------- */

const char *home_change_kind_name(enum home_change_kind kind)
{
	return kind == HOME_ADDED ? "added" : kind == HOME_CHANGED ? "changed" : "deleted";
}

#ifdef __linux__
static bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

static bool is_opaque(const char *path)
{
	char v[4];
	ssize_t n = lgetxattr(path, "user.overlay.opaque", v, sizeof v);

	return n == 1 && v[0] == 'y';
}
#else
/* No overlayfs: nothing in a directory is a whiteout or opaque. */
static bool is_whiteout(const struct stat *st)
{
	return false;
}

static bool is_opaque(const char *path)
{
	return false;
}
#endif

/* Same bytes, same mode, or the same link target. */
static bool same_file(const char *a, const struct stat *sa, const char *b, const struct stat *sb)
{
	char la[PATH_MAX], lb[PATH_MAX], ba[8192], bb[8192];
	ssize_t na, nb;
	int fa, fb;
	bool same = true;

	if ((sa->st_mode & S_IFMT) != (sb->st_mode & S_IFMT))
		return false;
	if (S_ISLNK(sa->st_mode)) {
		na = readlink(a, la, sizeof la);
		nb = readlink(b, lb, sizeof lb);
		return na == nb && na >= 0 && memcmp(la, lb, (size_t)na) == 0;
	}
	if (!S_ISREG(sa->st_mode))
		return true;
	if (sa->st_size != sb->st_size || (sa->st_mode & 07777) != (sb->st_mode & 07777))
		return false;
	fa = open(a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	fb = open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fa < 0 || fb < 0)
		same = false;
	while (same) {
		na = read(fa, ba, sizeof ba);
		nb = read(fb, bb, sizeof bb);
		if (na != nb || na < 0 || memcmp(ba, bb, (size_t)na) != 0)
			same = false;
		if (na <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

struct walk {
	const char *upper, *home;
	struct strvec host_run;
	struct home_changes *out;
};

static int add_change(struct walk *w, const char *rel, enum home_change_kind kind, bool is_dir)
{
	char abs[PATH_MAX];
	struct home_change *c;

	if (w->out->n == w->out->cap) {
		size_t cap = w->out->cap ? 2 * w->out->cap : 32;
		w->out->v = xrealloc(w->out->v, cap * sizeof *w->out->v);
		w->out->cap = cap;
	}
	c = &w->out->v[w->out->n];
	c->path = xstrdup(rel);
	snprintf(abs, sizeof abs, "%s/%s", w->home, rel);
	c->kind = kind;
	c->is_dir = is_dir;
	c->host_run = hostrun_covers(&w->host_run, abs);
	w->out->n++;
	return 0;
}

static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int no_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

/* One directory of the layer, rel "" for its top. */
static int walk_dir(struct walk *w, const char *rel)
{
	char dir[PATH_MAX];
	struct dirent **names;
	int n, rc = 0;

	snprintf(dir, sizeof dir, "%s%s%s", w->upper, rel[0] ? "/" : "", rel);
	n = scandir(dir, &names, no_dots, name_order);
	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX], up[PATH_MAX], host[PATH_MAX];
		struct stat su, sh;
		bool on_host;

		if (rc != 0 || (size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "",
						names[i]->d_name) >= sizeof sub) {
			free(names[i]);
			continue;
		}
		snprintf(up, sizeof up, "%s/%s", w->upper, sub);
		snprintf(host, sizeof host, "%s/%s", w->home, sub);
		free(names[i]);
		if (lstat(up, &su) != 0)
			continue;
		on_host = lstat(host, &sh) == 0;
		if (is_whiteout(&su)) {
			if (on_host)
				rc = add_change(w, sub, HOME_DELETED, S_ISDIR(sh.st_mode));
		} else if (S_ISDIR(su.st_mode)) {
			if (!on_host)
				rc = add_change(w, sub, HOME_ADDED, true);
			else if (!S_ISDIR(sh.st_mode) || is_opaque(up))
				rc = add_change(w, sub, HOME_CHANGED, true);
			if (rc == 0)
				rc = walk_dir(w, sub);
		} else if (!on_host) {
			rc = add_change(w, sub, HOME_ADDED, false);
		} else if (!same_file(up, &su, host, &sh)) {
			rc = add_change(w, sub, HOME_CHANGED, false);
		}
	}
	free(names);
	return rc;
}

int home_layer_changes(const char *layer, const char *home, struct home_changes *out,
		       struct sm_error *err)
{
	char upper[PATH_MAX];
	extern char **environ;
	struct walk w = {.upper = upper, .home = home, .out = out};
	int rc;

	memset(out, 0, sizeof *out);
	snprintf(upper, sizeof upper, "%s/upper", layer);
	if (hostrun_paths(home, environ, &w.host_run) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	rc = walk_dir(&w, "");
	strvec_free(&w.host_run);
	if (rc != 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot read the layer %s: %s", upper,
			     strerror(errno));
		home_changes_free(out);
		return -1;
	}
	return 0;
}

void home_changes_free(struct home_changes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* --- keeping and discarding ---------------------------------------------- */

/* A relative path that stays inside: no empty, "." or ".." component. */
static bool safe_relative(const char *rel)
{
	const char *c = rel;

	if (rel[0] == '\0' || rel[0] == '/')
		return false;
	while (*c != '\0') {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/')
			c++;
	}
	return true;
}

static int copy_regular(const char *from, const char *to, mode_t mode, struct sm_error *err)
{
	char tmp[PATH_MAX], buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out;
	ssize_t n = 0;

	if (in < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot read %s: %s", from, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.sandmux-keep.%d", to, (int)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
	if (out < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot write %s: %s", tmp, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (n < 0 || fchmod(out, mode & 07777) != 0 || close(out) != 0 || rename(tmp, to) != 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot write %s: %s", to, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The host directories above rel that only the layer has, made with
 * the layer's modes (a kept ~/.local/bin/tool needs ~/.local/bin). */
static int make_host_parents(const char *layer, const char *home, const char *rel,
			     struct sm_error *err)
{
	for (const char *slash = strchr(rel, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		char host[PATH_MAX], up[PATH_MAX];
		struct stat st;

		snprintf(host, sizeof host, "%s/%.*s", home, (int)(slash - rel), rel);
		snprintf(up, sizeof up, "%s/upper/%.*s", layer, (int)(slash - rel), rel);
		if (lstat(host, &st) == 0)
			continue;
		if (lstat(up, &st) != 0 || !S_ISDIR(st.st_mode) || mkdir(host, st.st_mode & 07777) != 0) {
			sm_error_set(err, SM_ERR_FAILED, "cannot make %s: %s", host, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int home_layer_keep(const char *layer, const char *home, const char *rel, struct sm_error *err)
{
	char up[PATH_MAX], host[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (!safe_relative(rel)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" is no path inside $HOME", rel);
		return -1;
	}
	snprintf(up, sizeof up, "%s/upper/%s", layer, rel);
	snprintf(host, sizeof host, "%s/%s", home, rel);
	if (make_host_parents(layer, home, rel, err) != 0)
		return -1;
	if (lstat(up, &st) != 0) {
		sm_error_set(err, SM_ERR_NOT_IN_LAYER, "the layer holds no change at ~/%s", rel);
		return -1;
	}
	if (is_whiteout(&st)) {
		int r = unlink(host);

		if (r != 0 && errno == EISDIR)
			r = rmdir(host);
		if (r != 0 && errno != ENOENT) {
			sm_error_set(err, SM_ERR_FAILED, "cannot remove %s: %s", host, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdir(host, st.st_mode & 07777) != 0 && errno != EEXIST) {
			sm_error_set(err, SM_ERR_FAILED, "cannot make %s: %s", host, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(up, target, sizeof target - 1);
		if (n < 0) {
			sm_error_set(err, SM_ERR_FAILED, "cannot read %s: %s", up, strerror(errno));
			return -1;
		}
		target[n] = '\0';
		if ((unlink(host) != 0 && errno != ENOENT) || symlink(target, host) != 0) {
			sm_error_set(err, SM_ERR_FAILED, "cannot write %s: %s", host, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "~/%s is not a file, link or directory",
			     rel);
		return -1;
	}
	return copy_regular(up, host, st.st_mode, err);
}

/* rm -rf of what dirfd holds (and close it), never following a symlink. */
static int empty_dir(int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	int rc = 0;

	if (d == NULL) {
		close(dirfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    remove_tree_at(dirfd, e->d_name) != 0)
			rc = -1;
	closedir(d);
	return rc;
}

/* rm -rf of one entry.  overlayfs leaves its work directory mode 0000:
 * a directory is made readable before it is walked. */
static int remove_tree_at(int dirfd, const char *name)
{
	int sub;

	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return errno == ENOENT ? 0 : -1;
	fchmodat(dirfd, name, 0700, 0);
	sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 || empty_dir(sub) != 0)
		return -1;
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

int home_layer_discard(const char *layer, struct sm_error *err)
{
	char path[PATH_MAX];
	int fd, users = home_layer_in_use(layer);

	/* A mounted layer changed underneath is undefined for overlayfs. */
	if (users > 0) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "%d sandbox%s of this profile use%s the layer (panes, or one the server "
			     "prepared ahead): close them, or run `sandmux kill-server`, first",
			     users, users == 1 ? "" : "es", users == 1 ? "s" : "");
		return -1;
	}
	snprintf(path, sizeof path, "%s/upper", layer);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || empty_dir(fd) != 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot empty %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int home_layer_probe_start(struct home_layer_probe *p, char *reason, size_t size)
{
	char home[PATH_MAX + 8], layer[PATH_MAX + 8], upper[PATH_MAX + 16];
	struct strvec prefix = STRVEC_INIT, none = STRVEC_INIT;
	char *const command[] = {"/bin/true", NULL};
	struct sm_error err = {0};
	int rc = -1;

	*p = (struct home_layer_probe){.argv = STRVEC_INIT};
	if (layer_root[0] != '/') {
		snprintf(reason, size, "no state directory for the layer");
		return -1;
	}
	if (make_parents(layer_root, &err) != 0 ||
	    (size_t)snprintf(p->dir, sizeof p->dir, "%s/.probe.XXXXXX", layer_root) >=
		sizeof p->dir ||
	    mkdtemp(p->dir) == NULL) {
		snprintf(reason, size, "cannot make a directory in %s: %s", layer_root,
			 err.message[0] != '\0' ? err.message : strerror(errno));
		p->dir[0] = '\0';
		return -1;
	}
	snprintf(home, sizeof home, "%s/home", p->dir);
	snprintf(layer, sizeof layer, "%s/layer", p->dir);
	snprintf(upper, sizeof upper, "%s/layer/upper", p->dir);
	if (mkdir(home, 0700) != 0 || mkdir(layer, 0700) != 0 || mkdir(upper, 0700) != 0 ||
	    home_layer_work_new(layer, &p->work, &err) != 0)
		snprintf(reason, size, "cannot make the probe's directories in %s", p->dir);
	else if (backend_shim_prefix(&prefix, NULL, 0) != 0 ||
		 home_layer_argv((const char *const *)prefix.v, prefix.n, home, layer, p->work,
				 &none, command, &p->argv) != 0)
		snprintf(reason, size, "cannot find the shim");
	else
		rc = 0;
	strvec_free(&prefix);
	return rc;
}

void home_layer_probe_end(struct home_layer_probe *p)
{
	int fd;

	if (p->work != NULL)
		home_layer_work_remove(p->work);
	free(p->work);
	p->work = NULL;
	strvec_free(&p->argv);
	if (p->dir[0] == '\0')
		return;
	fd = open(layer_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		remove_tree_at(fd, strrchr(p->dir, '/') + 1);
		close(fd);
	}
	p->dir[0] = '\0';
}
