/*
 * client-choose: choose mode, a list to pick from that covers the
 * window (tmux's mode-tree), for two commands:
 *
 *   choose-tree    the server's sessions, their windows and the windows'
 *                  panes, each pane with its backend label (what really
 *                  wraps it, invariant 1) and its violation count; Enter
 *                  shows the chosen one (switch-client -t), so a pane in
 *                  another window or session is one key away.
 *   choose-buffer  the server's paste buffers (name, size, the label of
 *                  the pane it was copied from, the start of the text);
 *                  Enter pastes the chosen one into the active pane
 *                  (paste-buffer -b, which asks across backends), d
 *                  deletes it.
 *
 * The list is built from the server's own answer (list, list-buffers),
 * never from the client's copy, which holds only the window on screen;
 * the tree is asked for again whenever a layout arrives, so it stays
 * true while it is open.  Items keep their place across such refreshes
 * by key (a session's name, "SESSION:W", "%ID", a buffer's name): the
 * selection and what is collapsed survive.  Keys: Up/Down (k/j) move,
 * PageUp/PageDown, Home/End (g/G); Left (h) collapses or goes to the
 * parent, Right (l) expands; Enter chooses; q, Escape or C-c leave.  The
 * prefix keeps its bindings meanwhile, as in tmux's modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "screen-draw.h"
#include "xalloc.h"

static const char *json_string(const cJSON *object, const char *key)
{
	const char *value = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(object, key));

	return value != NULL ? value : "";
}

static int json_number(const cJSON *object, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	return cJSON_IsNumber(item) ? item->valueint : 0;
}

static struct choose_item *add_item(struct choose_list *list, int depth, int parent,
				    const char *key)
{
	struct choose_item *item;

	list->items = xrealloc(list->items, (list->nitems + 1) * sizeof *list->items);
	item = &list->items[list->nitems++];
	memset(item, 0, sizeof *item);
	item->depth = depth;
	item->parent = parent;
	item->violations = -1;
	item->expanded = true;
	snprintf(item->key, sizeof item->key, "%s", key);
	return item;
}

static void pane_item(struct choose_list *list, const cJSON *pane, int parent)
{
	char key[32];
	const char *title = json_string(pane, "title");
	const char *path = json_string(pane, cJSON_HasObjectItem(pane, "current_path") ? "current_path"
										      : "cwd");
	const char *accelerator =
	    json_string(cJSON_GetObjectItemCaseSensitive(pane, "details"), "accelerator");
	struct choose_item *item;

	snprintf(key, sizeof key, "%%%d", json_number(pane, "id"));
	item = add_item(list, 2, parent, key);
	snprintf(item->target, sizeof item->target, "%s", key);
	snprintf(item->before, sizeof item->before, "%s ", key);
	screen_label_text(json_string(pane, "state"), json_string(pane, "backend"), accelerator,
			  item->label, sizeof item->label);
	snprintf(item->backend, sizeof item->backend, "%s", json_string(pane, "backend"));
	snprintf(item->state, sizeof item->state, "%s", json_string(pane, "state"));
	snprintf(item->after, sizeof item->after, "  %s%s%s%s", title, title[0] && path[0] ? " : " : "",
		 path, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pane, "active")) ? " (active)" : "");
	item->violations = json_number(pane, "violations");
}

static void window_item(struct choose_list *list, const char *session, const cJSON *window,
			int parent)
{
	const cJSON *panes = cJSON_GetObjectItemCaseSensitive(window, "panes"), *pane;
	int index = json_number(window, "index"), npanes = cJSON_GetArraySize(panes);
	int self = (int)list->nitems;
	char key[96];
	struct choose_item *item;

	snprintf(key, sizeof key, "%s:%d", session, index);
	item = add_item(list, 1, parent, key);
	snprintf(item->target, sizeof item->target, "%s", key);
	snprintf(item->before, sizeof item->before, "%d: %s%s (%d pane%s)%s", index,
		 json_string(window, "name"),
		 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(window, "active")) ? "*" : "", npanes,
		 npanes == 1 ? "" : "s",
		 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(window, "zoomed")) ? " Z" : "");
	item->expandable = npanes > 0;
	cJSON_ArrayForEach(pane, panes) pane_item(list, pane, self);
}

static void session_item(struct choose_list *list, const cJSON *session)
{
	const cJSON *windows = cJSON_GetObjectItemCaseSensitive(session, "windows"), *window;
	const char *name = json_string(session, "name");
	int nwindows = cJSON_GetArraySize(windows), self = (int)list->nitems, active = 0;
	struct choose_item *item;

	cJSON_ArrayForEach(window, windows) if (cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(window, "active"))) active = json_number(window, "index");
	item = add_item(list, 0, -1, name);
	/* A session by its active window: a session named "3" would read
	 * as pane %3 on its own. */
	snprintf(item->target, sizeof item->target, "%s:%d", name, active);
	snprintf(item->before, sizeof item->before, "%s: %d window%s%s", name, nwindows,
		 nwindows == 1 ? "" : "s",
		 json_number(session, "attached") > 0 ? " (attached)" : "");
	item->expandable = nwindows > 0;
	cJSON_ArrayForEach(window, windows) window_item(list, name, window, self);
}

