/*
 * cmd-pane: commands on one pane — split, send-keys, send-text, capture,
 * history, resize, kill-pane, suspend, resume.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "log.h"
#include "os.h"
#include "term.h"
#include "xalloc.h"

/* The feed pane's program: the interactive feed (`sandmux events --feed`,
 * src/cli-feed.c) of this server for the session.  It reads events on the
 * host: never inherited into a sandbox, whatever the split asked. */
int split_feed_spawn(const struct session *s, struct pane_spawn *spawn, struct sm_error *err)
{
	static char exe[PATH_MAX];
	const char *argv[] = { exe, "-L", server.name, "events", "--feed", "--session", s->name };

	if (os_self_exe(exe, sizeof exe) != 0) {
		cmd_free_spawn(spawn);
		sm_error_set(err, SM_ERR_FAILED, "cannot find the sandmux binary");
		return -1;
	}
	cmd_free_spawn(spawn);
	spawn->argv = xcalloc(8, sizeof *spawn->argv);
	for (size_t i = 0; i < 7; i++)
		spawn->argv[i] = xstrdup(argv[i]);
	spawn->backend = SANDBOX_NONE;
	spawn->backend_explicit = true;
	spawn->profile = NULL;
	return 0;
}

CMD_HANDLER(cmd_split)
{
	struct pane *target = cmd_target_pane(c, req, err), *p;
	const char *direction = "v";
	char here[PATH_MAX];
	struct pane_spawn spawn;
	struct sm_error launch_err = { 0 };
	enum layout_type type;
	struct window *w;
	struct pane *zoomed;
	int percent = 50;
	bool full = cmd_get_bool(req, "full", false);
	bool feed = cmd_get_bool(req, "feed", false);
	struct layout_cell *cell;

	if (target == NULL || cmd_get_string(req, "direction", false, &direction, err) < 0 ||
	    cmd_get_int(req, "size", false, &percent, err) < 0)
		return -1;
	if (strcmp(direction, "h") != 0 && strcmp(direction, "v") != 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "direction must be \"h\" or \"v\"");
		return -1;
	}
	if (cmd_get_bool(req, "float", false))
		return cmd_split_float(c, req, target, feed, result, err);
	/* A floating pane is no leaf to split: the tiled pane under it is. */
	if (target->floating && (target = window_tiled_pane(target->window)) == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "the window has no tiled pane to split");
		return -1;
	}
	type = direction[0] == 'h' ? LAYOUT_LEFTRIGHT : LAYOUT_TOPBOTTOM;
	w = target->window;
	/* Unzoomed to split, as tmux does; zoomed again when there is no
	 * room, so a refused split leaves the window as it was. */
	zoomed = w->zoomed;
	if (zoomed != NULL) {
		w->zoomed = NULL;
		window_relayout(w);
	}
	/* -f, as tmux: the new pane spans the window's full width or height. */
	cell = full ? w->root : target->cell;
	if (!layout_can_split(cell, type)) {
		if (zoomed != NULL) {
			w->zoomed = zoomed;
			window_relayout(w);
		}
		sm_error_set(err, SM_ERR_NO_SPACE, "pane %%%d is too small to split", target->id);
		return -1;
	}
	if (cmd_parse_spawn(req, &spawn, err) < 0 ||
	    (feed && split_feed_spawn(w->session, &spawn, err) < 0))
		return -1;
	if (spawn.cwd == NULL) /* tmux's -c "#{pane_current_path}", checked */
		spawn.cwd = pane_cwd_for_new_pane(target, here, sizeof here);
	cmd_spawn_inherit(&spawn, target);
	spawn.session = w->session->name;
	/* A first size; the layout gives the real one at once. */
	spawn.cols = type == LAYOUT_LEFTRIGHT ? (cell->w - 1) / 2 : cell->w;
	spawn.rows = type == LAYOUT_LEFTRIGHT ? cell->h - 1 : (cell->h - 2) / 2;
	p = pane_new(&spawn, &launch_err);
	p->feed = feed;
	cmd_free_spawn(&spawn);
	p->cell = layout_split_whole(cell, type, percent, p);
	p->window = w;
	if (full) /* last in the window's order, as it is last on screen */
		while (target->next != NULL)
			target = target->next;
	p->next = target->next;
	target->next = p;
	window_focus_pane(w, p);
	window_relayout(w);
	server_broadcast_layout(w->session);
	return cmd_pane_result(p, result, &launch_err, err);
}

static void send_one_key(struct pane *p, const char *key, bool literal)
{
	struct term_key k;

	if (!literal && term_key_parse(key, &k))
		term_send_key(p->term, &k);
	else
		term_send_text(p->term, key, strlen(key));
}

