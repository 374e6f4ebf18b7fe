/*
 * test_tty: the tty writer against a real terminal emulator.
 *
 * Each test composes cells into a tty writing to a pipe, reads what came
 * out of the pipe into sandmux's own emulator (term.h: libvterm's state
 * layer) and checks that the emulator shows exactly the cells composed,
 * with the cursor where it was put.  What is counted besides: how many
 * bytes a change costs, that a terminal which stops reading holds the
 * server to a bounded buffer, and that its frames merge into one
 * difference when it reads again.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "term.h"
#include "tty-term.h"
#include "tty.h"

#define ROWS 12
#define COLS 30

/* The attributes libvterm 0.1.4 keeps (it has no dim and no conceal). */
#define EMULATED_ATTRS                                                                             \
	(TERM_ATTR_BOLD | TERM_ATTR_ITALIC | TERM_ATTR_UNDERLINE | TERM_ATTR_BLINK |               \
	 TERM_ATTR_REVERSE | TERM_ATTR_STRIKE)

struct rig {
	int rfd, wfd;
	struct tty *tty;
	struct term *emu;
};

static void rig_open(struct rig *rig, const char *term_name, const char *colorterm, int rows,
		     int cols)
{
	struct tty_term tt;
	struct sm_error err = {0};
	int fds[2];

	assert_int_equal(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
	rig->rfd = fds[0];
	rig->wfd = fds[1];
	assert_int_equal(tty_term_load(&tt, term_name, colorterm, &err), 0);
	rig->tty = tty_new(rig->wfd, &tt, rows, cols);
	rig->emu = term_new(rows, cols, 0);
	tty_start(rig->tty);
}

static void rig_close(struct rig *rig)
{
	tty_free(rig->tty);
	term_free(rig->emu);
	close(rig->rfd);
	close(rig->wfd);
}

/* Read what the pipe holds into the emulator; returns the bytes read. */
static size_t read_pipe(struct rig *rig)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(rig->rfd, buf, sizeof(buf))) > 0) {
		term_write(rig->emu, buf, (size_t)n);
		total += (size_t)n;
	}
	assert_true(n == 0 || errno == EAGAIN);
	return total;
}

/* Flush, then let the terminal read until the tty has nothing left. */
static size_t flush_and_drain(struct rig *rig)
{
	size_t total;

	tty_flush(rig->tty);
	total = read_pipe(rig);
	while (tty_write_out(rig->tty) == 1 || tty_pending(rig->tty) > 0)
		total += read_pipe(rig);
	return total + read_pipe(rig);
}

/* A lone space and a never-written cell look the same on a terminal. */
static uint32_t first_char(const struct term_cell *cell)
{
	return cell->chars[0] == ' ' && cell->chars[1] == 0 ? 0 : cell->chars[0];
}

static void assert_color(const struct tty_term *tt, const struct term_color *wanted,
			 const struct term_color *got, int row, int col)
{
	struct term_color reduced = tty_color_reduce(tt, wanted);

	if (reduced.kind != got->kind ||
	    (reduced.kind == TERM_COLOR_PALETTE && reduced.index != got->index) ||
	    (reduced.kind == TERM_COLOR_RGB &&
	     (reduced.r != got->r || reduced.g != got->g || reduced.b != got->b)))
		fail_msg(
		    "colour at %d,%d: wanted kind %d index %d rgb %d,%d,%d, got kind %d index %d "
		    "rgb %d,%d,%d",
		    row, col, reduced.kind, reduced.index, reduced.r, reduced.g, reduced.b,
		    got->kind, got->index, got->r, got->g, got->b);
}

