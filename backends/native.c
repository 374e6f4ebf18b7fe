/*
 * native: the Linux OS-native sandbox.  The pane's command runs under
 * bubblewrap with the `terminal` profile (bwrap.c) on the pane's own PTY.
 *
 * bwrap is started without --new-session, so the shell inside keeps the
 * PTY as its controlling terminal and job control works.
 *
 * The pane is labelled native only once the command really runs inside.
 * bwrap's {"child-pid": N} status line is not enough: bwrap writes it
 * right after cloning into the new namespaces and *before* it mounts
 * anything, so a mount that fails later would leave a pane that wore the
 * label for a moment and then just exited.  Confirmation is therefore
 * "the command has been exec'd": after child-pid (N is the namespace's
 * init, bwrap's own fork, which never execs) a child of N whose
 * executable is no longer bwrap's has passed execvp, and bwrap only gets
 * there after every mount and the capability drop succeeded (and the
 * shim, which makes the read-only binds for a root server, sends its
 * listener only after its binds and its own capability drop).  A command
 * that exits before that is seen still proves it ran: bwrap reports
 * {"exit-code": C} only when its execvp succeeded (bubblewrap.c,
 * report_child_exit_status).  bwrap gone without either means it died
 * before the command ran.
 *
 * bwrap's status goes to a memfd, not a pipe: bwrap writes "exit-code"
 * long after the pane is confirmed, and a pipe whose reader had gone
 * would kill it with SIGPIPE (the pane would exit 141, not with the
 * command's status).  A file never refuses a write.  Nothing here blocks
 * the server: status_fd is an epoll set of a timerfd, whose ticks pace
 * the checks (1 ms while bwrap's setup normally runs, slower after) and
 * enforce a deadline, so a bwrap that never starts the command fails
 * instead of hanging, and of the shim's handshake socket, then its exec
 * watch.  Those two wake confirmation the moment the shim hands over its
 * listener and the moment its exec happens: the command's first
 * supervised call (the dynamic loader's first open) waits in the kernel
 * until the supervisor holds the listener, and on a tick that was up to
 * 2 ms later (0.4-1.8 ms measured here).  bwrap's own exit is noticed on
 * the next tick, or at once when the server reaps it (pane_reap calls
 * confirm).
 *
 * There is no fallback: whatever goes wrong here fails the launch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "bwrap.h"
#include "error.h"
#include "gitdir.h"
#include "home-layer.h"
#include "hostrun.h"
#include "sandbox-limits.h"
#include "log.h"
#include "native-internal.h"
#include "pty.h"
#include "profile.h"
#include "sandbox.h"
#include "shim-filter.h"
#include "subpath.h"
#include "supervisor.h"
#include "xalloc.h"

/* How long bwrap may take to exec the command before the launch fails. */
#define CONFIRM_TIMEOUT_MS 5000
/* bwrap's setup takes a few ms: check every ms for that long, then
 * every 20 ms until the deadline.  A tick costs a recvmsg and a read
 * until the exec watch hangs up; /proc is only looked at after that. */
#define CONFIRM_FAST_SPAN_MS 200
#define CONFIRM_FAST_TICK_MS 1
#define CONFIRM_SLOW_TICK_MS 20

/* A launch result zeroed, with a fresh state of its own. */
void native_result_init(struct launch_result *res)
{
	struct native_state *ns = xcalloc(1, sizeof *ns);

	memset(res, 0, sizeof *res);
	res->master = -1;
	res->status_fd = -1;
	ns->status_file = ns->status_timer = -1;
	res->state = ns;
}

/* Mask files a server that is gone left in /tmp (one killed with
 * SIGKILL removes none): sandmux-mask-PID-*, ours, PID not alive.
 * Once per server, at its first mask file. */
static void remove_stale_masks(void)
{
	static bool swept;
	DIR *dir;
	struct dirent *de;

	if (swept || (dir = opendir("/tmp")) == NULL)
		return;
	swept = true;
	while ((de = readdir(dir)) != NULL) {
		struct stat st;
		int pid;

		if (sscanf(de->d_name, "sandmux-mask-%d-", &pid) != 1 || pid <= 0 ||
		    pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == getuid() && st.st_size == 0)
			unlinkat(dirfd(dir), de->d_name, 0);
	}
	closedir(dir);
}

/* An empty mode-000 file for bwrap to bind over denied files.  It lives
 * until the pane is destroyed: bwrap binds it after reporting the child
 * pid, so removing it at confirmation would race the setup.  Its name
 * holds the server's pid, so that the next server can remove it if this
 * one dies without doing so. */
int native_make_mask_file(struct launch_result *res, struct sm_error *err)
{
	int fd;

	remove_stale_masks();
	snprintf(native_of(res)->mask_file, sizeof native_of(res)->mask_file, "/tmp/sandmux-mask-%d-XXXXXX", (int)getpid());
	fd = mkostemp(native_of(res)->mask_file, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot create the sandbox mask file: %s",
			     strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(native_of(res)->mask_file);
		}
		native_of(res)->mask_file[0] = '\0';
		return -1;
	}
	close(fd);
	return 0;
}

void native_remove_mask_file(struct launch_result *res)
{
	if (native_of(res)->mask_file[0] != '\0')
		unlink(native_of(res)->mask_file);
	native_of(res)->mask_file[0] = '\0';
	/* The home layer's work directory goes with the sandbox too. */
	if (native_of(res)->layer_work != NULL)
		home_layer_work_remove(native_of(res)->layer_work);
	free(native_of(res)->layer_work);
	native_of(res)->layer_work = NULL;
}

/* The deny list every profile starts from, the profile's own, and what
 * this server adds: the user's runtime directory (the sandmux socket, the
 * session bus and systemd --user all live there, and each can start
 * processes outside the sandbox on request), the stored sessions
 * (hostrun_sessions_dir) and whatever the caller names. */
static int deny_list(const struct launch_request *req, const struct sandbox_profile *prof,
		     struct strvec *deny)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char sessions[PATH_MAX];

	for (size_t i = 0; bwrap_deny_read_defaults[i] != NULL; i++)
		if (strvec_push(deny, bwrap_deny_read_defaults[i]) != 0)
			return -1;
	for (size_t i = 0; i < prof->deny_read.n; i++)
		if (strvec_push(deny, prof->deny_read.v[i]) != 0)
			return -1;
	if (runtime != NULL && runtime[0] == '/' && strvec_push(deny, runtime) != 0)
		return -1;
	/* Threat: a pane reading what other panes showed, host panes among
	 * them, from the stored sessions. */
	hostrun_sessions_dir(sessions, sizeof sessions);
	if (strvec_push(deny, sessions) != 0)
		return -1;
	for (size_t i = 0; req->deny_paths != NULL && req->deny_paths[i] != NULL; i++)
		if (strvec_push(deny, req->deny_paths[i]) != 0)
			return -1;
	return 0;
}

void native_paths_free(struct native_paths *np)
{
	strvec_free(&np->extra_writable);
	strvec_free(&np->linked_git);
	strvec_free(&np->writable);
	strvec_free(&np->deny);
	strvec_free(&np->protected_paths);
	strvec_free(&np->host_run);
	strvec_free(&np->write_denies);
	strvec_free(&np->bound_inside);
	strvec_free(&np->real);
}

/* The profile's write-denies and the host-run component runs.  All are
 * bound read-only where they exist directly under a writable root but
 * a repository's config: the pane may change its plain keys, through
 * the supervisor's check (gitconfig.c), which a read-only mount would
 * make impossible (git replaces the file by renaming onto it).  The
 * worktrees' admin directories are left to the supervisor's judgement
 * of git directories (gitdir.h), which lets git worktree add make one
 * and keeps each read-only but for what git writes there. */
static int push_write_deny(struct native_paths *np, const char *rule)
{
	if (strvec_contains(&np->write_denies, rule))
		return 0;
	if (strvec_push(&np->write_denies, rule) != 0 ||
	    (strcmp(rule, ".git/config") != 0 && strvec_push(&np->bound_inside, rule) != 0))
		return -1;
	return 0;
}

static int write_deny_lists(const struct sandbox_profile *prof, struct native_paths *np)
{
	for (size_t i = 0; i < prof->write_denies.n; i++)
		if (push_write_deny(np, prof->write_denies.v[i]) != 0)
			return -1;
	for (size_t i = 0; hostrun_components[i] != NULL; i++)
		if (strcmp(hostrun_components[i], ".git/worktrees") != 0 &&
		    push_write_deny(np, hostrun_components[i]) != 0)
			return -1;
	return 0;
}

