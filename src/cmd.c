/*
 * cmd: request dispatch through the command table (command.h), the field
 * helpers every handler shares, and the one place targets are resolved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "session-file.h"
#include "cmd.h"
#include "command.h"
#include "error.h"
#include "log.h"
#include "profile.h"
#include "target.h"
#include "xalloc.h"

void cmd_dispatch(struct conn *c, cJSON *req)
{
	const cJSON *id = cJSON_GetObjectItem(req, "id");
	const cJSON *name = cJSON_GetObjectItem(req, "cmd");
	cJSON *reply = cJSON_CreateObject(), *result = cJSON_CreateObject();
	struct sm_error err = { 0 };
	const struct command_entry *entry = NULL;
	int rc = -1;

	if (cJSON_IsNumber(id))
		cJSON_AddNumberToObject(reply, "id", id->valuedouble);
	else
		cJSON_AddNullToObject(reply, "id");
	if (!cJSON_IsString(name))
		sm_error_set(&err, SM_ERR_MISSING_FIELD, "field 'cmd' (string) is required");
	else if ((entry = command_for_request(name->valuestring)) == NULL)
		sm_error_set(&err, SM_ERR_UNKNOWN_COMMAND, "unknown command '%.64s'", name->valuestring);
	else if (!c->hello_done && !(entry->flags & CMD_BEFORE_HELLO))
		sm_error_set(&err, SM_ERR_HELLO_REQUIRED, "send hello first");
	else
		rc = entry->exec(c, req, result, &err);
	if (rc == 0 && id == NULL) {
		/* A notification: success needs no answer. */
		cJSON_Delete(reply);
		cJSON_Delete(result);
		goto after_reply;
	}
	cJSON_AddBoolToObject(reply, "ok", rc == 0);
	if (rc == 0) {
		cJSON_AddItemToObject(reply, "result", result);
	} else {
		cJSON *error = cJSON_AddObjectToObject(reply, "error");
		cJSON_AddStringToObject(error, "code", err.code[0] ? err.code : SM_ERR_FAILED);
		cJSON_AddStringToObject(error, "message", err.message);
		/* A pane made in state error is still named in the reply, with
		 * the session it made (new-session). */
		for (const char *const *key = (const char *const[]){ "pane", "session", NULL };
		     *key != NULL; key++)
			if (cJSON_GetObjectItem(result, *key) != NULL)
				cJSON_AddItemToObject(error, *key,
						      cJSON_Duplicate(cJSON_GetObjectItem(result, *key), 1));
		cJSON_Delete(result);
		log_debug("%s: %s: %s", __func__, err.code, err.message);
	}
	server_send(c, reply);
after_reply:
	if (c->pending_backlog) {
		c->pending_backlog = false;
		events_send_backlog(c);
	}
	if (c->pending_attach != NULL) {
		struct session *s = c->pending_attach;
		c->pending_attach = NULL;
		server_attach(c, s);
	}
}

int cmd_get_int(const cJSON *req, const char *key, bool required, int *out, struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItem(req, key);

	if (item == NULL || cJSON_IsNull(item)) {
		if (!required)
			return 0;
		sm_error_set(err, SM_ERR_MISSING_FIELD, "field '%s' (number) is required", key);
		return -1;
	}
	if (!cJSON_IsNumber(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field '%s' must be a number", key);
		return -1;
	}
	*out = item->valueint;
	return 0;
}

int cmd_get_string(const cJSON *req, const char *key, bool required, const char **out,
		   struct sm_error *err)
{
	const cJSON *item = cJSON_GetObjectItem(req, key);

	if (item == NULL || cJSON_IsNull(item)) {
		if (!required)
			return 0;
		sm_error_set(err, SM_ERR_MISSING_FIELD, "field '%s' (string) is required", key);
		return -1;
	}
	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field '%s' must be a string", key);
		return -1;
	}
	*out = item->valuestring;
	return 0;
}

bool cmd_get_bool(const cJSON *req, const char *key, bool fallback)
{
	const cJSON *item = cJSON_GetObjectItem(req, key);

	return cJSON_IsBool(item) ? cJSON_IsTrue(item) : fallback;
}

struct session *cmd_resolve_session(struct conn *c, const char *text, struct sm_error *err)
{
	struct target t;
	struct session *s;
	struct pane *p;

	/* A session's own name first: the generated names are numbers. */
	if ((s = session_find(text)) != NULL)
		return s;
	if (target_parse(text, &t, err) < 0)
		return NULL;
	if (t.pane_id >= 0) {
		if ((p = pane_find(t.pane_id)) == NULL || p->window == NULL) {
			sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no pane %%%d", t.pane_id);
			return NULL;
		}
		return p->window->session;
	}
	if (t.session[0] != '\0')
		s = session_find(t.session);
	else
		s = c->attached != NULL ? c->attached : server.sessions;
	if (s == NULL)
		sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "no session %.64s",
			     t.session[0] ? t.session : "(none exists)");
	return s;
}