/* The emulator shows exactly what the tty was asked to show. */
static void assert_screen(struct rig *rig)
{
	struct tty *tty = rig->tty;
	int row, col;

	for (row = 0; row < tty->rows; row++) {
		for (col = 0; col < tty->cols; col++) {
			struct term_cell wanted, got;
			const struct term_cell *w = &wanted;

			tty_want_cell(tty, row, col, &wanted);

			assert_true(term_get_cell(rig->emu, row, col, &got));
			if (w->width == 0) {
				if (got.width != 0)
					fail_msg("cell %d,%d: wanted a wide character's right half",
						 row, col);
				continue;
			}
			if (first_char(w) != first_char(&got) || w->width != got.width)
				fail_msg("cell %d,%d: wanted U+%04X width %d, got U+%04X width %d",
					 row, col, w->chars[0], w->width, got.chars[0], got.width);
			for (int i = 1; i < TERM_MAX_CHARS && w->chars[i - 1]; i++)
				if (w->chars[i] != got.chars[i])
					fail_msg("cell %d,%d: combining mark %d differs: U+%04X "
						 "U+%04X, got U+%04X U+%04X",
						 row, col, i, w->chars[0], w->chars[i],
						 got.chars[0], got.chars[i]);
			if ((w->style.attrs & EMULATED_ATTRS) != got.style.attrs)
				fail_msg("cell %d,%d: attributes %02x, got %02x", row, col,
					 w->style.attrs & EMULATED_ATTRS, got.style.attrs);
			assert_color(&tty->term, &w->style.fg, &got.style.fg, row, col);
			assert_color(&tty->term, &w->style.bg, &got.style.bg, row, col);
		}
	}
	if (tty->want_cursor) {
		term_cursor(rig->emu, &row, &col);
		assert_int_equal(row, tty->want_row);
		assert_int_equal(col, tty->want_col);
	}
	assert_int_equal(term_cursor_visible(rig->emu), tty->want_cursor);
}

static struct term_color random_color(void)
{
	struct term_color c = {0};

	switch (rand() % 4) {
	case 0:
		break;
	case 1:
		c.kind = TERM_COLOR_PALETTE;
		c.index = (uint8_t)(rand() % 16);
		break;
	case 2:
		c.kind = TERM_COLOR_PALETTE;
		c.index = (uint8_t)(rand() % 256);
		break;
	default:
		c.kind = TERM_COLOR_RGB;
		c.r = (uint8_t)rand();
		c.g = (uint8_t)rand();
		c.b = (uint8_t)rand();
	}
	return c;
}

/* No combining mark in the last column: libvterm 0.1.4, the reference
 * here, drops one that follows a character there once G0 was designated
 * (ESC ( B, in xterm's sgr0), where xterm and tmux keep it. */
static void random_cell(struct term_cell *cell, int col)
{
	static const uint32_t chars[] = {'a', 'Z', '#', 0xe9, 0x3b1, 0x4e2d, 0x1f600, 0};

	memset(cell, 0, sizeof(*cell));
	cell->chars[0] = chars[rand() % (sizeof(chars) / sizeof(chars[0]))];
	cell->width = cell->chars[0] == 0x4e2d || cell->chars[0] == 0x1f600 ? 2 : 1;
	if (cell->chars[0] == 'a' && rand() % 3 == 0 && col < COLS - 1)
		cell->chars[1] = 0x301; /* a combining acute */
	if (rand() % 2) {
		cell->style.fg = random_color();
		cell->style.bg = random_color();
		cell->style.attrs = (uint8_t)(rand() & EMULATED_ATTRS);
	}
}

static void random_screen(struct tty *tty)
{
	for (int row = 0; row < tty->rows; row++)
		for (int col = 0; col < tty->cols; col++) {
			struct term_cell cell;

			random_cell(&cell, col);
			tty_set_cell(tty, row, col, &cell);
		}
}

static void test_full_screen_matches(void **state)
{
	struct rig rig;

	srand(28);
	rig_open(&rig, "xterm-256color", "truecolor", ROWS, COLS);
	random_screen(rig.tty);
	tty_set_cursor(rig.tty, 4, 7, true);
	assert_true(flush_and_drain(&rig) > 4096);
	assert_screen(&rig);
	assert_int_equal(rig.tty->redraws, 1);
	/* A screenful's buffer is not kept once written. */
	assert_true(rig.tty->cap <= 4096);
	rig_close(&rig);
}

