/*
 * client-copy: copy mode — scrolling back through a pane's history,
 * searching it, selecting text and copying it.
 *
 * Entering copy mode freezes the pane's screen and its newest history as
 * the server has them at one moment (one `history` reply; the client's
 * own copy of the screen shows until it comes); older history is fetched
 * in chunks as the view nears the top of what has been loaded, and
 * prepended.
 * The pane's live output keeps arriving underneath and reappears when
 * copy mode ends.
 *
 * Copying puts the text in a new server paste buffer (src/buffers.c:
 * prefix ] pastes it, in any client, after a detach too) and on the
 * outer terminal's clipboard with OSC 52.  That sequence is
 * the one escape sequence the client itself writes to the terminal, and
 * its payload is base64, so copied text cannot smuggle controls out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "xalloc.h"

#define HISTORY_CHUNK 1000
#define CLIPBOARD_MAX (1024 * 1024)

static struct pane_view *copy_pane(struct client *c)
{
	return client_pane(c, c->copy.pane);
}

static int view_rows(const struct client *c)
{
	return c->copy.rows > 0 ? c->copy.rows : 1;
}

static void free_lines(struct copy_mode *copy)
{
	free(copy->prompt_rows);
	copy->prompt_rows = NULL;
	copy->nprompts = 0;
	for (int i = 0; i < copy->nlines; i++)
		free(copy->lines[i]);
	free(copy->lines);
	copy->lines = NULL;
	copy->nlines = 0;
}

static void clamp_view(struct client *c)
{
	struct copy_mode *copy = &c->copy;
	int rows = view_rows(c);
	int max_top = copy->nlines - rows > 0 ? copy->nlines - rows : 0;

	if (copy->cy < 0)
		copy->cy = 0;
	if (copy->cy >= copy->nlines)
		copy->cy = copy->nlines - 1;
	if (copy->cx < 0)
		copy->cx = 0;
	if (copy->cx >= copy->cols)
		copy->cx = copy->cols - 1;
	if (copy->top > max_top)
		copy->top = max_top;
	if (copy->top < 0)
		copy->top = 0;
	if (copy->cy < copy->top)
		copy->top = copy->cy;
	if (copy->cy >= copy->top + rows)
		copy->top = copy->cy - rows + 1;
	c->dirty = true;
}

static void search_step(struct client *c, bool backward);
static void prompt_step(struct client *c, bool backward);

static void on_history_reply(struct client *c, const cJSON *result, const cJSON *error, int arg);

static void fetch_more_history(struct client *c)
{
	struct copy_mode *copy = &c->copy;
	int chunk = HISTORY_CHUNK;
	cJSON *request;

	if (copy->fetching ||
	    (copy->history_total >= 0 && copy->history_loaded >= copy->history_total))
		return;
	if (copy->history_total >= 0 && copy->history_total - copy->history_loaded < chunk)
		chunk = copy->history_total - copy->history_loaded;
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "history");
	cJSON_AddNumberToObject(request, "pane", copy->pane);
	cJSON_AddNumberToObject(request, "start", -(copy->history_loaded + chunk));
	cJSON_AddNumberToObject(request, "end", -(copy->history_loaded + 1));
	copy->fetching = true;
	client_request(c, request, on_history_reply, copy->generation);
}

static bool reply_is_current(struct client *c, int generation)
{
	return c->copy.lines != NULL && c->copy.generation == generation;
}

/* The oldest rows come first in the reply; the first n go in front of
 * what is loaded, and every index into the lines shifts by as many. */
static void prepend_rows(struct client *c, const cJSON *rows, int n)
{
	struct copy_mode *copy = &c->copy;
	struct cell **lines;

	if (n <= 0)
		return;
	lines = xmalloc((size_t)(copy->nlines + n) * sizeof *lines);
	for (int i = 0; i < n; i++) {
		lines[i] = xmalloc((size_t)copy->cols * sizeof **lines);
		cells_from_runs(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, i), "runs"),
				lines[i], copy->cols);
	}
	memcpy(lines + n, copy->lines, (size_t)copy->nlines * sizeof *lines);
	free(copy->lines);
	copy->lines = lines;
	copy->nlines += n;
	copy->history_loaded += n;
	copy->top += n;
	copy->cy += n;
	copy->sel_y += n;
}

