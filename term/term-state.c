/*
 * term: libvterm's state layer driving sandmux's compact grid.
 *
 * libvterm's screen layer keeps its own cell array and moves every cell on
 * every scroll, which caps it at a few MB/s.  Its state layer only parses
 * and tracks the cursor, pen and modes, and tells us what happened through
 * callbacks: a glyph at a position, a rectangle scrolled, erased or moved,
 * a pen attribute or terminal property changed.  We apply those to a grid
 * (grid.h) whose rows form a ring, so a scroll is O(1), and whose ASCII
 * cells are five bytes.
 *
 * putglyph is the hot path: for a Latin-1 character with a palette pen it
 * copies a prebuilt cell template into the row and marks the row damaged,
 * with no allocation and no decoding.  It finds the row through a cache of
 * row pointers (refreshed after each scroll, a few hundred glyphs apart)
 * and marks damage with a byte store, not a read-modify-write of a bit.
 *
 * libvterm 0.1.4 does not say when its text wraps at the right edge, and
 * a reflow on resize needs to know (grid.h: `wrapped`).  It wraps inside
 * one text callback: a glyph lands at column 0 of the row below the last
 * one with no cursor movement reported in between.  Anything else that
 * puts the cursor there (CR LF, CUP, a tab...) reports a movement first.
 * So the last glyph's place is kept (wrap_row/wrap_col, moved along by
 * scrolls, forgotten on any other movement) and that one comparison in
 * putglyph marks the row above wrapped.
 *
 * Modes libvterm 0.1.4 tracks but does not expose (application cursor keys
 * and keypad, bracketed paste, SGR mouse) are read back by asking libvterm
 * to encode a probe key and looking at what it produced: the answer is
 * exactly what the program will receive, and nothing is parsed twice.
 */
#include "term-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "grid.h"
#include "xalloc.h"

/* ---- damage ---- */

static void damage_rows(struct term *term, int start, int end)
{
	memset(term->damaged + start, 1, (size_t)(end - start));
}

/* The grid was resized or switched: re-point the whole cache. */
static void refresh_row_lines(struct term *term)
{
	for (int row = 0; row < term->rows; row++)
		term->row_lines[row] = grid_visible_line(term->grid, row);
}

/* The ring rotated by `count` rows (positive: up).  Scrolls inside a region
 * move line contents between fixed slots and need nothing here. */
static void rotate_row_lines(struct term *term, int count)
{
	int rows = term->rows;
	size_t size = sizeof *term->row_lines;

	if (count >= rows || -count >= rows) {
		refresh_row_lines(term);
	} else if (count > 0) {
		memmove(term->row_lines, term->row_lines + count, (size_t)(rows - count) * size);
		for (int row = rows - count; row < rows; row++)
			term->row_lines[row] = grid_visible_line(term->grid, row);
	} else if (count < 0) {
		memmove(term->row_lines - count, term->row_lines, (size_t)(rows + count) * size);
		for (int row = 0; row < -count; row++)
			term->row_lines[row] = grid_visible_line(term->grid, row);
	}
}

/* ---- pen ---- */

static void color_from_vterm(const VTermColor *in, struct term_color *out)
{
	memset(out, 0, sizeof *out);
	if (VTERM_COLOR_IS_DEFAULT_FG(in) || VTERM_COLOR_IS_DEFAULT_BG(in))
		return;
	if (VTERM_COLOR_IS_INDEXED(in)) {
		out->kind = TERM_COLOR_PALETTE;
		out->index = in->indexed.idx;
		return;
	}
	out->kind = TERM_COLOR_RGB;
	out->r = in->rgb.red;
	out->g = in->rgb.green;
	out->b = in->rgb.blue;
}

/* Rebuild the compact template putglyph copies for every plain glyph. */
static void pen_rebuild(struct term *term)
{
	const struct term_style *pen = &term->pen;
	struct grid_cell *cell = &term->pen_cell;

	memset(cell, 0, sizeof *cell);
	cell->attr = pen->attrs;
	if (pen->fg.kind == TERM_COLOR_PALETTE) {
		cell->flags |= GRID_CELL_FG_PALETTE;
		cell->fg = pen->fg.index;
	}
	if (pen->bg.kind == TERM_COLOR_PALETTE) {
		cell->flags |= GRID_CELL_BG_PALETTE;
		cell->bg = pen->bg.index;
	}
	bool compact =
	    pen->fg.kind != TERM_COLOR_RGB && pen->bg.kind != TERM_COLOR_RGB && pen->link == 0;
	term->compact_limit = compact ? 0xff : 0;
}

static void pen_set_flag(struct term *term, uint8_t flag, bool on)
{
	if (on)
		term->pen.attrs |= flag;
	else
		term->pen.attrs &= (uint8_t)~flag;
}

