/*
 * sandbox: the sandbox model (see docs/design.md, "The sandbox model").
 *
 * This file owns the names of backends, states and modes, the two ways of
 * reading a backend name (strict for what a person or script asks for now,
 * lenient for what was stored earlier), the cJSON round-trips of the spec,
 * handle and violation, and the rule every backend uses to spell a deny
 * path: as written and symlink-resolved, globs and unresolvable paths left
 * as written.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "log.h"
#include "sandbox.h"
#include "strvec.h"
#include "xalloc.h"

static const char *const backend_names[SANDBOX_BACKEND_COUNT] = {
    [SANDBOX_NONE] = "none",
    [SANDBOX_NATIVE] = "native",
    [SANDBOX_MICROVM] = "microvm",
};

static const char *const state_names[] = {
    [SANDBOX_CREATED] = "created",     [SANDBOX_WARM] = "warm",
    [SANDBOX_ACTIVE] = "active",       [SANDBOX_SUSPENDED] = "suspended",
    [SANDBOX_DESTROYED] = "destroyed", [SANDBOX_ERROR] = "error",
};
#define NSTATES (sizeof state_names / sizeof state_names[0])

static const char *const mode_names[] = {
    [SANDBOX_MODE_CHAT] = "chat",
    [SANDBOX_MODE_REVIEW] = "review",
    [SANDBOX_MODE_PLAN] = "plan",
    [SANDBOX_MODE_ORCHESTRATE] = "orchestrate",
};
#define NMODES (sizeof mode_names / sizeof mode_names[0])

static const char *const violation_actions[] = {
    "file-read*", "file-write*", "file-write-create", "network-outbound", "process-exec",
};
#define NACTIONS (sizeof violation_actions / sizeof violation_actions[0])

/* Index of name in a table, or -1. */
static int name_index(const char *const *table, size_t n, const char *name)
{
	for (size_t i = 0; name != NULL && i < n; i++)
		if (table[i] != NULL && strcmp(table[i], name) == 0)
			return (int)i;
	return -1;
}

const char *sandbox_backend_name(enum sandbox_backend b)
{
	if ((unsigned)b >= SANDBOX_BACKEND_COUNT)
		return "unknown";
	return backend_names[b];
}

const char *sandbox_state_name(enum sandbox_state s)
{
	if ((unsigned)s >= NSTATES)
		return "unknown";
	return state_names[s];
}

const char *sandbox_mode_name(enum sandbox_mode m)
{
	if ((unsigned)m >= NMODES)
		return "unknown";
	return mode_names[m];
}

int sandbox_backend_parse(const char *name, enum sandbox_backend *out, struct sm_error *err)
{
	int i = name_index(backend_names, SANDBOX_BACKEND_COUNT, name);

	if (i < 0) {
		sm_error_set(err, SM_ERR_INVALID_BACKEND,
			     "unknown backend \"%s\": valid backends are none, native, microvm",
			     name ? name : "(null)");
		return -1;
	}
	*out = (enum sandbox_backend)i;
	return 0;
}

enum sandbox_backend backend_from_name(const char *name)
{
	int i;

	if (name == NULL) {
		log_info("backend: no backend named, using none");
		return SANDBOX_NONE;
	}
	/* Stored sessions from tools that called the container backend
	 * "docker" meant "contained": the nearest contained backend is
	 * native, never none. */
	if (strcmp(name, "docker") == 0) {
		log_info("backend: \"docker\" is read as native");
		return SANDBOX_NATIVE;
	}
	i = name_index(backend_names, SANDBOX_BACKEND_COUNT, name);
	if (i < 0) {
		log_info("backend: unknown backend \"%s\", using none", name);
		return SANDBOX_NONE;
	}
	return (enum sandbox_backend)i;
}

/* --- deny path spellings ------------------------------------------------ */

char *sandbox_expand_home(const char *path, const char *home)
{
	char *out;
	size_t hl;

	if (path[0] != '~' || (path[1] != '\0' && path[1] != '/') || home == NULL)
		return xstrdup(path);
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	out = xmalloc(hl + strlen(path));
	memcpy(out, home, hl);
	strcpy(out + hl, path + 1);
	return out;
}

bool sandbox_path_is_glob(const char *path)
{
	return strpbrk(path, "*?") != NULL;
}

