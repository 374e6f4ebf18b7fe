/*
 * test_term: the emulator as data, in the manner of libvterm's t/NN_*.test files.
 *
 * Each screen case is program output fed to a fresh 4x10 terminal and the
 * text expected on screen (and in history) afterwards; each cell case is
 * output and the one cell it must produce.  Behaviour that is not about
 * cells (modes, titles, damage, resize, memory) gets a short test each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <vterm.h>

#include "term.h"

#define ROWS 4
#define COLS 10

static void feed(struct term *term, const char *bytes)
{
	term_write(term, bytes, strlen(bytes));
}

static char *screen_text(struct term *term, int start)
{
	return term_capture(term, start, term_rows(term) - 1, false, NULL);
}

/* ---- screens ---- */

#define WRITES_MAX 4

struct screen_case {
	const char *name;
	const char *writes[WRITES_MAX]; /* given to term_write one after another */
	const char *screen;  /* capture of the visible rows */
	const char *history; /* capture of history, NULL: must be empty */
};

static const struct screen_case screen_cases[] = {
    {"plain text", {"abc"}, "abc\n\n\n\n", NULL},
    /* REP: libvterm 0.1.4 loops forever with no previous character. */
    {"REP repeats the previous character", {"AB\033[3bC"}, "ABBBBC\n\n\n\n", NULL},
    {"REP as the first output does nothing", {"\033[5b"}, "\n\n\n\n", NULL},
    {"REP after a reset does nothing", {"x\033c\033[b"}, "\n\n\n\n", NULL},
    {"REP with a huge count stops at the edge", {"x\033[99999999999b"}, "xxxxxxxxxx\n\n\n\n", NULL},
    {"REP behind a C0 control after ESC", {"\033\005[3bok"}, "ok\n\n\n\n", NULL},
    {"REP behind a high byte after ESC", {"\033\377[3bok"}, "ok\n\n\n\n", NULL},
    {"REP split across writes is still REP", {"AB\033[", "2", "bC"}, "ABBBC\n\n\n\n", NULL},
    {"REP split after its ESC", {"AB\033", "[2bC"}, "ABBBC\n\n\n\n", NULL},
    {"REP's character in an earlier write", {"AB", "\033[2b", "C"}, "ABBBC\n\n\n\n", NULL},
    {"a UTF-8 character split across writes", {"caf\xc3", "\xa9!"}, "caf\xc3\xa9!\n\n\n\n", NULL},
    {"a wide character split three ways", {"\xe4", "\xb8", "\xad!"}, "\xe4\xb8\xad!\n\n\n\n", NULL},
    {"a UTF-8 C1 control split across writes is still dropped", {"a\302", "\225b"}, "ab\n\n\n\n", NULL},
    /* libvterm 0.1.4 crashes on a 17th CSI parameter; they are dropped. */
    {"30 CSI parameters are survived", {"\033[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;"
     "23;24;25;26;27;28;29;30mok"}, "ok\n\n\n\n", NULL},
    {"UTF-8 encoded C1 controls are dropped", {"a\302\225b\302\237c"}, "abc\n\n\n\n", NULL},
    {"30 colon sub-parameters are survived", {"\033[38:2:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18mok"},
     "ok\n\n\n\n", NULL},
    {"autowrap at the edge", {"0123456789AB"}, "0123456789\nAB\n\n\n", NULL},
    {"scroll pushes the top row", {"1\r\n2\r\n3\r\n4\r\n5\r\n6"}, "3\n4\n5\n6\n", "1\n2\n"},
    {"ring wraps many times", {"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj"}, "g\nh\ni\nj\n",
     "a\nb\nc\nd\ne\nf\n"},
    {"erase to end of line", {"abcdef\r\033[3C\033[K"}, "abc\n\n\n\n", NULL},
    {"erase to start of line", {"abcdef\033[3G\033[1K"}, "   def\n\n\n\n", NULL},
    {"clear screen", {"abc\r\ndef\033[2J"}, "\n\n\n\n", NULL},
    /* clear(1) sends ED 3 then ED 2: history goes, as in xterm and tmux. */
    {"ED 3 empties history", {"1\r\n2\r\n3\r\n4\r\n5\r\n6\033[3J"}, "3\n4\n5\n6\n", NULL},
    {"clear's sequence empties screen and history", {"1\r\n2\r\n3\r\n4\r\n5\r\n6",
     "\033[H\033[2J\033[3J"}, "\n\n\n\n", NULL},
    {"ED 3 split across writes", {"1\r\n2\r\n3\r\n4\r\n5\r\n6\033[", "3J"}, "3\n4\n5\n6\n",
     NULL},
    {"insert characters", {"abcdef\r\033[2@"}, "  abcdef\n\n\n\n", NULL},
    {"insert pushes off the edge", {"0123456789\r\033[2@"}, "  01234567\n\n\n\n", NULL},
    {"delete characters", {"abcdef\r\033[2P"}, "cdef\n\n\n\n", NULL},
    {"insert line", {"a\r\nb\r\nc\033[2;1H\033[L"}, "a\n\nb\nc\n", NULL},
    {"delete line", {"a\r\nb\r\nc\033[1;1H\033[M"}, "b\nc\n\n\n", NULL},
    {"reverse index at the top", {"a\r\nb\033[H\033M"}, "\na\nb\n\n", NULL},
    {"scroll region keeps history clean", {"top\033[2;3r\033[2;1Hx\r\ny\r\nz"}, "top\ny\nz\n\n",
     NULL},
    {"scroll region from row 1 feeds history", {"a\r\nb\r\nc\r\nd\033[1;2r\033[2;1H\r\nx"},
     "b\nx\nc\nd\n", "a\n"},
    {"scroll up (SU)", {"a\r\nb\r\nc\r\nd\033[2S"}, "c\nd\n\n\n", "a\nb\n"},
    {"scroll down (SD)", {"a\r\nb\r\nc\r\nd\033[2T"}, "\n\na\nb\n", NULL},
    {"wide characters", {"\xe4\xb8\xad\xe6\x96\x87!"}, "\xe4\xb8\xad\xe6\x96\x87!\n\n\n\n", NULL},
    {"wide character wraps at the edge", {"123456789\xe4\xb8\xad"}, "123456789\n\xe4\xb8\xad\n\n\n",
     NULL},
    {"overwrite left half of wide", {"\xe4\xb8\xad\xe6\x96\x87\rab"}, "ab\xe6\x96\x87\n\n\n\n", NULL},
    {"overwrite right half of wide", {"\xe4\xb8\xad\xe6\x96\x87\033[2Gx"}, " x\xe6\x96\x87\n\n\n\n",
     NULL},
    {"delete char shifts wide left", {"a\xe4\xb8\xad"
     "b\r\033[P"},
     "\xe4\xb8\xad"
     "b\n\n\n\n",
     NULL},
    {"insert char shifts wide right", {"a\xe4\xb8\xad"
     "b\r\033[@"},
     " a\xe4\xb8\xad"
     "b\n\n\n\n",
     NULL},
    {"combining mark joins its base", {"e\xcc\x81x"}, "e\xcc\x81x\n\n\n\n", NULL},
    {"two combining marks", {"a\xcc\x81\xcc\xa3"}, "a\xcc\x81\xcc\xa3\n\n\n\n", NULL},
    {"latin-1 stays compact", {"caf\xc3\xa9"}, "caf\xc3\xa9\n\n\n\n", NULL},
    {"trailing spaces are trimmed", {"ab   \r\n"}, "ab\n\n\n\n", NULL},
    {"a wrapped row's trailing blank is trimmed", {"abcdefghi x"}, "abcdefghi\nx\n\n\n", NULL},
};

static void test_screen_cases(void **state)
{
	for (size_t i = 0; i < sizeof screen_cases / sizeof screen_cases[0]; i++) {
		const struct screen_case *c = &screen_cases[i];
		struct term *term = term_new(ROWS, COLS, 100);
		for (int w = 0; w < WRITES_MAX && c->writes[w] != NULL; w++)
			feed(term, c->writes[w]);

		char *screen = screen_text(term, 0);
		if (strcmp(screen, c->screen) != 0)
			fail_msg("%s: screen\n%s\nexpected\n%s", c->name, screen, c->screen);
		free(screen);

		int lines = term_history_lines(term);
		char *history = lines ? term_capture(term, -lines, -1, false, NULL) : NULL;
		if (c->history == NULL && history != NULL)
			fail_msg("%s: unexpected history\n%s", c->name, history);
		if (c->history != NULL && (history == NULL || strcmp(history, c->history) != 0))
			fail_msg("%s: history\n%s\nexpected\n%s", c->name, history ? history : "",
				 c->history);
		free(history);
		term_free(term);
	}
}

/* A capture reads plain history packed (history_text): every screen
 * case's rows, pushed into history by line feeds, read as they did on
 * the screen. */
static void test_history_text_equals_screen_text(void **state)
{
	int compared = 0;

	for (size_t i = 0; i < sizeof screen_cases / sizeof screen_cases[0]; i++) {
		const struct screen_case *c = &screen_cases[i];
		struct term *term = term_new(ROWS, COLS, 100);
		for (int w = 0; w < WRITES_MAX && c->writes[w] != NULL; w++)
			feed(term, c->writes[w]);

		int before = term_history_lines(term);
		char *screen = screen_text(term, 0);
		feed(term, "\033[4;1H\n\n\n\n");
		if (term_history_lines(term) == before + ROWS) { /* not the alternate screen */
			char *history = term_capture(term, -ROWS, -1, false, NULL);
			if (strcmp(history, screen) != 0)
				fail_msg("%s: from history\n%s\non screen\n%s", c->name, history,
					 screen);
			free(history);
			compared++;
		}
		free(screen);
		term_free(term);
	}
	assert_true(compared > (int)(sizeof screen_cases / sizeof screen_cases[0]) / 2);
}

