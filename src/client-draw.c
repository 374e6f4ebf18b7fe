/*
 * client-draw: painting the client's model with ncursesw.
 *
 * The screen is the window the server laid out: pane contents, a title
 * line above each pane (row y-1: backend label, title, cwd, violation
 * count, zoom mark), one-column borders between panes side by side, and
 * the status line on the last row; over them, the overlays: the help,
 * choose mode's list, display-panes' numbers.  A pane in state "error" is painted
 * as a FAILED banner, never as cells, so a failed sandbox can never look
 * like a live shell.
 *
 * Everything drawn goes through cchar_t cells built from sanitised wide
 * characters, so nothing but ncurses' own output reaches the terminal.
 * Colours: a palette index or RGB is mapped to what the terminal has —
 * direct RGB where ncurses reports it, else the nearest of its 256, 16
 * or 8 colours — and pairs come from alloc_pair() so any number of
 * combinations can be live.  With NO_COLOR set (or no colour support)
 * the client's own chrome uses attributes instead of colours; pane
 * contents still carry the attributes their programs set.
 *
 * A draw is one doupdate().  Rows that frames did not touch are not
 * repainted unless the layout changed.
 */
#include <ctype.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client-internal.h"
#include "command.h"
#include "screen-draw.h"
#include "xalloc.h"

#include <ncurses.h>

/* xterm's 16 system colours, the reference for nearest-colour search. */
static const uint8_t basic_rgb[16][3] = {
    {0, 0, 0},	   {205, 0, 0},	    {0, 205, 0},     {205, 205, 0},   {0, 0, 238}, {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0},     {0, 255, 0}, {255, 255, 0},
    {92, 92, 255}, {255, 0, 255},   {0, 255, 255},   {255, 255, 255},
};

static const uint8_t cube_levels[6] = {0, 95, 135, 175, 215, 255};

static void palette_to_rgb(int index, uint8_t rgb[3])
{
	if (index < 16) {
		memcpy(rgb, basic_rgb[index], 3);
	} else if (index < 232) {
		index -= 16;
		rgb[0] = cube_levels[index / 36];
		rgb[1] = cube_levels[(index / 6) % 6];
		rgb[2] = cube_levels[index % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = (uint8_t)(8 + 10 * (index - 232));
	}
}

static int color_distance(const uint8_t a[3], const uint8_t b[3])
{
	int dr = a[0] - b[0], dg = a[1] - b[1], db = a[2] - b[2];

	return dr * dr + dg * dg + db * db;
}

static int cube_index(int value)
{
	return value < 48 ? 0 : value < 115 ? 1 : (value - 35) / 40;
}

/* Nearest colour among the first `colors` of the xterm palette. */
static int nearest_palette(const uint8_t rgb[3], int colors)
{
	int best = 0, best_distance = 1 << 30;

	if (colors >= 256) {
		/* The 6x6x6 cube and the grey ramp each have an obvious nearest
		 * entry; compare those two (and the 16 system colours are left
		 * alone: themes can vary them). */
		int cube =
		    16 + 36 * cube_index(rgb[0]) + 6 * cube_index(rgb[1]) + cube_index(rgb[2]);
		int average = (rgb[0] + rgb[1] + rgb[2]) / 3;
		int grey = average < 8 ? 232 : average > 238 ? 255 : 232 + (average - 8) / 10;
		uint8_t cube_rgb[3], grey_rgb[3];

		palette_to_rgb(cube, cube_rgb);
		palette_to_rgb(grey, grey_rgb);
		return color_distance(rgb, cube_rgb) <= color_distance(rgb, grey_rgb) ? cube : grey;
	}
	for (int i = 0; i < (colors >= 16 ? 16 : 8); i++) {
		int distance = color_distance(rgb, basic_rgb[i]);

		if (distance < best_distance) {
			best = i;
			best_distance = distance;
		}
	}
	return best;
}

static int curses_color(const struct client *c, const struct theme_color *color)
{
	uint8_t rgb[3];

	switch (color->kind) {
	case THEME_COLOR_PALETTE:
		if (color->index < 8 || (!c->direct_color && color->index < c->ncolors))
			return color->index;
		palette_to_rgb(color->index, rgb);
		break;
	case THEME_COLOR_RGB:
		rgb[0] = color->r;
		rgb[1] = color->g;
		rgb[2] = color->b;
		break;
	default:
		return -1;
	}
	if (c->direct_color) {
		int packed = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2];
		/* Values below 8 select the ANSI colours on direct terminals. */
		return packed < 8 ? 8 : packed;
	}
	return nearest_palette(rgb, c->ncolors);
}

static attr_t curses_attrs(unsigned attrs)
{
	attr_t out = A_NORMAL;

	if (attrs & THEME_ATTR_BOLD)
		out |= A_BOLD;
	if (attrs & THEME_ATTR_ITALIC)
		out |= A_ITALIC;
	if (attrs & THEME_ATTR_UNDERLINE)
		out |= A_UNDERLINE;
	if (attrs & THEME_ATTR_REVERSE)
		out |= A_REVERSE;
	if (attrs & THEME_ATTR_BLINK)
		out |= A_BLINK;
	if (attrs & THEME_ATTR_DIM)
		out |= A_DIM;
	if (attrs & CELL_ATTR_CONCEAL)
		out |= A_INVIS;
	return out;
}

static int color_pair(const struct client *c, const struct theme_color *fg,
		      const struct theme_color *bg)
{
	int pair;

	if (!c->use_color)
		return 0;
	pair = alloc_pair(curses_color(c, fg), curses_color(c, bg));
	return pair < 0 ? 0 : pair;
}