int sandbox_deny_spellings(const char *path, struct strvec *out)
{
	char resolved[PATH_MAX];

	if (!strvec_contains(out, path) && strvec_push(out, path) != 0)
		return -1;
	/* A glob names no single file to resolve; a path that does not
	 * resolve has no second spelling.  Both stay as written. */
	if (sandbox_path_is_glob(path) || realpath(path, resolved) == NULL)
		return 0;
	if (!strvec_contains(out, resolved) && strvec_push(out, resolved) != 0)
		return -1;
	return 0;
}

/* --- JSON helpers ------------------------------------------------------- */

static int add_string_array(cJSON *obj, const char *key, char *const *strs, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, key);

	if (arr == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateString(strs[i]);

		if (s == NULL || !cJSON_AddItemToArray(arr, s))
			return -1;
	}
	return 0;
}

static int add_optional_string(cJSON *obj, const char *key, const char *value)
{
	if (value == NULL)
		return 0;
	return cJSON_AddStringToObject(obj, key, value) ? 0 : -1;
}

/* A string member, borrowed from obj (a violation's fields point into
 * its JSON): absent or null leaves *out NULL, an error if required. */
static int borrow_string(const cJSON *obj, const char *key, bool required, const char **out,
			 struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (item == NULL || cJSON_IsNull(item)) {
		if (!required)
			return 0;
		sm_error_set(err, SM_ERR_MISSING_FIELD, "\"%s\" is required", key);
		return -1;
	}
	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" must be a string", key);
		return -1;
	}
	*out = item->valuestring;
	return 0;
}

/* A string member, copied into *out: absent or null leaves it NULL. */
static int get_string(const cJSON *obj, const char *key, bool required, char **out,
		      struct sm_error *err)
{
	const char *value;

	*out = NULL;
	if (borrow_string(obj, key, required, &value, err) != 0)
		return -1;
	if (value == NULL)
		return 0;
	*out = xstrdup(value);
	return 0;
}

static int get_bool(const cJSON *obj, const char *key, bool fallback, bool *out,
		    struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = fallback;
	if (item == NULL || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsBool(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" must be true or false", key);
		return -1;
	}
	*out = cJSON_IsTrue(item);
	return 0;
}

static int get_number(const cJSON *obj, const char *key, double *out, struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = 0;
	if (item == NULL || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsNumber(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" must be a number", key);
		return -1;
	}
	*out = item->valuedouble;
	return 0;
}

static void free_strings(char **strs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
}

/* An optional array of strings; absent means empty. */
static int get_string_array(const cJSON *obj, const char *key, char ***out, size_t *nout,
			    struct sm_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
	const cJSON *item;
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	if (arr == NULL || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" must be an array of strings", key);
		return -1;
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof **out);
	cJSON_ArrayForEach(item, arr)
	{
		if (!cJSON_IsString(item)) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" must be an array of strings",
				     key);
			goto fail;
		}
		(*out)[n] = xstrdup(item->valuestring);
		n++;
	}
	*nout = n;
	return 0;
fail:
	free_strings(*out, n);
	*out = NULL;
	return -1;
}

static int require_object(const cJSON *json, const char *what, struct sm_error *err)
{
	if (cJSON_IsObject(json))
		return 0;
	sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "%s must be a JSON object", what);
	return -1;
}

/* --- SandboxSpec -------------------------------------------------------- */

