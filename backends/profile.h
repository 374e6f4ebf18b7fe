/*
 * profile: what a native sandbox lets a pane do, by name.
 *
 * Two profiles are built in: `terminal` (the default: $HOME and the
 * working directory writable, network open, secrets unreadable) and
 * `agent` (only the working directory writable, new secret-named files
 * refused, mandatory write-denies, network through the session's egress
 * proxies).  So are the presets users know from sandbox runners, each a
 * terminal profile with less: `read_only` (writes only in the
 * sandbox's temp), `workspace_write` (the work tree, its git metadata,
 * the temp and the trash), `delete_guard` (writes as terminal, deletes
 * only in the work tree and the temp, `rm` moving to the trash) and
 * `full_access`, which is no sandbox: a pane asking for it runs as
 * `none`.  The config's "profiles" object defines more, each starting
 * from terminal or agent ("base") and changing the fields it names; see
 * docs/config.md.
 *
 * A profile is data: the native backend turns it into bwrap mounts and
 * the supervisor's policy (backends/native.c).  Paths may start with
 * "~/", which means the host's $HOME at launch.
 *
 * Ownership: a profile owns its lists; profile_free() releases them.
 * The registry (profile_registry_set) takes the config's profiles over
 * for the server's life.
 */
#ifndef SANDMUX_PROFILE_H
#define SANDMUX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox.h"
#include "strvec.h"

struct cJSON;
struct sm_error;

#define PROFILE_NAME_MAX 32

struct sandbox_profile {
	char name[PROFILE_NAME_MAX + 1];
	char base[PROFILE_NAME_MAX + 1]; /* "terminal" or "agent" */
	/* chat: the writable roots are writable; review, plan, orchestrate:
	 * they are read-only too (state_dirs stay writable). */
	enum sandbox_mode mode;
	bool home_writable;   /* $HOME is a writable root (in mode chat) */
	bool proxied_network; /* network only through the egress proxies */
	bool ask_network;     /* "ask": proxied, and an unknown host waits for a person */
	/* Deletes (unlink, rmdir, a rename out of its directory) only in the
	 * working directory and the sandbox's own roots (/tmp). */
	bool delete_guard;
	/* The user's trash ($XDG_DATA_HOME/Trash) is a writable root and
	 * the pane's `rm` moves files there (backends/trash-rm.sh). */
	bool trash;
	/* full_access: not a sandbox; a pane asking for it runs as none. */
	bool not_a_sandbox;
	struct strvec writable;	  /* more writable roots (mode chat) */
	struct strvec state_dirs; /* writable in every mode */
	struct strvec deny_read;  /* unreadable, on top of the terminal list */
	struct strvec deny_create_patterns; /* new names refused (fnmatch) */
	struct strvec write_denies;	    /* component runs kept read-only */
	struct strvec protected_paths;	    /* never writable, any mode */
	struct strvec pass_env; /* secret-looking variables passed anyway */
	/* hosts a proxied pane may reach besides the session's allowlist */
	struct strvec egress_allowlist;
	/* macOS: interpreters (absolute files) that may run even inside a
	 * writable root, where nothing else may (a venv's python); Linux
	 * has no such exec deny, so nothing to except. */
	struct strvec exec_interpreters;
	/* macOS, proxied network: the Unix sockets (absolute paths) the
	 * pane may connect to besides DNS.  Linux: unused; its supervisor
	 * refuses every host socket but its own list (docs/config.md). */
	struct strvec unix_sockets;
	/* Per pane (backends/sandbox-limits.c), 0 for none: processes and threads;
	 * memory in bytes, or memory_percent of the host's RAM. */
	long pids_max;
	unsigned long long memory_max;
	int memory_percent;
};

/* The built-in limits: enough for builds and test suites, and a bound
 * on a fork bomb or a memory eater (docs/security.md). */
#define PROFILE_PIDS_MAX_DEFAULT 1024
#define PROFILE_MEMORY_PERCENT_DEFAULT 50

/* "terminal", "agent", the presets, then the registry's; NULL when
 * unknown. */
const struct sandbox_profile *profile_find(const char *name);

/* The index-th name profile_find knows (the built-in ones, then the
 * config's), or NULL past the last: what the prompt's Tab completes. */
const char *profile_name_at(size_t index);

/* The names profile_find knows, comma-separated, for messages. */
void profile_names(char *buf, size_t size);

/* Is name one of the built-in profiles (terminal, agent, a preset)? */
bool profile_is_builtin(const char *name);

/* One entry of the config's "profiles" object.  Errors name the field
 * (code config_invalid or config_unknown_key); *out is left empty. */
int profile_from_json(const char *name, const struct cJSON *json, struct sandbox_profile *out,
		      struct sm_error *err);
void profile_free(struct sandbox_profile *profile);

/* The config's profiles, for profile_find; the registry takes them over
 * (the array and its lists) and frees the ones it held before. */
void profile_registry_set(struct sandbox_profile *profiles, size_t n);
/* One entry more on a list field ("writable", "egress_allowlist", ...)
 * of the registry's profile name, checked as the config's reader checks
 * it (a grant written to the config: new panes get it).  In place, so a
 * profile a launch in progress points at stays valid.  0, or -1 with err
 * (config_invalid, invalid_profile, out_of_memory). */
int profile_registry_append(const char *name, const char *field, const char *entry,
			    struct sm_error *err);

#endif