/* Without colour, chrome still needs to stand apart from pane text. */
struct look {
	attr_t attr;
	int pair;
};

static struct look slot_look(const struct client *c, enum theme_slot slot)
{
	const struct theme_style *style = &c->theme.slots[slot];
	struct look look;

	if (!c->use_color) {
		look.attr = curses_attrs(style->attrs | screen_no_color_attrs(slot));
		look.pair = 0;
		return look;
	}
	look.attr = curses_attrs(style->attrs);
	look.pair = color_pair(c, &style->fg, &style->bg);
	return look;
}

/*
 * What this client last put in each screen cell.  Every frame redraws
 * whole rows, titles and the status line, but most of it is what is
 * already there: a cell equal to its shadow is not handed to curses
 * again, which keeps a keystroke's echo to a few cells of work.  The
 * shadow is forgotten whenever the screen is erased or resized.
 */
struct shadow_cell {
	wchar_t chars[CELL_CHARS + 1];
	attr_t attr;
	int pair;
	bool valid;
	bool wide;
	/* The pane cell drawn here in its own style, if that is what the
	 * cell shows: the same cell again needs no colour pair lookup. */
	bool has_cell; /* implies valid: cleared with it */
	struct cell cell;
};

static struct shadow_cell *shadow;
static int shadow_rows, shadow_cols;

static void shadow_forget(int rows, int cols)
{
	if (rows != shadow_rows || cols != shadow_cols || shadow == NULL) {
		free(shadow);
		shadow = rows > 0 && cols > 0 ? xcalloc((size_t)rows * cols, sizeof *shadow) : NULL;
		shadow_rows = shadow != NULL ? rows : 0;
		shadow_cols = shadow != NULL ? cols : 0;
		return;
	}
	memset(shadow, 0, (size_t)rows * cols * sizeof *shadow);
}

/* True if (y, x) already shows chars in look; else records that it will. */
static bool shadow_same(int y, int x, const wchar_t *chars, struct look look)
{
	struct shadow_cell *cell;
	int n = 0;

	if (y < 0 || y >= shadow_rows || x < 0 || x >= shadow_cols)
		return false;
	cell = &shadow[y * shadow_cols + x];
	while (n < CELL_CHARS && chars[n] != 0 && chars[n] == cell->chars[n])
		n++;
	if (cell->valid && cell->attr == look.attr && cell->pair == look.pair &&
	    (n == CELL_CHARS || chars[n] == cell->chars[n]))
		return true;
	/* Drawing over either half of a wide character changes the other. */
	if (x > 0 && cell[-1].wide)
		cell[-1].valid = cell[-1].has_cell = false;
	if (cell->wide && x + 1 < shadow_cols)
		cell[1].valid = cell[1].has_cell = false;
	cell->has_cell = false;
	for (n = 0; n < CELL_CHARS && chars[n] != 0; n++)
		cell->chars[n] = chars[n];
	cell->chars[n] = 0;
	cell->attr = look.attr;
	cell->pair = look.pair;
	cell->valid = true;
	cell->wide = wcwidth(chars[0]) == 2;
	if (cell->wide && x + 1 < shadow_cols)
		cell[1].valid = cell[1].has_cell = false;
	return false;
}

static bool same_cell(const struct cell *a, const struct cell *b)
{
	for (int i = 0; i < CELL_CHARS; i++) {
		if (a->chars[i] != b->chars[i])
			return false;
		if (a->chars[i] == 0)
			break;
	}
	return a->width == b->width && a->attrs == b->attrs && memcmp(&a->fg, &b->fg, sizeof a->fg) == 0 &&
	       memcmp(&a->bg, &b->bg, sizeof a->bg) == 0;
}

/* FNV-1a over what a line is drawn from: a title or status line whose
 * inputs hash the same as last time is already on screen. */
static uint64_t hash_text(uint64_t h, const char *text)
{
	if (h == 0)
		h = 14695981039346656037u;
	for (; *text != 0; text++)
		h = (h ^ (unsigned char)*text) * 1099511628211u;
	return (h ^ 0xff) * 1099511628211u; /* a separator: "ab","c" != "a","bc" */
}

static uint64_t hash_int(uint64_t h, long v)
{
	if (h == 0)
		h = 14695981039346656037u;
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (unsigned char)v) * 1099511628211u;
	return h;
}

static uint64_t status_drawn;

/* The pane cell (y, x) shows, if it is known to show one as drawn. */
static struct shadow_cell *shadow_at(int y, int x)
{
	if (y < 0 || y >= shadow_rows || x < 0 || x >= shadow_cols)
		return NULL;
	return &shadow[y * shadow_cols + x];
}

/* The terminal's character set is UTF-8 (LANG=C is not: ncursesw then
 * draws nothing for a character it cannot encode). */
static bool locale_utf8(void)
{
	static int utf8 = -1;

	if (utf8 < 0)
		utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return utf8;
}

/* Outside UTF-8, a border glyph in ASCII, as tmux draws borders where
 * the terminal has no line-drawing set; '?' for any other character the
 * locale cannot encode. */
static wchar_t ascii_glyph(wchar_t wc)
{
	switch (wc) {
	case L'│': return L'|';
	case L'─': return L'-';
	case L'┌': case L'┐': case L'└': case L'┘':
	case L'┬': case L'┴': case L'├': case L'┤': case L'┼': return L'+';
	default: return L'?';
	}
}

