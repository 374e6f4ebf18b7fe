/*
 * server-choose: choose mode, a list to pick from that covers the
 * window (tmux's mode-tree), when the server owns the terminal:
 *
 *   choose-tree    every session, its windows and each window's panes,
 *                  a pane with the label of what really wraps it
 *                  (invariant 1) and its violation count; Enter shows
 *                  the chosen one (switch-client -t), so a pane in
 *                  another window or session is one key away.
 *   choose-buffer  the paste buffers, newest first (name, size, the
 *                  label of the pane it was copied from, the start of
 *                  its text); Enter pastes the chosen one into the
 *                  active pane (paste-buffer -b, which asks across
 *                  backends), d deletes it.
 *
 * The list is built from the server's own answers (`list`,
 * `list-buffers`), the same a protocol client reads, and built again
 * when the layout changes, so it stays true while it is open.  Items
 * keep their place across rebuilds by key (a session's name,
 * "SESSION:W", "%ID", a buffer's name): the selection and what is
 * collapsed survive.  The keys are the `choose-mode` key table
 * (mode-tables.c; list-keys lists it, the config and bind-key -T rebind
 * it), tmux's mode-tree keys by default: Up/Down (k/j) move, PageUp/PageDown, Home/End (g/G); Left
 * (h) collapses or goes to the parent, Right (l) expands; Enter
 * chooses; q, Escape or C-c leave.  The prefix keeps its bindings
 * meanwhile (server-tty.c), as in tmux's modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server-choose.h"
#include "xalloc.h"

/* ---- the items ---- */

static const char *field_text(const cJSON *object, const char *key)
{
	const char *value = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(object, key));

	return value != NULL ? value : "";
}

static int field_number(const cJSON *object, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	return cJSON_IsNumber(item) ? item->valueint : 0;
}

static bool field_true(const cJSON *object, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(object, key));
}

/* The items being built: a list of its own until it replaces the shown one. */
static struct server_choose_item *item_new(struct server_choose *list, int depth, int parent,
					   const char *key)
{
	struct server_choose_item *item;

	list->items = xrealloc(list->items, (list->nitems + 1) * sizeof *list->items);
	item = &list->items[list->nitems++];
	memset(item, 0, sizeof *item);
	item->depth = depth;
	item->parent = parent;
	item->expanded = true;
	item->violations = -1;
	snprintf(item->key, sizeof item->key, "%s", key);
	return item;
}

static void add_pane(struct server_choose *list, const cJSON *pane, int parent)
{
	const char *title = field_text(pane, "title");
	const char *path =
	    field_text(pane, cJSON_HasObjectItem(pane, "current_path") ? "current_path" : "cwd");
	const char *accelerator =
	    field_text(cJSON_GetObjectItemCaseSensitive(pane, "details"), "accelerator");
	struct server_choose_item *item;
	char key[32];

	snprintf(key, sizeof key, "%%%d", field_number(pane, "id"));
	item = item_new(list, 2, parent, key);
	snprintf(item->target, sizeof item->target, "%s", key);
	snprintf(item->before, sizeof item->before, "%s ", key);
	snprintf(item->backend, sizeof item->backend, "%s", field_text(pane, "backend"));
	snprintf(item->state, sizeof item->state, "%s", field_text(pane, "state"));
	snprintf(item->accelerator, sizeof item->accelerator, "%s", accelerator);
	snprintf(item->after, sizeof item->after, "  %s%s%s%s", title,
		 title[0] != '\0' && path[0] != '\0' ? " : " : "", path,
		 field_true(pane, "active") ? " (active)" : "");
	item->violations = field_number(pane, "violations");
}

static void add_window(struct server_choose *list, const char *session, const cJSON *window,
		       int parent)
{
	const cJSON *panes = cJSON_GetObjectItemCaseSensitive(window, "panes"), *pane;
	int index = field_number(window, "index"), npanes = cJSON_GetArraySize(panes);
	int self = (int)list->nitems;
	struct server_choose_item *item;
	char key[96];

	snprintf(key, sizeof key, "%s:%d", session, index);
	item = item_new(list, 1, parent, key);
	snprintf(item->target, sizeof item->target, "%s", key);
	snprintf(item->before, sizeof item->before, "%d: %s%s (%d pane%s)%s", index,
		 field_text(window, "name"), field_true(window, "active") ? "*" : "", npanes,
		 npanes == 1 ? "" : "s", field_true(window, "zoomed") ? " Z" : "");
	item->expandable = npanes > 0;
	cJSON_ArrayForEach(pane, panes) add_pane(list, pane, self);
}

