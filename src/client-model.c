/*
 * client-model: the client's own copy of the session it shows.
 *
 * The server describes panes with layout events and their contents with
 * frame events (rows of text and style runs).  This file turns both into
 * pane_view structs holding plain cells, which client-draw.c paints.  It
 * is also where untrusted text becomes drawable: every string from the
 * server — cell text, titles, working directories, failure reasons — is
 * decoded here, and anything that could act on a terminal (C0 and C1
 * controls, DEL, invalid UTF-8) is replaced before it can reach ncurses.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "sanitise.h"
#include "term.h"
#include "xalloc.h"

#define REPLACEMENT_CHAR 0xfffd
#define PANE_SIZE_MAX 4096

/* The one rule (sanitise.c), as a wide character: '?' for a control,
 * 0 to drop. */
static wchar_t sanitize_char(uint32_t cp)
{
	return (wchar_t)sanitise_codepoint(cp);
}

/* Decode one UTF-8 character at s (len bytes available) with the one
 * decoder (term_utf8_decode); sets *used.  Malformed input yields U+FFFD
 * and consumes one byte, so decoding always advances. */
static uint32_t utf8_decode(const unsigned char *s, size_t len, size_t *used)
{
	uint32_t cp;

	*used = term_utf8_decode((const char *)s, len, &cp);
	if (*used == 0) {
		*used = 1;
		return REPLACEMENT_CHAR;
	}
	return cp;
}

size_t sanitize_text(const char *utf8, wchar_t *out, size_t max)
{
	/* The one sanitiser (sanitise.c), then wide characters: titles,
	 * names and messages read as they do in the CLI's outputs. */
	char *safe = sanitise_text(utf8);
	const unsigned char *s = (const unsigned char *)safe;
	size_t len = strlen(safe), n = 0;

	if (max == 0) {
		free(safe);
		return 0;
	}
	while (len > 0 && n + 1 < max) {
		size_t used;
		uint32_t cp = utf8_decode(s, len, &used);

		s += used;
		len -= used;
		out[n++] = (wchar_t)cp;
	}
	out[n] = 0;
	free(safe);
	return n;
}

void cells_blank(struct cell *cells, int n)
{
	memset(cells, 0, (size_t)n * sizeof *cells);
	for (int i = 0; i < n; i++)
		cells[i].width = 1;
}

static void parse_run_color(const cJSON *item, struct theme_color *out)
{
	memset(out, 0, sizeof *out);
	if (cJSON_IsNumber(item) && item->valueint >= 0 && item->valueint <= 255) {
		out->kind = THEME_COLOR_PALETTE;
		out->index = (uint8_t)item->valueint;
	} else if (cJSON_IsString(item)) {
		theme_parse_color(item->valuestring, out);
	}
}

/* Put a combining mark on the cell before col, if there is one. */
static void attach_combining(struct cell *row, int col, wchar_t mark)
{
	struct cell *base;

	if (col <= 0)
		return;
	base = &row[col - 1];
	if (base->width == 0 && col >= 2)
		base = &row[col - 2];
	if (base->chars[0] == 0)
		return;
	for (int i = 1; i < CELL_CHARS - 1; i++) {
		if (base->chars[i] == 0) {
			base->chars[i] = mark;
			base->chars[i + 1] = 0;
			return;
		}
	}
}

/* Lay one run's text into row from its x: widths come from wcwidth, a
 * wide character that would cross the pane's right edge becomes a blank
 * (it can never straddle the border), and nothing is written past cols. */
