/*
 * bwrap: the bubblewrap argv of a native sandbox, for every profile.
 *
 * What follows describes the `terminal` profile, the default; the others
 * change it through bwrap_input (no writable $HOME or working directory,
 * protected paths, extra deny paths, a restricted network).
 *
 * The terminal profile is for a person's own shell that should not be able
 * to read their keys or scribble over the system: the host is visible
 * read-only, $HOME and the pane's working directory are writable, /tmp is
 * private, the network is shared, and a short list of secret stores is
 * masked so that reading them fails with EACCES.
 *
 * The argv is built as an array, one element per argument, and never goes
 * through a shell.  The order matters because later mounts cover earlier
 * ones: the read-only host first, then the writable roots, then the fresh
 * /tmp, /dev and /proc, and the deny masks last so that nothing mounted
 * after them can uncover a secret.
 *
 * Masks.  A denied directory gets an empty tmpfs of mode 0000, remounted
 * read-only; anything else (a file, a socket) gets an empty mode-0000 file
 * bind-mounted read-only over it.  With every capability dropped, not
 * even uid 0 inside passes a mode-0000 permission check, and the read-only
 * mount stops the owner from chmod-ing the mask open again.
 *
 * Spellings.  Every deny path is spelled as written and symlink-resolved
 * (sandbox_deny_spellings), and a glob is expanded to what it matches now.
 * A mount always lands where a path really leads, so each spelling is
 * masked at its resolved location: that one mount denies the path under
 * both spellings, because inside the sandbox the same symlinks lead to
 * the same place.  (bwrap 0.8.0 cannot even use a spelling through an
 * absolute symlink as a mount point: it resolves it outside the new root
 * and fails with ENOENT.)  bwrap can only mount over something that
 * exists, so a deny path that does not exist at launch is skipped: the
 * pane cannot create it (the supervisor refuses that by name), and one
 * the host creates later is not masked but its reads are refused by
 * the supervisor (see docs/backends.md).
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap.h"
#include "error.h"
#include "sandbox.h"
#include "subpath.h"
#include "xalloc.h"

const char *const bwrap_deny_read_defaults[] = {
    /* Private keys, known hosts and agent config: reading them lets a
     * process log in wherever the user can. */
    "~/.ssh",
    /* Cloud credentials and session tokens. */
    "~/.aws",
    /* GnuPG private keyrings and trust database. */
    "~/.gnupg",
    /* The GitHub CLI's OAuth token. */
    "~/.config/gh",
    /* macOS keychains, also found in synced or copied homes. */
    "~/Library/Keychains",
    /* Host control sockets: whoever can connect can have a process
     * started outside the sandbox (systemd, D-Bus activation, a
     * container daemon).  A file mounted over a socket makes connect()
     * fail.  Absent on most hosts, and then skipped. */
    "/run/dbus/system_bus_socket",
    "/run/systemd/private",
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    NULL,
};

/* Push a NULL-terminated list of arguments. */
static int push_args(struct strvec *out, const char *first, ...)
{
	va_list ap;
	int rc = 0;

	va_start(ap, first);
	for (const char *s = first; s != NULL && rc == 0; s = va_arg(ap, const char *))
		rc = strvec_push(out, s);
	va_end(ap);
	return rc;
}

static bool has_dot_component(const char *path)
{
	for (const char *p = path; (p = strchr(p, '.')) != NULL; p++) {
		bool starts = p == path || p[-1] == '/';
		size_t len = p[1] == '.' ? 2 : 1;

		if (starts && (p[len] == '\0' || p[len] == '/'))
			return true;
	}
	return false;
}

/* --- writable roots ----------------------------------------------------- */

/* Resolve a writable root.  It must be absolute and exist, and it must not
 * be "/": binding the whole host writable would undo the profile. */
static int resolve_writable_root(const char *path, char resolved[PATH_MAX], struct sm_error *err)
{
	if (path == NULL || path[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "writable path \"%s\" is not absolute",
			     path ? path : "(null)");
		return -1;
	}
	if (realpath(path, resolved) == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "writable path %s: %s", path, strerror(errno));
		return -1;
	}
	if (strcmp(resolved, "/") == 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "refusing to make %s writable: it is the whole host file system",
			     path);
		return -1;
	}
	return 0;
}

/* Collect the writable roots, resolved and without ones already covered by
 * an earlier root.  They are bound at their resolved location so that a
 * symlinked working directory cannot land under a later mount. */