static void add_session(struct server_choose *list, const cJSON *session)
{
	const cJSON *windows = cJSON_GetObjectItemCaseSensitive(session, "windows"), *window;
	const char *name = field_text(session, "name");
	int nwindows = cJSON_GetArraySize(windows), self = (int)list->nitems, active = 0;
	struct server_choose_item *item;

	cJSON_ArrayForEach(window, windows)
	{
		if (field_true(window, "active"))
			active = field_number(window, "index");
	}
	item = item_new(list, 0, -1, name);
	/* A session by its active window: a session named "3" would read
	 * as pane %3 on its own. */
	snprintf(item->target, sizeof item->target, "%s:%d", name, active);
	snprintf(item->before, sizeof item->before, "%s: %d window%s%s", name, nwindows,
		 nwindows == 1 ? "" : "s",
		 field_number(session, "attached") > 0 ? " (attached)" : "");
	item->expandable = nwindows > 0;
	cJSON_ArrayForEach(window, windows) add_window(list, name, window, self);
}

/* A buffer's start on one line: a newline and a tab shown as \n and \t,
 * as tmux's choose-buffer shows them; other controls are the
 * sanitiser's when drawn. */
static void buffer_sample(const char *text, char *out, size_t size)
{
	size_t used = 0;

	for (; *text != '\0' && used + 3 < size; text++) {
		if (*text == '\n' || *text == '\t') {
			out[used++] = '\\';
			out[used++] = *text == '\n' ? 'n' : 't';
		} else {
			out[used++] = *text;
		}
	}
	out[used] = '\0';
}

static void add_buffer(struct server_choose *list, const cJSON *buffer)
{
	const char *name = field_text(buffer, "name"), *label = field_text(buffer, "label");
	struct server_choose_item *item = item_new(list, 0, -1, name);
	char sample[128];

	snprintf(item->target, sizeof item->target, "%s", name);
	snprintf(item->before, sizeof item->before, "%s: %d bytes ", name,
		 field_number(buffer, "size"));
	snprintf(item->label, sizeof item->label, "%s", label);
	snprintf(item->backend, sizeof item->backend, "%s", label);
	buffer_sample(field_text(buffer, "sample"), sample, sizeof sample);
	snprintf(item->after, sizeof item->after, "%s\"%s\"", label[0] != '\0' ? " " : "", sample);
}

/* The items of a list answer, for the list's kind. */
static void build(struct server_choose *fresh, enum server_choose_kind kind, const cJSON *result)
{
	const cJSON *entry;

	if (kind == SERVER_CHOOSE_TREE) {
		cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(result, "sessions"))
		    add_session(fresh, entry);
	} else {
		cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(result, "buffers"))
		    add_buffer(fresh, entry);
	}
}

/* ---- what is shown ---- */

static bool visible(const struct server_choose *ch, int index)
{
	for (int p = ch->items[index].parent; p >= 0; p = ch->items[p].parent)
		if (!ch->items[p].expanded)
			return false;
	return true;
}

/* The visible item `step` visible items away from index, stopping at
 * either end. */
static int visible_step(const struct server_choose *ch, int index, int step)
{
	int dir = step > 0 ? 1 : -1;

	for (int left = step * dir; left > 0; left--) {
		int next = index + dir;

		while (next >= 0 && next < (int)ch->nitems && !visible(ch, next))
			next += dir;
		if (next < 0 || next >= (int)ch->nitems)
			break;
		index = next;
	}
	return index;
}

/* The row of item index among the visible ones. */
static int visible_row(const struct server_choose *ch, int index)
{
	int row = 0;

	for (int i = 0; i < index; i++)
		row += visible(ch, i);
	return row;
}

int server_choose_item_at(const struct server_choose *ch, int row)
{
	int seen = 0;

	for (size_t i = 0; i < ch->nitems; i++)
		if (visible(ch, (int)i) && seen++ == row + ch->top)
			return (int)i;
	return -1;
}

