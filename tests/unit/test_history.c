/*
 * test_history: packed scrollback gives back exactly what left the screen.
 *
 * Every kind of cell the grid stores (plain ASCII, Latin-1, attributes,
 * palette and 256 colours, RGB, wide characters and their padding,
 * combining marks, a blank with a background colour) goes into history
 * and is read back cell by cell, with the line's width and wrapped mark.
 * A reflow over packed history must equal the same reflow over the same
 * lines kept unpacked on a screen tall enough to hold them all.  A
 * search's read of a packed line (history_chars) equals the cells'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grid.h"

static struct term_cell ascii(char ch)
{
	struct term_cell cell = {.width = 1};
	cell.chars[0] = (unsigned char)ch;
	return cell;
}

static struct term_style palette(uint8_t attrs, int fg, int bg)
{
	struct term_style style = {.attrs = attrs};
	if (fg >= 0) {
		style.fg.kind = TERM_COLOR_PALETTE;
		style.fg.index = (uint8_t)fg;
	}
	if (bg >= 0) {
		style.bg.kind = TERM_COLOR_PALETTE;
		style.bg.index = (uint8_t)bg;
	}
	return style;
}

/* One line with every kind of cell, from column 0; returns its width. */
static int put_every_kind(struct grid_line *line)
{
	struct term_cell cell;
	int col = 0;

	for (const char *s = "plain "; *s; s++) {
		cell = ascii(*s);
		grid_line_set(line, col++, &cell);
	}
	cell = ascii('B');
	cell.style = palette(TERM_ATTR_BOLD | TERM_ATTR_UNDERLINE, 1, 4);
	grid_line_set(line, col++, &cell);
	cell = ascii('x');
	cell.style = palette(TERM_ATTR_REVERSE, 196, 232); /* 256 colours */
	grid_line_set(line, col++, &cell);
	cell = ascii(0);
	cell.chars[0] = 0xe9; /* é, Latin-1: a simple cell */
	grid_line_set(line, col++, &cell);
	cell = ascii('r');
	cell.style.fg.kind = TERM_COLOR_RGB;
	cell.style.fg.r = 10, cell.style.fg.g = 20, cell.style.fg.b = 30;
	cell.style.bg.kind = TERM_COLOR_RGB;
	cell.style.bg.r = 200, cell.style.bg.g = 100, cell.style.bg.b = 0;
	grid_line_set(line, col++, &cell);
	cell = ascii(0);
	cell.chars[0] = 0x4e2d; /* 中, wide */
	cell.width = 2;
	cell.style = palette(TERM_ATTR_ITALIC, 2, -1);
	grid_line_set(line, col, &cell);
	col += 2;
	cell = ascii('e');
	cell.chars[1] = 0x301; /* combining acute */
	cell.chars[2] = 0x323; /* and a dot below */
	grid_line_set(line, col++, &cell);
	cell = ascii(0);
	cell.chars[0] = 0x1f600; /* an emoji, wide, right after another wide one */
	cell.width = 2;
	grid_line_set(line, col, &cell);
	col += 2;
	struct term_style bg = palette(0, -1, 3);
	grid_line_erase(line, col, col + 3, &bg); /* blanks wearing a background */
	col += 3;
	cell = ascii('z');
	grid_line_set(line, col++, &cell);
	return col;
}

static void assert_cells_equal(const struct grid_line *a, const struct grid_line *b, int cols)
{
	struct term_cell x, y;

	for (int col = 0; col < cols; col++) {
		grid_line_get(a, col, &x);
		grid_line_get(b, col, &y);
		if (memcmp(&x, &y, sizeof x) != 0)
			fail_msg("column %d differs: U+%04X width %d against U+%04X width %d", col,
				 x.chars[0], x.width, y.chars[0], y.width);
	}
}