static int writable_roots(const struct bwrap_input *in, struct strvec *roots,
			  struct sm_error *err)
{
	size_t nextra = 0;

	while (in->writable != NULL && in->writable[nextra] != NULL)
		nextra++;
	for (size_t i = 0; i < 2 + nextra; i++) {
		const char *path = i == 0 ? in->home : i == 1 ? in->cwd : in->writable[i - 2];
		char resolved[PATH_MAX];
		bool covered = false;

		if ((i == 0 && in->no_home) || (i == 1 && in->no_cwd))
			continue;
		if (resolve_writable_root(path, resolved, err) != 0)
			return -1;
		for (size_t j = 0; j < roots->n && !covered; j++)
			covered = subpath_of(resolved, roots->v[j]);
		if (!covered && strvec_push(roots, resolved) != 0)
			goto nomem;
	}
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

/* Bind the writable roots that are (under_tmp) or are not inside /tmp.
 * Roots inside /tmp go after the private /tmp, or it would hide them. */
static int push_writable_binds(struct strvec *out, const struct strvec *roots, bool under_tmp)
{
	for (size_t i = 0; i < roots->n; i++) {
		if (subpath_of(roots->v[i], "/tmp") != under_tmp)
			continue;
		/* Threat: none stopped here; this is what the profile grants
		 * (the user's files and the pane's work tree stay usable). */
		if (push_args(out, "--bind", roots->v[i], roots->v[i], NULL) != 0)
			return -1;
	}
	return 0;
}

/* Threat: planting what the host runs later (shell rc files, git hooks,
 * editor and agent config) inside a writable root.  What exists now is
 * bound read-only over itself; it must be the real path, not through a
 * symlink that could lead out of the root.  (These three push the paths
 * of read-only self-binds onto a list; see push_self_binds.) */
static int push_read_only_inside(struct strvec *out, const struct strvec *roots,
				 const char *const *names)
{
	for (size_t i = 0; i < roots->n; i++) {
		for (size_t j = 0; names != NULL && names[j] != NULL; j++) {
			char path[PATH_MAX], resolved[PATH_MAX];
			struct stat st;

			snprintf(path, sizeof path, "%s/%s", roots->v[i], names[j]);
			if (lstat(path, &st) != 0 || realpath(path, resolved) == NULL ||
			    strcmp(path, resolved) != 0)
				continue;
			if (strvec_push(out, path) != 0)
				return -1;
		}
	}
	return 0;
}

/* Threat: writing what the profile protects, even inside a writable
 * root.  Each protected path that exists is bound read-only over itself
 * at its real location; one made later is the supervisor's to refuse. */
static int push_protected(struct strvec *out, const struct bwrap_input *in)
{
	char resolved[PATH_MAX];

	for (size_t i = 0; in->protected_paths != NULL && in->protected_paths[i] != NULL; i++)
		if (realpath(in->protected_paths[i], resolved) != NULL &&
		    strcmp(resolved, "/") != 0 && strvec_push(out, resolved) != 0)
			return -1;
	return 0;
}

/* Threat: changing what the host runs later (hostrun.h: shell startup
 * files, git config, PATH directories, user services, sandmux's own
 * files).  What exists inside a writable root is bound read-only over
 * itself at its real location (a symlinked ~/.bashrc is protected where
 * it leads, when that is inside a root); nothing is created to mount
 * over, and what does not exist is the supervisor's to refuse. */
static int push_host_run(struct strvec *out, const struct strvec *roots,
			 const struct bwrap_input *in)
{
	for (size_t i = 0; in->host_run != NULL && in->host_run[i] != NULL; i++) {
		char resolved[PATH_MAX];
		bool inside = false;
		struct stat st;

		/* Most entries do not exist: one lstat says so, where realpath
		 * would look at every component (this runs for every launch). */
		if (lstat(in->host_run[i], &st) != 0 || realpath(in->host_run[i], resolved) == NULL)
			continue;
		for (size_t j = 0; j < roots->n && !inside; j++)
			inside = subpath_of(resolved, roots->v[j]) &&
				 strcmp(resolved, roots->v[j]) != 0;
		if (inside && strvec_push(out, resolved) != 0)
			return -1;
	}
	return 0;
}

/* A read-only working directory (modes other than chat) is still bound
 * over itself, so that it shows through the private /tmp when it lies
 * there.  Threat: none; it grants reading what the host already shows. */
static int push_read_only_cwd(struct strvec *out, const struct bwrap_input *in)
{
	char resolved[PATH_MAX];

	if (!in->no_cwd || realpath(in->cwd, resolved) == NULL || strcmp(resolved, "/") == 0)
		return 0;
	return push_args(out, "--ro-bind", resolved, resolved, NULL);
}

/* A read-only $HOME (the agent profile) is bound over itself when it
 * lies under /tmp: without it the private /tmp hides it, and a pane
 * writing there would write into that tmpfs, lost at exit with no
 * violation (the supervisor reports it: its shown_roots).  It goes
 * before the writable roots inside /tmp, which may lie inside it.
 * Threat: none; it grants reading what the host already
 * shows, and the deny masks go on top of it. */
static int push_read_only_home(struct strvec *out, const struct bwrap_input *in)
{
	char resolved[PATH_MAX];

	if (!in->no_home || in->home == NULL || realpath(in->home, resolved) == NULL ||
	    !subpath_of(resolved, "/tmp") || strcmp(resolved, "/tmp") == 0)
		return 0;
	return push_args(out, "--ro-bind", resolved, resolved, NULL);
}

/* --- deny masks --------------------------------------------------------- */

/* A glob denies whatever matches it now, dotfiles included; "." and ".."
 * matched by a wildcard are not entries of the directory and are dropped. */
static int expand_glob(const char *pattern, struct strvec *paths)
{
	glob_t g;
	int rc = glob(pattern, GLOB_PERIOD, NULL, &g);

	if (rc == GLOB_NOMATCH)
		return 0;
	if (rc != 0)
		return rc == GLOB_NOSPACE ? -1 : 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
		if (!has_dot_component(pattern) && has_dot_component(g.gl_pathv[i]))
			continue;
		rc = sandbox_deny_spellings(g.gl_pathv[i], paths);
	}
	globfree(&g);
	return rc;
}

