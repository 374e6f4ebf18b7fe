/*
 * server-copy: copy mode (server-copy.h); its keys are the "copy-mode"
 * key table's (mode-tables.c), each naming a copy command.
 *
 * Lines are numbered from the oldest history line copy mode began with
 * (0) to the last row of its screen (nlines - 1).  The screen rows are
 * the copy taken then; a history line is read from the pane's grid
 * where it is now: lines that went into history since push it further
 * up by as many (term_lines_out), and one that fell off the end of the
 * history since reads as blank.  When the program empties its history
 * (clear(1)'s ED 3) the view is taken anew (server_copy_follow): what
 * was cleared shows nowhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "sanitise.h"
#include "server-copy.h"
#include "server.h"
#include "xalloc.h"

#define PROMPTS_MAX 512
#define CLIPBOARD_MAX (1024 * 1024)

static int view_rows(const struct server_copy *copy)
{
	return copy->rows > 0 ? copy->rows : 1;
}

static void blank_cells(struct term_cell *cells, int n)
{
	memset(cells, 0, (size_t)n * sizeof *cells);
	for (int i = 0; i < n; i++)
		cells[i].width = 1;
}

/* The pane's history row that history line `line` reads now (in
 * history, line < copy->history); false when it fell off the end. */
static bool history_row(const struct server_copy *copy, const struct pane *p, int line, int *row)
{
	long at = (long)(line - copy->history) - (term_lines_out(p->term) - copy->lines_out);

	if (at >= 0 || at < -(long)term_history_lines(p->term))
		return false;
	*row = (int)at;
	return true;
}

/* Line `line` as copy->cols cells. */
static void line_cells(const struct server_copy *copy, const struct pane *p, int line,
		       struct term_cell *cells)
{
	int row;

	if (line < 0 || line >= copy->nlines) {
		blank_cells(cells, copy->cols);
		return;
	}
	if (line >= copy->history) {
		memcpy(cells, copy->screen + (size_t)(line - copy->history) * (size_t)copy->cols,
		       (size_t)copy->cols * sizeof *cells);
		return;
	}
	if (!history_row(copy, p, line, &row)) {
		blank_cells(cells, copy->cols);
		return;
	}
	for (int col = 0; col < copy->cols; col++)
		if (!term_get_cell(p->term, row, col, &cells[col]))
			blank_cells(&cells[col], 1);
}

static void clamp_view(struct server_copy *copy)
{
	int rows = view_rows(copy);
	int max_top = copy->nlines - rows > 0 ? copy->nlines - rows : 0;

	if (copy->cy >= copy->nlines)
		copy->cy = copy->nlines - 1;
	if (copy->cy < 0)
		copy->cy = 0;
	if (copy->cx >= copy->cols)
		copy->cx = copy->cols - 1;
	if (copy->cx < 0)
		copy->cx = 0;
	if (copy->top > max_top)
		copy->top = max_top;
	if (copy->top < 0)
		copy->top = 0;
	if (copy->cy < copy->top)
		copy->top = copy->cy;
	if (copy->cy >= copy->top + rows)
		copy->top = copy->cy - rows + 1;
}

void server_copy_leave(struct server_copy *copy)
{
	free(copy->screen);
	free(copy->prompt_rows);
	memset(copy, 0, sizeof *copy);
}

void server_copy_enter(struct server_copy *copy, const struct pane *p, bool page_up)
{
	int rows = p->rows > 0 ? p->rows : 1, cols = p->cols > 0 ? p->cols : 1;
	int prompts[PROMPTS_MAX], n, row, col;

	server_copy_leave(copy);
	copy->active = true;
	copy->pane = p->id;
	copy->rows = rows;
	copy->cols = cols;
	copy->screen = xmalloc((size_t)rows * (size_t)cols * sizeof *copy->screen);
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < cols; x++)
			if (!term_get_cell(p->term, y, x, &copy->screen[y * cols + x]))
				blank_cells(&copy->screen[y * cols + x], 1);
	copy->lines_out = term_lines_out(p->term);
	copy->history_clears = term_history_clears(p->term);
	copy->history = term_history_lines(p->term);
	copy->nlines = copy->history + rows;
	n = term_prompt_rows(p->term, prompts, PROMPTS_MAX);
	copy->prompt_rows = xcalloc((size_t)n + 1, sizeof *copy->prompt_rows);
	for (int i = 0; i < n; i++)
		if (copy->history + prompts[i] >= 0)
			copy->prompt_rows[copy->nprompts++] = copy->history + prompts[i];
	term_cursor(p->term, &row, &col);
	copy->cy = copy->history + (row < rows ? row : rows - 1);
	copy->cx = col < cols ? col : cols - 1;
	copy->top = copy->history;
	if (page_up)
		server_copy_scroll(copy, -rows);
	clamp_view(copy);
}