/* ---- cells ---- */

struct cell_case {
	const char *name;
	const char *input;
	int row, col;
	uint32_t ch;
	int width;
	struct term_style style;
};

#define PAL(n)                                                                                     \
	{                                                                                          \
		.kind = TERM_COLOR_PALETTE, .index = (n)                                           \
	}
#define RGB(R, G, B)                                                                               \
	{                                                                                          \
		.kind = TERM_COLOR_RGB, .r = (R), .g = (G), .b = (B)                               \
	}

static const struct cell_case cell_cases[] = {
    {"default", "X", 0, 0, 'X', 1, {{0}, {0}, 0, 0}},
    {"blank", "", 0, 0, 0, 1, {{0}, {0}, 0, 0}},
    {"fg 8 colours", "\033[31mX", 0, 0, 'X', 1, {PAL(1), {0}, 0, 0}},
    {"fg bright", "\033[91mX", 0, 0, 'X', 1, {PAL(9), {0}, 0, 0}},
    {"bg 8 colours", "\033[42mX", 0, 0, 'X', 1, {{0}, PAL(2), 0, 0}},
    {"fg 256", "\033[38;5;200mX", 0, 0, 'X', 1, {PAL(200), {0}, 0, 0}},
    {"bg 256", "\033[48;5;17mX", 0, 0, 'X', 1, {{0}, PAL(17), 0, 0}},
    {"fg rgb", "\033[38;2;10;20;30mX", 0, 0, 'X', 1, {RGB(10, 20, 30), {0}, 0, 0}},
    {"bg rgb", "\033[48;2;1;2;3mX", 0, 0, 'X', 1, {{0}, RGB(1, 2, 3), 0, 0}},
    {"default resets", "\033[31;42mX\033[39;49mY", 0, 1, 'Y', 1, {{0}, {0}, 0, 0}},
    {"bold", "\033[1mX", 0, 0, 'X', 1, {{0}, {0}, TERM_ATTR_BOLD, 0}},
    {"bold off", "\033[1mX\033[22mY", 0, 1, 'Y', 1, {{0}, {0}, 0, 0}},
    {"all attributes",
     "\033[1;3;4;5;7;9mX",
     0,
     0,
     'X',
     1,
     {{0},
      {0},
      TERM_ATTR_BOLD | TERM_ATTR_ITALIC | TERM_ATTR_UNDERLINE | TERM_ATTR_BLINK |
	  TERM_ATTR_REVERSE | TERM_ATTR_STRIKE, 0}},
    {"reset", "\033[1;31mX\033[mY", 0, 1, 'Y', 1, {{0}, {0}, 0, 0}},
    {"wide left half", "\xe4\xb8\xad", 0, 0, 0x4e2d, 2, {{0}, {0}, 0, 0}},
    {"wide right half", "\xe4\xb8\xad", 0, 1, 0, 0, {{0}, {0}, 0, 0}},
    {"wide with colour", "\033[38;5;100m\xe4\xb8\xad", 0, 0, 0x4e2d, 2, {PAL(100), {0}, 0, 0}},
    {"non-latin-1 narrow", "\xce\xbb", 0, 0, 0x3bb, 1, {{0}, {0}, 0, 0}},
    {"erase fills pen bg", "\033[44m\033[K", 0, 5, 0, 1, {{0}, PAL(4), 0, 0}},
    {"erase fills rgb bg", "\033[48;2;9;8;7m\033[2K", 0, 9, 0, 1, {{0}, RGB(9, 8, 7), 0, 0}},
    {"wide right half wears its style",
     "\033[38;5;100m\xe4\xb8\xad",
     0,
     1,
     0,
     0,
     {PAL(100), {0}, 0, 0}},
    {"scroll fills pen bg", "\033[44m\r\n\r\n\r\n\r\n", 3, 5, 0, 1, {{0}, PAL(4), 0, 0}},
    {"restore without save: default pen", "\033[?1049lX", 0, 0, 'X', 1, {{0}, {0}, 0, 0}},
    {"DECRC without DECSC: default pen", "\033[31m\0338X", 0, 0, 'X', 1, {{0}, {0}, 0, 0}},
    {"scrolled cell keeps style", "\033[35mX\r\n\r\n\r\n\r\n", -1, 0, 'X', 1, {PAL(5), {0}, 0, 0}},
};

static void test_cell_cases(void **state)
{
	for (size_t i = 0; i < sizeof cell_cases / sizeof cell_cases[0]; i++) {
		const struct cell_case *c = &cell_cases[i];
		struct term *term = term_new(ROWS, COLS, 100);
		struct term_cell cell;

		feed(term, c->input);
		if (!term_get_cell(term, c->row, c->col, &cell))
			fail_msg("%s: no cell", c->name);
		if (cell.chars[0] != c->ch || cell.width != c->width)
			fail_msg("%s: char %x width %d, expected %x width %d", c->name,
				 cell.chars[0], cell.width, c->ch, c->width);
		if (memcmp(&cell.style, &c->style, sizeof cell.style) != 0)
			fail_msg("%s: style fg %d/%d bg %d/%d attrs %x", c->name,
				 cell.style.fg.kind, cell.style.fg.index, cell.style.bg.kind,
				 cell.style.bg.index, cell.style.attrs);
		term_free(term);
	}
}

static void test_combining_chars(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct term_cell cell;

	feed(term, "a\xcc\x81\xcc\xa3");
	assert_true(term_get_cell(term, 0, 0, &cell));
	assert_int_equal(cell.chars[0], 'a');
	assert_int_equal(cell.chars[1], 0x301);
	assert_int_equal(cell.chars[2], 0x323);
	assert_int_equal(cell.chars[3], 0);
	term_free(term);
}

static void test_out_of_range(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct term_cell cell;

	assert_false(term_get_cell(term, ROWS, 0, &cell));
	assert_false(term_get_cell(term, 0, COLS, &cell));
	assert_false(term_get_cell(term, -1, 0, &cell));
	assert_false(term_get_cell(term, 0, -1, &cell));
	term_free(term);
}

/* ---- scrollback ---- */

static void test_scrollback_limit(void **state)
{
	struct term *term = term_new(ROWS, COLS, 5);
	char line[32];

	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof line, "line%d\r\n", i);
		feed(term, line);
	}
	assert_int_equal(term_history_lines(term), 5);
	/* 100 lines written, the cursor sits on an empty 4th row: 97..99 are
	 * visible, 92..96 are history, everything older is gone. */
	char *history = term_capture(term, -5, -1, false, NULL);
	assert_string_equal(history, "line92\nline93\nline94\nline95\nline96\n");
	free(history);

	term_set_scrollback_limit(term, 2);
	assert_int_equal(term_history_lines(term), 2);
	history = term_capture(term, -10, -1, false, NULL);
	assert_string_equal(history, "line95\nline96\n");
	free(history);
	term_free(term);
}

static void test_scrollback_memory_is_recycled(void **state)
{
	struct term *term = term_new(ROWS, COLS, 50);
	char line[] = "0123456789";

	for (int i = 0; i < 200; i++)
		feed(term, line);
	size_t full = term_memory(term);
	for (int i = 0; i < 2000; i++)
		feed(term, line);
	assert_int_equal(term_memory(term), full);
	term_free(term);
}

static void test_rgb_overwrite_stays_bounded(void **state)
{
	struct term *term = term_new(ROWS, COLS, 0);

	feed(term, "\033[38;2;1;2;3m0123456789\r");
	size_t before = term_memory(term);
	for (int i = 0; i < 1000; i++) {
		feed(term, "\033[38;2;4;5;6mabcdefghij\r\033[mABCDE\r\xe4\xb8\xad\r");
		feed(term, "\033[38;2;1;2;3m0123456789\r");
	}
	assert_int_equal(term_memory(term), before);
	term_free(term);
}

/* ---- alternate screen ---- */

static void test_alt_screen(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct term_modes modes;

	feed(term, "main1\r\nmain2");
	feed(term, "\033[?1049h");
	term_get_modes(term, &modes);
	assert_true(modes.alt_screen);
	char *text = screen_text(term, 0);
	assert_string_equal(text, "\n\n\n\n");
	free(text);

	for (int i = 0; i < 20; i++)
		feed(term, "alt\r\n");
	assert_int_equal(term_history_lines(term), 0);

	feed(term, "\033[?1049l");
	term_get_modes(term, &modes);
	assert_false(modes.alt_screen);
	text = screen_text(term, 0);
	assert_string_equal(text, "main1\nmain2\n\n\n");
	free(text);
	int row, col;
	term_cursor(term, &row, &col);
	assert_int_equal(row, 1);
	assert_int_equal(col, 5);
	term_free(term);
}

/* The alternate screen costs nothing until a program shows it, and
 * nothing again once it has left; shown a second time it starts blank,
 * at the size the terminal has then. */
