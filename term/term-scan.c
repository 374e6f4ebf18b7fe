/*
 * term-scan: the scanner in front of libvterm 0.1.4's parser.
 *
 * It follows libvterm's parser state for state and takes away what would
 * crash or hang libvterm 0.1.4 (REP, a 17th CSI parameter, C1 controls in
 * UTF-8), holds strings and UTF-8 characters cut by the end of a write,
 * tracks what libvterm does not expose (synchronized output, the kitty
 * keyboard flags, the modes fast text depends on) and prints runs of
 * plain ASCII straight into the grid where the outcome is provably
 * libvterm's own.  term_write() is its entry.
 */
#include "term-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "grid.h"
#include "xalloc.h"

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

/* The last ESC in bytes[0..len), or NULL: glibc's memrchr, which macOS
 * does not have. */
static const char *last_esc(const char *bytes, size_t len)
{
#ifdef __linux__
	return memrchr(bytes, 0x1b, len);
#else
	while (len > 0)
		if (bytes[--len] == 0x1b)
			return bytes + len;
	return NULL;
#endif
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
	const char *esc = last_esc(bytes, len);
	const char *lone = NULL;

	if (esc != NULL && esc + 1 == bytes + len) {
		lone = esc; /* introduces a string, or is the first half of an ST */
		esc = last_esc(bytes, (size_t)(esc - bytes));
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

/* Back to what RIS (ESC c) leaves in libvterm. */
void term_scan_reset_modes(struct term *term)
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
	/* What fast_lines cannot see: a double-width line (ESC # 6), a tab
	 * stop set (HTS, ESC H), anything a reset changes. */
	term->lines_forget = true;
	if (c == 'H')
		term->tabs_default = false;
	if (term->scan_intermeds == 0) {
		if (c == 'c')
			term_scan_reset_modes(term);
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
		term_on_output(reply, strlen(reply), term);
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

	term_on_output(reply, strlen(reply), term);
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
	/* Only now has libvterm seen the sequence, and any scroll before it
	 * that made lines_known true. */
	if (term->lines_forget) {
		term->lines_known = false;
		term->lines_forget = false;
	}
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

/* n plain ASCII bytes as cells of the pen from row, col on, without
 * reaching the row's last column: what libvterm's putglyph would store
 * (on_putglyph), but for the wrap bookkeeping, which is the caller's. */
static void put_ascii(struct term *term, struct grid_line *line, int row, int col,
		      const char *bytes, size_t n)
{

	if (line->ext_used == 0) {
		/* No extended cell in the line, so no wide character and no
		 * padding to release (grid.c keeps that): each cell is the
		 * pen with the byte, the loop most of a flood's text runs. */
		struct grid_cell pen = term->pen_cell, *cells = line->cells + col;
		for (size_t k = 0; k < n; k++) {
			pen.ch = (uint8_t)bytes[k];
			cells[k] = pen;
		}
	} else {
		for (size_t k = 0; k < n; k++) {
			struct grid_cell *cell = &line->cells[col + (int)k];
			if (cell->flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING)) {
				struct term_cell wide = {.width = 1, .style = term->pen};
				wide.chars[0] = (unsigned char)bytes[k];
				grid_line_set(line, col + (int)k, &wide);
				continue;
			}
			*cell = term->pen_cell;
			cell->ch = (uint8_t)bytes[k];
		}
	}
	if (col + (int)n > line->used)
		line->used = (uint16_t)(col + (int)n);
	term->damaged[row] = 1;
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

	put_ascii(term, term->row_lines[pos.row], pos.row, pos.col, bytes, n - 1);

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

/* The length of the SGR (CSI digits and semicolons m) that bytes start
 * with, 0 if they do not start with a whole one of at most 16 parameters
 * and 32 bytes, which libvterm reads as it is. */
static size_t sgr_length(const char *bytes, size_t len)
{
	int separators = 0;

	if (len < 3 || bytes[1] != '[')
		return 0;
	for (size_t i = 2; i < len && i < 32; i++) {
		char c = bytes[i];
		if (c == 'm')
			return i + 1;
		if (c == ';' && ++separators < CSI_MAX_PARAMS)
			continue;
		if (c < '0' || c > '9')
			return 0;
	}
	return 0;
}

/* A CUP to row, col (from 0) appended at n; returns the new length. */
static size_t put_cup(char *out, size_t n, int row, int col)
{
	int values[2] = {row + 1, col + 1};

	out[n++] = '\033';
	out[n++] = '[';
	for (int k = 0; k < 2; k++) {
		char digits[8];
		int d = 0;
		for (int v = values[k]; v > 0; v /= 10)
			digits[d++] = (char)('0' + v % 10);
		while (d > 0)
			out[n++] = digits[--d];
		out[n++] = k == 0 ? ';' : 'H';
	}
	return n;
}

/*
 * The fast path for lines: short lines of plain text, each ended by CR
 * LF, the shape of most output (the PTY turns a program's LF into CR LF).
 * libvterm would parse each CR and LF, scroll its line info and call back
 * for the cursor and the scroll; here the grid is scrolled, the text put
 * and the wrap bookkeeping done as those callbacks would, and libvterm is
 * told the outcome once at the end.  Certain to be libvterm's own
 * outcome when, besides fast_text's conditions, the scroll region is the
 * whole screen and no line is double-width (lines_known), so that a
 * scroll leaves libvterm's line info as it is, and no glyph reaches a
 * row's last column, so that no wrap is pending.  Tabs are taken when
 * the tab stops are libvterm's own (tabs_default).
 *
 * At the end libvterm's cursor goes where the real one would be, through
 * a CR (which cancels a pending wrap as the first CR did) and a CUP.  The
 * last glyph libvterm would have printed is the one a combining mark
 * that follows joins: it is printed again at its place of then, with
 * putglyph writing nothing (replaying_wrap), so that libvterm keeps it.
 * A run of text followed by a byte from 0x80, which libvterm decodes in
 * the same chunk (a combining mark joins it), ends the batch one byte
 * short: libvterm prints its last character with what follows, as after
 * fast_text.  An SGR inside the batch goes to libvterm as it comes (the
 * pen is libvterm's; it needs no cursor for it).
 *
 * Called at a CR LF in the ground state with everything before it fed to
 * libvterm; returns how many bytes it took (0: none).
 */
static size_t fast_lines(struct term *term, const char *bytes, size_t len)
{
	int rows = term->rows, cols = term->cols, row, col;
	int glyph_row = -1, glyph_col = 0; /* the last glyph put, -1 none */
	char glyph = 0;
	bool cut = false; /* the batch ends on a run cut one byte short */
	int scrolled = 0;   /* whole-screen scrolls, row cache not yet rotated */
	size_t p = 0, n;
	VTermPos pos;

	if (!term->lines_known || !fast_text_allowed(term) || term->compact_limit == 0 ||
	    term->pending_wrap_row >= 0 || cols < 3)
		return 0;
	vterm_state_get_cursorpos(term->state, &pos);
	if (pos.row < 0 || pos.row >= rows || pos.col < 0 || pos.col >= cols)
		return 0;
	row = pos.row;
	col = pos.col;
	while (p < len) {
		unsigned char c = (unsigned char)bytes[p];

		if (c == '\r') {
			if (col != 0) {
				col = 0;
				term_cursor_moved(term, row, col);
			}
			p++;
		} else if (c == '\n' && col == 0) {
			/* (In newline mode, LNM, a LF elsewhere returns too.) */
			if (row == rows - 1)
				term_scroll_screen(term, row), scrolled++;
			else
				term_cursor_moved(term, ++row, col);
			p++;
		} else if (c == '\t' && term->tabs_default) {
			/* To the next stop, or the last column. */
			if (col < cols - 1) {
				col = (col / 8 + 1) * 8;
				if (col > cols - 1)
					col = cols - 1;
				term_cursor_moved(term, row, col);
			}
			p++;
		} else if (is_plain_text(c)) {
			size_t end = plain_run_end(bytes, p + 1, len), n = end - p;
			bool last = end < len && (unsigned char)bytes[end] >= 0x80;

			if (col + (int)n > cols - 1)
				break; /* it would reach the last column */
			if (last && --n == 0)
				break;
			cut = last;
			/* on_putglyph's bookkeeping for the run's glyphs. */
			if (col == 0 && row == term->wrap_row + 1)
				grid_visible_line(term->grid, row - 1)->wrapped = true;
			put_ascii(term, grid_visible_line(term->grid, row), row, col, bytes + p, n);
			glyph_row = row;
			glyph_col = col + (int)n - 1;
			glyph = bytes[p + n - 1];
			col += (int)n;
			term->wrap_row = row;
			term->wrap_end = col;
			term->wrap_col = col;
			p += n;
			if (last)
				break;
		} else if (c == 0x1b && (n = sgr_length(bytes + p, len - p)) > 0) {
			/* The pen changes in libvterm, which needs no cursor
			 * for it; an RGB pen ends the batch. */
			to_vterm(term, bytes + p, n);
			p += n;
			if (term->compact_limit == 0)
				break;
		} else {
			break;
		}
	}

	if (scrolled > 0)
		term_screen_scrolled(term, scrolled);
	/* libvterm's cursor (and last glyph) to where they would be; its
	 * callbacks must not redo the bookkeeping done above.  After a run
	 * cut one byte short libvterm prints a glyph of its own next. */
	int wrap_row = term->wrap_row, wrap_col = term->wrap_col, wrap_end = term->wrap_end;
	char sync[48] = "\r";

	n = 1;

	if (glyph_row >= 0 && !cut) {
		n = put_cup(sync, n, glyph_row, glyph_col);
		sync[n++] = glyph;
	}
	if (row != pos.row || col != 0 || (glyph_row >= 0 && !cut))
		n = put_cup(sync, n, row, col);
	term->replaying_wrap = true;
	to_vterm(term, sync, n);
	term->replaying_wrap = false;
	term->wrap_row = wrap_row;
	term->wrap_col = wrap_col;
	term->wrap_end = wrap_end;
	return p;
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
			if ((unsigned char)bytes[i + 1] >= 0x80 &&
			    (unsigned char)bytes[i + 1] <= 0x9f) {
				to_vterm(term, bytes + start, i - start);
				start = i + 2;
				i++;
				continue;
			}
		}
		if (c == '\r' && term->scan_state == SCAN_GROUND && i + 1 < len &&
		    bytes[i + 1] == '\n' && term->lines_known) {
			to_vterm(term, bytes + start, i - start);
			start = i + fast_lines(term, bytes + i, len - i);
			if (start > i) {
				i = start - 1;
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
			term->scan_state =
			    term->scan_state == SCAN_STRING ? SCAN_ESC_IN_STRING : SCAN_ESC;
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
				    (c == ';' || c == ':' ||
				     term->scan_separators >= CSI_MAX_PARAMS)) {
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
			/* Any CSI but SGR may move the scroll region (DECSTBM)
			 * or a tab stop (TBC) under fast_lines. */
			if (c != 'm' || !term->scan_plain)
				term->lines_forget = true;
			if (c == 'g')
				term->tabs_default = false;
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
				term->history_clears++;
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
