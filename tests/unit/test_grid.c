/*
 * test_grid: the compact grid on its own, without a parser in front.
 *
 * Rows are written with a small helper that puts one ASCII string into a
 * row, and read back as strings, so each test states the grid it expects.
 * The invariants from grid.c get a test each: the ring wraps, history is
 * bounded and trimmed, extended entries are reused, wide characters never
 * leave half of themselves behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grid.h"

static void put_text(struct grid *grid, int row, const char *text)
{
	struct grid_line *line = grid_get_line(grid, row);
	struct term_cell cell = {.width = 1};

	for (int col = 0; text[col]; col++) {
		cell.chars[0] = (unsigned char)text[col];
		grid_line_set(line, col, &cell);
	}
}

/* Row as text: blanks are spaces, trailing ones trimmed, wide padding '|'. */
static const char *row_text(const struct grid *grid, int row)
{
	static char text[256];
	const struct grid_line *line = grid_get_line(grid, row);
	struct term_cell cell;
	int len = 0;

	for (int col = 0; col < grid->cols; col++) {
		grid_line_get(line, col, &cell);
		if (cell.width == 0)
			text[len++] = '|';
		else if (cell.chars[0] > 0x7f)
			text[len++] = 'W';
		else
			text[len++] = cell.chars[0] ? (char)cell.chars[0] : ' ';
	}
	while (len > 0 && text[len - 1] == ' ')
		len--;
	text[len] = '\0';
	return text;
}

static void test_blank_grid(void **state)
{
	struct grid *grid = grid_new(3, 5, 10);

	for (int row = 0; row < 3; row++)
		assert_string_equal(row_text(grid, row), "");
	assert_null(grid_get_line(grid, 3));
	assert_null(grid_get_line(grid, -1));
	grid_free(grid);
}

static void test_ring_wraps(void **state)
{
	struct grid *grid = grid_new(3, 5, 100);
	char text[8];

	/* Write a row, scroll, repeat: the ring index goes round many times. */
	for (int i = 0; i < 10; i++) {
		snprintf(text, sizeof text, "r%d", i);
		put_text(grid, 2, text);
		grid_scroll_up(grid, 0, 3, 1, true, NULL);
	}
	assert_string_equal(row_text(grid, 0), "r8");
	assert_string_equal(row_text(grid, 1), "r9");
	assert_string_equal(row_text(grid, 2), "");
	/* History: the two rows that started blank, then r0..r7. */
	assert_int_equal(grid->history.count, 10);
	assert_string_equal(row_text(grid, -1), "r7");
	assert_string_equal(row_text(grid, -8), "r0");
	assert_string_equal(row_text(grid, -9), "");
	assert_string_equal(row_text(grid, -6), "r2");
	grid_free(grid);
}

static void test_history_limit_drops_oldest(void **state)
{
	struct grid *grid = grid_new(2, 8, 3);
	char text[16];

	for (int i = 0; i < 50; i++) {
		snprintf(text, sizeof text, "line%d", i);
		put_text(grid, 0, text);
		grid_scroll_up(grid, 0, 2, 1, true, NULL);
	}
	assert_int_equal(grid->history.count, 3);
	assert_string_equal(row_text(grid, -1), "line49");
	assert_string_equal(row_text(grid, -3), "line47");

	grid_set_history_limit(grid, 1);
	assert_int_equal(grid->history.count, 1);
	assert_string_equal(row_text(grid, -1), "line49");
	grid_set_history_limit(grid, 0);
	assert_int_equal(grid->history.count, 0);
	grid_free(grid);
}

static void test_history_is_trimmed(void **state)
{
	struct grid *grid = grid_new(2, 200, 10);

	put_text(grid, 0, "short   ");
	grid_scroll_up(grid, 0, 2, 1, true, NULL);
	const struct grid_line *line = grid_get_line(grid, -1);
	assert_int_equal(line->cap, 5);
	assert_int_equal(line->used, 5);
	assert_string_equal(row_text(grid, -1), "short");

	grid_scroll_up(grid, 0, 2, 1, true, NULL); /* a blank row costs no cells */
	assert_int_equal(grid_get_line(grid, -1)->cap, 0);
	grid_free(grid);
}