/* The first reply holds the newest history and the whole screen, as
 * the server had them at one moment: its screen rows replace the client's
 * own copy (which can be a frame behind, so that history taken a moment
 * later would repeat the lines scrolled in between), and its history
 * rows go above them. */
static void take_screen_rows(struct client *c, const cJSON *rows)
{
	struct copy_mode *copy = &c->copy;
	int n = cJSON_GetArraySize(rows), history = copy->history_total;

	copy->screen_from_server = true;
	if (history > HISTORY_CHUNK)
		history = HISTORY_CHUNK;
	if (history < 0 || history > n)
		history = n;
	/* Only a screen of the size copy mode began at replaces the
	 * client's (a resize may be on its way). */
	if (n - history == copy->rows)
		for (int y = 0; y < copy->rows; y++)
			cells_from_runs(cJSON_GetObjectItemCaseSensitive(
					    cJSON_GetArrayItem(rows, history + y), "runs"),
					copy->lines[y], copy->cols);
	prepend_rows(c, rows, history);
}

static void on_history_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	struct copy_mode *copy = &c->copy;
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(result, "rows");
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(result, "history");
	int before = copy->history_loaded, asked;

	if (!reply_is_current(c, arg))
		return;
	copy->fetching = false;
	if (result == NULL) {
		/* Nothing more to be had; say why only if it is not the end. */
		copy->history_total = copy->history_loaded;
		copy->search_waiting = false;
		copy->pending_scroll = 0;
		client_reply_report_error(c, result, error, arg);
		return;
	}
	if (cJSON_IsNumber(total))
		copy->history_total = total->valueint;
	asked = copy->history_total >= 0 && copy->history_total - before < HISTORY_CHUNK
		    ? copy->history_total - before
		    : HISTORY_CHUNK;
	if (copy->screen_from_server)
		prepend_rows(c, rows, cJSON_GetArraySize(rows));
	else
		take_screen_rows(c, rows);
	if (copy->history_loaded - before < asked)
		copy->history_total = copy->history_loaded; /* the server had fewer */
	if (copy->pending_scroll != 0) {
		int lines = copy->pending_scroll;

		copy->pending_scroll = 0;
		copy_mode_scroll(c, lines);
	}
	if (copy->search_waiting) {
		copy->search_waiting = false;
		search_step(c, copy->waiting_backward);
	}
	if (copy->prompt_waiting) {
		copy->prompt_waiting = false;
		prompt_step(c, true);
	}
	clamp_view(c);
}

static void on_prompts_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(result, "rows"), *row;
	struct copy_mode *copy = &c->copy;
	int n = 0;

	if (!reply_is_current(c, arg) || !cJSON_IsArray(rows))
		return;
	free(copy->prompt_rows);
	copy->prompt_rows = xcalloc((size_t)cJSON_GetArraySize(rows) + 1, sizeof *copy->prompt_rows);
	cJSON_ArrayForEach(row, rows)
		if (cJSON_IsNumber(row))
			copy->prompt_rows[n++] = row->valueint;
	copy->nprompts = n;
}

/*
 * The previous or next prompt the shell marked (OSC 133), as tmux 3.8's
 * previous-prompt and next-prompt: the cursor goes to the start of its
 * line.  One in history not loaded yet is fetched first.
 */
static void prompt_step(struct client *c, bool backward)
{
	struct copy_mode *copy = &c->copy;
	bool found = false;
	int target = 0;

	for (int i = 0; i < copy->nprompts; i++) {
		int line = copy->history_loaded + copy->prompt_rows[i];
		if (backward ? line < copy->cy && (!found || line > target)
			     : line > copy->cy && (!found || line < target)) {
			target = line;
			found = true;
		}
	}
	if (!found) {
		client_show_message(c, false, "no %s prompt marked (OSC 133)",
				    backward ? "earlier" : "later");
		return;
	}
	if (target < 0) {
		/* In history not loaded yet: once it arrives, again. */
		copy->prompt_waiting = true;
		fetch_more_history(c);
		if (!copy->fetching)
			copy->prompt_waiting = false;
		return;
	}
	copy->cy = target;
	copy->cx = 0;
}