static void test_alt_screen_allocated_while_shown(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	size_t idle = term_memory(term);

	feed(term, "\033[?1049h");
	assert_true(term_memory(term) > idle);
	feed(term, "vim was here");
	feed(term, "\033[?1049l");
	assert_int_equal(term_memory(term), idle);

	term_resize(term, ROWS + 2, COLS + 3);
	feed(term, "\033[?1049h");
	char *text = screen_text(term, 0);
	assert_string_equal(text, "\n\n\n\n\n\n");
	free(text);
	char move[32];
	snprintf(move, sizeof move, "\033[%dCx", COLS + 2);
	feed(term, move);
	struct term_cell cell;
	assert_true(term_get_cell(term, 0, COLS + 2, &cell));
	assert_int_equal(cell.chars[0], 'x');
	feed(term, "\033[?1049l");
	term_free(term);
}

/* ---- titles and modes ---- */

struct title_case {
	const char *input;
	const char *title;
};

static const struct title_case title_cases[] = {
    {"", ""},
    {"\033]0;zero\007", "zero"},
    {"\033]2;two\007", "two"},
    {"\033]2;string terminator\033\\", "string terminator"},
    {"\033]2;first\007\033]2;second\007", "second"},
    {"\033]2;caf\xc3\xa9\007", "caf\xc3\xa9"},
    {"\033]2;split", ""},
};

static void test_titles(void **state)
{
	for (size_t i = 0; i < sizeof title_cases / sizeof title_cases[0]; i++) {
		struct term *term = term_new(ROWS, COLS, 100);
		feed(term, title_cases[i].input);
		assert_string_equal(term_title(term), title_cases[i].title);
		term_free(term);
	}
}

/* OSC 7 (a shell saying where it is) is kept as sent, even in pieces,
 * and is not the title. */
static void test_osc7(void **state)
{
	struct term *term = term_new(ROWS, COLS, 0);

	assert_string_equal(term_osc7(term), "");
	assert_false(term_take_osc7_change(term));
	feed(term, "\033]7;file://host/home/u/a%20b\007");
	assert_string_equal(term_osc7(term), "file://host/home/u/a%20b");
	assert_true(term_take_osc7_change(term));
	assert_false(term_take_osc7_change(term));
	feed(term, "\033]7;file://host/home/u/a%20b\033\\");
	assert_false(term_take_osc7_change(term)); /* the same again is no news */
	feed(term, "\033]7;file://h");
	feed(term, "ost/tmp\033\\ok");
	assert_string_equal(term_osc7(term), "file://host/tmp");
	assert_true(term_take_osc7_change(term));
	assert_string_equal(term_title(term), "");
	char *text = screen_text(term, 0);
	assert_string_equal(text, "ok\n\n\n\n");
	free(text);
	term_free(term);
}

static void test_title_in_pieces(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	char input[512] = "\033]2;";

	for (int i = 0; i < 300; i++)
		strcat(input, "t");
	strcat(input, "\007");
	for (size_t i = 0; input[i]; i++)
		term_write(term, &input[i], 1);
	assert_int_equal(strlen(term_title(term)), 300);
	term_free(term);

	/* Split at every point: libvterm alone loses these (see term_write). */
	const char *inputs[] = {"a\033]2;hi\033\\b", "a\033]0;hi\007b", "a\033[1mb"};
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		for (size_t split = 0; split <= strlen(inputs[i]); split++) {
			term = term_new(ROWS, COLS, 100);
			term_write(term, inputs[i], split);
			term_write(term, inputs[i] + split, strlen(inputs[i]) - split);
			char *text = term_capture(term, 0, 0, false, NULL);
			assert_string_equal(text, "ab\n");
			if (i < 2)
				assert_string_equal(term_title(term), "hi");
			free(text);
			term_free(term);
		}
	}
}

struct output {
	char bytes[256];
	size_t len;
};

static void on_output(const char *bytes, size_t len, void *user)
{
	struct output *out = user;
	memcpy(out->bytes + out->len, bytes, len);
	out->len += len;
	out->bytes[out->len] = '\0';
}

static void test_bracketed_paste(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};
	struct term_modes modes;

	term_set_output(term, on_output, &out);
	term_get_modes(term, &modes);
	assert_false(modes.bracketed_paste);
	term_send_paste(term, "hi", 2);
	assert_string_equal(out.bytes, "hi");

	feed(term, "\033[?2004h");
	term_get_modes(term, &modes);
	assert_true(modes.bracketed_paste);
	out.len = 0;
	term_send_paste(term, "hi", 2);
	assert_string_equal(out.bytes, "\033[200~hi\033[201~");

	feed(term, "\033[?2004l");
	term_get_modes(term, &modes);
	assert_false(modes.bracketed_paste);
	term_free(term);
}

static void test_app_cursor_keys(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};
	struct term_modes modes;
	struct term_key up;

	term_set_output(term, on_output, &out);
	assert_true(term_key_parse("Up", &up));
	term_send_key(term, &up);
	assert_string_equal(out.bytes, "\033[A");
	term_get_modes(term, &modes);
	assert_false(modes.app_cursor_keys);

	feed(term, "\033[?1h");
	term_get_modes(term, &modes);
	assert_true(modes.app_cursor_keys);
	out.len = 0;
	term_send_key(term, &up);
	assert_string_equal(out.bytes, "\033OA");
	term_free(term);
}

static void test_modes(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};
	struct term_modes modes;

	term_set_output(term, on_output, &out);
	term_get_modes(term, &modes);
	assert_true(modes.cursor_visible);
	assert_int_equal(modes.mouse, 0);
	assert_false(term_send_mouse(term, 0, 0, 1, true, 0));
	assert_int_equal(out.len, 0);

	feed(term, "\033[?25l\033[?1002h\033[?1006h\033=");
	term_get_modes(term, &modes);
	assert_false(modes.cursor_visible);
	assert_int_equal(modes.mouse, 2);
	assert_true(modes.mouse_sgr);
	assert_true(modes.app_keypad);
	assert_int_equal(out.len, 0); /* probing sends nothing */

	assert_true(term_send_mouse(term, 2, 3, 1, true, 0));
	assert_string_equal(out.bytes, "\033[<0;4;3M");
	term_free(term);
}

static void test_replies_reach_output(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	feed(term, "\033[2;3H\033[6n");
	assert_string_equal(out.bytes, "\033[2;3R");
	term_free(term);
}

/* Synchronized output (DECSET 2026): set and reset, in any parameter,
 * counted per update; DECRQM answered from here, not libvterm's "0". */
static void test_synchronized_output(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	assert_false(term_synchronized(term));
	feed(term, "\033[?2026$p");
	assert_string_equal(out.bytes, "\033[?2026;2$y");

	feed(term, "\033[?2026h");
	assert_true(term_synchronized(term));
	assert_int_equal(term_sync_count(term), 1);
	out.len = 0;
	feed(term, "\033[?2026$p");
	assert_string_equal(out.bytes, "\033[?2026;1$y");
	feed(term, "\033[?2026h"); /* set again: the same update */
	assert_int_equal(term_sync_count(term), 1);

	feed(term, "\033[?2026l");
	assert_false(term_synchronized(term));
	feed(term, "\033[?25;2026h");
	assert_true(term_synchronized(term));
	assert_int_equal(term_sync_count(term), 2);
	feed(term, "\033c"); /* RIS ends it */
	assert_false(term_synchronized(term));
	feed(term, "\033[?20260h\033[2026h\033[?2026;1$p");
	assert_false(term_synchronized(term));

	/* Other modes' reports are still libvterm's. */
	out.len = 0;
	feed(term, "\033[?2026$p\033[?25$p");
	assert_string_equal(out.bytes, "\033[?2026;2$y\033[?25;1$y");
	assert_int_equal(term_sync_count(term), 2);
	term_free(term);
}

/* OSC 52: a write is decoded and kept for the caller, whole (here 3,000
 * bytes, held across writes), once; a query or bad base64 is not. */
static void test_clipboard_write(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};
	char text[3001], *b64 = malloc(4100), *got;
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len, n = 0;

	term_set_output(term, on_output, &out);
	assert_null(term_take_clipboard(term, &len));
	feed(term, "\033]52;c;aGVsbG8=\007");
	got = term_take_clipboard(term, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(got, "hello", 5);
	free(got);
	assert_null(term_take_clipboard(term, &len));

	for (int i = 0; i < 3000; i++)
		text[i] = (char)('a' + i % 26);
	for (int i = 0; i < 3000; i += 3) {
		unsigned v = (unsigned char)text[i] << 16 | (unsigned char)text[i + 1] << 8 |
			     (unsigned char)text[i + 2];
		for (int k = 3; k >= 0; k--)
			b64[n++] = alphabet[v >> (6 * k) & 63];
	}
	b64[n] = 0;
	feed(term, "\033]52;;");
	term_write(term, b64, n / 2);
	term_write(term, b64 + n / 2, n - n / 2);
	feed(term, "\033\\");
	got = term_take_clipboard(term, &len);
	assert_int_equal(len, 3000);
	assert_memory_equal(got, text, 3000);
	free(got);

	feed(term, "\033]52;c;?\007\033]52;c;a\033b=\007\033]52;c;aGV=sbG8\007");
	assert_null(term_take_clipboard(term, &len));
	assert_int_equal(out.len, 0); /* a query is never answered */
	free(b64);
	term_free(term);
}

/* Focus events (DECSET 1004): sent only to a program that asked. */
static void test_focus_events(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	term_focus(term, true);
	term_focus(term, false);
	assert_int_equal(out.len, 0);
	feed(term, "\033[?1004h");
	term_focus(term, true);
	term_focus(term, false);
	assert_string_equal(out.bytes, "\033[I\033[O");
	out.len = 0;
	feed(term, "\033[?1004l");
	term_focus(term, true);
	assert_int_equal(out.len, 0);
	term_free(term);
}