static int push_expanded(struct strvec *out, const struct strvec *paths, const char *home)
{
	for (size_t i = 0; i < paths->n; i++) {
		char *path = sandbox_expand_home(paths->v[i], home);
		int rc = path != NULL ? strvec_push(out, path) : -1;

		free(path);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Threat: the pane changing what the host runs later, through any file
 * under $HOME, named in a list or not.  A writable $HOME is the
 * profile's copy-on-write layer (home-layer.h): only the real roots
 * (the working directory, the profile's writable roots, or with the
 * working directory at $HOME every entry of it but the dot-entries)
 * are written in place.  The host-run paths that lie in the layer need
 * no read-only bind and no refusal any more: a write there reaches the
 * layer, never the host, and the pane keeps working as it would on a
 * writable home.  Those in a real root stay protected as before. */
static int home_layout(const struct launch_request *req, const struct sandbox_profile *prof,
		       struct native_paths *np, struct sm_error *err)
{
	struct strvec kept = STRVEC_INIT;

	/* Fail, don't mislabel: found once, at the server's start. */
	if (!backend_probe_result()->native.home_layer) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the copy-on-write home cannot be mounted on this host (%s); profile %s "
			     "makes $HOME writable and needs it (the agent profile runs without)",
			     backend_probe_result()->native.home_layer_reason, prof->name);
		return -1;
	}
	if (realpath(np->home, np->home_real) == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "$HOME %s: %s", np->home, strerror(errno));
		return -1;
	}
	if (home_layer_dir(prof->name, !np->dry, np->layer_dir, sizeof np->layer_dir, err) != 0)
		return -1;
	np->layer = true;
	if (home_layer_real_roots(np->home_real, np->no_cwd ? NULL : req->spec->workdir,
				  &np->extra_writable, &np->real) != 0)
		goto nomem;
	for (size_t i = 0; i < np->host_run.n; i++) {
		const char *path = np->host_run.v[i];

		if (home_layer_holds(np->home_real, &np->real, path) ||
		    home_layer_holds(np->home, &np->real, path))
			continue;
		if (strvec_push(&kept, path) != 0)
			goto nomem;
	}
	strvec_free(&np->host_run);
	np->host_run = kept;
	return 0;
nomem:
	strvec_free(&kept);
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

/* mkdir -p, each missing directory made with mode. */
static int mkdir_parents(const char *path, mode_t mode)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *slash = strchr(dir + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash != NULL)
			*slash = '\0';
		if (mkdir(dir, mode) != 0 && errno != EEXIST)
			return -1;
		if (slash == NULL)
			return 0;
		*slash = '/';
	}
}

/* The user's trash as the freedesktop spec places it: $XDG_DATA_HOME/Trash
 * (the pane's variable when absolute), else ~/.local/share/Trash; made
 * with its files/ and info/ when missing, so it can be a writable root. */
static int trash_dir(const struct launch_request *req, const char *home, bool dry, char *out,
		     size_t size, struct sm_error *err)
{
	const char *data = NULL;
	char sub[PATH_MAX + 16];

	for (size_t i = 0; req->spec->env != NULL && req->spec->env[i] != NULL; i++)
		if (strncmp(req->spec->env[i], "XDG_DATA_HOME=/", 15) == 0)
			data = req->spec->env[i] + 14;
	if ((data != NULL ? snprintf(out, size, "%s/Trash", data)
			  : snprintf(out, size, "%s/.local/share/Trash", home)) >= (int)size) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the trash's path is too long");
		return -1;
	}
	for (const char *leaf = "files"; !dry && leaf != NULL; leaf = leaf[0] == 'f' ? "info" : NULL) {
		snprintf(sub, sizeof sub, "%s/%s", out, leaf);
		if (mkdir_parents(sub, 0700) != 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the trash %s: %s", out,
				     strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A profile with the trash: the trash a writable root, and the pane's
 * `rm` found.  Fail, don't mislabel: a delete_guard pane whose `rm`
 * would delete is not the preset the user asked for. */
static int trash_paths(const struct launch_request *req, const char *home, struct native_paths *np,
		       struct sm_error *err)
{
	if (trash_dir(req, home, np->dry, np->trash, sizeof np->trash, err) != 0)
		return -1;
	if (backend_trash_rm_dir(np->rm_dir, sizeof np->rm_dir) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "profile %s needs the trash's rm (sandmux-trash/rm next to the sandmux "
			     "binary, or lib/sandmux/trash/rm); reinstall sandmux",
			     np->prof->name);
		return -1;
	}
	/* profile show makes nothing: a trash not there yet is no root to
	 * bind (describe_rules says it is made at launch). */
	if (np->dry && access(np->trash, F_OK) != 0)
		return 0;
	if (strvec_push(&np->extra_writable, np->trash) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	return 0;
}

/* The working directory a linked work tree (its `.git` a file naming a
 * git directory elsewhere: git worktree add, --separate-git-dir, a
 * submodule): that directory and its commondir, where everyday git in
 * the pane writes.  Safe as writable roots because the supervisor holds
 * every git directory under a root to what everyday git writes, by its
 * shape (gitdir.h): hooks, config, commondir stay as they are. */
static int push_linked_git(struct native_paths *np)
{
	char gitdir[PATH_MAX], common[PATH_MAX];

	if (gitdir_linked(np->cwd, gitdir, common) == GITDIR_NONE)
		return 0;
	/* The common directory first: bound before the worktree's own
	 * directory inside it. */
	if ((common[0] != '\0' && strvec_push(&np->linked_git, common) != 0) ||
	    strvec_push(&np->linked_git, gitdir) != 0)
		return -1;
	return strvec_pushv(&np->extra_writable, (const char *const *)np->linked_git.v,
			    np->linked_git.n);
}

/* Mode chat keeps the profile's writable roots writable; the other modes
 * make them read-only too.  State directories stay writable in every
 * mode. */
int native_paths_build(const struct launch_request *req, const struct sandbox_profile *prof,
		       const char *home, bool dry, struct native_paths *np, struct sm_error *err)
{
	bool chat = prof->mode == SANDBOX_MODE_CHAT;

	memset(np, 0, sizeof *np);
	np->dry = dry;
	np->prof = prof;
	np->home = home;
	np->cwd = req->spec->workdir;
	np->no_home = !(chat && prof->home_writable);
	np->no_cwd = !chat;
	if ((!np->no_home && strvec_push(&np->writable, home) != 0) ||
	    (!np->no_cwd && strvec_push(&np->writable, req->spec->workdir) != 0) ||
	    (chat && push_expanded(&np->extra_writable, &prof->writable, home) != 0) ||
	    (chat && push_linked_git(np) != 0) ||
	    push_expanded(&np->extra_writable, &prof->state_dirs, home) != 0 ||
	    push_expanded(&np->protected_paths, &prof->protected_paths, home) != 0 ||
	    hostrun_paths(home, req->spec->env, &np->host_run) != 0 ||
	    write_deny_lists(prof, np) != 0 || deny_list(req, prof, &np->deny) != 0)
		goto nomem;
	if (prof->trash && trash_paths(req, home, np, err) != 0) {
		native_paths_free(np);
		return -1;
	}
	for (size_t i = 0; i < np->extra_writable.n; i++)
		if (strvec_push(&np->writable, np->extra_writable.v[i]) != 0)
			goto nomem;
	if (!np->no_home && home_layout(req, prof, np, err) != 0) {
		native_paths_free(np);
		return -1;
	}
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	native_paths_free(np);
	return -1;
}

int native_check_request(const struct launch_request *req, const struct sandbox_profile **prof,
			 const char **home, struct sm_error *err)
{
	*prof = profile_find(req->spec->profile);
	if (*prof == NULL) {
		char names[512];

		profile_names(names, sizeof names);
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "no profile \"%s\" (profiles: %s)", req->spec->profile,
			     names);
		return -1;
	}
	/* Fail, don't mislabel: full_access runs as none (cmd.c), never
	 * under a native label. */
	if ((*prof)->not_a_sandbox) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "profile %s is not a sandbox; it runs only as backend none",
			     (*prof)->name);
		return -1;
	}
	/* A proxied profile's network is the egress proxies or nothing:
	 * without them it must not start with the host's network. */
	if ((*prof)->proxied_network && req->egress_dir == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the %s profile needs the session's egress proxies", (*prof)->name);
		return -1;
	}
	*home = req->spec->home != NULL ? req->spec->home : getenv("HOME");
	if (*home == NULL || (*home)[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the terminal profile needs an absolute $HOME to make writable");
		return -1;
	}
	if (req->spec->workdir == NULL || req->spec->workdir[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the terminal profile needs an absolute working directory");
		return -1;
	}
	return 0;
}

/* A restricted pane runs `sandmux egress-bridge SOCAT -- CMD...` first
 * (backends/native-inside/egress-bridge.c): it starts the in-sandbox bridges to the egress
 * sockets and execs the command.  The server's own binary is that
 * sandmux; a binary replaced since the server started is refused, since
 * the path would now name something else. */
static int egress_bridge_argv(const struct launch_request *req, struct strvec *out,
			      struct sm_error *err)
{
	const char *socat = backend_probe_result()->native.socat_path;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0 || socat[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the agent profile needs socat and the sandmux binary (install: "
			     "apt-get install socat)");
		return -1;
	}
	self[n] = '\0';
	if (strstr(self, " (deleted)") != NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the sandmux binary was replaced; restart the server for agent panes");
		return -1;
	}
	if (strvec_pushv(out, (const char *const[]){self, "egress-bridge", socat, "--"}, 4) != 0)
		goto nomem;
	for (size_t i = 0; req->spec->command[i] != NULL; i++)
		if (strvec_push(out, req->spec->command[i]) != 0)
			goto nomem;
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

/* --- the shim and the supervisor's policy ------------------------------ */

/* The sandbox's own mounts: nothing written there reaches the host. */
static const char *const sandbox_private_roots[] = {"/tmp", "/dev", "/proc", NULL};

void native_shim_free(struct launch_result *res)
{
	struct native_shim *shim = native_of(res)->shim;

	if (shim == NULL)
		return;
	if (shim->sock >= 0)
		close(shim->sock);
	if (shim->child_sock >= 0)
		close(shim->child_sock);
	if (shim->watch >= 0)
		close(shim->watch);
	strvec_free(&shim->writable);
	strvec_free(&shim->shown);
	strvec_free(&shim->deny_read);
	strvec_free(&shim->protected_paths);
	strvec_free(&shim->write_denies);
	strvec_free(&shim->delete_roots);
	free(shim);
	native_of(res)->shim = NULL;
}

/* The directories resolve_missing has resolved for one launch: most
 * host-run paths share a few ($HOME, ~/.config, ~/.local/share). */
struct resolved_dirs {
	struct strvec spelled, real;
};

/* Where a path that does not exist would be made: its nearest existing
 * ancestor resolved, the rest appended (the supervisor decides on the
 * pinned parent's real name, so a $HOME under a symlink, or a ~/.config
 * that is a link into a dotfiles repository, must be compared there).
 * 0 with out set, -1 when nothing resolves or it is too long. */
static int resolve_missing(const char *path, struct resolved_dirs *cache, char out[PATH_MAX])
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL || slash == path ||
	    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) >= (int)sizeof dir)
		return -1;
	for (size_t i = 0; i < cache->spelled.n; i++)
		if (strcmp(cache->spelled.v[i], dir) == 0)
			return snprintf(out, PATH_MAX, "%s%s", cache->real.v[i], slash) < PATH_MAX ? 0 : -1;
	if (lstat(dir, &st) == 0 ? realpath(dir, real) == NULL
				 : resolve_missing(dir, cache, real) != 0)
		return -1;
	if (strvec_push(&cache->spelled, dir) != 0 || strvec_push(&cache->real, real) != 0)
		return -1;
	return snprintf(out, PATH_MAX, "%s%s", real, slash) < PATH_MAX ? 0 : -1;
}