static cJSON *bind_mount_to_json(const struct sandbox_bind_mount *m)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj == NULL || !cJSON_AddStringToObject(obj, "hostPath", m->host_path) ||
	    !cJSON_AddStringToObject(obj, "guestPath", m->guest_path) ||
	    !cJSON_AddBoolToObject(obj, "readOnly", m->read_only)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *sandbox_spec_to_json(const struct sandbox_spec *spec)
{
	cJSON *obj = cJSON_CreateObject();
	cJSON *mounts;

	if (obj == NULL || !cJSON_AddStringToObject(obj, "sessionId", spec->session_id) ||
	    !cJSON_AddStringToObject(obj, "workspaceId", spec->workspace_id) ||
	    add_optional_string(obj, "agentId", spec->agent_id) != 0)
		goto fail;
	mounts = cJSON_AddArrayToObject(obj, "bindMounts");
	if (mounts == NULL)
		goto fail;
	for (size_t i = 0; i < spec->nbind_mounts; i++) {
		cJSON *m = bind_mount_to_json(&spec->bind_mounts[i]);

		if (m == NULL || !cJSON_AddItemToArray(mounts, m))
			goto fail;
	}
	if (!cJSON_AddBoolToObject(obj, "networkEnabled", spec->network_enabled) ||
	    add_string_array(obj, "egressAllowlist", spec->egress_allowlist,
			     spec->negress_allowlist) != 0 ||
	    add_optional_string(obj, "guestWorkdir", spec->guest_workdir) != 0 ||
	    !cJSON_AddStringToObject(obj, "mode", sandbox_mode_name(spec->mode)) ||
	    add_string_array(obj, "protectedPaths", spec->protected_paths,
			     spec->nprotected_paths) != 0 ||
	    add_string_array(obj, "runnerStateDirs", spec->runner_state_dirs,
			     spec->nrunner_state_dirs) != 0 ||
	    add_string_array(obj, "execGrantRoots", spec->exec_grant_roots,
			     spec->nexec_grant_roots) != 0)
		goto fail;
	/* The launch's fields, when a launch set them. */
	if ((spec->backend != SANDBOX_NONE &&
	     !cJSON_AddStringToObject(obj, "backend", sandbox_backend_name(spec->backend))) ||
	    add_optional_string(obj, "profile", spec->profile) != 0 ||
	    add_optional_string(obj, "workdir", spec->workdir) != 0 ||
	    add_optional_string(obj, "home", spec->home) != 0 ||
	    (spec->command != NULL &&
	     add_string_array(obj, "command", spec->command, spec->ncommand) != 0))
		goto fail;
	return obj;
fail:
	cJSON_Delete(obj);
	return NULL;
}

static int bind_mounts_from_json(const cJSON *json, struct sandbox_spec *out, struct sm_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(json, "bindMounts");
	const cJSON *item;

	if (arr == NULL || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"bindMounts\" must be an array");
		return -1;
	}
	out->bind_mounts = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *out->bind_mounts);
	cJSON_ArrayForEach(item, arr)
	{
		struct sandbox_bind_mount *m = &out->bind_mounts[out->nbind_mounts];

		if (require_object(item, "a bindMounts entry", err) != 0)
			return -1;
		/* Count the entry first so sandbox_spec_free releases
		 * whatever part of it was read. */
		out->nbind_mounts++;
		if (get_string(item, "hostPath", true, &m->host_path, err) != 0 ||
		    get_string(item, "guestPath", true, &m->guest_path, err) != 0 ||
		    get_bool(item, "readOnly", false, &m->read_only, err) != 0)
			return -1;
	}
	return 0;
}

static int mode_from_json(const cJSON *json, enum sandbox_mode *out, struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "mode");
	int i;

	*out = SANDBOX_MODE_CHAT;
	if (item == NULL || cJSON_IsNull(item))
		return 0;
	i = cJSON_IsString(item) ? name_index(mode_names, NMODES, item->valuestring) : -1;
	if (i < 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "\"mode\" must be one of chat, review, plan, orchestrate");
		return -1;
	}
	*out = (enum sandbox_mode)i;
	return 0;
}

/* A stored spec names its backend strictly: a sandbox never becomes
 * another by a typo (backend_from_name's leniency is for session files,
 * which say which pane asked for what). */
static int backend_from_json(const cJSON *json, enum sandbox_backend *out, struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "backend");

	*out = SANDBOX_NONE;
	if (item == NULL || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"backend\" must be a string");
		return -1;
	}
	return sandbox_backend_parse(item->valuestring, out, err);
}