static int on_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	struct term *term = user;

	switch (attr) {
	case VTERM_ATTR_BOLD:
		pen_set_flag(term, TERM_ATTR_BOLD, val->boolean);
		break;
	case VTERM_ATTR_UNDERLINE:
		pen_set_flag(term, TERM_ATTR_UNDERLINE, val->number != 0);
		break;
	case VTERM_ATTR_ITALIC:
		pen_set_flag(term, TERM_ATTR_ITALIC, val->boolean);
		break;
	case VTERM_ATTR_BLINK:
		pen_set_flag(term, TERM_ATTR_BLINK, val->boolean);
		break;
	case VTERM_ATTR_REVERSE:
		pen_set_flag(term, TERM_ATTR_REVERSE, val->boolean);
		break;
	case VTERM_ATTR_STRIKE:
		pen_set_flag(term, TERM_ATTR_STRIKE, val->boolean);
		break;
	case VTERM_ATTR_FOREGROUND:
		color_from_vterm(&val->color, &term->pen.fg);
		break;
	case VTERM_ATTR_BACKGROUND:
		color_from_vterm(&val->color, &term->pen.bg);
		break;
	default:
		return 1; /* fonts: nothing to keep */
	}
	pen_rebuild(term);
	return 1;
}

/* ---- drawing callbacks ---- */

/* Everything but a plain glyph over a plain cell: wide and combining
 * characters, RGB pens, overwriting part of a wide character.  Kept out of
 * line so the fast path in on_putglyph stays a leaf. */
static __attribute__((noinline)) int putglyph_general(struct term *term, struct grid_line *line,
						      const VTermGlyphInfo *info, int col)
{
	struct term_cell cell = {.width = (uint8_t)info->width, .style = term->pen};

	for (int i = 0; i < TERM_MAX_CHARS && info->chars[i]; i++)
		cell.chars[i] = info->chars[i];
	grid_line_set(line, col, &cell);
	return 1;
}

static int on_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	struct term *term = user;
	const uint32_t *chars = info->chars;
	struct grid_line *line;

	/* libvterm 0.1.4 can hand out a column of -1 (a C1 control decoded
	 * from UTF-8 moves the cursor before the row): never write there. */
	if (info->width < 1 || pos.col < 0 || pos.col + info->width > term->cols || pos.row < 0 ||
	    pos.row >= term->rows || term->replaying_wrap)
		return 1;
	line = term->row_lines[pos.row];
	term->damaged[pos.row] = 1;
	if (pos.col == 0 && pos.row == term->wrap_row + 1)
		term->row_lines[pos.row - 1]->wrapped = true; /* libvterm wrapped */
	term->wrap_row = pos.row;
	term->wrap_end = pos.col + info->width;
	term->wrap_col = term->wrap_end < term->cols ? term->wrap_end : pos.col;
	/* Visible lines always hold `cols` cells, so pos.col is in range. */
	struct grid_cell *cell = &line->cells[pos.col];
	if (chars[0] > term->compact_limit || chars[1] != 0 || info->width != 1 ||
	    (cell->flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING)))
		return putglyph_general(term, line, info, pos.col);

	*cell = term->pen_cell;
	cell->ch = (uint8_t)chars[0];
	if (pos.col >= line->used)
		line->used = (uint16_t)(pos.col + 1);
	return 1;
}

static int on_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	term_cursor_moved(user, pos.row, pos.col);
	return 1;
}

static int on_erase(VTermRect rect, int selective, void *user)
{
	struct term *term = user;

	for (int row = rect.start_row; row < rect.end_row; row++)
		grid_line_erase(grid_visible_line(term->grid, row), rect.start_col, rect.end_col,
				&term->pen);
	damage_rows(term, rect.start_row, rect.end_row);
	return 1;
}

/* Copy one row segment through a decoded buffer, so that overlapping
 * moves within a line (insert/delete character) and wide characters that
 * straddle the segment come out whole. */
static void move_row(struct term *term, int dest_row, int src_row, int dest_col, int src_col,
		     int width)
{
	struct grid_line *src = grid_visible_line(term->grid, src_row);
	struct grid_line *dest = grid_visible_line(term->grid, dest_row);

	for (int i = 0; i < width; i++)
		grid_line_get(src, src_col + i, &term->row_buffer[i]);
	for (int i = 0; i < width; i++)
		grid_line_set(dest, dest_col + i, &term->row_buffer[i]);
}

static int on_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct term *term = user;
	int height = dest.end_row - dest.start_row;
	int width = dest.end_col - dest.start_col;
	bool downward = dest.start_row > src.start_row;

	for (int i = 0; i < height; i++) {
		int offset = downward ? height - 1 - i : i;
		move_row(term, dest.start_row + offset, src.start_row + offset, dest.start_col,
			 src.start_col, width);
	}
	damage_rows(term, dest.start_row, dest.end_row);
	return 1;
}

/* Rows scrolled off the top of the main screen belong in history, as in
 * tmux, except when the program deletes lines at the very top (DL with the
 * cursor on row 0): that is an edit, not output scrolling past. */
static bool scroll_reaches_history(struct term *term, VTermRect rect, int cursor_row)
{
	if (term->grid != term->main_grid || rect.start_row != 0)
		return false;
	return cursor_row != 0 || rect.end_row == 1;
}

/* Whether no row is double-width or double-height (DECDWL, DECDHL):
 * libvterm's line info is then all zero and a scroll leaves it so. */