/* Every spelling of every deny entry, in order, duplicates removed. */
static int deny_spellings(const struct bwrap_input *in, struct strvec *paths,
			  struct sm_error *err)
{
	for (size_t i = 0; in->deny_read != NULL && in->deny_read[i] != NULL; i++) {
		char *path = sandbox_expand_home(in->deny_read[i], in->home);
		int rc;

		if (path == NULL)
			goto nomem;
		if (path[0] != '/') {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "deny path \"%s\" is not absolute",
				     in->deny_read[i]);
			free(path);
			return -1;
		}
		rc = sandbox_path_is_glob(path) ? expand_glob(path, paths)
						: sandbox_deny_spellings(path, paths);
		free(path);
		if (rc != 0)
			goto nomem;
	}
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

/* Inside a directory that is itself masked: the mask already hides it,
 * and bwrap could not create a mount point inside the read-only, empty
 * mask. */
static bool inside_masked_dir(const struct strvec *points, const bool *is_dir, size_t i)
{
	for (size_t j = 0; j < points->n; j++)
		if (j != i && is_dir[j] && subpath_of(points->v[i], points->v[j]))
			return true;
	return false;
}

/* shim_ro: where the shim makes the read-only binds, it also makes a
 * directory mask read-only (its --ro-mount: one mount_setattr, where
 * bwrap's --remount-ro reads and parses the mount table once more); the
 * path goes there instead. */
static int push_mask(struct strvec *out, const char *path, bool is_dir, const char *mask_file,
		     struct strvec *shim_ro, struct sm_error *err)
{
	if (is_dir) {
		/* Threat: reading a secret directory.  An empty tmpfs of mode
		 * 0000 makes open/readdir/lookup fail with EACCES (not an
		 * innocent-looking empty directory); read-only so its owner
		 * cannot chmod it open. */
		if (push_args(out, "--perms", "0000", "--tmpfs", path, NULL) != 0 ||
		    (shim_ro != NULL ? strvec_push(shim_ro, path)
				     : push_args(out, "--remount-ro", path, NULL)) != 0)
			goto nomem;
		return 0;
	}
	if (mask_file == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot mask %s: no mask file", path);
		return -1;
	}
	/* Threat: reading a secret file, or connecting to a control socket.
	 * An empty mode-0000 file, read-only, covers it: open fails with
	 * EACCES, connect finds no socket. */
	if (push_args(out, "--ro-bind", mask_file, path, NULL) != 0)
		goto nomem;
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

/* The mount point of every spelling: where it really leads.  A spelling
 * that does not exist has nothing to read and nothing to mount over. */
static int mount_points(const struct strvec *spellings, struct strvec *points, bool **is_dir)
{
	*is_dir = xcalloc(spellings->n + 1, sizeof **is_dir);
	for (size_t i = 0; i < spellings->n; i++) {
		char resolved[PATH_MAX];
		struct stat st;

		if (realpath(spellings->v[i], resolved) == NULL || stat(resolved, &st) != 0 ||
		    strvec_contains(points, resolved))
			continue;
		(*is_dir)[points->n] = S_ISDIR(st.st_mode);
		if (strvec_push(points, resolved) != 0)
			return -1;
	}
	return 0;
}

/* Where the masks go: every deny spelling's mount point, and which of
 * them are directories. */
struct deny_masks {
	struct strvec points;
	bool *is_dir;
};

static int deny_masks_find(const struct bwrap_input *in, struct deny_masks *m,
			   struct sm_error *err)
{
	struct strvec spellings = STRVEC_INIT;
	int rc = -1;

