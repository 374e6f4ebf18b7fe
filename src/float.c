/*
 * float: floating panes, boxes over a window's tiled layout.
 *
 * A floating pane is a pane like any other (its backend, state,
 * scrollback, label), listed in its window's panes, but not a leaf of
 * the split tree: its cell stands alone and holds its box, placed by
 * layout-float.c from the box asked for.  A window's floating panes are
 * shown or hidden together (toggle-floating, C-b W); hidden, they keep
 * running and keep everything they had.  The stack order is float_z:
 * the pane focused last is on top.  A popup (display-popup) is a
 * floating pane that goes when its program ends and is never saved.
 */

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "server.h"

static unsigned float_top; /* the highest float_z given so far */

bool pane_float_shown(const struct pane *p)
{
	const struct window *w = p->window;

	return p->floating && w != NULL && !w->floats_hidden && w->zoomed == NULL;
}

/* Make p (new, not yet in any window) a floating pane of w, last in its
 * pane list and on top of the stack. */
static void float_attach(struct window *w, struct pane *p, const struct layout_float *want)
{
	struct pane **tail = &w->panes;

	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = p;
	p->next = NULL;
	p->window = w;
	p->floating = true;
	p->float_want = *want;
	p->cell = layout_new_leaf(p);
	p->float_z = ++float_top;
	w->floats_hidden = false;
}

void float_relayout(struct pane *p)
{
	struct session *s = p->window->session;
	struct layout_float box;
	int cols, rows;

	layout_float_place(&p->float_want, s->cols, s->rows, &box);
	p->cell->x = box.x;
	p->cell->y = box.y;
	p->cell->w = box.w;
	p->cell->h = box.h;
	layout_float_content(&box, &p->x, &p->y, &cols, &rows);
	pane_resize(p, cols, rows);
}

void float_focused(struct pane *p)
{
	if (p->float_z != float_top)
		p->float_z = ++float_top;
	p->window->floats_hidden = false;
}

int float_stack(struct window *w, struct pane **out, int max)
{
	int n = 0;

	for (struct pane *p = w->panes; p != NULL && n < max; p = p->next) {
		int at = n++;

		if (!pane_float_shown(p)) {
			n--;
			continue;
		}
		/* Insertion by float_z: a window holds a handful. */
		while (at > 0 && out[at - 1]->float_z > p->float_z) {
			out[at] = out[at - 1];
			at--;
		}
		out[at] = p;
	}
	return n;
}

#define FLOAT_STACK_MAX 64

struct pane *float_at(struct window *w, int x, int y, bool *corner, bool *border)
{
	struct pane *stack[FLOAT_STACK_MAX];
	int n = float_stack(w, stack, FLOAT_STACK_MAX);

	for (int i = n - 1; i >= 0; i--) {
		const struct layout_cell *box = stack[i]->cell;
		int right = box->x + box->w - 1, bottom = box->y + box->h - 1;

		if (x < box->x || x > right || y < box->y || y > bottom)
			continue;
		*corner = x == right && y == bottom;
		*border = !*corner && (y == box->y || y == bottom || x == box->x || x == right);
		return stack[i];
	}
	return NULL;
}

/* The box as placed now becomes the box asked for, so that a move keeps
 * the size seen and a resize keeps the place seen. */
static void float_pin(struct pane *p)
{
	p->float_want = (struct layout_float){p->cell->x, p->cell->y, p->cell->w, p->cell->h};
}

void float_move(struct pane *p, int x, int y)
{
	float_pin(p);
	p->float_want.x = x < 0 ? 0 : x;
	p->float_want.y = y < 0 ? 0 : y;
	float_relayout(p);
	server_broadcast_layout(p->window->session);
}

void float_resize(struct pane *p, int w, int h)
{
	float_pin(p);
	/* Never 0, which would ask for half the window. */
	p->float_want.w = w < LAYOUT_FLOAT_MIN_W ? LAYOUT_FLOAT_MIN_W : w;
	p->float_want.h = h < LAYOUT_FLOAT_MIN_H ? LAYOUT_FLOAT_MIN_H : h;
	float_relayout(p);
	server_broadcast_layout(p->window->session);
}

struct pane *window_tiled_pane(struct window *w)
{
	if (w->active != NULL && !w->active->floating)
		return w->active;
	if (w->last_active != NULL && !w->last_active->floating)
		return w->last_active;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (!p->floating)
			return p;
	return NULL;
}

bool pane_holds_floats(const struct pane *p)
{
	bool floats = false;

	if (p->floating)
		return false;
	for (const struct pane *q = p->window->panes; q != NULL; q = q->next) {
		if (q != p && !q->floating)
			return false;
		floats = floats || q->floating;
	}
	return floats;
}

/* ---- commands ---- */

/* The pane a command names, else the active pane of the attached
 * session, else of the first (a popup opened from the command line). */
static struct pane *float_target(struct conn *c, const cJSON *req, struct sm_error *err)
{
	struct session *s;

	if (cJSON_GetObjectItem(req, "target") != NULL || cJSON_GetObjectItem(req, "pane") != NULL)
		return cmd_target_pane(c, req, err);
	if ((s = cmd_request_session(c, req, err)) == NULL)
		return NULL;
	if (s->active == NULL || s->active->active == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_SESSION, "session %.64s has no pane", s->name);
		return NULL;
	}
	return s->active->active;
}

/* The box a request asks for: "x", "y" (absent: centred), "width",
 * "height" (absent: half the window's). */
