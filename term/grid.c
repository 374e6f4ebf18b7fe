/*
 * grid: compact cells, a ring of visible rows, a packed history.
 *
 * See grid.h for the layout.  Three invariants keep the code short and the
 * memory bounded:
 *  - cells at or past line->used are all-zero (blank, default style);
 *  - every extended entry in use is referenced by exactly one cell, so
 *    releasing a cell frees its entry and a line never needs more entries
 *    than it has cells;
 *  - a padding cell always sits right of a wide character and dies with it,
 *    so a half-overwritten wide character never leaves a stray half.
 */
#include "grid.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- extended entries ---- */

static uint32_t ext_alloc(struct grid_line *line)
{
	if (line->ext_free != 0) {
		uint32_t index = line->ext_free - 1u;
		line->ext_free = (uint16_t)line->ext[index].chars[0];
		return index;
	}
	if (line->ext_used == line->ext_cap) {
		int cap = line->ext_cap ? line->ext_cap * 2 : 4;
		line->ext = xrealloc(line->ext, (size_t)cap * sizeof *line->ext);
		line->ext_cap = (uint16_t)cap;
	}
	return line->ext_used++;
}

static void ext_release(struct grid_line *line, uint32_t index)
{
	line->ext[index].chars[0] = line->ext_free;
	line->ext_free = (uint16_t)(index + 1);
}

static void cell_set_ext_index(struct grid_cell *cell, uint32_t index)
{
	cell->flags = GRID_CELL_EXTENDED;
	cell->ch = (uint8_t)index;
	cell->attr = (uint8_t)(index >> 8);
	cell->fg = (uint8_t)(index >> 16);
	cell->bg = (uint8_t)(index >> 24);
}

static const struct grid_ext *cell_ext(const struct grid_line *line, const struct grid_cell *cell)
{
	return &line->ext[grid_cell_ext_index(cell)];
}

/* ---- single cells ---- */

bool grid_cell_is_blank(const struct grid_cell *cell)
{
	return (cell->ch == 0 || cell->ch == ' ') && cell->attr == 0 && cell->flags == 0;
}

/* Release whatever the cell at col refers to before it is overwritten
 * (its extended entry; the other half of a wide character). */
static void grid_line_release(struct grid_line *line, int col)
{
	struct grid_cell *cell = &line->cells[col];

	if (cell->flags & GRID_CELL_EXTENDED) {
		uint32_t index = grid_cell_ext_index(cell);
		if (line->ext[index].width == 2 && col + 1 < line->cap &&
		    (line->cells[col + 1].flags & GRID_CELL_PADDING))
			memset(&line->cells[col + 1], 0, sizeof *cell);
		ext_release(line, index);
	} else if ((cell->flags & GRID_CELL_PADDING) && col > 0) {
		struct grid_cell *wide = &line->cells[col - 1];
		if (wide->flags & GRID_CELL_EXTENDED)
			ext_release(line, grid_cell_ext_index(wide));
		memset(wide, 0, sizeof *wide);
	}
	memset(cell, 0, sizeof *cell);
}

static bool style_needs_ext(const struct term_style *style)
{
	return style->fg.kind == TERM_COLOR_RGB || style->bg.kind == TERM_COLOR_RGB ||
	       style->link != 0;
}

static void cell_encode_simple(struct grid_cell *cell, uint32_t ch, const struct term_style *style)
{
	cell->ch = (uint8_t)ch;
	cell->attr = style->attrs;
	cell->flags = 0;
	cell->fg = cell->bg = 0;
	if (style->fg.kind == TERM_COLOR_PALETTE) {
		cell->flags |= GRID_CELL_FG_PALETTE;
		cell->fg = style->fg.index;
	}
	if (style->bg.kind == TERM_COLOR_PALETTE) {
		cell->flags |= GRID_CELL_BG_PALETTE;
		cell->bg = style->bg.index;
	}
}

static void cell_encode_ext(struct grid_line *line, int col, const struct term_cell *in)
{
	uint32_t index = ext_alloc(line);
	struct grid_ext *ext = &line->ext[index];

	memcpy(ext->chars, in->chars, sizeof ext->chars);
	ext->style = in->style;
	ext->width = in->width;
	cell_set_ext_index(&line->cells[col], index);
}