static void place_run(const cJSON *run, struct cell *row, int cols)
{
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(run, "t");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(run, "x");
	const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(run, "a");
	struct cell style = {{0}, 1, 0, {0}, {0}};
	const unsigned char *s;
	size_t len;
	int col;

	if (!cJSON_IsString(text) || !cJSON_IsNumber(x))
		return;
	col = x->valueint;
	if (col < 0 || col >= cols)
		return;
	parse_run_color(cJSON_GetObjectItemCaseSensitive(run, "fg"), &style.fg);
	parse_run_color(cJSON_GetObjectItemCaseSensitive(run, "bg"), &style.bg);
	style.attrs = cJSON_IsNumber(attrs) ? (uint8_t)attrs->valueint : 0;
	s = (const unsigned char *)text->valuestring;
	len = strlen(text->valuestring);
	while (len > 0 && col < cols) {
		size_t used;
		wchar_t wc = sanitize_char(utf8_decode(s, len, &used));
		int width;

		s += used;
		len -= used;
		if (wc == 0)
			continue;
		width = wcwidth(wc);
		if (width == 0) {
			attach_combining(row, col, wc);
			continue;
		}
		if (width < 0) {
			wc = REPLACEMENT_CHAR;
			width = 1;
		}
		row[col] = style;
		if (width == 2 && col + 1 >= cols) {
			row[col].chars[0] = 0; /* no room for both halves */
			col++;
			continue;
		}
		row[col].chars[0] = wc;
		row[col].width = (uint8_t)width;
		if (width == 2) {
			row[col + 1] = style;
			row[col + 1].width = 0;
		}
		col += width;
	}
	/* Blanks the run covers past its text keep its colours (erased
	 * regions with a background). */
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(run, "w");
	int end = col;

	if (cJSON_IsNumber(w) && w->valueint > 0)
		end = w->valueint >= cols - x->valueint ? cols : x->valueint + w->valueint;
	for (; col < end && col < cols; col++)
		row[col] = style;
}

void cells_from_runs(const cJSON *runs, struct cell *row, int cols)
{
	const cJSON *run;

	cells_blank(row, cols);
	cJSON_ArrayForEach(run, runs)
	{
		place_run(run, row, cols);
	}
	/* A run that overwrote the left half of a wide character leaves an
	 * orphaned right half: make it a blank so nothing draws over the
	 * border of a half-character. */
	for (int col = 0; col < cols; col++)
		if (row[col].width == 0 && (col == 0 || row[col - 1].width != 2))
			row[col].width = 1;
}

size_t cells_to_utf8(const struct cell *row, int from, int to, char *out, size_t size)
{
	size_t n = 0, keep = 0;
	mbstate_t state;

	if (size == 0)
		return 0;
	memset(&state, 0, sizeof state);
	for (int col = from; col < to; col++) {
		char bytes[MB_LEN_MAX * CELL_CHARS];
		size_t len = 0;

		if (row[col].width == 0)
			continue;
		if (row[col].chars[0] == 0) {
			bytes[len++] = ' ';
		} else {
			for (int i = 0; i < CELL_CHARS && row[col].chars[i] != 0; i++) {
				size_t r = wcrtomb(bytes + len, row[col].chars[i], &state);
				if (r != (size_t)-1)
					len += r;
			}
		}
		if (n + len + 1 > size)
			break;
		memcpy(out + n, bytes, len);
		n += len;
		if (row[col].chars[0] != 0)
			keep = n;
	}
	out[keep] = 0;
	return keep;
}

struct pane_view *client_pane(struct client *c, int id)
{
	for (size_t i = 0; i < c->npanes; i++)
		if (c->panes[i].id == id)
			return &c->panes[i];
	return NULL;
}

struct pane_view *client_active_pane(struct client *c)
{
	for (size_t i = 0; i < c->npanes; i++)
		if (c->panes[i].active)
			return &c->panes[i];
	return c->npanes > 0 ? &c->panes[0] : NULL;
}

bool client_pane_visible(const struct client *c, const struct pane_view *pane)
{
	return !c->zoomed || pane->active;
}

/* The pane whose content or title line holds screen cell (x, y). */
struct pane_view *client_pane_at(struct client *c, int x, int y)
{
	for (size_t i = 0; i < c->npanes; i++) {
		struct pane_view *p = &c->panes[i];

		if (!client_pane_visible(c, p))
			continue;
		if (x >= p->x && x < p->x + p->cols && y >= p->y - 1 && y < p->y + p->rows)
			return p;
	}
	return NULL;
}