/* path resolved (realpath), or where it would be made; NULL when
 * neither can be said. */
static const char *resolve_any(const char *path, struct resolved_dirs *cache, char out[PATH_MAX])
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return realpath(path, out);
	return resolve_missing(path, cache, out) == 0 ? out : NULL;
}

/* Deny roots as the supervisor compares them: every spelling, resolved. */
static int shim_deny_read(struct native_shim *shim, const struct strvec *deny, const char *home)
{
	struct resolved_dirs cache = {STRVEC_INIT, STRVEC_INIT};
	struct strvec spellings = STRVEC_INIT;
	int rc = 0;

	for (size_t i = 0; i < deny->n && rc == 0; i++) {
		char *path = sandbox_expand_home(deny->v[i], home);
		if (path == NULL)
			return -1;
		if (path[0] == '/' && !sandbox_path_is_glob(path))
			rc = sandbox_deny_spellings(path, &spellings);
		free(path);
	}
	for (size_t i = 0; i < spellings.n && rc == 0; i++) {
		char resolved[PATH_MAX];
		/* A root that does not exist yet is compared where it would
		 * be made: threat, mkdir ~/.ssh under a symlinked $HOME. */
		rc = strvec_push(&shim->deny_read, spellings.v[i]);
		if (rc == 0 && resolve_any(spellings.v[i], &cache, resolved) != NULL &&
		    !strvec_contains(&shim->deny_read, resolved))
			rc = strvec_push(&shim->deny_read, resolved);
	}
	strvec_free(&spellings);
	strvec_free(&cache.spelled);
	strvec_free(&cache.real);
	return rc;
}

/* The writable roots as the supervisor compares them: resolved. */
static int shim_writable(struct native_shim *shim, const struct strvec *roots)
{
	char resolved[PATH_MAX];

	for (size_t i = 0; i < roots->n; i++)
		if (realpath(roots->v[i], resolved) != NULL &&
		    strvec_push(&shim->writable, resolved) != 0)
			return -1;
	return 0;
}

/* Protected paths as the supervisor compares them: as written and
 * resolved (the canonical path of a call is resolved; a path that does
 * not exist yet is compared where it would be made). */
static int shim_protected(struct native_shim *shim, const struct strvec *paths)
{
	struct resolved_dirs cache = {STRVEC_INIT, STRVEC_INIT};
	char resolved[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < paths->n && rc == 0; i++) {
		/* Where it is, or would be made (resolve_any): the host-run
		 * paths mostly do not exist, and must not be creatable under a
		 * symlinked parent either. */
		rc = strvec_push(&shim->protected_paths, paths->v[i]);
		if (rc == 0 && resolve_any(paths->v[i], &cache, resolved) != NULL &&
		    !strvec_contains(&shim->protected_paths, resolved))
			rc = strvec_push(&shim->protected_paths, resolved);
	}
	strvec_free(&cache.spelled);
	strvec_free(&cache.real);
	return rc;
}

/* Queue the filter for the shim: it reads this one message before
 * anything else (backends/native-inside/shim.c), so it must be there before bwrap runs. */
static int send_filter(int sock, struct sm_error *err)
{
	static const char hello[] = SHIM_HELLO " filter";
	char why[200] = "";
	const struct sock_fprog *prog = shim_filter_program(why, sizeof why);
	struct iovec iov[2];
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

	if (prog == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the seccomp filter: %s", why);
		return -1;
	}
	iov[0] = (struct iovec){(void *)hello, sizeof hello};
	iov[1] = (struct iovec){prog->filter, prog->len * sizeof prog->filter[0]};
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot hand the filter to the shim: %s",
			     strerror(errno));
		return -1;
	}
	return 0;
}

static int shim_prepare(const struct launch_request *req, const struct native_paths *paths,
			struct launch_result *res, struct sm_error *err)
{
	struct native_shim *shim = xcalloc(1, sizeof *shim);
	int pair[2];