static void test_every_kind_of_cell_round_trips(void **state)
{
	enum { COLS = 40 };
	struct grid *grid = grid_new(2, COLS, 10);
	struct grid *copy = grid_new(1, COLS, 0);
	int width = put_every_kind(grid_get_line(grid, 0));

	put_every_kind(grid_get_line(copy, 0));
	grid_scroll_up(grid, 0, 2, 1, true, NULL);
	const struct grid_line *packed = grid_get_line(grid, -1);
	assert_non_null(packed);
	assert_int_equal(packed->used, width);
	assert_false(packed->wrapped);
	assert_cells_equal(packed, grid_get_line(copy, 0), COLS);

	/* Back on screen through a resize: the same cells, now writable. */
	grid_resize(grid, 3, COLS, -1);
	assert_int_equal(grid->history.count, 0);
	assert_cells_equal(grid_get_line(grid, 0), grid_get_line(copy, 0), COLS);
	struct term_cell cell = ascii('!');
	grid_line_set(grid_get_line(grid, 0), width, &cell);
	grid_line_get(grid_get_line(grid, 0), width, &cell);
	assert_int_equal(cell.chars[0], '!');
	grid_free(grid);
	grid_free(copy);
}

/* What a search reads of the line's first `width` columns, cell by cell
 * from the unpacked line (then blanks). */
static int chars_of_cells(const struct grid_line *line, int width, uint32_t *chars, int *columns)
{
	struct term_cell cell;
	int n = 0;

	for (int col = 0; col < width; col++) {
		grid_line_get(line, col, &cell);
		if (cell.width == 0)
			continue;
		chars[n] = cell.chars[0] ? cell.chars[0] : ' ';
		columns[n++] = col;
	}
	return n;
}

/* A search reads history packed (history_chars): the characters and
 * columns it gets are the unpacked cells', at every width it is cut to,
 * through runs of extended cells, wide padding and trailing blanks. */
static void test_chars_read_packed_equal_the_cells(void **state)
{
	enum { COLS = 40 };
	struct grid *grid = grid_new(2, COLS, 10);
	struct grid *copy = grid_new(1, COLS, 0);
	uint32_t want[COLS], got[COLS];
	int want_columns[COLS], got_columns[COLS];
	int width = put_every_kind(grid_get_line(grid, 0));

	put_every_kind(grid_get_line(copy, 0));
	grid_scroll_up(grid, 0, 2, 1, true, NULL);
	for (int cut = 0; cut <= COLS; cut++) {
		int covered, n = history_chars(&grid->history, 0, cut, got, got_columns, &covered);
		int expected = chars_of_cells(grid_get_line(copy, 0), covered, want, want_columns);

		assert_int_equal(covered, cut < width ? cut : width);
		assert_int_equal(n, expected);
		for (int i = 0; i < n; i++) {
			if (got[i] != want[i] || got_columns[i] != want_columns[i])
				fail_msg("cut %d, char %d: U+%04X at %d against U+%04X at %d", cut, i,
					 got[i], got_columns[i], want[i], want_columns[i]);
		}
	}
	grid_free(grid);
	grid_free(copy);
}

static void test_wrapped_mark_and_its_blanks_survive(void **state)
{
	struct grid *grid = grid_new(2, 10, 10);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_cell cell = ascii('a');

	grid_line_set(line, 0, &cell);
	cell = ascii(' ');
	for (int col = 1; col < 10; col++)
		grid_line_set(line, col, &cell);
	line->wrapped = true;
	grid_scroll_up(grid, 0, 2, 1, true, NULL);
	/* A wrapped line keeps its trailing blanks: its text goes on through them. */
	assert_int_equal(grid_get_line(grid, -1)->used, 10);
	assert_true(grid_get_line(grid, -1)->wrapped);

	line = grid_get_line(grid, 0);
	cell = ascii('b');
	grid_line_set(line, 0, &cell);
	cell = ascii(' ');
	grid_line_set(line, 1, &cell);
	grid_scroll_up(grid, 0, 2, 1, true, NULL);
	/* An unwrapped one is trimmed. */
	assert_int_equal(grid_get_line(grid, -1)->used, 1);
	assert_false(grid_get_line(grid, -1)->wrapped);
	assert_true(grid_get_line(grid, -2)->wrapped);
	grid_free(grid);
}

