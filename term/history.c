/*
 * history: scrollback stored packed, unpacked only when read.
 *
 * See history.h.  A packed line is one allocation: a header, then runs.
 * A run is four bytes of style (the cell's attr, flags, fg and bg bytes as
 * the grid stores them), a two-byte count, then for simple cells one
 * character byte each and for extended cells one whole extended entry
 * each.  Cells of a run share every byte but the character, so the grid's
 * cells come back exactly; extended cells are renumbered in order, which
 * is how the grid's trimmed lines numbered them too.  Screen lines are at
 * most GRID_MAX_SIZE cells, so a count fits in two bytes.
 */
#include "history.h"
#include "grid.h"
#include "xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct history_packed {
	uint32_t alloc; /* bytes allocated, header included */
	uint32_t size;	/* bytes of runs */
	uint16_t used;
	uint16_t ext_count;
	bool wrapped;
	uint8_t runs[];
};

#define RUN_HEADER 6

/* The reader's view: one unpacked line whose storage is reused. */
struct history_view {
	struct grid_line line;
	int index; /* -1: holds nothing */
	int cells_cap, ext_cap;
	/* What the last push packed into before its exact copy. */
	uint8_t *scratch;
	size_t scratch_cap;
};

static struct history_view *view_of(const struct history *history)
{
	/* The view is a cache beside the value: a const reader refills it. */
	struct history *mutable = (struct history *)history;

	if (mutable->view == NULL) {
		mutable->view = xrealloc(NULL, sizeof *mutable->view);
		memset(mutable->view, 0, sizeof *mutable->view);
		mutable->view->index = -1;
	}
	return mutable->view;
}

/* ---- packing ---- */

static uint8_t *scratch_room(struct history_view *view, size_t need)
{
	if (need > view->scratch_cap) {
		size_t cap = view->scratch_cap ? view->scratch_cap : 1024;
		while (cap < need)
			cap *= 2;
		view->scratch = xrealloc(view->scratch, cap);
		view->scratch_cap = cap;
	}
	return view->scratch;
}

/* Columns up to the last cell that is not a default blank. */
static int trimmed_width(const struct grid_line *line)
{
	int width = line->used;
	while (width > 0 && grid_cell_is_blank(&line->cells[width - 1]))
		width--;
	return width;
}

/* A cell's attr, flags, fg and bg bytes as one word: a run goes on while
 * it stays the same (an extended cell's word is its index, never equal
 * to another's, so each extended cell starts a run of its own and is
 * merged below). */
static uint32_t style_word(const struct grid_cell *cell)
{
	uint32_t word;
	memcpy(&word, &cell->attr, sizeof word);
	return word;
}

static void run_begin(uint8_t *header, const struct grid_cell *cell)
{
	bool extended = cell->flags & GRID_CELL_EXTENDED;

	header[0] = extended ? 0 : cell->attr;
	header[1] = cell->flags;
	header[2] = extended ? 0 : cell->fg;
	header[3] = extended ? 0 : cell->bg;
}

static void run_end(uint8_t *header, int count)
{
	uint16_t n = (uint16_t)count;
	memcpy(header + 4, &n, sizeof n);
}

/* pack_runs for a line without extended cells, the common case: a run
 * goes on while the style word stays, one byte out per cell. */
static size_t pack_simple_runs(uint8_t *out, const struct grid_cell *cells, int width)
{
	size_t size = 0;

	for (int col = 0; col < width;) {
		uint32_t word = style_word(&cells[col]);
		uint8_t *header = out + size;
		int start = col;

		run_begin(header, &cells[col]);
		size += RUN_HEADER;
		do
			out[size++] = cells[col++].ch;
		while (col < width && style_word(&cells[col]) == word);
		run_end(header, col - start);
	}
	return size;
}

/* The runs of the line's first `width` cells into the view's scratch;
 * returns their size and counts the extended cells.  Written for the
 * common case, a line of simple cells in a few styles: one pass, one
 * byte out per cell. */