	native_of(res)->shim = shim;
	shim->sock = shim->child_sock = shim->watch = -1;
	shim->pane_id = req->pane_id;
	shim->prof = paths->prof;
	shim->egress = req->egress_dir != NULL;
	snprintf(shim->session, sizeof shim->session, "%s", req->spec->session_id ? req->spec->session_id : "");
	/* SEQPACKET: the handshake is one message, and its fd comes with it. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot create the shim's socket: %s",
			     strerror(errno));
		return -1;
	}
	shim->sock = pair[0];
	shim->child_sock = pair[1];
	shim->epoll = res->status_fd;
	if (epoll_ctl(shim->epoll, EPOLL_CTL_ADD, shim->sock,
		      &(struct epoll_event){.events = EPOLLIN}) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot watch the shim's socket: %s",
			     strerror(errno));
		return -1;
	}
	if (send_filter(shim->sock, err) != 0)
		return -1;
	fcntl(shim->sock, F_SETFL, O_NONBLOCK);
	return 0;
}

/* The supervisor's policy for the pane, resolved.  Made once bwrap has
 * been started, while it builds the sandbox on the other CPU: nothing
 * needs it before the shim's handshake, which this same loop reads
 * later, and until the supervisor holds the listener every supervised
 * call of the sandbox waits in the kernel.  0, or -1 out of memory. */
static int shim_policy(struct native_shim *shim, const struct native_paths *paths)
{
	char home[PATH_MAX];

	/* A read-only $HOME under /tmp shows through the private /tmp
	 * (bwrap.c's push_read_only_home): writing there is the host's. */
	if (paths->no_home && realpath(paths->home, home) != NULL && subpath_of(home, "/tmp") &&
	    strcmp(home, "/tmp") != 0 && strvec_push(&shim->shown, home) != 0)
		return -1;
	if (shim_deny_read(shim, &paths->deny, paths->home) != 0 ||
	    shim_writable(shim, &paths->writable) != 0 ||
	    shim_protected(shim, &paths->protected_paths) != 0 ||
	    shim_protected(shim, &paths->host_run) != 0 ||
	    strvec_pushv(&shim->write_denies, (const char *const *)paths->write_denies.v,
			 paths->write_denies.n) != 0)
		return -1;
	/* delete_guard: the work tree is where deletes may happen (with
	 * the private roots); its git directories lie in it. */
	if (paths->prof->delete_guard && !paths->no_cwd &&
	    realpath(paths->cwd, home) != NULL && strvec_push(&shim->delete_roots, home) != 0)
		return -1;
	/* ... and a linked work tree's lie elsewhere. */
	if (paths->prof->delete_guard &&
	    strvec_pushv(&shim->delete_roots, (const char *const *)paths->linked_git.v,
			 paths->linked_git.n) != 0)
		return -1;
	return 0;
}

/* Does the shim make the sandbox's read-only binds (bwrap.c, "Read-only
 * binds in the shim")?  Where it runs in the user namespace that owns
 * the sandbox's mounts: bwrap not setuid (a setuid one makes its
 * namespaces otherwise).  Run by root, bwrap makes one namespace; run by
 * another user, it would nest a second one for the sandbox's uid, so it
 * is told to run the shim as uid 0 instead, and the shim nests its own
 * after the binds (bwrap.h, shim_userns).  Decided once.
 * SANDMUX_NATIVE_SHIM_BINDS=0 in the server's environment leaves them
 * to bwrap (docs/backends.md, "native (Linux)"). */
bool native_shim_binds(void)
{
	static int decided = -1;

	if (decided < 0) {
		const char *v = getenv("SANDMUX_NATIVE_SHIM_BINDS");
		struct stat st;

		decided = getuid() == geteuid() && (v == NULL || strcmp(v, "0") != 0) &&
			  stat(backend_probe_result()->native.bwrap_path, &st) == 0 &&
			  (st.st_mode & S_ISUID) == 0;
	}
	return decided == 1;
}

/* [sandmux-shim, --fd, N, --, command...] (or [sandmux, shim, ...]
 * without the standalone shim): the filter is in place before anything
 * of the command runs.  Both are bound read-only at their own path
 * inside (bwrap.c).  argv NULL: [..., --wait], a prepared sandbox that
 * gets its command later.  *sep is the index of the separator, where
 * bwrap.c puts the shim's read-only binds. */
static int shim_argv(struct native_shim *shim, char *const *argv, long nproc, struct strvec *out,
		     size_t *sep, struct sm_error *err)
{
	char fd[16], nproc_text[24];
	const char *separator = argv != NULL ? "--" : "--wait";

	snprintf(fd, sizeof fd, "%d", shim->child_sock);
	if (backend_shim_prefix(out, shim->exe, sizeof shim->exe) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "cannot find the sandmux binary for the shim (replaced? restart the "
			     "server for native panes)");
		return -1;
	}
	if (strvec_pushv(out, (const char *const[]){"--fd", fd}, 2) != 0)
		goto nomem;
	/* The process limit where no pids group holds it (sandbox-limits.h): set
	 * by the shim, inside the sandbox's user namespace. */
	snprintf(nproc_text, sizeof nproc_text, "%ld", nproc);
	if (nproc > 0 && strvec_pushv(out, (const char *const[]){"--nproc", nproc_text}, 2) != 0)
		goto nomem;
	*sep = out->n;
	if (strvec_push(out, separator) != 0)
		goto nomem;
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		if (strvec_push(out, argv[i]) != 0)
			goto nomem;
	return 0;
nomem:
	sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	return -1;
}

static void shim_attach(struct native_shim *shim, int listener)
{
	/* The sockets a pane may connect to although it did not bind them
	 * (supervisor.h).  Each only answers questions: the egress proxies
	 * of an agent pane (its one way out), and the host's name services,
	 * which glibc asks for users and groups (systemd's userdb: ls -l,
	 * id) and, in the terminal profile, for host names (resolved, nscd;
	 * an agent pane resolves through its proxy, never by itself).  A
	 * path ending in '/' stands for the sockets directly in that
	 * directory. */
	static const char *const egress_sockets[] = {
	    BWRAP_EGRESS_DIR "/http.sock", BWRAP_EGRESS_DIR "/socks.sock",
	    "/run/systemd/userdb/", NULL};
	static const char *const name_services[] = {
	    "/run/systemd/userdb/", "/run/systemd/resolve/io.systemd.Resolve",
	    "/run/nscd/socket", "/var/run/nscd/socket", NULL};
	struct supervisor_policy policy = {
	    .session = shim->session,
	    .profile = shim->prof->name,
	    .writable_roots = (const char *const *)shim->writable.v,
	    .private_roots = sandbox_private_roots,
	    .shown_roots = (const char *const *)shim->shown.v,
	    .deny_read = (const char *const *)shim->deny_read.v,
	    .deny_create_patterns = (const char *const *)shim->prof->deny_create_patterns.v,
	    .write_denies = (const char *const *)shim->write_denies.v,
	    .protected_paths = (const char *const *)shim->protected_paths.v,
	    .delete_guard = shim->prof->delete_guard,
	    .delete_roots = (const char *const *)shim->delete_roots.v,
	    /* The egress bridges' way out: the server's proxies. */
	    .connect_sockets = shim->egress ? egress_sockets : name_services,
	};

	if (supervisor_attach(shim->pane_id, listener, &policy) != 0) {
		snprintf(shim->failure, sizeof shim->failure, "the supervisor is not running");
		return;
	}
	shim->attached = true;
}

/* The fds a handshake message carried: listener, exec watch. */
static size_t received_fds(struct msghdr *msg, int fds[2])
{
	size_t n = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
			if (n < 2)
				fds[n++] = fd;
			else
				close(fd);
		}
	}
	return n;
}

/* The listener goes to the supervisor; the exec watch is kept until it
 * hangs up. */
static void shim_handshake(struct native_shim *shim, int listener, int watch)
{
	/* Nothing more comes on the socket but its hang-up at the exec,
	 * which the watch tells as well: out of the set, or it would stay
	 * readable. */
	epoll_ctl(shim->epoll, EPOLL_CTL_DEL, shim->sock, NULL);
	shim_attach(shim, listener);
	shim->watch = watch;
	if (fcntl(watch, F_SETFL, O_NONBLOCK) != 0) {
		/* Never block the server: judge by /proc alone. */
		close(shim->watch);
		shim->watch = -1;
		shim->exec_seen = true;
		return;
	}
	/* Without it in the set, the exec is seen on the next tick. */
	epoll_ctl(shim->epoll, EPOLL_CTL_ADD, watch, &(struct epoll_event){.events = EPOLLIN});
}

/* Read the shim's messages: the listener and the exec watch, or why it
 * failed.  Never blocks. */
