/*
 * tty: one client's terminal, written by the server (tmux's tty.c in
 * spirit).
 *
 * Two screens of cells: `want`, which the server composes, and `shown`,
 * what the bytes written so far make the terminal show.  A flush walks
 * both and writes, for each cell that differs, a cursor move when the
 * cursor is not already there, the attributes when the pen differs, and
 * the character.  `shown` is updated as the bytes are queued, not as
 * they are written: it describes the terminal once the buffer drains.
 * That is what lets a slow terminal's damage merge: while the buffer
 * is over its bound nothing is added, `want` keeps changing, and the
 * flush after the drain writes the difference between the last state
 * queued and the newest one, once, however many frames went by.
 *
 * A cell is kept in 4 bytes (struct tty_cell): its width, the low byte
 * of its character, and its look, an index into a table of what the
 * two screens' cells have alike, each once: the style, the combining
 * marks and the rest of the character, so that text in one style names
 * one look for each block of 256 code points it uses.  The table drops
 * the looks no cell names when it fills.  Two screens of struct
 * term_cell would cost each client 80 bytes a cell; the two screens are
 * most of what a client costs the server.
 *
 * A cell the tty cannot vouch for (the right half of a wide character
 * a narrow one overwrote) is marked unknown (width UNKNOWN), which no
 * wanted cell equals, so it is written again.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "tty.h"
#include "xalloc.h"

#define UNKNOWN 3	      /* a shown cell's width when its content is not known */
#define BOUND_MIN (64 * 1024) /* the smallest output buffer bound */
#define BOUND_PER_CELL 8      /* as tmux: a screenful at about 8 bytes a cell */
#define OUT_KEEP 4096	      /* the output buffer kept once drained */
/* The most cells a screen has: its looks (at most two a cell, and the
 * slack before a collection) must stay numbered within TTY_LOOKS_MAX.
 * A terminal larger than 2,000 x 1,000 is drawn in its top rows. */
#define CELLS_MAX ((int)(TTY_LOOKS_MAX / 2) - 1024)

_Static_assert(sizeof(struct tty_cell) == 4, "a cell is 4 bytes: two screens of them a client");

/* ---- colours ---- */

/* xterm's default 16 colours. */
static const uint8_t basic_rgb[16][3] = {
    {0, 0, 0},	   {205, 0, 0},	    {0, 205, 0},     {205, 205, 0},   {0, 0, 238}, {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0},     {0, 255, 0}, {255, 255, 0},
    {92, 92, 255}, {255, 0, 255},   {0, 255, 255},   {255, 255, 255},
};

static const uint8_t cube_levels[6] = {0, 95, 135, 175, 215, 255};