static void set_padding(struct grid_line *line, int col)
{
	struct grid_cell *cell = &line->cells[col];

	/* Already the right half of the wide character to our left: keep it. */
	if ((cell->flags & GRID_CELL_PADDING) && col > 0 &&
	    (line->cells[col - 1].flags & GRID_CELL_EXTENDED))
		return;
	if (cell->flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING))
		grid_line_release(line, col);
	/* A lone right half has no meaning; it becomes a blank until its wide
	 * character arrives (copies run in either direction). */
}

void grid_line_set(struct grid_line *line, int col, const struct term_cell *in)
{
	if (col < 0 || col >= line->cap)
		return;
	if (in->width == 0) {
		set_padding(line, col);
		return;
	}
	if (line->cells[col].flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING))
		grid_line_release(line, col);

	bool wide = in->width == 2 && col + 1 < line->cap;
	if (wide && (line->cells[col + 1].flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING)))
		grid_line_release(line, col + 1);

	if (in->chars[0] > 0xff || in->chars[1] != 0 || in->width != 1 ||
	    style_needs_ext(&in->style))
		cell_encode_ext(line, col, in);
	else
		cell_encode_simple(&line->cells[col], in->chars[0], &in->style);

	int end = col + 1;
	if (wide) {
		struct grid_cell *pad = &line->cells[col + 1];
		memset(pad, 0, sizeof *pad);
		pad->flags = GRID_CELL_PADDING;
		end++;
	}
	if (end > line->used)
		line->used = (uint16_t)end;
}

static void color_decode(struct term_color *out, bool palette, uint8_t index)
{
	memset(out, 0, sizeof *out);
	if (palette) {
		out->kind = TERM_COLOR_PALETTE;
		out->index = index;
	}
}

void grid_line_get(const struct grid_line *line, int col, struct term_cell *out)
{
	memset(out, 0, sizeof *out);
	out->width = 1;
	if (line == NULL || col < 0 || col >= line->used)
		return;

	const struct grid_cell *cell = &line->cells[col];
	if (cell->flags & GRID_CELL_EXTENDED) {
		const struct grid_ext *ext = cell_ext(line, cell);
		memcpy(out->chars, ext->chars, sizeof out->chars);
		out->style = ext->style;
		out->width = ext->width;
		return;
	}
	if (cell->flags & GRID_CELL_PADDING) {
		/* The right half of a wide character wears its style. */
		out->width = 0;
		if (col > 0 && (cell[-1].flags & GRID_CELL_EXTENDED))
			out->style = cell_ext(line, cell - 1)->style;
		return;
	}
	out->chars[0] = cell->ch;
	out->style.attrs = cell->attr;
	color_decode(&out->style.fg, cell->flags & GRID_CELL_FG_PALETTE, cell->fg);
	color_decode(&out->style.bg, cell->flags & GRID_CELL_BG_PALETTE, cell->bg);
}

/* ---- whole lines ---- */

static void line_init(struct grid_line *line, int cols)
{
	memset(line, 0, sizeof *line);
	line->cells = cols ? xrealloc(NULL, (size_t)cols * sizeof *line->cells) : NULL;
	if (cols)
		memset(line->cells, 0, (size_t)cols * sizeof *line->cells);
	line->cap = (uint16_t)cols;
}

static void line_free(struct grid_line *line)
{
	if (!line->borrowed)
		free(line->cells);
	free(line->ext);
	memset(line, 0, sizeof *line);
}

/* Blank the whole line; its extended table is kept for reuse. */
static void line_clear(struct grid_line *line)
{
	if (line->used)
		memset(line->cells, 0, (size_t)line->used * sizeof *line->cells);
	line->used = 0;
	line->ext_used = 0;
	line->ext_free = 0;
	line->wrapped = false;
}

