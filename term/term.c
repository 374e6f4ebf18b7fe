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
#include "term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "grid.h"
#include "xalloc.h"

struct probe {
	bool active;
	size_t len;
	char bytes[64];
};

#define KITTY_STACK_MAX 8
#define MARKS_MAX 512

/* An OSC 133 mark (a shell's prompt, command and output): its kind
 * ('A' prompt, 'B' command, 'C' output, 'D' end) and the main screen's
 * line it was on, counted from the first line the terminal ever had
 * (lines_out + the visible row), so it follows its line into history
 * without the grid knowing. */
struct term_mark {
	long line;
	char kind;
};

struct term_link {
	char *uri;
	char *params;
};

struct term {
	VTerm *vt;
	VTermState *state;
	int rows, cols;
	struct grid *main_grid, *alt_grid, *grid; /* grid: whichever is shown */

	struct term_style pen;
	struct grid_cell pen_cell; /* pen as a compact cell, ch left 0 */
	uint32_t compact_limit;	   /* highest char pen_cell can carry: 0xff, or 0 for RGB pens */

	bool cursor_visible;
	int mouse;
	bool bell;
	char *title;
	char *osc7;	     /* the last OSC 7 (working directory) as sent, or NULL */
	bool osc7_changed;
	char *notice;	     /* the last OSC 9 / 777 notification not yet taken */
	int progress_state;  /* OSC 9;4: 0 none, 1 normal, 2 error, 3 busy, 4 paused */
	int progress;	     /* ... and its percentage */
	char *clipboard;     /* the last OSC 52 write, decoded, not yet taken */
	size_t clipboard_len;
	/* OSC 8 hyperlinks: link n (a style's link) is links[n - 1]. */
	struct term_link *links;
	int nlinks, links_cap;

	/* Where the last glyph left libvterm's cursor (see the top): its row,
	 * -2 once the cursor moved elsewhere; its column; and the column just
	 * past the glyph (the edge: a wrap is pending). */
	int wrap_row, wrap_col, wrap_end;
	/* A reflow put the cursor just past the end of a full row: the row
	 * where term_resize makes libvterm's wrap pending again, -1 none;
	 * while it does, putglyph writes nothing (replaying_wrap). */
	int pending_wrap_row;
	bool replaying_wrap;

	uint8_t *damaged;	      /* one flag per visible row */
	/* The cursor as it was when damage was last cleared: a cursor that
	 * moved (or was shown or hidden) with no cell changed is damage
	 * too, or nothing would tell the screen. */
	int cleared_cursor_row, cleared_cursor_col;
	bool cleared_cursor_visible;
	/* The cursor's row on the main screen when the alternate screen
	 * was shown: where libvterm puts it back (1049) when it goes, in
	 * the main screen's size of then. */
	int saved_row, saved_col;
	/* The main screen was resized when shown again: saved_row/col are
	 * where the cursor goes once libvterm has restored its own. */
	bool saved_moved;
	struct grid_line **row_lines; /* visible row -> its line in the shown grid */
	struct term_cell *row_buffer; /* one row of decoded cells, for moves */

	term_output_fn output;
	void *output_user;
	struct probe probe;

	char *held; /* an OSC/DCS string not yet terminated (see term_write) */
	size_t held_len, held_cap;

	/* The scanner in front of libvterm (see scan): it follows libvterm's
	 * parser state byte for byte, takes REP and long CSIs away from it,
	 * and knows when plain text may skip it. */
	int scan_state;		/* enum scan_state */
	bool scan_plain;	/* no private marker or intermediate so far */
	bool scan_first_done;	/* the first parameter has ended */
	long scan_count;	/* the first parameter (REP's count, a mode), capped */
	int scan_separators;	/* ';' and ':' seen in this CSI */
	int scan_leader;	/* the CSI's one leader byte, 0 none, -1 several */
	int scan_intermeds;	/* intermediate bytes in this ESC or CSI */
	char scan_intermed;	/* the first of them */
	bool scan_held_c2;	/* a write ended on 0xc2: is a C1 control next? */
	char utf8_cut[4];	/* a UTF-8 character the end of a write cut (see term_write) */
	size_t utf8_cut_len;
	/* What libvterm does to plain ASCII text, as far as the fast path
	 * needs to know (see fast_text). */
	int gl_set;		/* SO/SI, LS2/LS3: which G set prints 7-bit text */
	bool g0_ascii;		/* G0 prints ASCII as ASCII (not DEC graphics, UK) */
	bool single_shift;	/* SS2/SS3 waits for the next character */
	bool mode_insert;	/* IRM */
	bool mode_origin;	/* DECOM */
	bool mode_lrmargin;	/* DECLRMM */
	bool mode_autowrap;	/* DECAWM: at the edge, is a wrap pending? */
	/* Synchronized output (DECSET 2026), which libvterm 0.1.4 does not
	 * know: set, and how many times it was set (term_sync_count). */
	bool mode_sync;
	unsigned sync_count;
	/* OSC 133 marks, oldest first; lines_out: main-screen lines that
	 * went into history so far (so line - lines_out is a row). */
	struct term_mark marks[MARKS_MAX];
	int nmarks;
	long lines_out;
	/* The kitty keyboard protocol's flags, a stack per screen (main 0,
	 * alternate 1) as its spec has it (term_kitty_flags). */
	uint8_t kitty_stack[2][KITTY_STACK_MAX];
	int kitty_depth[2];
	long scan_value;	/* the CSI parameter being read, capped */
	long scan_last_value;	/* the last parameter of the CSI that ended */
	bool scan_sync_param;	/* 2026 among this CSI's parameters */
	/* libvterm decodes each run of text ("chunk": text between controls,
	 * within one vterm_input_write) with one decoder, picked by the
	 * chunk's first byte; G0's decoder keeps a partial UTF-8 sequence
	 * from one chunk to the next.  text_chunk: 0 between chunks, 1 in a
	 * chunk G0 decodes, 2 in any other.  g0_need: continuation bytes G0's
	 * decoder still waits for, -1 unknown. */
	int text_chunk;
	int g0_need;
	bool no_fast_text;	/* tests: everything goes through libvterm */
	char *padded; /* input copied with zero padding (see scan) */
	size_t padded_cap;
};

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
	bool compact = pen->fg.kind != TERM_COLOR_RGB && pen->bg.kind != TERM_COLOR_RGB &&
		       pen->link == 0;
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
	struct term *term = user;

	/* The end of a text run reports where its last glyph left the
	 * cursor: a wrap may still follow.  Anywhere else, it may not. */
	if (pos.row != term->wrap_row || pos.col != term->wrap_col)
		term->wrap_row = -2;
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
static bool scroll_reaches_history(struct term *term, VTermRect rect)
{
	VTermPos cursor;

	if (term->grid != term->main_grid || rect.start_row != 0)
		return false;
	vterm_state_get_cursorpos(term->state, &cursor);
	return cursor.row != 0 || rect.end_row == 1;
}

