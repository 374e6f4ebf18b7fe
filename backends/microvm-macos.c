/*
 * microvm-macos: the microvm backend of a macOS build, which has none
 * yet.  The Linux one (microvm.c) runs qemu under KVM or TCG with its
 * work tree and home served by diod over 9p and its network through
 * the host's egress proxies; qemu with Hypervisor.framework and a 9p
 * server are not ported.  So the probe says unavailable, with the
 * reason, and a request for microvm fails with it (invariant 2: fail,
 * don't mislabel; invariant 4: an explicit request never falls back).
 * Compiled only on macOS; never compiled by Apple's compiler nor run
 * (docs/backends.md).
 */
#ifdef __APPLE__

#include <stdio.h>

#include "backend.h"
#include "error.h"

static void microvm_probe(struct probe_result *r)
{
	struct microvm_probe *m = &r->microvm;

	m->available = false;
	m->qemu_path = m->diod_path = m->dir = "";
	snprintf(m->reason, sizeof m->reason, "%s",
		 r->sandbox_off ? "disabled by --sandbox off"
				: "the microvm backend is Linux-only (no macOS port yet)");
	m->hint[0] = '\0';
}

static int microvm_check(const struct probe_result *probe, struct sm_error *err)
{
	const struct microvm_probe *m = &probe->microvm;

	return backend_check_record("microvm", probe->sandbox_off, m->available, m->reason, m->hint,
				    false, err);
}

/* Never reached: the check refuses every launch first. */
static int microvm_launch(const struct launch_request *req, struct launch_result *res,
			  struct sm_error *err)
{
	(void)req;
	(void)res;
	if (microvm_check(backend_probe_result(), err) == 0)
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "microvm: no macOS port yet");
	return -1;
}

static void microvm_destroy(struct launch_result *res)
{
	(void)res;
}

void microvm_prepare_next(void)
{
}

void microvm_prepared_discard(void)
{
}

const struct backend_ops backend_microvm_ops = {
    .name = "microvm",
    .id = SANDBOX_MICROVM,
    .launch = microvm_launch,
    .destroy = microvm_destroy,
    .check = microvm_check,
    .probe = microvm_probe,
};

#endif