int sandbox_spec_from_json(const cJSON *json, struct sandbox_spec *out, struct sm_error *err)
{
	memset(out, 0, sizeof *out);
	out->network_enabled = true;
	if (require_object(json, "a sandbox spec", err) != 0 ||
	    get_string(json, "sessionId", true, &out->session_id, err) != 0 ||
	    get_string(json, "workspaceId", true, &out->workspace_id, err) != 0 ||
	    get_string(json, "agentId", false, &out->agent_id, err) != 0 ||
	    bind_mounts_from_json(json, out, err) != 0 ||
	    get_bool(json, "networkEnabled", true, &out->network_enabled, err) != 0 ||
	    get_string_array(json, "egressAllowlist", &out->egress_allowlist,
			     &out->negress_allowlist, err) != 0 ||
	    get_string(json, "guestWorkdir", false, &out->guest_workdir, err) != 0 ||
	    mode_from_json(json, &out->mode, err) != 0 ||
	    get_string_array(json, "protectedPaths", &out->protected_paths, &out->nprotected_paths,
			     err) != 0 ||
	    get_string_array(json, "runnerStateDirs", &out->runner_state_dirs,
			     &out->nrunner_state_dirs, err) != 0 ||
	    get_string_array(json, "execGrantRoots", &out->exec_grant_roots,
			     &out->nexec_grant_roots, err) != 0 ||
	    backend_from_json(json, &out->backend, err) != 0 ||
	    get_string(json, "profile", false, &out->profile, err) != 0 ||
	    get_string(json, "workdir", false, &out->workdir, err) != 0 ||
	    get_string(json, "home", false, &out->home, err) != 0 ||
	    get_string_array(json, "command", &out->command, &out->ncommand, err) != 0) {
		sandbox_spec_free(out);
		return -1;
	}
	return 0;
}

void sandbox_spec_free(struct sandbox_spec *spec)
{
	if (spec == NULL)
		return;
	free(spec->session_id);
	free(spec->workspace_id);
	free(spec->agent_id);
	for (size_t i = 0; i < spec->nbind_mounts; i++) {
		free(spec->bind_mounts[i].host_path);
		free(spec->bind_mounts[i].guest_path);
	}
	free(spec->bind_mounts);
	free_strings(spec->egress_allowlist, spec->negress_allowlist);
	free(spec->guest_workdir);
	free_strings(spec->protected_paths, spec->nprotected_paths);
	free_strings(spec->runner_state_dirs, spec->nrunner_state_dirs);
	free_strings(spec->exec_grant_roots, spec->nexec_grant_roots);
	free(spec->profile);
	free(spec->workdir);
	free(spec->home);
	free_strings(spec->command, spec->ncommand);
	free_strings(spec->env, spec->nenv);
	memset(spec, 0, sizeof *spec);
}

/* --- SandboxHandle ------------------------------------------------------ */

cJSON *sandbox_handle_to_json(const struct sandbox_handle *h)
{
	cJSON *obj = cJSON_CreateObject();
	cJSON *details = h->details ? cJSON_Duplicate(h->details, true) : cJSON_CreateObject();

	if (obj == NULL || details == NULL ||
	    !cJSON_AddStringToObject(obj, "sessionId", h->session_id ? h->session_id : "") ||
	    !cJSON_AddStringToObject(obj, "backend", sandbox_backend_name(h->backend)) ||
	    !cJSON_AddStringToObject(obj, "state", sandbox_state_name(h->state)) ||
	    add_optional_string(obj, "error", h->error) != 0 ||
	    !cJSON_AddItemToObject(obj, "details", details)) {
		cJSON_Delete(details);
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

/* A handle names the backend that really wraps a process, so it is read
 * strictly: a name we do not know is corruption, not a request to guess. */
static int handle_backend_from_json(const cJSON *json, struct sandbox_handle *out,
				    struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "backend");

	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_MISSING_FIELD, "\"backend\" is required");
		return -1;
	}
	return sandbox_backend_parse(item->valuestring, &out->backend, err);
}

static int handle_state_from_json(const cJSON *json, struct sandbox_handle *out,
				  struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "state");
	int i;

	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_MISSING_FIELD, "\"state\" is required");
		return -1;
	}
	i = name_index(state_names, NSTATES, item->valuestring);
	if (i < 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "unknown sandbox state \"%s\"",
			     item->valuestring);
		return -1;
	}
	out->state = (enum sandbox_state)i;
	return 0;
}

static int handle_details_from_json(const cJSON *json, struct sandbox_handle *out,
				    struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "details");

	if (item != NULL && !cJSON_IsNull(item) && !cJSON_IsObject(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"details\" must be an object");
		return -1;
	}
	out->details =
	    item && cJSON_IsObject(item) ? cJSON_Duplicate(item, true) : cJSON_CreateObject();
	if (out->details == NULL) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	return 0;
}

