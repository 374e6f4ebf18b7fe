/*
 * microvm-internal: what backends/microvm.c and its prepared VM
 * (microvm-prepared.c) share and nothing else includes: a VM's key, the
 * start and the end of a VM, and the two calls of the prepared VM a
 * launch makes.
 */
#ifndef SANDMUX_MICROVM_INTERNAL_H
#define SANDMUX_MICROVM_INTERNAL_H

#include <limits.h>
#include <stdbool.h>

#include "backend.h"
#include "error.h"
#include "strvec.h"

struct microvm_vm; /* a launch's VM (microvm.c) */

/* What a VM's qemu command line depends on, besides the image: a VM
 * booted for one key serves any launch with the same key. */
struct vm_key {
	char work[PATH_MAX]; /* "" : no work tree shared */
	bool work_ro;
	bool open_net;
	const char *egress_dir; /* proxied: per pane, never prepared */
	/* The host-run paths inside a writable work tree that exist at
	 * launch, resolved, one per line: bound read-only in the work
	 * tree's diod sandbox and in the guest (host_run_in_work). */
	char host_run[16384];
	/* Every host-run path in the work tree, there or not, resolved as
	 * far as it exists: what its diod refuses to create (diod-guard.c). */
	char host_run_guard[16384];
	char guard_lib[PATH_MAX];     /* sandmux-diod-guard.so */
	char net_guard_lib[PATH_MAX]; /* sandmux-qemu-net-guard.so */
	/* The profile, whose limits the VM's group has. */
	char profile[64];
	/* The deny-read roots, resolved, one per line: what every share's
	 * diod refuses to open (diod-guard.c). */
	char deny[16384];
	/* The copy-on-write home (home-layer.h), when the writable work
	 * tree holds $HOME: $HOME resolved ("" : none), the profile's
	 * layer. */
	char layer_home[PATH_MAX];
	char layer_dir[PATH_MAX];
};

/* The launch's VM (launch_result.state), NULL once released. */
static inline struct microvm_vm *vm_of(const struct launch_result *res)
{
	return res->state;
}

/* microvm.c: boot a VM of key on a new PTY (res->master, res->pid,
 * res->state), waiting for its launch; warm: the files its agent copies
 * in ahead, or NULL.  Free a VM's own state. */
int microvm_vm_start(const struct probe_result *probe, const struct vm_key *key,
		     const struct strvec *warm, int rows, int cols, struct launch_result *res,
		     struct sm_error *err);
void microvm_vm_free(struct microvm_vm *vm);
/* Is path root or under it; under one of the lines of list? */
bool microvm_inside(const char *path, const char *root);
bool microvm_inside_any(const char *path, const char *list);

/* microvm-prepared.c: remember a launch's key and shell, for the next
 * VM to be prepared like it; take the prepared VM for key over into res
 * if there is one and its qemu still runs. */
void microvm_prepared_remember(const struct vm_key *key, const struct launch_request *req);
bool microvm_prepared_take(const struct vm_key *key, struct launch_result *res);

#endif
