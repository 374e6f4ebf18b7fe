/*
 * cmd-layout: commands that move panes within and between windows, as
 * tmux names them — last-pane, swap-pane, break-pane, join-pane,
 * select-layout (tmux's five presets) and next-layout.
 *
 * A window's pane list is kept in the layout's leaf order (split inserts
 * after its target), so "previous" and "next" pane, and a preset's main
 * pane (the first), mean the same on screen and in the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "xalloc.h"

static void window_changed(struct window *w)
{
	window_relayout(w);
	server_broadcast_layout(w->session);
}

CMD_HANDLER(cmd_last_pane)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct window *w;

	if (p == NULL)
		return -1;
	w = p->window;
	if (w->last_active == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no last pane");
		return -1;
	}
	window_focus_pane(w, w->last_active);
	cJSON_AddNumberToObject(result, "pane", w->active->id);
	server_broadcast_layout(w->session);
	return 0;
}

/* The window's panes in list (leaf) order, in a new array. */
static struct pane **window_pane_array(struct window *w, int *n)
{
	struct pane **list;
	int count = 0;

	for (struct pane *p = w->panes; p != NULL; p = p->next)
		count++;
	list = xcalloc((size_t)count, sizeof *list);
	count = 0;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		list[count++] = p;
	*n = count;
	return list;
}

/* Exchange two panes of one window: their leaves and their places in the
 * list, so the list stays in leaf order. */
static void panes_swap(struct pane *a, struct pane *b)
{
	struct layout_cell *cell = a->cell;
	struct pane **list, **link;
	int n = 0;

	a->cell = b->cell;
	b->cell = cell;
	a->cell->pane = a;
	b->cell->pane = b;
	list = window_pane_array(a->window, &n);
	for (int i = 0; i < n; i++)
		list[i] = list[i] == a ? b : list[i] == b ? a : list[i];
	link = &a->window->panes;
	for (int i = 0; i < n; i++) {
		*link = list[i];
		link = &list[i]->next;
	}
	*link = NULL;
	free(list);
}

CMD_HANDLER(cmd_swap_pane)
{
	struct pane *p = cmd_target_pane(c, req, err), *other = NULL;
	const char *dir = NULL, *source = NULL;

	if (p == NULL || cmd_get_string(req, "dir", false, &dir, err) < 0 ||
	    cmd_get_string(req, "source", false, &source, err) < 0)
		return -1;
	if (source != NULL) {
		if ((other = cmd_resolve_pane(c, source, err)) == NULL)
			return -1;
	} else if (dir != NULL && (strcmp(dir, "up") == 0 || strcmp(dir, "down") == 0)) {
		struct pane *first = p->window->panes, *prev = NULL;
		for (struct pane *q = first; q != NULL; q = q->next)
			if (q->next == p || (p == first && q->next == NULL))
				prev = q;
		other = dir[0] == 'u' ? prev : (p->next != NULL ? p->next : first);
	} else {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "swap-pane needs -U, -D or -s PANE");
		return -1;
	}
	if (other->window != p->window) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "swap-pane: %%%d and %%%d are in different windows", p->id, other->id);
		return -1;
	}
	if (other == p)
		return 0;
	if (p->floating || other->floating) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "swap-pane: %%%d is floating",
			     p->floating ? p->id : other->id);
		return -1;
	}
	panes_swap(p, other);
	p->window->zoomed = NULL;
	cJSON_AddNumberToObject(result, "pane", p->id);
	window_changed(p->window);
	return 0;
}

CMD_HANDLER(cmd_break_pane)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct window *from;
	struct session *s;

	if (p == NULL)
		return -1;
	from = p->window;
	s = from->session;
	if (from->panes->next == NULL || pane_holds_floats(p)) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d is alone in its window%s", p->id,
			     from->panes->next == NULL ? "" : " but for floating panes");
		return -1;
	}
	window_detach_pane(p);
	window_relayout(from);
	window_create(s, p);
	cJSON_AddNumberToObject(result, "window", p->window->index);
	cJSON_AddNumberToObject(result, "pane", p->id);
	window_changed(p->window);
	return 0;
}

