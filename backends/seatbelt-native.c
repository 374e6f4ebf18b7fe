/*
 * seatbelt-native: the native backend on macOS: the pane's command runs
 * under sandbox-exec with the profile seatbelt.c builds, confirmed by
 * the helper inside (seatbelt-launch.h), its denials read from one `log
 * stream` per pane (seatbelt-log.h).  Compiled only on macOS; the parts
 * that need no Mac are in seatbelt-launch.c and seatbelt-log.c, tested
 * on Linux.  Never compiled by Apple's compiler nor run: checked on
 * Linux by make macos-check only (docs/backends.md).
 *
 * What the Linux server asks its supervisor (supervisor.h) and its
 * prepared panes is answered here too: macOS has no supervisor (the
 * kernel enforces the profile) and prepares no pane ahead.
 */
#ifdef __APPLE__

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "hostrun.h"
#include "os.h"
#include "profile.h"
#include "pty.h"
#include "seatbelt-launch.h"
#include "seatbelt-log.h"
#include "seatbelt.h"
#include "strvec.h"
#include "subpath.h"
#include "supervisor.h"
#include "xalloc.h"

/* A program beside the server's binary (the build tree, PREFIX/bin). */
static int sibling(const char *name, char *out, size_t size)
{
	char self[PATH_MAX];
	const char *slash;

	if (os_self_exe(self, sizeof self) != 0 || (slash = strrchr(self, '/')) == NULL ||
	    snprintf(out, size, "%.*s/%s", (int)(slash - self), self, name) >= (int)size)
		return -1;
	return access(out, X_OK);
}

extern char **environ;

struct seatbelt_pane {
	int pane;
	char confirm_buf[256];
	size_t confirm_len;
	int log_fd; /* log stream's stdout, non-blocking */
	pid_t log_pid;
	struct seatbelt_log_reader reader;
	struct strvec roots; /* where its profile allows writes */
	struct seatbelt_pane *next;
};

/* The live panes, for supervisor_path_writable. */
static struct seatbelt_pane *live_panes;

/* The pane's own temp dir (its TMPDIR, and the session temp of
 * seatbelt.c: writable in every mode, read_only's only writable
 * place), made fresh under the server's TMPDIR.  Left for the system's
 * temp cleaning when the pane ends. */
static int make_pane_tmp(int pane, char *out, size_t size)
{
	const char *base = getenv("TMPDIR");

	if (base == NULL || base[0] != '/')
		base = "/tmp";
	if (snprintf(out, size, "%s/sandmux-%d-pane-%d.XXXXXX", base, (int)getpid(), pane) >=
	    (int)size)
		return -1;
	return mkdtemp(out) != NULL ? 0 : -1;
}

/* envp with TMPDIR set to tmp and, when rm_dir is not NULL, rm_dir
 * first on PATH (the trash's `rm`). */
static int pane_env(char *const *envp, const char *tmp, const char *rm_dir, struct strvec *out)
{
	char *entry = xasprintf("TMPDIR=%s", tmp);
	int rc = strvec_push(out, entry);

	free(entry);
	for (size_t i = 0; rc == 0 && envp != NULL && envp[i] != NULL; i++) {
		if (strncmp(envp[i], "TMPDIR=", 7) == 0)
			continue;
		if (rm_dir != NULL && strncmp(envp[i], "PATH=", 5) == 0) {
			entry = xasprintf("PATH=%s:%s", rm_dir, envp[i] + 5);
			rc = strvec_push(out, entry);
			free(entry);
			continue;
		}
		rc = strvec_push(out, envp[i]);
	}
	return rc;
}

static void start_log_stream(struct seatbelt_pane *sp)
{
	struct strvec argv = STRVEC_INIT;
	posix_spawn_file_actions_t fa;
	int fds[2];

	sp->log_fd = -1;
	if (seatbelt_log_stream_argv(sp->pane, &argv) != 0 || pipe(fds) != 0) {
		strvec_free(&argv);
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawn(&sp->log_pid, argv.v[0], &fa, NULL, argv.v, environ) == 0) {
		sp->log_fd = fds[0];
		fcntl(sp->log_fd, F_SETFL, O_NONBLOCK);
		fcntl(sp->log_fd, F_SETFD, FD_CLOEXEC);
	} else {
		close(fds[0]);
	}
	close(fds[1]);
	posix_spawn_file_actions_destroy(&fa);
	strvec_free(&argv);
}

static int seatbelt_launch(const struct launch_request *req, struct launch_result *res,
			   struct sm_error *err)
{
	const struct sandbox_profile *prof;
	struct seatbelt_input in = {0};
	struct strvec argv = STRVEC_INIT, host_run = STRVEC_INIT, env = STRVEC_INIT;
	struct strvec roots = STRVEC_INIT;
	char *profile = NULL, helper[PATH_MAX], msg[256], tmp[PATH_MAX], rm_dir[PATH_MAX];
	int confirm[2] = {-1, -1}, rc = -1;
	struct pty_spawn_opts opts = {0};