static void test_scroll_without_history(void **state)
{
	struct grid *grid = grid_new(3, 5, 10);

	put_text(grid, 0, "a");
	put_text(grid, 1, "b");
	put_text(grid, 2, "c");
	grid_scroll_up(grid, 0, 3, 1, false, NULL);
	assert_int_equal(grid->history.count, 0);
	assert_string_equal(row_text(grid, 0), "b");
	assert_string_equal(row_text(grid, 2), "");
	grid_free(grid);
}

static void test_region_scrolls(void **state)
{
	struct grid *grid = grid_new(4, 5, 10);
	const char *rows[] = {"a", "b", "c", "d"};

	for (int row = 0; row < 4; row++)
		put_text(grid, row, rows[row]);
	grid_scroll_up(grid, 1, 3, 1, false, NULL);
	assert_string_equal(row_text(grid, 0), "a");
	assert_string_equal(row_text(grid, 1), "c");
	assert_string_equal(row_text(grid, 2), "");
	assert_string_equal(row_text(grid, 3), "d");

	grid_scroll_down(grid, 0, 4, 2, NULL);
	assert_string_equal(row_text(grid, 0), "");
	assert_string_equal(row_text(grid, 1), "");
	assert_string_equal(row_text(grid, 2), "a");
	assert_string_equal(row_text(grid, 3), "c");

	grid_scroll_down(grid, 2, 4, 9, NULL); /* more than the region: all blank */
	assert_string_equal(row_text(grid, 2), "");
	assert_string_equal(row_text(grid, 3), "");
	grid_free(grid);
}

static void test_cells_are_five_bytes(void **state)
{
	assert_int_equal(sizeof(struct grid_cell), 5);
}

static void test_palette_and_rgb_cells(void **state)
{
	struct grid *grid = grid_new(1, 4, 0);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_cell in = {.chars = {'x'}, .width = 1}, out;

	in.style.fg = (struct term_color){.kind = TERM_COLOR_PALETTE, .index = 200};
	in.style.attrs = TERM_ATTR_BOLD;
	grid_line_set(line, 0, &in);
	assert_int_equal(line->ext_used, 0); /* palette colours stay compact */

	in.style.bg = (struct term_color){.kind = TERM_COLOR_RGB, .r = 1, .g = 2, .b = 3};
	grid_line_set(line, 1, &in);
	assert_int_equal(line->ext_used, 1);

	grid_line_get(line, 0, &out);
	assert_int_equal(out.style.fg.index, 200);
	assert_int_equal(out.style.bg.kind, TERM_COLOR_DEFAULT);
	grid_line_get(line, 1, &out);
	assert_int_equal(out.style.bg.kind, TERM_COLOR_RGB);
	assert_int_equal(out.style.bg.b, 3);
	assert_int_equal(out.style.attrs, TERM_ATTR_BOLD);
	grid_free(grid);
}

static void test_ext_entries_reused(void **state)
{
	struct grid *grid = grid_new(1, 4, 0);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_cell rgb = {.chars = {'x'}, .width = 1}, plain = {.chars = {'y'}, .width = 1};

	rgb.style.fg = (struct term_color){.kind = TERM_COLOR_RGB, .r = 9};
	for (int i = 0; i < 1000; i++) {
		grid_line_set(line, i % 4, &rgb);
		grid_line_set(line, (i + 2) % 4, &plain);
	}
	assert_true(line->ext_used <= 4);
	assert_true(line->ext_cap <= 4);
	grid_line_erase(line, 0, 4, NULL);
	assert_int_equal(line->ext_used, 0);
	grid_free(grid);
}

static void test_wide_chars(void **state)
{
	struct grid *grid = grid_new(1, 6, 0);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_cell wide = {.chars = {0x4e2d}, .width = 2};
	struct term_cell narrow = {.chars = {'n'}, .width = 1};

	grid_line_set(line, 1, &wide);
	grid_line_set(line, 3, &wide);
	assert_string_equal(row_text(grid, 0), " W|W|");

	grid_line_set(line, 2, &narrow); /* right half: the wide char goes */
	assert_string_equal(row_text(grid, 0), "  nW|");
	grid_line_set(line, 3, &narrow); /* left half: its padding goes */
	assert_string_equal(row_text(grid, 0), "  nn");

	grid_line_set(line, 5, &wide); /* at the edge: no room for padding */
	struct term_cell out;
	grid_line_get(line, 5, &out);
	assert_int_equal(out.width, 2);
	grid_line_erase(line, 0, 6, NULL);
	assert_int_equal(line->ext_used, 0);
	assert_int_equal(line->used, 0);
	grid_free(grid);
}