static int on_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct term *term = user;

	/* Only whole-width row scrolls get the ring; the rest is cell moves
	 * (and forgets the last glyph: no wrap is marked inside margins). */
	if (rightward != 0 || rect.start_col != 0 || rect.end_col != term->cols) {
		term->wrap_row = -2;
		return 0;
	}
	if (term->wrap_row >= rect.start_row && term->wrap_row < rect.end_row) {
		term->wrap_row -= downward;
		if (term->wrap_row < rect.start_row || term->wrap_row >= rect.end_row)
			term->wrap_row = -2;
	}
	if (downward > 0) {
		bool to_history = scroll_reaches_history(term, rect);
		grid_scroll_up(term->grid, rect.start_row, rect.end_row, downward, to_history,
			       &term->pen);
		term->lines_out += to_history ? downward : 0;
	} else if (downward < 0) {
		grid_scroll_down(term->grid, rect.start_row, rect.end_row, -downward, &term->pen);
	}
	if (rect.start_row == 0 && rect.end_row == term->rows)
		rotate_row_lines(term, downward);
	damage_rows(term, rect.start_row, rect.end_row);
	return 1;
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
		    strlen(link->params) == params_len && memcmp(link->params, params, params_len) == 0)
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
	set_notice(term, title, (size_t)(body - title), body + 1, (size_t)(command + len - body - 1));
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

static void on_output(const char *bytes, size_t len, void *user)
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

static void scan_reset_modes(struct term *term);

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
	alloc_row_state(term, rows, cols);
	refresh_row_lines(term);

	term->vt = vterm_new(rows, cols);
	vterm_set_utf8(term->vt, 1);
	vterm_output_set_callback(term->vt, on_output, term);
	term->state = vterm_obtain_state(term->vt);
	vterm_state_set_callbacks(term->state, &state_callbacks, term);
	vterm_state_set_unrecognised_fallbacks(term->state, &fallback_callbacks, term);
	vterm_state_reset(term->state, 1);
	scan_reset_modes(term);
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

/*
 * libvterm 0.1.4 loses an OSC or DCS string (a title, say) that arrives
 * split across two writes, and PTY reads split anywhere.  So a string that
 * is still open at the end of a write is held back and handed over whole
 * once its terminator arrives.  Strings beyond HELD_MAX are passed on as
 * they are, keeping memory bounded (libvterm would truncate them anyway).
 */
#define HELD_MAX 65536

static bool is_string_abort(unsigned char c)
{
	return c == 0x07 || c == 0x18 || c == 0x1a; /* BEL ends it; CAN, SUB cancel it */
}

/* Offset just past the end of the open string in bytes, or 0 if none yet. */
static size_t string_end(const char *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)bytes[i];
		if (is_string_abort(c))
			return i + 1;
		if (c == 0x1b)
			return i + 1 == len ? 0 : i + 1 + (bytes[i + 1] == '\\');
	}
	return 0;
}

static bool is_string_intro(char c)
{
	return c == ']' || c == 'P'; /* OSC, DCS */
}

/* Offset of what must wait for the next write: a string sequence still
 * open at the end of bytes, or a final lone ESC that may introduce one.
 * len if nothing. */
static size_t open_string_start(const char *bytes, size_t len)
{
	/* Most output has no ESC at all: a forward scan says so while pulling
	 * the bytes into cache in the order libvterm will read them. */
	if (memchr(bytes, 0x1b, len) == NULL)
		return len;
	const char *esc = memrchr(bytes, 0x1b, len);
	const char *lone = NULL;

	if (esc != NULL && esc + 1 == bytes + len) {
		lone = esc; /* introduces a string, or is the first half of an ST */
		esc = memrchr(bytes, 0x1b, (size_t)(esc - bytes));
	}
	if (esc == NULL || !is_string_intro(esc[1]))
		return lone ? (size_t)(lone - bytes) : len;
	const char *end = lone ? lone : bytes + len;
	for (const char *p = esc + 2; p < end; p++)
		if (is_string_abort((unsigned char)*p))
			return lone ? (size_t)(lone - bytes) : len;
	return (size_t)(esc - bytes);
}

static void hold(struct term *term, const char *bytes, size_t len)
{
	if (term->held_len + len > term->held_cap) {
		size_t cap = term->held_cap ? term->held_cap : 256;
		while (cap < term->held_len + len)
			cap *= 2;
		term->held = xrealloc(term->held, cap);
		term->held_cap = cap;
	}
	memcpy(term->held + term->held_len, bytes, len);
	term->held_len += len;
}

static void scan(struct term *term, const char *bytes, size_t len);

static void release_held(struct term *term)
{
	scan(term, term->held, term->held_len);
	term->held_len = 0;
}