static void put_wide(int y, int x, const wchar_t *chars, struct look look)
{
	cchar_t cc;

	if (shadow_same(y, x, chars, look))
		return;
	if (!locale_utf8() && chars[0] > 0x7f) {
		wchar_t ascii[2] = { ascii_glyph(chars[0]), 0 };

		setcchar(&cc, ascii, look.attr, 0, &look.pair);
		mvadd_wch(y, x, &cc);
		return;
	}
	setcchar(&cc, chars, look.attr, 0, &look.pair);
	mvadd_wch(y, x, &cc);
}

static void put_char(int y, int x, wchar_t wc, struct look look)
{
	wchar_t chars[2] = {wc, 0};

	put_wide(y, x, chars, look);
}

/* Draw sanitised text at (y, x) within width columns; returns columns
 * used.  A wide character that would not fit ends the text. */
static int put_text(int y, int x, int width, const wchar_t *text, struct look look)
{
	int used = 0;

	for (; *text != 0; text++) {
		int w = wcwidth(*text);

		if (w < 0)
			continue;
		if (w == 0) {
			continue; /* combining marks on their own are not worth a cell */
		}
		if (used + w > width)
			break;
		put_char(y, x + used, *text, look);
		used += w;
	}
	return used;
}

static int put_utf8(int y, int x, int width, const char *utf8, struct look look)
{
	wchar_t text[1024];

	sanitize_text(utf8, text, sizeof text / sizeof text[0]);
	return put_text(y, x, width, text, look);
}

static void fill(int y, int x, int width, wchar_t wc, struct look look)
{
	for (int i = 0; i < width; i++)
		put_char(y, x + i, wc, look);
}

static int text_columns(const char *utf8)
{
	wchar_t text[1024];
	int columns = 0;

	sanitize_text(utf8, text, sizeof text / sizeof text[0]);
	for (wchar_t *p = text; *p != 0; p++)
		if (wcwidth(*p) > 0)
			columns += wcwidth(*p);
	return columns;
}

/* The last row is the status line's, or, with "status": false, the
 * panes' except while a message or the prompt is shown there. */
static bool status_row_taken(const struct client *c)
{
	return c->config.status || c->mode == MODE_PROMPT || c->message[0] != 0;
}

static int screen_rows_for_panes(const struct client *c)
{
	return c->rows - (status_row_taken(c) ? 1 : 0);
}

/* Cell of a pane's content at its coordinates, in its style. */
static void draw_cell(const struct client *c, int y, int x, const struct cell *cell, bool selected,
		      bool matched)
{
	wchar_t chars[CELL_CHARS + 1];
	struct look look;
	int n = 0;

	if (cell->chars[0] == 0) {
		chars[n++] = L' ';
	} else {
		for (; n < CELL_CHARS && cell->chars[n] != 0; n++)
			chars[n] = cell->chars[n];
	}
	chars[n] = 0;
	if (selected || matched) {
		look = slot_look(c, selected ? THEME_COPY_SELECTION : THEME_COPY_MATCH);
		put_wide(y, x, chars, look);
		return;
	}
	struct shadow_cell *seen = shadow_at(y, x);
	if (seen != NULL && seen->has_cell && same_cell(&seen->cell, cell))
		return;
	look.attr = curses_attrs(cell->attrs);
	look.pair = color_pair(c, &cell->fg, &cell->bg);
	put_wide(y, x, chars, look);
	if (seen != NULL && seen->valid) {
		seen->cell = *cell;
		seen->has_cell = true;
	}
}

static void draw_cells_row(const struct client *c, int y, int x, const struct cell *row, int cols,
			   const bool *selected, const bool *matched)
{
	for (int col = 0; col < cols && x + col < c->cols; col++) {
		if (row[col].width == 0)
			continue;
		if (row[col].width == 2 && (col + 1 >= cols || x + col + 1 >= c->cols)) {
			struct cell blank = row[col];

			blank.chars[0] = 0;
			blank.width = 1;
			draw_cell(c, y, x + col, &blank, false, false);
			continue;
		}
		draw_cell(c, y, x + col, &row[col], selected && selected[col],
			  matched && matched[col]);
	}
}

static void draw_pane_cells(struct client *c, struct pane_view *pane, bool all_rows)
{
	for (int y = 0; y < pane->rows; y++) {
		int screen_y = pane->y + y;

		if (!all_rows && !pane->row_dirty[y])
			continue;
		pane->row_dirty[y] = false;
		if (screen_y < 0 || screen_y >= screen_rows_for_panes(c))
			continue;
		draw_cells_row(c, screen_y, pane->x, &pane->cells[y * pane->cols], pane->cols, NULL,
			       NULL);
	}
}

static void draw_copy_pane(struct client *c, struct pane_view *pane)
{
	struct cell *row = xmalloc((size_t)pane->cols * sizeof *row);
	bool *selected = xmalloc((size_t)pane->cols * sizeof *selected);
	bool *matched = xmalloc((size_t)pane->cols * sizeof *matched);
	char position[64];

	for (int y = 0; y < pane->rows && pane->y + y < screen_rows_for_panes(c); y++) {
		copy_mode_draw_line(c, y, row, pane->cols, selected, matched);
		draw_cells_row(c, pane->y + y, pane->x, row, pane->cols, selected, matched);
		pane->row_dirty[y] = true; /* live content returns on leaving */
	}
	copy_mode_position(c, position, sizeof position);
	int width = text_columns(position);
	if (width <= pane->cols)
		put_utf8(pane->y, pane->x + pane->cols - width, width, position,
			 slot_look(c, THEME_COPY_POSITION));
	free(row);
	free(selected);
	free(matched);
}