static void palette_rgb(int index, uint8_t rgb[3])
{
	if (index < 16) {
		memcpy(rgb, basic_rgb[index], 3);
	} else if (index < 232) {
		index -= 16;
		rgb[0] = cube_levels[index / 36];
		rgb[1] = cube_levels[index / 6 % 6];
		rgb[2] = cube_levels[index % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = (uint8_t)(8 + 10 * (index - 232));
	}
}

static int distance(const uint8_t a[3], const uint8_t b[3])
{
	int dr = a[0] - b[0], dg = a[1] - b[1], db = a[2] - b[2];

	return dr * dr + dg * dg + db * db;
}

/* The cube's step nearest a level. */
static int cube_step(int level)
{
	return level < 48 ? 0 : level < 115 ? 1 : (level - 35) / 40;
}

/* The nearest of the first `colors` palette entries: for 256, the
 * nearer of the cube's and the grey ramp's nearest (the 16 system
 * colours vary with the user's theme and are left out); else among the
 * 16 or 8 system colours. */
static int nearest_palette(const uint8_t rgb[3], int colors)
{
	int best = 0, best_distance = 1 << 30, n = colors >= 16 ? 16 : 8;

	if (colors >= 256) {
		int cube = 16 + 36 * cube_step(rgb[0]) + 6 * cube_step(rgb[1]) + cube_step(rgb[2]);
		int average = (rgb[0] + rgb[1] + rgb[2]) / 3;
		int grey = average < 8 ? 232 : average > 238 ? 255 : 232 + (average - 8) / 10;
		uint8_t cube_rgb[3], grey_rgb[3];

		palette_rgb(cube, cube_rgb);
		palette_rgb(grey, grey_rgb);
		return distance(rgb, cube_rgb) <= distance(rgb, grey_rgb) ? cube : grey;
	}
	for (int i = 0; i < n; i++) {
		int d = distance(rgb, basic_rgb[i]);

		if (d < best_distance) {
			best = i;
			best_distance = d;
		}
	}
	return best;
}

struct term_color tty_color_reduce(const struct tty_term *tt, const struct term_color *color)
{
	struct term_color out = {.kind = TERM_COLOR_DEFAULT};
	uint8_t rgb[3];

	if (color->kind == TERM_COLOR_DEFAULT || tt->colors < 8)
		return out;
	if (color->kind == TERM_COLOR_PALETTE) {
		if (tt->colors >= 256 || color->index < tt->colors)
			return *color;
		palette_rgb(color->index, rgb);
	} else {
		if (tt->rgb)
			return *color;
		rgb[0] = color->r;
		rgb[1] = color->g;
		rgb[2] = color->b;
	}
	out.kind = TERM_COLOR_PALETTE;
	out.index = (uint8_t)nearest_palette(rgb, tt->colors);
	return out;
}

/* ---- the output buffer ---- */

static void put(struct tty *tty, const char *bytes, size_t n)
{
	if (tty->len + n > tty->cap) {
		if (tty->sent > 0) {
			memmove(tty->out, tty->out + tty->sent, tty->len - tty->sent);
			tty->len -= tty->sent;
			tty->sent = 0;
		}
		while (tty->len + n > tty->cap)
			tty->cap = tty->cap ? tty->cap * 2 : 4096;
		tty->out = xrealloc(tty->out, tty->cap);
	}
	memcpy(tty->out + tty->len, bytes, n);
	tty->len += n;
}

static void put_str(struct tty *tty, const char *s)
{
	put(tty, s, strlen(s));
}

/* A capability with parameters; false when the terminal lacks it. */
static bool put_cap(struct tty *tty, enum tty_cap cap, int a, int b, int c)
{
	char buf[256];
	size_t n = tty_term_string(&tty->term, cap, a, b, c, buf, sizeof(buf));

	if (n == 0)
		return false;
	put(tty, buf, n);
	return true;
}

size_t tty_pending(const struct tty *tty)
{
	return tty->len - tty->sent;
}

void tty_raw(struct tty *tty, const char *bytes, size_t len)
{
	put(tty, bytes, len);
}

/* ---- cells and their looks ---- */

static struct tty_cell *want_at(struct tty *tty, int row, int col)
{
	return &tty->want[(size_t)row * tty->cols + col];
}

static struct tty_cell *shown_at(struct tty *tty, int row, int col)
{
	return &tty->shown[(size_t)row * tty->cols + col];
}

static bool color_equal(const struct term_color *a, const struct term_color *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == TERM_COLOR_PALETTE)
		return a->index == b->index;
	if (a->kind == TERM_COLOR_RGB)
		return a->r == b->r && a->g == b->g && a->b == b->b;
	return true;
}

static bool style_equal(const struct term_style *a, const struct term_style *b)
{
	return a->attrs == b->attrs && a->link == b->link && color_equal(&a->fg, &b->fg) &&
	       color_equal(&a->bg, &b->bg);
}

/* A colour as one number, equal for colours color_equal calls equal. */
static uint64_t color_key(const struct term_color *c)
{
	if (c->kind == TERM_COLOR_PALETTE)
		return 1u << 24 | c->index;
	if (c->kind == TERM_COLOR_RGB)
		return 2u << 24 | (uint32_t)c->r << 16 | (uint32_t)c->g << 8 | c->b;
	return 0;
}

static uint32_t look_hash(const struct term_style *style, const uint32_t *marks, uint32_t high)
{
	uint64_t h = (color_key(&style->fg) | (uint64_t)high << 26) * 0x9e3779b97f4a7c15ULL;

	h ^= (color_key(&style->bg) | (uint64_t)style->attrs << 26 | (uint64_t)style->link << 34) *
	     0xc2b2ae3d27d4eb4fULL;
	for (int i = 0; marks != NULL && i < TERM_MAX_CHARS - 1 && marks[i] != 0; i++)
		h = (h ^ marks[i]) * 0x100000001b3ULL;
	return (uint32_t)(h ^ h >> 32);
}

/* marks: NULL or 0-terminated within TERM_MAX_CHARS - 1. */
static bool look_equal(const struct tty_look *look, const struct term_style *style,
		       const uint32_t *marks, uint32_t high)
{
	if (look->high != high || !style_equal(&look->style, style))
		return false;
	for (int i = 0; i < TERM_MAX_CHARS - 1; i++) {
		uint32_t m = marks != NULL ? marks[i] : 0;

		if (look->marks[i] != m)
			return false;
		if (m == 0)
			break;
	}
	return true;
}

