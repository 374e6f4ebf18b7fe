/*
 * sandbox-limits: how much of the host one sandbox may take.
 *
 * A native pane's processes share the host's kernel, memory and process
 * table with the server, the other panes and everything else the user
 * runs.  A fork bomb or a memory eater inside must stop at the pane.
 * Each sandbox gets a control group of its own where the server can
 * make one (cgroup v2, or the v1 pids, memory and cpu hierarchies), with
 * pids.max and a memory limit from its profile, and its own share of the
 * CPU; where it cannot, rlimits stand in (RLIMIT_NPROC set by the shim
 * inside the sandbox's user namespace, RLIMIT_DATA per process), and
 * docs/security.md says exactly what those do not hold.
 *
 * The group's counters tell why processes were refused (pids.events) or
 * killed (the memory controller's oom_kill); the server polls them and
 * emits a `killed` event with the reason (src/pane.c).
 *
 * Ownership: a limits_group is the launch's (launch_result.limits);
 * limits_group_free kills what is left in it and removes it.  The
 * server's own directories are removed by limits_shutdown.
 */
#ifndef SANDMUX_LIMITS_H
#define SANDMUX_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;
struct sm_error;
struct sandbox_profile;

struct limits_group;

/* Once at server start: find where groups can be made, remove what a
 * server that died left behind. */
void limits_probe(void);

/* What it found, as a line for the log and `sandmux probe`; NULL before
 * limits_probe. */
const char *limits_probe_summary(void);
/* At server exit, after every pane: remove the server's directories. */
void limits_shutdown(void);
/* Remove the groups a pane left while its last processes were still
 * dying (rmdir said EBUSY); the server calls it on its limits tick. */
void limits_remove_pending(void);

/* Make the next sandbox's groups ahead, empty, if none are waiting: at
 * server start (limits_probe) and after each launch, so that a launch
 * only writes its limits.  Failing here is silent: the launch then makes
 * them itself and fails loudly if it cannot. */
void limits_group_prepare(void);
/* The group for one sandbox, limits from the profile; NULL with err set
 * when the host offers groups and this one cannot be made (the launch
 * fails: never a pane without the limits it was promised). */
struct limits_group *limits_group_new(const struct sandbox_profile *prof, struct sm_error *err);
/* In the child between fork and exec (async-signal-safe; the argument
 * is the group, for pty_spawn_opts.child_setup): join the group, and
 * set the per-process rlimit where no memory group exists.  -1 with
 * errno set when it cannot. */
int limits_child_apply(const void *group);
/* RLIMIT_NPROC for the shim to set inside the user namespace, 0 when a
 * pids group holds the processes instead (or there is no limit). */
long limits_group_nproc(const struct limits_group *g);
/* Refusals and kills since the last poll: 1 and a reason when any. */
int limits_group_poll(struct limits_group *g, char *reason, size_t size);
void limits_group_free(struct limits_group *g);
/* {"pids_max", "memory_max", "pids": "cgroup v1"|"cgroup v2"|"rlimit",
 * "memory": ..., "cgroup": path?}. */
struct cJSON *limits_group_to_json(const struct limits_group *g);


#endif
