/*
 * native: the Linux OS-native sandbox.  The pane's command runs under
 * bubblewrap with the `terminal` profile (bwrap.c) on the pane's own PTY.
 *
 * bwrap is started without --new-session, so the shell inside keeps the
 * PTY as its controlling terminal and job control works.  The pane is
 * only labelled native once bwrap reports, on --json-status-fd, the pid of
 * the child it cloned into the new namespaces: from then on every process
 * that can run is inside them (if bwrap's setup fails after that, bwrap
 * exits before exec and nothing ran outside).  If the status pipe closes
 * first, the launch failed; bwrap's own message went to the PTY, so it is
 * in the pane's output, and the error says so.
 *
 * There is no fallback: whatever goes wrong here fails the launch.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "bwrap.h"
#include "error.h"
#include "log.h"
#include "pty.h"

/* An empty mode-000 file for bwrap to bind over denied files.  It lives
 * until the pane is destroyed: bwrap binds it after reporting the child
 * pid, so removing it at confirmation would race the setup. */
static int make_mask_file(struct launch_result *res, struct sm_error *err)
{
	int fd;

	snprintf(res->mask_file, sizeof res->mask_file, "/tmp/sandmux-mask-XXXXXX");
	fd = mkostemp(res->mask_file, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0) != 0) {
		sm_error_set(err, "launch_failed", "cannot create the sandbox mask file: %s",
			     strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(res->mask_file);
		}
		res->mask_file[0] = '\0';
		return -1;
	}
	close(fd);
	return 0;
}

static void remove_mask_file(struct launch_result *res)
{
	if (res->mask_file[0] != '\0')
		unlink(res->mask_file);
	res->mask_file[0] = '\0';
}

/* The terminal profile's deny list plus what this server adds: the user's
 * runtime directory (the sandmux socket, the session bus and systemd
 * --user all live there, and each can start processes outside the
 * sandbox on request) and whatever the caller names. */
static int deny_list(const struct launch_request *req, struct strvec *deny)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");

	for (size_t i = 0; bwrap_terminal_deny_read[i] != NULL; i++)
		if (strvec_push(deny, bwrap_terminal_deny_read[i]) != 0)
			return -1;
	if (runtime != NULL && runtime[0] == '/' && strvec_push(deny, runtime) != 0)
		return -1;
	for (size_t i = 0; req->deny_paths != NULL && req->deny_paths[i] != NULL; i++)
		if (strvec_push(deny, req->deny_paths[i]) != 0)
			return -1;
	return 0;
}

static int check_request(const struct launch_request *req, const char **home, struct sm_error *err)
{
	if (req->profile != NULL && strcmp(req->profile, "terminal") != 0) {
		sm_error_set(err, "launch_failed",
			     "the native backend has no profile \"%s\" yet (only terminal)",
			     req->profile);
		return -1;
	}
	*home = req->home != NULL ? req->home : getenv("HOME");
	if (*home == NULL || (*home)[0] != '/') {
		sm_error_set(err, "launch_failed",
			     "the terminal profile needs an absolute $HOME to make writable");
		return -1;
	}
	if (req->cwd == NULL || req->cwd[0] != '/') {
		sm_error_set(err, "launch_failed",
			     "the terminal profile needs an absolute working directory");
		return -1;
	}
	return 0;
}

static int spawn_bwrap(const struct launch_request *req, const char *home,
		       struct launch_result *res, int status_write, struct sm_error *err)
{
	const struct probe_result *probe = backend_probe_result();
	struct strvec deny = STRVEC_INIT, argv = STRVEC_INIT;
	struct bwrap_terminal_input in = {
	    .bwrap = probe->native_bwrap_path,
	    .home = home,
	    .cwd = req->cwd,
	    .mask_file = res->mask_file,
	    .status_fd = status_write,
	    .argv = req->argv,
	};
	struct pty_spawn_opts opts = {
	    .envp = req->envp,
	    .cwd = req->cwd,
	    .rows = req->rows,
	    .cols = req->cols,
	    .keep_fds = &status_write,
	    .nkeep_fds = 1,
	};
	char msg[256];
	int rc = -1;

	if (deny_list(req, &deny) != 0) {
		sm_error_set(err, "launch_failed", "out of memory");
		goto done;
	}
	in.deny_read = (const char *const *)deny.v;
	if (bwrap_terminal_argv(&in, &argv, err) != 0)
		goto done;
	opts.argv = argv.v;
	if (pty_spawn(&opts, &res->master, &res->pid, msg, sizeof msg) < 0) {
		sm_error_set(err, "launch_failed", "cannot start bubblewrap: %s", msg);
		goto done;
	}
	rc = 0;
done:
	strvec_free(&deny);
	strvec_free(&argv);
	return rc;
}