static void look_slot_add(struct tty *tty, uint32_t id)
{
	const struct tty_look *look = &tty->looks[id];
	uint32_t mask = tty->nslots - 1, i = look_hash(&look->style, look->marks, look->high) & mask;

	while (tty->look_slots[i] != 0)
		i = (i + 1) & mask;
	tty->look_slots[i] = id + 1;
}

/* Room for cap looks, the slots twice as many. */
static void looks_resize(struct tty *tty, uint32_t cap)
{
	tty->looks_cap = cap;
	tty->looks = xrealloc(tty->looks, cap * sizeof(*tty->looks));
	tty->nslots = cap * 2;
	free(tty->look_slots);
	tty->look_slots = xcalloc(tty->nslots, sizeof(*tty->look_slots));
	for (uint32_t id = 0; id < tty->nlooks; id++)
		look_slot_add(tty, id);
}

/* Keep only the looks a cell of want or shown names (and look 0, the
 * default), numbered again: a screen names at most one look a cell,
 * so the table stays within a few screens' worth whatever the panes'
 * colours were. */
static void looks_collect(struct tty *tty)
{
	size_t n = (size_t)tty->rows * tty->cols;
	uint32_t *renumber = xcalloc(tty->nlooks, sizeof(*renumber)); /* new id + 1 */
	struct tty_look *old = tty->looks;
	struct tty_cell *screens[2] = {tty->want, tty->shown};
	uint32_t cap = 64;

	tty->looks = xmalloc(tty->looks_cap * sizeof(*tty->looks));
	tty->looks[0] = old[0];
	renumber[0] = 1;
	tty->nlooks = 1;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; screens[k] != NULL && i < n; i++) {
			uint32_t id = screens[k][i].look;

			if (renumber[id] == 0) {
				tty->looks[tty->nlooks] = old[id];
				renumber[id] = ++tty->nlooks;
			}
			screens[k][i].look = renumber[id] - 1;
		}
	free(old);
	free(renumber);
	while (cap < tty->nlooks * 2)
		cap *= 2;
	looks_resize(tty, cap);
	tty->cached = false;
}

/* The look of style, marks and a character's high part, added when new. */
static uint32_t look_find_or_add(struct tty *tty, const struct term_style *style,
				 const uint32_t *marks, uint32_t high)
{
	uint32_t mask = tty->nslots - 1, id;
	uint64_t limit = 4 * (uint64_t)tty->rows * tty->cols + 1024;

	if (limit > TTY_LOOKS_MAX)
		limit = TTY_LOOKS_MAX;
	for (uint32_t i = look_hash(style, marks, high) & mask; tty->look_slots[i] != 0;
	     i = (i + 1) & mask)
		if (look_equal(&tty->looks[tty->look_slots[i] - 1], style, marks, high))
			return tty->look_slots[i] - 1;
	if (tty->nlooks >= limit)
		looks_collect(tty);
	if (tty->nlooks == tty->looks_cap)
		looks_resize(tty, tty->looks_cap * 2);
	id = tty->nlooks++;
	memset(&tty->looks[id], 0, sizeof(tty->looks[id]));
	tty->looks[id].style = *style;
	tty->looks[id].high = high;
	for (int i = 0; marks != NULL && i < TERM_MAX_CHARS - 1 && marks[i] != 0; i++)
		tty->looks[id].marks[i] = marks[i];
	look_slot_add(tty, id);
	return id;
}

/* style (NULL: the default), marks (NULL: none) and a character's high
 * part as a look.  A pointer into tty->looks must not be passed: the
 * table may move. */
static uint32_t look_of(struct tty *tty, const struct term_style *style, const uint32_t *marks,
			uint32_t high)
{
	static const struct term_style plain;
	uint32_t id;

	if (style == NULL)
		style = &plain;
	if (marks != NULL && marks[0] != 0)
		return look_find_or_add(tty, style, marks, high);
	if (high == 0 && style_equal(style, &plain))
		return 0;
	if (tty->cached && tty->cached_high == high && style_equal(&tty->cached_style, style))
		return tty->cached_look;
	id = look_find_or_add(tty, style, NULL, high);
	tty->cached_style = *style;
	tty->cached_high = high;
	tty->cached_look = id;
	tty->cached = true;
	return id;
}

static struct tty_cell cell_pack(struct tty *tty, const struct term_cell *cell)
{
	uint32_t ch = cell->chars[0];
	struct tty_cell packed = {.low = ch & 0xff, .width = cell->width & 3};

	packed.look = look_of(tty, &cell->style, ch != 0 ? cell->chars + 1 : NULL, ch >> 8);
	return packed;
}