void copy_mode_enter(struct client *c, int pane_id, bool page_up)
{
	struct pane_view *pane = client_pane(c, pane_id);
	struct copy_mode *copy = &c->copy;
	int generation = copy->generation + 1;
	cJSON *request;

	if (pane == NULL || pane->cells == NULL)
		return;
	copy_mode_leave(c);
	memset(copy, 0, sizeof *copy);
	copy->generation = generation;
	copy->pane = pane_id;
	copy->cols = pane->cols;
	copy->rows = pane->rows;
	copy->history_total = -1;
	copy->lines = xcalloc((size_t)pane->rows, sizeof *copy->lines);
	for (int y = 0; y < pane->rows; y++) {
		copy->lines[y] = xmalloc((size_t)pane->cols * sizeof **copy->lines);
		memcpy(copy->lines[y], &pane->cells[y * pane->cols],
		       (size_t)pane->cols * sizeof **copy->lines);
		copy->nlines++;
	}
	copy->cy = pane->cursor_y < pane->rows ? pane->cursor_y : pane->rows - 1;
	copy->cx = pane->cursor_x < pane->cols ? pane->cursor_x : pane->cols - 1;
	copy->pending_scroll = page_up ? -pane->rows : 0;
	c->mode = MODE_COPY;
	/* The client's copy of the screen shows at once; the server's screen
	 * and newest history, from one moment, replace it (take_screen_rows),
	 * then older history comes in chunks. */
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "history");
	cJSON_AddNumberToObject(request, "pane", pane_id);
	cJSON_AddNumberToObject(request, "start", -HISTORY_CHUNK);
	cJSON_AddNumberToObject(request, "end", pane->rows - 1);
	copy->fetching = true;
	client_request(c, request, on_history_reply, generation);
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "prompts");
	cJSON_AddNumberToObject(request, "pane", pane_id);
	client_request(c, request, on_prompts_reply, generation);
	clamp_view(c);
}

void copy_mode_leave(struct client *c)
{
	struct pane_view *pane = copy_pane(c);

	free_lines(&c->copy);
	if (c->mode == MODE_COPY)
		c->mode = MODE_NORMAL;
	if (pane != NULL)
		for (int y = 0; y < pane->rows; y++)
			pane->row_dirty[y] = true;
	c->dirty = true;
}

void copy_mode_pane_gone(struct client *c)
{
	copy_mode_leave(c);
}

bool copy_mode_at_bottom(const struct client *c)
{
	const struct copy_mode *copy = &c->copy;
	int rows = view_rows(c);

	return copy->lines != NULL && copy->pending_scroll == 0 && copy->top + rows >= copy->nlines;
}

void copy_mode_scroll(struct client *c, int lines)
{
	struct copy_mode *copy = &c->copy;

	if (copy->lines == NULL)
		return;
	copy->top += lines;
	if (copy->top < 0 &&
	    (copy->history_total < 0 || copy->history_loaded < copy->history_total))
		copy->pending_scroll += copy->top; /* the rest once history arrives */
	if (copy->cy < copy->top)
		copy->cy = copy->top;
	if (copy->cy >= copy->top + view_rows(c))
		copy->cy = copy->top + view_rows(c) - 1;
	clamp_view(c);
	if (copy->top < view_rows(c))
		fetch_more_history(c);
}

/* A line as wide characters, with the column each one starts at. */
static int line_chars(const struct copy_mode *copy, int line, wchar_t *chars, int *columns)
{
	const struct cell *row = copy->lines[line];
	int n = 0;

	for (int col = 0; col < copy->cols; col++) {
		if (row[col].width == 0)
			continue;
		chars[n] = row[col].chars[0] ? row[col].chars[0] : L' ';
		columns[n++] = col;
	}
	chars[n] = 0;
	return n;
}

/* Find needle in line: the first match at or after column from (or the
 * last at or before it, backward).  Returns the column or -1. */