/* Give the line exactly `cols` cells, cutting or padding with blanks. */
static void line_set_width(struct grid_line *line, int cols)
{
	if (cols < line->used) {
		if (line->ext_used)
			for (int col = cols; col < line->used; col++)
				if (line->cells[col].flags &
				    (GRID_CELL_EXTENDED | GRID_CELL_PADDING))
					grid_line_release(line, col);
		/* Releasing a cut padding cell also drops its wide character. */
		line->used = (uint16_t)cols;
	}
	if (cols != line->cap) {
		if (line->borrowed) {
			/* Out of the block into storage of its own. */
			struct grid_cell *own = xrealloc(NULL, (size_t)cols * sizeof *own);
			memcpy(own, line->cells,
			       (size_t)(cols < line->cap ? cols : line->cap) * sizeof *own);
			line->cells = own;
			line->borrowed = false;
		} else {
			line->cells = xrealloc(line->cells, (size_t)cols * sizeof *line->cells);
		}
		if (cols > line->cap)
			memset(line->cells + line->cap, 0,
			       (size_t)(cols - line->cap) * sizeof *line->cells);
		line->cap = (uint16_t)cols;
	}
}

static struct grid_cell blank_with_bg(struct grid_line *line, const struct term_style *bg,
				      bool *needs_ext)
{
	struct grid_cell cell = {0};
	*needs_ext = false;
	if (bg == NULL || bg->bg.kind == TERM_COLOR_DEFAULT)
		return cell;
	if (bg->bg.kind == TERM_COLOR_PALETTE) {
		cell.flags = GRID_CELL_BG_PALETTE;
		cell.bg = bg->bg.index;
		return cell;
	}
	*needs_ext = true;
	return cell;
}

void grid_line_erase(struct grid_line *line, int start, int end, const struct term_style *bg)
{
	if (end > line->cap)
		end = line->cap;
	if (start < 0)
		start = 0;
	if (start >= end)
		return;

	bool needs_ext;
	struct grid_cell blank = blank_with_bg(line, bg, &needs_ext);
	bool plain = !needs_ext && blank.flags == 0;

	/* Erased up to its end, a line no longer runs on into the next. */
	if (end == line->cap)
		line->wrapped = false;
	if (plain && start == 0 && end >= line->used) {
		line_clear(line);
		return;
	}
	if (line->ext_used) {
		for (int col = start; col < end; col++)
			if (line->cells[col].flags & (GRID_CELL_EXTENDED | GRID_CELL_PADDING))
				grid_line_release(line, col);
	}
	if (needs_ext) {
		struct term_cell cell = {.width = 1};
		cell.style.bg = bg->bg;
		for (int col = start; col < end; col++)
			cell_encode_ext(line, col, &cell);
	} else {
		for (int col = start; col < end; col++)
			line->cells[col] = blank;
	}
	if (!plain && end > line->used)
		line->used = (uint16_t)end;
	else if (plain && end >= line->used && start < line->used)
		line->used = (uint16_t)start;
}

void grid_clear_history(struct grid *grid)
{
	history_clear(&grid->history);
}

void grid_set_history_limit(struct grid *grid, int limit)
{
	history_set_limit(&grid->history, limit);
}

/* ---- the grid ---- */

struct grid *grid_new(int rows, int cols, int history_limit)
{
	struct grid *grid = xrealloc(NULL, sizeof *grid);