static bool lines_single_width(const struct term *term)
{
	for (int row = 0; row < term->rows; row++) {
		const VTermLineInfo *info = vterm_state_get_lineinfo(term->state, row);
		if (info->doublewidth || info->doubleheight)
			return false;
	}
	return true;
}

/* libvterm's scrollrect callback, with its cursor's row given: false if
 * the rectangle is not whole rows, which libvterm then moves cell by
 * cell. */
static bool term_scrollrect(struct term *term, int start_row, int end_row, int start_col,
			    int end_col, int downward, int rightward, int cursor_row)
{
	VTermRect rect = {
	    .start_row = start_row, .end_row = end_row, .start_col = start_col, .end_col = end_col};

	/* Only whole-width row scrolls get the ring; the rest is cell moves
	 * (and forgets the last glyph: no wrap is marked inside margins). */
	if (rightward != 0 || rect.start_col != 0 || rect.end_col != term->cols) {
		term->wrap_row = -2;
		return false;
	}
	if (term->wrap_row >= rect.start_row && term->wrap_row < rect.end_row) {
		term->wrap_row -= downward;
		if (term->wrap_row < rect.start_row || term->wrap_row >= rect.end_row)
			term->wrap_row = -2;
	}
	if (downward > 0) {
		bool to_history = scroll_reaches_history(term, rect, cursor_row);
		grid_scroll_up(term->grid, rect.start_row, rect.end_row, downward, to_history,
			       &term->pen);
		term->lines_out += to_history ? downward : 0;
	} else if (downward < 0) {
		grid_scroll_down(term->grid, rect.start_row, rect.end_row, -downward, &term->pen);
	}
	if (rect.start_row == 0 && rect.end_row == term->rows) {
		rotate_row_lines(term, downward);
		/* libvterm scrolls its whole scroll region, or from the
		 * cursor's row to the region's bottom with the cursor inside
		 * it (IL, DL): a whole-screen scroll says the region is the
		 * whole screen.  Line info is known zero once looked at. */
		if (!term->lines_known)
			term->lines_known = lines_single_width(term);
	}
	damage_rows(term, rect.start_row, rect.end_row);
	return true;
}

void term_scroll_screen(struct term *term, int cursor_row)
{
	VTermRect rect = {.start_row = 0, .end_row = term->rows, .start_col = 0, .end_col = term->cols};
	bool to_history = scroll_reaches_history(term, rect, cursor_row);

	if (term->wrap_row >= 0 && term->wrap_row < term->rows && --term->wrap_row < 0)
		term->wrap_row = -2;
	grid_scroll_up(term->grid, 0, term->rows, 1, to_history, &term->pen);
	term->lines_out += to_history;
}

void term_screen_scrolled(struct term *term, int count)
{
	rotate_row_lines(term, count);
	damage_rows(term, 0, term->rows);
}

static int on_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct term *term = user;
	VTermPos cursor = {0, 0};

	if (rect.start_row == 0 && term->grid == term->main_grid)
		vterm_state_get_cursorpos(term->state, &cursor);
	return term_scrollrect(term, rect.start_row, rect.end_row, rect.start_col, rect.end_col,
			       downward, rightward, cursor.row);
}

/* ---- properties ---- */

static void switch_screen(struct term *term, bool alt)
{
	/* The alternate screen exists only while shown: it starts blank
	 * (erased below) and nothing reads it once left. */
	if (alt && term->alt_grid == NULL)
		term->alt_grid = grid_new(term->rows, term->cols, 0);
	struct grid *grid = alt ? term->alt_grid : term->main_grid;

	if (grid == term->grid)
		return;
	if (alt) {
		VTermPos cursor;

		for (int row = 0; row < term->rows; row++)
			grid_line_erase(grid_visible_line(grid, row), 0, term->cols, NULL);
		/* 1049 saves the cursor right after this: it is here now. */
		vterm_state_get_cursorpos(term->state, &cursor);
		term->saved_row = cursor.row;
		term->saved_col = cursor.col;
	}
	/* Back from the alternate screen: the main one to the size the
	 * terminal has now, around the row of the cursor libvterm restores
	 * next (1049), then its lines rewrapped at the new width with that
	 * cursor kept on its character (grid_reflow).  libvterm knows nothing
	 * of the move: the scanner puts its cursor there after it
	 * (restore_saved_cursor). */
	term->saved_moved = false;
	if (!alt && (grid->rows != term->rows || grid->cols != term->cols)) {
		int row = term->saved_row, col = term->saved_col;

		int moved = grid_resize_saved(grid, term->rows, grid->cols, term->saved_row);
		row += moved;
		term->lines_out -= moved;
		if (grid->cols != term->cols) {
			grid_reflow(grid, term->cols, &row, &col);
			term->nmarks = 0; /* lines rewrapped: no mark knows its line */
		}
		term->saved_row = row;
		term->saved_col = col;
		term->saved_moved = true;
	}
	term->grid = grid;
	if (!alt) {
		grid_free(term->alt_grid);
		term->alt_grid = NULL;
	}
	refresh_row_lines(term);
	damage_rows(term, 0, term->rows);
}

