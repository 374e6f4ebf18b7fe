/*
 * cmd-session: commands about the server and its sessions — hello,
 * new-session, list, kill-session, kill-server, probe, subscribe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "log.h"
#include "sandbox-limits.h"
#include "term.h"

CMD_HANDLER(cmd_hello)
{
	int version = 0;

	if (cmd_get_int(req, "version", true, &version, err) < 0)
		return -1;
	if (version != PROTOCOL_VERSION) {
		sm_error_set(err, SM_ERR_VERSION_MISMATCH, "server speaks protocol %d, client %d",
			     PROTOCOL_VERSION, version);
		return -1;
	}
	c->hello_done = true;
	cJSON_AddNumberToObject(result, "version", PROTOCOL_VERSION);
	cJSON_AddStringToObject(result, "server", "sandmux");
	cJSON_AddNumberToObject(result, "pid", getpid());
	return 0;
}

static void session_unused_name(char *buf, size_t size)
{
	for (int n = 0;; n++) {
		snprintf(buf, size, "%d", n);
		if (session_find(buf) == NULL)
			return;
	}
}

CMD_HANDLER(cmd_new_session)
{
	const char *name = NULL;
	char generated[16];
	int cols = 80, rows = 24;
	struct pane_spawn spawn;
	struct sm_error launch_err = { 0 };
	struct session *s;
	struct pane *p;
	int rc;

	if (cmd_get_string(req, "name", false, &name, err) < 0 ||
	    cmd_get_int(req, "cols", false, &cols, err) < 0 ||
	    cmd_get_int(req, "rows", false, &rows, err) < 0)
		return -1;
	if (name != NULL && (name[0] == '\0' || strlen(name) >= sizeof s->name ||
			     strpbrk(name, ":.%") != NULL)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "bad session name '%.64s'", name);
		return -1;
	}
	if (name != NULL && session_find(name) != NULL) {
		sm_error_set(err, SM_ERR_DUPLICATE_SESSION, "session %s already exists", name);
		return -1;
	}
	if (cols < 10 || cols > 1000 || rows < 3 || rows > 1000) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "size must be 10..1000 x 3..1000");
		return -1;
	}
	if (cmd_parse_spawn(req, &spawn, err) < 0)
		return -1;
	if (name == NULL) {
		session_unused_name(generated, sizeof generated);
		name = generated;
	}
	spawn.cols = cols;
	spawn.rows = rows - 1;
	spawn.session = name;
	p = pane_new(&spawn, &launch_err);
	cmd_free_spawn(&spawn);
	s = session_create(name, cols, rows);
	window_create(s, p);
	log_info("session %s created, pane %%%d (%s)", s->name, p->id,
		 sandbox_state_name(p->state));
	cJSON_AddStringToObject(result, "session", s->name);
	cJSON_AddNumberToObject(result, "window", s->active->index);
	rc = cmd_pane_result(p, result, &launch_err, err);
	return rc;
}

/*
 * Whether output for the session's clients is still on its way from the
 * server: a frame waiting for its tick, a pane's synchronized update
 * held back (pane.c), bytes queued on an attached client's socket, or
 * bytes drawn for a terminal the server owns that it has not taken yet.
 * (Damage with none of these is not pending: it goes out with the next
 * frame, and a full frame already carried it.)  Tests poll this to know
 * a screen has settled (tests/tui/converge.sh).
 */
static bool session_output_pending(struct session *s)
{
	if (s->frame_pending)
		return true;
	/* A synchronized update held back goes out within its timeout. */
	for (struct pane *p = s->active != NULL ? s->active->panes : NULL; p != NULL; p = p->next)
		if (pane_output_held(p) && term_any_damage(p->term))
			return true;
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->attached == s &&
		    (uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) > 0 ||
		     server_tty_pending(c)))
			return true;
	return false;
}