/* Fill `lines` logical lines of assorted lengths and kinds, scrolling a
 * grid of `rows` rows as a terminal would (autowrap marks the row). */
static void fill(struct grid *grid, int lines)
{
	int row = 0, col = 0;

	for (int n = 0; n < lines; n++) {
		int length = (n * 37) % 97;
		for (int i = 0; i < length; i++) {
			struct term_cell cell = ascii((char)('a' + (n + i) % 26));
			if (n % 5 == 0 && i % 9 == 4) {
				cell.chars[0] = 0x4e00 + (uint32_t)i;
				cell.width = 2;
			} else if (n % 3 == 0) {
				cell.style = palette(TERM_ATTR_BOLD, n % 16, -1);
			}
			if (col + cell.width > grid->cols) {
				grid_get_line(grid, row)->wrapped = true;
				col = 0;
				if (++row == grid->rows) {
					grid_scroll_up(grid, 0, grid->rows, 1, true, NULL);
					row--;
				}
			}
			grid_line_set(grid_get_line(grid, row), col, &cell);
			col += cell.width;
		}
		col = 0;
		if (++row == grid->rows) {
			grid_scroll_up(grid, 0, grid->rows, 1, true, NULL);
			row--;
		}
	}
}

/* Every line, history then screen, with trailing blank lines left out. */
static int all_lines(struct grid *grid, struct grid_line **out)
{
	int total = grid->history.count + grid->rows, n = 0;

	*out = calloc((size_t)total, sizeof **out);
	for (int row = -grid->history.count; row < grid->rows; row++) {
		const struct grid_line *line = grid_get_line(grid, row);
		struct grid_line *copy = &(*out)[n++];
		copy->used = line->used;
		copy->wrapped = line->wrapped;
		copy->cap = line->used;
		copy->cells = calloc(line->used + 1u, sizeof *copy->cells);
		for (int col = 0; col < line->used; col++) {
			struct term_cell cell;
			grid_line_get(line, col, &cell);
			/* Decoded, then stored again: comparable across grids. */
			copy->cells[col].ch = (uint8_t)(cell.chars[0] & 0xff);
			copy->cells[col].attr = cell.style.attrs;
			copy->cells[col].flags = cell.width;
			copy->cells[col].fg = cell.style.fg.index;
			copy->cells[col].bg = (uint8_t)(cell.chars[0] >> 8);
		}
	}
	while (n > 0 && (*out)[n - 1].used == 0)
		free((*out)[--n].cells);
	return n;
}

static void test_reflow_over_packed_history_equals_unpacked(void **state)
{
	enum { LINES = 300, COLS = 50 };
	int widths[] = {23, 80, 7, 50, 131};

	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		/* The same output into a small screen (most of it packed in
		 * history) and into a screen that holds all of it. */
		struct grid *packed = grid_new(10, COLS, 100000);
		struct grid *screen = grid_new(2000, COLS, 100000);
		struct grid_line *a, *b;

		fill(packed, LINES);
		fill(screen, LINES);
		assert_true(packed->history.count > LINES / 2);
		assert_int_equal(screen->history.count, 0);
		grid_reflow(packed, widths[w], NULL, NULL);
		grid_reflow(screen, widths[w], NULL, NULL);

		int na = all_lines(packed, &a), nb = all_lines(screen, &b);
		assert_int_equal(na, nb);
		for (int i = 0; i < na; i++) {
			if (a[i].used != b[i].used || a[i].wrapped != b[i].wrapped ||
			    memcmp(a[i].cells, b[i].cells, a[i].used * sizeof *a[i].cells) != 0)
				fail_msg("width %d, line %d of %d differs", widths[w], i, na);
			free(a[i].cells);
			free(b[i].cells);
		}
		free(a);
		free(b);
		grid_free(packed);
		grid_free(screen);
	}
}