/* Feed the start of bytes to what is held; returns how much it took. */
static size_t continue_held(struct term *term, const char *bytes, size_t len)
{
	bool lone_esc = term->held_len == 1;
	bool half_st = !lone_esc && term->held[term->held_len - 1] == 0x1b;

	if (lone_esc || half_st) {
		hold(term, bytes, 1);
		if (half_st || !is_string_intro(bytes[0]))
			release_held(term);
		return 1;
	}
	size_t end = string_end(bytes, len);
	hold(term, bytes, end ? end : len);
	if (end || term->held_len >= HELD_MAX)
		release_held(term);
	return end ? end : len;
}

/* REP (CSI n b) repeats the previous character.  libvterm 0.1.4 loops
 * forever on it when there is no previous character (after a reset, or
 * as a program's first output): its loop advances by the last glyph's
 * width, which is then 0.  Any program could hang the server that way,
 * so REP never reaches libvterm: its final byte becomes 'y' (a CSI
 * libvterm ignores) and the repeat is done here, bounded by the row. */
static void repeat_previous(struct term *term, long count)
{
	struct term_cell cell;
	char utf8[8 * TERM_MAX_CHARS];
	size_t len = 0;
	int row, col, n;

	term_cursor(term, &row, &col);
	if (col == 0 || !term_get_cell(term, row, col - 1, &cell) ||
	    (cell.width == 0 && (col < 2 || !term_get_cell(term, row, col - 2, &cell))))
		return;
	if (cell.chars[0] == 0 || cell.width == 0)
		return;
	for (int i = 0; i < TERM_MAX_CHARS && cell.chars[i] != 0; i++)
		len += term_utf8_encode(cell.chars[i], utf8 + len);
	n = (int)(count < 1 ? 1 : count);
	if (n > (term->cols - col) / cell.width)
		n = (term->cols - col) / cell.width;
	for (int i = 0; i < n; i++)
		vterm_input_write(term->vt, utf8, len);
}

#define CSI_MAX_PARAMS 16

/* libvterm 0.1.4's parser states, mirrored by the scanner in scan(). */
enum scan_state {
	SCAN_GROUND,
	SCAN_ESC,
	SCAN_CSI_LEADER,
	SCAN_CSI_ARGS,
	SCAN_CSI_INTERMED,
	SCAN_STRING, /* OSC or DCS */
	SCAN_ESC_IN_STRING,
};

/* Back to what RIS (ESC c) leaves in libvterm. */
static void scan_reset_modes(struct term *term)
{
	term->g0_need = 0; /* RIS starts G0's decoder afresh */
	term->gl_set = 0;
	term->g0_ascii = true;
	term->single_shift = false;
	term->mode_insert = false;
	term->mode_origin = false;
	term->mode_lrmargin = false;
	term->mode_autowrap = true;
	term->mode_sync = false;
	term->pen.link = 0; /* libvterm rebuilds the pen after RIS */
	term->kitty_depth[0] = term->kitty_depth[1] = 0;
}

/* An ESC sequence ended on final byte c: note what changes how libvterm
 * prints text (ESC c, ESC ( F, LS2/LS3, SS2/SS3). */
static void scan_escape(struct term *term, unsigned char c)
{
	if (term->scan_intermeds == 0) {
		if (c == 'c')
			scan_reset_modes(term);
		else if (c == 'n' || c == 'o')
			term->gl_set = c == 'n' ? 2 : 3;
		else if (c == 'N' || c == 'O')
			term->single_shift = true;
	} else if (term->scan_intermeds == 1 && term->scan_intermed == '(') {
		/* Only 'B' is sure to print ASCII as ASCII; an unknown set
		 * leaves libvterm's G0 alone, and only costs speed here.  A
		 * designated set has no partial sequence. */
		term->g0_ascii = c == 'B';
		if (c == 'B')
			term->g0_need = 0;
	}
}

/* A CSI ended on final byte c: note the modes that change how libvterm
 * prints text (SM/RM 4, DECSET/DECRST 6 and 69, first parameter only,
 * as libvterm reads them). */
static void scan_csi_mode(struct term *term, unsigned char c)
{
	bool on = c == 'h';

	if ((c != 'h' && c != 'l') || term->scan_intermeds != 0)
		return;
	/* 2026 is read in every parameter, as libvterm reads its own modes:
	 * "CSI ? 25 ; 2026 h" starts an update too. */
	if (term->scan_leader == '?' && term->scan_sync_param) {
		term->sync_count += on && !term->mode_sync;
		term->mode_sync = on;
	}
	if (term->scan_leader == 0 && term->scan_count == 4)
		term->mode_insert = on;
	else if (term->scan_leader == '?' && term->scan_count == 6)
		term->mode_origin = on;
	else if (term->scan_leader == '?' && term->scan_count == 69)
		term->mode_lrmargin = on;
	else if (term->scan_leader == '?' && term->scan_count == 7)
		term->mode_autowrap = on;
}

/* The kitty keyboard protocol's requests, which libvterm 0.1.4 ignores:
 * CSI > FLAGS u pushes flags, CSI < N u pops N, CSI = FLAGS ; MODE u
 * sets (1), adds (2) or removes (3) flags, CSI ? u asks for them.  The
 * stack is bounded: a push onto a full one drops its oldest entry. */
static int kitty_screen(const struct term *term)
{
	return term->grid == term->alt_grid;
}

int term_kitty_flags(const struct term *term)
{
	int screen = kitty_screen(term), depth = term->kitty_depth[screen];

	return depth > 0 ? term->kitty_stack[screen][depth - 1] : 0;
}

