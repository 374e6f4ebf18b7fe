/*
 * none: the pane's command runs on the host, on its own PTY, with nothing
 * around it.  It is what a pane is unless someone asked for more
 * (invariant 3), and it is confirmed at once: there is no contained child
 * to wait for.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "pty.h"

static int none_launch(const struct launch_request *req, struct launch_result *res,
		       struct sm_error *err)
{
	struct pty_spawn_opts opts = {
	    .argv = req->spec->command,
	    .envp = req->spec->env,
	    .cwd = req->spec->workdir,
	    .rows = req->rows,
	    .cols = req->cols,
	};
	char msg[256];

	memset(res, 0, sizeof *res);
	res->master = -1;
	res->status_fd = -1;
	if (pty_spawn(&opts, &res->master, &res->pid, msg, sizeof msg) < 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "%s", msg);
		return -1;
	}
	res->backend = SANDBOX_NONE;
	res->confirmed = true;
	snprintf(res->details, sizeof res->details, "host");
	return 0;
}

static int none_confirm(struct launch_result *res, struct sm_error *err)
{
	return 1;
}

/* The pane's process leads its PTY session; its jobs have their own
 * process groups in the same session, and all of them stop together. */
static int none_suspend(struct launch_result *res)
{
	return backend_signal_tree(res->pid, 0, SIGSTOP);
}

static int none_resume(struct launch_result *res, struct sm_error *err)
{
	(void)err;
	return backend_signal_tree(res->pid, 0, SIGCONT);
}

static void none_destroy(struct launch_result *res)
{
	backend_kill_tree(res->pid, 0);
}

const struct backend_ops backend_none_ops = {
    .name = "none",
    .id = SANDBOX_NONE,
    .launch = none_launch,
    .confirm = none_confirm,
    .suspend = none_suspend,
    .resume = none_resume,
    .destroy = none_destroy,
};