/* Word-wrap text into the banner, one line at a time from *y. */
static void banner_wrapped(struct client *c, const struct pane_view *pane, int *y,
			   const char *prefix, const char *text, struct look look)
{
	wchar_t wide[1024], line[1024];
	char joined[1200];
	size_t n = 0, len;
	int width = pane->cols - 2;

	if (text == NULL || text[0] == 0 || width < 1)
		return;
	snprintf(joined, sizeof joined, "%s%s", prefix, text);
	len = sanitize_text(joined, wide, sizeof wide / sizeof wide[0]);
	while (n < len && *y < pane->y + pane->rows) {
		size_t take = 0, last_space = 0;
		int columns = 0;

		while (n + take < len) {
			int w = wcwidth(wide[n + take]);
			if (columns + (w > 0 ? w : 0) > width)
				break;
			columns += w > 0 ? w : 0;
			if (wide[n + take] == L' ')
				last_space = take;
			take++;
		}
		if (n + take < len && last_space > 0)
			take = last_space + 1;
		if (take == 0)
			take = 1;
		wmemcpy(line, wide + n, take);
		line[take] = 0;
		put_text(*y, pane->x + 1, width, line, look);
		n += take;
		(*y)++;
	}
}

/* Invariant 2: a pane that could not be wrapped shows why, in red, and
 * nothing that could pass for a shell. */
static void draw_failed_banner(struct client *c, struct pane_view *pane)
{
	struct look text = slot_look(c, THEME_BANNER_TEXT);
	struct look headline = slot_look(c, THEME_BANNER_FAILED);
	char title[128];
	int y = pane->y;

	for (int row = 0; row < pane->rows; row++) {
		if (pane->y + row < screen_rows_for_panes(c))
			fill(pane->y + row, pane->x, pane->cols, L' ', text);
		pane->row_dirty[row] = false;
	}
	if (pane->rows > 4)
		y += (pane->rows - 4) / 3;
	snprintf(title, sizeof title, "FAILED: %s%ssandbox could not start", pane->requested,
		 pane->requested[0] ? " " : "");
	banner_wrapped(c, pane, &y, "", title, headline);
	banner_wrapped(c, pane, &y, "reason: ", pane->reason[0] ? pane->reason : "unknown", text);
	banner_wrapped(c, pane, &y, "hint: ", pane->hint, text);
}

static enum theme_slot label_slot(const char *state, const char *backend)
{
	if (strcmp(state, "error") == 0)
		return THEME_BANNER_FAILED;
	if (strcmp(backend, "none") == 0)
		return THEME_LABEL_NONE;
	if (strcmp(backend, "native") == 0)
		return THEME_LABEL_NATIVE;
	if (strcmp(backend, "microvm") == 0)
		return THEME_LABEL_MICROVM;
	return THEME_LABEL_PENDING;
}

static bool pane_failed(const struct pane_view *pane)
{
	return strcmp(pane->state, "error") == 0;
}

/* The title line: label, title and cwd on the left, violations and the
 * zoom mark on the right, the rest drawn as border. */
static void draw_title(struct client *c, struct pane_view *pane)
{
	int y = pane->y - 1, x = pane->x, width = pane->cols, used = 0;
	struct look border =
	    slot_look(c, pane->active ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE);
	struct look title = slot_look(c, pane->active ? THEME_TITLE_ACTIVE : THEME_TITLE_TEXT);
	char name[40], label[48], right[64] = "", text[1024], shown[512], progress[32];
	int right_width;

	if (y < 0 || y >= screen_rows_for_panes(c))
		return;
	uint64_t h = hash_int(hash_int(hash_int(0, y), x), width);
	h = hash_int(hash_int(hash_int(h, pane->active), c->zoomed), pane->violations);
	h = hash_text(hash_text(hash_text(h, pane->state), pane->backend), pane->title);
	h = hash_int(hash_text(hash_text(h, pane->cwd), pane->accelerator), pane->bell);
	h = hash_text(h, pane->profile);
	h = hash_int(hash_int(hash_text(h, pane->notice), pane->progress_state), pane->progress);
	if (h == pane->title_drawn)
		return;
	pane->title_drawn = h;
	fill(y, x, width, L'─', border);
	screen_label_text(pane->state, pane->backend, pane->accelerator, name, sizeof name);
	snprintf(label, sizeof label, " %s ", name);
	used += put_utf8(y, x, width, label, slot_look(c, label_slot(pane->state, pane->backend)));
	/* Beside the label, in its colours: a sandbox's profile (an agent
	 * pane does not look like a terminal pane) and a stopped pane. */
	if (pane->backend[0] != 0 && strcmp(pane->backend, "none") != 0 && pane->profile[0] != 0 &&
	    used < width) {
		snprintf(label, sizeof label, "%s ", pane->profile);
		used += put_utf8(y, x + used, width - used, label,
				 slot_look(c, label_slot(pane->state, pane->backend)));
	}
	if (strcmp(pane->state, "suspended") == 0 && used < width)
		used += put_utf8(y, x + used, width - used, "suspended ",
				 slot_look(c, label_slot(pane->state, pane->backend)));
	if (pane->violations > 0)
		snprintf(right, sizeof right, " %d denied ", pane->violations);
	right_width = text_columns(right);
	if (c->zoomed && pane->active)
		right_width += 3;
	if (right_width > width - used - 1)
		right_width = 0;
	screen_title_beside_label(pane->title, shown, sizeof shown);
	screen_progress_text(pane->progress_state, pane->progress, progress, sizeof progress);
	snprintf(text, sizeof text, " %s%s%s%s%s%s%s ", pane->bell || pane->notice[0] ? "! " : "",
		 pane->notice, pane->notice[0] ? " | " : "", progress, shown,
		 shown[0] && pane->cwd[0] ? " : " : "", pane->cwd);
	if (strcmp(text, "  ") != 0 && width - used - right_width - 1 > 0)
		used += put_utf8(y, x + used, width - used - right_width - 1, text, title);
	if (right_width > 0) {
		int rx = x + width - right_width - 1;

		if (right[0] != 0)
			rx += put_utf8(y, rx, width, right, slot_look(c, THEME_TITLE_VIOLATIONS));
		if (c->zoomed && pane->active)
			put_utf8(y, rx, 3, " Z ", slot_look(c, THEME_TITLE_ZOOM));
	}
}