static void scan_kitty_keyboard(struct term *term)
{
	int screen = kitty_screen(term), *depth = &term->kitty_depth[screen];
	uint8_t *stack = term->kitty_stack[screen];
	long first = term->scan_count;
	uint8_t flags = (uint8_t)(first & 0x1f), current = (uint8_t)term_kitty_flags(term);
	char reply[16];

	switch (term->scan_leader) {
	case '>':
		if (*depth == KITTY_STACK_MAX) {
			memmove(stack, stack + 1, KITTY_STACK_MAX - 1);
			(*depth)--;
		}
		stack[(*depth)++] = flags;
		break;
	case '<':
		*depth -= first < 1 ? 1 : first > *depth ? *depth : (int)first;
		break;
	case '=': {
		long mode = term->scan_separators > 0 ? term->scan_last_value : 1;
		uint8_t next = mode == 2 ? current | flags : mode == 3 ? current & ~flags : flags;
		if (*depth == 0)
			stack[(*depth)++] = next;
		else
			stack[*depth - 1] = next;
		break;
	}
	case '?':
		snprintf(reply, sizeof reply, "\033[?%du", current);
		on_output(reply, strlen(reply), term);
		break;
	default:
		break;
	}
}

/* DECRQM for 2026 (CSI ? 2026 $ p), which libvterm 0.1.4 would answer
 * "not recognised": it gets CSI ? 2026 $ y instead, a CSI it ignores,
 * and the answer (DECRPM: 1 set, 2 reset) comes from here. */
static void report_sync_mode(struct term *term)
{
	const char *reply = term->mode_sync ? "\033[?2026;1$y" : "\033[?2026;2$y";

	on_output(reply, strlen(reply), term);
}

/* After CSI ? 1049 l brought back a main screen that was resized while
 * hidden: libvterm put the cursor back on the row it was saved on, but
 * that row's content moved with the resize and the reflow (switch_screen);
 * the cursor follows its character, as in tmux.  Without this the shell's prompt came back
 * above or below its own line after an editor was resized. */
static void to_vterm(struct term *term, const char *bytes, size_t len);

static void restore_saved_cursor(struct term *term)
{
	char cup[32];
	int row = term->saved_row, col = term->saved_col;

	if (!term->saved_moved)
		return;
	term->saved_moved = false;
	if (row < 0)
		row = 0;
	if (row > term->rows - 1)
		row = term->rows - 1;
	if (col > term->cols - 1)
		col = term->cols - 1;
	snprintf(cup, sizeof cup, "\033[%d;%dH", row + 1, col + 1);
	to_vterm(term, cup, strlen(cup));
}

/* Shortest text run worth the fast path (it costs libvterm a CUF). */
#define FAST_TEXT_MIN 8

/*
 * The fast path for plain text.  Most program output is printable ASCII,
 * and libvterm spends most of its time printing it one glyph at a time.
 * Where the outcome is certain to be libvterm's own, a run of such bytes
 * goes straight into the grid: then libvterm moves its cursor by as much
 * (CUF) and prints the run's last character itself, so its idea of the
 * last glyph (which a combining mark joins) stays right.  Certain means:
 * the parser is in text (the caller knows), no text decoder is
 * mid-sequence, 7-bit text prints as ASCII (G0 is ASCII and in use, no
 * single shift waits), no insert mode, no origin mode or left/right
 * margins (CUF would clamp otherwise), a single-width row, a pen the
 * compact cell can carry, and the run ends on the cursor's row without
 * wrapping.  The cursor is then at least three columns from the edge, so
 * libvterm cannot be holding a pending wrap (its phantom column only
 * exists on the last two).  Returns how many bytes it printed: the caller
 * hands the rest to libvterm.  tests/unit/test_term.c feeds random input
 * both ways and compares every cell.
 */
/* Hand bytes to libvterm.  Its text chunk ends with the write. */
static void to_vterm(struct term *term, const char *bytes, size_t len)
{
	vterm_input_write(term->vt, bytes, len);
	term->text_chunk = 0;
}

/* A text byte in the ground state: follow libvterm's chunks and G0's
 * decoder (see text_chunk), as its UTF-8 decoder counts. */
static void scan_text_byte(struct term *term, unsigned char c)
{
	if (term->text_chunk == 0) {
		if (term->single_shift) {
			/* SS2/SS3: G2 or G3 reads one character and a new
			 * chunk starts behind it, where this scanner does not
			 * look: G0's state is unknown until it reads ASCII.
			 * libvterm keeps the shift until a character comes
			 * out, which only ASCII makes sure of. */
			term->single_shift = c >= 0x80;
			term->text_chunk = 2;
			term->g0_need = -1;
			return;
		}
		term->text_chunk = c < 0x80 && term->gl_set == 0 ? 1 : 2;
	}
	if (term->text_chunk != 1)
		return;
	if (c < 0x80)
		term->g0_need = 0;
	else if (c < 0xc0)
		term->g0_need -= term->g0_need > 0;
	else if (c < 0xe0)
		term->g0_need = 1;
	else if (c < 0xf0)
		term->g0_need = 2;
	else if (c < 0xf8)
		term->g0_need = 3;
	else if (c < 0xfc)
		term->g0_need = 4;
	else if (c < 0xfe)
		term->g0_need = 5;
	else
		term->g0_need = -1;
}

static bool fast_text_allowed(const struct term *term)
{
	return !term->no_fast_text && term->gl_set == 0 && term->g0_ascii && !term->single_shift &&
	       !term->mode_insert && !term->mode_origin && !term->mode_lrmargin &&
	       term->text_chunk == 0 && term->g0_need == 0;
}

/* Called with everything before the run already fed to libvterm (so its
 * cursor is where the run starts) and fast_text_allowed() true. */