static void test_nothing_changed_writes_nothing(void **state)
{
	struct rig rig;

	srand(1);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	assert_int_equal(flush_and_drain(&rig), 0);
	rig_close(&rig);
}

/* An echo: one character and the cursor after it, a few bytes. */
static void test_one_cell_costs_a_few_bytes(void **state)
{
	struct rig rig;
	struct term_cell cell = {.chars = {'x'}, .width = 1};
	size_t bytes;

	srand(2);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	tty_set_cursor(rig.tty, 5, 10, true);
	flush_and_drain(&rig);
	tty_set_cell(rig.tty, 5, 10, &cell);
	tty_set_cursor(rig.tty, 5, 11, true);
	bytes = flush_and_drain(&rig);
	assert_screen(&rig);
	assert_true(bytes > 0 && bytes <= 24);
	rig_close(&rig);
}

/* A flush compares only the rows composed into since the last one (an
 * echo's flush looks at one row), and a terminal whose state is unknown
 * again gets every row compared. */
static void test_only_changed_rows_compared(void **state)
{
	struct rig rig;
	struct term_cell cell = {.chars = {'q'}, .width = 1};

	srand(4);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	for (int row = 0; row < ROWS; row++)
		assert_false(rig.tty->dirty[row]);
	tty_set_cell(rig.tty, 5, 3, &cell);
	tty_fill(rig.tty, 7, 20, 4, NULL);
	tty_put_text(rig.tty, 9, 0, "a\xcc\x81" "b", NULL);
	for (int row = 0; row < ROWS; row++)
		assert_int_equal(rig.tty->dirty[row], row == 5 || row == 7 || row == 9);
	flush_and_drain(&rig);
	assert_screen(&rig);
	for (int row = 0; row < ROWS; row++)
		assert_false(rig.tty->dirty[row]);
	tty_invalidate(rig.tty);
	for (int row = 0; row < ROWS; row++)
		assert_true(rig.tty->dirty[row]);
	flush_and_drain(&rig);
	assert_screen(&rig);
	rig_close(&rig);
}

/* Random edits, wide characters over narrow ones and their halves, each
 * flush checked against the emulator. */
static void test_random_edits(void **state)
{
	struct rig rig;

	srand(3);
	rig_open(&rig, "tmux-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	for (int round = 0; round < 300; round++) {
		int edits = 1 + rand() % 12;

		for (int i = 0; i < edits; i++) {
			struct term_cell cell;
			int row = rand() % ROWS, col = rand() % COLS;

			if (rand() % 4 == 0) {
				struct term_style style = {.bg = random_color()};

				tty_fill(rig.tty, row, col, rand() % COLS,
					 rand() % 2 ? &style : NULL);
				continue;
			}
			random_cell(&cell, col);
			tty_set_cell(rig.tty, row, col, &cell);
		}
		tty_set_cursor(rig.tty, rand() % ROWS, rand() % COLS, rand() % 4 != 0);
		flush_and_drain(&rig);
		assert_screen(&rig);
	}
	rig_close(&rig);
}

/* A program that paints in ever new RGB colours (a gradient that moves):
 * the tty's table of looks keeps only those its screens name, so it
 * stays bounded, and what the terminal shows stays right across each
 * collection.  A combining mark keeps its place through them. */