/* Border cells: vertical borders beside panes, horizontal title lines.
 * Junction glyphs are chosen from which neighbours are lines, the way
 * tmux's screen-redraw picks them. */
#define MASK_VERTICAL 1
#define MASK_HORIZONTAL 2
#define MASK_ACTIVE 4

static void mark(uint8_t *mask, const struct client *c, int x, int y, uint8_t bits)
{
	if (x >= 0 && x < c->cols && y >= 0 && y < screen_rows_for_panes(c))
		mask[y * c->cols + x] |= bits;
}

static bool inside_pane_content(const struct client *c, int x, int y)
{
	for (size_t i = 0; i < c->npanes; i++) {
		const struct pane_view *p = &c->panes[i];

		if (client_pane_visible(c, p) && x >= p->x && x < p->x + p->cols && y >= p->y &&
		    y < p->y + p->rows)
			return true;
	}
	return false;
}

static wchar_t junction(bool up, bool down, bool left, bool right)
{
	static const wchar_t glyphs[16] = {
	    /* index: up 8, down 4, left 2, right 1 */
	    L'│', L'─', L'─', L'─', L'│', L'┌', L'┐', L'┬',
	    L'│', L'└', L'┘', L'┴', L'│', L'├', L'┤', L'┼',
	};

	return glyphs[(up ? 8 : 0) | (down ? 4 : 0) | (left ? 2 : 0) | (right ? 1 : 0)];
}

static void draw_borders(struct client *c)
{
	int rows = screen_rows_for_panes(c);
	uint8_t *mask = xcalloc((size_t)c->cols * (size_t)(rows > 0 ? rows : 1), 1);

	if (rows <= 0) {
		free(mask);
		return;
	}
	for (size_t i = 0; i < c->npanes; i++) {
		const struct pane_view *p = &c->panes[i];
		uint8_t active = p->active ? MASK_ACTIVE : 0;

		if (!client_pane_visible(c, p))
			continue;
		for (int x = p->x; x < p->x + p->cols; x++)
			mark(mask, c, x, p->y - 1, MASK_HORIZONTAL | active);
		for (int y = p->y - 1; y < p->y + p->rows; y++) {
			if (p->x > 0 && !inside_pane_content(c, p->x - 1, y))
				mark(mask, c, p->x - 1, y, MASK_VERTICAL | active);
			if (p->x + p->cols < c->cols && !inside_pane_content(c, p->x + p->cols, y))
				mark(mask, c, p->x + p->cols, y, MASK_VERTICAL | active);
		}
	}
	for (int y = 0; y < rows; y++) {
		for (int x = 0; x < c->cols; x++) {
			uint8_t m = mask[y * c->cols + x];
			bool up, down, left, right;

			if (!(m & MASK_VERTICAL))
				continue;
			up = y > 0 && (mask[(y - 1) * c->cols + x] & MASK_VERTICAL);
			down = y + 1 < rows && (mask[(y + 1) * c->cols + x] & MASK_VERTICAL);
			left = x > 0 && (mask[y * c->cols + x - 1] & MASK_HORIZONTAL);
			right = x + 1 < c->cols && (mask[y * c->cols + x + 1] & MASK_HORIZONTAL);
			put_char(y, x, junction(up, down, left, right),
				 slot_look(c, (m & MASK_ACTIVE) ? THEME_BORDER_ACTIVE
								: THEME_BORDER_INACTIVE));
		}
	}
	free(mask);
}

static void status_window_entry(const struct client *c, size_t i, char *entry, size_t size)
{
	const struct window_view *w = &c->windows[i];

	snprintf(entry, size, "%d:%s%s%s%s", w->index, w->name,
		 w->active ? (c->zoomed ? "*Z" : "*") : "", w->bell ? "!" : "", w->denied ? "D" : "");
}

/* Which windows the list shows, [*first, *last): all that fit in room;
 * when they do not, a run around the current window, as tmux scrolls
 * its list, with a column kept on each cut side for the < or > mark. */
static void status_window_range(const struct client *c, const int *widths, int room,
				size_t *first, size_t *last)
{
	size_t n = c->nwindows, active = 0;
	int used = 0;

	for (size_t i = 0; i < n; i++) {
		used += widths[i];
		if (c->windows[i].active)
			active = i;
	}
	*first = 0;
	*last = n;
	if (used <= room)
		return;
	*first = active;
	*last = active + 1;
	used = widths[active];
	for (bool grew = true; grew;) {
		grew = false;
		/* Each side still cut costs its mark's column. */
		int marks = (*first > 0) + (*last < n);

		if (*last < n && used + widths[*last] + marks - (*last + 1 == n) <= room) {
			used += widths[(*last)++];
			grew = true;
		}
		marks = (*first > 0) + (*last < n);
		if (*first > 0 && used + widths[*first - 1] + marks - (*first == 1) <= room) {
			used += widths[--(*first)];
			grew = true;
		}
	}
}