	memset(grid, 0, sizeof *grid);
	grid->rows = rows;
	grid->cols = cols;
	grid->lines = xrealloc(NULL, (size_t)rows * sizeof *grid->lines);
	/* A pane's screen is mostly blank for most of its life (and an
	 * idle pane's entirely): the rows' cells are zero pages of one
	 * mapping, which the kernel backs only where something is written. */
	grid->block_size = (size_t)rows * (size_t)cols * sizeof(struct grid_cell);
	grid->block = mmap(NULL, grid->block_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (grid->block == MAP_FAILED)
		grid->block = NULL;
	for (int row = 0; row < rows; row++) {
		if (grid->block == NULL) {
			line_init(&grid->lines[row], cols);
			continue;
		}
		memset(&grid->lines[row], 0, sizeof grid->lines[row]);
		grid->lines[row].cells = (struct grid_cell *)grid->block + (size_t)row * cols;
		grid->lines[row].cap = (uint16_t)cols;
		grid->lines[row].borrowed = true;
	}
	history_init(&grid->history, history_limit);
	return grid;
}

/* The block goes once no row lies in it (a resize gives rows their own). */
static void release_block_if_unused(struct grid *grid)
{
	if (grid->block == NULL)
		return;
	for (int row = 0; row < grid->rows; row++)
		if (grid->lines[row].borrowed)
			return;
	munmap(grid->block, grid->block_size);
	grid->block = NULL;
}

void grid_free(struct grid *grid)
{
	if (grid == NULL)
		return;
	for (int row = 0; row < grid->rows; row++)
		line_free(&grid->lines[row]);
	if (grid->block != NULL)
		munmap(grid->block, grid->block_size);
	free(grid->lines);
	history_free(&grid->history);
	free(grid);
}

struct grid_line *grid_get_line(const struct grid *grid, int row)
{
	if (row >= 0)
		return row < grid->rows ? grid_visible_line(grid, row) : NULL;
	/* A history row is unpacked into the history's view, which the
	 * next history row read reuses. */
	return (struct grid_line *)history_get(&grid->history, grid->history.count + row);
}

/* Blank a line for reuse as the row that scrolls in. */
static void line_blank(struct grid_line *line, const struct term_style *bg)
{
	line_clear(line);
	if (bg != NULL && bg->bg.kind != TERM_COLOR_DEFAULT)
		grid_line_erase(line, 0, line->cap, bg); /* background colour erase */
}

/* The top row of a region leaves: into history, or it is simply blanked. */
static void retire_line(struct grid *grid, struct grid_line *line, bool to_history,
			const struct term_style *bg)
{
	if (to_history)
		history_push(&grid->history, line);
	line_blank(line, bg);
}

void grid_scroll_up(struct grid *grid, int top, int bottom, int count, bool to_history,
		    const struct term_style *bg)
{
	int height = bottom - top;
	if (count > height)
		count = height;

	if (top == 0 && bottom == grid->rows) {
		/* The ring's whole point: the departing row becomes the new bottom. */
		for (int i = 0; i < count; i++) {
			retire_line(grid, &grid->lines[grid->top], to_history, bg);
			grid->top = grid->top + 1 == grid->rows ? 0 : grid->top + 1;
		}
		return;
	}
	for (int i = 0; i < count; i++) {
		struct grid_line departing = *grid_visible_line(grid, top);
		retire_line(grid, &departing, to_history, bg);
		for (int row = top; row < bottom - 1; row++)
			*grid_visible_line(grid, row) = *grid_visible_line(grid, row + 1);
		*grid_visible_line(grid, bottom - 1) = departing;
	}
}

void grid_scroll_down(struct grid *grid, int top, int bottom, int count,
		      const struct term_style *bg)
{
	int height = bottom - top;
	if (count > height)
		count = height;

	if (top == 0 && bottom == grid->rows) {
		for (int i = 0; i < count; i++) {
			grid->top = grid->top == 0 ? grid->rows - 1 : grid->top - 1;
			line_blank(&grid->lines[grid->top], bg);
		}
		return;
	}
	for (int i = 0; i < count; i++) {
		struct grid_line departing = *grid_visible_line(grid, bottom - 1);
		line_blank(&departing, bg);
		for (int row = bottom - 1; row > top; row--)
			*grid_visible_line(grid, row) = *grid_visible_line(grid, row - 1);
		*grid_visible_line(grid, top) = departing;
	}
}

/* ---- resize ---- */

static int last_used_row(const struct grid_line *lines, int count)
{
	int row = count - 1;
	while (row > 0 && lines[row].used == 0)
		row--;
	return row;
}

static int shrink_rows(struct grid *grid, struct grid_line *lines, int *count, int rows,
		       int keep_row)
{
	if (keep_row < 0)
		keep_row = last_used_row(lines, *count);
	/* Blank rows below the cursor go first, as a real terminal would. */
	while (*count > rows && *count - 1 > keep_row && lines[*count - 1].used == 0)
		line_free(&lines[--*count]);

	/* Then rows above the cursor move into history, but never so many that
	 * the cursor row itself leaves the screen... */
	int excess = *count - rows;
	int from_top = excess < keep_row ? excess : keep_row;
	for (int i = 0; i < from_top; i++) {
		history_push(&grid->history, &lines[i]);
		line_free(&lines[i]);
	}
	memmove(lines, lines + from_top, (size_t)(*count - from_top) * sizeof *lines);
	*count -= from_top;
	/* ...and whatever is still too much is cut from below it. */
	while (*count > rows)
		line_free(&lines[--*count]);
	return -from_top;
}

static int grow_rows(struct grid *grid, struct grid_line *lines, int *count, int rows)
{
	int pulled = 0;
	struct grid_line line;

	while (*count + pulled < rows && history_pop(&grid->history, &line)) {
		memmove(lines + 1, lines, (size_t)(*count + pulled) * sizeof *lines);
		lines[0] = line;
		pulled++;
	}
	*count += pulled;
	while (*count < rows)
		line_init(&lines[(*count)++], grid->cols);
	return pulled;
}

int grid_resize(struct grid *grid, int rows, int cols, int keep_row)
{
	int max = rows > grid->rows ? rows : grid->rows;
	struct grid_line *lines = xrealloc(NULL, (size_t)max * sizeof *lines);
	int count = grid->rows;
	int moved;

	for (int row = 0; row < grid->rows; row++)
		lines[row] = *grid_visible_line(grid, row);
	free(grid->lines);
	grid->cols = cols;

	if (rows < count)
		moved = shrink_rows(grid, lines, &count, rows, keep_row);
	else
		moved = grow_rows(grid, lines, &count, rows);

	for (int row = 0; row < rows; row++)
		line_set_width(&lines[row], cols);
	grid->lines = lines;
	grid->rows = rows;
	grid->top = 0;
	release_block_if_unused(grid);
	return moved;
}

/* ---- reflow ---- */

/* A growable array of lines the reflow builds the new grid into. */
struct line_list {
	struct grid_line *lines;
	int count, cap;
};

static struct grid_line *list_add(struct line_list *list)
{
	if (list->count == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 64;
		list->lines = xrealloc(list->lines, (size_t)list->cap * sizeof *list->lines);
	}
	struct grid_line *line = &list->lines[list->count++];
	memset(line, 0, sizeof *line);
	return line;
}

/* Where the cursor is in logical terms, as tmux's grid_wrap_position:
 * which logical line, and how far into it (-1: past the end of its text). */
struct logical_pos {
	int line;
	int offset;
};

static struct logical_pos logical_position(const struct grid_line *lines, int row, int col)
{
	struct logical_pos pos = {0, 0};