static int on_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct term *term = user;

	switch (prop) {
	case VTERM_PROP_CURSORVISIBLE:
		term->cursor_visible = val->boolean;
		break;
	case VTERM_PROP_ALTSCREEN:
		switch_screen(term, val->boolean);
		break;
	case VTERM_PROP_TITLE:
		free(term->title);
		term->title = xstrdup(val->string ? val->string : "");
		break;
	case VTERM_PROP_MOUSE:
		term->mouse = val->number;
		break;
	default:
		break;
	}
	return 1;
}

/* OSC 8 (";PARAMS;URI"): the pen's hyperlink from here on, or none for
 * an empty URI.  What is kept is bounded and free of controls (term.h),
 * so a capture can write it back inside its own OSC 8. */
static bool link_text_ok(const char *text, size_t len, size_t max, bool params)
{
	if (len > max)
		return false;
	for (size_t i = 0; i < len; i++)
		if (text[i] < 0x21 || text[i] > 0x7e || (params && text[i] == ';'))
			return false;
	return true;
}

static uint16_t link_find_or_add(struct term *term, const char *params, size_t params_len,
				 const char *uri, size_t uri_len)
{
	for (int i = term->nlinks - 1; i >= 0; i--) {
		const struct term_link *link = &term->links[i];
		if (strlen(link->uri) == uri_len && memcmp(link->uri, uri, uri_len) == 0 &&
		    strlen(link->params) == params_len &&
		    memcmp(link->params, params, params_len) == 0)
			return (uint16_t)(i + 1);
	}
	if (term->nlinks == TERM_LINKS_MAX)
		return 0;
	if (term->nlinks == term->links_cap) {
		term->links_cap = term->links_cap ? term->links_cap * 2 : 8;
		term->links = xrealloc(term->links, (size_t)term->links_cap * sizeof *term->links);
	}
	term->links[term->nlinks].uri = xstrndup(uri, uri_len);
	term->links[term->nlinks].params = xstrndup(params, params_len);
	return (uint16_t)++term->nlinks;
}

static void on_osc8(struct term *term, const char *command, size_t len)
{
	const char *sep = memchr(command, ';', len);
	uint16_t link = 0;

	if (sep != NULL) {
		size_t params_len = (size_t)(sep - command), uri_len = len - params_len - 1;
		const char *uri = sep + 1;
		if (uri_len > 0 && link_text_ok(uri, uri_len, TERM_LINK_URI_MAX, false) &&
		    link_text_ok(command, params_len, TERM_LINK_PARAMS_MAX, true))
			link = link_find_or_add(term, command, params_len, uri, uri_len);
	}
	term->pen.link = link;
	pen_rebuild(term);
}

const char *term_link(const struct term *term, uint16_t link, const char **params)
{
	if (link == 0 || link > term->nlinks)
		return NULL;
	if (params != NULL)
		*params = term->links[link - 1].params;
	return term->links[link - 1].uri;
}

/* OSC 52 (";SELECTIONS;BASE64"): the program writes the clipboard.  The
 * payload is decoded and kept for the caller, who decides whether it
 * goes anywhere (term_take_clipboard); a query ("?") is never answered,
 * and a payload that is not strict base64 is dropped. */
static int base64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decoded length, or -1 when text is not base64 (padding only at the end). */
static long base64_decode(const char *text, size_t len, char *out)
{
	unsigned bits = 0, nbits = 0;
	size_t used = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		int v = base64_value(text[i]);
		if (text[i] == '=') {
			pad++;
			continue;
		}
		if (v < 0 || pad > 0)
			return -1;
		bits = bits << 6 | (unsigned)v;
		nbits += 6;
		if (nbits >= 8) {
			nbits -= 8;
			out[used++] = (char)(bits >> nbits & 0xff);
		}
	}
	return pad > 2 ? -1 : (long)used;
}

static void on_osc52(struct term *term, const char *command, size_t len)
{
	const char *sep = memchr(command, ';', len);
	char *data;
	long decoded;

	if (sep == NULL)
		return;
	len -= (size_t)(sep + 1 - command);
	command = sep + 1;
	data = xmalloc(len / 4 * 3 + 4);
	decoded = base64_decode(command, len, data);
	if (decoded < 0 || (len == 1 && command[0] == '?')) {
		free(data);
		return;
	}
	free(term->clipboard);
	term->clipboard = data;
	term->clipboard_len = (size_t)decoded;
}

char *term_take_clipboard(struct term *term, size_t *len)
{
	char *data = term->clipboard;

	*len = term->clipboard_len;
	term->clipboard = NULL;
	term->clipboard_len = 0;
	return data;
}

/* Notifications: OSC 9 ("9;TEXT", iTerm2's and ConEmu's) and OSC 777
 * ("777;notify;TITLE;BODY", rxvt's), kept as "TITLE: BODY", bounded, for
 * the caller to show through its sanitiser; and OSC 9;4 ("9;4;STATE;PCT",
 * ConEmu's progress, as Windows Terminal and tmux read it). */
#define NOTICE_MAX 200

