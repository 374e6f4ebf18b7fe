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
	/* The launch, as the server builds it for each pane (src/pane.c)
	 * and every backend reads it: the backend and profile asked for,
	 * the host directory the command starts in, the host $HOME the
	 * profile reads, the command and its environment (both
	 * NULL-terminated).  The environment never goes into JSON: it is
	 * the server's and the pane's, secrets withheld or not. */
	enum sandbox_backend backend;
	char *profile;
	char *workdir;
	char *home;
	char **command;
	size_t ncommand;
	char **env;
	size_t nenv;
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

/* One violation, whoever refused it: the native supervisor, the egress
 * proxies, a microvm's guards on the host or its guest agent, macOS's
 * sandbox log.  Its one JSON form is the "violation" event of
 * docs/protocol.md ("Violations"), written by sandbox_violation_to_json
 * alone and read back by sandbox_violation_from_json (the feed, `events`,
 * `profile suggest`).  The strings are borrowed: the emitter's, or the
 * parsed JSON's; NULL (0 for numbers) is absent. */
struct sandbox_violation {
	const char *action; /* file-read*, file-write*, file-write-create, network-outbound, process-exec */
	const char *target; /* path or host:port */
	const char *source; /* who refused: supervisor, egress, host, guest, seatbelt */
	double time;	    /* seconds since the epoch */
	/* Whose: the pane (0: none, a session's proxy on 127.0.0.1), its
	 * session, the backend that wraps it and the profile it runs. */
	int pane;
	const char *session;
	const char *backend;
	const char *profile;
	/* What the source knows besides. */
	const char *raw;      /* the call as made, its errno and why (supervisor) */
	const char *syscall;  /* supervisor */
	pid_t pid;	      /* supervisor */
	const char *reason;   /* why, in words (egress: the allowlist's reason) */
	const char *protocol; /* egress: http or socks5 */
	const char *detail;   /* egress: the rule or address class */
	int count;	      /* a folded line stands for this many (events-fold.c); 0 one */
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

/* JSON round-trips.  *_from_json returns 0 or -1 with err set.
 * sandbox_spec_free frees every field (what from_json made, or a
 * caller's own allocations). */
struct cJSON *sandbox_spec_to_json(const struct sandbox_spec *spec);
int sandbox_spec_from_json(const struct cJSON *json, struct sandbox_spec *out, struct sm_error *err);
void sandbox_spec_free(struct sandbox_spec *spec);
struct cJSON *sandbox_handle_to_json(const struct sandbox_handle *h);
int sandbox_handle_from_json(const struct cJSON *json, struct sandbox_handle *out, struct sm_error *err);
void sandbox_handle_free(struct sandbox_handle *h);
/* The violation event, {"event":"sandbox","kind":"violation",...}; the
 * caller owns it. */
struct cJSON *sandbox_violation_to_json(const struct sandbox_violation *v);
/* Read a violation event (or a bare violation object) of this or an
 * earlier version: lines written before `source` and `profile` existed
 * read with those NULL.  out's strings point into json. */
int sandbox_violation_from_json(const struct cJSON *json, struct sandbox_violation *out,
				struct sm_error *err);

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
