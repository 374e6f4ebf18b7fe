/*
 * cmd-attached: commands an attached client sends — attach, detach, its
 * size, keys, paste, mouse, focus, zoom, windows, switching to another
 * session (switch-client) and pane resizing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "log.h"
#include "term.h"

static int cmd_client_size_fields(const cJSON *req, struct conn *c, bool required,
				  struct sm_error *err)
{
	int cols = c->client_cols, rows = c->client_rows;
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(req, "status");

	if (cmd_get_int(req, "cols", required, &cols, err) < 0 ||
	    cmd_get_int(req, "rows", required, &rows, err) < 0)
		return -1;
	if (cols < 10 || cols > 1000 || rows < 4 || rows > 1000) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "client size must be 10..1000 x 4..1000");
		return -1;
	}
	if (status != NULL && !cJSON_IsBool(status)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field 'status' must be true or false");
		return -1;
	}
	c->client_cols = cols;
	c->client_rows = rows;
	c->terminal_cols = cols;
	c->terminal_rows = rows;
	if (cmd_get_int(req, "terminal_cols", false, &c->terminal_cols, err) < 0 ||
	    cmd_get_int(req, "terminal_rows", false, &c->terminal_rows, err) < 0)
		return -1;
	if (c->terminal_cols < 1 || c->terminal_cols > 1000 || c->terminal_rows < 1 ||
	    c->terminal_rows > 1000) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "terminal size must be 1..1000 x 1..1000");
		return -1;
	}
	/* Without a status line the panes have the client's last row too. */
	if (status != NULL)
		c->client_status = cJSON_IsTrue(status);
	server_tty_resize(c);
	return 0;
}

CMD_HANDLER(cmd_attach)
{
	const char *name = NULL;
	const cJSON *terminal;
	struct session *s;

	c->client_status = true;
	if (cmd_get_string(req, "session", false, &name, err) < 0 ||
	    cmd_client_size_fields(req, c, true, err) < 0)
		return -1;
	s = name != NULL ? cmd_resolve_session(c, name, err) : server.sessions;
	if (s == NULL) {
		if (name == NULL)
			sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "no session %.64s", "(any)");
		return -1;
	}
	cJSON_AddStringToObject(result, "session", s->name);
	/* Optional: the client's terminal, which the server then owns. */
	terminal = cJSON_GetObjectItemCaseSensitive(req, "terminal");
	if (terminal != NULL) {
		struct server_tty_options options = {
		    .utf8 = cmd_get_bool(terminal, "utf8", true),
		    .no_color = cmd_get_bool(terminal, "no_color", false),
		};

		if (!cJSON_IsObject(terminal) ||
		    cmd_get_string(terminal, "term", true, &options.term, err) < 0 ||
		    cmd_get_string(terminal, "colorterm", false, &options.colorterm, err) < 0 ||
		    cmd_get_string(terminal, "theme", false, &options.theme, err) < 0 ||
		    cmd_get_string(terminal, "config", false, &options.config, err) < 0 ||
		    cmd_get_string(terminal, "cwd", false, &options.cwd, err) < 0 ||
		    server_tty_attach(c, &options, err) < 0) {
			if (err->code[0] == '\0')
				sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "field 'terminal' must be an object");
			return -1;
		}
	}
	/* The reply must precede the layout, so attach after it is queued. */
	c->attached = NULL;
	c->active_at = ++server.activity;
	server_attach_later(c, s);
	return 0;
}

CMD_HANDLER(cmd_detach)
{
	struct session *s = c->attached;
	cJSON *ev;

	if (s == NULL) {
		sm_error_set(err, SM_ERR_NOT_ATTACHED, "this client is not attached");
		return -1;
	}
	c->attached = NULL;
	session_fit_clients(s);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "event", "exit");
	cJSON_AddStringToObject(ev, "reason", "detached");
	server_send(c, ev);
	return 0;
}