	if (deny_spellings(in, &spellings, err) != 0)
		goto done;
	if (mount_points(&spellings, &m->points, &m->is_dir) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		goto done;
	}
	rc = 0;
done:
	strvec_free(&spellings);
	return rc;
}

static void deny_masks_free(struct deny_masks *m)
{
	free(m->is_dir);
	strvec_free(&m->points);
}

static int push_deny_masks(const struct bwrap_input *in, const struct deny_masks *m,
			   struct strvec *out, struct strvec *shim_ro, struct sm_error *err)
{
	for (size_t i = 0; i < m->points.n; i++) {
		if (inside_masked_dir(&m->points, m->is_dir, i))
			continue;
		if (push_mask(out, m->points.v[i], m->is_dir[i], in->mask_file, shim_ro, err) != 0)
			return -1;
	}
	return 0;
}

/* --- read-only self-binds ----------------------------------------------- */

/*
 * Read-only binds in the shim.  Each read-only bind costs bwrap 0.8.0
 * a read and parse of the whole /proc/self/mountinfo (bind_mount: about
 * 0.35 ms on this project's host, whose sandbox holds the host's mounts
 * twice at that point), and a terminal pane has a dozen of them: the
 * host-run files that exist, the profile's protected paths, /proc's
 * host-wide files.  Where the shim stays in the user namespace that owns
 * the sandbox's mount namespace (a server run as root: bwrap makes no
 * second namespace), the shim makes them instead (backends/native-inside/shim.c, --ro):
 * bwrap keeps CAP_SYS_ADMIN and CAP_SETPCAP for it (--cap-add), and the
 * shim binds each path, then drops both from every set and checks,
 * before anything of the command runs.  Elsewhere (an unprivileged
 * server: bwrap's second user namespace has no say over the mounts)
 * bwrap makes them as before.  Same paths, same order among themselves,
 * either way; in the shim they come after the deny masks, which is why
 * nothing masked is on the list (below).  The shim also makes each
 * directory mask read-only in place (bwrap mounts the mode-0000 tmpfs,
 * the shim's --ro-mount sets it read-only, last), for the same reason.
 */

/* /proc's host-wide files, read-only over the sandbox's own procfs:
 * pairs of the shim's flag ("--ro" must exist, "--ro-try" may be
 * missing) and path. */
static const char *const proc_read_only[] = {
    /* Threat: the fresh procfs is writable, and a server running as
     * root maps uid 0 into the sandbox, so sysctls that are not
     * namespaced (kernel.core_pattern, kernel.modprobe: both make the
     * host kernel run a program as root) and sysrq-trigger would accept
     * writes.  --cap-drop does not help: sysctl checks file modes.
     * Found by the escape suite; read-only binds close it. */
    "--ro", "/proc/sys", "--ro-try", "/proc/sysrq-trigger", "--ro-try", "/proc/irq",
    "--ro-try", "/proc/bus", NULL,
};

/* Is path at or below another entry of the list (a recursive read-only
 * bind already covers it), or masked?  A masked path is unreadable and
 * unwritable already (a read-only mode-0000 tmpfs or file), and the
 * shim, binding after the masks, could not even look it up. */
static bool bind_covered(const struct strvec *paths, size_t i, const struct deny_masks *m)
{
	for (size_t j = 0; j < paths->n; j++)
		if (j != i && subpath_of(paths->v[i], paths->v[j]) &&
		    (strcmp(paths->v[i], paths->v[j]) != 0 || j < i))
			return true;
	for (size_t j = 0; j < m->points.n; j++)
		if (strcmp(paths->v[i], m->points.v[j]) == 0 ||
		    (m->is_dir[j] && subpath_of(paths->v[i], m->points.v[j])))
			return true;
	return false;
}

/* The read-only self-binds inside the writable roots, in order, none
 * covered by another or by a mask. */
static int self_binds(const struct bwrap_input *in, const struct strvec *roots,
		      const struct deny_masks *m, struct strvec *out)
{
	struct strvec paths = STRVEC_INIT;
	int rc = -1;

	if (push_read_only_inside(&paths, roots, in->read_only_inside) != 0 ||
	    push_protected(&paths, in) != 0 || push_host_run(&paths, roots, in) != 0)
		goto done;
	for (size_t i = 0; i < paths.n; i++)
		if (!bind_covered(&paths, i, m) && strvec_push(out, paths.v[i]) != 0)
			goto done;
	rc = 0;
done:
	strvec_free(&paths);
	return rc;
}

/* bwrap's own read-only binds of paths over themselves. */
static int push_bwrap_binds(struct strvec *out, const char *const *pairs)
{
	for (size_t i = 0; pairs[i] != NULL; i += 2)
		if (push_args(out, strcmp(pairs[i], "--ro") == 0 ? "--ro-bind" : "--ro-bind-try",
			      pairs[i + 1], pairs[i + 1], NULL) != 0)
			return -1;
	return 0;
}

/* The shim's --ro arguments: the self-binds, /proc's, then the
 * directory masks; and its --userns. */
static int push_shim_binds(struct strvec *out, const struct bwrap_input *in,
			   const struct strvec *binds, const struct strvec *masks)
{
	char ids[48];

	snprintf(ids, sizeof ids, "%u:%u", (unsigned)getuid(), (unsigned)getgid());
	if (in->shim_userns && push_args(out, "--userns", ids, NULL) != 0)
		return -1;
	for (size_t j = 0; j < binds->n; j++)
		if (push_args(out, "--ro", binds->v[j], NULL) != 0)
			return -1;
	if (strvec_pushv(out, proc_read_only, sizeof proc_read_only / sizeof proc_read_only[0] - 1) !=
	    0)
		return -1;
	for (size_t j = 0; j < masks->n; j++)
		if (push_args(out, "--ro-mount", masks->v[j], NULL) != 0)
			return -1;
	return 0;
}

/* The command: in->argv, with the shim's --ro arguments at shim_binds_at
 * (which may be its end) when the shim makes them. */
static int push_command(struct strvec *out, const struct bwrap_input *in,
			const struct strvec *binds, const struct strvec *masks)
{
	size_t i;

	for (i = 0; in->argv[i] != NULL; i++) {
		if (in->shim_binds_at > 0 && i == in->shim_binds_at &&
		    push_shim_binds(out, in, binds, masks) != 0)
			return -1;
		if (strvec_push(out, in->argv[i]) != 0)
			return -1;
	}
	if (in->shim_binds_at > 0 && i == in->shim_binds_at &&
	    push_shim_binds(out, in, binds, masks) != 0)
		return -1;
	return 0;
}

/* --- the whole command line -------------------------------------------- */

static int push_namespaces(struct strvec *out, const struct bwrap_input *in)
{
	if (push_args(out, in->bwrap,
			 /* Threat: a sandbox outliving the server that
			  * watches it. */
			 "--die-with-parent",
			 /* Threat: privilege over the host.  Inside, ids are
			  * mapped and capabilities are only in the new user
			  * namespace. */
			 "--unshare-user",
			 /* Threat: signalling, ptracing or reading /proc of
			  * host processes. */
			 "--unshare-pid",
			 /* Threat: SysV/POSIX IPC shared with host processes. */
			 "--unshare-ipc",
			 /* Threat: changing the host's hostname. */
			 "--unshare-uts",
			 /* Threat: seeing or moving into host cgroups. */
			 "--unshare-cgroup-try",
			 /* Threat: root inside bypassing the masks with
			  * CAP_DAC_OVERRIDE, or unmounting them with
			  * CAP_SYS_ADMIN. */
			 "--cap-drop", "ALL",
			 NULL) != 0)
		return -1;
	/* Only for the shim's read-only binds, and dropped by it before
	 * the command runs (see "Read-only binds in the shim"). */
	if (in->shim_binds_at > 0 &&
	    push_args(out, "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", NULL) != 0)
		return -1;
	/* For the shim's own user namespace (bwrap.h, shim_userns): uid 0
	 * here, so that bwrap nests no second namespace, and CAP_SETFCAP,
	 * which mapping this namespace's root into the next one needs. */
	if (in->shim_binds_at > 0 && in->shim_userns &&
	    push_args(out, "--uid", "0", "--gid", "0", "--cap-add", "CAP_SETFCAP", NULL) != 0)
		return -1;
	/* Threat: writing anywhere on the host. */
	return push_args(out, "--ro-bind", "/", "/", NULL);
}

int bwrap_build_argv(const struct bwrap_input *in, struct strvec *out,
			struct sm_error *err)
{
	struct strvec roots = STRVEC_INIT, binds = STRVEC_INIT, shim_masks = STRVEC_INIT;
	struct deny_masks masks = {STRVEC_INIT, NULL};
	bool shim = in->shim_binds_at > 0;
	char fdbuf[16];
	int rc = -1;