static void shim_poll(struct native_shim *shim)
{
	char data[512], control[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = {data, sizeof data - 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	while (shim->sock >= 0 && shim->failure[0] == '\0') {
		int fds[2] = {-1, -1};
		size_t nfds;

		msg.msg_control = control;
		msg.msg_controllen = sizeof control;
		n = recvmsg(shim->sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		/* Hung up before any handshake: the shim is gone, which the
		 * verdict learns from bwrap; out of the set meanwhile. */
		if (n == 0)
			epoll_ctl(shim->epoll, EPOLL_CTL_DEL, shim->sock, NULL);
		if (n <= 0)
			return;
		data[n] = '\0';
		nfds = received_fds(&msg, fds);
		if (strcmp(data, SHIM_HELLO " listener") == 0 && nfds == 2 && !shim->attached) {
			shim_handshake(shim, fds[0], fds[1]);
			continue;
		}
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		snprintf(shim->failure, sizeof shim->failure, "%s",
			 strncmp(data, SHIM_HELLO " failed: ", sizeof SHIM_HELLO " failed: " - 1) == 0
			     ? data + sizeof SHIM_HELLO " failed: " - 1
			     : "the shim sent an unreadable handshake");
	}
}

/* Has the exec watch hung up?  Then the shim's exec happened (or it
 * died): time to look at what runs. */
static void shim_watch_poll(struct native_shim *shim)
{
	char byte;

	if (shim->watch < 0 || read(shim->watch, &byte, 1) != 0)
		return;
	close(shim->watch);
	shim->watch = -1;
	shim->exec_seen = true;
}

/* The pane's environment with GIT_TEMPLATE_DIR empty: git init and
 * clone then copy no template, so they never need .git/hooks, which is
 * read-only in every native pane (hostrun.h).  Set whatever the caller
 * had: a template with hooks would make every git init fail. */
int native_pane_envp(const struct launch_request *req, const struct sandbox_profile *prof,
		     struct strvec *out)
{
	char rm_dir[PATH_MAX];
	bool trash_rm = prof->trash && backend_trash_rm_dir(rm_dir, sizeof rm_dir) == 0;

	for (size_t i = 0; req->spec->env != NULL && req->spec->env[i] != NULL; i++) {
		/* The trash's rm first on PATH: an `rm` typed in the pane
		 * moves to the trash (the supervisor refuses the deletes
		 * themselves wherever the profile does). */
		if (trash_rm && strncmp(req->spec->env[i], "PATH=", 5) == 0) {
			char *var = NULL;
			int rc;

			if (asprintf(&var, "PATH=%s:%s", rm_dir, req->spec->env[i] + 5) < 0)
				return -1;
			rc = strvec_push(out, var);
			free(var);
			if (rc != 0)
				return -1;
			continue;
		}
		if (strncmp(req->spec->env[i], "GIT_TEMPLATE_DIR=", 17) != 0 &&
		    strncmp(req->spec->env[i], "SANDMUX_HOME_LAYER=", 19) != 0 &&
		    strvec_push(out, req->spec->env[i]) != 0)
			return -1;
	}
	/* The shell may say where its writes to $HOME go (the demo does):
	 * set by the server, and only where a layer stands (home_layout). */
	if (prof->mode == SANDBOX_MODE_CHAT && prof->home_writable) {
		char *var = NULL;
		int rc;

		if (asprintf(&var, "SANDMUX_HOME_LAYER=%s", prof->name) < 0)
			return -1;
		rc = strvec_push(out, var);
		free(var);
		if (rc != 0)
			return -1;
	}
	return strvec_push(out, "GIT_TEMPLATE_DIR=");
}

/* What bwrap is told for one launch, but for the shim, the command and
 * the per-launch files. */
void native_terminal_input(const struct launch_request *req, const struct native_paths *paths,
			   struct bwrap_input *in)
{
	in->bwrap = backend_probe_result()->native.bwrap_path;
	in->home = paths->home;
	in->cwd = req->spec->workdir;
	in->deny_read = (const char *const *)paths->deny.v;
	in->writable = (const char *const *)paths->extra_writable.v;
	in->no_home = paths->no_home;
	in->no_cwd = paths->no_cwd;
	in->read_only_inside = (const char *const *)paths->bound_inside.v;
	in->protected_paths = (const char *const *)paths->protected_paths.v;
	in->host_run = (const char *const *)paths->host_run.v;
	in->rm_dir = paths->rm_dir[0] != '\0' ? paths->rm_dir : NULL;
}

/* req->spec->command NULL: a prepared sandbox (see below), whose shim waits. */
int native_spawn_bwrap(const struct launch_request *req, const struct sandbox_profile *prof,
		       const char *home, struct launch_result *res, int status_write,
		       struct sm_error *err)
{
	struct native_paths paths;
	struct strvec argv = STRVEC_INIT, command = STRVEC_INIT;
	struct strvec shimmed = STRVEC_INIT, envp = STRVEC_INIT, layered = STRVEC_INIT;
	size_t sep = 0;
	int keep[2] = {status_write, -1};
	struct bwrap_input in = {0};
	struct pty_spawn_opts opts = {
	    .cwd = req->spec->workdir,
	    .rows = req->rows,
	    .cols = req->cols,
	    .keep_fds = keep,
	    .nkeep_fds = 2,
	};
	char msg[256];
	int rc = -1;

	if (native_pane_envp(req, prof, &envp) != 0) {
		strvec_free(&envp);
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	opts.envp = envp.v;
	if (native_paths_build(req, prof, home, false, &paths, err) != 0) {
		strvec_free(&envp);
		return -1;
	}
	native_terminal_input(req, &paths, &in);
	in.mask_file = native_of(res)->mask_file;
	in.status_fd = status_write;
	in.argv = req->spec->command;
	if (req->egress_dir != NULL) {
		if (egress_bridge_argv(req, &command, err) != 0)
			goto done;
		in.argv = command.v;
		in.egress_dir = req->egress_dir;
	}
	/* Threat: a runaway pane (fork bomb, memory eater) taking the host
	 * down: its processes are held by a group or rlimits (sandbox-limits.h). */
	res->limits = limits_group_new(prof, err);
	if (res->limits == NULL)
		goto done;
	opts.child_setup = limits_child_apply;
	opts.child_arg = res->limits;
	/* The shim first: nothing of the command runs unfiltered. */
	if (shim_prepare(req, &paths, res, err) != 0 ||
	    shim_argv(native_of(res)->shim, in.argv, limits_group_nproc(res->limits), &shimmed, &sep, err) != 0)
		goto done;
	in.argv = shimmed.v;
	in.shim_binds_at = native_shim_binds() ? sep : 0;
	in.shim_userns = in.shim_binds_at > 0 && getuid() != 0;
	in.shim_exe = shimmed.v[0];
	/* The egress bridge of a proxied pane is the sandmux binary itself. */
	in.self_exe = req->egress_dir != NULL ? command.v[0] : NULL;
	keep[1] = native_of(res)->shim->child_sock;
	if (bwrap_build_argv(&in, &argv, err) != 0)
		goto done;
	opts.argv = argv.v;
	if (paths.layer) {
		/* bwrap runs inside the layer's mount namespace (backends/native-inside/shim-home.c):
		 * the same shim binary, [sandmux-shim] or [sandmux, shim]. */
		size_t nprefix = strcmp(shimmed.v[1], "shim") == 0 ? 2 : 1;

		if (home_layer_work_new(paths.layer_dir, &native_of(res)->layer_work, err) != 0)
			goto done;
		res->home_layer = true;
		if (home_layer_argv((const char *const *)shimmed.v, nprefix, paths.home_real,
				    paths.layer_dir, native_of(res)->layer_work, &paths.real, argv.v,
				    &layered) != 0) {
			sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
			goto done;
		}
		opts.argv = layered.v;
	}
	if (pty_spawn(&opts, &res->master, &res->pid, msg, sizeof msg) < 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot start bubblewrap: %s", msg);
		goto done;
	}
	close(native_of(res)->shim->child_sock);
	native_of(res)->shim->child_sock = -1;
	if (shim_policy(native_of(res)->shim, &paths) != 0) {
		/* bwrap already runs, and --die-with-parent takes its
		 * namespace along. */
		kill(res->pid, SIGKILL);
		while (waitpid(res->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(res->master);
		res->master = -1;
		res->pid = 0;
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		goto done;
	}
	/* The next launch's groups, while bwrap works. */
	limits_group_prepare();
	rc = 0;
done:
	if (rc != 0) {
		limits_group_free(res->limits);
		res->limits = NULL;
	}
	native_paths_free(&paths);
	strvec_free(&shimmed);
	strvec_free(&layered);
	strvec_free(&argv);
	strvec_free(&command);
	strvec_free(&envp);
	return rc;
}

long long native_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Close what confirmation needed; status_fd itself is the caller's. */
void native_close_confirm_fds(struct launch_result *res)
{
	if (native_of(res)->status_file >= 0)
		close(native_of(res)->status_file);
	native_of(res)->status_file = -1;
	if (native_of(res)->status_timer >= 0)
		close(native_of(res)->status_timer);
	native_of(res)->status_timer = -1;
	if (native_of(res)->shim != NULL && native_of(res)->shim->attached) {
		native_of(res)->supervised_pane = native_of(res)->shim->pane_id;
		res->supervised = true;
	}
	native_shim_free(res);
}

static void arm_tick(struct launch_result *res)
{
	long long elapsed = native_monotonic_ms() - native_of(res)->launched_ms;
	long ms = elapsed < CONFIRM_FAST_SPAN_MS ? CONFIRM_FAST_TICK_MS : CONFIRM_SLOW_TICK_MS;
	struct itimerspec when = {.it_value = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000}};

	timerfd_settime(native_of(res)->status_timer, 0, &when, NULL);
}

/* The status memfd (its fd goes to bwrap; it is never truncated and only
 * read with pread, so bwrap's appends and our reads share no offset) and
 * the set the pane polls, with the tick timer in it (the shim's fds join
 * it later). */
int native_open_status(struct launch_result *res, struct sm_error *err)
{
	native_of(res)->status_file = memfd_create("sandmux-bwrap-status", MFD_CLOEXEC);
	native_of(res)->status_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	res->status_fd = epoll_create1(EPOLL_CLOEXEC);
	if (native_of(res)->status_file < 0 || native_of(res)->status_timer < 0 || res->status_fd < 0 ||
	    epoll_ctl(res->status_fd, EPOLL_CTL_ADD, native_of(res)->status_timer,
		      &(struct epoll_event){.events = EPOLLIN}) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot watch bubblewrap's status: %s",
			     strerror(errno));
		if (res->status_fd >= 0)
			close(res->status_fd);
		res->status_fd = -1;
		native_close_confirm_fds(res);
		return -1;
	}
	return 0;
}

static int native_launch(const struct launch_request *req, struct launch_result *res,
			 struct sm_error *err)
{
	const struct sandbox_profile *prof;
	const char *home;

	native_result_init(res);
	/* Never launch on a host the probe did not vouch for. */
	if (backend_check(SANDBOX_NATIVE, err) != 0 ||
	    native_check_request(req, &prof, &home, err) != 0)
		return -1;
	native_prepared_remember(req, prof, home);
	if (native_prepared_take(req, prof, home, res) == 0) {
		log_debug("%s: bwrap pid %d, prepared ahead", __func__, (int)res->pid);
		goto launched;
	}
	if (native_make_mask_file(res, err) != 0)
		return -1;
	if (native_open_status(res, err) != 0) {
		native_remove_mask_file(res);
		return -1;
	}
	native_of(res)->launched_ms = native_monotonic_ms();
	if (native_spawn_bwrap(req, prof, home, res, native_of(res)->status_file, err) != 0) {
		native_shim_free(res);
		close(res->status_fd);
		res->status_fd = -1;
		native_close_confirm_fds(res);
		native_remove_mask_file(res);
		return -1;
	}
	log_debug("%s: bwrap pid %d, status fd %d", __func__, (int)res->pid, native_of(res)->status_file);
launched:
	arm_tick(res);
	res->backend = SANDBOX_NATIVE;
	res->confirmed = false;
	snprintf(res->details, sizeof res->details, "%s, profile %s",
		 backend_probe_result()->native.tool, prof->name);
	return 0;
}

/* One JSON document from bwrap: {"child-pid": N, ...namespace ids} after
 * the clone, {"exit-code": C} once a command that bwrap really exec'd
 * has exited (bwrap writes it only after a successful execvp). */
static void parse_status_line(struct launch_result *res, const char *line)
{
	cJSON *json = cJSON_Parse(line);
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(json, "child-pid");
	const cJSON *exit_code = cJSON_GetObjectItemCaseSensitive(json, "exit-code");

	if (cJSON_IsNumber(pid) && pid->valuedouble > 0)
		native_of(res)->sandbox_init = (pid_t)pid->valuedouble;
	if (cJSON_IsNumber(exit_code) && native_of(res)->sandbox_init > 0) {
		res->child_pid = native_of(res)->sandbox_init;
		res->confirmed = true;
	}
	cJSON_Delete(json);
}

/* Parse every complete line in the buffer, keep the rest. */
static void parse_status_buffer(struct launch_result *res)
{
	char *start = native_of(res)->status_buf, *nl;

	while (!res->confirmed &&
	       (nl = memchr(start, '\n', native_of(res)->status_len - (size_t)(start - native_of(res)->status_buf))) !=
		   NULL) {
		*nl = '\0';
		parse_status_line(res, start);
		start = nl + 1;
	}
	native_of(res)->status_len -= (size_t)(start - native_of(res)->status_buf);
	memmove(native_of(res)->status_buf, start, native_of(res)->status_len);
}

/* True once bwrap itself has exited (a zombie not yet reaped counts). */
bool native_bwrap_gone(pid_t pid)
{
	struct proc_stat st;

	return proc_stat_read(pid, &st) != 0 || st.state == 'Z';
}

/* Read what bwrap appended to the status file: 1 confirmed, 0 nothing
 * decisive yet, -1 unusable (err set). */
static int read_status(struct launch_result *res, struct sm_error *err)
{
	for (;;) {
		size_t room = sizeof native_of(res)->status_buf - 1 - native_of(res)->status_len;
		ssize_t n;

		if (room == 0) {
			/* A status line this long is not bwrap's. */
			sm_error_set(err, SM_ERR_LAUNCH_FAILED,
				     "bubblewrap sent an unreadable status line");
			return -1;
		}
		n = pread(native_of(res)->status_file, native_of(res)->status_buf + native_of(res)->status_len, room,
			  native_of(res)->status_offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot read bubblewrap's status: %s",
				     strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		native_of(res)->status_len += (size_t)n;
		native_of(res)->status_offset += n;
		parse_status_buffer(res);
		if (res->confirmed)
			return 1;
	}
}

static bool same_exe(pid_t pid, const struct stat *exe)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	return stat(path, &st) != 0 || (st.st_dev == exe->st_dev && st.st_ino == exe->st_ino);
}

/* Children of init from /proc/INIT/task/INIT/children (init is bwrap,
 * single-threaded); without that file (CONFIG_PROC_CHILDREN=n), from
 * the parent field of every /proc/PID/stat.  Returns how many fit. */
static size_t children_of(pid_t init, pid_t *out, size_t size)
{
	char path[64];
	struct proc_stat st;
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	FILE *f;
	int pid;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)init, (int)init);
	f = fopen(path, "re");
	if (f != NULL) {
		while (n < size && fscanf(f, "%d", &pid) == 1)
			out[n++] = pid;
		fclose(f);
		return n;
	}
	dir = opendir("/proc");
	while (dir != NULL && n < size && (de = readdir(dir)) != NULL) {
		if ((pid = atoi(de->d_name)) <= 0)
			continue;
		if (proc_stat_read(pid, &st) == 0 && st.ppid == init)
			out[n++] = pid;
	}
	if (dir != NULL)
		closedir(dir);
	return n;
}

/* The pid of the command once it has been exec'd, else 0 (see the top
 * of the file for why this is the moment the label may be shown).  An
 * unreadable /proc entry counts as not yet: confirmation can only be
 * late, never early. */
static pid_t exec_done(pid_t init)
{
	char path[64];
	struct stat bwrap_exe;
	pid_t children[16];
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/exe", (int)init);
	if (stat(path, &bwrap_exe) != 0)
		return 0;
	n = children_of(init, children, sizeof children / sizeof children[0]);
	for (size_t i = 0; i < n; i++)
		if (!same_exe(children[i], &bwrap_exe))
			return children[i];
	return 0;
}

/* With the shim, the command runs once a child of init is neither bwrap
 * nor sandmux (the shim, the egress bridge) nor the standalone shim, and
 * the supervisor holds the listener.  A command that is itself one of
 * them never looks exec'd (like one that is bwrap): it confirms only by
 * exiting.  Looked at once the exec watch hung up: before that the shim
 * has not exec'd anything. */
static pid_t shim_exec_done(const struct launch_result *res)
{
	struct stat self, shim;
	pid_t child;

	if (!native_of(res)->shim->attached || !native_of(res)->shim->exec_seen || stat("/proc/self/exe", &self) != 0)
		return 0;
	child = exec_done(native_of(res)->sandbox_init);
	if (child <= 0 || same_exe(child, &self))
		return 0;
	if (native_of(res)->shim->exe[0] != '\0' && stat(native_of(res)->shim->exe, &shim) == 0 &&
	    same_exe(child, &shim))
		return 0;
	return child;
}

/* The shim's verdict on a status read: a failure it reported, or an
 * exit before its listener reached the supervisor, is a failed launch
 * (its exit code 126 is not the command's). */
static int shim_verdict(struct launch_result *res, int rc, struct sm_error *err)
{
	shim_poll(native_of(res)->shim);
	shim_watch_poll(native_of(res)->shim);
	if (native_of(res)->shim->failure[0] != '\0') {
		res->confirmed = false;
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the sandmux shim failed: %s",
			     native_of(res)->shim->failure);
		return -1;
	}
	if (rc > 0 && !native_of(res)->shim->attached) {
		res->confirmed = false;
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the command ended before the seccomp supervisor was attached");
		return -1;
	}
	return rc;
}

static int native_confirm(struct launch_result *res, struct sm_error *err)
{
	uint64_t ticks;
	bool gone;
	int rc;

	if (res->confirmed)
		return 1;
	while (read(native_of(res)->status_timer, &ticks, sizeof ticks) > 0)
		;
	/* Whether bwrap is gone is asked before reading: "exit-code" is
	 * written before bwrap exits, so a status read after a gone bwrap
	 * is complete. */
	gone = native_bwrap_gone(res->pid);
	rc = read_status(res, err);
	if (native_of(res)->shim != NULL && rc >= 0)
		rc = shim_verdict(res, rc, err);
	if (rc == 0 && native_of(res)->sandbox_init > 0 &&
	    (res->child_pid = native_of(res)->shim != NULL ? shim_exec_done(res)
						: exec_done(native_of(res)->sandbox_init)) > 0) {
		res->confirmed = true;
		rc = 1;
	}
	if (rc == 0 && gone) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "bubblewrap exited before running the command");
		rc = -1;
	}
	if (rc == 0 && native_monotonic_ms() - native_of(res)->launched_ms >= CONFIRM_TIMEOUT_MS) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "bubblewrap did not start the command within %d s (%s)",
			     CONFIRM_TIMEOUT_MS / 1000,
			     native_of(res)->sandbox_init > 0 ? "stuck setting up the sandbox"
						   : "it never reported a sandbox");
		rc = -1;
	}
	if (rc == 0) {
		arm_tick(res);
		return 0;
	}
	native_close_confirm_fds(res);
	if (rc > 0)
		log_debug("%s: command pid %d running inside, %lld ms after launch", __func__,
			  (int)res->child_pid, native_monotonic_ms() - native_of(res)->launched_ms);
	return rc;
}