static size_t fast_text(struct term *term, const char *bytes, size_t n)
{
	VTermPos pos;

	if (term->compact_limit == 0) /* an RGB pen: libvterm's glyphs take the long way */
		return 0;
	vterm_state_get_cursorpos(term->state, &pos);
	if (pos.row < 0 || pos.row >= term->rows || pos.col < 0 || pos.col > term->cols - 3)
		return 0;
	if ((size_t)(term->cols - pos.col) < n)
		n = (size_t)(term->cols - pos.col);
	if (n < FAST_TEXT_MIN || vterm_state_get_lineinfo(term->state, pos.row)->doublewidth)
		return 0;

	struct grid_line *line = term->row_lines[pos.row];
	int col = pos.col;
	if (line->ext_used == 0) {
		/* No extended cell in the line, so no wide character and no
		 * padding to release (grid.c keeps that): each cell is the
		 * pen with the byte, the loop most of a flood's text runs. */
		struct grid_cell pen = term->pen_cell, *cells = line->cells + col;
		for (size_t k = 0; k + 1 < n; k++) {
			pen.ch = (uint8_t)bytes[k];
			cells[k] = pen;
		}
		col += (int)n - 1;
	} else {
		for (size_t k = 0; k + 1 < n; k++, col++) {
			struct grid_cell *cell = &line->cells[col];
			if (cell->flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING)) {
				struct term_cell wide = {.width = 1, .style = term->pen};
				wide.chars[0] = (unsigned char)bytes[k];
				grid_line_set(line, col, &wide);
				continue;
			}
			*cell = term->pen_cell;
			cell->ch = (uint8_t)bytes[k];
		}
	}
	if (col > line->used)
		line->used = (uint16_t)col;
	term->damaged[pos.row] = 1;

	char cuf[16] = "\033[";
	size_t len = 2, moved = n - 1, digits = 1;
	for (size_t v = moved; v >= 10; v /= 10)
		digits++;
	for (size_t d = digits, v = moved; d > 0; d--, v /= 10)
		cuf[len + d - 1] = (char)('0' + v % 10);
	len += digits;
	cuf[len++] = 'C';
	to_vterm(term, cuf, len);
	return n - 1;
}

static bool is_plain_text(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* Where the run of plain text from i ends: eight bytes at a time while
 * none is a control (below 0x20) or from 0x7f (the classic "has less" and
 * "has more" word tests, exact for "any"), then byte by byte. */
static size_t plain_run_end(const char *bytes, size_t i, size_t len)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	while (i + 8 <= len) {
		uint64_t w;
		memcpy(&w, bytes + i, 8);
		if ((((w - 0x20 * ones) & ~w) | (w + ones) | w) & highs)
			break;
		i += 8;
	}
	while (i < len && is_plain_text((unsigned char)bytes[i]))
		i++;
	return i;
}

/* libvterm may read past the end of the input while it handles an OSC or
 * DCS string (see scan): only then does it get a zero-padded copy.  True
 * if this write may start, continue or hold one. */
static bool may_hold_string(const struct term *term, const char *bytes, size_t len)
{
	const char *end = bytes + len, *p = bytes;

	if (term->scan_state != SCAN_GROUND && term->scan_state != SCAN_CSI_LEADER &&
	    term->scan_state != SCAN_CSI_ARGS && term->scan_state != SCAN_CSI_INTERMED)
		return true;
	while ((p = memchr(p, 0x1b, (size_t)(end - p))) != NULL) {
		/* libvterm opens a string on ']' or 'P' after ESC, past any
		 * intermediates, C0 controls, DEL and bytes from 0x80 (it
		 * stays in ESC across those). */
		for (p++; p < end; p++) {
			unsigned char c = (unsigned char)*p;
			if (c == 0x1b || c == 0x18 || c == 0x1a || (c >= 0x30 && c < 0x7f))
				break;
		}
		if (p == end || *p == ']' || *p == 'P')
			return true;
	}
	return false;
}

/*
 * Pass bytes to libvterm, with every REP replaced (see repeat_previous),
 * CSI parameters past the 16th dropped, C1 controls in UTF-8 dropped, and
 * plain text runs printed by fast_text.  The scanner follows libvterm
 * 0.1.4's parser (src/parser.c) state for state: NUL and DEL are ignored
 * everywhere, CAN and SUB end any sequence, other C0 controls are
 * executed in any state without leaving it, BEL or ST ends a string, ESC
 * [ / ESC ] / ESC P open CSI, OSC and DCS even after intermediates, and a
 * CSI ends on its final byte or on the first byte that cannot be part of
 * it.
 */