static void set_notice(struct term *term, const char *text, size_t len, const char *body,
		       size_t body_len)
{
	if (len > NOTICE_MAX)
		len = NOTICE_MAX;
	if (body_len > NOTICE_MAX - len)
		body_len = NOTICE_MAX - len;
	free(term->notice);
	term->notice = xmalloc(len + body_len + 3);
	memcpy(term->notice, text, len);
	if (body != NULL && body_len > 0) {
		memcpy(term->notice + len, ": ", 2);
		memcpy(term->notice + len + 2, body, body_len);
		len += body_len + 2;
	}
	term->notice[len] = '\0';
}

static long osc_number(const char **p, const char *end)
{
	long n = 0;
	bool any = false;

	while (*p < end && **p >= '0' && **p <= '9' && n < 1000) {
		n = n * 10 + (**p - '0');
		(*p)++;
		any = true;
	}
	return any ? n : -1;
}

static void on_osc9(struct term *term, const char *command, size_t len)
{
	const char *p = command + 2, *end = command + len;
	long state, percent = 0;

	if (len < 2 || command[0] != '4' || command[1] != ';') {
		set_notice(term, command, len, NULL, 0);
		return;
	}
	state = osc_number(&p, end);
	if (p < end && *p == ';') {
		p++;
		percent = osc_number(&p, end);
	}
	if (state < 0 || state > 4 || percent < 0)
		return;
	term->progress_state = (int)state;
	term->progress = percent > 100 ? 100 : (int)percent;
}

static void on_osc777(struct term *term, const char *command, size_t len)
{
	const char *title, *body;

	if (len < 7 || memcmp(command, "notify;", 7) != 0)
		return;
	title = command + 7;
	body = memchr(title, ';', (size_t)(command + len - title));
	if (body == NULL) {
		set_notice(term, title, (size_t)(command + len - title), NULL, 0);
		return;
	}
	set_notice(term, title, (size_t)(body - title), body + 1,
		   (size_t)(command + len - body - 1));
}

char *term_take_notice(struct term *term)
{
	char *notice = term->notice;

	term->notice = NULL;
	return notice;
}

int term_progress(const struct term *term, int *percent)
{
	*percent = term->progress;
	return term->progress_state;
}

/* OSC 133 ("133;A", B, C, D, anything after ignored): a shell marking
 * its prompt, the command line, the command's output and its end, kept
 * on the main screen's line the cursor is on (term_last_command). */
static void on_osc133(struct term *term, const char *command, size_t len)
{
	VTermPos cursor;
	struct term_mark mark;

	if (len < 1 || command[0] < 'A' || command[0] > 'D' || (len > 1 && command[1] != ';') ||
	    term->grid != term->main_grid)
		return;
	vterm_state_get_cursorpos(term->state, &cursor);
	mark.line = term->lines_out + cursor.row;
	mark.kind = command[0];
	if (term->nmarks == MARKS_MAX) {
		memmove(term->marks, term->marks + 1, (MARKS_MAX - 1) * sizeof *term->marks);
		term->nmarks--;
	}
	term->marks[term->nmarks++] = mark;
}

int term_prompt_rows(const struct term *term, int *rows, int max)
{
	int n = 0;
	long last = -1;

	for (int i = 0; i < term->nmarks && n < max; i++) {
		long row = term->marks[i].line - term->lines_out;
		if (term->marks[i].kind != 'A' || term->marks[i].line == last ||
		    row < -term_history_lines(term) || row >= term->rows)
			continue;
		last = term->marks[i].line;
		rows[n++] = (int)row;
	}
	return n;
}

bool term_last_command(const struct term *term, int *start, int *end)
{
	int out = -1, cursor_row, cursor_col;

	for (int i = term->nmarks - 1; i >= 0 && out < 0; i--)
		if (term->marks[i].kind == 'C')
			out = i;
	if (out < 0)
		return false;
	term_cursor(term, &cursor_row, &cursor_col);
	*start = (int)(term->marks[out].line - term->lines_out);
	*end = term->grid == term->main_grid ? cursor_row : term->rows - 1;
	/* It ends where the next prompt (or its end mark) begins. */
	for (int i = out + 1; i < term->nmarks; i++)
		if (term->marks[i].kind == 'D' || term->marks[i].kind == 'A') {
			*end = (int)(term->marks[i].line - term->lines_out) - 1;
			break;
		}
	if (*start < -term_history_lines(term))
		*start = -term_history_lines(term);
	return true;
}

/* OSC strings libvterm does not handle itself.  OSC 7 is a shell saying
 * where it is ("file://host/path"): kept as sent, bounded, for the caller
 * to parse and distrust (any program in the pane can send it). */
#define OSC7_MAX 4096

static int on_osc(const char *command, size_t len, void *user)
{
	struct term *term = user;

	if (len >= 2 && command[0] == '9' && command[1] == ';') {
		on_osc9(term, command + 2, len - 2);
		return 1;
	}
	if (len >= 4 && memcmp(command, "133;", 4) == 0) {
		on_osc133(term, command + 4, len - 4);
		return 1;
	}
	if (len >= 4 && memcmp(command, "777;", 4) == 0) {
		on_osc777(term, command + 4, len - 4);
		return 1;
	}
	if (len >= 3 && command[0] == '5' && command[1] == '2' && command[2] == ';') {
		on_osc52(term, command + 3, len - 3);
		return 1;
	}
	if (len >= 2 && command[0] == '8' && command[1] == ';') {
		on_osc8(term, command + 2, len - 2);
		return 1;
	}
	if (len < 2 || command[0] != '7' || command[1] != ';')
		return 0;
	command += 2;
	len -= 2;
	if (len > OSC7_MAX)
		len = OSC7_MAX;
	char *copy = xmalloc(len + 1);
	memcpy(copy, command, len);
	copy[len] = '\0';
	if (term->osc7 == NULL || strcmp(term->osc7, copy) != 0)
		term->osc7_changed = true;
	free(term->osc7);
	term->osc7 = copy;
	return 1;
}