/* The program emptied its history (clear(1)): what it cleared must not
 * show, in copy mode either (the history's own promise, ED 3 in
 * term-scan.c).  The view is taken anew from the pane as it is now,
 * at its bottom, as if copy mode had just begun. */
void server_copy_follow(struct server_copy *copy, const struct pane *p)
{
	if (!copy->active || copy->pane != p->id ||
	    copy->history_clears == term_history_clears(p->term))
		return;
	server_copy_enter(copy, p, false);
}

bool server_copy_at_bottom(const struct server_copy *copy)
{
	return copy->active && copy->top + view_rows(copy) >= copy->nlines;
}

void server_copy_scroll(struct server_copy *copy, int lines)
{
	if (!copy->active)
		return;
	copy->top += lines;
	if (copy->top < 0)
		copy->top = 0;
	if (copy->cy < copy->top)
		copy->cy = copy->top;
	if (copy->cy >= copy->top + view_rows(copy))
		copy->cy = copy->top + view_rows(copy) - 1;
	clamp_view(copy);
}

/* ---- search ---- */

/* A line as characters (the first of each cell; a blank is a space),
 * with the column each starts at.  A history line is read as the pane
 * stores it, packed: a search reads thousands. */
static int line_chars(const struct server_copy *copy, const struct pane *p, int line,
		      struct term_cell *cells, uint32_t *chars, int *columns)
{
	int n = 0, row;

	if (line >= 0 && line < copy->history && history_row(copy, p, line, &row))
		return term_row_chars(p->term, row, copy->cols, chars, columns);
	line_cells(copy, p, line, cells);
	for (int col = 0; col < copy->cols; col++) {
		if (cells[col].width == 0)
			continue;
		chars[n] = cells[col].chars[0] ? cells[col].chars[0] : ' ';
		columns[n++] = col;
	}
	return n;
}

struct needle {
	uint32_t chars[256];
	int len;
};

static void needle_of(const char *text, struct needle *needle)
{
	size_t at = 0, len = strlen(text);

	needle->len = 0;
	while (at < len && needle->len < (int)(sizeof needle->chars / sizeof needle->chars[0])) {
		uint32_t cp;
		size_t n = term_utf8_decode(text + at, len - at, &cp);

		if (n == 0)
			break;
		needle->chars[needle->len++] = sanitise_codepoint(cp);
		at += n;
	}
}

/* Scratch for one line. */
struct line_scan {
	struct term_cell *cells;
	uint32_t *chars;
	int *columns;
};

static void scan_init(struct line_scan *scan, int cols)
{
	scan->cells = xmalloc((size_t)cols * sizeof *scan->cells);
	scan->chars = xmalloc((size_t)cols * sizeof *scan->chars);
	scan->columns = xmalloc((size_t)cols * sizeof *scan->columns);
}

static void scan_free(struct line_scan *scan)
{
	free(scan->cells);
	free(scan->chars);
	free(scan->columns);
}

static bool match_at(const uint32_t *chars, int n, int i, const struct needle *needle)
{
	if (i + needle->len > n)
		return false;
	for (int k = 0; k < needle->len; k++)
		if (chars[i + k] != needle->chars[k])
			return false;
	return true;
}

/* The first match at or after column from (or the last at or before
 * it, backward); the column or -1. */
static int find_in_line(const struct server_copy *copy, const struct pane *p,
			struct line_scan *scan, int line, const struct needle *needle, int from,
			bool backward)
{
	int n, found = -1;

	if (needle->len == 0)
		return -1;
	n = line_chars(copy, p, line, scan->cells, scan->chars, scan->columns);
	for (int i = 0; i + needle->len <= n; i++) {
		if (!match_at(scan->chars, n, i, needle))
			continue;
		if (!backward && scan->columns[i] >= from)
			return scan->columns[i];
		if (backward && scan->columns[i] <= from)
			found = scan->columns[i];
	}
	return found;
}

/* Lines first..last, one way, inclusive, the first from column from:
 * the cursor goes to the match, the view centres on it. */