static size_t pack_runs(struct history_view *view, const struct grid_line *line, int width,
			uint16_t *ext_count)
{
	/* The worst case: every cell a run of its own, extended. */
	uint8_t *out = scratch_room(view, (size_t)width * (RUN_HEADER + sizeof(struct grid_ext)));
	uint8_t *header = NULL;
	uint32_t word = 0;
	size_t size = 0;
	int count = 0;
	bool in_ext = false;

	*ext_count = 0;
	if (line->ext_used == 0)
		return pack_simple_runs(out, line->cells, width);
	for (int col = 0; col < width; col++) {
		const struct grid_cell *cell = &line->cells[col];
		bool extended = cell->flags & GRID_CELL_EXTENDED;

		if (header == NULL || (extended ? !in_ext : in_ext || style_word(cell) != word)) {
			if (header != NULL)
				run_end(header, count);
			header = out + size;
			run_begin(header, cell);
			size += RUN_HEADER;
			count = 0;
			in_ext = extended;
			word = style_word(cell);
		}
		count++;
		if (extended) {
			memcpy(out + size, &line->ext[grid_cell_ext_index(cell)],
			       sizeof(struct grid_ext));
			size += sizeof(struct grid_ext);
			(*ext_count)++;
		} else {
			out[size++] = cell->ch;
		}
	}
	if (header != NULL)
		run_end(header, count);
	return size;
}

/* Pack the line into *slot, reusing its storage when it is close in size
 * (an eighth and one step of malloc's 16 bytes more at most; sizes as
 * malloc rounds them anyway): a scroll into full history then allocates
 * nothing, even when the lines are short and of many lengths. */
static void pack_into(struct history *history, struct history_packed **slot,
		      const struct grid_line *line)
{
	struct history_view *view = view_of(history);
	/* A wrapped line's trailing blanks are text its logical line goes on
	 * through: a reflow needs them. */
	int width = line->wrapped ? line->used : trimmed_width(line);
	uint16_t ext_count;
	size_t size = pack_runs(view, line, width, &ext_count);
	size_t need = sizeof(struct history_packed) + size;
	struct history_packed *packed = *slot;

	if (packed == NULL || packed->alloc < need || packed->alloc - need > need / 8 + 16) {
		/* malloc's sizes: 8 bytes of its own, then 16-byte steps. */
		size_t alloc = ((need + 8 + 15) & ~(size_t)15) - 8;
		free(packed);
		packed = xrealloc(NULL, alloc);
		packed->alloc = (uint32_t)alloc;
	}
	packed->size = (uint32_t)size;
	packed->used = (uint16_t)width;
	packed->ext_count = ext_count;
	packed->wrapped = line->wrapped;
	if (size) /* a blank line's runs are none, and the scratch may be too */
		memcpy(packed->runs, view->scratch, size);
	*slot = packed;
}

/* Unpack into storage the caller has sized: cells for `used`, ext for
 * `ext_count` entries. */
static void unpack_runs(const struct history_packed *packed, struct grid_cell *cells,
			struct grid_ext *ext)
{
	const uint8_t *in = packed->runs, *end = in + packed->size;
	uint32_t ext_index = 0;
	int col = 0;

	while (in < end) {
		struct grid_cell style = {.attr = in[0], .flags = in[1], .fg = in[2], .bg = in[3]};
		uint16_t count;

		memcpy(&count, in + 4, sizeof count);
		in += RUN_HEADER;
		if (style.flags & GRID_CELL_EXTENDED) {
			for (int i = 0; i < count; i++, col++) {
				memcpy(&ext[ext_index], in, sizeof *ext);
				in += sizeof *ext;
				cells[col].flags = GRID_CELL_EXTENDED;
				cells[col].ch = (uint8_t)ext_index;
				cells[col].attr = (uint8_t)(ext_index >> 8);
				cells[col].fg = (uint8_t)(ext_index >> 16);
				cells[col].bg = (uint8_t)(ext_index >> 24);
				ext_index++;
			}
		} else {
			for (int i = 0; i < count; i++, col++) {
				cells[col] = style;
				cells[col].ch = *in++;
			}
		}
	}
}

/* A line of exactly its used width, owning its storage. */
static void unpack_owned(const struct history_packed *packed, struct grid_line *out)
{
	memset(out, 0, sizeof *out);
	out->used = out->cap = packed->used;
	out->ext_used = out->ext_cap = packed->ext_count;
	out->wrapped = packed->wrapped;
	if (packed->used)
		out->cells = xrealloc(NULL, (size_t)packed->used * sizeof *out->cells);
	if (packed->ext_count)
		out->ext = xrealloc(NULL, (size_t)packed->ext_count * sizeof *out->ext);
	unpack_runs(packed, out->cells, out->ext);
}

/* ---- the ring ---- */

static struct history_packed **slot_of(const struct history *history, int index)
{
	int slot = history->start + index;
	if (slot >= history->cap)
		slot -= history->cap;
	return &history->lines[slot];
}

static void forget_view(const struct history *history)
{
	if (history->view != NULL)
		history->view->index = -1;
}

