/*
 * supervisor-decide: the rules a supervised call is judged by, and the
 * answers that carry a decision to the child.  Every name about to be
 * made, replaced or removed goes through mutation_refused (deny-read
 * roots, the writable roots, write-denies and protected paths, git
 * directories by shape at any depth, new-file name patterns); deletes
 * through the delete guard; an fd's object through child_fd_object.  A
 * refusal is an errno for the child and one violation event, queued to
 * the loop thread (queue_report), never dropped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "gitconfig.h"
#include "log.h"
#include "subpath.h"
#include "supervisor-internal.h"

/* --- policy helpers ------------------------------------------------------ */

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
const char *write_denied(const struct sv_pane *p, const char *path, bool above)
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
const char *write_denied_except(const struct sv_pane *p, const char *path,
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

/* A kernel-wide setting under /proc (sysctls, sysrq-trigger, ...), as
 * opposed to a process's own entries (/proc/PID, self, thread-self). */
bool proc_global(const char *path)
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

/* --- answers ------------------------------------------------------------- */

int respond(struct sv_call *c, int64_t val, int error, bool proceed)
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

int respond_errno(struct sv_call *c, int err)
{
	return respond(c, 0, -err, false);
}

/* Hand an fd we opened to the child as the call's result. */
int respond_fd(struct sv_call *c, int fd, bool cloexec)
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

int respond_result(struct sv_call *c, int rc)
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
	/* Never NULL in the server: cJSON allocates through xalloc
	 * (src/main.c's hooks), so a violation is never dropped. */
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

int deny(struct sv_call *c, const char *action, const char *target, int err, const char *why)
{
	violation(c, action, target, err, why);
	return respond_errno(c, err);
}

/* --- git directories, by shape (gitdir.h) ------------------------------ */

/* Up to GITCONFIG_MAX bytes of a regular file, or -1 (errno set). */
ssize_t read_small_file(int dir, const char *name, char *buf, mode_t *mode)
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
int install_copy(struct sv_call *c, int dir, const char *name, const char *text, size_t len,
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

/* The checks every name that is about to be made, replaced or removed
 * goes through: true, with the refusal filled in, when one refuses. */
bool mutation_refused(struct sv_call *c, const struct sv_path *p, bool creates, bool above,
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
int check_mutation(struct sv_call *c, const struct sv_path *p, bool creates, bool above)
{
	struct sv_refusal r;

	if (!mutation_refused(c, p, creates, above, &r))
		return 0;
	return deny(c, r.action, p->canon, r.err, r.why), 1;
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
int child_fd_object(struct sv_call *c, int fdnum, bool writes, int *obj)
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

/* Threat: reading a secret store.  A root that existed at launch is
 * masked, and the kernel refuses the read whatever the spelling; the
 * supervisor answers first so the user sees it.  A root that did not
 * exist has no mask: what the host puts there later is refused here
 * alone. */
bool read_denied(struct sv_call *c, const char *path)
{
	return subpath_of_any(path, &c->pane->deny_read);
}

/* /proc/keys lists the keys its opener may view, possessed ones by its
 * keyrings: opened here, that is the server's session keyring, not the
 * pane's own (the shim joins a new one).  Threat: the names of the keys
 * the user's login or tools put there. */
bool opener_keys(const char *path)
{
	return strcmp(path, "/proc/keys") == 0;
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
bool delete_refused(struct sv_call *c, const struct sv_path *from, const struct sv_path *to)
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

/* A repository's config: `config` in a git directory, judged so by
 * every git directory p lies in (gitdir.h). */
bool is_git_config(struct sv_call *c, const struct sv_path *p)
{
	const char *why;

	return strcmp(p->name, "config") == 0 && git_verdict(c, p, false, false, &why) == GITDIR_CONFIG;
}