static bool search_lines(struct server_copy *copy, const struct pane *p, struct line_scan *scan,
			 const struct needle *needle, int first, int from, int last, bool backward)
{
	int step = backward ? -1 : 1;

	for (int line = first; line >= 0 && line < copy->nlines; line += step) {
		int start = line == first ? from : backward ? copy->cols : 0;
		int col =
		    start < 0 ? -1 : find_in_line(copy, p, scan, line, needle, start, backward);

		if (col >= 0) {
			copy->cy = line;
			copy->cx = col;
			copy->top = line - view_rows(copy) / 2;
			clamp_view(copy);
			return true;
		}
		if (line == last)
			break;
	}
	return false;
}

/* One step up (backward) or down from the cursor; past the end it wraps
 * to the other end and comes back to the cursor (tmux's wrap-search). */
static void search_step(struct server_copy *copy, const struct pane *p, bool backward,
			struct server_copy_result *out)
{
	struct needle needle;
	struct line_scan scan;
	bool found;

	if (copy->search[0] == '\0')
		return;
	needle_of(copy->search, &needle);
	scan_init(&scan, copy->cols);
	found = search_lines(copy, p, &scan, &needle, copy->cy, copy->cx + (backward ? -1 : 1),
			     backward ? 0 : copy->nlines - 1, backward) ||
		(backward ? search_lines(copy, p, &scan, &needle, copy->nlines - 1, copy->cols,
					 copy->cy, true)
			  : search_lines(copy, p, &scan, &needle, 0, 0, copy->cy, false));
	scan_free(&scan);
	if (!found) {
		out->action = SERVER_COPY_MESSAGE;
		snprintf(out->message, sizeof out->message, "\"%s\" not found", copy->search);
	}
}

void server_copy_search(struct server_copy *copy, const struct pane *p, const char *text,
			bool backward, struct server_copy_result *out)
{
	memset(out, 0, sizeof *out);
	if (!copy->active || text == NULL || text[0] == '\0')
		return;
	snprintf(copy->search, sizeof copy->search, "%s", text);
	copy->search_backward = backward;
	search_step(copy, p, backward, out);
}

/* ---- prompts (OSC 133) ---- */

static void prompt_step(struct server_copy *copy, bool backward, struct server_copy_result *out)
{
	bool found = false;
	int target = 0;

	for (int i = 0; i < copy->nprompts; i++) {
		int line = copy->prompt_rows[i];

		if (backward ? line < copy->cy && (!found || line > target)
			     : line > copy->cy && (!found || line < target)) {
			target = line;
			found = true;
		}
	}
	if (!found) {
		out->action = SERVER_COPY_MESSAGE;
		snprintf(out->message, sizeof out->message, "no %s prompt marked (OSC 133)",
			 backward ? "earlier" : "later");
		return;
	}
	copy->cy = target;
	copy->cx = 0;
}

/* ---- selection ---- */

static bool before(int y1, int x1, int y2, int x2)
{
	return y1 < y2 || (y1 == y2 && x1 <= x2);
}

static void selection_bounds(const struct server_copy *copy, int *sy, int *sx, int *ey, int *ex)
{
	if (before(copy->sel_y, copy->sel_x, copy->cy, copy->cx)) {
		*sy = copy->sel_y, *sx = copy->sel_x, *ey = copy->cy, *ex = copy->cx;
	} else {
		*sy = copy->cy, *sx = copy->cx, *ey = copy->sel_y, *ex = copy->sel_x;
	}
}

/* Cells from..to-1 as UTF-8, trailing blanks dropped. */
static size_t cells_utf8(const struct term_cell *cells, int from, int to, char *out)
{
	size_t n = 0, keep = 0;

	for (int col = from; col < to; col++) {
		if (cells[col].width == 0)
			continue;
		if (cells[col].chars[0] == 0) {
			out[n++] = ' ';
			continue;
		}
		for (int i = 0; i < TERM_MAX_CHARS && cells[col].chars[i] != 0; i++)
			n += term_utf8_encode(sanitise_codepoint(cells[col].chars[i]), out + n);
		keep = n;
	}
	return keep;
}

static void copy_selection(struct server_copy *copy, const struct pane *p,
			   struct server_copy_result *out)
{
	struct term_cell *cells = xmalloc((size_t)copy->cols * sizeof *cells);
	int sy, sx, ey, ex;
	size_t used = 0;
	char *text;

	if (!copy->selecting) {
		/* No selection: the cursor's line. */
		copy->sel_y = copy->cy;
		copy->sel_x = 0;
		copy->cx = copy->cols - 1;
	}
	selection_bounds(copy, &sy, &sx, &ey, &ex);
	text = xmalloc((size_t)(ey - sy + 1) * ((size_t)copy->cols * TERM_MAX_CHARS * 4 + 1) + 1);
	for (int line = sy; line <= ey; line++) {
		line_cells(copy, p, line, cells);
		used += cells_utf8(cells, line == sy ? sx : 0, line == ey ? ex + 1 : copy->cols,
				   text + used);
		if (line < ey)
			text[used++] = '\n';
	}
	text[used] = '\0';
	free(cells);
	out->action = SERVER_COPY_COPIED;
	out->text = text;
	out->len = used;
	out->source = copy->pane;
	snprintf(out->message, sizeof out->message, "copied %zu bytes", used);
}