static void test_looks_stay_bounded(void **state)
{
	struct rig rig;
	struct term_cell accent = {.chars = {'e', 0x301}, .width = 1};
	uint32_t most = 0;

	rig_open(&rig, "xterm-256color", "truecolor", 4, 20);
	tty_set_cell(rig.tty, 3, 5, &accent);
	for (int round = 0; round < 60; round++) {
		for (int row = 0; row < 3; row++)
			for (int col = 0; col < 20; col++) {
				int k = round * 60 + row * 20 + col;
				struct term_cell cell = {.chars = {'a' + k % 26}, .width = 1};

				cell.style.fg = (struct term_color){.kind = TERM_COLOR_RGB,
								    .r = (uint8_t)k,
								    .g = (uint8_t)(k >> 8),
								    .b = 7};
				tty_set_cell(rig.tty, row, col, &cell);
			}
		flush_and_drain(&rig);
		assert_screen(&rig);
		if (rig.tty->nlooks > most)
			most = rig.tty->nlooks;
	}
	/* 3,600 colours went by; a table of them all would hold as many. */
	assert_true(most <= 4 * 4 * 20 + 1024);
	rig_close(&rig);
}

/* A cell keeps the low byte of its character and names the rest in its
 * look: characters of one style from several blocks, and one that
 * differs from the cell it replaces only above the low byte, read back
 * and reach the terminal as they were set. */
static void test_characters_whole(void **state)
{
	static const uint32_t chars[] = {'A', 0x141, 0x2541, 0x4e41, 0x1f641, 0x10fff1, 'e'};
	struct term_style red = {.fg = {.kind = TERM_COLOR_PALETTE, .index = 1}};
	struct rig rig;
	struct term_cell got, cell = {.width = 1};
	int col = 0;

	rig_open(&rig, "xterm-256color", NULL, 2, 20);
	for (size_t i = 0; i < sizeof chars / sizeof chars[0]; i++) {
		cell.chars[0] = chars[i];
		cell.chars[1] = chars[i] == 'e' ? 0x301 : 0;
		cell.width = (uint8_t)tty_char_width(chars[i]);
		cell.style = red;
		tty_set_cell(rig.tty, 0, col, &cell);
		tty_want_cell(rig.tty, 0, col, &got);
		assert_int_equal(got.chars[0], chars[i]);
		assert_int_equal(got.chars[1], cell.chars[1]);
		assert_int_equal(got.width, cell.width);
		assert_int_equal(got.style.fg.index, 1);
		col += cell.width;
	}
	cell = (struct term_cell){.chars = {'A'}, .width = 1};
	tty_set_cell(rig.tty, 1, 0, &cell);
	flush_and_drain(&rig);
	assert_screen(&rig);
	cell.chars[0] = 0x141;
	tty_set_cell(rig.tty, 1, 0, &cell);
	assert_true(flush_and_drain(&rig) > 0);
	assert_true(term_get_cell(rig.emu, 1, 0, &got));
	assert_int_equal(got.chars[0], 0x141);
	assert_screen(&rig);
	rig_close(&rig);
}

static void test_text_and_erase(void **state)
{
	struct rig rig;
	struct term_style red = {.fg = {.kind = TERM_COLOR_PALETTE, .index = 1}};
	struct term_cell half;

	rig_open(&rig, "xterm-256color", NULL, 3, 20);
	assert_int_equal(tty_put_text(rig.tty, 0, 0,
				      "ab\xe4\xb8\xad"
				      "c",
				      &red),
			 5);
	assert_int_equal(tty_put_text(rig.tty, 1, 17, "wxyz", NULL), 3);
	tty_put_text(rig.tty, 2, 0, "a line of some text", NULL);
	flush_and_drain(&rig);
	assert_screen(&rig);
	tty_want_cell(rig.tty, 0, 3, &half);
	assert_int_equal(half.width, 0); /* the right half of 中 */
	tty_want_cell(rig.tty, 0, 2, &half);
	assert_int_equal(half.chars[0], 0x4e2d);
	assert_int_equal(half.width, 2);
	assert_int_equal(half.style.fg.index, 1);
	/* The rest of a line made blank: one erase, not spaces. */
	tty_fill(rig.tty, 2, 2, 18, NULL);
	assert_true(flush_and_drain(&rig) < 12);
	assert_screen(&rig);
	rig_close(&rig);
}