static void cell_unpack(const struct tty *tty, const struct tty_cell *packed, struct term_cell *cell)
{
	const struct tty_look *look = &tty->looks[packed->look];

	memset(cell, 0, sizeof(*cell));
	cell->chars[0] = look->high << 8 | packed->low;
	if (cell->chars[0] != 0)
		memcpy(cell->chars + 1, look->marks, sizeof(look->marks));
	cell->width = (uint8_t)packed->width;
	cell->style = look->style;
}

void tty_want_cell(const struct tty *tty, int row, int col, struct term_cell *cell)
{
	cell_unpack(tty, &tty->want[(size_t)row * tty->cols + col], cell);
}

/* Looks are kept once each, so equal cells have equal looks. */
static bool cell_equal(const struct tty_cell *a, const struct tty_cell *b)
{
	return a->look == b->look && a->low == b->low && a->width == b->width;
}

static void blank(struct tty *tty, struct tty_cell *cell, const struct term_style *style)
{
	uint32_t look = look_of(tty, style, NULL, 0);

	cell->low = 0;
	cell->look = look;
	cell->width = 1;
}

/* A blank in the cell's own style (its look's, less the character's
 * high part). */
static void blank_keep_style(struct tty *tty, struct tty_cell *cell)
{
	struct term_style style = tty->looks[cell->look].style;

	blank(tty, cell, &style);
}

static bool blank_default(const struct tty_cell *cell)
{
	return cell->width == 1 && cell->low == 0 && cell->look == 0;
}

static void fill_blank(struct tty_cell *cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cells[i] = (struct tty_cell){.low = 0, .look = 0, .width = 1};
}

static void mark_unknown(struct tty_cell *cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cells[i] = (struct tty_cell){.low = 0, .look = 0, .width = UNKNOWN};
}

/* ---- the pen and the cursor ---- */

/* A colour's sequence: the terminal's setaf/setab for palette colours it
 * counts, ISO 8613-6's 38;5 / 38;2 forms beyond (as tmux does for
 * terminals that say RGB or Tc). */
static void put_color(struct tty *tty, const struct term_color *color, bool fg)
{
	char buf[32];

	if (color->kind == TERM_COLOR_PALETTE && tty->term.colors <= 256 &&
	    put_cap(tty, fg ? TTYC_SETAF : TTYC_SETAB, color->index, 0, 0))
		return;
	if (color->kind == TERM_COLOR_PALETTE)
		snprintf(buf, sizeof(buf), "\033[%d;5;%dm", fg ? 38 : 48, color->index);
	else
		snprintf(buf, sizeof(buf), "\033[%d;2;%d;%d;%dm", fg ? 38 : 48, color->r, color->g,
			 color->b);
	put_str(tty, buf);
}

static const struct {
	uint8_t attr;
	enum tty_cap cap;
} attr_caps[] = {
    {TERM_ATTR_BOLD, TTYC_BOLD},      {TERM_ATTR_DIM, TTYC_DIM},     {TERM_ATTR_ITALIC, TTYC_SITM},
    {TERM_ATTR_UNDERLINE, TTYC_SMUL}, {TERM_ATTR_BLINK, TTYC_BLINK}, {TERM_ATTR_REVERSE, TTYC_REV},
    {TERM_ATTR_CONCEAL, TTYC_INVIS},  {TERM_ATTR_STRIKE, TTYC_SMXX},
};

/* OSC 8 for link (0 closes the open one).  SGR leaves links alone, so
 * the open link is kept apart from the pen's attributes. */
static void set_link(struct tty *tty, int link)
{
	if (!tty->term.hyperlinks || tty->link == link)
		return;
	put_str(tty, "\033]8;");
	if (link > 0 && link <= tty->nlinks)
		put_str(tty, tty->links[link - 1]);
	else
		put_str(tty, ";");
	put_str(tty, "\033\\");
	tty->link = link;
}

static void pen_reset(struct tty *tty)
{
	int link = tty->link;

	if (!put_cap(tty, TTYC_SGR0, 0, 0, 0))
		put_str(tty, "\033[m");
	memset(&tty->pen, 0, sizeof(tty->pen));
	tty->pen.link = (uint16_t)(link > 0 ? link : 0);
	tty->pen_known = true;
}

/* Attributes go on one by one; only sgr0 takes them off, so a style
 * that drops one (or a colour back to the default) starts from a reset. */