/*
 * The session a request names in "session" (a name or a target), else
 * the client's attached one, else the first, as tmux's -t of
 * last-window: what last-window, feed and save act on.  NULL with err
 * set when there is none.
 */
struct session *cmd_request_session(struct conn *c, const cJSON *req, struct sm_error *err)
{
	const char *name = NULL;
	struct session *s = c->attached;

	if (cmd_get_string(req, "session", false, &name, err) < 0)
		return NULL;
	if (name != NULL)
		return cmd_resolve_session(c, name, err);
	if (s == NULL)
		s = server.sessions;
	if (s == NULL)
		sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "no session");
	return s;
}

struct pane *cmd_resolve_pane(struct conn *c, const char *text, struct sm_error *err)
{
	struct target t;
	struct session *s;
	struct window *w;
	struct pane *p;
	int i = 0;

	if (target_parse(text, &t, err) < 0)
		return NULL;
	if (t.pane_id >= 0) {
		if ((p = pane_find(t.pane_id)) == NULL)
			sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no pane %%%d", t.pane_id);
		return p;
	}
	if ((s = cmd_resolve_session(c, text, err)) == NULL)
		return NULL;
	w = s->active;
	if (t.window >= 0)
		for (w = s->windows; w != NULL && w->index != t.window; w = w->next)
			;
	if (w == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_WINDOW, "no window %d in session %.64s", t.window,
			     s->name);
		return NULL;
	}
	p = w->active;
	if (t.pane_index >= 0)
		for (p = w->panes; p != NULL && i != t.pane_index; p = p->next)
			i++;
	if (p == NULL)
		sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no pane %d in window %.64s:%d",
			     t.pane_index, s->name, w->index);
	return p;
}

struct pane *cmd_target_pane(struct conn *c, const cJSON *req, struct sm_error *err)
{
	const char *target = NULL;
	int id = -1;
	struct pane *p;

	if (cmd_get_string(req, "target", false, &target, err) < 0)
		return NULL;
	if (target != NULL)
		return cmd_resolve_pane(c, target, err);
	if (cmd_get_int(req, "pane", false, &id, err) < 0)
		return NULL;
	if (id < 0) {
		if (c->attached != NULL && c->attached->active != NULL)
			return c->attached->active->active;
		sm_error_set(err, SM_ERR_MISSING_FIELD, "field 'pane' (number) is required");
		return NULL;
	}
	p = pane_find(id);
	if (p == NULL)
		sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no pane %%%d", id);
	return p;
}

/* Choose the backend: an explicit request is strict and never falls
 * back; only the config's default may step microvm -> native, and says so
 * (docs/design.md invariants 3 and 4). */
static int cmd_choose_backend(const cJSON *req, struct pane_spawn *spawn, struct sm_error *err)
{
	const char *name = NULL;
	struct sm_error probe_err = { 0 };

	if (cmd_get_string(req, "backend", false, &name, err) < 0)
		return -1;
	if (name != NULL) {
		spawn->backend_explicit = true;
		return sandbox_backend_parse(name, &spawn->backend, err);
	}
	spawn->backend = server.default_backend_set ? server.default_backend : SANDBOX_NONE;
	if (spawn->backend == SANDBOX_MICROVM && backend_check(SANDBOX_MICROVM, &probe_err) < 0) {
		cJSON *ev = events_lifecycle("downgrade", NULL);
		log_info("default_backend microvm unavailable (%s): stepping down to native",
			 probe_err.message);
		cJSON_AddStringToObject(ev, "from", "microvm");
		cJSON_AddStringToObject(ev, "to", "native");
		cJSON_AddStringToObject(ev, "reason", probe_err.message);
		events_emit(ev);
		spawn->backend = SANDBOX_NATIVE;
	}
	return 0;
}

/* full_access is no sandbox: the pane runs as none and is labelled so
 * (invariant 1), with a line in the log.  An explicit -b native or
 * microvm with it is refused: running that request as none would be a
 * silent downgrade (invariant 4). */
static int cmd_not_a_sandbox(struct pane_spawn *spawn, struct sm_error *err)
{
	const struct sandbox_profile *prof = profile_find(spawn->profile);

	if (spawn->profile == NULL || prof == NULL || !prof->not_a_sandbox)
		return 0;
	if (spawn->backend_explicit && spawn->backend != SANDBOX_NONE) {
		sm_error_set(err, SM_ERR_INVALID_PROFILE,
			     "profile %s is not a sandbox and runs as none; drop -b %s or choose "
			     "a sandbox profile",
			     prof->name, sandbox_backend_name(spawn->backend));
		return -1;
	}
	log_info("profile %s is not a sandbox: the pane runs as none", prof->name);
	spawn->backend = SANDBOX_NONE;
	return 0;
}