/* The last column with a character, for $. */
static int line_end(const struct server_copy *copy, const struct pane *p, int line)
{
	struct term_cell *cells = xmalloc((size_t)copy->cols * sizeof *cells);
	int end = 0;

	line_cells(copy, p, line, cells);
	for (int col = copy->cols - 1; col > 0; col--)
		if (cells[col].chars[0] != 0) {
			end = col;
			break;
		}
	free(cells);
	return end;
}

/* ---- copy commands (tmux's send-keys -X names; mode-tables.c binds keys to them) ---- */

static void leave(struct server_copy *copy, struct server_copy_result *out)
{
	server_copy_leave(copy);
	out->action = SERVER_COPY_LEAVE;
}

static void copy_and_leave(struct server_copy *copy, const struct pane *p,
			   struct server_copy_result *out)
{
	copy_selection(copy, p, out);
	server_copy_leave(copy);
}

static void select_toggle(struct server_copy *copy)
{
	copy->selecting = !copy->selecting;
	copy->sel_y = copy->cy;
	copy->sel_x = copy->cx;
}

enum copy_op {
	OP_UP,
	OP_DOWN,
	OP_LEFT,
	OP_RIGHT,
	OP_LINE_START,
	OP_LINE_END,
	OP_PAGE_UP,
	OP_PAGE_DOWN,
	OP_HALF_UP,
	OP_HALF_DOWN,
	OP_TOP,
	OP_BOTTOM,
	OP_SEARCH_DOWN,
	OP_SEARCH_UP,
	OP_SEARCH_AGAIN,
	OP_SEARCH_REVERSE,
	OP_PROMPT_BACK,
	OP_PROMPT_NEXT,
	OP_SELECT,
	OP_CLEAR,
	OP_COPY,
	OP_CLEAR_OR_CANCEL,
	OP_CANCEL,
};

/* Every name here is one of copy_mode_commands in mode-tables.c. */
static const struct {
	const char *name;
	enum copy_op op;
} copy_ops[] = {
    {"cursor-up", OP_UP},
    {"cursor-down", OP_DOWN},
    {"cursor-left", OP_LEFT},
    {"cursor-right", OP_RIGHT},
    {"start-of-line", OP_LINE_START},
    {"end-of-line", OP_LINE_END},
    {"page-up", OP_PAGE_UP},
    {"page-down", OP_PAGE_DOWN},
    {"halfpage-up", OP_HALF_UP},
    {"halfpage-down", OP_HALF_DOWN},
    {"history-top", OP_TOP},
    {"history-bottom", OP_BOTTOM},
    {"search-forward", OP_SEARCH_DOWN},
    {"search-backward", OP_SEARCH_UP},
    {"search-again", OP_SEARCH_AGAIN},
    {"search-reverse", OP_SEARCH_REVERSE},
    {"previous-prompt", OP_PROMPT_BACK},
    {"next-prompt", OP_PROMPT_NEXT},
    {"begin-selection", OP_SELECT},
    {"clear-selection", OP_CLEAR},
    {"copy-selection-and-cancel", OP_COPY},
    {"clear-selection-or-cancel", OP_CLEAR_OR_CANCEL},
    {"cancel", OP_CANCEL},
};

static void copy_op_run(struct server_copy *copy, const struct pane *p, enum copy_op op,
			struct server_copy_result *out)
{
	int page = view_rows(copy);