void server_choose_scroll(struct server_choose *ch, int rows)
{
	int row = ch->selected >= 0 ? visible_row(ch, ch->selected) : 0;

	if (rows < 1)
		rows = 1;
	if (row < ch->top)
		ch->top = row;
	if (row >= ch->top + rows)
		ch->top = row - rows + 1;
	if (ch->top < 0)
		ch->top = 0;
}

static int find_key(const struct server_choose *ch, const char *key)
{
	for (size_t i = 0; i < ch->nitems; i++)
		if (strcmp(ch->items[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* The fresh items take the shown ones' place: what was collapsed stays
 * collapsed, the selection stays on its key (select_key, when given,
 * wins); a selection that went selects the item now in its place, or
 * the nearest shown parent of it. */
static void replace(struct server_choose *ch, struct server_choose *fresh, const char *select_key)
{
	char keep[sizeof ch->items[0].key] = "";
	int selected;

	if (ch->selected >= 0 && ch->selected < (int)ch->nitems)
		snprintf(keep, sizeof keep, "%s", ch->items[ch->selected].key);
	for (size_t i = 0; i < fresh->nitems; i++) {
		int was = find_key(ch, fresh->items[i].key);

		if (was >= 0)
			fresh->items[i].expanded = ch->items[was].expanded;
	}
	selected = find_key(fresh, select_key != NULL ? select_key : keep);
	if (selected < 0)
		selected = ch->selected < 0		       ? 0
			   : ch->selected < (int)fresh->nitems ? ch->selected
							       : (int)fresh->nitems - 1;
	if (fresh->nitems == 0)
		selected = -1;
	while (selected >= 0 && !visible(fresh, selected) && fresh->items[selected].parent >= 0)
		selected = fresh->items[selected].parent;
	free(ch->items);
	ch->items = fresh->items;
	ch->nitems = fresh->nitems;
	ch->selected = selected;
}

/* ---- opening, refreshing, leaving ---- */

static void open_list(struct server_choose *ch, enum server_choose_kind kind,
		      enum server_choose_start start)
{
	server_choose_leave(ch);
	ch->active = true;
	ch->kind = kind;
	ch->start = start;
	ch->selected = -1;
	ch->top = 0;
}

void server_choose_open_tree(struct server_choose *ch, enum server_choose_start start,
			     const cJSON *result, const struct server_choose_place *place)
{
	struct server_choose fresh = {0};
	char key[96];

	open_list(ch, SERVER_CHOOSE_TREE, start);
	build(&fresh, SERVER_CHOOSE_TREE, result);
	/* -s opens with every session collapsed (tmux's choose-tree -s);
	 * otherwise everything is open, down to each pane and its label. */
	for (size_t i = 0; i < fresh.nitems; i++)
		if (start == SERVER_CHOOSE_START_SESSIONS && fresh.items[i].depth == 0)
			fresh.items[i].expanded = false;
	if (start == SERVER_CHOOSE_START_SESSIONS)
		snprintf(key, sizeof key, "%s", place->session);
	else if (start == SERVER_CHOOSE_START_WINDOWS || place->pane < 0)
		snprintf(key, sizeof key, "%s:%d", place->session, place->window);
	else
		snprintf(key, sizeof key, "%%%d", place->pane);
	replace(ch, &fresh, key);
}

bool server_choose_open_buffers(struct server_choose *ch, const cJSON *result)
{
	struct server_choose fresh = {0};

	build(&fresh, SERVER_CHOOSE_BUFFER, result);
	if (fresh.nitems == 0)
		return false;
	open_list(ch, SERVER_CHOOSE_BUFFER, SERVER_CHOOSE_START_PANE);
	replace(ch, &fresh, NULL);
	return true;
}

bool server_choose_refresh(struct server_choose *ch, const cJSON *result)
{
	struct server_choose fresh = {0};

	if (!ch->active)
		return false;
	build(&fresh, ch->kind, result);
	if (ch->kind == SERVER_CHOOSE_BUFFER && fresh.nitems == 0) {
		free(fresh.items);
		server_choose_leave(ch);
		return false;
	}
	replace(ch, &fresh, NULL);
	return true;
}

void server_choose_leave(struct server_choose *ch)
{
	free(ch->items);
	ch->items = NULL;
	ch->nitems = 0;
	ch->selected = -1;
	ch->top = 0;
	ch->active = false;
}

/* ---- keys ---- */

/* The chosen item's command, its target quoted as the prompt reads it. */
static void item_command(const struct server_choose_item *item, const char *verb,
			 struct server_choose_result *out)
{
	char quoted[sizeof item->target * 2 + 1];
	size_t used = 0;

	for (const char *p = item->target; *p != '\0' && used + 2 < sizeof quoted; p++) {
		if (*p == '"' || *p == '\\')
			quoted[used++] = '\\';
		quoted[used++] = *p;
	}
	quoted[used] = '\0';
	snprintf(out->command, sizeof out->command, "%s \"%s\"", verb, quoted);
}

static void select_step(struct server_choose *ch, int step)
{
	ch->selected = visible_step(ch, ch->selected, step);
}

static void cursor_up(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, -1);
}

static void cursor_down(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, 1);
}

static void page_up(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, -page);
}

static void page_down(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, page);
}