static void set_pen(struct tty *tty, const struct term_style *style)
{
	struct term_style want = *style;
	uint8_t add;

	want.fg = tty_color_reduce(&tty->term, &style->fg);
	want.bg = tty_color_reduce(&tty->term, &style->bg);
	if (tty->pen_known && style_equal(&tty->pen, &want) &&
	    (!tty->term.hyperlinks || tty->link == want.link))
		return;
	if (!tty->pen_known || (tty->pen.attrs & ~want.attrs) != 0 ||
	    (want.fg.kind == TERM_COLOR_DEFAULT && tty->pen.fg.kind != TERM_COLOR_DEFAULT) ||
	    (want.bg.kind == TERM_COLOR_DEFAULT && tty->pen.bg.kind != TERM_COLOR_DEFAULT))
		pen_reset(tty);
	add = want.attrs & ~tty->pen.attrs;
	for (size_t i = 0; i < sizeof(attr_caps) / sizeof(attr_caps[0]); i++)
		if (add & attr_caps[i].attr)
			put_cap(tty, attr_caps[i].cap, 0, 0, 0);
	if (!color_equal(&want.fg, &tty->pen.fg))
		put_color(tty, &want.fg, true);
	if (!color_equal(&want.bg, &tty->pen.bg))
		put_color(tty, &want.bg, false);
	set_link(tty, want.link);
	tty->pen = want;
}

static void move_to(struct tty *tty, int row, int col)
{
	if (tty->row == row && tty->col == col)
		return;
	if (row == tty->row && col == 0 && tty->col >= 0)
		put_str(tty, "\r");
	else
		put_cap(tty, TTYC_CUP, row, col, 0);
	tty->row = row;
	tty->col = col;
}

static void set_cursor_shown(struct tty *tty, bool visible)
{
	if (tty->cursor_shown == (int)visible)
		return;
	put_cap(tty, visible ? TTYC_CNORM : TTYC_CIVIS, 0, 0, 0);
	tty->cursor_shown = visible;
}

/* ---- the difference ---- */

static char ascii_glyph(uint32_t cp)
{
	switch (cp) {
	case 0x2502: /* │ */
		return '|';
	case 0x2500: /* ─ */
		return '-';
	case 0x250c:
	case 0x2510:
	case 0x2514:
	case 0x2518: /* corners */
	case 0x252c:
	case 0x2534:
	case 0x251c:
	case 0x2524:
	case 0x253c: /* junctions */
		return '+';
	default:
		return '?';
	}
}

/* Write want's cell at row, col (its left half when col is a right
 * half's) and account for it in shown; returns the next column. */
static int write_cell(struct tty *tty, int row, int col)
{
	struct tty_cell *w = want_at(tty, row, col), *s = shown_at(tty, row, col);
	struct tty_cell packed = *w;
	struct term_cell cell;
	int width = packed.width == 2 ? 2 : 1;
	char utf8[4 * TERM_MAX_CHARS];
	size_t n = 0;

	if (width == 2 && col == tty->cols - 1) {
		blank_keep_style(tty, &packed);
		width = 1;
	}
	cell_unpack(tty, &packed, &cell);
	if (row == tty->rows - 1 && col + width == tty->cols && tty->term.am && !tty->term.xenl) {
		/* The bottom right cell would scroll this terminal. */
		*s = packed;
		return col + width;
	}
	move_to(tty, row, col);
	set_pen(tty, &cell.style);
	if (cell.chars[0] == 0) {
		utf8[n++] = ' ';
	} else if (tty->term.ascii && cell.chars[0] > 0x7e) {
		/* A border in ASCII, as tmux draws one where the terminal has
		 * no line drawing; '?' for anything else it cannot show. */
		utf8[n++] = ascii_glyph(cell.chars[0]);
		if (width == 2)
			utf8[n++] = '?';
	} else {
		for (int i = 0; i < TERM_MAX_CHARS && cell.chars[i] != 0; i++)
			n += term_utf8_encode(cell.chars[i], utf8 + n);
	}
	put(tty, utf8, n);
	/* A narrow character over a wide one erases its right half too. */
	if (width == 1 && s->width == 2 && col + 1 < tty->cols)
		mark_unknown(s + 1, 1);
	/* A wide one over the left half of another erases that one too. */
	if (width == 2 && col + 2 < tty->cols && s[1].width == 2)
		mark_unknown(s + 2, 1);
	*s = packed;
	if (width == 2)
		s[1] = w[1];
	tty->col = col + width;
	if (tty->col >= tty->cols)
		tty->col = -1; /* pending wrap: where the cursor is depends on the terminal */
	return col + width;
}

/* Whether want's row from col on is default blanks while shown's is not
 * all the same: one erase to the end of the line does it. */