/* Notifications (OSC 9, OSC 777) taken once, bounded; OSC 9;4 progress
 * kept until cleared, malformed ones ignored. */
static void test_notifications_and_progress(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	char long_text[400], *notice;
	int percent;

	assert_null(term_take_notice(term));
	feed(term, "\033]9;build done\007");
	notice = term_take_notice(term);
	assert_string_equal(notice, "build done");
	free(notice);
	assert_null(term_take_notice(term));
	feed(term, "\033]777;notify;Claude;needs your input\033\\");
	notice = term_take_notice(term);
	assert_string_equal(notice, "Claude: needs your input");
	free(notice);
	feed(term, "\033]777;other;x\007");
	assert_null(term_take_notice(term));
	memset(long_text, 'n', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = '\0';
	feed(term, "\033]9;");
	feed(term, long_text);
	feed(term, "\007");
	notice = term_take_notice(term);
	assert_true(strlen(notice) <= 200);
	free(notice);

	assert_int_equal(term_progress(term, &percent), 0);
	feed(term, "\033]9;4;1;42\007");
	assert_int_equal(term_progress(term, &percent), 1);
	assert_int_equal(percent, 42);
	assert_null(term_take_notice(term)); /* progress is no notification */
	feed(term, "\033]9;4;3\007");
	assert_int_equal(term_progress(term, &percent), 3);
	feed(term, "\033]9;4;7;10\007\033]9;4;x\007"); /* malformed: unchanged */
	assert_int_equal(term_progress(term, &percent), 3);
	feed(term, "\033]9;4;2;250\007");
	assert_int_equal(term_progress(term, &percent), 2);
	assert_int_equal(percent, 100);
	feed(term, "\033]9;4;0\007");
	assert_int_equal(term_progress(term, &percent), 0);
	term_free(term);
}

static void send_named(struct term *term, const char *name)
{
	struct term_key key;

	assert_true(term_key_parse(name, &key));
	term_send_key(term, &key);
}

/* The kitty keyboard protocol: the flags' stack per screen (push, pop,
 * set, query, RIS), and what "disambiguate" changes in the keys sent. */
static void test_kitty_keyboard(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	feed(term, "\033[?u");
	assert_string_equal(out.bytes, "\033[?0u");
	send_named(term, "Escape");
	send_named(term, "C-c");
	assert_string_equal(out.bytes, "\033[?0u\033\003");

	feed(term, "\033[>1u");
	assert_int_equal(term_kitty_flags(term), 1);
	out.len = 0;
	const char *keys[] = {"Escape", "C-c", "M-x", "C-M-A", "C-Space", "M-Escape",
			      "Enter", "Tab", "BSpace", "a", "Up"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		send_named(term, keys[i]);
	assert_string_equal(out.bytes, "\033[27u\033[99;5u\033[120;3u\033[97;8u\033[32;5u"
				       "\033[27;3u\r\t\177a\033[A");

	/* The alternate screen has a stack of its own. */
	feed(term, "\033[?1049h");
	assert_int_equal(term_kitty_flags(term), 0);
	feed(term, "\033[>3u\033[=4;2u");
	assert_int_equal(term_kitty_flags(term), 7);
	feed(term, "\033[=2;3u");
	assert_int_equal(term_kitty_flags(term), 5);
	feed(term, "\033[<u\033[?1049l");
	assert_int_equal(term_kitty_flags(term), 1);
	feed(term, "\033[<5u");
	assert_int_equal(term_kitty_flags(term), 0);
	out.len = 0;
	send_named(term, "C-c");
	assert_string_equal(out.bytes, "\003");

	/* Bounded: nine pushes keep eight; RIS empties the stacks. */
	for (int i = 1; i <= 9; i++) {
		char push[16];
		snprintf(push, sizeof push, "\033[>%du", i);
		feed(term, push);
	}
	feed(term, "\033[<7u");
	assert_int_equal(term_kitty_flags(term), 2);
	feed(term, "\033[<u");
	assert_int_equal(term_kitty_flags(term), 0);
	feed(term, "\033[>1u\033c");
	assert_int_equal(term_kitty_flags(term), 0);
	term_free(term);
}

/* OSC 133: the last command's output, between its C mark and the next
 * prompt, followed into history; a command still running ends at the
 * cursor; a width change forgets the marks. */
static void test_last_command(void **state)
{
	struct term *term = term_new(4, 20, 100);
	int start, end;
	char *text;
	size_t len;

	assert_false(term_last_command(term, &start, &end));
	feed(term, "\033]133;A\007$ \033]133;B\007ls\r\n\033]133;C\007a\r\nb\r\n"
		   "\033]133;D;0\007\033]133;A\007$ \033]133;B\007true\r\n\033]133;C\007"
		   "\033]133;D;0\007\033]133;A\007$ ");
	assert_true(term_last_command(term, &start, &end));
	assert_true(start > end); /* true printed nothing */

	feed(term, "\033]133;B\007seq 5\r\n\033]133;C\0071\r\n2\r\n3\r\n4\r\n5\r\n\033]133;D;0\007"
		   "\033]133;A\007$ ");
	assert_true(term_last_command(term, &start, &end));
	assert_true(start < 0); /* "1" went into history */
	text = term_capture(term, start, end, false, &len);
	assert_string_equal(text, "1\n2\n3\n4\n5\n");
	free(text);

	feed(term, "\033]133;B\007sleep\r\n\033]133;C\007zz");
	assert_true(term_last_command(term, &start, &end));
	text = term_capture(term, start, end, false, &len);
	assert_string_equal(text, "zz\n");
	free(text);

	term_resize(term, 4, 30);
	assert_false(term_last_command(term, &start, &end));
	term_free(term);
}

/* OSC 133: the rows where prompts began (A marks, one per line), oldest
 * first, negative once in history; a width change forgets them. */
static void test_prompt_rows(void **state)
{
	struct term *term = term_new(4, 20, 100);
	int rows[8], n;

	assert_int_equal(term_prompt_rows(term, rows, 8), 0);
	feed(term, "\033]133;A\007$ one\r\n\033]133;C\007out\r\n"
		   "\033]133;A\007\033]133;A\007$ two\r\n\033]133;A\007$ ");
	n = term_prompt_rows(term, rows, 8);
	assert_int_equal(n, 3);
	assert_int_equal(rows[0], 0);
	assert_int_equal(rows[1], 2);
	assert_int_equal(rows[2], 3);
	feed(term, "\r\nx\r\ny");
	n = term_prompt_rows(term, rows, 8);
	assert_int_equal(n, 3);
	assert_int_equal(rows[0], -2);
	assert_int_equal(rows[1], 0);
	assert_int_equal(rows[2], 1);
	assert_int_equal(term_prompt_rows(term, rows, 2), 2);
	term_resize(term, 4, 30);
	assert_int_equal(term_prompt_rows(term, rows, 8), 0);
	term_free(term);
}

static void test_bell(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);

	assert_false(term_take_bell(term));
	feed(term, "\007");
	assert_true(term_take_bell(term));
	assert_false(term_take_bell(term));
	term_free(term);
}

/* ---- capture ---- */

static void test_capture_wide_terminal(void **state)
{
	struct term *term = term_new(2, 300, 10);
	char line[302];

	memset(line, 'x', 300);
	line[300] = '\0';
	feed(term, line);
	line[300] = '\n';
	line[301] = '\0';
	char *text = term_capture(term, 0, 0, true, NULL);
	assert_string_equal(text, line);
	free(text);
	term_free(term);
}

static void test_capture_ansi(void **state)
{
	struct term *term = term_new(ROWS, 20, 100);
	size_t len;

	feed(term, "a\033[1;31mb\033[38;5;100;48;2;1;2;3mc\033[md\r\n\033[7mrev");
	char *text = term_capture(term, 0, 1, true, &len);
	assert_string_equal(text, "a\033[0;1;31mb\033[0;1;38;5;100;48;2;1;2;3mc\033[0md\n"
				  "\033[0;7mrev\033[0m\n");
	assert_int_equal(len, strlen(text));
	free(text);

	text = term_capture(term, 0, 1, false, &len);
	assert_string_equal(text, "abcd\nrev\n");
	free(text);
	term_free(term);
}

/* OSC 8: the link is the pen's until closed (SGR leaves it), kept per
 * cell, and written back by capture --ansi around its runs; a URI that
 * is not bounded printable ASCII leaves its text unlinked. */
static void test_hyperlinks(void **state)
{
	struct term *term = term_new(ROWS, 40, 100);
	struct term_cell cell;
	const char *params;
	size_t len;

	feed(term, "a\033]8;id=7;https://example.com/x\033\\li\033[1mn\033[mk\033]8;;\033\\b"
		   "\r\n\033]8;;http://a b\007sp\033]8;;file:///\302\2010\007u8\033]8;;\007");
	assert_true(term_get_cell(term, 0, 0, &cell));
	assert_int_equal(cell.style.link, 0);
	assert_true(term_get_cell(term, 0, 1, &cell));
	assert_int_equal(cell.style.link, 1);
	assert_string_equal(term_link(term, 1, &params), "https://example.com/x");
	assert_string_equal(params, "id=7");
	assert_true(term_get_cell(term, 0, 4, &cell));
	assert_int_equal(cell.style.link, 1); /* SGR 0 leaves the link on */
	assert_int_equal(cell.style.attrs, 0);
	assert_true(term_get_cell(term, 0, 5, &cell));
	assert_int_equal(cell.style.link, 0);
	for (int col = 0; col < 4; col++) {
		assert_true(term_get_cell(term, 1, col, &cell));
		assert_int_equal(cell.style.link, 0); /* a space, a byte past ASCII */
	}
	assert_null(term_link(term, 2, NULL));

	char *text = term_capture(term, 0, 1, true, &len);
	assert_string_equal(text, "a\033]8;id=7;https://example.com/x\033\\li\033[0;1mn\033[0mk"
				  "\033]8;;\033\\b\n"
				  "spu8\n");
	free(text);
	text = term_capture(term, 0, 0, false, &len);
	assert_string_equal(text, "alinkb\n");
	free(text);

	/* Linked text scrolled into history keeps its link; RIS ends one. */
	feed(term, "\033]8;;https://b.example\033\\kept");
	for (int i = 0; i < ROWS; i++)
		feed(term, "\r\n");
	feed(term, "\033c\033[Hafter");
	assert_true(term_get_cell(term, -1, 4, &cell)); /* "spu8kept" */
	assert_int_equal(cell.chars[0], 'k');
	assert_string_equal(term_link(term, cell.style.link, NULL), "https://b.example");
	assert_true(term_get_cell(term, 0, 0, &cell));
	assert_int_equal(cell.style.link, 0);

	/* Bounded: an overlong URI is not kept. */
	char big[TERM_LINK_URI_MAX + 64] = "\033]8;;http://";
	size_t n = strlen(big);
	memset(big + n, 'x', TERM_LINK_URI_MAX);
	strcpy(big + n + TERM_LINK_URI_MAX, "\007z");
	feed(term, big);
	assert_true(term_get_cell(term, 0, 5, &cell));
	assert_int_equal(cell.chars[0], 'z');
	assert_int_equal(cell.style.link, 0);
	term_free(term);
}

struct run {
	char text[32];
	int col, cells;
	struct term_style style;
};

struct runs {
	struct run runs[8];
	int count;
};

static void collect_run(const struct term_style *style, const char *utf8, size_t len, int col,
			int cells, void *user)
{
	struct runs *runs = user;
	struct run *run = &runs->runs[runs->count++];

	memcpy(run->text, utf8, len);
	run->text[len] = '\0';
	run->col = col;
	run->cells = cells;
	run->style = *style;
}

static void test_row_runs(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	struct runs runs = {0};

	feed(term, "ab\033[32m\xe4\xb8\xad"
		   "c\033[m d   ");
	assert_true(term_row_runs(term, 0, collect_run, &runs));
	assert_int_equal(runs.count, 3);
	assert_string_equal(runs.runs[0].text, "ab");
	assert_int_equal(runs.runs[0].cells, 2);
	assert_string_equal(runs.runs[1].text, "\xe4\xb8\xad"
					       "c");
	assert_int_equal(runs.runs[1].col, 2);
	assert_int_equal(runs.runs[1].cells, 3);
	assert_int_equal(runs.runs[1].style.fg.index, 2);
	assert_string_equal(runs.runs[2].text, " d"); /* trailing blanks dropped */
	assert_int_equal(runs.runs[2].col, 5);
	assert_int_equal(runs.runs[2].cells, 2);
	assert_false(term_row_runs(term, ROWS, collect_run, &runs));
	term_free(term);
}

/* Cells never written (a cursor jump) read as spaces of the run around
 * them, a Latin-1 character as its two UTF-8 bytes, and a style change
 * ends the run: on screen and from history alike. */
static void test_row_runs_of_simple_cells(void **state)
{
	struct term *term = term_new(ROWS, 40, 100);
	static const struct {
		const char *text;
		int col, cells;
		uint8_t attrs;
	} want[] = {{"ab     cd\xc3\xa9"
		     "f",
		     0, 11, 0},
		    {"gh", 11, 2, TERM_ATTR_BOLD},
		    {"ij", 13, 2, 0}};

	feed(term, "ab\033[5Ccd\xc3\xa9"
		   "f\033[1mgh\033[mij");
	for (int row = 0; row >= -1; row--) {
		struct runs runs = {0};

		assert_true(term_row_runs(term, row, collect_run, &runs));
		assert_int_equal(runs.count, 3);
		for (int i = 0; i < 3; i++) {
			assert_string_equal(runs.runs[i].text, want[i].text);
			assert_int_equal(runs.runs[i].col, want[i].col);
			assert_int_equal(runs.runs[i].cells, want[i].cells);
			assert_int_equal(runs.runs[i].style.attrs, want[i].attrs);
		}
		if (row == 0) {
			feed(term, "\r\n\n\n\n"); /* the row scrolls into history */
			assert_int_equal(term_history_lines(term), 1);
		}
	}
	term_free(term);
}

/* ---- damage ---- */

static void test_damage(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);

	term_damage_clear(term);
	assert_false(term_any_damage(term));
	feed(term, "\033[3;1Hx");
	assert_true(term_any_damage(term));
	for (int row = 0; row < ROWS; row++)
		assert_int_equal(term_row_damaged(term, row), row == 2);
	term_damage_clear(term);
	feed(term, "\r\n\r\n\r\n");
	for (int row = 0; row < ROWS; row++)
		assert_true(term_row_damaged(term, row));
	term_free(term);
}