static void scan(struct term *term, const char *bytes, size_t len)
{
	size_t start = 0;

	/* libvterm 0.1.4 can read past the end of what it is given (a
	 * strncpy in its string handling, found by the fuzzer with a DCS
	 * holding NULs): it only ever sees a copy followed by zeros. */
	if (may_hold_string(term, bytes, len)) {
		if (len + 16 > term->padded_cap) {
			term->padded_cap = len + 16 > 65536 + 16 ? len + 16 : 65536 + 16;
			term->padded = xrealloc(term->padded, term->padded_cap);
		}
		memcpy(term->padded, bytes, len);
		memset(term->padded + len, 0, 16);
		bytes = term->padded;
	}

	/* libvterm 0.1.4 prints C1 controls that arrive UTF-8 encoded
	 * (c2 80..c2 9f) as glyphs of width -1, walking its cursor left of
	 * column 0: they are dropped before it sees them. */
	term->text_chunk = 0; /* a new write: a new chunk */
	if (term->scan_held_c2) {
		term->scan_held_c2 = false;
		if (len > 0 && (unsigned char)bytes[0] >= 0x80 && (unsigned char)bytes[0] <= 0x9f)
			start = 1;
		else
			to_vterm(term, "\302", 1); /* its own chunk, not G0's */
	}
	for (size_t i = start; i < len; i++) {
		unsigned char c = (unsigned char)bytes[i];

		if (term->scan_state == SCAN_GROUND && is_plain_text(c)) {
			size_t run = i;
			i = plain_run_end(bytes, i + 1, len) - 1;
			/* Only then is libvterm's text cut at the run's start,
			 * where a new chunk starts anyway. */
			if (i + 1 - run >= FAST_TEXT_MIN && fast_text_allowed(term)) {
				to_vterm(term, bytes + start, run - start);
				start = run + fast_text(term, bytes + run, i + 1 - run);
			}
			scan_text_byte(term, c);
			if (term->text_chunk == 1)
				term->g0_need = 0;
			continue;
		}
		if (c == 0xc2) {
			if (i + 1 == len) {
				to_vterm(term, bytes + start, i - start);
				term->scan_held_c2 = true;
				return;
			}
			if ((unsigned char)bytes[i + 1] >= 0x80 && (unsigned char)bytes[i + 1] <= 0x9f) {
				to_vterm(term, bytes + start, i - start);
				start = i + 2;
				i++;
				continue;
			}
		}
		if (c < 0x20 || c == 0x7f)
			term->text_chunk = 0; /* controls end libvterm's text */
		if (c == 0x00 || c == 0x7f)
			continue;
		/* CAN and SUB abandon a sequence, as in libvterm. */
		if (c == 0x18 || c == 0x1a) {
			term->scan_state = SCAN_GROUND;
			continue;
		}
		if (c == 0x1b) {
			term->scan_state = term->scan_state == SCAN_STRING ? SCAN_ESC_IN_STRING : SCAN_ESC;
			term->scan_intermeds = 0;
			continue;
		}
		/* libvterm executes other C0 controls in every state and stays
		 * in it: so must this scanner, or "ESC ^E [ 3 b" would reach
		 * libvterm as a REP.  BEL ends a string. */
		if (c < 0x20 && !(c == 0x07 && term->scan_state == SCAN_STRING)) {
			if (c == 0x0e || c == 0x0f)
				term->gl_set = c == 0x0e; /* SO, SI */
			continue;
		}
		switch (term->scan_state) {
		case SCAN_GROUND:
			scan_text_byte(term, c); /* from 0x80: UTF-8 */
			break;
		case SCAN_STRING:
			if (c == 0x07)
				term->scan_state = SCAN_GROUND;
			break;
		case SCAN_ESC_IN_STRING:
			if (c == '\\') {
				term->scan_state = SCAN_GROUND;
				break;
			}
			term->scan_state = SCAN_ESC;
			/* fall through */
		case SCAN_ESC:
			if (c == 'P' || c == ']') {
				term->scan_state = SCAN_STRING;
			} else if (c == '[') {
				term->scan_state = SCAN_CSI_LEADER;
				term->scan_plain = true;
				term->scan_first_done = false;
				term->scan_count = 0;
				term->scan_value = 0;
				term->scan_sync_param = false;
				term->scan_separators = 0;
				term->scan_leader = 0;
				term->scan_intermeds = 0;
			} else if (c >= 0x20 && c <= 0x2f) {
				if (term->scan_intermeds++ == 0)
					term->scan_intermed = (char)c;
			} else if (c >= 0x30 && c < 0x7f) {
				term->scan_state = SCAN_GROUND;
				scan_escape(term, c);
			} /* else libvterm stays in ESC */
			break;
		case SCAN_CSI_LEADER:
			if (c >= 0x3c && c <= 0x3f) {
				term->scan_leader = term->scan_leader == 0 ? c : -1;
				term->scan_plain = false;
				break;
			}
			term->scan_state = SCAN_CSI_ARGS;
			/* fall through */
		case SCAN_CSI_ARGS:
			if ((c >= '0' && c <= '9') || c == ';' || c == ':') {
				/* libvterm 0.1.4 writes past its 16-slot argument
				 * array on a 17th parameter (a crash for any
				 * program to cause): parameters past the 16th are
				 * dropped here. */
				if (term->scan_separators >= CSI_MAX_PARAMS - 1 &&
				    (c == ';' || c == ':' || term->scan_separators >= CSI_MAX_PARAMS)) {
					to_vterm(term, bytes + start, i - start);
					start = i + 1;
					term->scan_separators = CSI_MAX_PARAMS;
					break;
				}
				if (c == ';' || c == ':') {
					term->scan_first_done = true;
					term->scan_separators++;
					term->scan_sync_param |= term->scan_value == 2026;
					term->scan_value = 0;
					break;
				}
				if (!term->scan_first_done && term->scan_count < 100000)
					term->scan_count = term->scan_count * 10 + (c - '0');
				if (term->scan_value < 100000)
					term->scan_value = term->scan_value * 10 + (c - '0');
				break;
			}
			term->scan_sync_param |= term->scan_value == 2026;
			term->scan_last_value = term->scan_value;
			term->scan_value = 0;
			term->scan_state = SCAN_CSI_INTERMED;
			/* fall through */
		case SCAN_CSI_INTERMED:
			if (c >= 0x20 && c <= 0x2f) {
				if (term->scan_intermeds++ == 0)
					term->scan_intermed = (char)c;
				term->scan_plain = false;
				break;
			}
			term->scan_state = SCAN_GROUND;
			if (c < 0x40 || c > 0x7e)
				break; /* not a CSI after all: libvterm drops it */
			scan_csi_mode(term, c);
			/* ED 3 (clear(1)'s "erase saved lines", which libvterm
			 * 0.1.4 ignores): the main screen's history goes, so
			 * neither copy mode nor a taller pane brings it back. */
			if (c == 'J' && term->scan_plain && term->scan_count == 3) {
				to_vterm(term, bytes + start, i + 1 - start);
				start = i + 1;
				grid_clear_history(term->main_grid);
				break;
			}
			if (c == 'l' && term->scan_leader == '?' && term->scan_count == 1049 &&
			    term->grid == term->alt_grid) {
				to_vterm(term, bytes + start, i + 1 - start);
				start = i + 1;
				restore_saved_cursor(term);
				break;
			}
			if (c == 'u' && term->scan_intermeds == 0 && term->scan_leader > 0) {
				to_vterm(term, bytes + start, i + 1 - start);
				start = i + 1;
				scan_kitty_keyboard(term);
				break;
			}
			if (c == 'p' && term->scan_leader == '?' && term->scan_intermeds == 1 &&
			    term->scan_intermed == '$' && term->scan_count == 2026) {
				to_vterm(term, bytes + start, i - start);
				to_vterm(term, "y", 1);
				start = i + 1;
				report_sync_mode(term);
				break;
			}
			if (c != 'b' || !term->scan_plain)
				break;
			to_vterm(term, bytes + start, i - start);
			to_vterm(term, "y", 1);
			repeat_previous(term, term->scan_count);
			start = i + 1;
			break;
		}
	}
	to_vterm(term, bytes + start, len - start);
}

