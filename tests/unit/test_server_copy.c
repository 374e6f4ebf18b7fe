/*
 * test_server_copy: copy mode on the server's path (src/server-copy.c).
 *
 * The view is the screen as it was when copy mode began and the history
 * above it, read from the pane's grid: output arriving after that moves
 * nothing (the lines it pushes into history are counted away), and a
 * line that fell off the history's end reads blank; a history the
 * program emptied (ED 3) gives a new view.  Search wraps at the
 * ends, n keeps the direction and N goes against it; a copy is the
 * selection's text, trailing blanks dropped; the position says how far
 * up the view is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bindings.h"
#include "server-copy.h"
#include "server.h"
#include "term.h"

#define ROWS 5
#define COLS 20

/* A pane with lines "1".."n" written to it (the cursor on the row after
 * the last). */
static void pane_with_lines(struct pane *p, int n, int limit)
{
	memset(p, 0, sizeof *p);
	p->id = 7;
	p->rows = ROWS;
	p->cols = COLS;
	p->term = term_new(ROWS, COLS, limit);
	for (int i = 1; i <= n; i++) {
		char line[32];
		int len = snprintf(line, sizeof line, "%d\r\n", i);

		term_write(p->term, line, (size_t)len);
	}
}

/* The view's row as text, trailing blanks dropped. */
static void row_text(const struct server_copy *copy, const struct pane *p, int row, char *out)
{
	struct term_cell cells[COLS];
	bool selected[COLS], matched[COLS];
	int n = 0, keep = 0;

	server_copy_row(copy, p, row, cells, selected, matched);
	for (int col = 0; col < COLS; col++) {
		out[n++] = cells[col].chars[0] ? (char)cells[col].chars[0] : ' ';
		if (cells[col].chars[0])
			keep = n;
	}
	out[keep] = '\0';
}

static void cursor_text(const struct server_copy *copy, const struct pane *p, char *out)
{
	int row, col;

	server_copy_cursor(copy, &row, &col);
	row_text(copy, p, row, out);
}

/* Keys through the default copy-mode table, as the server has it. */
static void key(struct server_copy *copy, const struct pane *p, const char *name,
		struct server_copy_result *r)
{
	struct mode_tables tables;

	mode_tables_init(&tables);
	server_copy_key(copy, p, &tables, name, r);
	mode_tables_free(&tables);
}

static void test_view_frozen(void **state)
{
	struct server_copy copy = {0};
	struct server_copy_result r;
	struct pane p;
	char text[COLS + 1], position[32];

	(void)state;
	pane_with_lines(&p, 30, 100);
	server_copy_enter(&copy, &p, false);
	/* Rows: 27 28 29 30 and the empty prompt row; 26 lines above. */
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "27");
	server_copy_position(&copy, position, sizeof position);
	assert_string_equal(position, "[0/26]");
	key(&copy, &p, "PageUp", &r);
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "22");
	server_copy_position(&copy, position, sizeof position);
	assert_string_equal(position, "[5/26]");
	/* Output underneath: 10 more lines go into history; the view stays. */
	for (int i = 31; i <= 40; i++) {
		char line[32];
		int len = snprintf(line, sizeof line, "%d\r\n", i);

		term_write(p.term, line, (size_t)len);
	}
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "22");
	key(&copy, &p, "G", &r);
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "27"); /* the frozen screen, not 37 */
	key(&copy, &p, "g", &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "1");
	key(&copy, &p, "q", &r);
	assert_int_equal(r.action, SERVER_COPY_LEAVE);
	assert_false(copy.active);
	term_free(p.term);
}

static void test_history_end_blank(void **state)
{
	struct server_copy copy = {0};
	struct server_copy_result r;
	struct pane p;
	char text[COLS + 1];

	(void)state;
	pane_with_lines(&p, 20, 10); /* the history holds 10 lines: 7..16 */
	server_copy_enter(&copy, &p, false);
	key(&copy, &p, "g", &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "7");
	/* Five more lines: 7..11 fall off the history's end. */
	term_write(p.term, "a\r\nb\r\nc\r\nd\r\ne\r\n", 15);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "");
	row_text(&copy, &p, 5, text);
	assert_string_equal(text, "12");
	server_copy_leave(&copy);
	term_free(p.term);
}