static void test_combining_chars(void **state)
{
	struct grid *grid = grid_new(1, 4, 0);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_cell in = {.chars = {'e', 0x301, 0x302}, .width = 1}, out;

	grid_line_set(line, 0, &in);
	grid_line_get(line, 0, &out);
	assert_memory_equal(out.chars, in.chars, sizeof in.chars);
	grid_free(grid);
}

static void test_erase_with_background(void **state)
{
	struct grid *grid = grid_new(1, 6, 0);
	struct grid_line *line = grid_get_line(grid, 0);
	struct term_style bg = {.bg = {.kind = TERM_COLOR_PALETTE, .index = 4}};
	struct term_cell out;

	put_text(grid, 0, "abcdef");
	grid_line_erase(line, 2, 6, &bg);
	assert_string_equal(row_text(grid, 0), "ab");
	grid_line_get(line, 5, &out);
	assert_int_equal(out.style.bg.index, 4);
	assert_int_equal(line->used, 6); /* coloured blanks still draw */

	grid_line_erase(line, 1, 6, NULL);
	assert_int_equal(line->used, 1);
	grid_free(grid);
}

static void test_resize(void **state)
{
	struct grid *grid = grid_new(3, 6, 10);
	struct term_cell wide = {.chars = {0x4e2d}, .width = 2};

	put_text(grid, 0, "top");
	put_text(grid, 1, "abc");
	grid_line_set(grid_get_line(grid, 1), 3, &wide);
	put_text(grid, 2, "bottom");

	assert_int_equal(grid_resize(grid, 3, 4, 2), 0); /* wide cut in half: gone */
	assert_string_equal(row_text(grid, 1), "abc");
	assert_string_equal(row_text(grid, 2), "bott");
	grid_line_set(grid_get_line(grid, 1), 0, &wide); /* the freed entry is reused */
	assert_int_equal(grid_get_line(grid, 1)->ext_used, 1);
	put_text(grid, 1, "abc");

	assert_int_equal(grid_resize(grid, 2, 4, 2), -1); /* top row into history */
	assert_string_equal(row_text(grid, -1), "top");
	assert_string_equal(row_text(grid, 0), "abc");

	assert_int_equal(grid_resize(grid, 4, 8, 1), 1); /* pulled back */
	assert_int_equal(grid->history.count, 0);
	assert_string_equal(row_text(grid, 0), "top");
	assert_string_equal(row_text(grid, 2), "bott");
	assert_string_equal(row_text(grid, 3), "");
	put_text(grid, 3, "12345678");
	assert_string_equal(row_text(grid, 3), "12345678");
	grid_free(grid);
}

static void test_resize_keeps_cursor_row(void **state)
{
	struct grid *grid = grid_new(5, 4, 10);

	put_text(grid, 0, "a");
	put_text(grid, 1, "b");
	assert_int_equal(grid_resize(grid, 2, 4, 1), 0); /* blank rows go first */
	assert_int_equal(grid->history.count, 0);
	assert_string_equal(row_text(grid, 1), "b");
	grid_free(grid);
}

static void test_reused_history_storage_reads_blank(void **state)
{
	struct grid *grid = grid_new(1, 20, 1);

	put_text(grid, 0, "0123456789abcdef");
	grid_scroll_up(grid, 0, 1, 1, true, NULL);
	put_text(grid, 0, "0123456789abcde");
	grid_scroll_up(grid, 0, 1, 1, true, NULL); /* packed into the 16-cell line's storage */
	assert_int_equal(grid_get_line(grid, -1)->cap, 15);

	grid_resize(grid, 2, 20, 0); /* pulled back on screen, then written past */
	assert_string_equal(row_text(grid, 0), "0123456789abcde");
	struct term_cell wide = {.chars = {0x4e2d}, .width = 2};
	grid_line_set(grid_get_line(grid, 0), 18, &wide);
	assert_string_equal(row_text(grid, 0), "0123456789abcde   W|");
	grid_free(grid);
}