static void top(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, -(int)ch->nitems);
}

static void bottom(struct server_choose *ch, int page, struct server_choose_result *out)
{
	select_step(ch, (int)ch->nitems);
}

/* A shown subtree closes; a closed one, or a leaf, selects its parent. */
static void collapse(struct server_choose *ch, int page, struct server_choose_result *out)
{
	struct server_choose_item *item = &ch->items[ch->selected];

	if (ch->kind != SERVER_CHOOSE_TREE)
		return;
	if (item->expandable && item->expanded)
		item->expanded = false;
	else if (item->parent >= 0)
		ch->selected = item->parent;
}

static void expand(struct server_choose *ch, int page, struct server_choose_result *out)
{
	struct server_choose_item *item = &ch->items[ch->selected];

	if (ch->kind == SERVER_CHOOSE_TREE && item->expandable)
		item->expanded = true;
}

static void choose(struct server_choose *ch, int page, struct server_choose_result *out)
{
	item_command(&ch->items[ch->selected],
		     ch->kind == SERVER_CHOOSE_TREE ? "switch-client -t" : "paste-buffer -b", out);
	server_choose_leave(ch);
	out->action = SERVER_CHOOSE_RUN;
}

static void delete (struct server_choose *ch, int page, struct server_choose_result *out)
{
	if (ch->kind != SERVER_CHOOSE_BUFFER)
		return;
	item_command(&ch->items[ch->selected], "delete-buffer -b", out);
	out->action = SERVER_CHOOSE_RUN_REFRESH;
}

static void cancel(struct server_choose *ch, int page, struct server_choose_result *out)
{
	server_choose_leave(ch);
	out->action = SERVER_CHOOSE_LEAVE;
}

/* The mode's commands by name (the `choose-mode` key table's, mode-tables.c,
 * with their list-keys lines) and the function that does each. */
/* clang-format off */
static const struct {
	const char *name;
	void (*run)(struct server_choose *ch, int page, struct server_choose_result *out);
} choose_mode_commands[] = {
    {"cursor-up", cursor_up},
    {"cursor-down", cursor_down},
    {"page-up", page_up},
    {"page-down", page_down},
    {"top", top},
    {"bottom", bottom},
    {"collapse", collapse},
    {"expand", expand},
    {"choose", choose},
    {"delete", delete},
    {"cancel", cancel},
};
/* clang-format on */

/* One of the mode's commands ("send-keys -X NAME" or NAME). */
static void run_command(struct server_choose *ch, const char *command, int page,
			struct server_choose_result *out)
{
	size_t skip = strlen(MODE_COMMAND_PREFIX);

	out->action = SERVER_CHOOSE_NONE;
	out->command[0] = '\0';
	if (strncmp(command, MODE_COMMAND_PREFIX, skip) == 0)
		command += skip;
	for (size_t i = 0; i < sizeof choose_mode_commands / sizeof choose_mode_commands[0]; i++) {
		if (strcmp(command, choose_mode_commands[i].name) != 0)
			continue;
		/* Only cancel has anything to do in an empty list. */
		if (choose_mode_commands[i].run == cancel ||
		    (ch->selected >= 0 && ch->selected < (int)ch->nitems))
			choose_mode_commands[i].run(ch, page, out);
		return;
	}
}

void server_choose_key(struct server_choose *ch, const struct mode_tables *tables, const char *key,
		       int page, struct server_choose_result *out)
{
	const char *command = mode_tables_command(tables, "choose-mode", key);

	out->action = SERVER_CHOOSE_NONE;
	out->command[0] = '\0';
	if (command != NULL)
		run_command(ch, command, page, out);
}
