/*
 * native-prepared: the next native sandbox, built ahead of its launch.
 *
 * Most of a native pane's start is bwrap building the sandbox: about 10
 * ms on this project's host against 1-2 for everything sandmux adds.  So
 * once a native pane is running, the server prepares the next one like
 * it (same profile, working directory and $HOME) in the background:
 * bwrap with the shim in --wait (backends/native-inside/shim.c), the filter queued, on a
 * PTY of its own.  Nothing of any command runs in it.  A launch whose
 * sandbox would be exactly that one takes it over and sends the shim the
 * command and environment; from there it is an ordinary launch
 * (handshake, supervisor, confirmation, label).  Anything else starts
 * cold, as before, and a prepared sandbox that does not fit is thrown
 * away when the next one is prepared, off the launch's path.
 * SANDMUX_NATIVE_PREPARE=0 in the server's environment turns this
 * off.
 *
 * "Exactly": the key is bwrap's whole argv for the launch (the profile's
 * binds and masks, with symlinks resolved as bwrap.c resolves them),
 * every field of the profile (the supervisor's rules are not in the
 * argv), and what each absolute path in that argv is right now (lstat
 * and stat: device, inode, type).  Threat: a sandbox built before
 * ~/.ssh existed, or before a path was replaced or re-pointed, being
 * used after: its mounts would not be what the launch asks for.  Any
 * such change changes the key.  What a key cannot see is what a running
 * pane cannot see either (a deny root made after its sandbox was built);
 * the supervisor refuses those by name for both.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "bwrap.h"
#include "error.h"
#include "log.h"
#include "native-internal.h"
#include "profile.h"
#include "pty.h"
#include "sandbox-limits.h"
#include "sandbox.h"
#include "shim-filter.h"
#include "strvec.h"
#include "xalloc.h"

static struct {
	bool loaded, enabled;
	bool ready;		    /* res holds a prepared sandbox */
	struct launch_result res;   /* as launched, its shim waiting */
	char *key;		    /* what it was built for */
	char *profile, *cwd, *home; /* the launch to prepare next, or NULL */
	char *path_env;		    /* its "PATH=..." (host-run dirs), or NULL */
} ahead;

static bool ahead_enabled(void)
{
	if (!ahead.loaded) {
		const char *v = getenv("SANDMUX_NATIVE_PREPARE");

		ahead.loaded = true;
		ahead.enabled = v == NULL || strcmp(v, "0") != 0;
	}
	return ahead.enabled;
}

static void key_strvec(FILE *f, const char *what, const struct strvec *v)
{
	fprintf(f, "%s", what);
	for (size_t i = 0; i < v->n; i++)
		fprintf(f, "\x1f%s", v->v[i]);
	fputc('\x1e', f);
}

static void key_path(FILE *f, const char *path)
{
	struct stat l, st;
	int lrc = lstat(path, &l), rc = stat(path, &st);

	fprintf(f, "[%d:%llu:%llu:%o|%d:%llu:%llu:%o]", lrc, lrc == 0 ? (unsigned long long)l.st_dev : 0,
		lrc == 0 ? (unsigned long long)l.st_ino : 0, lrc == 0 ? (unsigned)l.st_mode : 0, rc,
		rc == 0 ? (unsigned long long)st.st_dev : 0, rc == 0 ? (unsigned long long)st.st_ino : 0,
		rc == 0 ? (unsigned)st.st_mode : 0);
}

/* The key of the sandbox a launch would get (see above); NULL when it
 * cannot be prepared ahead (egress, extra deny paths) or on error. */