CMD_HANDLER(cmd_send_keys)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const cJSON *keys = cJSON_GetObjectItem(req, "keys");
	bool literal = cmd_get_bool(req, "literal", false);
	const cJSON *k;

	if (p == NULL)
		return -1;
	if (!cJSON_IsArray(keys)) {
		sm_error_set(err, SM_ERR_MISSING_FIELD, "field 'keys' (array of strings) is required");
		return -1;
	}
	cJSON_ArrayForEach(k, keys)
	{
		if (!cJSON_IsString(k)) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "keys must be strings");
			return -1;
		}
	}
	if (cmd_get_bool(req, "mode", false))
		return server_tty_mode_commands(p, keys, err);
	cJSON_ArrayForEach(k, keys)
	send_one_key(p, k->valuestring, literal);
	return 0;
}

CMD_HANDLER(cmd_send_text)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const char *text = NULL;

	if (p == NULL || cmd_get_string(req, "text", true, &text, err) < 0)
		return -1;
	term_send_text(p->term, text, strlen(text));
	return 0;
}

/* Rows: 0 is the top of the screen, negative rows reach into history. */
static int cmd_row_range(const cJSON *req, struct pane *p, int *start, int *end,
			 struct sm_error *err)
{
	int history = term_history_lines(p->term), rows = term_rows(p->term);

	*start = 0;
	*end = rows - 1;
	if (cmd_get_int(req, "start", false, start, err) < 0 ||
	    cmd_get_int(req, "end", false, end, err) < 0)
		return -1;
	if (*start < -history)
		*start = -history;
	if (*end > rows - 1)
		*end = rows - 1;
	if (*start > *end) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "start %d is after end %d", *start, *end);
		return -1;
	}
	return 0;
}

CMD_HANDLER(cmd_capture)
{
	struct pane *p = cmd_target_pane(c, req, err);
	int start, end;
	size_t len;
	char *text;

	if (p == NULL || cmd_row_range(req, p, &start, &end, err) < 0)
		return -1;
	if (cmd_get_bool(req, "last_command", false) && !term_last_command(p->term, &start, &end)) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "pane %%%d's shell marked no command (OSC 133: see docs/sandmux.1)", p->id);
		return -1;
	}
	text = start <= end ? term_capture(p->term, start, end, cmd_get_bool(req, "ansi", false), &len)
			    : xstrdup("");
	cJSON_AddStringToObject(result, "text", text);
	free(text);
	cJSON_AddNumberToObject(result, "rows", term_rows(p->term));
	cJSON_AddNumberToObject(result, "cols", term_cols(p->term));
	cJSON_AddNumberToObject(result, "history", term_history_lines(p->term));
	return 0;
}

CMD_HANDLER(cmd_history)
{
	struct pane *p = cmd_target_pane(c, req, err);
	cJSON *rows;
	int start, end;

	if (p == NULL || cmd_row_range(req, p, &start, &end, err) < 0)
		return -1;
	if (end - start > 20000)
		start = end - 20000;
	rows = cJSON_AddArrayToObject(result, "rows");
	for (int r = start; r <= end; r++)
		cJSON_AddItemToArray(rows, server_row_json(p->term, r));
	cJSON_AddNumberToObject(result, "history", term_history_lines(p->term));
	return 0;
}

CMD_HANDLER(cmd_resize)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct session *s;
	int cols, rows, attached = 0;

	if (p == NULL)
		return -1;
	cols = p->cols;
	rows = p->rows;
	if (cmd_get_int(req, "cols", false, &cols, err) < 0 ||
	    cmd_get_int(req, "rows", false, &rows, err) < 0)
		return -1;
	if (cols < 1 || cols > 1000 || rows < 1 || rows > 1000) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "size must be 1..1000");
		return -1;
	}
	s = p->window->session;
	for (struct conn *k = server.conns; k != NULL; k = k->next)
		attached += k->attached == s;
	if (p->floating && p->window->zoomed != p) {
		/* A floating pane's content is its box less the border. */
		float_resize(p, cols + 2, rows + 2);
	} else if (attached == 0 && (p->window->panes->next == NULL || p->window->zoomed == p)) {
		/* A lone pane of a detached session: the window follows it. */
		session_resize(s, cols, rows + 1);
	} else {
		layout_grow(p->cell, LAYOUT_LEFTRIGHT, cols - p->cols);
		layout_grow(p->cell, LAYOUT_TOPBOTTOM, rows - p->rows);
		window_relayout(p->window);
		server_broadcast_layout(s);
	}
	cJSON_AddNumberToObject(result, "cols", p->cols);
	cJSON_AddNumberToObject(result, "rows", p->rows);
	return 0;
}

CMD_HANDLER(cmd_kill_pane)
{
	struct pane *p = cmd_target_pane(c, req, err);

	if (p == NULL)
		return -1;
	pane_kill(p, "kill-pane");
	return 0;
}