static int find_in_line(const struct copy_mode *copy, int line, const wchar_t *needle, int from,
			bool backward)
{
	wchar_t *chars = xmalloc(((size_t)copy->cols + 1) * sizeof *chars);
	int *columns = xmalloc(((size_t)copy->cols + 1) * sizeof *columns);
	int n, found = -1;
	size_t needle_len = wcslen(needle);

	if (needle_len == 0) {
		free(chars);
		free(columns);
		return -1;
	}
	n = line_chars(copy, line, chars, columns);
	for (int i = 0; i + (int)needle_len <= n; i++) {
		if (wcsncmp(chars + i, needle, needle_len) != 0)
			continue;
		if (!backward && columns[i] >= from) {
			found = columns[i];
			break;
		}
		if (backward && columns[i] <= from)
			found = columns[i];
	}
	free(chars);
	free(columns);
	return found;
}

static bool all_history_loaded(const struct copy_mode *copy)
{
	return copy->history_total >= 0 && copy->history_loaded >= copy->history_total;
}

/* Scan lines first..last (one way, inclusive) for needle, the first line
 * from column from; moves the cursor to the match and says if there was
 * one. */
static bool search_lines(struct client *c, const wchar_t *needle, int first, int from, int last,
			 bool backward)
{
	struct copy_mode *copy = &c->copy;
	int step = backward ? -1 : 1;

	for (int line = first; line >= 0 && line < copy->nlines; line += step) {
		int start = line == first ? from : backward ? copy->cols : 0;
		int col = start < 0 ? -1 : find_in_line(copy, line, needle, start, backward);

		if (col >= 0) {
			copy->cy = line;
			copy->cx = col;
			copy->top = line - view_rows(c) / 2;
			clamp_view(c);
			return true;
		}
		if (line == last)
			break;
	}
	return false;
}

/*
 * One search step, up (backward) or down from the cursor.  Past the end
 * it wraps to the other end and comes back to the cursor, as tmux's
 * wrap-search does; the whole history must be loaded for that, so a
 * step that found nothing fetches it first and resumes in the same
 * direction.
 */
static void search_step(struct client *c, bool backward)
{
	struct copy_mode *copy = &c->copy;
	wchar_t needle[256];

	if (copy->lines == NULL || copy->search[0] == 0)
		return;
	sanitize_text(copy->search, needle, sizeof needle / sizeof needle[0]);
	if (search_lines(c, needle, copy->cy, copy->cx + (backward ? -1 : 1),
			 backward ? 0 : copy->nlines - 1, backward))
		return;
	if (!all_history_loaded(copy)) {
		copy->search_waiting = true;
		copy->waiting_backward = backward;
		fetch_more_history(c);
		if (copy->fetching || !all_history_loaded(copy))
			return;
		copy->search_waiting = false;
	}
	if (backward ? search_lines(c, needle, copy->nlines - 1, copy->cols, copy->cy, true)
		     : search_lines(c, needle, 0, 0, copy->cy, false))
		return;
	client_show_message(c, false, "\"%s\" not found", copy->search);
}

void copy_mode_search(struct client *c, const char *text, bool backward)
{
	struct copy_mode *copy = &c->copy;

	if (text == NULL || text[0] == 0)
		return;
	if (text != copy->search)
		snprintf(copy->search, sizeof copy->search, "%s", text);
	copy->search_backward = backward;
	search_step(c, backward);
}

static bool before(int y1, int x1, int y2, int x2)
{
	return y1 < y2 || (y1 == y2 && x1 <= x2);
}

static void selection_bounds(const struct copy_mode *copy, int *sy, int *sx, int *ey, int *ex)
{
	if (before(copy->sel_y, copy->sel_x, copy->cy, copy->cx)) {
		*sy = copy->sel_y;
		*sx = copy->sel_x;
		*ey = copy->cy;
		*ex = copy->cx;
	} else {
		*sy = copy->cy;
		*sx = copy->cx;
		*ey = copy->sel_y;
		*ex = copy->sel_x;
	}
}

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const unsigned char *data, size_t len)
{
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *p = out;

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)data[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		*p++ = base64_alphabet[(v >> 18) & 63];
		*p++ = base64_alphabet[(v >> 12) & 63];
		*p++ = i + 1 < len ? base64_alphabet[(v >> 6) & 63] : '=';
		*p++ = i + 2 < len ? base64_alphabet[v & 63] : '=';
	}
	*p = 0;
	return out;
}