/* ---- resize ---- */

/*
 * Reflow as data: a terminal of rows x cols, then steps (a resize to
 * `cols` when non-zero, then `write` when not NULL), then the screen,
 * history and cursor expected.  Screens and cursors were checked against
 * tmux 3.3a doing the same (resize-window on a pane fed the same bytes),
 * where tmux says cx == sx (a wrap pending) this says the last column.
 * One difference is chosen: a row erased to its end (EL) no longer runs
 * on into the next, where tmux would rejoin it across the blanks.
 */
struct reflow_step {
	int cols;
	const char *write;
};

struct reflow_case {
	const char *name;
	int rows, cols;
	const char *input;
	struct reflow_step steps[4];
	const char *screen;
	const char *history; /* NULL: must be empty */
	int cursor_row, cursor_col;
};

static const struct reflow_case reflow_cases[] = {
    {"an autowrapped line splits and rejoins", 4, 10, "0123456789ABCDE", {{5, NULL}, {10, NULL}},
     "0123456789\nABCDE\n\n\n", NULL, 1, 5},
    {"narrowed, a wrapped line is rewrapped and its top goes to history", 4, 10,
     "0123456789ABCDE", {{5, NULL}}, "56789\nABCDE\n\n\n", "01234\n", 1, 4},
    {"typing after a reflow to a full row continues on the next row", 4, 10, "0123456789ABCDE",
     {{5, NULL}, {0, "Z"}, {10, NULL}}, "0123456789\nABCDEZ\n\n\n", NULL, 1, 6},
    {"a line ended by a newline does not rejoin", 4, 10, "01234\r\n56789", {{3, NULL}, {10, NULL}},
     "01234\n56789\n\n\n", NULL, 1, 5},
    {"a full row then CR LF is not a wrap", 4, 10, "0123456789\r\nab", {{5, NULL}, {10, NULL}},
     "0123456789\nab\n\n\n", NULL, 1, 2},
    {"a long unwrapped line splits when narrowed", 4, 10, "0123456789\r\nab", {{5, NULL}},
     "56789\nab\n\n\n", "01234\n", 1, 2},
    {"the cursor stays on its character", 6, 10, "0123456789ABCDE\033[1;8H", {{5, NULL}},
     "56789\nABCDE\n\n\n\n\n", "01234\n", 0, 2},
    {"a cursor past the end of its line's text goes to its end", 4, 10, "ab\033[1;8H", {{5, NULL}},
     "ab\n\n\n\n", NULL, 0, 2},
    {"history lines rejoin when widened", 2, 10, "0123456789ABCDEFGHIJ\r\nx\r\ny", {{20, NULL}},
     "x\ny\n", "0123456789ABCDEFGHIJ\n", 1, 1},
    {"a wide character that does not fit moves whole, and comes back", 4, 10,
     "abc\xe4\xb8\xad", {{4, NULL}, {10, NULL}}, "abc\xe4\xb8\xad\n\n\n\n", NULL, 0, 5},
    {"erasing a row to its end ends its wrap", 4, 10, "0123456789AB\033[1;5H\033[K",
     {{20, NULL}}, "0123\nAB\n\n\n", NULL, 0, 4},
    {"the alternate screen is cut, not reflowed", 4, 10, "\033[?1049h0123456789AB",
     {{5, NULL}, {10, NULL}}, "01234\nAB\n\n\n", NULL, 1, 2},
    {"the main screen under the alternate screen comes back whole", 4, 10,
     "0123456789AB\033[?1049hxyz", {{5, NULL}, {10, "\033[?1049l"}}, "0123456789\nAB\n\n\n", NULL, 1,
     2},
    /* the shell's cursor follows its character when the reflowed main
     * screen comes back (grid_resize_saved, then grid_reflow), or "Z"
     * lands on the row libvterm saved it on, the one below */
    {"the main screen under the alternate screen reflows around its cursor", 4, 5,
     "0123456789AB\033[?1049hxyz", {{10, "\033[?1049lZ"}}, "0123456789\nABZ\n\n\n", NULL, 1, 3},
    {"a wrap at the bottom row scrolls and is still a wrap", 2, 10, "x\r\n0123456789AB",
     {{20, NULL}}, "x\n0123456789AB\n", NULL, 1, 12},
};