/* The file a pane's sandbox is saved to by suspend --to-disk: in the
 * state directory (private, 0700), named after the pane and the server. */
static int suspend_state_path(const struct pane *p, char *out, size_t size, struct sm_error *err)
{
	char dir[PATH_MAX];

	if (paths_state_dir(dir, sizeof dir) != 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot make the state directory %s: %s", dir,
			     strerror(errno));
		return -1;
	}
	snprintf(out, size, "%s/pane-%d.%d.vmstate", dir, p->id, (int)getpid());
	return 0;
}

static int cmd_suspend_resume(struct conn *c, const cJSON *req, struct sm_error *err,
			      bool suspend)
{
	struct pane *p = cmd_target_pane(c, req, err);
	bool to_disk = cJSON_IsTrue(cJSON_GetObjectItem(req, "to_disk"));
	int rc;

	if (p == NULL)
		return -1;
	if (p->state == SANDBOX_ERROR || p->exited || p->ops == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d is not running", p->id);
		return -1;
	}
	if (to_disk && p->ops->suspend_to_disk == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "pane %%%d runs under %s: only a microvm pane can be suspended to disk",
			     p->id, p->ops->name);
		return -1;
	}
	if (to_disk && p->state == SANDBOX_SUSPENDED) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "pane %%%d is already suspended: resume it first", p->id);
		return -1;
	}
	if (suspend == (p->state == SANDBOX_SUSPENDED))
		return 0;
	if (to_disk) {
		char path[PATH_MAX];

		if (suspend_state_path(p, path, sizeof path, err) != 0 ||
		    p->ops->suspend_to_disk(&p->launch, path, err) != 0)
			return -1;
		rc = 0;
	} else {
		rc = suspend ? p->ops->suspend(&p->launch) : p->ops->resume(&p->launch, err);
	}
	if (rc < 0) {
		if (err->code[0] == '\0')
			sm_error_set(err, SM_ERR_FAILED, "cannot %s pane %%%d",
				     suspend ? "suspend" : "resume", p->id);
		return -1;
	}
	p->state = suspend ? SANDBOX_SUSPENDED : SANDBOX_WARM;
	{
		cJSON *ev = events_lifecycle(suspend ? "suspended" : "resumed", p);

		if (to_disk)
			cJSON_AddBoolToObject(ev, "toDisk", true);
		events_emit(ev);
	}
	server_broadcast_layout(p->window->session);
	return 0;
}

CMD_HANDLER(cmd_suspend)
{
	return cmd_suspend_resume(c, req, err, true);
}

CMD_HANDLER(cmd_resume)
{
	return cmd_suspend_resume(c, req, err, false);
}

static struct pane *window_feed_pane(struct window *w)
{
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->feed && !p->exited)
			return p;
	return NULL;
}

/* How wide the feed is readable: time, pane and label, action, a count,
 * and 60 columns for the target and the reason (docs/feed.md). */
#define FEED_READABLE_COLS 100
/* What the pane beside a feed keeps, at the least. */
#define FEED_BESIDE_MIN_COLS 40
/* The feed's rows when it spans the window below its panes. */
#define FEED_BELOW_MIN_ROWS 8

/* Beside the pane when both stay readable (at least 40% of the pane,
 * and FEED_READABLE_COLS); else full-width below every pane of the
 * window, as tmux's split-window -fv, a third of its height. */
static void feed_placement(const struct window *w, const struct pane *from, cJSON *split)
{
	int percent;

	if (from->cols >= FEED_READABLE_COLS + 1 + FEED_BESIDE_MIN_COLS) {
		percent = (FEED_READABLE_COLS * 100 + from->cols - 1) / from->cols;
		cJSON_AddStringToObject(split, "direction", "h");
		cJSON_AddNumberToObject(split, "size", percent > 40 ? percent : 40);
		return;
	}
	percent = w->root->h > 0 ? ((FEED_BELOW_MIN_ROWS + 1) * 100 + w->root->h - 1) / w->root->h
				 : 33;
	cJSON_AddStringToObject(split, "direction", "v");
	cJSON_AddBoolToObject(split, "full", true);
	cJSON_AddNumberToObject(split, "size", percent < 33 ? 33 : percent > 50 ? 50 : percent);
}

/* The feed pane: a pane running the interactive feed (`sandmux events
 * --feed`, src/cli-feed.c) for the session, beside the active pane or below
 * the window's (feed_placement), so it scrolls, searches and copies like
 * any pane.  One per window: asked again, the open one
 * gets the focus; with toggle (C-b v), a focused feed closes. */