/* A cursor on a logical line that starts in history keeps its character
 * through a reflow, as it does when the whole line is on screen. */
static void test_reflow_cursor_on_a_line_from_history(void **state)
{
	int rows[] = {3, 12}, at_row[2], at_col[2];

	for (int g = 0; g < 2; g++) {
		struct grid *grid = grid_new(rows[g], 10, 100);
		int row = 0;

		/* 45 characters, autowrapped at 10: five lines. */
		for (int i = 0; i < 45; i++) {
			if (i > 0 && i % 10 == 0) {
				grid_get_line(grid, row)->wrapped = true;
				if (row + 1 == grid->rows)
					grid_scroll_up(grid, 0, grid->rows, 1, true, NULL);
				else
					row++;
			}
			struct term_cell cell = ascii((char)('A' + i % 26));
			grid_line_set(grid_get_line(grid, row), i % 10, &cell);
		}
		at_row[g] = row;
		at_col[g] = 3; /* on the 44th character, 'R' */
		grid_reflow(grid, 4, &at_row[g], &at_col[g]);
		struct term_cell cell;
		grid_line_get(grid_get_line(grid, at_row[g]), at_col[g], &cell);
		assert_int_equal(cell.chars[0], 'A' + 43 % 26);
		grid_free(grid);
	}
	assert_int_equal(at_col[0], at_col[1]);
}

/* Plain text costs about its bytes: the point of packing. */
static void test_plain_history_costs_its_text(void **state)
{
	enum { ROWS = 50, COLS = 200, LINES = 10000 };
	struct grid *grid = grid_new(ROWS, COLS, LINES);

	for (int i = 0; i < LINES + ROWS; i++) {
		for (int col = 0; col < COLS; col++) {
			struct term_cell cell = ascii((char)('!' + (i + col) % 90));
			grid_line_set(grid_get_line(grid, ROWS - 1), col, &cell);
		}
		grid_scroll_up(grid, 0, ROWS, 1, true, NULL);
	}
	assert_int_equal(grid->history.count, LINES);
	size_t history = history_memory(&grid->history);
	assert_true(history <= (size_t)LINES * (COLS + 40));
	/* Full: more output recycles the oldest lines' storage. */
	for (int i = 0; i < 1000; i++) {
		for (int col = 0; col < COLS; col++) {
			struct term_cell cell = ascii('y');
			grid_line_set(grid_get_line(grid, ROWS - 1), col, &cell);
		}
		grid_scroll_up(grid, 0, ROWS, 1, true, NULL);
	}
	assert_int_equal(history_memory(&grid->history), history);
	grid_free(grid);
}

/* ED 3 and a lowered limit drop lines; a read after either sees the change. */
static void test_clear_and_limit(void **state)
{
	struct grid *grid = grid_new(1, 10, 5);

	for (int i = 0; i < 8; i++) {
		struct term_cell cell = ascii((char)('0' + i));
		grid_line_set(grid_get_line(grid, 0), 0, &cell);
		grid_scroll_up(grid, 0, 1, 1, true, NULL);
	}
	struct term_cell cell;
	assert_int_equal(grid->history.count, 5);
	grid_line_get(grid_get_line(grid, -5), 0, &cell);
	assert_int_equal(cell.chars[0], '3');
	grid_set_history_limit(grid, 2);
	grid_line_get(grid_get_line(grid, -2), 0, &cell);
	assert_int_equal(cell.chars[0], '6');
	grid_clear_history(grid);
	assert_null(grid_get_line(grid, -1));
	grid_free(grid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_kind_of_cell_round_trips),
	    cmocka_unit_test(test_chars_read_packed_equal_the_cells),
	    cmocka_unit_test(test_wrapped_mark_and_its_blanks_survive),
	    cmocka_unit_test(test_reflow_over_packed_history_equals_unpacked),
	    cmocka_unit_test(test_reflow_cursor_on_a_line_from_history),
	    cmocka_unit_test(test_plain_history_costs_its_text),
	    cmocka_unit_test(test_clear_and_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