static void native_release(struct launch_result *res);

/* Stop or continue everything: the PTY session and, in case something
 * inside left it with setsid(), every process in the sandbox's pid
 * namespace. */
/* The pid namespace's init, once known; 0 after release. */
static pid_t sandbox_init_of(const struct launch_result *res)
{
	return native_of(res) != NULL ? native_of(res)->sandbox_init : 0;
}

static int native_suspend(struct launch_result *res)
{
	return backend_signal_tree(res->pid, sandbox_init_of(res), SIGSTOP);
}

static int native_resume(struct launch_result *res, struct sm_error *err)
{
	(void)err;
	return backend_signal_tree(res->pid, sandbox_init_of(res), SIGCONT);
}

/* bwrap leads the session; once it dies, --die-with-parent kills the
 * namespace's init and the kernel kills every process in the namespace. */
static void native_destroy(struct launch_result *res)
{
	backend_kill_tree(res->pid, sandbox_init_of(res));
	/* First: a pane killed before confirmation learns here that its
	 * listener reached the supervisor (supervised_pane). */
	if (native_of(res) != NULL) {
		native_close_confirm_fds(res);
		if (native_of(res)->supervised_pane > 0)
			supervisor_detach(native_of(res)->supervised_pane);
	}
	native_release(res);
}