/* How many bytes at the end of bytes are the start of a UTF-8 character
 * whose rest has not come yet. */
static size_t utf8_cut_tail(const char *bytes, size_t len)
{
	for (size_t back = 1; back <= 3 && back <= len; back++) {
		unsigned char c = (unsigned char)bytes[len - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue;
		if (c < 0xc0)
			return 0;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return need > back ? back : 0;
	}
	return 0;
}

/* The character a previous write cut, completed from the start of this
 * one (or not, if what follows is no continuation: libvterm then shows
 * U+FFFD as for any broken sequence).  Returns how much of bytes it took. */
static size_t utf8_complete_cut(struct term *term, const char *bytes, size_t len)
{
	unsigned char lead = (unsigned char)term->utf8_cut[0];
	size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2, used = 0;
	char whole[4];

	memcpy(whole, term->utf8_cut, term->utf8_cut_len);
	while (term->utf8_cut_len + used < need && used < len &&
	       ((unsigned char)bytes[used] & 0xc0) == 0x80) {
		whole[term->utf8_cut_len + used] = bytes[used];
		used++;
	}
	if (term->utf8_cut_len + used < need && used == len) {
		memcpy(term->utf8_cut + term->utf8_cut_len, bytes, used);
		term->utf8_cut_len += used;
		return used; /* still cut: wait for more */
	}
	scan(term, whole, term->utf8_cut_len + used);
	term->utf8_cut_len = 0;
	return used;
}

/* libvterm 0.1.4 turns a UTF-8 character split across two of its writes
 * into U+FFFD, and a PTY read cuts characters wherever its buffer ends:
 * the cut start of a character is held back and handed over whole with
 * the rest of it (tests/unit/test_term.c, "split across writes"). */
void term_write(struct term *term, const char *bytes, size_t len)
{
	size_t used;

	if (term->utf8_cut_len > 0 && len > 0) {
		used = utf8_complete_cut(term, bytes, len);
		bytes += used;
		len -= used;
	}
	while (term->held_len && len > 0) {
		size_t used = continue_held(term, bytes, len);
		bytes += used;
		len -= used;
	}
	if (len == 0)
		return;
	size_t open = open_string_start(bytes, len);
	size_t cut = open == len ? utf8_cut_tail(bytes, len) : 0;

	scan(term, bytes, open - cut);
	if (cut > 0) {
		memcpy(term->utf8_cut, bytes + len - cut, cut);
		term->utf8_cut_len = cut;
	}
	if (open < len)
		hold(term, bytes + open, len - open);
}

void term_set_fast_text(struct term *term, bool on)
{
	term->no_fast_text = !on;
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

/* Visible rows come from the shown screen; history always from main. */
static const struct grid_line *term_line(const struct term *term, int row)
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
	on_output(bytes, len, term);
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

/* ---- text: runs and capture ---- */

size_t term_utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18 & 0x07));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t term_utf8_decode(const char *s, size_t len, uint32_t *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t need;
	uint32_t cp;

	if (len == 0)
		return 0;
	if (u[0] < 0x80) {
		*out = u[0];
		return 1;
	}
	if ((u[0] & 0xe0) == 0xc0) {
		need = 2;
		cp = u[0] & 0x1f;
	} else if ((u[0] & 0xf0) == 0xe0) {
		need = 3;
		cp = u[0] & 0x0f;
	} else if ((u[0] & 0xf8) == 0xf0) {
		need = 4;
		cp = u[0] & 0x07;
	} else {
		return 0;
	}
	if (len < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x80) || (need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000))
		return 0;
	*out = cp;
	return need;
}

static size_t cell_utf8(const struct term_cell *cell, char *out)
{
	size_t len = 0;

	if (cell->chars[0] == 0)
		out[len++] = ' ';
	for (int i = 0; i < TERM_MAX_CHARS && cell->chars[i]; i++)
		len += term_utf8_encode(cell->chars[i], out + len);
	return len;
}

static bool color_equal(const struct term_color *a, const struct term_color *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* What SGR sets (term_style_sgr), and then the link: field by field,
 * a style has padding. */
static bool style_sgr_equal(const struct term_style *a, const struct term_style *b)
{
	return a->attrs == b->attrs && color_equal(&a->fg, &b->fg) && color_equal(&a->bg, &b->bg);
}

static bool style_equal(const struct term_style *a, const struct term_style *b)
{
	return style_sgr_equal(a, b) && a->link == b->link;
}

/* Columns up to the last cell worth showing on this row. */
static int row_text_width(const struct term *term, const struct grid_line *line)
{
	int width = line->used < term->cols ? line->used : term->cols;

	while (width > 0 && grid_cell_is_blank(&line->cells[width - 1]))
		width--;
	return width;
}

/* Whether `cell` is a simple cell (its character and style in its own
 * bytes) styled exactly as `before`, which is then simple too. */
static bool same_simple_style(const struct grid_cell *cell, const struct grid_cell *before)
{
	return !(cell->flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING)) &&
	       cell->flags == before->flags && cell->attr == before->attr &&
	       cell->fg == before->fg && cell->bg == before->bg;
}