static bool erase_rest(struct tty *tty, int row, int col)
{
	bool differs = false;

	if (tty->term.caps[TTYC_EL] == NULL)
		return false;
	for (int c = col; c < tty->cols; c++) {
		if (!blank_default(want_at(tty, row, c)))
			return false;
		if (!cell_equal(want_at(tty, row, c), shown_at(tty, row, c)))
			differs = true;
	}
	return differs && tty->cols - col > 4;
}

static void draw_row(struct tty *tty, int row)
{
	int col = 0;

	while (col < tty->cols) {
		struct tty_cell *w = want_at(tty, row, col), *s = shown_at(tty, row, col);

		if (cell_equal(w, s)) {
			col++;
			continue;
		}
		/* Writing into the right half of a wide character erases its
		 * left half: write from there.  A right half wanted alone
		 * (its wide character unchanged) is written with it. */
		if (col > 0 && (s->width == 0 || w->width == 0) &&
		    shown_at(tty, row, col - 1)->width != 1) {
			col = write_cell(tty, row, col - 1);
			continue;
		}
		if (w->width == 0) {
			/* A blank in its style (a right half's look has no marks
			 * and no character). */
			w->width = 1;
		}
		if (erase_rest(tty, row, col)) {
			static const struct term_style plain;

			move_to(tty, row, col);
			set_pen(tty, &plain);
			put_cap(tty, TTYC_EL, 0, 0, 0);
			fill_blank(s, (size_t)(tty->cols - col));
			return;
		}
		col = write_cell(tty, row, col);
	}
}

static void redraw_start(struct tty *tty)
{
	set_link(tty, 0);
	pen_reset(tty);
	put_cap(tty, TTYC_CLEAR, 0, 0, 0);
	fill_blank(tty->shown, (size_t)tty->rows * tty->cols);
	tty->row = tty->col = 0;
	tty->redraw = false;
	tty->redraws++;
}

/* Only the rows composed into since their last flush are compared:
 * an echo's flush looks at one row, not the screen. */
static void compose_difference(struct tty *tty)
{
	bool all = tty->redraw;

	if (tty->redraw && tty->term.caps[TTYC_CLEAR] != NULL)
		redraw_start(tty);
	for (int row = 0; row < tty->rows; row++) {
		if (!all && !tty->dirty[row])
			continue;
		draw_row(tty, row);
		tty->dirty[row] = false;
	}
	if (tty->want_cursor)
		move_to(tty, tty->want_row, tty->want_col);
	set_cursor_shown(tty, tty->want_cursor);
}

void tty_flush(struct tty *tty)
{
	if (tty_pending(tty) > tty->bound)
		tty->blocked = true;
	if (!tty->blocked && tty->started)
		compose_difference(tty);
	tty_write_out(tty);
}

int tty_write_out(struct tty *tty)
{
	for (;;) {
		while (tty->sent < tty->len) {
			ssize_t n = write(tty->fd, tty->out + tty->sent, tty->len - tty->sent);

			if (n > 0) {
				tty->sent += (size_t)n;
				tty->bytes_written += (uint64_t)n;
			} else if (n < 0 && errno == EINTR) {
				continue;
			} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				return 1;
			} else {
				return -1;
			}
		}
		tty->len = tty->sent = 0;
		/* A screenful's buffer goes back once written: an idle
		 * client keeps no more than an echo's. */
		if (tty->cap > OUT_KEEP) {
			free(tty->out);
			tty->out = NULL;
			tty->cap = 0;
		}
		if (!tty->blocked)
			return 0;
		/* Drained after falling behind: the merged damage, once. */
		tty->blocked = false;
		if (tty->started)
			compose_difference(tty);
	}
}

/* ---- life ---- */

static void allocate(struct tty *tty, int rows, int cols)
{
	size_t n;

	tty->cols = cols < 1 ? 1 : cols > CELLS_MAX ? CELLS_MAX : cols;
	tty->rows = rows < 1 ? 1 : rows > CELLS_MAX / tty->cols ? CELLS_MAX / tty->cols : rows;
	n = (size_t)tty->rows * tty->cols;
	tty->want = xrealloc(tty->want, n * sizeof(*tty->want));
	tty->shown = xrealloc(tty->shown, n * sizeof(*tty->shown));
	tty->dirty = xrealloc(tty->dirty, (size_t)tty->rows * sizeof(*tty->dirty));
	fill_blank(tty->want, n);
	mark_unknown(tty->shown, n);
	if (tty->looks == NULL) {
		tty->looks = xcalloc(1, sizeof(*tty->looks));
		tty->looks_cap = tty->nlooks = 1;
	}
	looks_collect(tty); /* none named but the default */
	tty->bound = n * BOUND_PER_CELL;
	if (tty->bound < BOUND_MIN)
		tty->bound = BOUND_MIN;
	tty->want_row = tty->want_col = 0;
	tty_invalidate(tty);
}

