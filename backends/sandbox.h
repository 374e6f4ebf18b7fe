/*
 * sandbox: the sandbox model shared by every backend (see docs/design.md,
 * "The sandbox model"): what a sandbox is asked to be (SandboxSpec), what it
 * became (SandboxHandle), its states, and the events and violations it
 * reports.  Each type round-trips through cJSON with the camelCase field
 * names of the design.
 */
#ifndef SANDMUX_SANDBOX_H
#define SANDMUX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cJSON;
struct sm_error;
struct strvec;

enum sandbox_backend { SANDBOX_NONE = 0, SANDBOX_NATIVE, SANDBOX_MICROVM, SANDBOX_BACKEND_COUNT };

enum sandbox_state {
	SANDBOX_CREATED = 0,
	SANDBOX_WARM,
	SANDBOX_ACTIVE,
	SANDBOX_SUSPENDED,
	SANDBOX_DESTROYED,
	SANDBOX_ERROR,
};

enum sandbox_mode { SANDBOX_MODE_CHAT = 0, SANDBOX_MODE_REVIEW, SANDBOX_MODE_PLAN, SANDBOX_MODE_ORCHESTRATE };

struct sandbox_bind_mount {
	char *host_path;
	char *guest_path;
	bool read_only;
};

struct sandbox_spec {
	char *session_id;
	char *workspace_id;
	char *agent_id; /* optional */
	struct sandbox_bind_mount *bind_mounts;
	size_t nbind_mounts;
	bool network_enabled; /* default true */
	char **egress_allowlist;
	size_t negress_allowlist;
	char *guest_workdir; /* optional */
	enum sandbox_mode mode;
	char **protected_paths;
	size_t nprotected_paths;
	char **runner_state_dirs;
	size_t nrunner_state_dirs;
	char **exec_grant_roots; /* macOS only */
	size_t nexec_grant_roots;
};

struct sandbox_handle {
	char *session_id;
	enum sandbox_backend backend;
	enum sandbox_state state;
	char *error; /* optional */
	struct cJSON *details; /* object, owned */
};

enum sandbox_event_kind {
	SANDBOX_EV_STDOUT,
	SANDBOX_EV_STDERR,
	SANDBOX_EV_EXIT,
	SANDBOX_EV_STARTING,
	SANDBOX_EV_READY,
	SANDBOX_EV_KILLED,
	SANDBOX_EV_VIOLATION,
};

struct sandbox_violation {
	char action[32]; /* file-read*, file-write*, file-write-create, network-outbound, process-exec */
	char *target; /* path or host:port */
	char *raw; /* optional */
	int pane;
	double time; /* seconds since the epoch */
	pid_t pid;
};

/* Names. */
const char *sandbox_backend_name(enum sandbox_backend b);
const char *sandbox_state_name(enum sandbox_state s);
const char *sandbox_mode_name(enum sandbox_mode m);
/* Strict parse for the command line and protocol: unknown -> -1 with
 * err code invalid_backend listing the valid names. */
int sandbox_backend_parse(const char *name, enum sandbox_backend *out, struct sm_error *err);
/* Lenient parse for stored values (session files, layouts): NULL or
 * unknown -> none, "docker" -> native; each substitution is logged. */
enum sandbox_backend backend_from_name(const char *name);

/* JSON round-trips.  *_from_json returns 0 or -1 with err set. */
struct cJSON *sandbox_spec_to_json(const struct sandbox_spec *spec);
int sandbox_spec_from_json(const struct cJSON *json, struct sandbox_spec *out, struct sm_error *err);
void sandbox_spec_free(struct sandbox_spec *spec);
struct cJSON *sandbox_handle_to_json(const struct sandbox_handle *h);
int sandbox_handle_from_json(const struct cJSON *json, struct sandbox_handle *out, struct sm_error *err);
void sandbox_handle_free(struct sandbox_handle *h);
struct cJSON *sandbox_violation_to_json(const struct sandbox_violation *v);
int sandbox_violation_from_json(const struct cJSON *json, struct sandbox_violation *out,
				struct sm_error *err);
void sandbox_violation_free(struct sandbox_violation *v);

/* Deny paths (docs/design.md: every deny path is emitted in both spellings).
 * sandbox_expand_home turns a leading "~" into home (malloc'd; NULL when
 * out of memory).  sandbox_deny_spellings pushes path as written and, when
 * different, its symlink-resolved form (realpath), skipping spellings
 * already in out; globs (containing '*' or '?') and paths that do not
 * resolve are pushed as written only.  Returns 0, or -1 out of memory. */
char *sandbox_expand_home(const char *path, const char *home);
bool sandbox_path_is_glob(const char *path);
int sandbox_deny_spellings(const char *path, struct strvec *out);

#endif