static void copy_json_string(const cJSON *object, const char *key, char *dst, size_t size)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	snprintf(dst, size, "%s", cJSON_IsString(item) ? item->valuestring : "");
}

static int json_int(const cJSON *object, const char *key, int fallback)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	return cJSON_IsNumber(item) ? item->valueint : fallback;
}

static bool json_bool(const cJSON *object, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(object, key));
}

/* Give a pane a new size, keeping what overlaps so a resize does not
 * flash blank before the server's next frame. */
static void pane_resize_cells(struct pane_view *pane, int cols, int rows)
{
	struct cell *cells;
	bool *dirty;

	/* The server's emulator stops at 1000; anything past this is a
	 * broken message, not a screen. */
	if (cols < 1 || cols > PANE_SIZE_MAX)
		cols = cols < 1 ? 1 : PANE_SIZE_MAX;
	if (rows < 1 || rows > PANE_SIZE_MAX)
		rows = rows < 1 ? 1 : PANE_SIZE_MAX;
	if (pane->cells != NULL && cols == pane->cols && rows == pane->rows)
		return;
	cells = xmalloc((size_t)cols * (size_t)rows * sizeof *cells);
	dirty = xmalloc((size_t)rows * sizeof *dirty);
	cells_blank(cells, cols * rows);
	for (int y = 0; pane->cells != NULL && y < rows && y < pane->rows; y++) {
		int keep = cols < pane->cols ? cols : pane->cols;

		memcpy(&cells[y * cols], &pane->cells[y * pane->cols],
		       (size_t)keep * sizeof *cells);
		if (keep > 0 && cells[y * cols + keep - 1].width == 2)
			cells_blank(&cells[y * cols + keep - 1], 1);
	}
	for (int y = 0; y < rows; y++)
		dirty[y] = true;
	free(pane->cells);
	free(pane->row_dirty);
	pane->cells = cells;
	pane->row_dirty = dirty;
	pane->cols = cols;
	pane->rows = rows;
}

static void pane_update_from_json(struct pane_view *pane, const cJSON *json)
{
	const cJSON *backend = cJSON_GetObjectItemCaseSensitive(json, "backend");

	pane->x = json_int(json, "x", 0);
	pane->y = json_int(json, "y", 1);
	pane_resize_cells(pane, json_int(json, "cols", 1), json_int(json, "rows", 1));
	pane->active = json_bool(json, "active");
	pane->mouse = json_bool(json, "mouse");
	/* The label is what really wraps the process (invariant 1); a null
	 * backend stays empty and is drawn as unconfirmed, never guessed
	 * from the request. */
	snprintf(pane->backend, sizeof pane->backend, "%s",
		 cJSON_IsString(backend) ? backend->valuestring : "");
	pane->accelerator[0] = '\0';
	if (cJSON_IsString(backend))
		copy_json_string(cJSON_GetObjectItemCaseSensitive(json, "details"), "accelerator",
				 pane->accelerator, sizeof pane->accelerator);
	copy_json_string(json, "requested", pane->requested, sizeof pane->requested);
	copy_json_string(json, "profile", pane->profile, sizeof pane->profile);
	copy_json_string(json, "state", pane->state, sizeof pane->state);
	copy_json_string(json, "reason", pane->reason, sizeof pane->reason);
	copy_json_string(json, "hint", pane->hint, sizeof pane->hint);
	copy_json_string(json, "title", pane->title, sizeof pane->title);
	/* The title shows where the shell is now (current_path), as tmux's
	 * #{pane_current_path}; a server that does not say, where it began. */
	copy_json_string(json, cJSON_HasObjectItem(json, "current_path") ? "current_path" : "cwd",
			 pane->cwd, sizeof pane->cwd);
	pane->violations = json_int(json, "violations", 0);
	pane->bell = json_bool(json, "bell");
	copy_json_string(json, "notice", pane->notice, sizeof pane->notice);
	pane->progress_state = json_int(json, "progress_state", 0);
	pane->progress = json_int(json, "progress", 0);
}

static void pane_view_free(struct pane_view *pane)
{
	free(pane->cells);
	free(pane->row_dirty);
}