struct tty *tty_new(int fd, struct tty_term *tt, int rows, int cols)
{
	struct tty *tty = xcalloc(1, sizeof(*tty));
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	tty->fd = fd;
	tty->term = *tt;
	memset(tt, 0, sizeof(*tt));
	allocate(tty, rows, cols);
	return tty;
}

void tty_free(struct tty *tty)
{
	if (tty == NULL)
		return;
	tty_term_free(&tty->term);
	for (int i = 0; i < tty->nlinks; i++)
		free(tty->links[i]);
	free(tty->links);
	free(tty->link_slots);
	free(tty->want);
	free(tty->shown);
	free(tty->dirty);
	free(tty->looks);
	free(tty->look_slots);
	free(tty->out);
	free(tty);
}

void tty_invalidate(struct tty *tty)
{
	tty->redraw = true;
	tty->link = -1;
	tty->row = tty->col = -1;
	tty->cursor_shown = -1;
	tty->pen_known = false;
	mark_unknown(tty->shown, (size_t)tty->rows * tty->cols);
	for (int row = 0; row < tty->rows; row++)
		tty->dirty[row] = true;
}

void tty_resize(struct tty *tty, int rows, int cols)
{
	allocate(tty, rows, cols);
}

/* The mouse: presses, releases and motion with a button held (1000,
 * 1002), reported in SGR's encoding (1006), as tmux asks; and focus
 * in and out (1004), for the programs that watch it. */
#define MOUSE_ON "\033[?1000h\033[?1002h\033[?1006h\033[?1004h"
#define MOUSE_OFF "\033[?1004l\033[?1006l\033[?1002l\033[?1000l"

void tty_start(struct tty *tty)
{
	put_cap(tty, TTYC_SMCUP, 0, 0, 0);
	put_cap(tty, TTYC_SMKX, 0, 0, 0);
	put(tty, MOUSE_ON, strlen(MOUSE_ON));
	tty_invalidate(tty);
	tty->started = true;
}

void tty_stop(struct tty *tty)
{
	set_link(tty, 0);
	pen_reset(tty);
	put_cap(tty, TTYC_CNORM, 0, 0, 0);
	put(tty, MOUSE_OFF, strlen(MOUSE_OFF));
	put_cap(tty, TTYC_RMKX, 0, 0, 0);
	put_cap(tty, TTYC_RMCUP, 0, 0, 0);
	tty->cursor_shown = 1;
	tty->started = false;
}

/* ---- composing ---- */

int tty_char_width(uint32_t cp)
{
	/* wcwidth answers for the thread's locale; the server's is C. */
	static locale_t utf8;
	locale_t before;
	int width;

	/* Printable ASCII, most of what is drawn, without a locale switch. */
	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (utf8 == (locale_t)0)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (utf8 == (locale_t)0)
		return 1;
	before = uselocale(utf8);
	width = wcwidth((wchar_t)cp);
	uselocale(before);
	return width < 0 ? 1 : width;
}

/* Make room in want for a cell `width` wide at row, col: a wide
 * character cut in half becomes a blank on both sides. */
static struct tty_cell *make_room(struct tty *tty, int row, int col, int width)
{
	struct tty_cell *w = want_at(tty, row, col);

	tty->dirty[row] = true;
	if (w->width == 0 && col > 0 && w[-1].width == 2)
		blank_keep_style(tty, &w[-1]);
	if (w[width - 1].width == 2 && col + width < tty->cols)
		blank_keep_style(tty, &w[width]);
	return w;
}

void tty_set_cell(struct tty *tty, int row, int col, const struct term_cell *cell)
{
	struct tty_cell *w, packed;
	bool fits = cell->width != 2 || col + 1 < tty->cols;

	if (row < 0 || row >= tty->rows || col < 0 || col >= tty->cols)
		return;
	w = make_room(tty, row, col, cell->width == 2 && fits ? 2 : 1);
	if (!fits) {
		/* No room for both halves. */
		blank(tty, w, &cell->style);
		return;
	}
	packed = cell_pack(tty, cell);
	*w = packed;
	if (cell->width == 2) {
		blank(tty, &w[1], &cell->style);
		w[1].width = 0;
	} else if (cell->width != 1) {
		w->width = 1;
	}
}