static void test_reflow_cases(void **state)
{
	for (size_t i = 0; i < sizeof reflow_cases / sizeof reflow_cases[0]; i++) {
		const struct reflow_case *c = &reflow_cases[i];
		struct term *term = term_new(c->rows, c->cols, 100);
		int row, col;

		feed(term, c->input);
		for (int k = 0; k < 4 && (c->steps[k].cols || c->steps[k].write); k++) {
			if (c->steps[k].cols)
				term_resize(term, c->rows, c->steps[k].cols);
			if (c->steps[k].write)
				feed(term, c->steps[k].write);
		}
		char *text = screen_text(term, 0);
		if (strcmp(text, c->screen) != 0)
			fail_msg("%s: screen \"%s\", want \"%s\"", c->name, text, c->screen);
		free(text);
		int lines = term_history_lines(term);
		text = lines ? term_capture(term, -lines, -1, false, NULL) : strdup("");
		if (strcmp(text, c->history ? c->history : "") != 0)
			fail_msg("%s: history \"%s\", want \"%s\"", c->name, text,
				 c->history ? c->history : "");
		free(text);
		term_cursor(term, &row, &col);
		if (row != c->cursor_row || col != c->cursor_col)
			fail_msg("%s: cursor %d,%d, want %d,%d", c->name, row, col, c->cursor_row,
				 c->cursor_col);
		term_free(term);
	}
}

/* Narrowing to two columns and back: nothing is lost for good.  (At one
 * column a wide character has nowhere to go, as in libvterm itself.) */
static void test_reflow_round_trip(void **state)
{
	struct term *term = term_new(5, 30, 1000);
	const char *text = "the quick brown fox jumps over the lazy dog\r\n"
			   "\xe4\xb8\xad\xe6\x96\x87 wide\r\n"
			   "\033[31mred\033[0m and plain words that wrap around once\r\n$ ";

	feed(term, text);
	char *before = term_capture(term, -term_history_lines(term), 4, true, NULL);
	int widths[] = {7, 2, 13, 3, 30};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
		term_resize(term, 5, widths[i]);
	char *after = term_capture(term, -term_history_lines(term), 4, true, NULL);
	assert_string_equal(after, before);
	free(before);
	free(after);
	term_free(term);
}

static void test_resize_rows(void **state)
{
	struct term *term = term_new(ROWS, COLS, 100);
	int row, col;

	feed(term, "a\r\nb\r\nc\r\nd");
	term_resize(term, 2, COLS);
	assert_int_equal(term_rows(term), 2);
	char *text = screen_text(term, -term_history_lines(term));
	assert_string_equal(text, "a\nb\nc\nd\n");
	free(text);
	assert_int_equal(term_history_lines(term), 2);
	term_cursor(term, &row, &col);
	assert_int_equal(row, 1);

	term_resize(term, 6, COLS);
	assert_int_equal(term_history_lines(term), 0);
	text = screen_text(term, 0);
	assert_string_equal(text, "a\nb\nc\nd\n\n\n");
	free(text);
	term_cursor(term, &row, &col);
	assert_int_equal(row, 3);
	assert_int_equal(col, 1);

	term_resize(term, 0, 5000); /* clamped */
	assert_int_equal(term_rows(term), 1);
	assert_int_equal(term_cols(term), 1000);
	term_free(term);
}

static void test_resize_drops_blank_rows_first(void **state)
{
	struct term *term = term_new(6, COLS, 100);

	feed(term, "a\r\nb");
	term_resize(term, 3, COLS);
	assert_int_equal(term_history_lines(term), 0);
	char *text = screen_text(term, 0);
	assert_string_equal(text, "a\nb\n\n");
	free(text);
	term_free(term);
}

/* An editor on the alternate screen (1049) while the terminal is resized:
 * when it leaves, the shell's cursor is back on the row after its own
 * line, wherever the resize moved that line, as in tmux. */
struct alt_resize_case {
	const char *name;
	int lines;	 /* lines of output before "$ vim" (6 rows tall) */
	int sizes[2];	 /* the rows it is resized to, 0: none */
	const char *row; /* the row the prompt lands on ends this screen */
	int cursor_row;
};

static void test_alt_screen_resize_keeps_shell_cursor(void **state)
{
	static const struct alt_resize_case cases[] = {
	    /* shrink: the rows below the prompt go; nothing moves */
	    {"few lines, shrink", 2, {4, 0}, "1\n2\n$ vim\n$\n", 3},
	    /* shrink of a full screen: the top moves into history */
	    {"full screen, shrink", 9, {4, 0}, "8\n9\n$ vim\n$\n", 3},
	    /* grow: history comes back above, the prompt follows its line */
	    {"full screen, grow", 9, {8, 0}, "4\n5\n6\n7\n8\n9\n$ vim\n$\n", 7},
	    /* shrink then grow again: only the last size counts, and the
	     * resizes themselves leave the saved cursor alone (they saved
	     * and restored the cursor in its slot: the prompt came back
	     * where the editor had its cursor) */
	    {"shrink and grow back", 9, {3, 6}, "6\n7\n8\n9\n$ vim\n$\n", 5},
	    {"grow and shrink", 2, {9, 4}, "1\n2\n$ vim\n$\n", 3},
	};
	char line[16];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct alt_resize_case *tc = &cases[i];
		struct term *term = term_new(6, COLS, 100);
		int row, col;
		char *text;

		for (int n = 1; n <= tc->lines; n++) {
			snprintf(line, sizeof line, "%d\r\n", n);
			feed(term, line);
		}
		feed(term, "$ vim\r\n\033[?1049h\033[H\033[2Jeditor\033[1;1H");
		for (int k = 0; k < 2 && tc->sizes[k] > 0; k++)
			term_resize(term, tc->sizes[k], COLS);
		feed(term, "\033[?1049l$ ");
		text = screen_text(term, 0);
		term_cursor(term, &row, &col);
		if (strcmp(text, tc->row) != 0 || row != tc->cursor_row || col != 2)
			fail_msg("%s: screen %s cursor %d,%d (want %s at row %d)", tc->name, text, row,
				 col, tc->row, tc->cursor_row);
		free(text);
		term_free(term);
	}
}

/* ---- against libvterm's own screen layer ---- */

/*
 * libvterm's screen layer is too slow to use, but it is a good oracle:
 * random sequences of text and edits go to both, and every cell must
 * agree.  Rows where the screen layer keeps half of an overwritten wide
 * character are skipped: there we follow xterm and blank both halves.
 */
static const char *const oracle_pieces[] = {
    "abc",
    "hello world ",
    "\r\n",
    "\n",
    "\r",
    "\t",
    "\b",
    "\xe4\xb8\xad",
    "\xe6\x96\x87",
    "e\xcc\x81",
    "\xc3\xa9",
    "\033[A",
    "\033[B",
    "\033[C",
    "\033[3D",
    "\033[H",
    "\033[5;7H",
    "\033[2;20H",
    "\033[K",
    "\033[1K",
    "\033[2K",
    "\033[J",
    "\033[1J",
    "\033[2@",
    "\033[3P",
    "\033[2X",
    "\033[L",
    "\033[2M",
    "\033[S",
    "\033[2T",
    "\033M",
    "\033D",
    "\033E",
    "\033[2;5r",
    "\033[r",
    "\033[31m",
    "\033[1;42m",
    "\033[38;5;123m",
    "\033[48;2;1;2;3m",
    "\033[38;2;9;9;9m",
    "\033[m",
    "\033[7;3;9m",
    "\033[?1049h",
    "\033[?1049l",
    "\033[4h",
    "\033[4l",
    "0123456789012345678901234567890",
    "\033[?7l",
    "\033[?7h",
    "\033[10S",
    "\033[9T",
    "\033[3;3H\033[6@",
    "\033#8",
};

static void expected_color(const VTermColor *in, bool is_bg, struct term_color *out)
{
	memset(out, 0, sizeof *out);
	if (is_bg ? VTERM_COLOR_IS_DEFAULT_BG(in) : VTERM_COLOR_IS_DEFAULT_FG(in))
		return;
	if (VTERM_COLOR_IS_INDEXED(in)) {
		out->kind = TERM_COLOR_PALETTE;
		out->index = in->indexed.idx;
		return;
	}
	*out = (struct term_color){TERM_COLOR_RGB, 0, in->rgb.red, in->rgb.green, in->rgb.blue};
}

static uint8_t expected_attrs(const VTermScreenCellAttrs *in)
{
	return (uint8_t)((in->bold ? TERM_ATTR_BOLD : 0) | (in->italic ? TERM_ATTR_ITALIC : 0) |
			 (in->underline ? TERM_ATTR_UNDERLINE : 0) |
			 (in->reverse ? TERM_ATTR_REVERSE : 0) |
			 (in->strike ? TERM_ATTR_STRIKE : 0) | (in->blink ? TERM_ATTR_BLINK : 0));
}

static bool oracle_row_is_comparable(VTermScreen *screen, int row, int cols)
{
	VTermScreenCell cell;
	for (int col = 0; col < cols; col++) {
		vterm_screen_get_cell(screen, (VTermPos){row, col}, &cell);
		uint32_t ch = cell.chars[0];
		if (ch != (uint32_t)-1 &&
		    ((ch >= 0x1100 && cell.width == 1) || (ch < 0x1100 && cell.width == 2)))
			return false;
	}
	return true;
}