static void test_shrink_keeps_cursor_on_screen(void **state)
{
	struct grid *grid = grid_new(4, 4, 10);
	const char *rows[] = {"a", "b", "c", "d"};

	for (int row = 0; row < 4; row++)
		put_text(grid, row, rows[row]);
	/* Cursor on row 1 with content below: one row may go to history, the
	 * rest is cut from the bottom. */
	assert_int_equal(grid_resize(grid, 1, 4, 1), -1);
	assert_string_equal(row_text(grid, 0), "b");
	assert_string_equal(row_text(grid, -1), "a");
	assert_int_equal(grid->history.count, 1);
	grid_free(grid);
}

static size_t resident_pages(const struct grid *grid)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (grid->block_size + page - 1) / page;
	unsigned char *vec = calloc(pages, 1);
	size_t resident = 0;

	assert_int_equal(mincore(grid->block, grid->block_size, vec), 0);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

/* An idle pane's screen costs no memory: its rows' cells are untouched
 * pages until written; a resize gives rows storage of their own and the
 * block goes, the text kept. */
static void test_blank_rows_cost_no_pages(void **state)
{
	struct grid *grid = grid_new(50, 200, 10);

	assert_non_null(grid->block);
	assert_int_equal(resident_pages(grid), 0);
	for (int row = 0; row < 50; row++)
		assert_string_equal(row_text(grid, row), "");
	assert_int_equal(resident_pages(grid), 0);
	put_text(grid, 20, "written");
	assert_true(resident_pages(grid) >= 1);
	assert_true(resident_pages(grid) <= 2);

	grid_resize(grid, 50, 120, -1);
	assert_null(grid->block);
	assert_string_equal(row_text(grid, 20), "written");
	grid_free(grid);
}

static void test_full_history_memory(void **state)
{
	enum { ROWS = 50, COLS = 200, LINES = 10000 };
	struct grid *grid = grid_new(ROWS, COLS, LINES);
	char text[COLS + 1];

	memset(text, 'x', COLS);
	text[COLS] = '\0';
	for (int i = 0; i < LINES + ROWS; i++) {
		put_text(grid, ROWS - 1, text);
		grid_scroll_up(grid, 0, ROWS, 1, true, NULL);
	}
	assert_int_equal(grid->history.count, LINES);
	size_t cells = (size_t)(LINES + ROWS) * COLS;
	size_t memory = grid_memory(grid);
	/* Five bytes a cell plus a small per-line overhead. */
	assert_true(memory <= cells * 5 + (size_t)(LINES + ROWS) * 48);

	/* Full: more output recycles the oldest lines, memory stays put. */
	for (int i = 0; i < 1000; i++) {
		put_text(grid, ROWS - 1, text);
		grid_scroll_up(grid, 0, ROWS, 1, true, NULL);
	}
	assert_int_equal(grid_memory(grid), memory);
	grid_free(grid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blank_grid),
	    cmocka_unit_test(test_ring_wraps),
	    cmocka_unit_test(test_history_limit_drops_oldest),
	    cmocka_unit_test(test_history_is_trimmed),
	    cmocka_unit_test(test_scroll_without_history),
	    cmocka_unit_test(test_region_scrolls),
	    cmocka_unit_test(test_cells_are_five_bytes),
	    cmocka_unit_test(test_palette_and_rgb_cells),
	    cmocka_unit_test(test_ext_entries_reused),
	    cmocka_unit_test(test_wide_chars),
	    cmocka_unit_test(test_combining_chars),
	    cmocka_unit_test(test_erase_with_background),
	    cmocka_unit_test(test_resize),
	    cmocka_unit_test(test_resize_keeps_cursor_row),
	    cmocka_unit_test(test_reused_history_storage_reads_blank),
	    cmocka_unit_test(test_shrink_keeps_cursor_on_screen),
	    cmocka_unit_test(test_blank_rows_cost_no_pages),
	    cmocka_unit_test(test_full_history_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