static char *ahead_key(const struct launch_request *req, const struct sandbox_profile *prof,
		      const char *home)
{
	char *const command[] = {"@command", NULL};
	struct bwrap_input in = {0};
	struct strvec argv = STRVEC_INIT;
	struct native_paths paths;
	struct sm_error err = {0};
	char *key = NULL;
	size_t len;
	FILE *f;

	if (req->egress_dir != NULL || req->deny_paths != NULL ||
	    native_paths_build(req, prof, home, false, &paths, &err) != 0)
		return NULL;
	native_terminal_input(req, &paths, &in);
	in.mask_file = "@mask";
	in.status_fd = -1;
	in.argv = command;
	in.shim_exe = "@shim";
	/* The shim's binds are keyed like bwrap's: after "@command". */
	in.shim_binds_at = native_shim_binds() ? 1 : 0;
	in.shim_userns = in.shim_binds_at > 0 && getuid() != 0;
	f = open_memstream(&key, &len);
	if (f != NULL && bwrap_build_argv(&in, &argv, &err) == 0) {
		fprintf(f, "%s\x1e%s\x1e%d%d%d%d%d\x1e%ld:%llu:%d\x1e", prof->name, prof->base,
			(int)prof->mode, prof->home_writable, prof->proxied_network,
			prof->delete_guard, prof->trash, prof->pids_max, prof->memory_max,
			prof->memory_percent);
		key_strvec(f, "writable", &prof->writable);
		key_strvec(f, "state", &prof->state_dirs);
		key_strvec(f, "deny", &prof->deny_read);
		key_strvec(f, "create", &prof->deny_create_patterns);
		key_strvec(f, "wdeny", &prof->write_denies);
		key_strvec(f, "protect", &prof->protected_paths);
		/* Not all of it is in the argv (what does not exist is the
		 * supervisor's), and the pane's PATH adds to it. */
		key_strvec(f, "hostrun", &paths.host_run);
		for (size_t i = 0; i < argv.n; i++) {
			fprintf(f, "%s\x1f", argv.v[i]);
			if (argv.v[i][0] == '/')
				key_path(f, argv.v[i]);
		}
	} else if (f != NULL) {
		fclose(f);
		free(key);
		key = NULL;
		f = NULL;
	}
	if (f != NULL && fclose(f) != 0) {
		free(key);
		key = NULL;
	}
	strvec_free(&argv);
	native_paths_free(&paths);
	return key;
}

/* Kill a prepared sandbox and reap it: bwrap leads its PTY's session and
 * is a child of the server; SIGKILL ends it at once and, through
 * --die-with-parent, its namespace. */