/* A buffer's start as one line: newlines and tabs shown as \n and \t,
 * as tmux's choose-buffer shows them (other controls are replaced when
 * drawn). */
static void buffer_sample(const char *text, char *out, size_t size)
{
	size_t used = 0;

	for (; *text != 0 && used + 3 < size; text++) {
		if (*text == '\n' || *text == '\t') {
			out[used++] = '\\';
			out[used++] = *text == '\n' ? 'n' : 't';
		} else {
			out[used++] = *text;
		}
	}
	out[used] = 0;
}

static void buffer_item(struct choose_list *list, const cJSON *buffer)
{
	const char *name = json_string(buffer, "name");
	char sample[128];
	struct choose_item *item = add_item(list, 0, -1, name);

	snprintf(item->target, sizeof item->target, "%s", name);
	snprintf(item->before, sizeof item->before, "%s: %d bytes ", name,
		 json_number(buffer, "size"));
	snprintf(item->label, sizeof item->label, "%s", json_string(buffer, "label"));
	snprintf(item->backend, sizeof item->backend, "%s", json_string(buffer, "label"));
	buffer_sample(json_string(buffer, "sample"), sample, sizeof sample);
	snprintf(item->after, sizeof item->after, "%s\"%s\"", item->label[0] ? " " : "", sample);
}

static bool visible(const struct choose_list *list, int index)
{
	for (int p = list->items[index].parent; p >= 0; p = list->items[p].parent)
		if (!list->items[p].expanded)
			return false;
	return true;
}

/* The visible item step visible items away from index (clamped). */
static int visible_step(const struct choose_list *list, int index, int step)
{
	int last = index;

	while (step != 0) {
		int next = last + (step > 0 ? 1 : -1);

		while (next >= 0 && next < (int)list->nitems && !visible(list, next))
			next += step > 0 ? 1 : -1;
		if (next < 0 || next >= (int)list->nitems)
			break;
		last = next;
		step += step > 0 ? -1 : 1;
	}
	return last;
}

/* The visible item at row (0 the first shown), or -1. */
int choose_item_at(const struct client *c, int row)
{
	int seen = 0;

	for (size_t i = 0; i < c->choose.nitems; i++)
		if (visible(&c->choose, (int)i) && seen++ == row + c->choose.top)
			return (int)i;
	return -1;
}

/* The row of item index among the visible ones. */
static int visible_row(const struct choose_list *list, int index)
{
	int row = 0;

	for (int i = 0; i < index; i++)
		row += visible(list, i);
	return row;
}

/* Scroll so the selection is in the rows shown. */
void choose_scroll(struct client *c, int rows)
{
	struct choose_list *list = &c->choose;
	int row = list->selected >= 0 ? visible_row(list, list->selected) : 0;

	if (rows < 1)
		rows = 1;
	if (row < list->top)
		list->top = row;
	if (row >= list->top + rows)
		list->top = row - rows + 1;
	if (list->top < 0)
		list->top = 0;
}