/* The terminal's clipboard, with OSC 52: base64, so the text cannot
 * smuggle controls out. */
void client_clipboard_tty(const char *text, size_t len)
{
	char *encoded;

	if (len > CLIPBOARD_MAX)
		return; /* terminals drop huge OSC 52 payloads anyway */
	encoded = base64_encode((const unsigned char *)text, len);
	client_write_tty("\033]52;c;", 7);
	client_write_tty(encoded, strlen(encoded));
	client_write_tty("\a", 1);
	free(encoded);
}

static void client_copy_to_clipboard(struct client *c, const char *text, size_t len)
{
	char *copy = xstrndup(text, len);
	cJSON *request = cJSON_CreateObject();

	/* The buffer lives in the server (buffers.c): it survives a detach,
	 * every client shares it, and it carries the pane's backend. */
	cJSON_AddStringToObject(request, "cmd", "set-buffer");
	cJSON_AddStringToObject(request, "text", copy);
	cJSON_AddNumberToObject(request, "source", c->copy.pane);
	free(copy);
	client_request(c, request, client_reply_report_error, 0);
	client_clipboard_tty(text, len);
}

static void copy_selection(struct client *c)
{
	struct copy_mode *copy = &c->copy;
	int sy, sx, ey, ex;
	size_t cap, used = 0;
	char *text;

	if (!copy->selecting) {
		copy->sel_y = copy->cy;
		copy->sel_x = 0;
		copy->cx = copy->cols - 1; /* no selection: the cursor's line */
	}
	selection_bounds(copy, &sy, &sx, &ey, &ex);
	cap = (size_t)(ey - sy + 1) * ((size_t)copy->cols * MB_CUR_MAX * CELL_CHARS + 1) + 1;
	text = xmalloc(cap);
	for (int line = sy; line <= ey; line++) {
		int from = line == sy ? sx : 0, to = line == ey ? ex + 1 : copy->cols;

		used += cells_to_utf8(copy->lines[line], from, to, text + used, cap - used);
		if (line < ey)
			text[used++] = '\n';
	}
	text[used] = 0;
	client_copy_to_clipboard(c, text, used);
	client_show_message(c, false, "copied %zu bytes", used);
	free(text);
}

/* Last non-blank column of a line, for "$". */
static int line_end(const struct copy_mode *copy, int line)
{
	for (int col = copy->cols - 1; col > 0; col--)
		if (copy->lines[line][col].chars[0] != 0)
			return col;
	return 0;
}

static void start_selection(struct copy_mode *copy)
{
	copy->selecting = !copy->selecting;
	copy->sel_y = copy->cy;
	copy->sel_x = copy->cx;
}