/* After the pane's process is gone: the mask file, the home layer's work
 * directory and the state go.  The group's last processes may still be
 * dying: sandbox-limits.c removes it once they are. */
static void native_release(struct launch_result *res)
{
	if (native_of(res) != NULL) {
		native_remove_mask_file(res);
		native_close_confirm_fds(res);
		free(res->state);
		res->state = NULL;
	}
	limits_group_free(res->limits);
	res->limits = NULL;
}

/* --- profile show ------------------------------------------------------ */

/* One line: label, then each entry, shell-quoted where it needs it. */
static int describe_line(cJSON *lines, const char *label, const char *const *v, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cJSON *item;

	if (f == NULL)
		return -1;
	fputs(label, f);
	for (size_t i = 0; i < n; i++) {
		bool plain = v[i][0] != '\0' && strspn(v[i], "abcdefghijklmnopqrstuvwxyz"
							 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
							 "/._-+=:,@%~") == strlen(v[i]);

		if (i > 0 || label[0] != '\0')
			fputc(' ', f);
		if (plain) {
			fputs(v[i], f);
			continue;
		}
		fputc('\'', f);
		for (const char *c = v[i]; *c != '\0'; c++)
			*c == '\'' ? fputs("'\\''", f) : fputc(*c, f);
		fputc('\'', f);
	}
	if (fclose(f) != 0) {
		free(text);
		return -1;
	}
	item = cJSON_CreateString(text);
	free(text);
	return item != NULL && cJSON_AddItemToArray(lines, item) ? 0 : -1;
}

static int describe_list(cJSON *lines, const char *label, const struct strvec *v)
{
	return describe_line(lines, label, (const char *const *)v->v, v->n);
}

/* The supervisor's rules beyond the mounts: where deletes may happen,
 * the trash's rm, the network. */
static int describe_rules(cJSON *lines, const struct sandbox_profile *prof,
			  const struct native_paths *np)
{
	const char *where[] = {np->cwd, "/tmp"};
	const char *rm[] = {np->rm_dir, "moves", "to", np->trash,
			    access(np->trash, F_OK) == 0 ? "" : "(made at launch)"};
	const char *net = prof->ask_network	 ? "ask (the session's egress proxies; an unknown "
						   "host waits for a person)"
			  : prof->proxied_network ? "proxied (the session's egress proxies)"
						  : "open";
	char rm_path[PATH_MAX + 8];

	if (describe_list(lines, "name patterns:", &prof->deny_create_patterns) != 0)
		return -1;
	/* Seatbelt's alone: Linux has no exec deny to except an interpreter
	 * from, and its supervisor's socket list is its own. */
	if ((prof->exec_interpreters.n > 0 &&
	     describe_list(lines, "exec_interpreters (macOS only):", &prof->exec_interpreters) != 0) ||
	    (prof->unix_sockets.n > 0 &&
	     describe_list(lines, "unix_sockets (macOS only):", &prof->unix_sockets) != 0))
		return -1;
	if (!prof->delete_guard
		? describe_line(lines, "deletes: wherever writes are allowed", NULL, 0) != 0
		: describe_line(lines, "deletes: only in", np->no_cwd ? where + 1 : where,
				np->no_cwd ? 1 : 2) != 0)
		return -1;
	if (prof->trash) {
		snprintf(rm_path, sizeof rm_path, "%s/rm", np->rm_dir);
		rm[0] = rm_path;
		if (describe_line(lines, "rm:", rm, rm[4][0] != '\0' ? 5 : 4) != 0)
			return -1;
	}
	return describe_line(lines, "network:", &net, 1);
}

int native_describe(const struct launch_request *asked, struct cJSON *lines, struct sm_error *err)
{
	static char *const command[] = {"sandmux-shim", "--fd", "N", "--", "$SHELL", NULL};
	struct launch_request req = *asked;
	const struct sandbox_profile *prof;
	const char *home;
	struct native_paths paths;
	struct strvec argv = STRVEC_INIT;
	struct bwrap_input in = {0};
	int rc = -1;

	prof = profile_find(req.spec->profile);
	if (prof != NULL && prof->proxied_network)
		req.egress_dir = "<the-pane's-egress-dir>";
	if (native_check_request(&req, &prof, &home, err) != 0 ||
	    native_paths_build(&req, prof, home, true, &paths, err) != 0)
		return -1;
	native_terminal_input(&req, &paths, &in);
	if (in.bwrap == NULL || in.bwrap[0] == '\0')
		in.bwrap = "bwrap";
	in.mask_file = "<mask-file>";
	in.status_fd = -1;
	in.argv = command;
	in.egress_dir = req.egress_dir;
	if (bwrap_build_argv(&in, &argv, err) != 0)
		goto done;
	if (describe_list(lines, "", &argv) != 0 ||
	    (paths.layer && describe_line(lines, "home: a copy-on-write layer in",
					  (const char *const[]){paths.layer_dir}, 1) != 0) ||
	    describe_list(lines, "writable roots:", &paths.writable) != 0 ||
	    describe_list(lines, "deny-read:", &paths.deny) != 0 ||
	    describe_list(lines, "write-denies:", &paths.write_denies) != 0 ||
	    describe_list(lines, "host-run (read-only):", &paths.host_run) != 0 ||
	    describe_list(lines, "protected:", &paths.protected_paths) != 0 ||
	    describe_rules(lines, prof, &paths) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		goto done;
	}
	rc = 0;
done:
	strvec_free(&argv);
	native_paths_free(&paths);
	return rc;
}