static const VTermParserCallbacks fallback_callbacks = {
    .osc = on_osc,
};

static int on_bell(void *user)
{
	struct term *term = user;
	term->bell = true;
	return 1;
}

/* ---- size ---- */

static void alloc_row_state(struct term *term, int rows, int cols)
{
	free(term->damaged);
	free(term->row_lines);
	free(term->row_buffer);
	term->damaged = xcalloc((size_t)rows, sizeof *term->damaged);
	term->row_lines = xcalloc((size_t)rows, sizeof *term->row_lines);
	term->row_buffer = xcalloc((size_t)cols, sizeof *term->row_buffer);
}

/* The main screen's new rows, then its lines rewrapped at the new width
 * (grid_reflow) with the cursor kept on its character.  libvterm moves the
 * cursor by delta after this callback: first one column right if a wrap
 * was pending (at_phantom), then delta, then clamped to the screen. */
static void resize_main(struct term *term, int rows, int cols, VTermPos cursor, VTermPos *delta)
{
	bool pending = term->mode_autowrap && cursor.row == term->wrap_row &&
		       cursor.col == term->wrap_col && term->wrap_end >= term->cols;
	int row = cursor.row, col = pending ? term->cols : cursor.col;

	int moved = grid_resize(term->main_grid, rows, term->cols, cursor.row);
	row += moved;
	term->lines_out -= moved;
	if (cols != term->cols) {
		grid_reflow(term->main_grid, cols, &row, &col);
		term->nmarks = 0; /* lines rewrapped: no mark knows its line */
	}
	if (col >= cols) {
		col = cols - 1;
		term->pending_wrap_row = row;
	}
	int phantom_step = pending && cursor.col < cols - 1;
	delta->row = row - cursor.row;
	delta->col = col - cursor.col - phantom_step;
}

static int on_resize(int rows, int cols, VTermPos *delta, void *user)
{
	struct term *term = user;
	VTermPos cursor;

	vterm_state_get_cursorpos(term->state, &cursor);
	if (term->grid == term->main_grid) {
		resize_main(term, rows, cols, cursor, delta);
	} else {
		/* A full-screen program redraws on SIGWINCH: its screen is cut
		 * or padded, never reflowed.  The main screen behind it keeps
		 * its size until it is shown again (switch_screen), as tmux
		 * keeps the screen it saved: libvterm brings the saved cursor
		 * back there, and only then is the size the cursor must fit
		 * known; it is reflowed to the new width then. */
		delta->row += grid_resize(term->alt_grid, rows, cols, cursor.row);
	}
	term->wrap_row = -2;

	term->rows = rows;
	term->cols = cols;
	alloc_row_state(term, rows, cols);
	refresh_row_lines(term);
	damage_rows(term, 0, rows);
	return 1;
}

static const VTermStateCallbacks state_callbacks = {
    .putglyph = on_putglyph,
    .movecursor = on_movecursor,
    .scrollrect = on_scrollrect,
    .moverect = on_moverect,
    .erase = on_erase,
    .setpenattr = on_setpenattr,
    .settermprop = on_settermprop,
    .bell = on_bell,
    .resize = on_resize,
};

/* ---- output ---- */

void term_on_output(const char *bytes, size_t len, void *user)
{
	struct term *term = user;
	struct probe *probe = &term->probe;

	if (probe->active) {
		size_t room = sizeof probe->bytes - 1 - probe->len;
		size_t n = len < room ? len : room;
		memcpy(probe->bytes + probe->len, bytes, n);
		probe->len += n;
		probe->bytes[probe->len] = '\0';
		return;
	}
	if (term->output)
		term->output(bytes, len, term->output_user);
}

/* ---- lifetime ---- */

static int clamp_size(int n)
{
	return n < 1 ? 1 : n > GRID_MAX_SIZE ? GRID_MAX_SIZE : n;
}

struct term *term_new(int rows, int cols, int scrollback_limit)
{
	struct term *term = xcalloc(1, sizeof *term);

	rows = clamp_size(rows);
	cols = clamp_size(cols);
	term->rows = rows;
	term->cols = cols;
	term->main_grid = grid_new(rows, cols, scrollback_limit);
	term->grid = term->main_grid;
	term->cursor_visible = true;
	term->wrap_row = -2;
	term->pending_wrap_row = -1;
	term->tabs_default = true;
	alloc_row_state(term, rows, cols);
	refresh_row_lines(term);