bool term_row_runs(const struct term *term, int row, term_run_fn fn, void *user)
{
	const struct grid_line *line = term_line(term, row);
	if (line == NULL)
		return false;

	/* Rows are drawn every frame: ordinary widths need no allocation. */
	int width = row_text_width(term, line);
	size_t need = (size_t)width * TERM_MAX_CHARS * 4 + 1;
	char local[4096];
	char *text = need <= sizeof local ? local : xmalloc(need);
	struct term_style style = {0};
	struct term_cell cell;
	size_t len = 0;
	int start = 0;

	for (int col = 0; col < width; col++) {
		const struct grid_cell *stored = &line->cells[col];

		/* Most cells are simple and styled as the cell before: then the
		 * run goes on and the character is all there is to add, with
		 * no decoding (a history read walks millions of these). */
		if (col > 0 && same_simple_style(stored, stored - 1)) {
			if (stored->ch == 0)
				text[len++] = ' ';
			else if (stored->ch < 0x80)
				text[len++] = (char)stored->ch;
			else
				len += term_utf8_encode(stored->ch, text + len);
			continue;
		}
		grid_line_get(line, col, &cell);
		if (cell.width == 0)
			continue; /* right half of a wide character: counted, not drawn */
		if (col > start && !style_equal(&cell.style, &style)) {
			fn(&style, text, len, start, col - start, user);
			start = col;
			len = 0;
		}
		if (col == start)
			style = cell.style;
		len += cell_utf8(&cell, text + len);
	}
	if (width > start)
		fn(&style, text, len, start, width - start, user);
	if (text != local)
		free(text);
	return true;
}

struct capture {
	const struct term *term;
	char *data;
	size_t len, cap;
	bool ansi;
	struct term_style current;
};

static void capture_append(struct capture *out, const char *bytes, size_t len)
{
	if (out->len + len + 1 > out->cap) {
		size_t cap = out->cap ? out->cap : 256;
		while (out->len + len + 1 > cap)
			cap *= 2;
		out->data = xrealloc(out->data, cap);
		out->cap = cap;
	}
	memcpy(out->data + out->len, bytes, len);
	out->len += len;
	out->data[out->len] = '\0';
}

static int sgr_color(char *buf, size_t size, const struct term_color *color, int base)
{
	if (color->kind == TERM_COLOR_RGB)
		return snprintf(buf, size, ";%d;2;%d;%d;%d", base + 8, color->r, color->g,
				color->b);
	if (color->kind != TERM_COLOR_PALETTE)
		return 0;
	if (color->index < 8)
		return snprintf(buf, size, ";%d", base + color->index);
	if (color->index < 16)
		return snprintf(buf, size, ";%d", base + 60 + color->index - 8);
	return snprintf(buf, size, ";%d;5;%d", base + 8, color->index);
}

size_t term_style_sgr(const struct term_style *style, char *out, size_t size)
{
	static const struct {
		uint8_t attr;
		const char *code;
	} attr_codes[] = {
	    {TERM_ATTR_BOLD, ";1"},	 {TERM_ATTR_DIM, ";2"},	   {TERM_ATTR_ITALIC, ";3"},
	    {TERM_ATTR_UNDERLINE, ";4"}, {TERM_ATTR_BLINK, ";5"},  {TERM_ATTR_REVERSE, ";7"},
	    {TERM_ATTR_CONCEAL, ";8"},	 {TERM_ATTR_STRIKE, ";9"},
	};
	char buf[TERM_SGR_MAX] = "\033[0";
	size_t len = 3;

	for (size_t i = 0; i < sizeof attr_codes / sizeof attr_codes[0]; i++)
		if (style->attrs & attr_codes[i].attr)
			len +=
			    (size_t)snprintf(buf + len, sizeof buf - len, "%s", attr_codes[i].code);
	len += (size_t)sgr_color(buf + len, sizeof buf - len, &style->fg, 30);
	len += (size_t)sgr_color(buf + len, sizeof buf - len, &style->bg, 40);
	buf[len++] = 'm';
	if (len > size)
		len = 0;
	memcpy(out, buf, len);
	return len;
}

/* One SGR sequence that sets exactly `style`, starting from a reset. */
static void capture_sgr(struct capture *out, const struct term_style *style)
{
	char buf[TERM_SGR_MAX];

	capture_append(out, buf, term_style_sgr(style, buf, sizeof buf));
}

/* OSC 8 opening link (or closing any, for 0).  The URI and parameters
 * hold no control and no ';' in the parameters (on_osc8). */
static void capture_link(struct capture *out, uint16_t link)
{
	const char *params = "", *uri = term_link(out->term, link, &params);

	capture_append(out, "\033]8;", 4);
	if (uri != NULL) {
		capture_append(out, params, strlen(params));
		capture_append(out, ";", 1);
		capture_append(out, uri, strlen(uri));
	} else {
		capture_append(out, ";", 1);
	}
	capture_append(out, "\033\\", 2);
}

static void capture_run(const struct term_style *style, const char *utf8, size_t len, int col,
			int cells, void *user)
{
	struct capture *out = user;

	if (out->ansi && style->link != out->current.link)
		capture_link(out, style->link);
	if (out->ansi && !style_sgr_equal(style, &out->current))
		capture_sgr(out, style);
	out->current = *style;
	capture_append(out, utf8, len);
}

char *term_capture(const struct term *term, int start, int end, bool ansi, size_t *len_out)
{
	static const struct term_style plain;
	struct capture out = {.term = term, .ansi = ansi};

	if (start < -term_history_lines(term))
		start = -term_history_lines(term);
	if (end >= term->rows)
		end = term->rows - 1;
	capture_append(&out, "", 0);
	for (int row = start; row <= end; row++) {
		term_row_runs(term, row, capture_run, &out);
		if (ansi && out.current.link != 0)
			capture_link(&out, 0);
		if (ansi && !style_sgr_equal(&out.current, &plain))
			capture_append(&out, "\033[0m", 4);
		out.current = plain;
		capture_append(&out, "\n", 1);
	}
	if (len_out)
		*len_out = out.len;
	return out.data;
}