static int native_launch(const struct launch_request *req, struct launch_result *res,
			 struct sm_error *err)
{
	const char *home;
	int status[2];

	memset(res, 0, sizeof *res);
	res->master = -1;
	res->status_fd = -1;
	/* Never launch on a host the probe did not vouch for. */
	if (backend_check(SANDBOX_NATIVE, err) != 0 || check_request(req, &home, err) != 0)
		return -1;
	if (make_mask_file(res, err) != 0)
		return -1;
	if (pipe2(status, O_CLOEXEC) != 0) {
		sm_error_set(err, "launch_failed", "pipe: %s", strerror(errno));
		remove_mask_file(res);
		return -1;
	}
	if (spawn_bwrap(req, home, res, status[1], err) != 0) {
		close(status[0]);
		close(status[1]);
		remove_mask_file(res);
		return -1;
	}
	/* Only bwrap may hold the write end, so its exit is our EOF. */
	close(status[1]);
	fcntl(status[0], F_SETFL, fcntl(status[0], F_GETFL) | O_NONBLOCK);
	res->status_fd = status[0];
	res->backend = SANDBOX_NATIVE;
	res->confirmed = false;
	snprintf(res->details, sizeof res->details, "%s, profile terminal",
		 backend_probe_result()->native_tool);
	log_debug("%s: bwrap pid %d, status fd %d", __func__, (int)res->pid, res->status_fd);
	return 0;
}

/* One JSON document from bwrap: {"child-pid": N, ...namespace ids}. */
static void parse_status_line(struct launch_result *res, const char *line)
{
	cJSON *json = cJSON_Parse(line);
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(json, "child-pid");

	if (cJSON_IsNumber(pid) && pid->valuedouble > 0) {
		res->child_pid = (pid_t)pid->valuedouble;
		res->confirmed = true;
	}
	cJSON_Delete(json);
}

/* Parse every complete line in the buffer, keep the rest. */
static void parse_status_buffer(struct launch_result *res)
{
	char *start = res->status_buf, *nl;

	while (!res->confirmed &&
	       (nl = memchr(start, '\n', res->status_len - (size_t)(start - res->status_buf))) !=
		   NULL) {
		*nl = '\0';
		parse_status_line(res, start);
		start = nl + 1;
	}
	res->status_len -= (size_t)(start - res->status_buf);
	memmove(res->status_buf, start, res->status_len);
}

static int native_confirm(struct launch_result *res, struct sm_error *err)
{
	if (res->confirmed)
		return 1;
	for (;;) {
		size_t room = sizeof res->status_buf - 1 - res->status_len;
		ssize_t n;

		if (room == 0) {
			/* A status line this long is not bwrap's. */
			sm_error_set(err, "launch_failed",
				     "bubblewrap sent an unreadable status line");
			return -1;
		}
		n = read(res->status_fd, res->status_buf + res->status_len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			break;
		res->status_len += (size_t)n;
		parse_status_buffer(res);
		if (res->confirmed) {
			log_debug("%s: contained child pid %d", __func__, (int)res->child_pid);
			return 1;
		}
	}
	sm_error_set(err, "launch_failed",
		     "bubblewrap exited before starting the shell (its message is in the pane's "
		     "output)");
	return -1;
}

/* Stop or continue everything: the PTY session and, in case something
 * inside left it with setsid(), every process in the sandbox's pid
 * namespace. */
static int native_suspend(struct launch_result *res)
{
	return backend_signal_tree(res->pid, res->child_pid, SIGSTOP);
}

static int native_resume(struct launch_result *res)
{
	return backend_signal_tree(res->pid, res->child_pid, SIGCONT);
}

/* bwrap leads the session; once it dies, --die-with-parent kills the
 * namespace's init and the kernel kills every process in the namespace. */
static void native_destroy(struct launch_result *res)
{
	backend_kill_tree(res->pid, res->child_pid);
	remove_mask_file(res);
}

const struct backend_ops backend_native_ops = {
    .name = "native",
    .id = SANDBOX_NATIVE,
    .launch = native_launch,
    .confirm = native_confirm,
    .suspend = native_suspend,
    .resume = native_resume,
    .destroy = native_destroy,
};