CMD_HANDLER(cmd_client_size)
{
	int cols = c->terminal_cols, rows = c->terminal_rows;

	if (cmd_client_size_fields(req, c, true, err) < 0)
		return -1;
	/* A terminal resized is a client in use, as tmux's window-size
	 * latest has it; the same size again (a resume) is not. */
	if (c->terminal_cols != cols || c->terminal_rows != rows)
		c->active_at = ++server.activity;
	if (c->attached != NULL) {
		session_fit_clients(c->attached);
		server_broadcast_layout(c->attached);
	}
	return 0;
}

CMD_HANDLER(cmd_key)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const char *key = NULL, *text = NULL;
	struct term_key k;

	session_client_active(c);
	if (p == NULL || cmd_get_string(req, "key", false, &key, err) < 0 ||
	    cmd_get_string(req, "text", false, &text, err) < 0)
		return -1;
	if (key != NULL) {
		if (!term_key_parse(key, &k)) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "unknown key '%.32s'", key);
			return -1;
		}
		term_send_key(p->term, &k);
	} else if (text != NULL) {
		term_send_text(p->term, text, strlen(text));
	} else {
		sm_error_set(err, SM_ERR_MISSING_FIELD, "field 'key' or 'text' is required");
		return -1;
	}
	return 0;
}

/* The pane after (step 1) or before (-1) p in its window's layout
 * order, the order every pane listing uses, wrapping around. */
static struct pane *pane_in_order(struct pane *p, int step)
{
	struct pane *first = p->window->panes, *last = first;

	while (last->next != NULL)
		last = last->next;
	if (step > 0)
		return p->next != NULL ? p->next : first;
	for (struct pane *q = first; q != NULL; q = q->next)
		if (q->next == p)
			return q;
	return last;
}

CMD_HANDLER(cmd_select_pane)
{
	const char *dir_name = NULL;
	struct pane *p;
	enum layout_direction dir;

	if (cmd_get_string(req, "dir", false, &dir_name, err) < 0)
		return -1;
	if (dir_name == NULL) {
		if ((p = cmd_target_pane(c, req, err)) == NULL)
			return -1;
	} else if (strcmp(dir_name, "next") == 0 || strcmp(dir_name, "prev") == 0) {
		if ((p = cmd_target_pane(c, req, err)) == NULL)
			return -1;
		p = pane_in_order(p, dir_name[0] == 'n' ? 1 : -1);
	} else {
		struct layout_cell *next;
		if ((p = cmd_target_pane(c, req, err)) == NULL)
			return -1;
		if (!layout_direction_from_name(dir_name, &dir)) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "dir must be left, right, up, down, next or prev");
			return -1;
		}
		next = layout_neighbour(p->window->root, p->cell, dir,
					p->window->last_active != NULL ? p->window->last_active->cell
									: NULL);
		if (next == NULL)
			return 0;
		p = next->pane;
	}
	window_focus_pane(p->window, p);
	session_focus_window(p->window->session, p->window);
	cJSON_AddNumberToObject(result, "pane", p->id);
	server_broadcast_layout(p->window->session);
	return 0;
}

CMD_HANDLER(cmd_resize_pane)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const char *dir_name = NULL;
	enum layout_direction dir;
	int amount = 1;

	if (p == NULL || cmd_get_string(req, "dir", true, &dir_name, err) < 0 ||
	    cmd_get_int(req, "amount", false, &amount, err) < 0)
		return -1;
	if (!layout_direction_from_name(dir_name, &dir)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "dir must be left, right, up or down");
		return -1;
	}
	if (p->floating) {
		/* A floating box: its right or bottom edge moves that way. */
		bool wide = dir == LAYOUT_LEFT || dir == LAYOUT_RIGHT;
		int sign = dir == LAYOUT_RIGHT || dir == LAYOUT_DOWN ? 1 : -1;

		float_resize(p, p->cell->w + (wide ? sign * amount : 0),
			     p->cell->h + (wide ? 0 : sign * amount));
	} else if (layout_resize(p->cell, dir, amount)) {
		window_relayout(p->window);
		server_broadcast_layout(p->window->session);
	}
	return 0;
}