	memset(res, 0, sizeof *res);
	res->master = res->status_fd = -1;
	if (backend_check(SANDBOX_NATIVE, err) != 0)
		return -1;
	prof = profile_find(req->spec->profile);
	if (prof == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "unknown profile %s", req->spec->profile);
		return -1;
	}
	/* Fail, don't mislabel: a proxied profile without its ports would
	 * run with the network shut or open, neither what was asked. */
	if (prof->proxied_network && req->nproxy_ports == 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "the session's egress proxies are not running");
		return -1;
	}
	in.profile = prof;
	in.spec = req->spec;
	in.home = req->spec->home;
	in.cwd = req->spec->workdir;
	in.pane = req->pane_id;
	in.proxy_ports = req->proxy_ports;
	in.nproxy_ports = req->nproxy_ports;
	/* Fail, don't mislabel: a delete_guard pane whose `rm` would
	 * delete is not the preset the user asked for. */
	if (prof->trash && backend_trash_rm_dir(rm_dir, sizeof rm_dir) != 0) {
		sm_error_set(
		    err, SM_ERR_LAUNCH_FAILED,
		    "profile %s needs the trash's rm (sandmux-trash/rm next to the sandmux "
		    "binary, or lib/sandmux/trash/rm); reinstall sandmux",
		    prof->name);
		return -1;
	}
	/* Mandatory denies: the files that decide what the host runs later,
	 * and sandmux's own (hostrun.h). */
	if (hostrun_paths(req->spec->home, req->spec->env, &host_run) != 0 ||
	    make_pane_tmp(req->pane_id, tmp, sizeof tmp) != 0 ||
	    pane_env(req->spec->env, tmp, prof->trash ? rm_dir : NULL, &env) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "seatbelt: cannot set up the pane: %s",
			     strerror(errno));
		goto out;
	}
	in.host_run = (const char *const *)host_run.v;
	in.session_tmp = tmp;
	if (seatbelt_build_profile(&in, &profile, err) != 0 ||
	    seatbelt_writable_roots(&in, &roots, err) != 0)
		goto out;
	if (sibling("sandmux-seatbelt-exec", helper, sizeof helper) != 0 ||
	    pipe(confirm) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "sandmux-seatbelt-exec not found beside sandmux");
		goto out;
	}
	fcntl(confirm[0], F_SETFD, FD_CLOEXEC);
	if (seatbelt_exec_argv(profile, helper, confirm[1], req->spec->command, &argv) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	opts.argv = argv.v;
	opts.envp = env.v;
	opts.cwd = req->spec->workdir;
	opts.rows = req->rows;
	opts.cols = req->cols;
	opts.keep_fds = &confirm[1];
	opts.nkeep_fds = 1;
	if (pty_spawn(&opts, &res->master, &res->pid, msg, sizeof msg) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "sandbox-exec: %s", msg);
		goto out;
	}
	{
		struct seatbelt_pane *sp = xcalloc(1, sizeof *sp);

		sp->pane = req->pane_id;
		sp->roots = roots;
		roots = (struct strvec)STRVEC_INIT;
		sp->next = live_panes;
		live_panes = sp;
		start_log_stream(sp);
		res->state = sp;
	}
	res->status_fd = confirm[0];
	confirm[0] = -1;
	res->backend = SANDBOX_NATIVE;
	res->confirmed = false;
	snprintf(res->details, sizeof res->details, "%s, profile %s",
		 backend_probe_result()->native.tool, prof->name);
	rc = 0;
out:
	if (confirm[0] >= 0)
		close(confirm[0]);
	if (confirm[1] >= 0)
		close(confirm[1]);
	free(profile);
	strvec_free(&argv);
	strvec_free(&host_run);
	strvec_free(&env);
	strvec_free(&roots);
	return rc;
}

static int seatbelt_confirm(struct launch_result *res, struct sm_error *err)
{
	struct seatbelt_pane *sp = res->state;
	char reason[200];
	bool eof = false;
	ssize_t n;
	int rc;

	if (res->confirmed)
		return 1;
	while (sp->confirm_len < sizeof sp->confirm_buf - 1) {
		n = read(res->status_fd, sp->confirm_buf + sp->confirm_len,
			 sizeof sp->confirm_buf - 1 - sp->confirm_len);
		if (n < 0 && errno == EINTR)
			continue;
		eof = n == 0;
		if (n <= 0)
			break;
		sp->confirm_len += (size_t)n;
	}
	rc = seatbelt_confirm_parse(sp->confirm_buf, sp->confirm_len, eof, &res->child_pid, reason,
				    sizeof reason);
	if (rc < 0)
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "%s", reason);
	res->confirmed = rc == 1;
	return rc;
}