/* A terminal that stops reading: the buffer stays bounded while frames
 * keep coming, and when it reads again one difference brings it to the
 * last frame. */
static void test_slow_terminal_merges_damage(void **state)
{
	struct rig rig;
	size_t most = 0, frame_bytes, drained = 0;
	bool blocked = false;

	srand(4);
	rig_open(&rig, "xterm-256color", "truecolor", ROWS, COLS);
	assert_true(fcntl(rig.wfd, F_SETPIPE_SZ, 4096) >= 4096);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	frame_bytes = (size_t)rig.tty->bytes_written;
	for (int frame = 0; frame < 200; frame++) {
		random_screen(rig.tty);
		tty_flush(rig.tty);
		blocked |= rig.tty->blocked;
		if (tty_pending(rig.tty) > most)
			most = tty_pending(rig.tty);
	}
	assert_true(blocked);
	assert_true(most <= rig.tty->bound + 2 * frame_bytes);
	while (tty_pending(rig.tty) > 0 || rig.tty->blocked) {
		drained += read_pipe(&rig);
		tty_write_out(rig.tty);
	}
	drained += read_pipe(&rig);
	assert_screen(&rig);
	/* 200 frames went by; far fewer reached the terminal. */
	assert_true(rig.tty->bytes_written < 40 * frame_bytes);
	rig_close(&rig);
}

static void test_terminal_gone(void **state)
{
	struct rig rig;

	signal(SIGPIPE, SIG_IGN);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	close(rig.rfd);
	rig.rfd = open("/dev/null", O_RDONLY);
	tty_put_text(rig.tty, 0, 0, "hello", NULL);
	tty_flush(rig.tty);
	assert_int_equal(tty_write_out(rig.tty), -1);
	rig_close(&rig);
}

static void test_resize_redraws(void **state)
{
	struct rig rig;

	srand(5);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	tty_resize(rig.tty, ROWS - 4, COLS + 6);
	term_resize(rig.emu, ROWS - 4, COLS + 6);
	random_screen(rig.tty);
	flush_and_drain(&rig);
	assert_screen(&rig);
	assert_int_equal(rig.tty->redraws, 2);
	rig_close(&rig);
}

/* Taking the terminal and giving it back; a redraw asked for; bytes
 * queued as they are. */
static void test_start_stop_invalidate(void **state)
{
	struct rig rig;
	struct term_modes modes;

	srand(6);
	rig_open(&rig, "xterm-256color", NULL, ROWS, COLS);
	random_screen(rig.tty);
	tty_set_cursor(rig.tty, 0, 0, false);
	flush_and_drain(&rig);
	term_get_modes(rig.emu, &modes);
	assert_true(modes.alt_screen);
	assert_false(modes.cursor_visible);
	tty_invalidate(rig.tty);
	assert_true(flush_and_drain(&rig) > (size_t)(ROWS * COLS));
	assert_int_equal(rig.tty->redraws, 2);
	assert_screen(&rig);
	tty_raw(rig.tty, "\a", 1);
	flush_and_drain(&rig);
	assert_true(term_take_bell(rig.emu));
	tty_stop(rig.tty);
	flush_and_drain(&rig);
	term_get_modes(rig.emu, &modes);
	assert_false(modes.alt_screen);
	assert_true(modes.cursor_visible);
	rig_close(&rig);
}

/* A client outside UTF-8: borders in ASCII, '?' for what it cannot show. */
static void test_ascii_terminal(void **state)
{
	struct rig rig;
	struct term_cell cell;
	const uint32_t chars[] = {0x2502, 0x2500, 0x253c, 0xe9, 0x4e2d};
	char *text;

	rig_open(&rig, "xterm-256color", NULL, 2, 10);
	rig.tty->term.ascii = true;
	for (int i = 0, col = 0; i < 5; i++) {
		memset(&cell, 0, sizeof cell);
		cell.chars[0] = chars[i];
		cell.width = chars[i] == 0x4e2d ? 2 : 1;
		tty_set_cell(rig.tty, 0, col, &cell);
		col += cell.width;
	}
	flush_and_drain(&rig);
	text = term_capture(rig.emu, 0, 0, false, NULL);
	assert_string_equal(text, "|-+???\n");
	free(text);
	rig_close(&rig);
}

