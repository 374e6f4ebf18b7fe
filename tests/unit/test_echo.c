/*
 * test_echo: the bytes of an echo patch (src/server-echo.c).
 *
 * A patch is what the server writes to a client's terminal itself: the
 * pane's damaged rows at the client's screen position, wrapped in
 * DECSC/DECRC.  It must draw exactly what the client would (the same
 * colours and attributes, default blanks to the row's end), and there must
 * be no patch at all for what the client would draw differently or what
 * is not plain text: wide and combining characters, colours the client
 * maps, too many rows.  A cursor that moved with no cell changed is a
 * patch of the cursor's move alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "echo-share.h"
#include "server.h"
#include "term.h"

static struct echo_share share_256 = {.use_color = 1, .ncolors = 256};

/* term after writing bytes (from a clean slate: damage cleared first). */
static struct term *term_after(const char *bytes)
{
	struct term *t = term_new(5, 20, 100);

	term_damage_clear(t);
	term_write(t, bytes, strlen(bytes));
	return t;
}

static size_t patch(const struct echo_share *share, const char *bytes, char *out, size_t size)
{
	struct term *t = term_after(bytes);
	size_t n = server_echo_patch_bytes(share, 10, 3, t, false, out, size - 1);

	out[n] = '\0';
	term_free(t);
	return n;
}

static void test_plain_row(void **state)
{
	char out[4096];

	(void)state;
	assert_true(patch(&share_256, "ab", out, sizeof out) > 0);
	/* DECSC, G0 ASCII, SI; the row at (row 3 + 0, col 10), 1-based;
	 * reset attributes, the cells; DECRC. */
	assert_memory_equal(out, "\0337\033(B\017\033[4;11H\033[0mab", 19);
	assert_string_equal(out + strlen(out) - 6, "\033[0m\0338");
	/* The whole row: default blanks erase what was there. */
	assert_non_null(strstr(out, "ab\033[0m                  \033[0m\0338"));
}

/* A terminal with ECH gets the row's tail erased, not spaced out. */
static void test_erase_characters(void **state)
{
	static const struct echo_share share_ech = {.use_color = 1, .ncolors = 256, .erase_chars = 1};
	char out[4096];

	(void)state;
	assert_true(patch(&share_ech, "ab", out, sizeof out) > 0);
	assert_non_null(strstr(out, "ab\033[0m\033[18X\033[0m\0338"));
	assert_null(strstr(out, "  "));
}

/* With the client's cursor in the pane, the patch leaves the cursor
 * where the pane has it (DECRC first, for the attributes). */
static void test_cursor_follows(void **state)
{
	struct term *t = term_after("ab");
	char out[4096];
	size_t n = server_echo_patch_bytes(&share_256, 10, 3, t, true, out, sizeof out - 1);

	(void)state;
	out[n] = '\0';
	assert_true(n > 0);
	assert_string_equal(out + strlen(out) - 13, "\033[0m\0338\033[4;13H");
	term_free(t);
}

/* A cursor key changes no cell: the cursor moved is damage of its own,
 * and the patch is the cursor's move alone (no rows, no DECSC/DECRC). */
static void test_cursor_alone(void **state)
{
	struct term *t = term_after("abcdef");
	char out[4096];
	size_t n;

	(void)state;
	term_damage_clear(t);
	assert_false(term_cursor_damaged(t));
	term_write(t, "\b\b", 2);
	assert_false(term_any_damage(t));
	assert_true(term_cursor_damaged(t));
	n = server_echo_patch_bytes(&share_256, 10, 3, t, true, out, sizeof out - 1);
	out[n] = '\0';
	assert_string_equal(out, "\033[4;15H");
	/* Without the client's cursor in the pane there is nothing to write. */
	assert_int_equal(server_echo_patch_bytes(&share_256, 10, 3, t, false, out, sizeof out), 0);
	/* Hiding the cursor is damage too; sent, it is not any more. */
	term_damage_clear(t);
	term_write(t, "\033[?25l", 6);
	assert_true(term_cursor_damaged(t));
	term_damage_clear(t);
	assert_false(term_cursor_damaged(t));
	term_free(t);
}

static void test_colours_and_attributes(void **state)
{
	char out[4096];

	(void)state;
	assert_true(patch(&share_256, "\033[1;32mok\033[0;4;41mx\033[38;5;200my\033[0m", out,
			  sizeof out) > 0);
	assert_non_null(strstr(out, "\033[0;1;32mok"));
	assert_non_null(strstr(out, "\033[0;4;41mx"));
	assert_non_null(strstr(out, "\033[0;4;38;5;200;41my"));
}

static void test_what_is_never_patched(void **state)
{
	static const struct echo_share share_8 = {.use_color = 1, .ncolors = 8};
	static const struct echo_share share_direct = {
	    .use_color = 1, .ncolors = 256, .direct_color = 1};
	static const struct echo_share share_mono = {.use_color = 0};
	char out[4096];

	(void)state;
	/* wide, combining, non-ASCII */
	assert_int_equal(patch(&share_256, "\xe4\xb8\xad", out, sizeof out), 0);
	assert_int_equal(patch(&share_256, "e\xcc\x81", out, sizeof out), 0);
	assert_int_equal(patch(&share_256, "\xc3\xa9", out, sizeof out), 0);
	/* colours the client would map to its palette */
	assert_int_equal(patch(&share_8, "\033[38;5;200mx", out, sizeof out), 0);
	assert_int_equal(patch(&share_256, "\033[38;2;1;2;3mx", out, sizeof out), 0);
	assert_int_equal(patch(&share_direct, "\033[38;5;200mx", out, sizeof out), 0);
	/* strike-through is drawn otherwise */
	assert_int_equal(patch(&share_256, "\033[9mx", out, sizeof out), 0);
	/* more rows than an echo */
	assert_int_equal(patch(&share_256, "1\r\n2\r\n3\r\n4\r\n5", out, sizeof out), 0);
	/* nothing damaged, nothing to patch */
	assert_int_equal(patch(&share_256, "", out, sizeof out), 0);
	/* a buffer too small is no patch, never half of one */
	assert_int_equal(patch(&share_256, "ab", out, 20), 0);

	/* and what the client draws as it is */
	assert_true(patch(&share_direct, "\033[38;2;1;2;3mx", out, sizeof out) > 0);
	assert_non_null(strstr(out, "\033[0;38;2;1;2;3mx"));
	assert_true(patch(&share_mono, "\033[1;31mx", out, sizeof out) > 0);
	assert_non_null(strstr(out, "\033[0;1mx")); /* NO_COLOR: attributes, no colour */
	assert_true(patch(&share_8, "\033[31mx", out, sizeof out) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_row),
	    cmocka_unit_test(test_erase_characters),
	    cmocka_unit_test(test_cursor_follows),
	    cmocka_unit_test(test_cursor_alone),
	    cmocka_unit_test(test_colours_and_attributes),
	    cmocka_unit_test(test_what_is_never_patched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