static void oracle_compare_cell(struct term *term, VTermScreen *screen, int row, int col)
{
	struct term_cell ours;
	VTermScreenCell theirs;
	struct term_color fg, bg;

	term_get_cell(term, row, col, &ours);
	vterm_screen_get_cell(screen, (VTermPos){row, col}, &theirs);
	bool continuation = theirs.chars[0] == (uint32_t)-1;
	uint32_t want = continuation || theirs.chars[0] == ' ' ? 0 : theirs.chars[0];
	uint32_t got = ours.chars[0] == ' ' ? 0 : ours.chars[0];
	for (int i = 1; want && i < TERM_MAX_CHARS && (ours.chars[i] || theirs.chars[i]); i++)
		if (ours.chars[i] != theirs.chars[i])
			fail_msg("cell %d,%d: combining mark %d differs", row, col, i);
	if (got != want)
		fail_msg("cell %d,%d: U+%04X, libvterm U+%04X", row, col, got, want);
	if (want && ours.width != theirs.width)
		fail_msg("cell %d,%d: width %d, libvterm %d", row, col, ours.width, theirs.width);
	expected_color(&theirs.bg, true, &bg);
	if (!continuation && memcmp(&bg, &ours.style.bg, sizeof bg) != 0)
		fail_msg("cell %d,%d: background differs", row, col);
	expected_color(&theirs.fg, false, &fg);
	if (want && memcmp(&fg, &ours.style.fg, sizeof fg) != 0)
		fail_msg("cell %d,%d: foreground differs", row, col);
	if (want && expected_attrs(&theirs.attrs) != ours.style.attrs)
		fail_msg("cell %d,%d: attributes differ", row, col);
}

static void test_matches_libvterm_screen(void **state)
{
	enum { ORACLE_ROWS = 6, ORACLE_COLS = 20 };
	uint64_t seed = 12345;

	for (int run = 0; run < 200; run++) {
		struct term *term = term_new(ORACLE_ROWS, ORACLE_COLS, 50);
		VTerm *vt = vterm_new(ORACLE_ROWS, ORACLE_COLS);
		vterm_set_utf8(vt, 1);
		VTermScreen *screen = vterm_obtain_screen(vt);
		vterm_screen_enable_altscreen(screen, 1);
		vterm_screen_reset(screen, 1);
		vterm_input_write(vt, "\0337", 2); /* as term_new does, see there */

		for (int step = 0; step < 100; step++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			const char *piece = oracle_pieces[(seed >> 33) % (sizeof oracle_pieces /
									  sizeof oracle_pieces[0])];
			term_write(term, piece, strlen(piece));
			vterm_input_write(vt, piece, strlen(piece));
			for (int row = 0; row < ORACLE_ROWS; row++) {
				if (!oracle_row_is_comparable(screen, row, ORACLE_COLS))
					continue;
				for (int col = 0; col < ORACLE_COLS; col++)
					oracle_compare_cell(term, screen, row, col);
			}
		}
		term_free(term);
		vterm_free(vt);
	}
}

/* Random output, resizes, limits and reads: nothing may crash or leak
 * (run under ASan/UBSan), every cell stays readable, and the cursor stays
 * on screen.  Found the cursor-above-the-screen and stale-storage bugs. */
static void test_random_edits_and_resizes(void **state)
{
	static const char *const extra[] = {"\033]2;ti", "tle\007", "\033",
					    "P",	 "\033c",   "\033[999;999H\xe4\xb8\xad",
					    "\xff\xfe",	 "\033[5n"};
	uint64_t seed = 777;

	for (int run = 0; run < 300; run++) {
		struct term *term = term_new(1 + run % 8, 1 + run % 29, run % 20);
		for (int step = 0; step < 200; step++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			unsigned pick = (unsigned)(seed >> 33);
			if (pick % 100 < 3) {
				term_resize(term, 1 + pick / 100 % 10, 1 + pick / 1000 % 40);
			} else if (pick % 100 < 4) {
				term_set_scrollback_limit(term, (int)(pick / 100 % 30));
			} else if (pick % 100 < 10) {
				const char *piece =
				    extra[pick / 100 % (sizeof extra / sizeof extra[0])];
				term_write(term, piece, strlen(piece));
			} else {
				size_t count = sizeof oracle_pieces / sizeof oracle_pieces[0];
				const char *piece = oracle_pieces[pick / 100 % count];
				term_write(term, piece, strlen(piece));
			}
			int row, col;
			term_cursor(term, &row, &col);
			assert_in_range(row, 0, term_rows(term) - 1);
			assert_in_range(col, 0, term_cols(term) - 1);
		}
		char *text =
		    term_capture(term, -term_history_lines(term), term_rows(term), true, NULL);
		free(text);
		term_free(term);
	}
}


/*
 * The fast path for plain text (term.c, fast_text) must change nothing
 * but speed: two emulators, one with it and one without, get the same
 * random output in the same random pieces, and every cell of screen and
 * history, the cursor and the history length must agree.  The pieces
 * lean on what the fast path has to respect: long ASCII runs near the
 * right edge and after wide characters (pending wraps), charsets (ESC (
 * 0, SO/SI, single shifts), insert and origin mode, left/right margins,
 * double-width lines, split UTF-8, strings, RGB pens and stray bytes.
 */
static const char *const fast_pieces[] = {
    "The quick brown fox jumps over the lazy dog, 0123456789 ",
    "abcdefghij",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "xy",
    "\r\n", "\n", "\r", "\t", "\b", "\a",
    "\xe4\xb8\xad", "\xef\xbc\xa1", "e\xcc\x81", "\xcc\x81", "\xc3", "\xa9", "\xe2\x82",
    "\033[A", "\033[3C", "\033[2D", "\033[H", "\033[1;40H", "\033[3;75H", "\033[4;78H",
    "\033[5;79H", "\033[80G", "\033[79G", "\033[78G", "\033[K", "\033[2J", "\033[3@",
    "\033[2P", "\033[L", "\033[M", "\033[S", "\033[T", "\033[2;6r", "\033[r",
    "\033[31m", "\033[1;44m", "\033[38;2;1;2;3m", "\033[48;5;200m", "\033[m",
    "\033[4h", "\033[4l", "\033[4;20h", "\033[?6h", "\033[?6l", "\033[?69h", "\033[?69l",
    "\033[5;30s", "\033[?7l", "\033[?7h", "\033[?1049h", "\033[?1049l", "\033[3b",
    "\033(0", "\033(B", "\033(A", "\033)0", "\016", "\017", "\033N", "\033O", "\033n",
    "\033o", "\033c", "\033#6", "\033#3", "\033#5", "\033#8", "\0337", "\0338",
    "\033]2;a title\007", "\033]0;x", "\033\\", "\033P1$r", "\030", "\032", "\033",
    "\033[", "\033[?", "\0331", "\033 F", "\033[1 q", "\033[!p", "\x7f", "\0",
    "\xc2\x85", "\xc2", "\x9b", "\xff",
};

static void compare_terms(const struct term *a, const struct term *b, int run, int step)
{
	int ra, ca, rb, cb;

	term_cursor(a, &ra, &ca);
	term_cursor(b, &rb, &cb);
	if (ra != rb || ca != cb)
		fail_msg("run %d step %d: cursor %d,%d, without the fast path %d,%d", run, step, ra,
			 ca, rb, cb);
	if (term_history_lines(a) != term_history_lines(b))
		fail_msg("run %d step %d: history %d lines, without %d", run, step,
			 term_history_lines(a), term_history_lines(b));
	for (int row = -term_history_lines(a); row < term_rows(a); row++)
		for (int col = 0; col < term_cols(a); col++) {
			struct term_cell x, y;
			term_get_cell(a, row, col, &x);
			term_get_cell(b, row, col, &y);
			if (memcmp(x.chars, y.chars, sizeof x.chars) != 0 || x.width != y.width ||
			    memcmp(&x.style, &y.style, sizeof x.style) != 0)
				fail_msg("run %d step %d: cell %d,%d U+%04X w%d fg %d/%d bg %d/%d "
					 "attrs %x, without the fast path U+%04X w%d fg %d/%d "
					 "bg %d/%d attrs %x",
					 run, step, row, col, x.chars[0], x.width, x.style.fg.kind,
					 x.style.fg.index, x.style.bg.kind, x.style.bg.index,
					 x.style.attrs, y.chars[0], y.width, y.style.fg.kind,
					 y.style.fg.index, y.style.bg.kind, y.style.bg.index,
					 y.style.attrs);
		}
}

static void test_fast_text_changes_nothing(void **state)
{
	uint64_t seed = 5; /* finds the single-shift case near run 1470 */
	char buf[4096];

	for (int run = 0; run < 2000; run++) {
		int rows = 3 + run % 6, cols = run % 3 == 0 ? 80 : 9 + run % 40;
		struct term *fast = term_new(rows, cols, 30);
		struct term *slow = term_new(rows, cols, 30);
		term_set_fast_text(slow, false);
		for (int step = 0; step < 60; step++) {
			size_t len = 0;
			int pieces = 1 + (int)(seed >> 60);
			for (int k = 0; k < pieces; k++) {
				seed = seed * 6364136223846793005u + 1442695040888963407u;
				unsigned pick = (unsigned)(seed >> 33);
				const char *piece;
				size_t n;
				if (pick % 100 < 35) {
					piece = fast_pieces[pick / 100 % 4];
					n = strlen(piece);
					n = 1 + pick / 1000 % n;
				} else {
					size_t count = sizeof fast_pieces / sizeof fast_pieces[0];
					piece = fast_pieces[pick / 100 % count];
					n = strlen(piece);
					if (n == 0)
						n = 1; /* the NUL piece */
				}
				if (len + n < sizeof buf) {
					memcpy(buf + len, piece, n);
					len += n;
				}
			}
			/* The same bytes, cut in the same random places. */
			for (size_t off = 0; off < len;) {
				seed = seed * 6364136223846793005u + 1442695040888963407u;
				size_t cut = 1 + (seed >> 33) % 97;
				if (cut > len - off)
					cut = len - off;
				term_write(fast, buf + off, cut);
				term_write(slow, buf + off, cut);
				off += cut;
				compare_terms(fast, slow, run, step);
			}
			if (step % 20 == 19) {
				term_resize(fast, rows, cols - 1);
				term_resize(slow, rows, cols - 1);
				cols--;
			}
			compare_terms(fast, slow, run, step);
		}
		term_free(fast);
		term_free(slow);
	}
}