/* clear(1) underneath (ED 2 and ED 3, twice, then a line): the history
 * is gone, and copy mode, scrolled up before, follows it at the next
 * draw: the pane as it is now, at the bottom, none of the cleared
 * lines, [0/0]. */
static void test_history_cleared(void **state)
{
	struct server_copy copy = {0};
	struct server_copy_result r;
	struct pane p;
	char text[COLS + 1], position[32];

	(void)state;
	pane_with_lines(&p, 30, 100);
	server_copy_enter(&copy, &p, false);
	key(&copy, &p, "PageUp", &r);
	server_copy_follow(&copy, &p); /* nothing cleared: nothing moves */
	server_copy_position(&copy, position, sizeof position);
	assert_string_equal(position, "[5/26]");
	term_write(p.term, "\033[H\033[2J\033[3J", 11);
	term_write(p.term, "x\r\n\033[H\033[2J\033[3Jafter", 19);
	assert_int_equal(term_history_lines(p.term), 0);
	server_copy_follow(&copy, &p);
	assert_true(copy.active);
	server_copy_position(&copy, position, sizeof position);
	assert_string_equal(position, "[0/0]");
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "after");
	for (int row = 1; row < ROWS; row++) {
		row_text(&copy, &p, row, text);
		assert_string_equal(text, "");
	}
	key(&copy, &p, "PageUp", &r);
	row_text(&copy, &p, 0, text);
	assert_string_equal(text, "after");
	server_copy_leave(&copy);
	term_free(p.term);
}

static void test_search(void **state)
{
	struct server_copy copy = {0};
	struct server_copy_result r;
	struct pane p;
	char text[COLS + 1];

	(void)state;
	pane_with_lines(&p, 40, 100);
	server_copy_enter(&copy, &p, false);
	server_copy_search(&copy, &p, "3", true, &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "39");
	key(&copy, &p, "n", &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "38");
	key(&copy, &p, "N", &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "39");
	/* Down past the last match wraps to the first. */
	key(&copy, &p, "N", &r);
	cursor_text(&copy, &p, text);
	assert_string_equal(text, "3");
	server_copy_search(&copy, &p, "nothing", false, &r);
	assert_int_equal(r.action, SERVER_COPY_MESSAGE);
	assert_non_null(strstr(r.message, "not found"));
	server_copy_leave(&copy);
	term_free(p.term);
}

static void test_copy(void **state)
{
	struct server_copy copy = {0};
	struct server_copy_result r;
	struct pane p;
	char *osc;

	(void)state;
	pane_with_lines(&p, 40, 100);
	server_copy_enter(&copy, &p, false);
	server_copy_search(&copy, &p, "24", true, &r);
	key(&copy, &p, "Space", &r);
	key(&copy, &p, "j", &r);
	key(&copy, &p, "$", &r);
	key(&copy, &p, "Enter", &r);
	assert_int_equal(r.action, SERVER_COPY_COPIED);
	assert_int_equal(r.source, 7);
	assert_string_equal(r.text, "24\n25");
	assert_false(copy.active);
	osc = server_copy_osc52(r.text, r.len);
	assert_string_equal(osc, "\033]52;c;MjQKMjU=\a");
	free(osc);
	free(r.text);
	/* Enter without a selection: the cursor's line. */
	server_copy_enter(&copy, &p, false);
	server_copy_search(&copy, &p, "17", true, &r);
	key(&copy, &p, "Enter", &r);
	assert_string_equal(r.text, "17");
	free(r.text);
	term_free(p.term);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_view_frozen),
	    cmocka_unit_test(test_history_end_blank),
	    cmocka_unit_test(test_history_cleared),
	    cmocka_unit_test(test_search),
	    cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