CMD_HANDLER(cmd_zoom)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct window *w;

	if (p == NULL)
		return -1;
	w = p->window;
	w->zoomed = w->zoomed == p ? NULL : p;
	if (w->zoomed != NULL)
		window_focus_pane(w, p);
	window_relayout(w);
	cJSON_AddBoolToObject(result, "zoomed", w->zoomed != NULL);
	server_broadcast_layout(w->session);
	return 0;
}

CMD_HANDLER(cmd_new_window)
{
	const char *name = NULL;
	struct session *s = c->attached;
	struct window *window, *shown, *last;
	char here[PATH_MAX];
	struct pane_spawn spawn;
	struct sm_error launch_err = { 0 };
	struct pane *p;

	if (cmd_get_string(req, "session", false, &name, err) < 0)
		return -1;
	if (name != NULL && (s = cmd_resolve_session(c, name, err)) == NULL)
		return -1;
	if (s == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "no session %.64s", "attached");
		return -1;
	}
	shown = s->active;
	last = s->last;
	if (cmd_parse_spawn(req, &spawn, err) < 0)
		return -1;
	if (spawn.cwd == NULL && s->active != NULL && s->active->active != NULL)
		spawn.cwd = pane_cwd_for_new_pane(s->active->active, here, sizeof here);
	cmd_spawn_inherit(&spawn, s->active != NULL ? s->active->active : NULL);
	spawn.cols = s->cols;
	spawn.rows = s->rows - 1;
	spawn.session = s->name;
	p = pane_new(&spawn, &launch_err);
	cmd_free_spawn(&spawn);
	window = window_create(s, p);
	/* tmux's new-window -d: made, but the session stays where it was. */
	if (cmd_get_bool(req, "detached", false) && shown != NULL) {
		s->active = shown;
		s->last = last;
	}
	cJSON_AddNumberToObject(result, "window", window->index);
	server_broadcast_layout(s);
	return cmd_pane_result(p, result, &launch_err, err);
}

CMD_HANDLER(cmd_select_window)
{
	struct session *s = c->attached;
	struct window *target = NULL;
	int index = -1;

	if (s == NULL) {
		sm_error_set(err, SM_ERR_NOT_ATTACHED, "select-window needs an attached client");
		return -1;
	}
	if (cmd_get_int(req, "index", false, &index, err) < 0)
		return -1;
	if (index >= 0) {
		for (struct window *w = s->windows; w != NULL; w = w->next)
			if (w->index == index)
				target = w;
	} else if (cmd_get_bool(req, "next", false)) {
		target = s->active->next ? s->active->next : s->windows;
	} else if (cmd_get_bool(req, "prev", false)) {
		for (struct window *w = s->windows; w != NULL; w = w->next)
			if (w->next == s->active || (s->active == s->windows && w->next == NULL))
				target = w;
	}
	if (target == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_WINDOW, "no such window");
		return -1;
	}
	session_focus_window(s, target);
	server_broadcast_layout(s);
	return 0;
}

/* tmux's switch-client -t: the client shows the target's session, with
 * the target's window and pane made the current ones (choose-tree's
 * Enter).  A session left behind is fitted to the clients it still has. */
CMD_HANDLER(cmd_switch_client)
{
	struct session *old = c->attached, *s;
	struct pane *p;

	if (old == NULL) {
		sm_error_set(err, SM_ERR_NOT_ATTACHED, "switch-client needs an attached client");
		return -1;
	}
	if ((p = cmd_target_pane(c, req, err)) == NULL)
		return -1;
	if (p->window == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_PANE, "pane %%%d is in no window", p->id);
		return -1;
	}
	s = p->window->session;
	window_focus_pane(p->window, p);
	session_focus_window(s, p->window);
	if (s != old) {
		server_attach(c, s);
		session_fit_clients(old);
		server_broadcast_layout(old);
	}
	server_broadcast_layout(s);
	cJSON_AddStringToObject(result, "session", s->name);
	cJSON_AddNumberToObject(result, "pane", p->id);
	return 0;
}