static int float_request_box(const cJSON *req, struct layout_float *want, struct sm_error *err)
{
	*want = (struct layout_float){-1, -1, 0, 0};
	if (cmd_get_int(req, "x", false, &want->x, err) < 0 ||
	    cmd_get_int(req, "y", false, &want->y, err) < 0 ||
	    cmd_get_int(req, "width", false, &want->w, err) < 0 ||
	    cmd_get_int(req, "height", false, &want->h, err) < 0)
		return -1;
	if (want->x < -1 || want->y < -1 || want->w < 0 || want->h < 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "a floating box's place and size are >= 0");
		return -1;
	}
	return 0;
}

/* A new floating pane in from's window, started as spawn says (owned
 * here), focused; popup: it goes when its program ends. */
static struct pane *float_open(struct pane *from, struct pane_spawn *spawn,
			       const struct layout_float *want, bool popup,
			       struct sm_error *launch_err)
{
	struct window *w = from->window;
	struct layout_float box;
	struct pane *p;
	int x, y;

	layout_float_place(want, w->session->cols, w->session->rows, &box);
	layout_float_content(&box, &x, &y, &spawn->cols, &spawn->rows);
	spawn->session = w->session->name;
	p = pane_new(spawn, launch_err);
	cmd_free_spawn(spawn);
	p->popup = popup;
	float_attach(w, p, want);
	window_focus_pane(w, p);
	window_relayout(w);
	server_broadcast_layout(w->session);
	return p;
}

int cmd_split_float(struct conn *c, const cJSON *req, struct pane *target, bool feed, cJSON *result,
		    struct sm_error *err)
{
	struct layout_float want;
	struct pane_spawn spawn;
	struct sm_error launch_err = {0};
	char here[PATH_MAX];
	struct pane *p;

	(void)c;
	if (float_request_box(req, &want, err) < 0 || cmd_parse_spawn(req, &spawn, err) < 0 ||
	    (feed && split_feed_spawn(target->window->session, &spawn, err) < 0))
		return -1;
	if (spawn.cwd == NULL)
		spawn.cwd = pane_cwd_for_new_pane(target, here, sizeof here);
	cmd_spawn_inherit(&spawn, target);
	p = float_open(target, &spawn, &want, false, &launch_err);
	p->feed = feed;
	return cmd_pane_result(p, result, &launch_err, err);
}

/* display-popup: tmux's one-shot floating pane, centred, half the
 * window unless asked; it closes when its program ends, whatever
 * --remain or the config say. */
CMD_HANDLER(cmd_display_popup)
{
	struct pane *target = float_target(c, req, err), *p;
	struct layout_float want;
	struct pane_spawn spawn;
	struct sm_error launch_err = {0};
	char here[PATH_MAX];

	if (target == NULL || float_request_box(req, &want, err) < 0 ||
	    cmd_parse_spawn(req, &spawn, err) < 0)
		return -1;
	if (spawn.cwd == NULL)
		spawn.cwd = pane_cwd_for_new_pane(target, here, sizeof here);
	cmd_spawn_inherit(&spawn, target);
	spawn.remain_on_exit = false;
	p = float_open(target, &spawn, &want, true, &launch_err);
	return cmd_pane_result(p, result, &launch_err, err);
}

/* toggle-floating: a window's floating panes hidden, or shown again with
 * the topmost focused.  Hidden panes go on running. */
CMD_HANDLER(cmd_toggle_floating)
{
	struct pane *target = float_target(c, req, err), *top = NULL;
	struct window *w;

	if (target == NULL)
		return -1;
	w = target->window;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->floating && (top == NULL || p->float_z > top->float_z))
			top = p;
	if (top == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "window %d has no floating pane", w->index);
		return -1;
	}
	if (w->floats_hidden) {
		window_focus_pane(w, top);
	} else {
		w->floats_hidden = true;
		if (w->active != NULL && w->active->floating)
			window_focus_pane(w, window_tiled_pane(w));
	}
	cJSON_AddBoolToObject(result, "hidden", w->floats_hidden);
	server_broadcast_layout(w->session);
	return 0;
}

/* float-pane: a floating pane moved (-x, -y) or sized (-w, -h). */
CMD_HANDLER(cmd_float_pane)
{
	struct pane *p = float_target(c, req, err);
	int x, y, w, h;

	if (p == NULL)
		return -1;
	if (!p->floating) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d is not floating", p->id);
		return -1;
	}
	x = p->cell->x, y = p->cell->y, w = p->cell->w, h = p->cell->h;
	if (cmd_get_int(req, "x", false, &x, err) < 0 ||
	    cmd_get_int(req, "y", false, &y, err) < 0 ||
	    cmd_get_int(req, "width", false, &w, err) < 0 ||
	    cmd_get_int(req, "height", false, &h, err) < 0)
		return -1;
	p->float_want = (struct layout_float){x < 0 ? 0 : x, y < 0 ? 0 : y,
					      w < LAYOUT_FLOAT_MIN_W ? LAYOUT_FLOAT_MIN_W : w,
					      h < LAYOUT_FLOAT_MIN_H ? LAYOUT_FLOAT_MIN_H : h};
	float_relayout(p);
	server_broadcast_layout(p->window->session);
	cJSON_AddNumberToObject(result, "pane", p->id);
	cJSON_AddNumberToObject(result, "x", p->cell->x);
	cJSON_AddNumberToObject(result, "y", p->cell->y);
	cJSON_AddNumberToObject(result, "width", p->cell->w);
	cJSON_AddNumberToObject(result, "height", p->cell->h);
	return 0;
}
