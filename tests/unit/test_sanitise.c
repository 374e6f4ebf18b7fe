/*
 * test_sanitise: pane-chosen text made safe to print (src/sanitise.c),
 * as data: the bytes in, the text out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sanitise.h"

static const struct {
	const char *in, *out;
} cases[] = {
	{ "/home/u/.ssh/id_ed25519", "/home/u/.ssh/id_ed25519" },
	{ "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x94\x91", "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x94\x91" },
	{ "a\033]52;c;SGVsbG8=\007b", "a?]52;c;SGVsbG8=?b" }, /* OSC 52: the clipboard */
	{ "a\033[2Jb", "a?[2Jb" },				/* the screen cleared */
	{ "a\nFORGED line\r", "a?FORGED line?" },		/* a line forged */
	{ "tab\there\x7f", "tab?here?" },
	{ "c1 \xc2\x9b" "2J", "c1 ?2J" },			/* C1 CSI, UTF-8 encoded */
	{ "8bit \x9b" "2J", "8bit ?2J" },			/* C1 CSI, one byte */
	{ "cut \xe2\x80", "cut ??" },				/* a sequence cut short */
	{ "overlong \xc0\xaf \xe0\x80\xaf", "overlong ?? ???" },
	{ "surrogate \xed\xa0\x80", "surrogate ?" },
	{ "rlo \xe2\x80\xaegnp.exe", "rlo gnp.exe" }, /* a right-to-left override */
	{ "", "" },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = sanitise_text(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
	{
		char *got = sanitise_text(NULL);

		assert_string_equal(got, "");
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
