/*
 * screen-draw: an attached client's screen, composed by the server.
 *
 * Every draw composes the whole screen into the tty's wanted cells: the
 * active window's panes straight from their grids (a pane in state
 * error as its FAILED banner, never as cells, so a failed sandbox can
 * never look like a live shell), a title line above each pane (row
 * y-1), one-column borders between panes side by side with junctions
 * chosen from their neighbours (as tmux's screen-redraw does), and the
 * status line.  The tty writes only what differs from what the terminal
 * shows, so composing all of it costs the terminal nothing.
 *
 * Text any program chose (titles, window names, working directories)
 * goes through the sanitiser first: nothing a pane writes reaches the
 * outer terminal but as cells.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bindings.h"
#include "command.h"
#include "config.h"
#include "format.h"
#include "sanitise.h"
#include "screen-draw.h"
#include "server-choose.h"
#include "server-copy.h"
#include "server.h"
#include "term.h"
#include "theme.h"
#include "tty.h"
#include "xalloc.h"

struct canvas {
	struct tty *tty;
	struct session *session;
	const struct config *config;
	const struct theme *theme;
	const struct screen_overlay *overlay;
	int rows; /* rows for panes: the tty's less the status line */
	bool zoomed;
};

/* Without colours (NO_COLOR) the chrome still tells its parts apart:
 * labels and banners reversed, the active border and title bold. */
static unsigned screen_no_color_attrs(enum theme_slot slot)
{
	switch (slot) {
	case THEME_BORDER_ACTIVE:
	case THEME_TITLE_ACTIVE:
	case THEME_TITLE_VIOLATIONS:
	case THEME_TITLE_ZOOM:
	case THEME_HELP_KEY:
		return THEME_ATTR_BOLD;
	case THEME_LABEL_NONE:
	case THEME_LABEL_NATIVE:
	case THEME_LABEL_MICROVM:
	case THEME_BANNER_FAILED:
	case THEME_STATUS_ERROR:
		return THEME_ATTR_REVERSE | THEME_ATTR_BOLD;
	case THEME_BORDER_INACTIVE:
	case THEME_TITLE_TEXT:
	case THEME_HELP_TEXT:
	case THEME_LABEL_PENDING:
		return 0;
	default:
		return THEME_ATTR_REVERSE;
	}
}

static struct term_style slot_style(const struct canvas *cv, enum theme_slot slot)
{
	const struct theme_style *ts = &cv->theme->slots[slot];
	struct term_style style;

	memset(&style, 0, sizeof(style));
	if (cv->overlay->no_color) {
		style.attrs = (uint8_t)(ts->attrs | screen_no_color_attrs(slot));
		return style;
	}
	/* The theme's colours and attribute bits are the emulator's. */
	style.fg = (struct term_color){ts->fg.kind, ts->fg.index, ts->fg.r, ts->fg.g, ts->fg.b};
	style.bg = (struct term_color){ts->bg.kind, ts->bg.index, ts->bg.r, ts->bg.g, ts->bg.b};
	style.attrs = (uint8_t)ts->attrs;
	return style;
}

/* Text at y, x, at most width columns, sanitised; returns the columns used. */
static int put(struct canvas *cv, int y, int x, int width, const char *text, enum theme_slot slot)
{
	struct term_style style = slot_style(cv, slot);
	char *clean = sanitise_text(text);
	size_t at = 0, len = strlen(clean);
	int used = 0;

	/* The longest start of the text that fits in width columns. */
	while (at < len) {
		uint32_t cp;
		size_t n = term_utf8_decode(clean + at, len - at, &cp);
		int w = n ? tty_char_width(cp) : 1;

		if (used + w > width)
			break;
		used += w;
		at += n ? n : 1;
	}
	clean[at] = '\0';
	used = width > 0 ? tty_put_text(cv->tty, y, x, clean, &style) : 0;
	free(clean);
	return used;
}

static int text_columns(const char *text)
{
	int columns = 0;

	for (size_t at = 0, len = strlen(text); at < len;) {
		uint32_t cp;
		size_t n = term_utf8_decode(text + at, len - at, &cp);

		columns += n ? tty_char_width(cp) : 1;
		at += n ? n : 1;
	}
	return columns;
}

static void fill(struct canvas *cv, int y, int x, int width, const char *glyph,
		 enum theme_slot slot)
{
	for (int i = 0; i < width; i++)
		put(cv, y, x + i, 1, glyph, slot);
}

/* ---- titles ---- */

/* A pane's label as its title line shows it: FAILED, the backend (a
 * microvm's with its accelerator), or "starting". */
static void screen_label_text(const char *state, const char *backend, const char *accelerator,
			      char *out, size_t size)
{
	if (strcmp(state, "error") == 0)
		snprintf(out, size, "FAILED");
	else if (backend[0] != 0 && accelerator[0] != 0)
		/* The microvm label names what runs it: kvm or tcg. */
		snprintf(out, size, "%s\u00b7%s", backend, accelerator);
	else if (backend[0] != 0)
		snprintf(out, size, "%s", backend);
	else
		snprintf(out, size, "starting");
}

/* Words the title line's label is made of.  A program's title (any
 * program can set it) that holds one could pass for a label beside the
 * real one: "  native  " in a `none` pane. */
static bool label_word(const char *word, size_t len)
{
	static const char *const words[] = {"none",  "native",	 "microvm",  "kvm",
					    "tcg",   "failed",	 "starting", "suspended",
					    "agent", "terminal", "sandbox",  "sandboxed"};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == len && strncasecmp(word, words[i], len) == 0)
			return true;
	return false;
}

/* A program's title as drawn beside the label: trimmed, and quoted when
 * it holds a label's word, so that it can never pass for one. */
static void screen_title_beside_label(const char *title, char *out, size_t size)
{
	size_t len;
	bool imitates = false;

	while (*title == ' ')
		title++;
	len = strlen(title);
	while (len > 0 && title[len - 1] == ' ')
		len--;
	for (size_t i = 0; i < len && !imitates;) {
		size_t start = i;

		while (i < len && isalnum((unsigned char)title[i]))
			i++;
		imitates = i > start && label_word(title + start, i - start);
		if (i == start)
			i++;
	}
	snprintf(out, size, imitates ? "\"%.*s\"" : "%.*s", (int)len, title);
}