CMD_HANDLER(cmd_join_pane)
{
	struct pane *target = cmd_target_pane(c, req, err), *src;
	const char *direction = "v", *source = NULL;
	enum layout_type type;
	struct window *from, *to;
	struct pane *zoomed;
	struct session *from_session;

	if (target == NULL || cmd_get_string(req, "source", true, &source, err) < 0 ||
	    cmd_get_string(req, "direction", false, &direction, err) < 0 ||
	    (src = cmd_resolve_pane(c, source, err)) == NULL)
		return -1;
	if (src->window == target->window) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "join-pane: %%%d is already in that window",
			     src->id);
		return -1;
	}
	if (strcmp(direction, "h") != 0 && strcmp(direction, "v") != 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "direction must be \"h\" or \"v\"");
		return -1;
	}
	if (pane_holds_floats(src)) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "join-pane: %%%d is the last tiled pane under floating panes", src->id);
		return -1;
	}
	/* A floating pane is no leaf to split: the tiled pane under it is. */
	if (target->floating)
		target = window_tiled_pane(target->window);
	type = direction[0] == 'h' ? LAYOUT_LEFTRIGHT : LAYOUT_TOPBOTTOM;
	to = target->window;
	/* Unzoomed to split, as tmux does; zoomed again when there is no
	 * room, so a refused split leaves the window as it was. */
	zoomed = to->zoomed;
	if (zoomed != NULL) {
		to->zoomed = NULL;
		window_relayout(to);
	}
	if (!layout_can_split(target->cell, type)) {
		if (zoomed != NULL) {
			to->zoomed = zoomed;
			window_relayout(to);
		}
		sm_error_set(err, SM_ERR_NO_SPACE, "pane %%%d is too small to split", target->id);
		return -1;
	}
	from = src->window;
	from_session = from->session;
	window_detach_pane(src);
	src->cell = layout_split(target->cell, type, 50, src);
	target->cell = target->cell->first;
	src->window = to;
	src->next = target->next;
	target->next = src;
	window_focus_pane(to, src);
	session_focus_window(to->session, to);
	if (from->panes == NULL) {
		window_destroy(from);
		if (from_session->windows == NULL)
			session_destroy(from_session);
		else if (from_session != to->session)
			server_broadcast_layout(from_session);
	} else {
		window_relayout(from);
		server_broadcast_layout(from_session);
	}
	cJSON_AddNumberToObject(result, "pane", src->id);
	window_changed(to);
	return 0;
}

static void window_apply_preset(struct window *w, enum layout_preset preset)
{
	int n;
	struct pane **list = window_pane_array(w, &n);
	int tiled = 0;

	/* Floating panes stay where they float. */
	for (int i = 0; i < n; i++)
		if (!list[i]->floating)
			list[tiled++] = list[i];
	n = tiled;
	layout_free(w->root);
	w->root = layout_build_preset(preset, list, n, w->session->cols, w->session->rows);
	free(list);
	w->zoomed = NULL;
	w->preset_used = 1 + (int)preset;
}

CMD_HANDLER(cmd_select_layout)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const char *name = NULL;
	enum layout_preset preset;

	if (p == NULL || cmd_get_string(req, "layout", true, &name, err) < 0)
		return -1;
	if (!layout_preset_from_name(name, &preset)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "no layout '%.64s' (even-horizontal, even-vertical, main-horizontal, "
			     "main-vertical, tiled)", name);
		return -1;
	}
	window_apply_preset(p->window, preset);
	cJSON_AddStringToObject(result, "layout", layout_preset_name(preset));
	window_changed(p->window);
	return 0;
}

CMD_HANDLER(cmd_next_layout)
{
	struct pane *p = cmd_target_pane(c, req, err);
	enum layout_preset preset;

	if (p == NULL)
		return -1;
	/* preset_used is 1 + the last one, so this is the one after it. */
	preset = (enum layout_preset)(p->window->preset_used % LAYOUT_NPRESETS);
	window_apply_preset(p->window, preset);
	cJSON_AddStringToObject(result, "layout", layout_preset_name(preset));
	window_changed(p->window);
	return 0;
}