/* Re-lay the ring out linearly into `cap` slots (cap >= count). */
static void relayout(struct history *history, int cap)
{
	struct history_packed **lines = cap ? xrealloc(NULL, (size_t)cap * sizeof *lines) : NULL;

	for (int i = 0; i < history->count; i++)
		lines[i] = *slot_of(history, i);
	free(history->lines);
	history->lines = lines;
	history->cap = cap;
	history->start = 0;
}

static void drop_oldest(struct history *history)
{
	free(*slot_of(history, 0));
	history->start = history->start + 1 == history->cap ? 0 : history->start + 1;
	history->count--;
}

/* The oldest lines are reused at the next scrolls, thousands of lines
 * after they were written and long out of cache; fetching their storage
 * now hides that miss behind the glyphs parsed until then.  Short lines
 * come a few hundred instructions apart, less than a miss takes: the
 * header of the line reused PREFETCH_AHEAD scrolls from now is fetched,
 * and the rest of the next one, whose header says how long it is.  (A
 * prefetch for writing is no instruction at all on x86-64 without
 * PREFETCHW: these are for reading, which also brings the line in to
 * be written when no other core holds it.) */
#define PREFETCH_AHEAD 8

static void prefetch_oldest(const struct history *history)
{
	/* The ring's slots too, well ahead: the one read below would
	 * otherwise be a miss every eight scrolls, the address to fetch. */
	if (history->count > 8 * PREFETCH_AHEAD)
		__builtin_prefetch(slot_of(history, 8 * PREFETCH_AHEAD), 0, 3);
	if (history->count > PREFETCH_AHEAD)
		__builtin_prefetch(*slot_of(history, PREFETCH_AHEAD), 0, 3);

	const struct history_packed *next = *slot_of(history, 0);
	for (uint32_t offset = 64; offset < next->alloc; offset += 64)
		__builtin_prefetch((const char *)next + offset, 0, 3);
}

void history_init(struct history *history, int limit)
{
	memset(history, 0, sizeof *history);
	history->limit = limit < 0 ? 0 : limit;
}

void history_free(struct history *history)
{
	history_clear(history);
	free(history->lines);
	if (history->view != NULL) {
		free(history->view->line.cells);
		free(history->view->line.ext);
		free(history->view->scratch);
		free(history->view);
	}
	memset(history, 0, sizeof *history);
}

void history_push(struct history *history, const struct grid_line *line)
{
	struct history_packed **slot;

	if (history->limit == 0)
		return;
	forget_view(history);
	if (history->count == history->limit) {
		/* The oldest line's storage becomes the newest's. */
		slot = slot_of(history, 0);
		history->start = history->start + 1 == history->cap ? 0 : history->start + 1;
		prefetch_oldest(history);
	} else {
		if (history->count == history->cap) {
			int cap = history->cap ? history->cap * 2 : 64;
			relayout(history, cap < history->limit ? cap : history->limit);
		}
		slot = slot_of(history, history->count++);
		*slot = NULL;
	}
	pack_into(history, slot, line);
}

bool history_pop(struct history *history, struct grid_line *out)
{
	struct history_packed **slot;

	if (history->count == 0)
		return false;
	forget_view(history);
	slot = slot_of(history, history->count - 1);
	unpack_owned(*slot, out);
	free(*slot);
	history->count--;
	return true;
}

void history_unpack(const struct history *history, int index, struct grid_line *out)
{
	unpack_owned(*slot_of(history, index), out);
}

void history_line_shape(const struct history *history, int index, uint16_t *used,
			bool *wrapped)
{
	const struct history_packed *packed = *slot_of(history, index);

	*used = packed->used;
	*wrapped = packed->wrapped;
}

/* A run of extended cells, one entry each; entries sit unaligned in the
 * runs, so only the two fields read are copied out. */
static int ext_run_chars(const uint8_t *in, int count, int col, int width, uint32_t *chars,
			 int *columns, int *n)
{
	for (int i = 0; i < count && col < width; i++, col++, in += sizeof(struct grid_ext)) {
		uint32_t first;
		uint8_t cell_width;

		memcpy(&first, in + offsetof(struct grid_ext, chars), sizeof first);
		memcpy(&cell_width, in + offsetof(struct grid_ext, width), sizeof cell_width);
		if (cell_width == 0)
			continue;
		chars[*n] = first ? first : ' ';
		columns[(*n)++] = col;
	}
	return col;
}