CMD_HANDLER(cmd_feed)
{
	struct session *s = cmd_request_session(c, req, err);
	struct pane *feed, *from;
	cJSON *split;
	int rc;

	if (s == NULL)
		return -1;
	if (s->active == NULL || s->active->active == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "session %.64s has no pane", s->name);
		return -1;
	}
	from = s->active->active;
	if ((feed = window_feed_pane(s->active)) != NULL) {
		cJSON_AddNumberToObject(result, "pane", feed->id);
		if (feed == from && cmd_get_bool(req, "toggle", false)) {
			cJSON_AddBoolToObject(result, "closed", true);
			pane_kill(feed, "feed closed");
			return 0;
		}
		window_focus_pane(s->active, feed);
		server_broadcast_layout(s);
		return 0;
	}
	split = cJSON_CreateObject();
	cJSON_AddNumberToObject(split, "pane", from->id);
	if (cmd_get_bool(req, "float", false)) {
		static const char *const box[] = { "x", "y", "width", "height" };

		cJSON_AddBoolToObject(split, "float", true);
		for (size_t i = 0; i < sizeof box / sizeof box[0]; i++)
			if (cJSON_GetObjectItem(req, box[i]) != NULL)
				cJSON_AddItemToObject(split, box[i],
						      cJSON_Duplicate(cJSON_GetObjectItem(req, box[i]), 1));
	} else {
		feed_placement(s->active, window_tiled_pane(s->active), split);
	}
	cJSON_AddBoolToObject(split, "feed", true);
	/* Named, so that no default backend is chosen (and stepped down) for it. */
	cJSON_AddStringToObject(split, "backend", "none");
	rc = cmd_split(c, split, result, err);
	cJSON_Delete(split);
	return rc;
}

/* respawn-pane: the pane's program again, in the same place, under the
 * same backend and profile, asked for explicitly so that it never steps
 * down: a native pane whose sandbox cannot start again is FAILED with the
 * reason, like any launch (docs/design.md invariants 3 and 4). */
CMD_HANDLER(cmd_respawn_pane)
{
	struct pane *old = cmd_target_pane(c, req, err), *p, **link;
	struct sm_error launch_err = { 0 };
	struct pane_spawn spawn;
	struct layout_cell *cell;
	struct window *w;
	char cwd[PATH_MAX];
	bool was_active, was_last, was_zoomed, floating, popup;
	struct layout_float float_want;
	unsigned float_z;
	cJSON *launch;

	if (old == NULL)
		return -1;
	if (old->state != SANDBOX_ERROR && !old->exited && old->ops != NULL &&
	    !cmd_get_bool(req, "kill", false)) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "pane %%%d is still running (respawn-pane -k kills it first)", old->id);
		return -1;
	}
	launch = cJSON_Duplicate(req, 1);
	cJSON_DeleteItemFromObject(launch, "backend");
	cJSON_DeleteItemFromObject(launch, "profile");
	cJSON_AddStringToObject(launch, "backend", sandbox_backend_name(old->requested));
	cJSON_AddStringToObject(launch, "profile", old->profile);
	if (cmd_parse_spawn(launch, &spawn, err) < 0) {
		cJSON_Delete(launch);
		return -1;
	}
	snprintf(cwd, sizeof cwd, "%s", old->cwd);
	if (spawn.cwd == NULL)
		spawn.cwd = cwd;
	spawn.remain_on_exit = spawn.remain_on_exit || old->remain_on_exit;
	spawn.session = old->window->session->name;
	spawn.cols = old->cols;
	spawn.rows = old->rows;
	spawn.id = old->id;
	/* The old program goes first (pane_free kills it, with its event):
	 * its sandbox, egress link and id are released before the new one
	 * takes them. */
	w = old->window;
	cell = old->cell;
	was_active = w->active == old;
	was_last = w->last_active == old;
	was_zoomed = w->zoomed == old;
	floating = old->floating, popup = old->popup;
	float_want = old->float_want, float_z = old->float_z;
	for (link = &w->panes; *link != old; link = &(*link)->next)
		;
	*link = old->next;
	pane_free(old);
	p = pane_new(&spawn, &launch_err);
	cmd_free_spawn(&spawn);
	cJSON_Delete(launch);
	p->window = w;
	p->cell = cell;
	cell->pane = p;
	p->floating = floating, p->popup = popup;
	p->float_want = float_want, p->float_z = float_z;
	p->next = *link;
	*link = p;
	if (was_active)
		w->active = p;
	if (was_last)
		w->last_active = p;
	if (was_zoomed)
		w->zoomed = p;
	window_relayout(w);
	/* Same id, same size: without this a client would keep the old
	 * program's cells. */
	server_forget_pane(p);
	server_broadcast_layout(w->session);
	return cmd_pane_result(p, result, &launch_err, err);
}