void tty_fill(struct tty *tty, int row, int col, int n, const struct term_style *style)
{
	if (row < 0 || row >= tty->rows)
		return;
	for (int c = col < 0 ? 0 : col; c < col + n && c < tty->cols; c++)
		blank(tty, make_room(tty, row, c, 1), style);
}

int tty_put_text(struct tty *tty, int row, int col, const char *utf8,
		 const struct term_style *style)
{
	size_t len = strlen(utf8), at = 0;
	int start = col, last = -1;

	while (at < len && col < tty->cols) {
		uint32_t cp;
		size_t n = term_utf8_decode(utf8 + at, len - at, &cp);
		int width;
		struct term_cell cell;

		if (n == 0) {
			cp = '?';
			n = 1;
		}
		at += n;
		width = tty_char_width(cp);
		if (width == 0 && last >= 0) {
			struct term_cell prev;
			int i = 1;

			if (row < 0 || row >= tty->rows)
				continue;
			tty_want_cell(tty, row, last, &prev);
			while (i < TERM_MAX_CHARS - 1 && prev.chars[i] != 0)
				i++;
			if (i < TERM_MAX_CHARS - 1) {
				struct tty_cell packed;

				prev.chars[i] = cp;
				packed = cell_pack(tty, &prev);
				*want_at(tty, row, last) = packed;
			}
			tty->dirty[row] = true;
			continue;
		}
		if (width != 2)
			width = 1;
		if (col + width > tty->cols)
			break;
		memset(&cell, 0, sizeof(cell));
		if (style != NULL)
			cell.style = *style;
		cell.chars[0] = cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? '?' : cp;
		cell.width = (uint8_t)width;
		if (row >= 0 && row < tty->rows)
			tty_set_cell(tty, row, col, &cell);
		last = col;
		col += width;
	}
	return col - start;
}

void tty_set_cursor(struct tty *tty, int row, int col, bool visible)
{
	tty->want_row = row < 0 ? 0 : row >= tty->rows ? tty->rows - 1 : row;
	tty->want_col = col < 0 ? 0 : col >= tty->cols ? tty->cols - 1 : col;
	tty->want_cursor = visible;
}

/* ---- hyperlinks ---- */

/* Printable ASCII without spaces (and without ';' in params): what an
 * OSC 8 may carry to the terminal; no control can end the OSC early or
 * follow it. */
static bool link_text_ok(const char *text, size_t len, bool params)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c <= 0x20 || c >= 0x7f || (params && c == ';'))
			return false;
	}
	return true;
}

#define LINK_SLOTS (2 * TTY_LINKS_MAX) /* a power of two, at most half full */

static size_t link_hash(const char *params, size_t params_len, const char *uri)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < params_len; i++)
		h = (h ^ (unsigned char)params[i]) * 16777619u;
	h = (h ^ ';') * 16777619u;
	for (const char *c = uri; *c != 0; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	return h & (LINK_SLOTS - 1);
}

uint16_t tty_link(struct tty *tty, const char *uri, const char *params)
{
	size_t uri_len = uri ? strlen(uri) : 0, params_len, slot;
	char *entry;

	if (params == NULL)
		params = "";
	params_len = strlen(params);
	if (!tty->term.hyperlinks || uri_len == 0 || uri_len > TTY_LINK_URI_MAX ||
	    params_len > TTY_LINK_PARAMS_MAX || !link_text_ok(uri, uri_len, false) ||
	    !link_text_ok(params, params_len, true))
		return 0;
	if (tty->link_slots == NULL)
		tty->link_slots = xcalloc(LINK_SLOTS, sizeof *tty->link_slots);
	for (slot = link_hash(params, params_len, uri); tty->link_slots[slot] != 0;
	     slot = (slot + 1) & (LINK_SLOTS - 1)) {
		const char *at = tty->links[tty->link_slots[slot] - 1];

		if (strncmp(at, params, params_len) == 0 && at[params_len] == ';' &&
		    strcmp(at + params_len + 1, uri) == 0)
			return tty->link_slots[slot];
	}
	if (tty->nlinks == TTY_LINKS_MAX)
		return 0;
	entry = xmalloc(params_len + uri_len + 2);
	memcpy(entry, params, params_len);
	entry[params_len] = ';';
	memcpy(entry + params_len + 1, uri, uri_len + 1);
	tty->links = xrealloc(tty->links, (size_t)(tty->nlinks + 1) * sizeof *tty->links);
	tty->links[tty->nlinks++] = entry;
	tty->link_slots[slot] = (uint16_t)tty->nlinks;
	return (uint16_t)tty->nlinks;
}