int history_chars(const struct history *history, int index, int width, uint32_t *chars,
		  int *columns, int *covered)
{
	const struct history_packed *packed = *slot_of(history, index);
	const uint8_t *in = packed->runs, *end = in + packed->size;
	int col = 0, n = 0;

	while (in < end && col < width) {
		uint8_t flags = in[1];
		uint16_t count;

		memcpy(&count, in + 4, sizeof count);
		in += RUN_HEADER;
		if (flags & GRID_CELL_EXTENDED) {
			col = ext_run_chars(in, count, col, width, chars, columns, &n);
			in += (size_t)count * sizeof(struct grid_ext);
			continue;
		}
		for (int i = 0; i < count && col < width; i++, col++) {
			if (flags & GRID_CELL_PADDING)
				continue;
			chars[n] = in[i] ? in[i] : ' ';
			columns[n++] = col;
		}
		in += count;
	}
	*covered = col;
	return n;
}

/* An extended cell's characters, as term-output.c's cell_utf8 writes
 * them. */
static size_t ext_text(const uint8_t *in, char *out)
{
	uint32_t chars[TERM_MAX_CHARS];
	uint8_t width;
	size_t len = 0;

	memcpy(&width, in + offsetof(struct grid_ext, width), sizeof width);
	if (width == 0)
		return 0; /* a right half: counted, not shown */
	memcpy(chars, in + offsetof(struct grid_ext, chars), sizeof chars);
	if (chars[0] == 0)
		out[len++] = ' ';
	for (int i = 0; i < TERM_MAX_CHARS && chars[i]; i++)
		len += term_utf8_encode(chars[i], out + len);
	return len;
}

size_t history_text(const struct history *history, int index, int width, char *out)
{
	const struct history_packed *packed = *slot_of(history, index);
	const uint8_t *in = packed->runs, *end = in + packed->size;
	size_t len = 0, kept = 0;
	int col = 0;

	while (in < end && col < width) {
		uint8_t attr = in[0], flags = in[1];
		uint16_t count;

		memcpy(&count, in + 4, sizeof count);
		in += RUN_HEADER;
		if (flags & GRID_CELL_EXTENDED) {
			for (int i = 0; i < count && col < width; i++, col++)
				len +=
				    ext_text(in + (size_t)i * sizeof(struct grid_ext), out + len);
			in += (size_t)count * sizeof(struct grid_ext);
			kept = len;
			continue;
		}
		/* A default blank (grid_cell_is_blank) is kept only when
		 * something shown follows it. */
		for (int i = 0; i < count && col < width; i++, col++) {
			uint8_t ch = in[i];

			if (flags & GRID_CELL_PADDING) {
				kept = len;
				continue;
			}
			if (ch == 0 || ch < 0x80)
				out[len++] = ch ? (char)ch : ' ';
			else
				len += term_utf8_encode(ch, out + len);
			if (!((ch == 0 || ch == ' ') && attr == 0 && flags == 0))
				kept = len;
		}
		in += count;
	}
	return kept;
}

const struct grid_line *history_get(const struct history *history, int index)
{
	if (index < 0 || index >= history->count)
		return NULL;

	struct history_view *view = view_of(history);
	const struct history_packed *packed = *slot_of(history, index);
	struct grid_line *line = &view->line;

	if (view->index == index)
		return line;
	if (packed->used > view->cells_cap) {
		line->cells = xrealloc(line->cells, (size_t)packed->used * sizeof *line->cells);
		view->cells_cap = packed->used;
	}
	if (packed->ext_count > view->ext_cap) {
		line->ext = xrealloc(line->ext, (size_t)packed->ext_count * sizeof *line->ext);
		view->ext_cap = packed->ext_count;
	}
	/* A reader sees the line as the grid kept it: exactly its used width. */
	line->used = line->cap = packed->used;
	line->ext_used = line->ext_cap = packed->ext_count;
	line->ext_free = 0;
	line->wrapped = packed->wrapped;
	unpack_runs(packed, line->cells, line->ext);
	view->index = index;
	return line;
}

void history_clear(struct history *history)
{
	forget_view(history);
	while (history->count > 0)
		drop_oldest(history);
	relayout(history, 0);
}

void history_set_limit(struct history *history, int limit)
{
	if (limit < 0)
		limit = 0;
	forget_view(history);
	while (history->count > limit)
		drop_oldest(history);
	history->limit = limit;
	relayout(history, history->count);
}

size_t history_memory(const struct history *history)
{
	size_t total = (size_t)history->cap * sizeof *history->lines;

	for (int i = 0; i < history->count; i++)
		total += (*slot_of(history, i))->alloc;
	return total;
}