static void ahead_discard(void)
{
	struct launch_result *res = &ahead.res;

	if (!ahead.ready)
		return;
	ahead.ready = false;
	backend_signal_tree(res->pid, native_of(res)->sandbox_init, SIGKILL);
	while (waitpid(res->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (res->status_fd >= 0)
		close(res->status_fd);
	res->status_fd = -1;
	if (res->master >= 0)
		close(res->master);
	res->master = -1;
	native_close_confirm_fds(res);
	native_remove_mask_file(res);
	limits_group_free(res->limits);
	res->limits = NULL;
	free(res->state);
	res->state = NULL;
	free(ahead.key);
	ahead.key = NULL;
}

/* The command and environment for a prepared shim: "sandmux-shim 2
 * run", NUL, argv NUL-separated, an empty string, the environment. */
static int ahead_send_run(int sock, const struct launch_request *req,
			  const struct sandbox_profile *prof)
{
	static const char hello[] = SHIM_HELLO " run";
	struct strvec envp = STRVEC_INIT;
	char *msg = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (native_pane_envp(req, prof, &envp) != 0 || (f = open_memstream(&msg, &len)) == NULL) {
		strvec_free(&envp);
		return -1;
	}
	fwrite(hello, 1, sizeof hello, f);
	for (size_t i = 0; req->spec->command[i] != NULL; i++)
		fwrite(req->spec->command[i], 1, strlen(req->spec->command[i]) + 1, f);
	fputc('\0', f);
	for (size_t i = 0; i < envp.n; i++)
		if (envp.v[i][0] != '\0')
			fwrite(envp.v[i], 1, strlen(envp.v[i]) + 1, f);
	if (fclose(f) == 0 && len <= SHIM_RUN_MAX && send(sock, msg, len, MSG_NOSIGNAL) == (ssize_t)len)
		rc = 0;
	free(msg);
	strvec_free(&envp);
	return rc;
}

/* Is the prepared sandbox the one this launch would build, and still
 * waiting for its command? */
static bool ahead_fits(const struct launch_request *req, const struct sandbox_profile *prof,
		       const char *home)
{
	struct pollfd pfd = {.fd = native_of(&ahead.res)->shim->sock, .events = POLLIN};
	char *key = ahead_key(req, prof, home);
	/* Hung up or talking (a failure): it is not waiting any more. */
	bool fits = key != NULL && strcmp(key, ahead.key) == 0 && poll(&pfd, 1, 0) == 0 &&
		    !native_bwrap_gone(ahead.res.pid);

	free(key);
	return fits;
}

/* Take the prepared sandbox over for this launch if it is exactly the
 * one the launch would build, and still waiting: 0 taken (res filled,
 * the command on its way), -1 start cold.  An unfit prepared sandbox is
 * left for native_prepare_next to throw away: killing and reaping it
 * here would delay this launch. */
int native_prepared_take(const struct launch_request *req, const struct sandbox_profile *prof,
		     const char *home, struct launch_result *res)
{
	if (!ahead.ready)
		return -1;
	if (!ahead_fits(req, prof, home)) {
		log_debug("%s: the prepared sandbox does not fit, starting cold", __func__);
		return -1;
	}
	pty_resize(ahead.res.master, req->rows, req->cols);
	if (ahead_send_run(native_of(&ahead.res)->shim->sock, req, prof) != 0) {
		ahead_discard();
		return -1;
	}
	/* The prepared sandbox's result, with its state, becomes the
	 * launch's: the fresh one goes. */
	free(res->state);
	*res = ahead.res;
	ahead.res.state = NULL;
	ahead.ready = false;
	free(ahead.key);
	ahead.key = NULL;
	native_of(res)->shim->pane_id = req->pane_id;
	snprintf(native_of(res)->shim->session, sizeof native_of(res)->shim->session, "%s",
		 req->spec->session_id != NULL ? req->spec->session_id : "");
	native_of(res)->shim->prof = prof;
	native_of(res)->launched_ms = native_monotonic_ms();
	return 0;
}

void native_prepared_remember(const struct launch_request *req, const struct sandbox_profile *prof,
			  const char *home)
{
	if (!ahead_enabled() || req->egress_dir != NULL || req->deny_paths != NULL)
		return;
	free(ahead.profile);
	free(ahead.cwd);
	free(ahead.home);
	free(ahead.path_env);
	ahead.profile = xstrdup(prof->name);
	ahead.cwd = xstrdup(req->spec->workdir);
	ahead.home = xstrdup(home);
	ahead.path_env = NULL;
	/* The PATH's directories under $HOME are host-run (hostrun.h): the
	 * next sandbox is prepared for the same ones. */
	for (size_t i = 0; req->spec->env != NULL && req->spec->env[i] != NULL; i++)
		if (strncmp(req->spec->env[i], "PATH=", 5) == 0) {
			free(ahead.path_env);
			ahead.path_env = xstrdup(req->spec->env[i]);
		}
}

void native_prepare_next(void)
{
	char *envp[] = {ahead.path_env != NULL ? ahead.path_env : "PATH=/usr/bin:/bin", NULL};
	/* The last launch's spec without its command: the shim waits for
	 * the next one's. */
	const struct sandbox_spec spec = {
	    .network_enabled = true,
	    .backend = SANDBOX_NATIVE,
	    .profile = ahead.profile,
	    .workdir = ahead.cwd,
	    .home = ahead.home,
	    .env = envp,
	    .nenv = 1,
	};
	struct launch_request req = {
	    .spec = &spec,
	    .rows = 24,
	    .cols = 80,
	};
	struct launch_result *res = &ahead.res;
	const struct sandbox_profile *prof;
	struct sm_error err = {0};
	const char *home;

	if (ahead.profile == NULL || ahead.cwd == NULL || ahead.home == NULL)
		return;
	if (backend_check(SANDBOX_NATIVE, &err) != 0 || native_check_request(&req, &prof, &home, &err) != 0) {
		ahead_discard();
		return;
	}
	if (ahead.ready && ahead_fits(&req, prof, home))
		return;
	ahead_discard();
	native_result_init(res);
	ahead.key = ahead_key(&req, prof, home);
	if (ahead.key == NULL || native_make_mask_file(res, &err) != 0)
		goto fail;
	if (native_open_status(res, &err) != 0) {
		native_remove_mask_file(res);
		goto fail;
	}
	if (native_spawn_bwrap(&req, prof, home, res, native_of(res)->status_file, &err) != 0) {
		native_shim_free(res);
		close(res->status_fd);
		res->status_fd = -1;
		native_close_confirm_fds(res);
		native_remove_mask_file(res);
		goto fail;
	}
	/* Room for a whole environment in the run message. */
	setsockopt(native_of(res)->shim->sock, SOL_SOCKET, SO_SNDBUF, &(int){SHIM_RUN_MAX + 4096}, sizeof(int));
	ahead.ready = true;
	log_debug("%s: bwrap pid %d waits for the next %s pane in %s", __func__, (int)res->pid,
		  prof->name, spec.workdir);
	return;
fail:
	log_debug("%s: not prepared: %s", __func__, err.message);
	free(res->state);
	res->state = NULL;
	free(ahead.key);
	ahead.key = NULL;
}

void native_prepared_discard(void)
{
	ahead_discard();
	free(ahead.profile);
	free(ahead.cwd);
	free(ahead.home);
	free(ahead.path_env);
	ahead.profile = ahead.cwd = ahead.home = ahead.path_env = NULL;
}
