/*
 * term-output: text out of the grid, as libvterm's screen layer would give
 * it: UTF-8 encoding and decoding, a row as runs of one style, the SGR
 * that sets a style, and capture (plain or with SGR and OSC 8).
 */
#include "term-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "grid.h"
#include "xalloc.h"

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

/* Room for len more bytes and the terminating NUL. */
static void capture_reserve(struct capture *out, size_t len)
{
	if (out->len + len + 1 > out->cap) {
		size_t cap = out->cap ? out->cap : 256;
		while (out->len + len + 1 > cap)
			cap *= 2;
		out->data = xrealloc(out->data, cap);
		out->cap = cap;
	}
}

static void capture_append(struct capture *out, const char *bytes, size_t len)
{
	capture_reserve(out, len);
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
		/* Plain text from history is read as it is stored, packed:
		 * a capture of the whole history reads thousands of lines. */
		if (!ansi && row < 0) {
			const struct history *history = &term->main_grid->history;

			capture_reserve(&out, (size_t)term->cols * TERM_MAX_CHARS * 4 + 1);
			out.len += history_text(history, history->count + row, term->cols,
						out.data + out.len);
			capture_append(&out, "\n", 1);
			continue;
		}
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