static int find_key(const struct choose_list *list, const char *key)
{
	for (size_t i = 0; i < list->nitems; i++)
		if (strcmp(list->items[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* The new list takes the old one's place: the selection and what was
 * collapsed stay with their keys; a selection that went selects the
 * item that took its place. */
static void choose_replace(struct client *c, struct choose_list *fresh, const char *select_key)
{
	struct choose_list *old = &c->choose;
	char keep[sizeof old->items[0].key] = "";

	if (old->selected >= 0 && old->selected < (int)old->nitems)
		snprintf(keep, sizeof keep, "%s", old->items[old->selected].key);
	for (size_t i = 0; i < fresh->nitems; i++) {
		int was = find_key(old, fresh->items[i].key);

		if (was >= 0)
			fresh->items[i].expanded = old->items[was].expanded;
	}
	fresh->selected = find_key(fresh, select_key != NULL ? select_key : keep);
	if (fresh->selected < 0)
		fresh->selected = old->selected < 0 ? 0
				  : old->selected < (int)fresh->nitems ? old->selected
								       : (int)fresh->nitems - 1;
	if (fresh->nitems == 0)
		fresh->selected = -1;
	if (fresh->selected >= 0 && !visible(fresh, fresh->selected))
		while (fresh->items[fresh->selected].parent >= 0 && !visible(fresh, fresh->selected))
			fresh->selected = fresh->items[fresh->selected].parent;
	fresh->kind = old->kind;
	fresh->top = old->top;
	fresh->generation = old->generation;
	free(old->items);
	*old = *fresh;
	c->redraw_all = true;
	c->dirty = true;
}

static void choose_leave(struct client *c)
{
	if (c->mode != MODE_CHOOSE)
		return;
	c->mode = MODE_NORMAL;
	c->choose.generation++;
	free(c->choose.items);
	c->choose.items = NULL;
	c->choose.nitems = 0;
	c->redraw_all = true;
	c->dirty = true;
}

/* The first answer arrived: the list covers the window from now on. */
static void choose_enter(struct client *c, enum choose_kind kind)
{
	free(c->choose.items);
	c->choose.items = NULL;
	c->choose.nitems = 0;
	c->choose.selected = -1;
	c->choose.top = 0;
	c->choose.kind = kind;
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	c->mode = MODE_CHOOSE;
}

/* The key of the item the tree opens on: the attached session (-s), its
 * window (-w), else its active pane. */
static void tree_start_key(struct client *c, char *out, size_t size)
{
	const struct pane_view *active = client_active_pane(c);
	int window = 0;

	for (size_t i = 0; i < c->nwindows; i++)
		if (c->windows[i].active)
			window = c->windows[i].index;
	if (c->choose.start == CHOOSE_START_SESSIONS)
		snprintf(out, size, "%s", c->session);
	else if (c->choose.start == CHOOSE_START_WINDOWS || active == NULL)
		snprintf(out, size, "%s:%d", c->session, window);
	else
		snprintf(out, size, "%%%d", active->id);
}

static void on_tree_reply(struct client *c, const cJSON *result, const cJSON *error, int generation)
{
	const cJSON *sessions = cJSON_GetObjectItemCaseSensitive(result, "sessions"), *session;
	struct choose_list fresh = {0};
	char start[96];
	bool opening = c->mode != MODE_CHOOSE;

	if (generation != c->choose.generation || (!opening && c->choose.kind != CHOOSE_TREE))
		return; /* an answer for a list closed since */
	if (result == NULL) {
		client_reply_report_error(c, result, error, generation);
		return;
	}
	cJSON_ArrayForEach(session, sessions) session_item(&fresh, session);
	/* -s opens with every session collapsed (tmux's choose-tree -s);
	 * otherwise everything is open, down to each pane and its label.
	 * Refreshes keep what the user collapsed. */
	for (size_t i = 0; opening && i < fresh.nitems; i++)
		if (c->choose.start == CHOOSE_START_SESSIONS && fresh.items[i].depth == 0)
			fresh.items[i].expanded = false;
	if (opening)
		choose_enter(c, CHOOSE_TREE);
	tree_start_key(c, start, sizeof start);
	choose_replace(c, &fresh, opening ? start : NULL);
}

static void on_buffers_reply(struct client *c, const cJSON *result, const cJSON *error,
			     int generation)
{
	const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(result, "buffers"), *buffer;
	struct choose_list fresh = {0};
	bool opening = c->mode != MODE_CHOOSE;

	if (generation != c->choose.generation || (!opening && c->choose.kind != CHOOSE_BUFFER))
		return;
	if (result == NULL) {
		client_reply_report_error(c, result, error, generation);
		return;
	}
	cJSON_ArrayForEach(buffer, buffers) buffer_item(&fresh, buffer);
	if (fresh.nitems == 0) {
		free(fresh.items);
		if (!opening)
			choose_leave(c);
		client_show_message(c, false, "no buffers");
		return;
	}
	if (opening)
		choose_enter(c, CHOOSE_BUFFER);
	choose_replace(c, &fresh, NULL);
}

/* Ask the server for the list again (a refresh, or the first one). */
static void choose_request(struct client *c, enum choose_kind kind)
{
	cJSON *request = cJSON_CreateObject();

	cJSON_AddStringToObject(request, "cmd", kind == CHOOSE_TREE ? "list" : "list-buffers");
	client_request(c, request, kind == CHOOSE_TREE ? on_tree_reply : on_buffers_reply,
		       c->choose.generation);
}

void choose_open(struct client *c, enum choose_kind kind, enum choose_start start)
{
	if (c->mode == MODE_CHOOSE)
		choose_leave(c);
	c->choose.generation++;
	c->choose.start = start;
	choose_request(c, kind);
}

void choose_layout_changed(struct client *c)
{
	if (c->mode == MODE_CHOOSE && c->choose.kind == CHOOSE_TREE)
		choose_request(c, CHOOSE_TREE);
}

/* Enter: the chosen item's command, run as if typed at the prompt. */
static void choose_run(struct client *c, const struct choose_item *item, const char *verb)
{
	char command[BINDING_COMMAND_MAX], quoted[sizeof item->target * 2 + 1];
	size_t used = 0;

	for (const char *p = item->target; *p != 0 && used + 2 < sizeof quoted; p++) {
		if (*p == '"' || *p == '\\')
			quoted[used++] = '\\';
		quoted[used++] = *p;
	}
	quoted[used] = 0;
	snprintf(command, sizeof command, verb, quoted);
	client_run_command(c, command);
}

static void choose_expand(struct client *c, bool expand)
{
	struct choose_list *list = &c->choose;
	struct choose_item *item = &list->items[list->selected];

	if (expand) {
		item->expanded = item->expandable ? true : item->expanded;
	} else if (item->expandable && item->expanded) {
		item->expanded = false;
	} else if (item->parent >= 0) {
		list->selected = item->parent;
	}
}

void choose_key(struct client *c, const char *name, int page)
{
	struct choose_list *list = &c->choose;
	int step = 0;

	c->dirty = true;
	c->redraw_all = true;
	if (strcmp(name, "q") == 0 || strcmp(name, "Escape") == 0 || strcmp(name, "C-c") == 0) {
		choose_leave(c);
		return;
	}
	if (list->selected < 0 || list->selected >= (int)list->nitems)
		return;
	if (strcmp(name, "Up") == 0 || strcmp(name, "k") == 0)
		step = -1;
	else if (strcmp(name, "Down") == 0 || strcmp(name, "j") == 0)
		step = 1;
	else if (strcmp(name, "PageUp") == 0)
		step = -page;
	else if (strcmp(name, "PageDown") == 0)
		step = page;
	else if (strcmp(name, "Home") == 0 || strcmp(name, "g") == 0)
		step = -(int)list->nitems;
	else if (strcmp(name, "End") == 0 || strcmp(name, "G") == 0)
		step = (int)list->nitems;
	if (step != 0) {
		list->selected = visible_step(list, list->selected, step);
		return;
	}
	if (list->kind == CHOOSE_TREE && (strcmp(name, "Left") == 0 || strcmp(name, "h") == 0)) {
		choose_expand(c, false);
	} else if (list->kind == CHOOSE_TREE &&
		   (strcmp(name, "Right") == 0 || strcmp(name, "l") == 0)) {
		choose_expand(c, true);
	} else if (strcmp(name, "Enter") == 0) {
		struct choose_item item = list->items[list->selected];
		enum choose_kind kind = list->kind;

		choose_leave(c);
		choose_run(c, &item, kind == CHOOSE_TREE ? "switch-client -t \"%s\""
							 : "paste-buffer -b \"%s\"");
	} else if (list->kind == CHOOSE_BUFFER && strcmp(name, "d") == 0) {
		choose_run(c, &list->items[list->selected], "delete-buffer -b \"%s\"");
		choose_request(c, CHOOSE_BUFFER);
	}
}