	term->vt = vterm_new(rows, cols);
	vterm_set_utf8(term->vt, 1);
	vterm_output_set_callback(term->vt, term_on_output, term);
	term->state = vterm_obtain_state(term->vt);
	vterm_state_set_callbacks(term->state, &state_callbacks, term);
	vterm_state_set_unrecognised_fallbacks(term->state, &fallback_callbacks, term);
	vterm_state_reset(term->state, 1);
	term_scan_reset_modes(term);
	/* libvterm 0.1.4 restores a zeroed pen (RGB black on black) when a
	 * program restores a cursor it never saved (DECRC, or leaving the
	 * alternate screen, which many do at start-up).  Saving once now makes
	 * that restore the defaults, as xterm does. */
	vterm_input_write(term->vt, "\0337", 2);
	pen_rebuild(term);
	return term;
}

void term_free(struct term *term)
{
	if (term == NULL)
		return;
	vterm_free(term->vt);
	grid_free(term->main_grid);
	grid_free(term->alt_grid);
	free(term->damaged);
	free(term->row_lines);
	free(term->row_buffer);
	free(term->title);
	free(term->osc7);
	free(term->clipboard);
	free(term->notice);
	for (int i = 0; i < term->nlinks; i++) {
		free(term->links[i].uri);
		free(term->links[i].params);
	}
	free(term->links);
	free(term->held);
	free(term->padded);
	free(term);
}

void term_set_output(struct term *term, term_output_fn fn, void *user)
{
	term->output = fn;
	term->output_user = user;
}

/* The reflow left the cursor past the last column of a full row (tmux's
 * cx == sx): the next character must start the row below, as a wrap.
 * libvterm has no call for that state, but printing at the last column
 * enters it: so a glyph is printed there that putglyph does not write. */
static void replay_pending_wrap(struct term *term)
{
	char cup[32];
	int len = snprintf(cup, sizeof cup, "\033[%d;%dHx", term->pending_wrap_row + 1, term->cols);

	term->replaying_wrap = true;
	vterm_input_write(term->vt, cup, (size_t)len);
	term->replaying_wrap = false;
	/* As if that glyph had been written: the next one marks the wrap. */
	term->wrap_row = term->pending_wrap_row;
	term->wrap_col = term->cols - 1;
	term->wrap_end = term->cols;
	term->pending_wrap_row = -1;
}

void term_resize(struct term *term, int rows, int cols)
{
	rows = clamp_size(rows);
	cols = clamp_size(cols);
	if (rows == term->rows && cols == term->cols)
		return;
	VTermPos cursor;
	char cup[32];

	vterm_set_size(term->vt, rows, cols);
	/* libvterm 0.1.4 keeps a scroll region that a shrink left below the
	 * new bottom and then scrolls rows that do not exist (a crash any
	 * program can provoke by setting a region and waiting for a split).
	 * Reset the region on every resize, as tmux does.  DECSTBM homes the
	 * cursor, so it is put back with a CUP: not DECSC/DECRC, whose one
	 * slot is also what the alternate screen (1049) saved the shell's
	 * cursor in, and overwriting it left the shell's prompt wherever the
	 * editor had its cursor at the resize.  In origin mode a CUP counts
	 * from margins this cannot see, so there DECSC/DECRC stays. */
	vterm_state_get_cursorpos(term->state, &cursor);
	if (term->mode_origin) {
		vterm_input_write(term->vt, "\0337\033[r\0338", 7);
	} else {
		snprintf(cup, sizeof cup, "\033[r\033[%d;%dH", cursor.row + 1, cursor.col + 1);
		vterm_input_write(term->vt, cup, strlen(cup));
	}
	/* That ESC also ended whatever sequence libvterm was in: so does the
	 * scanner's view of it (found by the fuzzer's fast-path oracle). */
	term->scan_state = SCAN_GROUND;
	term->text_chunk = 0;
	if (term->pending_wrap_row >= 0)
		replay_pending_wrap(term);
	term->lines_known = false;
}

void term_set_scrollback_limit(struct term *term, int lines)
{
	grid_set_history_limit(term->main_grid, lines);
}

/* ---- reading ---- */

int term_rows(const struct term *term)
{
	return term->rows;
}

int term_cols(const struct term *term)
{
	return term->cols;
}

int term_history_lines(const struct term *term)
{
	return term->main_grid->history.count;
}

long term_lines_out(const struct term *term)
{
	return term->lines_out;
}

unsigned long term_history_clears(const struct term *term)
{
	return term->history_clears;
}

/* Visible rows come from the shown screen; history always from main. */
const struct grid_line *term_line(const struct term *term, int row)
{
	if (row >= term->rows)
		return NULL;
	return grid_get_line(row >= 0 ? term->grid : term->main_grid, row);
}

bool term_get_cell(const struct term *term, int row, int col, struct term_cell *out)
{
	const struct grid_line *line = term_line(term, row);

	if (line == NULL || col < 0 || col >= term->cols)
		return false;
	grid_line_get(line, col, out);
	return true;
}

/* A stored line's cells before column `width`, as history_chars reads a
 * packed one. */