/* --- the probe ------------------------------------------------------------ */

static bool probe_native_linux(struct probe_result *out);

/* "bubblewrap 0.8.0" from `bwrap --version`. */
static int bwrap_version(const char *bwrap, char *out, size_t size)
{
	char *const argv[] = {(char *)bwrap, "--version", NULL};
	char buf[256];

	if (probe_run_capture(argv, buf, sizeof buf) != 0)
		return -1;
	probe_first_line(buf);
	if (buf[0] == '\0')
		return -1;
	snprintf(out, size, "%s", buf);
	return 0;
}

/* Build the namespaces and masks of a launch, with the argv a launch
 * gets (bwrap_build_argv: every namespace, the read-only root, the
 * private /tmp, /dev and /proc, a deny-read directory masked), and run
 * bwrap's own binary inside them: where unprivileged user namespaces are
 * blocked (sysctl, AppArmor), bwrap is installed but cannot sandbox, and
 * the label must not promise what a launch would not deliver.  The
 * masked directory is an empty one of the probe's own: a directory of
 * the host's might hold bwrap itself. */
static int bwrap_smoke_test(const char *bwrap, char *out, size_t size)
{
	char mask[] = "/var/tmp/sandmux-probe.XXXXXX";
	const char *deny_read[] = {mkdtemp(mask), NULL};
	char *const command[] = {(char *)bwrap, "--version", NULL};
	const struct bwrap_input in = {
	    .bwrap = bwrap,
	    .home = "/",
	    .cwd = "/",
	    .no_home = true,
	    .no_cwd = true,
	    .deny_read = deny_read,
	    .status_fd = -1,
	    .argv = command,
	};
	struct strvec argv = STRVEC_INIT;
	struct sm_error err = {0};
	int rc = -1;

	if (bwrap_build_argv(&in, &argv, &err) != 0)
		snprintf(out, size, "%s", err.message);
	else if ((rc = probe_run_capture(argv.v, out, size)) != 0)
		probe_first_line(out);
	strvec_free(&argv);
	if (deny_read[0] != NULL)
		rmdir(deny_read[0]);
	return rc == 0 ? 0 : -1;
}

/* The copy-on-write home's mount, made by the shim's own step
 * (home-layer.h); false with the step's message. */
static bool home_layer_works(char *reason, size_t size)
{
	static const char prefix[] = "sandmux home layer: ";
	struct home_layer_probe p;
	char output[512];
	bool works = false;

	if (home_layer_probe_start(&p, reason, size) == 0) {
		works = probe_run_capture(p.argv.v, output, sizeof output) == 0;
		probe_first_line(output);
		if (!works)
			snprintf(reason, size, "%s",
				 output[0] == '\0' ? "the shim's --home-layer step failed"
				 : strncmp(output, prefix, sizeof prefix - 1) == 0
				     ? output + sizeof prefix - 1
				     : output);
	}
	home_layer_probe_end(&p);
	return works;
}

/* What bwrap itself says (its version, whether it can build a launch's
 * namespaces here, whether the copy-on-write home mounts) is asked in a
 * child process, as microvm's accelerator is, so the server answers its
 * first requests meanwhile.  Every reader of the result waits for the
 * answer first (backend_probe_result, through .probe_settle): a native
 * request that arrives before it is decided on the answer, never on a
 * guess, and a pane that runs on the host does not read the result. */
struct native_answer {
	bool available, home_layer;
	char tool[64], reason[160], hint[160], home_layer_reason[200];
};

static pid_t native_child = -1; /* the bwrap check, until its answer is taken */
static int native_answer_fd = -1;
static struct probe_result *native_answer_into; /* the result the answer completes */

/* The slow part, in the child. */
static void native_answer_find(const struct probe_result *r, void *answer)
{
	struct native_answer *a = answer;
	char output[512];

	if (bwrap_version(r->native.bwrap_path, a->tool, sizeof a->tool) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.130s --version failed",
			 r->native.bwrap_path);
		return;
	}
	if (bwrap_smoke_test(r->native.bwrap_path, output, sizeof output) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.40s cannot create a sandbox here: %.80s",
			 a->tool, output[0] ? output : "it failed without a message");
		snprintf(a->hint, sizeof a->hint,
			 "allow unprivileged user namespaces (sysctl "
			 "kernel.unprivileged_userns_clone, "
			 "kernel.apparmor_restrict_unprivileged_userns)");
		return;
	}
	a->available = true;
	a->home_layer = home_layer_works(a->home_layer_reason, sizeof a->home_layer_reason);
}

/* The native record is complete: --sandbox off has its say, and the
 * server hears of it. */
static void native_probe_complete(struct probe_result *r)
{
	struct native_probe *n = &r->native;

	if (r->sandbox_off) {
		/* The host may be able to; this server will not. */
		n->disabled = true;
		n->available = false;
		snprintf(n->reason, sizeof n->reason, "disabled by --sandbox off");
	}
	log_debug("%s: platform %s, native %s (%s)", __func__, r->platform,
		  n->available ? "available" : "unavailable", n->available ? n->tool : n->reason);
	probe_native_complete();
}

/* The native backend's .probe_settle: the bwrap check's answer, once. */
static void native_probe_settle(bool block)
{
	struct probe_result *r = native_answer_into;
	struct native_probe *n;
	struct native_answer a;
	int got = probe_answer_take(&native_child, &native_answer_fd, &a, sizeof a, block);

	if (got < 0)
		return;
	n = &r->native;
	if (got == 0) {
		snprintf(n->reason, sizeof n->reason, "the bwrap check ended without an answer");
	} else {
		n->available = a.available;
		n->home_layer = a.home_layer;
		snprintf(n->tool, sizeof n->tool, "%s", a.tool);
		snprintf(n->reason, sizeof n->reason, "%s", a.reason);
		snprintf(n->hint, sizeof n->hint, "%s", a.hint);
		snprintf(n->home_layer_reason, sizeof n->home_layer_reason, "%s",
			 a.home_layer_reason);
	}
	native_probe_complete(r);
}

/* The native backend's .probe: bubblewrap and socat on PATH at once; a
 * bwrap that really builds a sandbox here, and the copy-on-write home,
 * in a child (above).  A check still running from an earlier probe is
 * waited for first. */
static void native_probe(struct probe_result *r)
{
	struct native_probe *n = &r->native;

	native_probe_settle(true);
	native_answer_into = r;
	n->bwrap_path = n->socat_path = "";
	if (strcmp(r->platform, "linux") == 0 || strcmp(r->platform, "wsl2") == 0) {
		if (probe_native_linux(r))
			return;
	} else {
		snprintf(n->reason, sizeof n->reason, "native sandbox is not offered on this platform");
	}
	native_probe_complete(r);
}

/* What costs nothing (bwrap and socat on PATH) now; returns whether the
 * bwrap check was started, whose answer completes the record later. */
static bool probe_native_linux(struct probe_result *out)
{
	bool have_bwrap, have_socat;
	const char *path = getenv("PATH");

	have_bwrap = probe_find_kept("bwrap", path, &out->native.bwrap_path) == 0;
	have_socat = probe_find_kept("socat", path, &out->native.socat_path) == 0;
	if (!have_bwrap || !have_socat) {
		out->native.requires_install = true;
		snprintf(out->native.hint, sizeof out->native.hint, "apt-get install%s%s",
			 have_bwrap ? "" : " bubblewrap", have_socat ? "" : " socat");
		snprintf(out->native.reason, sizeof out->native.reason, "%s not found on PATH",
			 !have_bwrap && !have_socat ? "bwrap and socat"
			 : !have_bwrap		    ? "bwrap (bubblewrap)"
						    : "socat");
		return false;
	}
	if (probe_answer_start(out, native_answer_find, sizeof(struct native_answer),
			       &native_child, &native_answer_fd) != 0) {
		snprintf(out->native.reason, sizeof out->native.reason,
			 "cannot start the bwrap check");
		return false;
	}
	return true;
}

static int native_check(const struct probe_result *probe, struct sm_error *err)
{
	const struct native_probe *n = &probe->native;

	return backend_check_record("native", n->disabled, n->available, n->reason, n->hint,
				    n->requires_install, err);
}

const struct backend_ops backend_native_ops = {
    .name = "native",
    .id = SANDBOX_NATIVE,
    .launch = native_launch,
    .confirm = native_confirm,
    .suspend = native_suspend,
    .resume = native_resume,
    .destroy = native_destroy,
    .release = native_release,
    .check = native_check,
    .probe = native_probe,
    .probe_settle = native_probe_settle,
};