static cJSON *session_to_json(struct session *s, bool active_window_only)
{
	cJSON *so = cJSON_CreateObject(), *windows, *clients;
	int attached = 0;

	cJSON_AddStringToObject(so, "name", s->name);
	cJSON_AddNumberToObject(so, "cols", s->cols);
	cJSON_AddNumberToObject(so, "rows", s->rows);
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		attached += c->attached == s;
	cJSON_AddNumberToObject(so, "attached", attached);
	clients = cJSON_AddArrayToObject(so, "clients");
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		cJSON *co;

		if (c->attached != s)
			continue;
		co = cJSON_CreateObject();
		cJSON_AddNumberToObject(co, "cols", c->client_cols);
		cJSON_AddNumberToObject(co, "rows", c->client_rows);
		server_tty_to_json(c, co);
		cJSON_AddItemToArray(clients, co);
	}
	/* Only frames to someone are pending: unwatched damage waits. */
	cJSON_AddBoolToObject(so, "pending", attached > 0 && session_output_pending(s));
	windows = cJSON_AddArrayToObject(so, "windows");
	for (struct window *w = s->windows; w != NULL; w = w->next) {
		cJSON *wo, *panes;
		char name[64];

		if (active_window_only && w != s->active)
			continue;
		wo = cJSON_CreateObject();

		cJSON_AddNumberToObject(wo, "index", w->index);
		window_display_name(w, name, sizeof name);
		cJSON_AddStringToObject(wo, "name", name);
		cJSON_AddBoolToObject(wo, "active", w == s->active);
		cJSON_AddBoolToObject(wo, "zoomed", w->zoomed != NULL);
		panes = cJSON_AddArrayToObject(wo, "panes");
		for (struct pane *p = w->panes; p != NULL; p = p->next)
			cJSON_AddItemToArray(panes, pane_to_json(p));
		cJSON_AddItemToArray(windows, wo);
	}
	return so;
}

/* Every session, or the one named (list-windows, list-panes -t), with
 * only its active window when asked (list-panes without -s). */
CMD_HANDLER(cmd_list)
{
	const char *name = NULL;
	struct session *only = NULL;
	bool active_window = cmd_get_bool(req, "active_window", false) &&
			     !cmd_get_bool(req, "all_windows", false);
	cJSON *sessions;

	if (cmd_get_string(req, "session", false, &name, err) < 0 ||
	    (name != NULL && (only = cmd_resolve_session(c, name, err)) == NULL))
		return -1;
	sessions = cJSON_AddArrayToObject(result, "sessions");
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		if (only == NULL || s == only)
			cJSON_AddItemToArray(sessions, session_to_json(s, active_window));
	return 0;
}

CMD_HANDLER(cmd_kill_session)
{
	const char *name = NULL;
	struct session *s;

	if (cmd_get_string(req, "session", true, &name, err) < 0 ||
	    (s = cmd_resolve_session(c, name, err)) == NULL)
		return -1;
	session_store_forget(s->name);
	session_destroy(s);
	server_maybe_exit();
	return 0;
}

/* tmux's has-session: the answer is the reply's ok (the exit status). */
CMD_HANDLER(cmd_has_session)
{
	const char *name = NULL;
	struct session *s;

	if (cmd_get_string(req, "session", true, &name, err) < 0 ||
	    (s = cmd_resolve_session(c, name, err)) == NULL)
		return -1;
	cJSON_AddStringToObject(result, "session", s->name);
	return 0;
}

CMD_HANDLER(cmd_rename_session)
{
	const char *target = NULL, *name = NULL;
	struct session *s, *other;

	if (cmd_get_string(req, "session", true, &target, err) < 0 ||
	    cmd_get_string(req, "name", true, &name, err) < 0 ||
	    (s = cmd_resolve_session(c, target, err)) == NULL)
		return -1;
	if (name[0] == '\0' || strlen(name) >= sizeof s->name || strpbrk(name, ":.%") != NULL) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "bad session name '%.64s'", name);
		return -1;
	}
	if ((other = session_find(name)) != NULL && other != s) {
		sm_error_set(err, SM_ERR_DUPLICATE_SESSION, "session %s already exists", name);
		return -1;
	}
	snprintf(s->name, sizeof s->name, "%s", name);
	cJSON_AddStringToObject(result, "session", s->name);
	server_broadcast_layout(s);
	return 0;
}