	if (in->argv == NULL || in->argv[0] == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "no command to run in the sandbox");
		return -1;
	}
	if (writable_roots(in, &roots, err) != 0 || deny_masks_find(in, &masks, err) != 0)
		goto done;
	if (self_binds(in, &roots, &masks, &binds) != 0)
		goto nomem;
	if (push_namespaces(out, in) != 0 || push_writable_binds(out, &roots, false) != 0 ||
	    /* Threat: reading other programs' temporary files and sockets
	     * (X11, ssh-agent, the sandmux fallback socket dir) in /tmp. */
	    push_args(out, "--tmpfs", "/tmp", NULL) != 0 || push_read_only_home(out, in) != 0 ||
	    push_writable_binds(out, &roots, true) != 0 || push_read_only_cwd(out, in) != 0)
		goto nomem;
	/* Threat: changing what the host runs later, or what the profile
	 * protects, inside a writable root (see self_binds). */
	for (size_t i = 0; !shim && i < binds.n; i++)
		if (push_args(out, "--ro-bind", binds.v[i], binds.v[i], NULL) != 0)
			goto nomem;
	/* Threat: raw access to host devices; only the safe nodes. */
	if (push_args(out, "--dev", "/dev", NULL) != 0 ||
	    /* Threat: host processes' /proc; this one shows the sandbox's. */
	    push_args(out, "--proc", "/proc", NULL) != 0 ||
	    (!shim && push_bwrap_binds(out, proc_read_only) != 0))
		goto nomem;
	/* Threat: a restricted pane reaching the network (or abstract Unix
	 * sockets) directly.  A new network namespace has only loopback;
	 * the egress sockets are the one way out, and read-only, so the
	 * sandbox cannot swap them for its own. */
	if (in->egress_dir != NULL &&
	    push_args(out, "--unshare-net", "--ro-bind", in->egress_dir, BWRAP_EGRESS_DIR, NULL) != 0)
		goto nomem;
	/* Every native pane's first process is the shim (and, for agent
	 * panes, sandmux's egress-bridge): these binaries must stay visible
	 * even when they live under the private /tmp (a checkout in /tmp).
	 * Threat: a pane replacing a binary that the host user and the next
	 * pane's sandbox run; each is bound read-only at its own path. */
	if (in->shim_exe != NULL && push_args(out, "--ro-bind", in->shim_exe, in->shim_exe, NULL) != 0)
		goto nomem;
	if (in->self_exe != NULL &&
	    (in->shim_exe == NULL || strcmp(in->self_exe, in->shim_exe) != 0) &&
	    push_args(out, "--ro-bind", in->self_exe, in->self_exe, NULL) != 0)
		goto nomem;
	/* The same for the trash's rm: visible under a private /tmp too,
	 * and never the pane's to replace. */
	if (in->rm_dir != NULL && push_args(out, "--ro-bind", in->rm_dir, in->rm_dir, NULL) != 0)
		goto nomem;
	if (in->status_fd >= 0) {
		snprintf(fdbuf, sizeof fdbuf, "%d", in->status_fd);
		if (push_args(out, "--json-status-fd", fdbuf, NULL) != 0)
			goto nomem;
	}
	if (push_args(out, "--chdir", in->cwd, NULL) != 0)
		goto nomem;
	if (push_deny_masks(in, &masks, out, shim ? &shim_masks : NULL, err) != 0)
		goto done;
	/* "--" so a command starting with "-" is never read as an option. */
	if (strvec_push(out, "--") != 0 || push_command(out, in, &binds, &shim_masks) != 0)
		goto nomem;
	rc = 0;
	goto done;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
done:
	deny_masks_free(&masks);
	strvec_free(&shim_masks);
	strvec_free(&binds);
	strvec_free(&roots);
	return rc;
}
