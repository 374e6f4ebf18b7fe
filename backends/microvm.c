/*
 * microvm: the pane's shell in a qemu -M microvm guest (docs/design.md,
 * "microvm").  Not built yet: the backend is registered so that a request
 * for it gets a clear refusal rather than an unknown name, and the probe
 * reports it unavailable, so it is never offered or silently replaced.
 */
#include <string.h>

#include "backend.h"
#include "error.h"

static int microvm_launch(const struct launch_request *req, struct launch_result *res,
			  struct sm_error *err)
{
	memset(res, 0, sizeof *res);
	res->master = -1;
	res->status_fd = -1;
	sm_error_set(err, "backend_unavailable", "microvm backend is not available yet");
	return -1;
}

static int microvm_confirm(struct launch_result *res, struct sm_error *err)
{
	sm_error_set(err, "backend_unavailable", "microvm backend is not available yet");
	return -1;
}

static int microvm_signal(struct launch_result *res)
{
	return -1;
}

static void microvm_destroy(struct launch_result *res)
{
}

const struct backend_ops backend_microvm_ops = {
    .name = "microvm",
    .id = SANDBOX_MICROVM,
    .launch = microvm_launch,
    .confirm = microvm_confirm,
    .suspend = microvm_signal,
    .resume = microvm_signal,
    .destroy = microvm_destroy,
};