static int seatbelt_next_violation(struct launch_result *res, char *action, size_t action_size,
				   char *target, size_t target_size, const char **source)
{
	struct seatbelt_pane *sp = res->state;
	struct seatbelt_denial d;
	char chunk[4096];
	ssize_t n;

	if (sp == NULL || sp->log_fd < 0)
		return 0;
	while (seatbelt_log_next(&sp->reader, sp->pane, &d) == 0) {
		size_t room = seatbelt_log_room(&sp->reader);

		n = read(sp->log_fd, chunk, room < sizeof chunk ? room : sizeof chunk);
		if (n <= 0)
			return 0;
		seatbelt_log_push(&sp->reader, chunk, (size_t)n);
	}
	snprintf(action, action_size, "%s", d.action);
	snprintf(target, target_size, "%s", d.target);
	*source = "kernel";
	return 1;
}

static int seatbelt_suspend(struct launch_result *res)
{
	return backend_signal_tree(res->pid, 0, SIGSTOP);
}

static int seatbelt_resume(struct launch_result *res, struct sm_error *err)
{
	(void)err;
	return backend_signal_tree(res->pid, 0, SIGCONT);
}

static void seatbelt_release(struct launch_result *res)
{
	struct seatbelt_pane *sp = res->state;

	if (sp == NULL)
		return;
	for (struct seatbelt_pane **at = &live_panes; *at != NULL; at = &(*at)->next)
		if (*at == sp) {
			*at = sp->next;
			break;
		}
	strvec_free(&sp->roots);
	if (sp->log_pid > 0)
		kill(sp->log_pid, SIGTERM);
	if (sp->log_fd >= 0)
		close(sp->log_fd);
	free(sp);
	res->state = NULL;
}

static void seatbelt_destroy(struct launch_result *res)
{
	backend_kill_tree(res->pid, 0);
	seatbelt_release(res);
}

/* The native backend's .probe on macOS: sandbox-exec where Apple puts
 * it (never from PATH: a pane's PATH is not the host's word), and a
 * trivial profile really applied. */
static void seatbelt_probe(struct probe_result *r)
{
	char *const argv[] = {SEATBELT_EXEC_PATH, "-p", SEATBELT_PROBE_PROFILE, "/usr/bin/true",
			      NULL};
	char output[512] = "";
	bool exists = access(SEATBELT_EXEC_PATH, X_OK) == 0;
	int rc = exists ? probe_run_capture(argv, output, sizeof output) : -1;

	r->native.bwrap_path = r->native.socat_path = "";
	probe_first_line(output);
	/* probe_run_capture gives an exit code, or -1: as a wait status. */
	seatbelt_probe_decide(exists, rc < 0 ? 0x7f : rc << 8, output, r);
	if (r->sandbox_off) {
		/* The host may be able to; this server will not. */
		r->native.disabled = true;
		r->native.available = false;
		snprintf(r->native.reason, sizeof r->native.reason, "disabled by --sandbox off");
	}
	probe_native_complete();
}

static int seatbelt_check(const struct probe_result *probe, struct sm_error *err)
{
	const struct native_probe *n = &probe->native;

	return backend_check_record("native", n->disabled, n->available, n->reason, n->hint,
				    n->requires_install, err);
}

const struct backend_ops backend_native_ops = {
    .name = "native",
    .id = SANDBOX_NATIVE,
    .launch = seatbelt_launch,
    .confirm = seatbelt_confirm,
    .suspend = seatbelt_suspend,
    .resume = seatbelt_resume,
    .destroy = seatbelt_destroy,
    .next_violation = seatbelt_next_violation,
    .release = seatbelt_release,
    .check = seatbelt_check,
    .probe = seatbelt_probe,
};

/* No pane is prepared ahead on macOS: sandbox-exec starts in a few
 * milliseconds, with nothing like bwrap's namespaces to set up. */
void native_prepare_next(void)
{
}

void native_prepared_discard(void)
{
}

/* supervisor.h on macOS: there is no supervisor thread (Seatbelt's
 * rules are the kernel's), so it never goes away, and the writable
 * places are the live panes' roots. */
int supervisor_start(const struct supervisor_sink *sink)
{
	(void)sink;
	return 0;
}

bool supervisor_gone(int pane_id)
{
	(void)pane_id;
	return false;
}

/* Threat: the server writing a file of its own (a recording) where a
 * sandboxed pane could rewrite it.  Roots only: a mandatory deny inside
 * a root is not looked at, so the answer errs on the side of "yes". */
bool supervisor_path_writable(const char *path, int *pane_id)
{
	for (const struct seatbelt_pane *sp = live_panes; sp != NULL; sp = sp->next)
		if (subpath_of_any(path, &sp->roots)) {
			if (pane_id != NULL)
				*pane_id = sp->pane;
			return true;
		}
	return false;
}

#endif