/* OSC 9;4 progress as the title shows it: "[42%] ", "[error 42%] ",
 * "[busy] ", "[paused 42%] "; "" when none (state 0). */
static void screen_progress_text(int state, int percent, char *out, size_t size)
{
	static const char *const states[] = {[1] = "", [2] = "error ", [4] = "paused "};

	if (state == 3)
		snprintf(out, size, "[busy] ");
	else if (state > 0 && state <= 4)
		snprintf(out, size, "[%s%d%%] ", states[state], percent);
	else
		out[0] = '\0';
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

static void draw_title(struct canvas *cv, struct pane *p, bool active)
{
	int y = p->y - 1, x = p->x, width = p->cols, used = 0, right_width;
	const char *state = sandbox_state_name(p->state);
	const char *backend = pane_backend_label(p) ? pane_backend_label(p) : "";
	const char *accelerator = p->launch.backend == SANDBOX_MICROVM && backend[0]
				      ? backend_probe_result()->microvm.accel
				      : "";
	enum theme_slot label = label_slot(state, backend);
	char name[40], text[1024], shown[512], right[64] = "", progress[32];

	if (y < 0 || y >= cv->rows)
		return;
	fill(cv, y, x, width, "\u2500", active ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE);
	screen_label_text(state, backend, accelerator, name, sizeof name);
	snprintf(text, sizeof text, " %s ", name);
	used += put(cv, y, x, width, text, label);
	if (backend[0] != 0 && strcmp(backend, "none") != 0 && p->profile[0] != 0 && used < width) {
		snprintf(text, sizeof text, "%s ", p->profile);
		used += put(cv, y, x + used, width - used, text, label);
	}
	if (p->state == SANDBOX_SUSPENDED && used < width)
		used += put(cv, y, x + used, width - used, "suspended ", label);
	if (p->violations > 0)
		snprintf(right, sizeof right, " %d denied ", p->violations);
	right_width = text_columns(right);
	if (cv->zoomed && active)
		right_width += 3;
	if (right_width > width - used - 1)
		right_width = 0;
	screen_title_beside_label(term_title(p->term), shown, sizeof shown);
	/* A notification not seen yet and OSC 9;4 progress (the notice is
	 * sanitised by put, as all text). */
	screen_progress_text(p->sent_progress_state, p->sent_progress, progress, sizeof progress);
	snprintf(text, sizeof text, " %s%s%s%s%s%s%s ", p->bell || p->notice[0] ? "! " : "",
		 p->notice, p->notice[0] ? " | " : "", progress, shown,
		 shown[0] && pane_current_path(p)[0] ? " : " : "", pane_current_path(p));
	if (strcmp(text, "  ") != 0 && width - used - right_width - 1 > 0)
		used += put(cv, y, x + used, width - used - right_width - 1, text,
			    active ? THEME_TITLE_ACTIVE : THEME_TITLE_TEXT);
	if (right_width > 0) {
		int rx = x + width - right_width - 1;

		if (right[0] != 0)
			rx += put(cv, y, rx, width, right, THEME_TITLE_VIOLATIONS);
		if (cv->zoomed && active)
			put(cv, y, rx, 3, " Z ", THEME_TITLE_ZOOM);
	}
}

/* ---- panes ---- */

/* A pane's cell as the tty links it: the pane's OSC 8 link (its term's
 * id) becomes the tty's id for the same URI, or none. */
static void link_cell(struct canvas *cv, const struct pane *p, struct term_cell *cell)
{
	const char *params = NULL, *uri;

	if (cell->style.link == 0)
		return;
	uri = term_link(p->term, cell->style.link, &params);
	cell->style.link = uri != NULL ? tty_link(cv->tty, uri, params) : 0;
}

static void draw_row(struct canvas *cv, struct pane *p, int row)
{
	for (int col = 0; col < p->cols && p->x + col < cv->tty->cols; col++) {
		struct term_cell cell;

		if (!term_get_cell(p->term, row, col, &cell) || cell.width == 0)
			continue;
		for (int i = 0; i < TERM_MAX_CHARS && cell.chars[i] != 0; i++)
			cell.chars[i] = sanitise_codepoint(cell.chars[i]);
		if (cell.width == 2 && col + 1 >= p->cols)
			cell.chars[0] = 0, cell.width = 1;
		link_cell(cv, p, &cell);
		tty_set_cell(cv->tty, p->y + row, p->x + col, &cell);
	}
}

static void draw_cells(struct canvas *cv, struct pane *p)
{
	for (int row = 0; row < p->rows && p->y + row < cv->rows; row++)
		draw_row(cv, p, row);
}

static bool copying(const struct canvas *cv, const struct pane *p)
{
	const struct server_copy *copy = cv->overlay->copy;

	return copy != NULL && copy->active && copy->pane == p->id;
}

/* A pane in copy mode: the view copy mode has, not the live grid. */
static void draw_copy_cells(struct canvas *cv, struct pane *p)
{
	const struct server_copy *copy = cv->overlay->copy;
	struct term_cell *cells = xmalloc((size_t)copy->cols * sizeof *cells);
	bool *selected = xmalloc((size_t)copy->cols * sizeof *selected);
	bool *matched = xmalloc((size_t)copy->cols * sizeof *matched);
	struct term_style sel = slot_style(cv, THEME_COPY_SELECTION);
	struct term_style match = slot_style(cv, THEME_COPY_MATCH);
	int cols = p->cols < copy->cols ? p->cols : copy->cols;
	char position[64];

	for (int row = 0; row < p->rows && row < copy->rows && p->y + row < cv->rows; row++) {
		server_copy_row(copy, p, row, cells, selected, matched);
		for (int col = 0; col < cols && p->x + col < cv->tty->cols; col++) {
			struct term_cell cell = cells[col];

			if (cell.width == 0)
				continue;
			for (int i = 0; i < TERM_MAX_CHARS && cell.chars[i] != 0; i++)
				cell.chars[i] = sanitise_codepoint(cell.chars[i]);
			if (cell.width == 2 && col + 1 >= cols)
				cell.chars[0] = 0, cell.width = 1;
			link_cell(cv, p, &cell);
			if (selected[col] || matched[col])
				cell.style = selected[col] ? sel : match;
			tty_set_cell(cv->tty, p->y + row, p->x + col, &cell);
		}
	}
	server_copy_position(copy, position, sizeof position);
	int width = text_columns(position);
	if (width <= p->cols && p->y < cv->rows)
		put(cv, p->y, p->x + p->cols - width, width, position, THEME_COPY_POSITION);
	free(cells);
	free(selected);
	free(matched);
}

/* Word-wrapped text from *y on, inside the pane less a column each side. */
static void banner_wrapped(struct canvas *cv, struct pane *p, int *y, const char *prefix,
			   const char *text, enum theme_slot slot)
{
	char joined[1200];
	int width = p->cols - 2;
	size_t at = 0, len;

	if (text == NULL || text[0] == 0 || width < 1)
		return;
	snprintf(joined, sizeof joined, "%s%s", prefix, text);
	len = strlen(joined);
	while (at < len && *y < p->y + p->rows) {
		size_t take = 0, last_space = 0;
		char line[1200];

		while (at + take < len && (int)take < width) {
			if (joined[at + take] == ' ')
				last_space = take;
			take++;
		}
		if (at + take < len && last_space > 0)
			take = last_space + 1;
		memcpy(line, joined + at, take);
		line[take] = 0;
		put(cv, *y, p->x + 1, width, line, slot);
		at += take;
		(*y)++;
	}
}

/* Invariant 2: a pane that could not be wrapped shows why, in red, and
 * nothing that could pass for a shell. */
static void draw_failed_banner(struct canvas *cv, struct pane *p)
{
	char title[128];
	const char *requested = sandbox_backend_name(p->requested);
	int y = p->y;

	for (int row = 0; row < p->rows && p->y + row < cv->rows; row++)
		fill(cv, p->y + row, p->x, p->cols, " ", THEME_BANNER_TEXT);
	if (p->rows > 4)
		y += (p->rows - 4) / 3;
	snprintf(title, sizeof title, "FAILED: %s%ssandbox could not start", requested,
		 requested[0] ? " " : "");
	banner_wrapped(cv, p, &y, "", title, THEME_BANNER_FAILED);
	banner_wrapped(cv, p, &y, "reason: ", p->reason[0] ? p->reason : "unknown",
		       THEME_BANNER_TEXT);
	banner_wrapped(cv, p, &y, "hint: ", p->hint, THEME_BANNER_TEXT);
}

/* ---- borders ---- */

#define MASK_VERTICAL 1
#define MASK_HORIZONTAL 2
#define MASK_ACTIVE 4

/* A pane of the tiled layer (or the zoomed one); floating panes are
 * drawn over it by draw_floats. */
static bool pane_shown(const struct window *w, const struct pane *p)
{
	return w->zoomed != NULL ? w->zoomed == p : !p->floating;
}

static bool inside_content(const struct window *w, int x, int y)
{
	for (const struct pane *p = w->panes; p != NULL; p = p->next)
		if (pane_shown(w, p) && x >= p->x && x < p->x + p->cols && y >= p->y &&
		    y < p->y + p->rows)
			return true;
	return false;
}

static const char *junction(bool up, bool down, bool left, bool right)
{
	static const char *const glyphs[16] = {
	    /* index: up 8, down 4, left 2, right 1 */
	    "\u2502", "\u2500", "\u2500", "\u2500", "\u2502", "\u250c", "\u2510", "\u252c",
	    "\u2502", "\u2514", "\u2518", "\u2534", "\u2502", "\u251c", "\u2524", "\u253c",
	};

	return glyphs[(up ? 8 : 0) | (down ? 4 : 0) | (left ? 2 : 0) | (right ? 1 : 0)];
}

static void mark(uint8_t *mask, const struct canvas *cv, int x, int y, uint8_t bits)
{
	if (x >= 0 && x < cv->tty->cols && y >= 0 && y < cv->rows)
		mask[y * cv->tty->cols + x] |= bits;
}

static void draw_borders(struct canvas *cv, struct window *w)
{
	int cols = cv->tty->cols;
	uint8_t *mask = xcalloc((size_t)cols * (size_t)cv->rows, 1);

	for (struct pane *p = w->panes; p != NULL; p = p->next) {
		uint8_t active = p == w->active ? MASK_ACTIVE : 0;

		if (!pane_shown(w, p))
			continue;
		for (int x = p->x; x < p->x + p->cols; x++)
			mark(mask, cv, x, p->y - 1, MASK_HORIZONTAL | active);
		for (int y = p->y - 1; y < p->y + p->rows; y++) {
			if (p->x > 0 && !inside_content(w, p->x - 1, y))
				mark(mask, cv, p->x - 1, y, MASK_VERTICAL | active);
			if (p->x + p->cols < cols && !inside_content(w, p->x + p->cols, y))
				mark(mask, cv, p->x + p->cols, y, MASK_VERTICAL | active);
		}
	}
	for (int y = 0; y < cv->rows; y++) {
		for (int x = 0; x < cols; x++) {
			uint8_t m = mask[y * cols + x];
			bool up, down, left, right;

			if (!(m & MASK_VERTICAL))
				continue;
			up = y > 0 && (mask[(y - 1) * cols + x] & MASK_VERTICAL);
			down = y + 1 < cv->rows && (mask[(y + 1) * cols + x] & MASK_VERTICAL);
			left = x > 0 && (mask[y * cols + x - 1] & MASK_HORIZONTAL);
			right = x + 1 < cols && (mask[y * cols + x + 1] & MASK_HORIZONTAL);
			put(cv, y, x, 1, junction(up, down, left, right),
			    (m & MASK_ACTIVE) ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE);
		}
	}
	free(mask);
}

/* ---- choose mode ---- */

/* One line of the list: the whole row in the text's colours, or the
 * selection's; a pane's label in its backend's colour, its denials in
 * the title's.  Every text goes through put, the sanitiser. */
static void draw_choose_item(struct canvas *cv, int y, const struct server_choose_item *item,
			     bool selected)
{
	enum theme_slot base = selected ? THEME_COPY_SELECTION : THEME_HELP_TEXT;
	const char *mark = item->expandable ? (item->expanded ? "- " : "+ ") : "  ";
	int x = 1 + 2 * item->depth, cols = cv->tty->cols;
	char label[48], denied[32];

	fill(cv, y, 0, cols, " ", base);
	if (x >= cols)
		return;
	x += put(cv, y, x, cols - x, mark, base);
	x += put(cv, y, x, cols - x, item->before, base);
	/* A pane's label as its title line has it; a buffer's as it came. */
	if (item->violations >= 0)
		screen_label_text(item->state, item->backend, item->accelerator, label,
				  sizeof label);
	else
		snprintf(label, sizeof label, "%s", item->label);
	if (label[0] != '\0' && x < cols)
		x += put(cv, y, x, cols - x, label, label_slot(item->state, item->backend));
	if (item->violations >= 0 && x < cols) {
		snprintf(denied, sizeof denied, " %d denied", item->violations);
		x += put(cv, y, x, cols - x, denied,
			 item->violations > 0 ? THEME_TITLE_VIOLATIONS : base);
	}
	if (x < cols)
		put(cv, y, x, cols - x, item->after, base);
}

/* The list covers the window: a header with its keys, then a line per
 * shown item. */
static void draw_choose(struct canvas *cv, int rows)
{
	struct server_choose *ch = cv->overlay->choose;
	const char *header =
	    ch->kind == SERVER_CHOOSE_TREE
		? " choose-tree \u2014 Enter shows it, Left/Right collapse/expand, q leaves "
		: " choose-buffer \u2014 Enter pastes, d deletes, q leaves ";

	if (rows-- < 2)
		return;
	fill(cv, 0, 0, cv->tty->cols, " ", THEME_HELP_KEY);
	put(cv, 0, 0, cv->tty->cols, header, THEME_HELP_KEY);
	server_choose_scroll(ch, rows);
	for (int row = 0; row < rows; row++) {
		int index = server_choose_item_at(ch, row);

		if (index < 0)
			fill(cv, 1 + row, 0, cv->tty->cols, " ", THEME_HELP_TEXT);
		else
			draw_choose_item(cv, 1 + row, &ch->items[index], index == ch->selected);
	}
	tty_set_cursor(cv->tty, 0, 0, false);
}

/* ---- the status line ---- */

#define CLOCK_ROOM_MIN 12 /* columns left of status_right, or no status_right */

/* A window's name as the status line shows it: the name of the last
 * layout (w->shown; server.c's name timer sends a layout when a program
 * changes it).  An automatic name is a look at the pane's foreground
 * process (an ioctl and a /proc read): a draw makes none, so that a
 * key's echo costs no system call for it.  A window no layout has
 * named yet is looked up. */
static const char *display_name(const struct window *w, char *buf, size_t size)
{
	if (w->shown[0] != '\0')
		return w->shown;
	window_display_name(w, buf, size);
	return buf;
}

/* A status format with the time put in, as tmux does it first: what
 * the formats expand to (a title with a '%' in it) is never read by
 * strftime. */
static void status_timed(const char *text, char *out, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	if (strftime(out, size, text, &tm) == 0)
		out[0] = '\0';
}

/* What the status formats' #{...} read: the active pane's context, #W
 * as the window list shows it (its display name, in name). */
static void status_context(const struct tty *tty, struct session *s, struct format_context *ctx,
			   char *name, size_t size)
{
	struct window *w = s->active;

	memset(ctx, 0, sizeof *ctx);
	ctx->pane_id = -1;
	ctx->session_name = s->name;
	if (w != NULL && w->active != NULL) {
		format_pane_context(w->active, tty->cols, tty->rows, ctx);
		ctx->window_name = display_name(w, name, size);
	}
}

static void status_text(struct canvas *cv, const char *text, char *out, size_t size)
{
	struct format_context ctx;
	char timed[1024], window_name[64];

	status_timed(text, timed, sizeof timed);
	status_context(cv->tty, cv->session, &ctx, window_name, sizeof window_name);
	format_expand(timed, &ctx, out, size);
}

static void window_entry(struct canvas *cv, const struct window *w, char *out, size_t size)
{
	char name[64];
	bool current = w == cv->session->active;

	snprintf(out, size, "%d:%s%s%s%s", w->index, display_name(w, name, sizeof name),
		 current ? (cv->zoomed ? "*Z" : "*") : "", window_rang(w) ? "!" : "",
		 !current && window_denied(w) ? "D" : "");
}

/* Which windows the list shows, [*first, *last): all that fit in room;
 * when they do not, a run around the current window, as tmux scrolls
 * its list, with a column kept on each cut side for the < or > mark. */
static void window_range(const int *widths, size_t n, size_t active, int room, size_t *first,
			 size_t *last)
{
	int used = 0;

	for (size_t i = 0; i < n; i++)
		used += widths[i];
	*first = 0;
	*last = n;
	if (used <= room)
		return;
	*first = active;
	*last = active + 1;
	used = widths[active];
	for (bool grew = true; grew;) {
		/* Each side still cut costs its mark's column. */
		int marks = (*first > 0) + (*last < n);

		grew = false;
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

static void draw_status_windows(struct canvas *cv, int y, int *x, int limit)
{
	int widths[1024];
	char(*entries)[160];
	size_t n = 0, active = 0, first, last;

	for (struct window *w = cv->session->windows; w != NULL && n < 1024; w = w->next)
		n++;
	if (n == 0)
		return;
	/* Each entry made once: a name can cost a look at /proc. */
	entries = xmalloc(n * sizeof *entries);
	n = 0;
	for (struct window *w = cv->session->windows; w != NULL && n < 1024; w = w->next) {
		if (w == cv->session->active)
			active = n;
		window_entry(cv, w, entries[n], sizeof entries[n]);
		widths[n] = text_columns(entries[n]) + 1;
		n++;
	}
	window_range(widths, n, active, limit - *x, &first, &last);
	if (first > 0 && *x < limit)
		*x += put(cv, y, *x, limit - *x, "<", THEME_STATUS_BAR);
	for (size_t i = first; i < last && *x < limit; i++) {
		*x += put(cv, y, *x, limit - *x, entries[i],
			  i == active ? THEME_STATUS_CURRENT : THEME_STATUS_WINDOW);
		if (*x < limit)
			*x += put(cv, y, *x, limit - *x, " ", THEME_STATUS_BAR);
	}
	if (last < n && *x < limit)
		*x += put(cv, y, *x, limit - *x, ">", THEME_STATUS_BAR);
	free(entries);
}

static void draw_status(struct canvas *cv)
{
	int y = cv->tty->rows - 1, x = 0, cols = cv->tty->cols, right_width, limit;
	char left[512], right[512];

	const struct screen_overlay *ov = cv->overlay;

	if (ov->prompt) {
		char before[1024];
		int at;

		/* Tab's matches: the row above the prompt, over the pane
		 * there, as tmux lists them. */
		if (ov->prompt_candidates != NULL && ov->prompt_candidates[0] != '\0' &&
		    cv->tty->rows >= 3) {
			fill(cv, y - 1, 0, cols, " ", THEME_STATUS_MESSAGE);
			put(cv, y - 1, 0, cols, ov->prompt_candidates, THEME_STATUS_MESSAGE);
		}
		fill(cv, y, 0, cols, " ", THEME_STATUS_PROMPT);
		at = put(cv, y, 0, cols, ov->prompt_label, THEME_STATUS_PROMPT);
		put(cv, y, at, cols - at, ov->prompt_text, THEME_STATUS_PROMPT);
		snprintf(before, sizeof before, "%.*s", (int)ov->prompt_cursor, ov->prompt_text);
		at += text_columns(before);
		tty_set_cursor(cv->tty, y, at < cols ? at : cols - 1, true);
		return;
	}
	if (ov->message != NULL && ov->message[0] != '\0') {
		enum theme_slot slot =
		    ov->message_error ? THEME_STATUS_ERROR : THEME_STATUS_MESSAGE;

		fill(cv, y, 0, cols, " ", slot);
		put(cv, y, 0, cols, ov->message, slot);
		return;
	}
	if (!cv->config->status)
		return;
	status_text(cv, cv->config->status_left, left, sizeof left);
	status_text(cv, cv->config->status_right, right, sizeof right);
	fill(cv, y, 0, cols, " ", THEME_STATUS_BAR);
	right_width = text_columns(right);
	if (right_width > cols / 2)
		right_width = cols / 2;
	limit = cols - right_width;
	if (limit < CLOCK_ROOM_MIN) {
		right_width = 0;
		limit = cols;
	}
	x += put(cv, y, x, limit, left, THEME_STATUS_SESSION);
	if (ov->prefix && x < limit)
		x += put(cv, y, x, limit - x, "^ ", THEME_STATUS_CURRENT);
	draw_status_windows(cv, y, &x, limit);
	if (right_width > 0)
		put(cv, y, limit, right_width, right, THEME_STATUS_CLOCK);
}

/* ---- the help overlay ---- */

/* An overlay's first line shown, kept so that its last page is full
 * (height: the box's rows, its header and bottom edge included). */
static void keep_in_range(int *offset, int lines, int height)
{
	if (*offset > lines - (height - 2))
		*offset = lines - (height - 2);
	if (*offset < 0)
		*offset = 0;
}

/* The overlay's lines: the first table's entries, then for each mode
 * table listed after it a header line and its entries. */
struct help_line {
	const struct binding_table *table;
	const struct binding *binding; /* NULL: the table's header */
};

static bool help_line_at(const struct screen_overlay *ov, int index, struct help_line *line)
{
	const struct binding_table *table = ov->help;
	size_t at = (size_t)index, next = 0;

	if (index < 0)
		return false;
	for (;;) {
		if (at < table->count) {
			line->table = table;
			line->binding = &table->entries[at];
			return true;
		}
		at -= table->count;
		if (ov->help_modes == NULL || next >= ov->help_modes->count)
			return false;
		table = &ov->help_modes->tables[next++];
		if (at == 0) {
			line->table = table;
			line->binding = NULL;
			return true;
		}
		at--;
	}
}

static int help_lines(const struct screen_overlay *ov)
{
	int lines = (int)ov->help->count;

	for (size_t i = 0; ov->help_modes != NULL && i < ov->help_modes->count; i++)
		lines += 1 + (int)ov->help_modes->tables[i].count;
	return lines;
}

static int help_command_width(const struct screen_overlay *ov)
{
	struct help_line line;
	int width = 8;

	for (int i = 0; help_line_at(ov, i, &line); i++) {
		int len = line.binding ? text_columns(line.binding->command) : 0;

		if (len > width)
			width = len;
	}
	return width > 48 ? 48 : width;
}

/* What a line's command does: a mode command's line from its table, a
 * command's summary from the command table. */
static const char *help_summary(const struct help_line *line)
{
	const struct key_table_def *def;

	if (line->table->name == NULL)
		return command_summary(line->binding->command);
	def = key_table_def_find(line->table->name, NULL);
	return def ? mode_command_summary(def, line->binding->command) : "";
}

/* Generated from the binding table, so it lists exactly what the keys
 * do, config overrides included. */
/* A command's printed output over the screen, as the help overlay. */
static void draw_view(struct canvas *cv)
{
	int *offset = cv->overlay->help_offset, lines = cv->overlay->nview;
	int width = cv->tty->cols - 4, height = cv->tty->rows - 3;
	int top = 1, left = (cv->tty->cols - width) / 2;
	char header[160];

	if (width < 20 || height < 3)
		return;
	if (height > lines + 2)
		height = lines + 2;
	keep_in_range(offset, lines, height);
	snprintf(header, sizeof header, " %s \u2014 j/k scroll, q closes ",
		 cv->overlay->view_title);
	fill(cv, top, left, width, " ", THEME_HELP_KEY);
	put(cv, top, left, width, header, THEME_HELP_KEY);
	for (int i = 0; i < height - 1; i++) {
		int y = top + 1 + i, index = *offset + i;

		fill(cv, y, left, width, " ", THEME_HELP_TEXT);
		if (index < lines)
			put(cv, y, left + 1, width - 2, cv->overlay->view[index], THEME_HELP_TEXT);
	}
	tty_set_cursor(cv->tty, 0, 0, false);
}

static void draw_help(struct canvas *cv)
{
	const struct screen_overlay *ov = cv->overlay;
	int *offset = ov->help_offset;
	/* The whole width, less a margin: descriptions are read whole on a
	 * wide terminal (tmux's list-keys fills the pane). */
	int width = cv->tty->cols - 4, height = cv->tty->rows - 3;
	int top = 1, left = (cv->tty->cols - width) / 2, lines = help_lines(ov);
	int command_width = help_command_width(ov);
	char header[128];

	/* A narrow terminal shares the line between the command and its
	 * description rather than cut the description to nothing. */
	if (command_width > (width - 12) / 2)
		command_width = (width - 12) / 2 > 8 ? (width - 12) / 2 : 8;
	if (width < 20 || height < 3)
		return;
	if (height > lines + 2)
		height = lines + 2;
	keep_in_range(offset, lines, height);
	if (ov->help->name != NULL)
		snprintf(header, sizeof header, " key table %s \u2014 j/k scroll, q closes ",
			 ov->help->name);
	else
		snprintf(header, sizeof header,
			 " key bindings (prefix %s) \u2014 j/k scroll, q closes ", ov->help_prefix);
	fill(cv, top, left, width, " ", THEME_HELP_KEY);
	put(cv, top, left, width, header, THEME_HELP_KEY);
	for (int i = 0; i < height - 1; i++) {
		int y = top + 1 + i, index = *offset + i, x = left + 1;
		const struct binding *b;
		struct help_line line;
		char title[KEY_TABLE_NAME_MAX + 32];

		fill(cv, y, left, width, " ", THEME_HELP_TEXT);
		if (!help_line_at(ov, index, &line))
			continue;
		if ((b = line.binding) == NULL) {
			snprintf(title, sizeof title, "bind -T %s:", line.table->name);
			put(cv, y, x, width - 2, title, THEME_HELP_KEY);
			continue;
		}
		put(cv, y, x, 10, b->key, THEME_HELP_KEY);
		x += 11;
		put(cv, y, x, command_width < left + width - x ? command_width : left + width - x,
		    b->command, THEME_HELP_TEXT);
		x += command_width + 2;
		if (x < left + width - 1)
			put(cv, y, x, left + width - 1 - x, help_summary(&line), THEME_HELP_TEXT);
	}
	tty_set_cursor(cv->tty, 0, 0, false);
}

/* ---- display-panes ---- */

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
 * and size when it has room, else the number in plain digits; in the
 * active border's colour on the active pane. */
static void draw_pane_number(struct canvas *cv, const struct pane *p, int number, bool active)
{
	enum theme_slot slot = active ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE;
	char digits[16], below[48];
	int ndigits = snprintf(digits, sizeof digits, "%d", number);
	int width = ndigits * BIG_DIGIT_COLS + (ndigits - 1) * 2;

	snprintf(below, sizeof below, "%%%d %dx%d", p->id, p->cols, p->rows);
	if (p->cols < width + 2 || p->rows < BIG_DIGIT_ROWS + 2) {
		int y = p->y + p->rows / 2;

		if (y < cv->rows)
			put(cv, y, p->x + (p->cols - ndigits) / 2, p->cols, digits, slot);
		return;
	}
	int top = p->y + (p->rows - BIG_DIGIT_ROWS - 1) / 2;
	int left = p->x + (p->cols - width) / 2;

	for (int row = 0; row < BIG_DIGIT_ROWS && top + row < cv->rows; row++)
		for (int d = 0; d < ndigits; d++)
			for (int cell = 0; cell < 3; cell++)
				if (big_digits[digits[d] - '0'][row][cell] == '#')
					put(cv, top + row,
					    left + d * (BIG_DIGIT_COLS + 2) + cell * 2, 2,
					    "\u2588\u2588", slot);
	if (top + BIG_DIGIT_ROWS < cv->rows && text_columns(below) <= p->cols)
		put(cv, top + BIG_DIGIT_ROWS, p->x + (p->cols - text_columns(below)) / 2, p->cols,
		    below, slot);
}

static void draw_display_panes(struct canvas *cv, struct window *w)
{
	int index = 0;

	for (struct pane *p = w->panes; p != NULL; p = p->next, index++)
		if (pane_shown(w, p) || pane_float_shown(p))
			draw_pane_number(cv, p, index, p == w->active);
}

/* ---- floating panes ---- */

#define FLOATS_MAX 64

/* Whether a floating pane above p covers x, y (p's cursor is then
 * hidden, not drawn over another pane). */
static bool under_float(struct window *w, const struct pane *p, int x, int y)
{
	struct pane *stack[FLOATS_MAX];
	int n = float_stack(w, stack, FLOATS_MAX), i = 0;

	if (p->floating) { /* only those above it */
		while (i < n && stack[i] != p)
			i++;
		i++;
	}
	for (; i < n; i++) {
		const struct layout_cell *box = stack[i]->cell;

		if (x >= box->x && x < box->x + box->w && y >= box->y && y < box->y + box->h)
			return true;
	}
	return false;
}

/* A floating pane: its box cleared, its content, its title row as
 * every pane's (label, title, denials) between the top corners, and
 * its border. */
static void draw_float(struct canvas *cv, struct pane *p, bool active)
{
	const struct layout_cell *box = p->cell;
	enum theme_slot slot = active ? THEME_BORDER_ACTIVE : THEME_BORDER_INACTIVE;
	int right = box->x + box->w - 1, bottom = box->y + box->h - 1;

	for (int y = box->y; y <= bottom && y < cv->rows; y++)
		tty_fill(cv->tty, y, box->x, box->w, NULL);
	if (p->state == SANDBOX_ERROR)
		draw_failed_banner(cv, p);
	else if (copying(cv, p))
		draw_copy_cells(cv, p);
	else
		draw_cells(cv, p);
	draw_title(cv, p, active);
	if (box->y < cv->rows) {
		put(cv, box->y, box->x, 1, "\u250c", slot);
		put(cv, box->y, right, 1, "\u2510", slot);
	}
	for (int y = box->y + 1; y < bottom && y < cv->rows; y++) {
		put(cv, y, box->x, 1, "\u2502", slot);
		put(cv, y, right, 1, "\u2502", slot);
	}
	if (bottom < cv->rows && bottom > box->y) {
		put(cv, bottom, box->x, 1, "\u2514", slot);
		fill(cv, bottom, box->x + 1, box->w - 2, "\u2500", slot);
		put(cv, bottom, right, 1, "\u2518", slot);
	}
}

static void draw_floats(struct canvas *cv, struct window *w)
{
	struct pane *stack[FLOATS_MAX];
	int n = float_stack(w, stack, FLOATS_MAX);

	for (int i = 0; i < n; i++)
		draw_float(cv, stack[i], stack[i] == w->active);
}

/* ---- the whole screen ---- */

static void place_cursor(struct canvas *cv, struct window *w)
{
	struct pane *p = w->zoomed != NULL ? w->zoomed : w->active;
	int row, col;

	for (struct pane *q = w->panes; q != NULL; q = q->next) {
		if (!(pane_shown(w, q) || pane_float_shown(q)) || !copying(cv, q))
			continue;
		/* The pane may have shrunk since copy mode froze it. */
		server_copy_cursor(cv->overlay->copy, &row, &col);
		row = row < q->rows ? row : q->rows - 1;
		col = col < q->cols ? col : q->cols - 1;
		tty_set_cursor(cv->tty, q->y + row, q->x + col, q->y + row < cv->rows);
		return;
	}
	if (p == NULL || p->state == SANDBOX_ERROR || !term_cursor_visible(p->term)) {
		tty_set_cursor(cv->tty, 0, 0, false);
		return;
	}
	term_cursor(p->term, &row, &col);
	/* Where this client's terminal does not reach (it is smaller than
	 * the session): no cursor, rather than one at the edge. */
	if (row >= p->rows || col >= p->cols || p->y + row >= cv->rows ||
	    p->x + col >= cv->tty->cols || under_float(w, p, p->x + col, p->y + row)) {
		tty_set_cursor(cv->tty, 0, 0, false);
		return;
	}
	tty_set_cursor(cv->tty, p->y + row, p->x + col, true);
}

/* A draw's canvas: the panes get the tty's rows less the status line. */
static struct canvas canvas_of(struct tty *tty, struct session *s, const struct config *config,
			       const struct theme *theme, const struct screen_overlay *overlay)
{
	return (struct canvas){.tty = tty,
			       .session = s,
			       .config = config,
			       .theme = theme,
			       .overlay = overlay,
			       .rows = tty->rows - (config->status ? 1 : 0)};
}

void screen_draw(struct tty *tty, struct session *s, const struct config *config,
		 const struct theme *theme, const struct screen_overlay *overlay)
{
	struct canvas cv = canvas_of(tty, s, config, theme, overlay);
	struct window *w = s->active;
	bool status;

	for (int y = 0; y < tty->rows; y++)
		tty_fill(tty, y, 0, tty->cols, NULL);
	if (w != NULL) {
		cv.zoomed = w->zoomed != NULL;
		for (struct pane *p = w->panes; p != NULL; p = p->next) {
			if (!pane_shown(w, p))
				continue;
			if (p->state == SANDBOX_ERROR)
				draw_failed_banner(&cv, p);
			else if (copying(&cv, p))
				draw_copy_cells(&cv, p);
			else
				draw_cells(&cv, p);
			draw_title(&cv, p, p == w->active);
		}
		draw_borders(&cv, w);
		draw_floats(&cv, w);
		place_cursor(&cv, w);
		if (overlay->display_panes)
			draw_display_panes(&cv, w);
	}
	/* Without a status line a message or the prompt still takes the
	 * last row, over the pane there. */
	status = tty->rows > 1 && (config->status || overlay->prompt ||
				   (overlay->message != NULL && overlay->message[0] != '\0'));
	if (status)
		draw_status(&cv);
	if (overlay->status_drawn != NULL)
		*overlay->status_drawn = screen_status_key(tty, s, config, theme, overlay);
	if (overlay->choose != NULL && overlay->choose->active)
		draw_choose(&cv, tty->rows - (status ? 1 : 0));
	if (overlay->help != NULL && overlay->view != NULL)
		draw_view(&cv);
	else if (overlay->help != NULL)
		draw_help(&cv);
}

/* ---- damage: the panes' changed rows ---- */

static uint64_t mix(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL; /* FNV-1a */
	return h;
}

static uint64_t mix_str(uint64_t h, const char *text)
{
	return text != NULL ? mix(h, text, strlen(text) + 1) : mix(h, "", 1);
}

uint64_t screen_signature(const struct tty *tty, const struct session *s,
			  const struct config *config, const struct screen_overlay *overlay)
{
	const struct window *w = s->active;
	uint64_t h = 0xcbf29ce484222325ULL;
	/* The modes shown: leaving one must draw the window whole again. */
	int v[9] = {tty->rows,
		    tty->cols,
		    config->status,
		    overlay->prefix,
		    overlay->prompt,
		    overlay->help != NULL || overlay->view != NULL,
		    overlay->display_panes,
		    overlay->copy != NULL && overlay->copy->active,
		    overlay->choose != NULL && overlay->choose->active};

	h = mix(h, &s, sizeof s);
	h = mix(h, &w, sizeof w);
	h = mix(h, v, sizeof v);
	h = mix_str(h, overlay->message);
	if (w == NULL)
		return h;
	h = mix(h, &w->zoomed, sizeof w->zoomed);
	h = mix(h, &w->active, sizeof w->active);
	h = mix(h, &w->floats_hidden, sizeof w->floats_hidden);
	for (struct pane *p = w->panes; p != NULL; p = p->next) {
		int geometry[10] = {p->id,	  p->x,		 p->y,		     p->cols,
				    p->rows,	  p->floating,	 (int)p->state,	     p->violations,
				    p->bell,	  (int)p->launch.backend};

		h = mix(h, geometry, sizeof geometry);
		h = mix_str(h, term_title(p->term));
		h = mix_str(h, p->notice);
		h = mix(h, &p->sent_progress_state, sizeof p->sent_progress_state);
		h = mix(h, &p->sent_progress, sizeof p->sent_progress);
		h = mix_str(h, pane_current_path(p));
		h = mix_str(h, p->profile);
		h = mix_str(h, pane_backend_label(p));
	}
	return h;
}

bool screen_rows_enough(const struct session *s, const struct screen_overlay *overlay,
			const struct pane *p)
{
	const struct window *w = s->active;

	if (w == NULL || p->window != w || !pane_shown(w, p) || p->state == SANDBOX_ERROR)
		return false;
	if (overlay->prompt || overlay->help != NULL || overlay->display_panes ||
	    (overlay->copy != NULL && overlay->copy->active) ||
	    (overlay->choose != NULL && overlay->choose->active))
		return false;
	for (const struct pane *q = w->panes; q != NULL; q = q->next)
		if (q->floating && !w->floats_hidden && w->zoomed == NULL)
			return false;
	return true;
}

void screen_draw_damage(struct tty *tty, struct session *s, const struct config *config,
			const struct theme *theme, const struct screen_overlay *overlay,
			const struct screen_damage *damage, int n)
{
	struct canvas cv = canvas_of(tty, s, config, theme, overlay);
	struct window *w = s->active;
	bool message = overlay->message != NULL && overlay->message[0] != '\0';
	/* Without a status line a message takes the last row over the pane
	 * there: that row is the message's until it goes (a whole draw). */
	int rows = message && !config->status ? tty->rows - 1 : cv.rows;

	cv.zoomed = w->zoomed != NULL;
	for (int i = 0; i < n; i++) {
		struct pane *p = damage[i].pane;

		for (int row = 0; damage[i].rows != NULL && row < p->rows && p->y + row < rows;
		     row++) {
			if (!damage[i].rows[row] || p->x >= tty->cols)
				continue;
			tty_fill(tty, p->y + row, p->x,
				 p->x + p->cols <= tty->cols ? p->cols : tty->cols - p->x, NULL);
			draw_row(&cv, p, row);
		}
	}
	place_cursor(&cv, w);
	if (tty->rows > 1 && (config->status || message)) {
		/* The row stays as composed while its key is the same: a key's
		 * echo composes no status line (strftime, the formats, every
		 * window's entry), as tmux's draws the status only when it
		 * changed. */
		uint64_t key = screen_status_key(tty, s, config, theme, overlay);

		if (overlay->status_drawn == NULL || *overlay->status_drawn != key)
			draw_status(&cv);
		if (overlay->status_drawn != NULL)
			*overlay->status_drawn = key;
	}
}

static uint64_t mix_int(uint64_t h, long long v)
{
	return mix(h, &v, sizeof v);
}

static uint64_t mix_color(uint64_t h, const struct theme_color *c)
{
	int v[5] = {(int)c->kind, c->index, c->r, c->g, c->b};

	return mix(h, v, sizeof v);
}

uint64_t screen_status_key(struct tty *tty, struct session *s, const struct config *config,
			   const struct theme *theme, const struct screen_overlay *overlay)
{
	struct canvas cv = canvas_of(tty, s, config, theme, overlay);
	static const enum theme_slot slots[] = {
	    THEME_STATUS_BAR,	THEME_STATUS_SESSION, THEME_STATUS_CURRENT, THEME_STATUS_WINDOW,
	    THEME_STATUS_CLOCK, THEME_STATUS_MESSAGE, THEME_STATUS_ERROR,   THEME_STATUS_PROMPT};
	uint64_t h = 0xcbf29ce484222325ULL;
	struct format_context ctx;
	char timed[1024], name[64], entry[160];

	h = mix_int(h, tty->rows);
	h = mix_int(h, tty->cols);
	h = mix_int(h, config->status);
	h = mix_int(h, overlay->prefix);
	h = mix_int(h, overlay->no_color);
	h = mix_int(h, overlay->message_error);
	h = mix_str(h, overlay->message);
	h = mix_int(h, overlay->prompt);
	if (overlay->prompt) {
		h = mix_str(h, overlay->prompt_label);
		h = mix_str(h, overlay->prompt_text);
		h = mix_str(h, overlay->prompt_candidates);
		h = mix_int(h, (long long)overlay->prompt_cursor);
	}
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
		const struct theme_style *ts = &theme->slots[slots[i]];

		h = mix_color(h, &ts->fg);
		h = mix_color(h, &ts->bg);
		h = mix_int(h, ts->attrs);
	}
	/* Without a status line only a message or the prompt takes the row. */
	if (!config->status)
		return h != 0 ? h : 1;
	/* The formats as the draw reads them: the time put in (a clock that
	 * shows minutes changes the key once a minute), then what their
	 * #{...} read. */
	status_timed(config->status_left, timed, sizeof timed);
	h = mix_str(h, timed);
	status_timed(config->status_right, timed, sizeof timed);
	h = mix_str(h, timed);
	status_context(tty, s, &ctx, name, sizeof name);
	h = mix_str(h, ctx.session_name);
	h = mix_str(h, ctx.window_name);
	h = mix_str(h, ctx.pane_title);
	h = mix_str(h, ctx.pane_current_path);
	h = mix_str(h, ctx.pane_start_path);
	h = mix_str(h, ctx.pane_backend);
	{
		int v[13] = {ctx.session_windows, ctx.window_index,	 ctx.window_panes,
			     ctx.window_zoomed_flag, ctx.pane_id,	 ctx.pane_index,
			     ctx.pane_violations, ctx.pane_width,	 ctx.pane_height,
			     ctx.pane_active,	  ctx.pane_pid,		 ctx.client_width,
			     ctx.client_height};

		h = mix(h, v, sizeof v);
	}
	/* The window list: each entry as the list writes it. */
	cv.zoomed = s->active != NULL && s->active->zoomed != NULL;
	for (struct window *w = s->windows; w != NULL; w = w->next) {
		window_entry(&cv, w, entry, sizeof entry);
		h = mix_str(h, entry);
	}
	return h != 0 ? h : 1;
}