/* A restored pane's last screen (docs/sessions.md): at most
 * SESSION_SCREEN_LINES strings, shown through the sanitiser. */
static int cmd_parse_screen(const cJSON *req, struct pane_spawn *spawn, struct sm_error *err)
{
	const cJSON *screen = cJSON_GetObjectItem(req, "screen"), *line;

	if (screen == NULL)
		return 0;
	if (!cJSON_IsArray(screen) || cJSON_GetArraySize(screen) > SESSION_SCREEN_LINES) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "field 'screen' must be an array of at most %d strings",
			     SESSION_SCREEN_LINES);
		return -1;
	}
	cJSON_ArrayForEach(line, screen)
	{
		if (!cJSON_IsString(line)) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "screen lines must be strings");
			return -1;
		}
	}
	spawn->screen = screen;
	return 0;
}

int cmd_parse_spawn(const cJSON *req, struct pane_spawn *spawn, struct sm_error *err)
{
	const cJSON *argv = cJSON_GetObjectItem(req, "argv");
	const cJSON *env = cJSON_GetObjectItem(req, "env");
	const char *profile = NULL;
	int n, i = 0;

	memset(spawn, 0, sizeof *spawn);
	if (cmd_get_string(req, "cwd", false, &spawn->cwd, err) < 0 ||
	    cmd_get_string(req, "profile", false, &profile, err) < 0)
		return -1;
	/* A name asked for is strict, like a backend's: a typo must not
	 * start the pane under another profile. */
	if (profile != NULL && profile_find(profile) == NULL) {
		char names[512];

		profile_names(names, sizeof names);
		sm_error_set(err, SM_ERR_INVALID_PROFILE, "unknown profile '%.40s' (valid: %s)", profile,
			     names);
		return -1;
	}
	spawn->profile = profile;
	spawn->remain_on_exit = cmd_get_bool(req, "remain", false);
	if (env != NULL && !cJSON_IsObject(env)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field 'env' must be an object");
		return -1;
	}
	spawn->env = (cJSON *)env;
	if (cmd_parse_screen(req, spawn, err) < 0)
		return -1;
	if (argv != NULL && !cJSON_IsNull(argv)) {
		if (!cJSON_IsArray(argv) || (n = cJSON_GetArraySize(argv)) == 0) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field 'argv' must be a non-empty array");
			return -1;
		}
		spawn->argv = xcalloc(n + 1, sizeof *spawn->argv);
		for (const cJSON *a = argv->child; a != NULL; a = a->next) {
			if (!cJSON_IsString(a)) {
				cmd_free_spawn(spawn);
				sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "argv items must be strings");
				return -1;
			}
			spawn->argv[i++] = xstrdup(a->valuestring);
		}
	}
	if (cmd_choose_backend(req, spawn, err) < 0 || cmd_not_a_sandbox(spawn, err) < 0) {
		cmd_free_spawn(spawn);
		return -1;
	}
	return 0;
}

void cmd_spawn_inherit(struct pane_spawn *spawn, const struct pane *from)
{
	/* Only a backend that really wraps the pane is inherited (invariant
	 * 1), and then strictly: the new pane fails rather than run on the
	 * host under a pane the user believes contained (invariant 4). */
	const struct sandbox_profile *asked = spawn->profile ? profile_find(spawn->profile) : NULL;

	if (from == NULL)
		return;
	/* A pane asking for full_access runs as none (cmd_not_a_sandbox). */
	if (!spawn->backend_explicit && server.inherit_backend && from->state != SANDBOX_ERROR &&
	    from->launch.backend != SANDBOX_NONE && (asked == NULL || !asked->not_a_sandbox)) {
		spawn->backend = from->launch.backend;
		spawn->backend_explicit = true;
	}
	if (spawn->profile == NULL && spawn->backend != SANDBOX_NONE)
		spawn->profile = from->profile;
}

void cmd_free_spawn(struct pane_spawn *spawn)
{
	if (spawn->argv != NULL)
		for (char **a = spawn->argv; *a != NULL; a++)
			free(*a);
	free(spawn->argv);
	spawn->argv = NULL;
}

int cmd_pane_result(struct pane *p, cJSON *result, struct sm_error *launch_err,
		    struct sm_error *err)
{
	cJSON *json = pane_to_json(p);

	cJSON_AddNumberToObject(result, "pane", p->id);
	for (cJSON *item = json->child; item != NULL; item = item->next)
		if (strcmp(item->string, "id") != 0)
			cJSON_AddItemToObject(result, item->string, cJSON_Duplicate(item, 1));
	cJSON_Delete(json);
	if (p->state == SANDBOX_ERROR) {
		*err = *launch_err;
		return -1;
	}
	return 0;
}