static int line_chars(const struct grid_line *line, int width, uint32_t *chars, int *columns,
		      int *covered)
{
	int n = 0, col;
	struct term_cell cell;

	for (col = 0; col < width && col < line->used; col++) {
		grid_line_get(line, col, &cell);
		if (cell.width == 0)
			continue;
		chars[n] = cell.chars[0] ? cell.chars[0] : ' ';
		columns[n++] = col;
	}
	*covered = col;
	return n;
}

int term_row_chars(const struct term *term, int row, int cols, uint32_t *chars, int *columns)
{
	const struct history *history = &term->main_grid->history;
	int width = cols < term->cols ? cols : term->cols, covered, n;

	if (row >= term->rows || row < -history->count)
		return -1;
	if (row < 0)
		n = history_chars(history, history->count + row, width, chars, columns, &covered);
	else
		n = line_chars(grid_visible_line(term->grid, row), width, chars, columns, &covered);
	for (int col = covered; col < cols; col++) {
		chars[n] = ' ';
		columns[n++] = col;
	}
	return n;
}

void term_cursor(const struct term *term, int *row, int *col)
{
	VTermPos pos;

	vterm_state_get_cursorpos(term->state, &pos);
	*row = pos.row;
	*col = pos.col < term->cols ? pos.col : term->cols - 1;
}

const char *term_title(const struct term *term)
{
	return term->title ? term->title : "";
}

const char *term_osc7(const struct term *term)
{
	return term->osc7 ? term->osc7 : "";
}

bool term_take_osc7_change(struct term *term)
{
	bool changed = term->osc7_changed;
	term->osc7_changed = false;
	return changed;
}

void term_send_raw(struct term *term, const char *bytes, size_t len)
{
	term_on_output(bytes, len, term);
}

void term_focus(struct term *term, bool in)
{
	if (in)
		vterm_state_focus_in(term->state);
	else
		vterm_state_focus_out(term->state);
}

bool term_synchronized(const struct term *term)
{
	return term->mode_sync;
}

unsigned term_sync_count(const struct term *term)
{
	return term->sync_count;
}

bool term_take_bell(struct term *term)
{
	bool rang = term->bell;
	term->bell = false;
	return rang;
}

/* ---- modes ---- */

/* Run an encoding action with output captured instead of sent. */
static const char *probe_output(struct term *term, void (*action)(VTerm *vt))
{
	struct probe *probe = &term->probe;

	probe->active = true;
	probe->len = 0;
	probe->bytes[0] = '\0';
	action(term->vt);
	probe->active = false;
	return probe->bytes;
}

static void probe_up_key(VTerm *vt)
{
	vterm_keyboard_key(vt, VTERM_KEY_UP, VTERM_MOD_NONE);
}

static void probe_keypad_key(VTerm *vt)
{
	vterm_keyboard_key(vt, VTERM_KEY_KP_0, VTERM_MOD_NONE);
}

static void probe_paste(VTerm *vt)
{
	vterm_keyboard_start_paste(vt);
}

static void probe_mouse_click(VTerm *vt)
{
	/* Press and release leave libvterm's button state as it was. */
	vterm_mouse_button(vt, 1, true, VTERM_MOD_NONE);
	vterm_mouse_button(vt, 1, false, VTERM_MOD_NONE);
}

bool term_cursor_visible(const struct term *term)
{
	return term->cursor_visible;
}

int term_mouse_mode(const struct term *term)
{
	return term->mouse;
}

void term_get_modes(const struct term *term, struct term_modes *out)
{
	struct term *probing = (struct term *)term; /* probes leave no trace */

	memset(out, 0, sizeof *out);
	out->cursor_visible = term->cursor_visible;
	out->alt_screen = term->grid == term->alt_grid;
	out->mouse = term->mouse;
	out->app_cursor_keys = strcmp(probe_output(probing, probe_up_key), "\033OA") == 0;
	out->app_keypad = strcmp(probe_output(probing, probe_keypad_key), "\033Op") == 0;
	out->bracketed_paste = probe_output(probing, probe_paste)[0] != '\0';
	if (term->mouse)
		out->mouse_sgr =
		    strncmp(probe_output(probing, probe_mouse_click), "\033[<", 3) == 0;
}

/* ---- damage ---- */

bool term_row_damaged(const struct term *term, int row)
{
	if (row < 0 || row >= term->rows)
		return false;
	return term->damaged[row];
}

bool term_any_damage(const struct term *term)
{
	return memchr(term->damaged, 1, (size_t)term->rows) != NULL;
}

bool term_cursor_damaged(const struct term *term)
{
	int row, col;

	term_cursor(term, &row, &col);
	return row != term->cleared_cursor_row || col != term->cleared_cursor_col ||
	       term->cursor_visible != term->cleared_cursor_visible;
}

void term_damage_clear(struct term *term)
{
	memset(term->damaged, 0, (size_t)term->rows);
	term_cursor(term, &term->cleared_cursor_row, &term->cleared_cursor_col);
	term->cleared_cursor_visible = term->cursor_visible;
}

size_t term_memory(const struct term *term)
{
	return sizeof *term + grid_memory(term->main_grid) +
	       (term->alt_grid ? grid_memory(term->alt_grid) : 0);
}

/* For keys.c: the libvterm instance that encodes keys for this term. */
VTerm *term_vterm(struct term *term)
{
	return term->vt;
}