/* Everything the pipe holds, as bytes (and into the emulator). */
static size_t read_raw(struct rig *rig, char *out, size_t size)
{
	size_t total = 0;
	ssize_t n;

	tty_flush(rig->tty);
	while (total + 1 < size && (n = read(rig->rfd, out + total, size - 1 - total)) > 0) {
		term_write(rig->emu, out + total, (size_t)n);
		total += (size_t)n;
	}
	out[total] = '\0';
	return total;
}

static void put_linked(struct rig *rig, int row, int col, const char *text, uint16_t link)
{
	for (int i = 0; text[i] != 0; i++) {
		struct term_cell cell = {.width = 1};

		cell.chars[0] = (unsigned char)text[i];
		cell.style.link = link;
		tty_set_cell(rig->tty, row, col + i, &cell);
	}
}

/* The link the emulator has at row, col: its URI, or "" for none. */
static const char *link_at(struct rig *rig, int row, int col)
{
	struct term_cell cell;
	const char *uri;

	assert_true(term_get_cell(rig->emu, row, col, &cell));
	uri = term_link(rig->emu, cell.style.link, NULL);
	return uri ? uri : "";
}

/* OSC 8: linked cells reach a terminal that shows links inside one
 * OSC 8 each run, closed after; the same URI is one id; hostile URIs
 * and parameters are not links at all; a terminal not known to show
 * links gets none; stopping closes an open link. */
static void test_hyperlinks(void **state)
{
	struct rig rig;
	char out[8192], hostile[TTY_LINK_URI_MAX + 2];
	uint16_t link, again;

	rig_open(&rig, "xterm-256color", NULL, 3, 30);
	rig.tty->term.hyperlinks = true;
	read_raw(&rig, out, sizeof out);
	link = tty_link(rig.tty, "https://example.com/a", "id=1");
	assert_int_not_equal(link, 0);
	again = tty_link(rig.tty, "https://example.com/a", "id=1");
	assert_int_equal(again, link);
	assert_int_not_equal(tty_link(rig.tty, "https://example.com/a", NULL), link);
	put_linked(&rig, 0, 2, "docs", link);
	put_linked(&rig, 0, 6, " plain", 0);
	read_raw(&rig, out, sizeof out);
	assert_non_null(strstr(out, "\033]8;id=1;https://example.com/a\033\\docs\033]8;;\033\\"));
	assert_string_equal(link_at(&rig, 0, 2), "https://example.com/a");
	assert_string_equal(link_at(&rig, 0, 5), "https://example.com/a");
	assert_string_equal(link_at(&rig, 0, 6), "");
	assert_string_equal(link_at(&rig, 0, 1), "");
	/* Unchanged: nothing written; the link dropped: the text again. */
	assert_int_equal(read_raw(&rig, out, sizeof out), 0);
	put_linked(&rig, 0, 2, "docs", 0);
	read_raw(&rig, out, sizeof out);
	assert_string_equal(link_at(&rig, 0, 3), "");

	/* Hostile: controls, a space, too long, parameters with ';'. */
	assert_int_equal(tty_link(rig.tty, "http://x/\033]52;c;aGk=\a", NULL), 0);
	assert_int_equal(tty_link(rig.tty, "http://x/\x9b[2J", NULL), 0);
	assert_int_equal(tty_link(rig.tty, "http://x/ y", NULL), 0);
	assert_int_equal(tty_link(rig.tty, "", NULL), 0);
	assert_int_equal(tty_link(rig.tty, NULL, NULL), 0);
	assert_int_equal(tty_link(rig.tty, "http://x/", "id=1;http://evil/"), 0);
	assert_int_equal(tty_link(rig.tty, "http://x/", "id=\033"), 0);
	memset(hostile, 'a', sizeof hostile - 1);
	hostile[sizeof hostile - 1] = '\0';
	assert_int_equal(tty_link(rig.tty, hostile, NULL), 0);
	hostile[TTY_LINK_URI_MAX] = '\0';
	assert_int_not_equal(tty_link(rig.tty, hostile, NULL), 0);

	/* A link open when the client stops is closed. */
	put_linked(&rig, 1, 0, "open", link);
	tty_set_cursor(rig.tty, 1, 4, true);
	read_raw(&rig, out, sizeof out);
	tty_stop(rig.tty);
	read_raw(&rig, out, sizeof out);
	assert_non_null(strstr(out, "\033]8;;\033\\"));
	rig_close(&rig);

	/* A terminal not known to show links is sent none. */
	rig_open(&rig, "xterm-256color", NULL, 3, 30);
	assert_false(rig.tty->term.hyperlinks);
	assert_int_equal(tty_link(rig.tty, "https://example.com/a", NULL), 0);
	put_linked(&rig, 0, 0, "docs", 0);
	read_raw(&rig, out, sizeof out);
	assert_null(strstr(out, "\033]8;"));
	rig_close(&rig);
}