static void apply_windows(struct client *c, const cJSON *windows)
{
	const cJSON *window;
	size_t n = 0;

	free(c->windows);
	c->windows = NULL;
	c->nwindows = 0;
	if (!cJSON_IsArray(windows))
		return;
	c->windows = xcalloc((size_t)cJSON_GetArraySize(windows) + 1, sizeof *c->windows);
	cJSON_ArrayForEach(window, windows)
	{
		c->windows[n].index = json_int(window, "index", (int)n);
		copy_json_string(window, "name", c->windows[n].name, sizeof c->windows[n].name);
		c->windows[n].active = json_bool(window, "active");
		c->windows[n].bell = json_bool(window, "bell");
		c->windows[n].denied = json_bool(window, "denied");
		n++;
	}
	c->nwindows = n;
}

void client_apply_layout(struct client *c, const cJSON *layout)
{
	const cJSON *panes = cJSON_GetObjectItemCaseSensitive(layout, "panes");
	const cJSON *json;
	struct pane_view *next;
	size_t n = 0;

	copy_json_string(layout, "session", c->session, sizeof c->session);
	c->zoomed = json_bool(layout, "zoomed");
	apply_windows(c, cJSON_GetObjectItemCaseSensitive(layout, "windows"));
	if (!cJSON_IsArray(panes))
		return;
	next = xcalloc((size_t)cJSON_GetArraySize(panes) + 1, sizeof *next);
	/* Panes that survive keep their cells; the rest are freed below. */
	cJSON_ArrayForEach(json, panes)
	{
		int id = json_int(json, "id", -1);
		struct pane_view *old = client_pane(c, id);

		if (id < 0)
			continue;
		if (old != NULL) {
			next[n] = *old;
			old->cells = NULL;
			old->row_dirty = NULL;
		} else {
			next[n].id = id;
		}
		pane_update_from_json(&next[n], json);
		n++;
	}
	for (size_t i = 0; i < c->npanes; i++)
		pane_view_free(&c->panes[i]);
	free(c->panes);
	c->panes = next;
	c->npanes = n;
	if (c->mode == MODE_COPY && client_pane(c, c->copy.pane) == NULL)
		copy_mode_pane_gone(c);
	c->redraw_all = true;
	c->dirty = true;
}

static void apply_cursor(struct pane_view *pane, const cJSON *cursor)
{
	if (!cJSON_IsObject(cursor))
		return;
	pane->cursor_x = json_int(cursor, "x", pane->cursor_x);
	pane->cursor_y = json_int(cursor, "y", pane->cursor_y);
	pane->cursor_visible = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cursor, "visible"));
}

void client_apply_frame(struct client *c, const cJSON *frame)
{
	struct pane_view *pane = client_pane(c, json_int(frame, "pane", -1));
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(frame, "rows");
	const cJSON *row;
	/* The server already wrote these rows to the terminal itself. */
	bool patched = json_bool(frame, "patched");

	if (pane == NULL || pane->cells == NULL)
		return;
	if (json_bool(frame, "full")) {
		cells_blank(pane->cells, pane->cols * pane->rows);
		for (int y = 0; y < pane->rows; y++)
			pane->row_dirty[y] = true;
	}
	cJSON_ArrayForEach(row, rows)
	{
		int y = json_int(row, "y", -1);

		if (y < 0 || y >= pane->rows)
			continue;
		cells_from_runs(cJSON_GetObjectItemCaseSensitive(row, "runs"),
				&pane->cells[y * pane->cols], pane->cols);
		pane->row_dirty[y] = true;
		if (patched)
			client_draw_repaint_row(pane->y + y);
	}
	apply_cursor(pane, cJSON_GetObjectItemCaseSensitive(frame, "cursor"));
	c->dirty = true;
}

void client_model_free(struct client *c)
{
	for (size_t i = 0; i < c->npanes; i++)
		pane_view_free(&c->panes[i]);
	free(c->panes);
	free(c->windows);
	c->panes = NULL;
	c->windows = NULL;
	c->npanes = c->nwindows = 0;
}