int sandbox_handle_from_json(const cJSON *json, struct sandbox_handle *out, struct sm_error *err)
{
	memset(out, 0, sizeof *out);
	if (require_object(json, "a sandbox handle", err) != 0 ||
	    get_string(json, "sessionId", true, &out->session_id, err) != 0 ||
	    handle_backend_from_json(json, out, err) != 0 ||
	    handle_state_from_json(json, out, err) != 0 ||
	    get_string(json, "error", false, &out->error, err) != 0 ||
	    handle_details_from_json(json, out, err) != 0) {
		sandbox_handle_free(out);
		return -1;
	}
	return 0;
}

void sandbox_handle_free(struct sandbox_handle *h)
{
	if (h == NULL)
		return;
	free(h->session_id);
	free(h->error);
	cJSON_Delete(h->details);
	memset(h, 0, sizeof *h);
}

/* --- SandboxViolation --------------------------------------------------- */

/* The fields in the order lines have always had them, so a reader of
 * the log that matches text (a test's grep) sees the same line. */
cJSON *sandbox_violation_to_json(const struct sandbox_violation *v)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "event", "sandbox");
	cJSON_AddStringToObject(ev, "kind", "violation");
	cJSON_AddStringToObject(ev, "action", v->action != NULL ? v->action : "");
	cJSON_AddStringToObject(ev, "target", v->target != NULL ? v->target : "");
	add_optional_string(ev, "raw", v->raw);
	if (v->pane > 0)
		cJSON_AddNumberToObject(ev, "pane", v->pane);
	add_optional_string(ev, "session", v->session);
	add_optional_string(ev, "profile", v->profile);
	add_optional_string(ev, "backend", v->backend);
	if (v->pid > 0)
		cJSON_AddNumberToObject(ev, "pid", v->pid);
	add_optional_string(ev, "syscall", v->syscall);
	cJSON_AddNumberToObject(ev, "time", v->time);
	add_optional_string(ev, "source", v->source);
	add_optional_string(ev, "reason", v->reason);
	add_optional_string(ev, "protocol", v->protocol);
	add_optional_string(ev, "detail", v->detail);
	if (v->count > 1)
		cJSON_AddNumberToObject(ev, "count", v->count);
	return ev;
}

static int violation_action_from_json(const cJSON *json, struct sandbox_violation *out,
				      struct sm_error *err)
{
	if (borrow_string(json, "action", true, &out->action, err) != 0)
		return -1;
	if (name_index(violation_actions, NACTIONS, out->action) < 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "unknown violation action \"%s\": valid actions are file-read*, "
			     "file-write*, file-write-create, network-outbound, process-exec",
			     out->action);
		return -1;
	}
	return 0;
}

int sandbox_violation_from_json(const cJSON *json, struct sandbox_violation *out,
				struct sm_error *err)
{
	double pane, pid, count;

	memset(out, 0, sizeof *out);
	if (require_object(json, "a violation", err) != 0 ||
	    violation_action_from_json(json, out, err) != 0 ||
	    borrow_string(json, "target", true, &out->target, err) != 0 ||
	    borrow_string(json, "source", false, &out->source, err) != 0 ||
	    borrow_string(json, "session", false, &out->session, err) != 0 ||
	    borrow_string(json, "backend", false, &out->backend, err) != 0 ||
	    borrow_string(json, "profile", false, &out->profile, err) != 0 ||
	    borrow_string(json, "raw", false, &out->raw, err) != 0 ||
	    borrow_string(json, "syscall", false, &out->syscall, err) != 0 ||
	    borrow_string(json, "reason", false, &out->reason, err) != 0 ||
	    borrow_string(json, "protocol", false, &out->protocol, err) != 0 ||
	    borrow_string(json, "detail", false, &out->detail, err) != 0 ||
	    get_number(json, "pane", &pane, err) != 0 ||
	    get_number(json, "time", &out->time, err) != 0 ||
	    get_number(json, "pid", &pid, err) != 0 ||
	    get_number(json, "count", &count, err) != 0) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->pane = (int)pane;
	out->pid = (pid_t)pid;
	out->count = (int)count;
	return 0;
}
