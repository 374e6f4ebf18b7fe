/*
 * grid: the cells of one screen plus its scrollback, stored compactly.
 *
 * A cell is five bytes.  The common case, a character below U+0100 with
 * palette or default colours, fits in them directly: character, attribute
 * bits, flags, foreground and background palette index.  Anything larger
 * (wide or non-Latin-1 characters, combining marks, RGB colours) sets
 * GRID_CELL_EXTENDED, and the four other bytes then hold an index into the
 * line's own table of extended entries.  Each extended entry belongs to
 * exactly one cell; overwriting that cell reuses or frees the entry through
 * a per-line free list, so a line never holds more entries than cells and
 * the table dies with its line.  (tmux's grid.c is the model.)
 *
 * The visible rows form a ring: scrolling the whole screen up rotates the
 * ring's top index, packs a copy of the departing row into history
 * (history.h: runs of one style, trimmed to the used width) and blanks
 * the row for reuse as the new bottom one, so it costs the same for 10
 * rows as for 1000.  When the history is full its oldest line goes.
 *
 * Blank cells are all-zero, so a fresh row is one calloc or memset, and a
 * new grid's rows are zero pages of one anonymous mapping: an idle
 * pane's screen is memory the kernel never backs.  A row leaves that
 * block for storage of its own when its width changes.
 *
 * A line the program's text ran off (autowrap) is marked `wrapped`: it and
 * the line below are one logical line.  grid_reflow() uses the mark to
 * rewrap screen and history at a new width (tmux's grid_reflow is the
 * model), so narrowing a pane and widening it again loses nothing.
 */
#ifndef SANDMUX_GRID_H
#define SANDMUX_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "term.h"

#define GRID_CELL_EXTENDED 0x01	  /* ch/attr/fg/bg hold an extended-table index */
#define GRID_CELL_PADDING 0x02	  /* right half of a wide character */
#define GRID_CELL_FG_PALETTE 0x04 /* fg is a palette index, not the default */
#define GRID_CELL_BG_PALETTE 0x08 /* bg is a palette index, not the default */

#define GRID_DEFAULT_HISTORY 10000
#define GRID_MAX_SIZE 1000

struct grid_cell {
	uint8_t ch;    /* U+0000..U+00FF; 0 means never written */
	uint8_t attr;  /* TERM_ATTR_* */
	uint8_t flags; /* GRID_CELL_* */
	uint8_t fg, bg;
};

struct grid_ext {
	uint32_t chars[TERM_MAX_CHARS]; /* chars[0] links the free list when unused */
	struct term_style style;
	uint8_t width;
};

struct grid_line {
	struct grid_cell *cells;
	struct grid_ext *ext;
	uint16_t used;	   /* no non-blank cell at or past this column */
	uint16_t cap;	   /* cells allocated */
	uint16_t ext_used; /* extended entries handed out, live or on the free list */
	uint16_t ext_cap;
	uint16_t ext_free; /* free-list head: index + 1, 0 when empty */
	bool wrapped;	   /* autowrap continued this line on the next one */
	bool borrowed;	   /* cells lie in the grid's first rows' block, not its own */
};

struct grid {
	int rows, cols;
	struct grid_line *lines;     /* ring of `rows` lines */
	int top;		     /* slot of visible row 0 */
	struct history history;	     /* limit 0 for grids without scrollback */
	/* The first rows' cells, one anonymous mapping: its pages stay
	 * untouched (and cost no memory) until a row is written. */
	void *block;
	size_t block_size;
};

struct grid *grid_new(int rows, int cols, int history_limit);
void grid_free(struct grid *grid);

/* Visible row 0..rows-1, or history row -1 (newest) .. -count; NULL if none. */
struct grid_line *grid_get_line(const struct grid *grid, int row);

static inline struct grid_line *grid_visible_line(const struct grid *grid, int row)
{
	int slot = grid->top + row;
	if (slot >= grid->rows)
		slot -= grid->rows;
	return &grid->lines[slot];
}

static inline uint32_t grid_cell_ext_index(const struct grid_cell *cell)
{
	return (uint32_t)cell->ch | (uint32_t)cell->attr << 8 | (uint32_t)cell->fg << 16 |
	       (uint32_t)cell->bg << 24;
}

/* Decode a cell of a line; columns past the stored cells read as blank. */
void grid_line_get(const struct grid_line *line, int col, struct term_cell *out);
/* Store a decoded cell (width 2 also writes the padding cell at col+1). */
void grid_line_set(struct grid_line *line, int col, const struct term_cell *cell);
/* Blank [start, end) with the background of `bg` (NULL: default). */
void grid_line_erase(struct grid_line *line, int start, int end, const struct term_style *bg);
/* Whether a cell is a default-styled blank (nothing to draw or keep). */
bool grid_cell_is_blank(const struct grid_cell *cell);

/* Full-width scroll of rows [top, bottom): `count` rows leave at the top
 * (into history when to_history), blanks with the background of `bg`
 * (NULL: default) enter at the bottom. */
void grid_scroll_up(struct grid *grid, int top, int bottom, int count, bool to_history,
		    const struct term_style *bg);
/* Full-width scroll of rows [top, bottom): blanks enter at the top. */
void grid_scroll_down(struct grid *grid, int top, int bottom, int count,
		      const struct term_style *bg);

/* Resize the visible area.  Rows shrink from the bottom, then the top rows
 * move into history; `keep_row` (the cursor row, or -1 for the last row
 * with content) is kept on screen.  Rows grow by pulling lines back from
 * history first.  Returns how far the content moved down (negative: up)
 * so the caller can move the cursor. */
int grid_resize(struct grid *grid, int rows, int cols, int keep_row);
/* Resize a screen the alternate one hid, as it is shown again, around
 * the row of the cursor saved with it (DECSC, 1049), as tmux resizes
 * the screen it saved: growing pulls lines back from history (the
 * content moves down), shrinking drops rows below the saved row first,
 * blank or not, then moves rows from the top into history only as far
 * as the saved row must move to stay on screen.  Returns how far the
 * content moved down (negative: up), which is how far the saved cursor
 * must move with it. */
int grid_resize_saved(struct grid *grid, int rows, int cols, int keep_row);

/* Rewrap every line, history and screen, at `cols` (tmux's reflow): a
 * logical line (lines joined by `wrapped`) longer than `cols` is split,
 * wrapped lines rejoin, other lines move across untouched.  The screen is
 * then the last `rows` lines, history the rest (its limit kept).  The
 * cursor, in and out through row/col when not NULL, stays on the same
 * character of its logical line; a cursor past the end of its line's
 * text goes to the end of it, as in tmux (col may come out == cols).  A
 * cursor that would fall into history goes to 0,0. */
void grid_reflow(struct grid *grid, int cols, int *row, int *col);

void grid_set_history_limit(struct grid *grid, int limit);
/* Drop every history line (ED 3, clear(1)); the limit stays. */
void grid_clear_history(struct grid *grid);
size_t grid_memory(const struct grid *grid);

#endif