static void test_color_reduce(void **state)
{
	struct tty_term tt;
	struct sm_error err = {0};
	struct term_color red = {.kind = TERM_COLOR_RGB, .r = 250, .g = 10, .b = 10};
	struct term_color p200 = {.kind = TERM_COLOR_PALETTE, .index = 200};
	struct term_color got;

	assert_int_equal(tty_term_load(&tt, "xterm", NULL, &err), 0);
	assert_int_equal(tt.colors, 8);
	got = tty_color_reduce(&tt, &red);
	assert_int_equal(got.kind, TERM_COLOR_PALETTE);
	assert_int_equal(got.index, 1);
	got = tty_color_reduce(&tt, &p200);
	assert_int_equal(got.kind, TERM_COLOR_PALETTE);
	assert_true(got.index < 8);
	tty_term_free(&tt);

	assert_int_equal(tty_term_load(&tt, "xterm-256color", NULL, &err), 0);
	assert_false(tt.rgb);
	got = tty_color_reduce(&tt, &p200);
	assert_int_equal(got.index, 200);
	got = tty_color_reduce(&tt, &red);
	assert_int_equal(got.kind, TERM_COLOR_PALETTE);
	assert_int_equal(got.index, 196); /* the cube's pure red */
	tty_term_free(&tt);

	assert_int_equal(tty_term_load(&tt, "xterm-256color", "truecolor", &err), 0);
	assert_true(tt.rgb);
	got = tty_color_reduce(&tt, &red);
	assert_int_equal(got.kind, TERM_COLOR_RGB);
	tty_term_free(&tt);

	assert_int_equal(tty_term_load(&tt, "dumb", NULL, &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_ARGUMENT);
	assert_int_equal(tty_term_load(&tt, "no-such-terminal-28", NULL, &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(err.message, "no-such-terminal-28"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_screen_matches),
	    cmocka_unit_test(test_nothing_changed_writes_nothing),
	    cmocka_unit_test(test_one_cell_costs_a_few_bytes),
	    cmocka_unit_test(test_only_changed_rows_compared),
	    cmocka_unit_test(test_random_edits),
	    cmocka_unit_test(test_characters_whole),
	    cmocka_unit_test(test_text_and_erase),
	    cmocka_unit_test(test_looks_stay_bounded),
	    cmocka_unit_test(test_slow_terminal_merges_damage),
	    cmocka_unit_test(test_terminal_gone),
	    cmocka_unit_test(test_resize_redraws),
	    cmocka_unit_test(test_start_stop_invalidate),
	    cmocka_unit_test(test_ascii_terminal),
	    cmocka_unit_test(test_color_reduce),
	    cmocka_unit_test(test_hyperlinks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