static void draw_status_windows(struct client *c, int y, int *x, int limit)
{
	struct look bar = slot_look(c, THEME_STATUS_BAR);
	int *widths = xcalloc(c->nwindows + 1, sizeof *widths);
	size_t first, last;
	char entry[128];

	for (size_t i = 0; i < c->nwindows; i++) {
		status_window_entry(c, i, entry, sizeof entry);
		widths[i] = text_columns(entry) + 1;
	}
	status_window_range(c, widths, limit - *x, &first, &last);
	if (first > 0 && *x < limit)
		*x += put_utf8(y, *x, limit - *x, "<", bar);
	for (size_t i = first; i < last && *x < limit; i++) {
		status_window_entry(c, i, entry, sizeof entry);
		*x += put_utf8(y, *x, limit - *x, entry,
			       slot_look(c, c->windows[i].active ? THEME_STATUS_CURRENT
								 : THEME_STATUS_WINDOW));
		if (*x < limit)
			*x += put_utf8(y, *x, limit - *x, " ", bar);
	}
	if (last < c->nwindows && *x < limit)
		*x += put_utf8(y, *x, limit - *x, ">", bar);
	free(widths);
}

static void draw_prompt(struct client *c, int y)
{
	struct look look = slot_look(c, THEME_STATUS_PROMPT);
	int x;

	fill(y, 0, c->cols, L' ', look);
	x = put_utf8(y, 0, c->cols, c->prompt.label, look);
	put_utf8(y, x, c->cols - x, c->prompt.text, look);
}

/* Tab's matches, when there were several: the row above the prompt,
 * over the pane there (as tmux lists them above its prompt). */
static bool candidates_shown(const struct client *c)
{
	return c->mode == MODE_PROMPT && c->prompt.candidates[0] != 0 && c->rows >= 3;
}

static void draw_candidates(struct client *c)
{
	struct look look = slot_look(c, THEME_STATUS_MESSAGE);

	fill(c->rows - 2, 0, c->cols, L' ', look);
	put_utf8(c->rows - 2, 0, c->cols, c->prompt.candidates, look);
}

#define CLOCK_ROOM_MIN 12 /* columns left of status_right, or no status_right */

static void draw_status(struct client *c)
{
	int y = c->rows - 1, x = 0;
	char left[512], right[512];

	if (y < 0 || !status_row_taken(c))
		return;
	client_status_text(c, c->config.status_left, left, sizeof left);
	client_status_text(c, c->config.status_right, right, sizeof right);
	uint64_t h = hash_int(hash_int(hash_int(0, y), c->cols), c->mode);
	h = hash_int(hash_text(hash_text(hash_text(h, c->prompt.label), c->prompt.text), c->message),
		     (int)c->prompt.cursor);
	h = hash_int(hash_int(hash_int(h, c->message_is_error), c->config.status), c->prefix_pending);
	h = hash_text(hash_text(hash_text(hash_int(h, c->zoomed), c->session), left), right);
	for (size_t i = 0; i < c->nwindows; i++)
		h = hash_text(hash_int(hash_int(hash_int(h, c->windows[i].index),
						c->windows[i].active),
				       c->windows[i].bell),
			      c->windows[i].name);
	for (size_t i = 0; i < c->nwindows; i++)
		h = hash_int(h, c->windows[i].denied);
	if (h == status_drawn)
		return;
	status_drawn = h;
	if (c->mode == MODE_PROMPT) {
		draw_prompt(c, y);
		return;
	}
	if (c->message[0] != 0) {
		struct look look =
		    slot_look(c, c->message_is_error ? THEME_STATUS_ERROR : THEME_STATUS_MESSAGE);

		fill(y, 0, c->cols, L' ', look);
		put_utf8(y, 0, c->cols, c->message, look);
		return;
	}
	fill(y, 0, c->cols, L' ', slot_look(c, THEME_STATUS_BAR));
	int right_width = text_columns(right);
	if (right_width > c->cols / 2) /* a long status_right leaves room for the windows */
		right_width = c->cols / 2;
	int limit = c->cols - right_width;

	/* A terminal too narrow for both shows the session, not status_right
	 * (the clock by default). */
	if (limit < CLOCK_ROOM_MIN) {
		right_width = 0;
		limit = c->cols;
	}

	x += put_utf8(y, x, limit > 0 ? limit : 0, left, slot_look(c, THEME_STATUS_SESSION));
	if (c->prefix_pending && x < limit)
		x += put_utf8(y, x, limit - x, "^ ", slot_look(c, THEME_STATUS_CURRENT));
	draw_status_windows(c, y, &x, limit);
	/* status_right keeps its room: a long window list scrolls instead. */
	if (right_width > 0)
		put_utf8(y, limit, right_width, right, slot_look(c, THEME_STATUS_CLOCK));
}

/* Width of the command column: the longest bound command, within reason. */
static int help_command_width(const struct client *c)
{
	int width = 8;

	for (size_t i = 0; i < c->bindings.count; i++) {
		int len = text_columns(c->bindings.entries[i].command);

		if (len > width)
			width = len;
	}
	return width > 48 ? 48 : width;
}

/* The help overlay is generated from the binding table, so it lists
 * exactly what the keys do, config overrides included. */