	for (int i = 0; i < row; i++) {
		if (lines[i].wrapped) {
			pos.offset += lines[i].used;
		} else {
			pos.offset = 0;
			pos.line++;
		}
	}
	pos.offset = col >= lines[row].used ? -1 : pos.offset + col;
	return pos;
}

/* Decode the logical line lines[first..last] into cells (padding halves
 * left out: grid_line_set makes them again); returns how many. */
static int logical_cells(const struct grid_line *lines, int first, int last,
			 struct term_cell **cells, int *cap)
{
	int count = 0;

	for (int i = first; i <= last; i++) {
		for (int col = 0; col < lines[i].used; col++) {
			if (count == *cap) {
				*cap = *cap ? *cap * 2 : 256;
				*cells = xrealloc(*cells, (size_t)*cap * sizeof **cells);
			}
			grid_line_get(&lines[i], col, &(*cells)[count]);
			if ((*cells)[count].width != 0)
				count++;
		}
	}
	return count;
}

/* Lay cells out in lines of `cols`, each but the last marked wrapped; a
 * wide character that does not fit at the end of a line starts the next
 * one (as a terminal's autowrap does). */
static void split_cells(struct line_list *out, const struct term_cell *cells, int count,
			int cols)
{
	struct grid_line *line = list_add(out);
	int col = 0;

	line_init(line, cols);
	for (int i = 0; i < count; i++) {
		int width = cells[i].width;
		if (width > cols)
			continue; /* a wide character in one column: nowhere to go */
		if (col + width > cols) {
			line->wrapped = true;
			line = list_add(out);
			line_init(line, cols);
			col = 0;
		}
		grid_line_set(line, col, &cells[i]);
		col += width;
	}
}

/* The same for a logical line without extended cells (so without wide
 * characters), the common case: its compact cells are copied as they are,
 * `cols` at a time. */
static void split_compact(struct line_list *out, const struct grid_line *lines, int first,
			  int last, int cols, struct grid_cell **cells, int *cap)
{
	int count = 0, start = 0;

	for (int i = first; i <= last; i++) {
		if (lines[i].used == 0)
			continue; /* may have no storage at all (a trimmed blank line) */
		if (count + lines[i].used > *cap) {
			while (count + lines[i].used > *cap)
				*cap = *cap ? *cap * 2 : 256;
			*cells = xrealloc(*cells, (size_t)*cap * sizeof **cells);
		}
		memcpy(*cells + count, lines[i].cells, (size_t)lines[i].used * sizeof **cells);
		count += lines[i].used;
	}
	do {
		struct grid_line *line = list_add(out);
		int n = count - start < cols ? count - start : cols;
		line_init(line, cols);
		if (n > 0)
			memcpy(line->cells, *cells + start, (size_t)n * sizeof **cells);
		line->used = (uint16_t)n;
		start += n;
		line->wrapped = start < count;
	} while (start < count);
}

static bool has_extended(const struct grid_line *lines, int first, int last)
{
	for (int i = first; i <= last; i++)
		if (lines[i].ext_used)
			return true;
	return false;
}

/* The cursor's new place, as tmux's grid_unwrap_position: the line of
 * the logical line's lines (from `first`) that holds the offset. */
static void unwrap_position(const struct line_list *out, int first, int offset, int *row,
			    int *col)
{
	int at = first;

	if (offset < 0) {
		while (at + 1 < out->count && out->lines[at].wrapped)
			at++;
		offset = out->lines[at].used;
	} else {
		while (at + 1 < out->count && out->lines[at].wrapped &&
		       offset >= out->lines[at].used) {
			offset -= out->lines[at].used;
			at++;
		}
	}
	*row = at;
	*col = offset;
}

/* The old history's lines [first, last] unpacked into lines[] where they
 * are still only their used width and wrapped mark. */
static void unpack_range(const struct history *old, struct grid_line *lines, int first,
			 int last)
{
	for (int i = first; i <= last && i < old->count; i++)
		if (lines[i].cells == NULL && lines[i].used > 0)
			history_unpack(old, i, &lines[i]);
}

void grid_reflow(struct grid *grid, int cols, int *row, int *col)
{
	/* The old history is read from while the new one is written: the
	 * reflowed lines go into history as soon as they are sure to be
	 * history, so at no time is more than a screen's worth of lines
	 * unpacked (the history's packed lines stay packed until their
	 * logical line is rewrapped). */
	struct history old = grid->history;
	int count = old.count + grid->rows;
	struct grid_line *lines = xrealloc(NULL, (size_t)count * sizeof *lines);
	struct line_list out = {0};
	struct term_cell *cells = NULL;
	struct grid_cell *compact = NULL;
	int cells_cap = 0, compact_cap = 0, logical = 0, cursor_first = -1, pushed = 0;
	struct logical_pos cursor = {-1, 0};

	history_init(&grid->history, old.limit);
	/* Every line, oldest first, history lines as their width and mark
	 * only; this function owns their storage now. */
	for (int i = 0; i < old.count; i++) {
		memset(&lines[i], 0, sizeof lines[i]);
		history_line_shape(&old, i, &lines[i].used, &lines[i].wrapped);
	}
	for (int r = 0; r < grid->rows; r++)
		lines[old.count + r] = *grid_visible_line(grid, r);
	if (row != NULL)
		cursor = logical_position(lines, old.count + *row, *col);

	for (int first = 0; first < count; logical++) {
		int last = first;
		while (last + 1 < count && lines[last].wrapped)
			last++;
		if (logical == cursor.line)
			cursor_first = out.count;
		unpack_range(&old, lines, first, last);
		if (first == last && lines[first].used <= cols) {
			/* Short and whole: moves across as it is. */
			*list_add(&out) = lines[first];
			out.lines[out.count - 1].wrapped = false;
		} else {
			if (has_extended(lines, first, last)) {
				int n = logical_cells(lines, first, last, &cells, &cells_cap);
				split_cells(&out, cells, n, cols);
			} else {
				split_compact(&out, lines, first, last, cols, &compact,
					      &compact_cap);
			}
			for (int i = first; i <= last; i++)
				line_free(&lines[i]);
		}
		/* Lines `rows` above the end are history whatever follows,
		 * unless the cursor's place is still to be found in them. */
		while (pushed < out.count - grid->rows && (cursor_first < 0 || pushed < cursor_first)) {
			history_push(&grid->history, &out.lines[pushed]);
			line_free(&out.lines[pushed++]);
		}
		first = last + 1;
	}
	free(cells);
	free(compact);
	free(lines);
	history_free(&old);
	while (out.count < grid->rows)
		line_init(list_add(&out), cols);

	int hsize = out.count - grid->rows;
	if (row != NULL) {
		unwrap_position(&out, cursor_first, cursor.offset, row, col);
		*row -= hsize;
		if (*row < 0)
			*row = *col = 0;
	}

	/* The rest of history through the usual door (the limit holds: the
	 * oldest go); the screen is the last `rows` lines, `cols` cells each. */
	for (; pushed < hsize; pushed++) {
		history_push(&grid->history, &out.lines[pushed]);
		line_free(&out.lines[pushed]);
	}
	free(grid->lines);
	grid->lines = xrealloc(NULL, (size_t)grid->rows * sizeof *grid->lines);
	for (int r = 0; r < grid->rows; r++) {
		grid->lines[r] = out.lines[hsize + r];
		line_set_width(&grid->lines[r], cols);
	}
	free(out.lines);
	grid->cols = cols;
	grid->top = 0;
	release_block_if_unused(grid);
}

int grid_resize_saved(struct grid *grid, int rows, int cols, int keep_row)
{
	int max = rows > grid->rows ? rows : grid->rows;
	struct grid_line *lines = xrealloc(NULL, (size_t)max * sizeof *lines);
	int count = grid->rows, moved = 0;

	for (int row = 0; row < grid->rows; row++)
		lines[row] = *grid_visible_line(grid, row);
	free(grid->lines);
	grid->cols = cols;
	if (rows > count)
		moved = grow_rows(grid, lines, &count, rows);
	/* Rows below the saved cursor go first, blank or not (tmux does
	 * the same with the screen it saved)... */
	while (count > rows && count - 1 > keep_row)
		line_free(&lines[--count]);
	/* ...then rows from the top into history, only as many as the
	 * saved cursor's row needs to stay on screen. */
	if (count > rows) {
		moved = rows - count;
		for (int i = 0; i < -moved; i++) {
			history_push(&grid->history, &lines[i]);
			line_free(&lines[i]);
		}
		memmove(lines, lines - moved, (size_t)rows * sizeof *lines);
		count = rows;
	}
	for (int row = 0; row < rows; row++)
		line_set_width(&lines[row], cols);
	grid->lines = lines;
	grid->rows = rows;
	grid->top = 0;
	release_block_if_unused(grid);
	return moved;
}

/* ---- accounting ---- */

static size_t line_memory(const struct grid_line *line)
{
	return (size_t)line->cap * sizeof(struct grid_cell) +
	       (size_t)line->ext_cap * sizeof(struct grid_ext);
}

size_t grid_memory(const struct grid *grid)
{
	size_t total = sizeof *grid + (size_t)grid->rows * sizeof(struct grid_line) +
		       history_memory(&grid->history);

	for (int row = 0; row < grid->rows; row++)
		total += line_memory(&grid->lines[row]);
	return total;
}