/*
 * The fast path for lines (term-scan.c, fast_lines) must change nothing
 * either: short lines ended by CR LF, tabs, empty lines, lines up to the
 * right edge, cut anywhere, between what it must notice: a scroll region,
 * double-width lines, tab stops set and cleared, margins, insert mode, a
 * combining mark after a line and after a cursor move (libvterm's last
 * glyph), wide characters, pens, the alternate screen, newline mode and
 * resizes both ways.  Damage and the lines gone into history must agree
 * too.
 */
static const char *const line_pieces[] = {
    "a an the\r\n", "of\r\n", "to in it is be\r\n", "\r\n", "\r\n\r\n", "x\r\n",
    "int\tmain(void);\r\n", "\tx\t\ty\r\n", "#define A\t1\r\n",
    "The quick brown fox jumps over the lazy dog 0123456789\r\n", "abcdefghijklmnopqrstuvwxyz",
    "e\xcc\x81\r\n", "\xcc\x81", "\xe4\xb8\xad\r\n", "ab\xe4\xb8\xad", "\n", "\r", "\t", "\b",
    "\033[2;5r", "\033[r", "\033#6", "\033#5", "\033H", "\033[3g", "\033[g", "\033[31m",
    "\033[1;44m", "\033[38;2;1;2;3m", "\033[m", "\033[A", "\033[5C", "\033[2;3H", "\033[99;1H",
    "\033[S", "\033[T", "\033[L", "\033[M", "\033[2J", "\033[?7l", "\033[?7h", "\033[4h",
    "\033[4l", "\033[20h", "\033[20l", "\033[?69h\033[2;9s", "\033[?69l", "\033[?6h",
    "\033[?6l", "\033[?1049h", "\033[?1049l", "\0337", "\0338", "\033(0", "\033(B", "\016",
    "\017", "\033c", "\033[3b", "\033]0;t\007",
};

static void test_fast_lines_change_nothing(void **state)
{
	uint64_t seed = 11;
	char buf[4096];

	/* libvterm joins a combining mark to its last glyph wherever that
	 * was printed, if the cursor stands just past it: the fast path
	 * must leave libvterm that glyph ("e" at 2,4, a line scrolled up). */
	static const char *const joins[] = {
	    "x\r\nabcde\r\n\033[5C\xcc\x81",
	    "\r\nabcde\r\n\r\n\033[5C\xcc\x81",
	};
	for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
		struct term *fast = term_new(3, 10, 10), *slow = term_new(3, 10, 10);
		struct term_cell cell;
		term_set_fast_text(slow, false);
		/* A whole-screen scroll first: the fast path knows the region. */
		term_write(fast, "1\r\n2\r\n3\r\n", 9);
		term_write(slow, "1\r\n2\r\n3\r\n", 9);
		term_write(fast, joins[i], strlen(joins[i]));
		term_write(slow, joins[i], strlen(joins[i]));
		compare_terms(fast, slow, -1, (int)i);
		term_get_cell(fast, 2, 4, &cell);
		assert_int_equal(cell.chars[1], 0x301);
		term_free(fast);
		term_free(slow);
	}

	for (int run = 0; run < 600; run++) {
		int rows = 2 + run % 7, cols = run % 4 == 0 ? 80 : 6 + run % 50;
		struct term *fast = term_new(rows, cols, 40);
		struct term *slow = term_new(rows, cols, 40);
		term_set_fast_text(slow, false);
		for (int step = 0; step < 80; step++) {
			size_t len = 0;
			int pieces = 1 + (int)(seed >> 59);
			for (int k = 0; k < pieces; k++) {
				seed = seed * 6364136223846793005u + 1442695040888963407u;
				unsigned pick = (unsigned)(seed >> 33);
				/* Mostly lines; now and then anything. */
				size_t count = pick % 100 < 85 ? 12 : sizeof line_pieces / sizeof line_pieces[0];
				const char *piece = line_pieces[pick / 100 % count];
				size_t n = strlen(piece);
				if (len + n < sizeof buf) {
					memcpy(buf + len, piece, n);
					len += n;
				}
			}
			for (size_t off = 0; off < len;) {
				seed = seed * 6364136223846793005u + 1442695040888963407u;
				size_t cut = 1 + (seed >> 33) % 300;
				if (cut > len - off)
					cut = len - off;
				term_write(fast, buf + off, cut);
				term_write(slow, buf + off, cut);
				off += cut;
				compare_terms(fast, slow, run, step);
				if (term_lines_out(fast) != term_lines_out(slow))
					fail_msg("run %d step %d: %ld lines out, without %ld", run, step,
						 term_lines_out(fast), term_lines_out(slow));
				for (int row = 0; row < rows; row++)
					if (term_row_damaged(fast, row) != term_row_damaged(slow, row))
						fail_msg("run %d step %d: row %d damaged %d, without %d",
							 run, step, row, term_row_damaged(fast, row),
							 term_row_damaged(slow, row));
				term_damage_clear(fast);
				term_damage_clear(slow);
			}
			if (step % 16 == 15) {
				/* Wider or narrower: a reflow shows every wrapped mark. */
				cols += (seed >> 40) % 2 ? 3 : -2;
				if (cols < 4)
					cols = 4;
				term_resize(fast, rows, cols);
				term_resize(slow, rows, cols);
				compare_terms(fast, slow, run, step);
			}
		}
		term_free(fast);
		term_free(slow);
	}
}

/* The one UTF-8 decoder (keys, the client's sanitiser): what it accepts
 * and what it refuses, as a table. */
static void test_utf8_decode(void **state)
{
	static const struct {
		const char *bytes;
		size_t len, want_len;
		uint32_t want;
	} cases[] = {
	    {"a", 1, 1, 'a'},
	    {"\xc3\xa9", 2, 2, 0xe9},
	    {"\xe4\xb8\xad", 3, 3, 0x4e2d},
	    {"\xf0\x9f\x98\x80", 4, 4, 0x1f600},
	    {"\xc3\xa9x", 3, 2, 0xe9},	  /* only the first character */
	    {"\xc0\x80", 2, 0, 0},		  /* overlong NUL */
	    {"\xe0\x80\xaf", 3, 0, 0},	  /* overlong '/' */
	    {"\xf0\x80\x80\xaf", 4, 0, 0}, /* overlong '/' */
	    {"\xe4\xb8", 2, 0, 0},		  /* cut short */
	    {"\xe4x\xad", 3, 0, 0},		  /* not a continuation */
	    {"\x80", 1, 0, 0},			  /* a continuation alone */
	    {"\xff", 1, 0, 0},
	    {"", 0, 0, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t cp = 0;
		size_t len = term_utf8_decode(cases[i].bytes, cases[i].len, &cp);

		if (len != cases[i].want_len || (len > 0 && cp != cases[i].want))
			fail_msg("case %zu: length %zu, U+%04X", i, len, (unsigned)cp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_screen_cases),
	    cmocka_unit_test(test_history_text_equals_screen_text),
	    cmocka_unit_test(test_fast_text_changes_nothing),
	    cmocka_unit_test(test_fast_lines_change_nothing),
	    cmocka_unit_test(test_cell_cases),
	    cmocka_unit_test(test_combining_chars),
	    cmocka_unit_test(test_out_of_range),
	    cmocka_unit_test(test_scrollback_limit),
	    cmocka_unit_test(test_scrollback_memory_is_recycled),
	    cmocka_unit_test(test_rgb_overwrite_stays_bounded),
	    cmocka_unit_test(test_alt_screen),
	    cmocka_unit_test(test_alt_screen_allocated_while_shown),
	    cmocka_unit_test(test_titles),
	    cmocka_unit_test(test_title_in_pieces),
	    cmocka_unit_test(test_osc7),
	    cmocka_unit_test(test_bracketed_paste),
	    cmocka_unit_test(test_app_cursor_keys),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_replies_reach_output),
	    cmocka_unit_test(test_synchronized_output),
	    cmocka_unit_test(test_clipboard_write),
	    cmocka_unit_test(test_focus_events),
	    cmocka_unit_test(test_notifications_and_progress),
	    cmocka_unit_test(test_kitty_keyboard),
	    cmocka_unit_test(test_last_command),
	    cmocka_unit_test(test_prompt_rows),
	    cmocka_unit_test(test_bell),
	    cmocka_unit_test(test_capture_ansi),
	    cmocka_unit_test(test_hyperlinks),
	    cmocka_unit_test(test_capture_wide_terminal),
	    cmocka_unit_test(test_row_runs),
	    cmocka_unit_test(test_row_runs_of_simple_cells),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_reflow_cases),
	    cmocka_unit_test(test_reflow_round_trip),
	    cmocka_unit_test(test_resize_rows),
	    cmocka_unit_test(test_resize_drops_blank_rows_first),
	    cmocka_unit_test(test_alt_screen_resize_keeps_shell_cursor),
	    cmocka_unit_test(test_matches_libvterm_screen),
	    cmocka_unit_test(test_random_edits_and_resizes),
	    cmocka_unit_test(test_utf8_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