static void draw_help(struct client *c)
{
	struct look text = slot_look(c, THEME_HELP_TEXT);
	struct look key = slot_look(c, THEME_HELP_KEY);
	/* The whole width, less a margin: descriptions are read whole on a
	 * wide terminal (tmux's list-keys fills the pane). */
	int width = c->cols - 4;
	int height = c->rows - 3;
	int top = 1, left = (c->cols - width) / 2;
	int lines = c->view != NULL ? c->nview : (int)c->bindings.count;
	int command_width = help_command_width(c);
	char header[128];

	/* A narrow terminal shares the line between the command and its
	 * description rather than cut the description to nothing. */
	if (command_width > (width - 12) / 2)
		command_width = (width - 12) / 2 > 8 ? (width - 12) / 2 : 8;

	if (width < 20 || height < 3)
		return;
	if (height > lines + 2)
		height = lines + 2;
	if (c->help_offset > lines - (height - 2))
		c->help_offset = lines - (height - 2);
	if (c->help_offset < 0)
		c->help_offset = 0;
	if (c->view != NULL)
		snprintf(header, sizeof header, " %s — j/k scroll, q closes ", c->view_title);
	else
		snprintf(header, sizeof header, " key bindings (prefix %s) — j/k scroll, q closes ",
			 c->config.prefix);
	fill(top, left, width, L' ', key);
	put_utf8(top, left, width, header, key);
	for (int i = 0; i < height - 1; i++) {
		int y = top + 1 + i, index = c->help_offset + i, x = left + 1;
		const struct binding *b;

		fill(y, left, width, L' ', text);
		if (index >= lines)
			continue;
		if (c->view != NULL) {
			put_utf8(y, x, width - 2, c->view[index], text);
			continue;
		}
		b = &c->bindings.entries[index];
		put_utf8(y, x, 10, b->key, key);
		x += 11;
		put_utf8(y, x, command_width < left + width - x ? command_width : left + width - x,
			 b->command, text);
		x += command_width + 2;
		if (x < left + width - 1)
			put_utf8(y, x, left + width - 1 - x, command_summary(b->command),
				 text);
	}
}

/* Choose mode covers the window: a header with its keys, then one line
 * per visible item, the selected one highlighted; a pane's label keeps
 * its backend's colour there too. */
static void draw_choose_item(struct client *c, int y, const struct choose_item *item, bool selected)
{
	struct look base = slot_look(c, selected ? THEME_COPY_SELECTION : THEME_HELP_TEXT);
	int x = 1 + 2 * item->depth;
	char denied[32];

	fill(y, 0, c->cols, L' ', base);
	if (x >= c->cols)
		return;
	x += put_utf8(y, x, c->cols - x, item->expandable ? (item->expanded ? "- " : "+ ") : "  ",
		      base);
	x += put_utf8(y, x, c->cols - x, item->before, base);
	if (item->label[0] != 0 && x < c->cols)
		x += put_utf8(y, x, c->cols - x, item->label,
			      slot_look(c, label_slot(item->state, item->backend)));
	if (item->violations >= 0 && x < c->cols) {
		snprintf(denied, sizeof denied, " %d denied", item->violations);
		x += put_utf8(y, x, c->cols - x, denied,
			      item->violations > 0 ? slot_look(c, THEME_TITLE_VIOLATIONS) : base);
	}
	if (x < c->cols)
		put_utf8(y, x, c->cols - x, item->after, base);
}

static void draw_choose(struct client *c)
{
	struct look key = slot_look(c, THEME_HELP_KEY);
	int rows = screen_rows_for_panes(c) - 1;
	const char *header = c->choose.kind == CHOOSE_TREE
				 ? " choose-tree — Enter shows it, Left/Right collapse/expand, q leaves "
				 : " choose-buffer — Enter pastes, d deletes, q leaves ";

	if (rows < 1)
		return;
	fill(0, 0, c->cols, L' ', key);
	put_utf8(0, 0, c->cols, header, key);
	choose_scroll(c, rows);
	for (int row = 0; row < rows; row++) {
		int index = choose_item_at(c, row);

		if (index < 0)
			fill(1 + row, 0, c->cols, L' ', slot_look(c, THEME_HELP_TEXT));
		else
			draw_choose_item(c, 1 + row, &c->choose.items[index],
					 index == c->choose.selected);
	}
}

/* display-panes' digits, as tmux draws them big when a pane has room:
 * five rows of three cells, each cell two columns wide. */
static const char *const big_digits[10][5] = {
    {"###", "# #", "# #", "# #", "###"}, {" # ", "## ", " # ", " # ", "###"},
    {"###", "  #", "###", "#  ", "###"}, {"###", "  #", "###", "  #", "###"},
    {"# #", "# #", "###", "  #", "  #"}, {"###", "#  ", "###", "  #", "###"},
    {"###", "#  ", "###", "# #", "###"}, {"###", "  #", "  #", "  #", "  #"},
    {"###", "# #", "###", "# #", "###"}, {"###", "# #", "###", "  #", "###"},
};

#define BIG_DIGIT_COLS 6
#define BIG_DIGIT_ROWS 5

/* The pane's number at its centre: big digits and, below them, its id
 * and size (tmux's display-panes) when it has room, else the number in
 * plain digits; in the active colour on the active pane. */