/* tmux's set-option for what the server decides; the attached client's
 * own options (status, bell_action...) are the config's. */
CMD_HANDLER(cmd_set_option)
{
	const char *name = NULL, *value = NULL;
	int size;

	if (cmd_get_string(req, "option", true, &name, err) < 0 ||
	    cmd_get_string(req, "value", true, &value, err) < 0)
		return -1;
	if (strcmp(name, "window-size") == 0 || strcmp(name, "window_size") == 0) {
		if ((size = window_size_from_name(value)) < 0) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
				     "window-size must be latest, smallest or largest");
			return -1;
		}
		server.window_size = (enum window_size)size;
		for (struct session *s = server.sessions; s != NULL; s = s->next)
			session_fit_clients(s);
	} else if (strcmp(name, "renumber-windows") == 0 || strcmp(name, "renumber_windows") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "renumber-windows must be on or off");
			return -1;
		}
		server.renumber_windows = strcmp(value, "on") == 0;
	} else {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "unknown option '%.64s' (the server's: window-size, renumber-windows)",
			     name);
		return -1;
	}
	cJSON_AddStringToObject(result, "option", name);
	cJSON_AddStringToObject(result, "value", value);
	return 0;
}

CMD_HANDLER(cmd_kill_server)
{
	session_store_save_all("kill-server");
	server_shutdown("kill-server");
	return 0;
}

CMD_HANDLER(cmd_probe)
{
	cJSON *probe = probe_to_json(backend_probe_result());
	const char *limits = limits_probe_summary();
	char line[512], microvm[256], all[776 + PATH_MAX * 2];

	backend_probe_line(backend_probe_result(), line, sizeof line);
	backend_probe_microvm_line(backend_probe_result(), microvm, sizeof microvm);
	/* What bounds a native pane (a control group or rlimits), probed
	 * with native: none when native is not available. */
	snprintf(all, sizeof all, "%s\n%s%s%s", line, microvm, limits != NULL ? "\n" : "",
		 limits != NULL ? limits : "");
	cJSON_AddStringToObject(result, "line", all);
	if (limits != NULL)
		cJSON_AddStringToObject(result, "limits", limits);

	for (cJSON *item = probe->child; item != NULL; item = item->next)
		cJSON_AddItemToObject(result, item->string, cJSON_Duplicate(item, 1));
	cJSON_Delete(probe);
	return 0;
}

/* The filter's pane: an id as given (its events may be in the log
 * only), or a target, which must name a pane now. */
static int subscribe_pane(struct conn *c, const cJSON *req, int *pane, struct sm_error *err)
{
	const char *target = NULL;
	struct pane *p;

	*pane = 0;
	if (cmd_get_string(req, "target", false, &target, err) < 0)
		return -1;
	if (target == NULL)
		return cmd_get_int(req, "pane", false, pane, err);
	if ((p = cmd_resolve_pane(c, target, err)) == NULL)
		return -1;
	*pane = p->id;
	return 0;
}

CMD_HANDLER(cmd_subscribe)
{
	const char *session = NULL, *action = NULL;
	int pane = 0;

	if (subscribe_pane(c, req, &pane, err) < 0 ||
	    cmd_get_string(req, "session", false, &session, err) < 0 ||
	    cmd_get_string(req, "action", false, &action, err) < 0)
		return -1;
	c->subscribed = true;
	c->sub_pane = pane;
	snprintf(c->sub_session, sizeof c->sub_session, "%s", session ? session : "");
	snprintf(c->sub_action, sizeof c->sub_action, "%s", action ? action : "");
	if (cmd_get_bool(req, "backlog", true))
		c->pending_backlog = true;
	/* The feed marks the backlog's events from before a restart. */
	cJSON_AddNumberToObject(result, "server_started", server.started_at);
	return 0;
}
