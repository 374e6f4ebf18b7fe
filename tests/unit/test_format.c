/*
 * test_format: the format expander as data: a text, the context every
 * case shares, and what it must expand to; then hostile texts (unclosed
 * braces, nesting past the limit, output past the buffer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "format.h"

static const struct format_context ctx = {
    .session_name = "work",
    .session_windows = 3,
    .window_index = 2,
    .window_name = "vim",
    .window_panes = 2,
    .pane_id = 7,
    .pane_index = 1,
    .pane_title = "build \xe4\xb8\xad\xe6\x96\x87 log",
    .pane_current_path = "/home/u/src",
    .pane_start_path = "/home/u",
    .pane_backend = "native",
    .pane_violations = 4,
    .pane_width = 80,
    .pane_height = 24,
    .pane_active = true,
    .pane_pid = 1234,
    .client_width = 120,
    .client_height = 40,
};

static const struct {
	const char *text, *want;
} cases[] = {
    {"plain text", "plain text"},
    {"", ""},
    {"#{session_name}:#{window_index}.#{pane_index}", "work:2.1"},
    {"#{window_name} #{pane_id} #{pane_current_path}", "vim %7 /home/u/src"},
    {"#{pane_backend}/#{pane_violations}", "native/4"},
    {"#{pane_title}", "build \xe4\xb8\xad\xe6\x96\x87 log"},
    {"#{client_width}x#{client_height} #{pane_width}x#{pane_height}", "120x40 80x24"},
    {"#{session_windows} #{window_panes} #{pane_active} #{pane_pid}", "3 2 1 1234"},
    {"#{pane_start_path}", "/home/u"},
    {"#S #I #W #P #D", "work 2 vim 1 %7"},
    {"## and #", "# and #"},
    {"100#", "100#"},
    {"#x #[fg=red]", "#x #[fg=red]"},
    {"a ##{session_name} b", "a #{session_name} b"},
    {"#{no_such_name}|", "|"},
    {"#{?pane_active,on,off}", "on"},
    {"#{?window_zoomed_flag,Z,-}", "-"},
    {"#{?pane_violations,#{pane_violations} denied,clean}", "4 denied"},
    {"#{?no_such_name,yes,no}", "no"},
    {"#{?pane_active,#{?window_zoomed_flag,a,b},c}", "b"},
    {"#{?pane_active,x#,y,z}", "x,y"},
    {"#{?pane_active,only}", "only"},
    {"#{?window_zoomed_flag,only}", ""},
    {"#{?pane_active}", ""},
    {"#{=5:pane_current_path}", "/home"},
    {"#{=-3:pane_current_path}", "src"},
    {"#{=7:pane_title}", "build \xe4\xb8\xad"},
    {"#{=99:window_name}", "vim"},
    {"#{=x:window_name}", ""},
    {"#{session_name", "#{session_name"},
    {"ok #{?pane_active,a", "ok #{?pane_active,a"},
    {"#{", "#{"},
    {"#{}", ""},
    {"}{#}", "}{}"},
};

static void test_cases(void **state)
{
	char out[512];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = format_expand(cases[i].text, &ctx, out, sizeof out);
		if (strcmp(out, cases[i].want) != 0 || len != strlen(out))
			fail_msg("\"%s\" expanded to \"%s\", want \"%s\"", cases[i].text, out,
				 cases[i].want);
	}
}

static void test_host(void **state)
{
	char host[256], out[256];

	assert_int_equal(gethostname(host, sizeof host), 0);
	host[sizeof host - 1] = '\0';
	format_expand("#{host}", &ctx, out, sizeof out);
	assert_string_equal(out, host);
	format_expand("#H", &ctx, out, sizeof out);
	assert_string_equal(out, host);
	host[strcspn(host, ".")] = '\0';
	format_expand("#h", &ctx, out, sizeof out);
	assert_string_equal(out, host);
}

/* No pane: strings and the id expand to nothing, never crash. */
static void test_empty_context(void **state)
{
	struct format_context none = {.pane_id = -1};
	char out[64];

	format_expand("[#{session_name}|#{pane_id}|#{pane_title}|#T]", &none, out, sizeof out);
	assert_string_equal(out, "[|||]");
}

/* Output is cut at the buffer, on a character boundary, and NUL-ended. */
static void test_output_is_bounded(void **state)
{
	char text[4096] = "", out[16];

	for (int i = 0; i < 300; i++) /* 3900 bytes of text, far more out */
		strcat(text, "#{pane_title}");
	memset(out, 'X', sizeof out);
	size_t len = format_expand(text, &ctx, out, sizeof out);
	assert_true(len < sizeof out);
	assert_int_equal(out[len], '\0');
	/* "build " then U+4E2D (3 bytes) then U+6587 would end at 12: fits */
	assert_string_equal(out, "build \xe4\xb8\xad\xe6\x96\x87 lo");
	char small[9];
	format_expand("#{pane_title}", &ctx, small, sizeof small);
	assert_string_equal(small, "build "); /* not half of U+4E2D */
	assert_int_equal(format_expand("anything", &ctx, out, 1), 0);
	assert_string_equal(out, "");
}

/* Deep nesting stops at FORMAT_MAX_DEPTH; a huge unclosed text is text. */
static void test_hostile_nesting(void **state)
{
	char text[8192] = "", out[256];

	for (int i = 0; i < 400; i++) /* 6804 bytes */
		strcat(text, "#{?pane_active,");
	strcat(text, "deep");
	for (int i = 0; i < 400; i++)
		strcat(text, ",}");
	format_expand(text, &ctx, out, sizeof out);
	assert_string_equal(out, ""); /* past the limit: nothing, and no crash */

	char nested[256] = "";
	for (int i = 0; i < 3; i++)
		strcat(nested, "#{?pane_active,");
	strcat(nested, "ok");
	for (int i = 0; i < 3; i++)
		strcat(nested, ",no}");
	format_expand(nested, &ctx, out, sizeof out);
	assert_string_equal(out, "ok"); /* within it: expanded */

	char *open = malloc(1 << 20);
	assert_non_null(open);
	for (int i = 0; i < (1 << 20) - 2; i += 2)
		memcpy(open + i, "#{", 2);
	open[(1 << 20) - 2] = '\0';
	format_expand(open, &ctx, out, sizeof out);
	assert_int_equal(strlen(out), sizeof out - 1);
	assert_memory_equal(out, "#{#{#{", 6);
	free(open);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_empty_context),
	    cmocka_unit_test(test_output_is_bounded),
	    cmocka_unit_test(test_hostile_nesting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