	switch (op) {
	case OP_CANCEL:
		leave(copy, out);
		return;
	case OP_CLEAR_OR_CANCEL:
		if (!copy->selecting) {
			leave(copy, out);
			return;
		}
		copy->selecting = false;
		break;
	case OP_COPY:
		copy_and_leave(copy, p, out);
		return;
	case OP_CLEAR:
		copy->selecting = false;
		break;
	case OP_UP:
		copy->cy--;
		break;
	case OP_DOWN:
		copy->cy++;
		break;
	case OP_LEFT:
		copy->cx--;
		break;
	case OP_RIGHT:
		copy->cx++;
		break;
	case OP_LINE_START:
		copy->cx = 0;
		break;
	case OP_LINE_END:
		copy->cx = line_end(copy, p, copy->cy);
		break;
	case OP_PAGE_UP:
		server_copy_scroll(copy, -page);
		break;
	case OP_PAGE_DOWN:
		server_copy_scroll(copy, page);
		break;
	case OP_HALF_UP:
		server_copy_scroll(copy, -page / 2);
		break;
	case OP_HALF_DOWN:
		server_copy_scroll(copy, page / 2);
		break;
	case OP_TOP:
		copy->cy = 0;
		break;
	case OP_BOTTOM:
		copy->cy = copy->nlines - 1;
		break;
	case OP_SEARCH_DOWN:
		out->action = SERVER_COPY_SEARCH_DOWN;
		break;
	case OP_SEARCH_UP:
		out->action = SERVER_COPY_SEARCH_UP;
		break;
	case OP_SEARCH_AGAIN:
	case OP_SEARCH_REVERSE:
		/* search-again keeps the direction of the last search,
		 * search-reverse goes against it; neither changes it. */
		search_step(copy, p, copy->search_backward != (op == OP_SEARCH_REVERSE), out);
		break;
	case OP_PROMPT_BACK:
	case OP_PROMPT_NEXT:
		prompt_step(copy, op == OP_PROMPT_BACK, out);
		break;
	case OP_SELECT:
		select_toggle(copy);
		break;
	}
	clamp_view(copy);
}

bool server_copy_command(struct server_copy *copy, const struct pane *p, const char *command,
			 struct server_copy_result *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof copy_ops / sizeof copy_ops[0]; i++) {
		if (strcmp(command, copy_ops[i].name) != 0)
			continue;
		if (copy->active)
			copy_op_run(copy, p, copy_ops[i].op, out);
		return true;
	}
	return false;
}

void server_copy_key(struct server_copy *copy, const struct pane *p,
		     const struct mode_tables *tables, const char *key,
		     struct server_copy_result *out)
{
	const char *command = mode_tables_command(tables, "copy-mode", key);

	memset(out, 0, sizeof *out);
	if (command != NULL)
		server_copy_command(copy, p, command, out);
}

/* ---- drawing ---- */

void server_copy_row(const struct server_copy *copy, const struct pane *p, int row,
		     struct term_cell *cells, bool *selected, bool *matched)
{
	int line = copy->top + row, sy, sx, ey, ex;

	memset(selected, 0, (size_t)copy->cols * sizeof *selected);
	memset(matched, 0, (size_t)copy->cols * sizeof *matched);
	line_cells(copy, p, line, cells);
	if (line < 0 || line >= copy->nlines)
		return;
	if (copy->selecting) {
		selection_bounds(copy, &sy, &sx, &ey, &ex);
		for (int col = 0; col < copy->cols; col++)
			selected[col] = before(sy, sx, line, col) && before(line, col, ey, ex);
	}
	if (copy->search[0] != '\0') {
		struct needle needle;
		uint32_t *chars = xmalloc((size_t)copy->cols * sizeof *chars);
		int *columns = xmalloc((size_t)copy->cols * sizeof *columns), n = 0;

		needle_of(copy->search, &needle);
		for (int col = 0; col < copy->cols; col++) {
			if (cells[col].width == 0)
				continue;
			chars[n] = cells[col].chars[0] ? cells[col].chars[0] : ' ';
			columns[n++] = col;
		}
		for (int i = 0; needle.len > 0 && i + needle.len <= n; i++) {
			if (!match_at(chars, n, i, &needle))
				continue;
			int end = i + needle.len < n ? columns[i + needle.len] : copy->cols;
			for (int col = columns[i]; col < end; col++)
				matched[col] = true;
		}
		free(chars);
		free(columns);
	}
}

void server_copy_position(const struct server_copy *copy, char *buf, size_t size)
{
	int above_bottom = copy->nlines - view_rows(copy) - copy->top;

	snprintf(buf, size, "[%d/%d]", above_bottom > 0 ? above_bottom : 0, copy->history);
}

void server_copy_cursor(const struct server_copy *copy, int *row, int *col)
{
	*row = copy->cy - copy->top;
	*col = copy->cx;
}

/* ---- the terminal's clipboard ---- */

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *server_copy_osc52(const char *text, size_t len)
{
	const unsigned char *data = (const unsigned char *)text;
	char *out, *p;

	if (len > CLIPBOARD_MAX)
		return NULL;
	out = xmalloc((len + 2) / 3 * 4 + 16);
	p = out + sprintf(out, "\033]52;c;");
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
	*p++ = '\a';
	*p = '\0';
	return out;
}
