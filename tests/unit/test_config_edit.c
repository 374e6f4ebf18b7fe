/*
 * test_config_edit: the config change a grant in a profile makes, and
 * the diff a person confirms, as text in and text out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "config-edit.h"
#include "error.h"

/* A file as cJSON prints it (what sandmux itself wrote before). */
static const char old_text[] = "{\n"
			       "\t\"prefix\":\t\"C-a\",\n"
			       "\t\"profiles\":\t{\n"
			       "\t\t\"web\":\t{\n"
			       "\t\t\t\"base\":\t\"agent\",\n"
			       "\t\t\t\"egress_allowlist\":\t[\"a.test\"]\n"
			       "\t\t}\n"
			       "\t}\n"
			       "}\n";

static void test_add_entry(void **state)
{
	char *out = NULL;
	struct sm_error err = { 0 };

	(void)state;
	assert_int_equal(config_edit_add_entry(old_text, "web", "egress_allowlist", "b.test", &out,
					       &err),
			 0);
	assert_string_equal(out, "{\n"
				 "\t\"prefix\":\t\"C-a\",\n"
				 "\t\"profiles\":\t{\n"
				 "\t\t\"web\":\t{\n"
				 "\t\t\t\"base\":\t\"agent\",\n"
				 "\t\t\t\"egress_allowlist\":\t[\"a.test\", \"b.test\"]\n"
				 "\t\t}\n"
				 "\t}\n"
				 "}\n");
	free(out);
}

static void test_field_made(void **state)
{
	char *out = NULL;
	struct sm_error err = { 0 };

	(void)state;
	assert_int_equal(config_edit_add_entry("{\"profiles\":{\"p\":{\"base\":\"agent\"}}}", "p",
					       "egress_allowlist", "x.test", &out, &err),
			 0);
	assert_non_null(strstr(out, "\"egress_allowlist\":\t[\"x.test\"]"));
	free(out);
}

static void test_refusals(void **state)
{
	char *out = NULL;
	struct sm_error err = { 0 };

	(void)state;
	assert_int_equal(config_edit_add_entry(old_text, "web", "egress_allowlist", "a.test", &out,
					       &err),
			 -1);
	assert_string_equal(err.code, SM_ERR_INVALID_ARGUMENT);
	assert_null(out);
	assert_int_equal(config_edit_add_entry(old_text, "other", "egress_allowlist", "a.test", &out,
					       &err),
			 -1);
	assert_string_equal(err.code, SM_ERR_CONFIG_INVALID);
	assert_int_equal(config_edit_add_entry(old_text, "web", "base", "a.test", &out, &err), -1);
	assert_string_equal(err.code, SM_ERR_CONFIG_INVALID);
	assert_int_equal(config_edit_add_entry("{nope", "web", "egress_allowlist", "a.test", &out,
					       &err),
			 -1);
	assert_string_equal(err.code, SM_ERR_CONFIG_PARSE_ERROR);
}

/* The diff: changed lines with three of context, "..." for the rest. */
static void test_diff(void **state)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n";
	const char *b = "1\n2\n3\n4\n5\n6\n7\nseven and a half\n8\n9\n10\n11\n";
	char *diff = config_edit_diff(a, b);

	(void)state;
	assert_string_equal(diff, "  ...\n"
				  "  5\n"
				  "  6\n"
				  "  7\n"
				  "+ seven and a half\n"
				  "  8\n"
				  "  9\n"
				  "  10\n"
				  "  ...\n");
	free(diff);
	diff = config_edit_diff("x\n", "y\n");
	assert_string_equal(diff, "- x\n+ y\n");
	free(diff);
	diff = config_edit_diff("", "{\n}\n");
	assert_string_equal(diff, "+ {\n+ }\n");
	free(diff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_entry),
	    cmocka_unit_test(test_field_made),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