static void draw_pane_number(struct client *c, const struct pane_view *pane, int number)
{
	struct look look =
	    slot_look(c, pane->active ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE);
	char digits[16], below[48];
	int ndigits = snprintf(digits, sizeof digits, "%d", number);
	int width = ndigits * BIG_DIGIT_COLS + (ndigits - 1) * 2;
	int rows_limit = screen_rows_for_panes(c);

	snprintf(below, sizeof below, "%%%d %dx%d", pane->id, pane->cols, pane->rows);
	if (pane->cols < width + 2 || pane->rows < BIG_DIGIT_ROWS + 2) {
		int y = pane->y + pane->rows / 2, x = pane->x + (pane->cols - ndigits) / 2;

		if (y < rows_limit)
			put_utf8(y, x, pane->cols, digits, look);
		return;
	}
	int top = pane->y + (pane->rows - BIG_DIGIT_ROWS - 1) / 2;
	int left = pane->x + (pane->cols - width) / 2;

	for (int row = 0; row < BIG_DIGIT_ROWS && top + row < rows_limit; row++)
		for (int d = 0; d < ndigits; d++)
			for (int cell = 0; cell < 3; cell++) {
				int x = left + d * (BIG_DIGIT_COLS + 2) + cell * 2;

				if (big_digits[digits[d] - '0'][row][cell] != '#')
					continue;
				put_char(top + row, x, L'█', look);
				put_char(top + row, x + 1, L'█', look);
			}
	if (top + BIG_DIGIT_ROWS < rows_limit && text_columns(below) <= pane->cols)
		put_utf8(top + BIG_DIGIT_ROWS, pane->x + (pane->cols - text_columns(below)) / 2,
			 pane->cols, below, look);
}

static void draw_display_panes(struct client *c)
{
	for (size_t i = 0; i < c->npanes; i++)
		if (client_pane_visible(c, &c->panes[i]))
			draw_pane_number(c, &c->panes[i], (int)i);
}

static void place_cursor(struct client *c)
{
	struct pane_view *pane = client_active_pane(c);
	int x, y;

	if (c->mode == MODE_PROMPT) {
		char before[sizeof c->prompt.text];

		snprintf(before, sizeof before, "%.*s", (int)c->prompt.cursor, c->prompt.text);
		move(c->rows - 1, text_columns(c->prompt.label) + text_columns(before));
		curs_set(1);
		return;
	}
	if (c->mode == MODE_COPY) {
		copy_mode_cursor(c, &x, &y);
		move(y, x);
		curs_set(1);
		return;
	}
	if (c->mode == MODE_HELP || c->mode == MODE_CHOOSE || c->mode == MODE_DISPLAY_PANES ||
	    pane == NULL || !pane->cursor_visible || pane_failed(pane) ||
	    pane->cursor_x >= pane->cols || pane->cursor_y >= pane->rows) {
		curs_set(0);
		return;
	}
	move(pane->y + pane->cursor_y, pane->x + pane->cursor_x);
	curs_set(1);
}

/* The server wrote this screen row itself (an echo patch): repaint it
 * whole on the next update, whatever ncurses believes it shows. */
void client_draw_repaint_row(int screen_y)
{
	if (screen_y >= 0 && screen_y < LINES)
		wredrawln(stdscr, screen_y, 1);
}

void client_draw_init(struct client *c)
{
	const char *no_color = getenv("NO_COLOR");

	c->use_color = has_colors() && (no_color == NULL || no_color[0] == 0);
	if (c->use_color) {
		start_color();
		use_default_colors();
		c->ncolors = COLORS;
		/* ncurses reports a direct-colour terminal (terminfo RGB,
		 * e.g. xterm-direct) as 2^24 colours. */
		c->direct_color = COLORS >= 0x1000000;
	}
	/* Echo patches erase a row's tail with ECH where the terminal
	 * has it as xterm does (server-echo.c). */
	{
		const char *ech = tigetstr("ech");

		c->has_ech = ech != NULL && ech != (char *)-1 && strcmp(ech, "\033[%p1%dX") == 0;
	}
	c->redraw_all = true;
	c->dirty = true;
}

void client_draw(struct client *c)
{
	static bool status_row_was_taken = true;
	bool all = c->redraw_all;

	if (!c->dirty && !all)
		return;
	/* A message or the prompt came or went on a last row the panes
	 * have otherwise: it or the pane row under it is drawn anew. */
	if (status_row_taken(c) != status_row_was_taken) {
		status_row_was_taken = status_row_taken(c);
		all = true;
	}
	if (all) {
		erase();
		shadow_forget(c->rows, c->cols);
		status_drawn = 0;
		for (size_t i = 0; i < c->npanes; i++)
			c->panes[i].title_drawn = 0;
	}
	for (size_t i = 0; i < c->npanes; i++) {
		struct pane_view *pane = &c->panes[i];

		if (!client_pane_visible(c, pane))
			continue;
		if (pane_failed(pane))
			draw_failed_banner(c, pane);
		else if (c->mode == MODE_COPY && c->copy.pane == pane->id)
			draw_copy_pane(c, pane);
		else
			draw_pane_cells(c, pane, all);
		draw_title(c, pane);
	}
	if (all)
		draw_borders(c);
	if (candidates_shown(c))
		draw_candidates(c);
	draw_status(c);
	if (c->mode == MODE_HELP)
		draw_help(c);
	if (c->mode == MODE_CHOOSE)
		draw_choose(c);
	if (c->mode == MODE_DISPLAY_PANES)
		draw_display_panes(c);
	place_cursor(c);
	/* The server may patch no pane under the matches' row. */
	client_echo_publish(c, screen_rows_for_panes(c) - (candidates_shown(c) ? 1 : 0));
	wnoutrefresh(stdscr);
	doupdate();
	/* The overlays cover rows frames repaint. */
	c->redraw_all =
	    c->mode == MODE_HELP || c->mode == MODE_CHOOSE || c->mode == MODE_DISPLAY_PANES;
	c->dirty = false;
}