void copy_mode_key(struct client *c, const char *name)
{
	struct copy_mode *copy = &c->copy;
	int page = view_rows(c);

	if (copy->lines == NULL) {
		c->mode = MODE_NORMAL;
		return;
	}
	if (!strcmp(name, "q") || !strcmp(name, "C-c") ||
	    (!strcmp(name, "Escape") && !copy->selecting)) {
		copy_mode_leave(c);
	} else if (!strcmp(name, "Escape")) {
		copy->selecting = false;
	} else if (!strcmp(name, "Up") || !strcmp(name, "k")) {
		copy->cy--;
		if (copy->cy < view_rows(c))
			fetch_more_history(c);
	} else if (!strcmp(name, "Down") || !strcmp(name, "j")) {
		copy->cy++;
	} else if (!strcmp(name, "Left") || !strcmp(name, "h")) {
		copy->cx--;
	} else if (!strcmp(name, "Right") || !strcmp(name, "l")) {
		copy->cx++;
	} else if (!strcmp(name, "0") || !strcmp(name, "Home")) {
		copy->cx = 0;
	} else if (!strcmp(name, "$") || !strcmp(name, "End")) {
		copy->cx = line_end(copy, copy->cy);
	} else if (!strcmp(name, "PageUp") || !strcmp(name, "C-b")) {
		copy_mode_scroll(c, -page);
	} else if (!strcmp(name, "PageDown") || !strcmp(name, "C-f")) {
		copy_mode_scroll(c, page);
	} else if (!strcmp(name, "C-u")) {
		copy_mode_scroll(c, -page / 2);
	} else if (!strcmp(name, "C-d")) {
		copy_mode_scroll(c, page / 2);
	} else if (!strcmp(name, "g")) {
		copy->cy = 0;
		fetch_more_history(c);
	} else if (!strcmp(name, "G")) {
		copy->cy = copy->nlines - 1;
	} else if (!strcmp(name, "/")) {
		client_prompt_open(c, PROMPT_SEARCH_DOWN, "search down: ", NULL);
	} else if (!strcmp(name, "?")) {
		client_prompt_open(c, PROMPT_SEARCH_UP, "search up: ", NULL);
	} else if (!strcmp(name, "{") || !strcmp(name, "}")) {
		prompt_step(c, name[0] == '{');
	} else if (!strcmp(name, "n") || !strcmp(name, "N")) {
		/* n keeps the direction of the last / or ?, N goes against it;
		 * neither changes it. */
		search_step(c, copy->search_backward != (name[0] == 'N'));
	} else if (!strcmp(name, "Space") || !strcmp(name, "v")) {
		start_selection(copy);
	} else if (!strcmp(name, "Enter") || !strcmp(name, "y")) {
		copy_selection(c);
		copy_mode_leave(c);
		return;
	}
	clamp_view(c);
}

void copy_mode_draw_line(const struct client *c, int screen_row, struct cell *out, int cols,
			 bool *selected, bool *matched)
{
	const struct copy_mode *copy = &c->copy;
	int line = copy->top + screen_row;
	int width = cols < copy->cols ? cols : copy->cols;
	int sy = 0, sx = 0, ey = -1, ex = 0;
	wchar_t needle[256];

	cells_blank(out, cols);
	memset(selected, 0, (size_t)cols * sizeof *selected);
	memset(matched, 0, (size_t)cols * sizeof *matched);
	if (copy->lines == NULL || line < 0 || line >= copy->nlines)
		return;
	memcpy(out, copy->lines[line], (size_t)width * sizeof *out);
	if (copy->selecting) {
		selection_bounds(copy, &sy, &sx, &ey, &ex);
		for (int col = 0; col < width; col++)
			selected[col] = before(sy, sx, line, col) && before(line, col, ey, ex);
	}
	if (copy->search[0] != 0 && sanitize_text(copy->search, needle, 256) > 0) {
		size_t len = wcslen(needle);

		for (int col = find_in_line(copy, line, needle, 0, false); col >= 0 && col < width;
		     col = find_in_line(copy, line, needle, col + 1, false))
			for (size_t k = 0; k < len && col + (int)k < width; k++)
				matched[col + (int)k] = true;
	}
}

void copy_mode_position(const struct client *c, char *buf, size_t size)
{
	const struct copy_mode *copy = &c->copy;
	int above_bottom = copy->nlines - view_rows(c) - copy->top;
	int total = copy->history_total >= 0 ? copy->history_total : copy->history_loaded;

	snprintf(buf, size, "[%d/%d]", above_bottom > 0 ? above_bottom : 0, total);
}

void copy_mode_cursor(const struct client *c, int *x, int *y)
{
	const struct copy_mode *copy = &c->copy;
	const struct pane_view *pane = NULL;

	for (size_t i = 0; i < c->npanes; i++)
		if (c->panes[i].id == copy->pane)
			pane = &c->panes[i];
	if (pane == NULL) {
		*x = *y = 0;
		return;
	}
	/* The pane may have shrunk since copy mode froze it. */
	*x = pane->x + (copy->cx < pane->cols ? copy->cx : pane->cols - 1);
	*y = pane->y + (copy->cy - copy->top < pane->rows ? copy->cy - copy->top : pane->rows - 1);
}
