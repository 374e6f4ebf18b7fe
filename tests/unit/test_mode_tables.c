/*
 * test_mode_tables: the modes' key tables as data.  Every table's
 * default keys are key names, each bound to one of that mode's
 * commands, each command with a line for list-keys; a table is found
 * by its name or alias and nothing else; a binding is checked against
 * its own table's commands, never another's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bindings.h"
#include "error.h"

static const char *const names[] = {"copy-mode",     "choose-mode", "prompt",
				    "help-mode",     "display-panes", "ask-mode"};

static void test_every_table(void **state)
{
	struct mode_tables tables;

	(void)state;
	mode_tables_init(&tables);
	assert_int_equal(tables.count, sizeof names / sizeof names[0]);
	for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
		const struct key_table_def *def = key_table_def_find(names[t], NULL);
		struct binding_table *table = mode_tables_find(&tables, names[t], NULL);

		assert_non_null(def);
		assert_non_null(table);
		assert_string_equal(table->name, names[t]);
		assert_int_equal(table->count, def->ndefaults);
		assert_true(def->ncommands >= 2);
		for (size_t i = 0; i < table->count; i++) {
			const struct binding *b = &table->entries[i];
			char canonical[KEY_NAME_MAX];

			assert_true(key_name_canonical(b->key, canonical, sizeof canonical));
			assert_string_equal(canonical, b->key);
			/* Read in place, so each key once: a second would never be found. */
			for (size_t j = 0; j < i; j++)
				if (strcmp(table->entries[j].key, b->key) == 0)
					fail_msg("%s: %s bound twice", names[t], b->key);
			if (mode_command_summary(def, b->command)[0] == '\0')
				fail_msg("%s: %s bound to %s, no command of the table", names[t],
					 b->key, b->command);
			assert_string_equal(mode_tables_command(&tables, names[t], b->key),
					    b->command + strlen(MODE_COMMAND_PREFIX));
		}
		for (size_t i = 0; i < def->ncommands; i++)
			assert_int_equal(mode_table_check(names[t], def->commands[i].name, NULL), 0);
	}
	mode_tables_free(&tables);
}

/* The defaults that grant or that the fingers know stay exactly as
 * they were: ask mode a and d, the prompt's emacs keys, display-panes'
 * digits, the help's scroll keys. */
static void test_defaults(void **state)
{
	static const char *const expect[][3] = {
	    {"ask-mode", "a", "allow"},	       {"ask-mode", "d", "deny"},
	    {"prompt", "Enter", "enter"},      {"prompt", "Escape", "cancel"},
	    {"prompt", "C-w", "delete-word"},  {"prompt", "Tab", "complete"},
	    {"prompt", "Up", "history-up"},    {"display-panes", "0", "select-pane-0"},
	    {"display-panes", "9", "select-pane-9"}, {"help-mode", "j", "scroll-down"},
	    {"help-mode", "C-b", "page-up"},   {"help-mode", "q", "cancel"},
	};
	struct mode_tables tables;

	(void)state;
	mode_tables_init(&tables);
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
		const char *got = mode_tables_command(&tables, expect[i][0], expect[i][1]);

		if (got == NULL || strcmp(got, expect[i][2]) != 0)
			fail_msg("%s %s: %s, wanted %s", expect[i][0], expect[i][1],
				 got ? got : "(none)", expect[i][2]);
	}
	/* No key but a allows. */
	for (size_t i = 0; i < mode_tables_find(&tables, "ask-mode", NULL)->count; i++) {
		const struct binding *b = &mode_tables_find(&tables, "ask-mode", NULL)->entries[i];

		if (strstr(b->command, "allow") != NULL)
			assert_string_equal(b->key, "a");
	}
	assert_null(mode_tables_command(&tables, "display-panes", "x"));
	assert_null(mode_tables_command(&tables, "ask-mode", "A"));
	mode_tables_free(&tables);
}

/* Errors with a code: an unknown table, a command of another table, a
 * key that is no key. */
static void test_refused(void **state)
{
	struct mode_tables tables;
	struct sm_error err = {0};

	(void)state;
	mode_tables_init(&tables);
	assert_int_equal(mode_tables_bind(&tables, "nosuch", "x", "cancel", &err), -1);
	assert_string_equal(err.code, SM_ERR_UNKNOWN_TABLE);
	assert_non_null(strstr(err.message, "ask-mode"));
	memset(&err, 0, sizeof err);
	assert_int_equal(mode_tables_bind(&tables, "ask-mode", "x", "cursor-up", &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_COMMAND);
	assert_non_null(strstr(err.message, "send-keys -X allow, deny"));
	memset(&err, 0, sizeof err);
	assert_int_equal(mode_tables_bind(&tables, "help-mode", "x", "kill-server", &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_COMMAND);
	memset(&err, 0, sizeof err);
	assert_int_equal(mode_tables_bind(&tables, "prompt", "C-Nope", "enter", &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_KEY);
	assert_null(mode_tables_command(&tables, "prompt", "C-Nope"));
	mode_tables_free(&tables);
}

/* Two clients' tables share the defaults until one changes a table:
 * that table becomes its own, the other client's and its other tables
 * stay the defaults. */
static void test_per_client(void **state)
{
	struct mode_tables one, two;

	(void)state;
	mode_tables_init(&one);
	mode_tables_init(&two);
	assert_ptr_equal(mode_tables_find(&one, "copy-mode", NULL)->entries,
			 mode_tables_find(&two, "copy-mode", NULL)->entries);
	assert_int_equal(mode_tables_bind(&one, "copy-mode", "q", "history-top", NULL), 0);
	assert_int_equal(mode_tables_bind(&one, "copy-mode", "C-n", "cursor-down", NULL), 0);
	assert_int_equal(mode_tables_bind(&one, "copy-mode", "k", "", NULL), 0);
	assert_string_equal(mode_tables_command(&one, "copy-mode", "q"), "history-top");
	assert_string_equal(mode_tables_command(&one, "copy-mode", "C-n"), "cursor-down");
	assert_null(mode_tables_command(&one, "copy-mode", "k"));
	assert_string_equal(mode_tables_command(&two, "copy-mode", "q"), "cancel");
	assert_null(mode_tables_command(&two, "copy-mode", "C-n"));
	assert_string_equal(mode_tables_command(&two, "copy-mode", "k"), "cursor-up");
	assert_ptr_equal(mode_tables_find(&one, "prompt", NULL)->entries,
			 mode_tables_find(&two, "prompt", NULL)->entries);
	/* Unbinding a key a table does not have changes nothing. */
	assert_int_equal(mode_tables_bind(&two, "copy-mode", "C-n", "", NULL), 0);
	assert_null(mode_tables_find(&two, "copy-mode", NULL)->owned);
	/* More keys than the copy had room for. */
	for (char c = 'A'; c <= 'Z'; c++) {
		char key[2] = {c, 0};

		assert_int_equal(mode_tables_bind(&two, "help-mode", key, "cancel", NULL), 0);
	}
	assert_string_equal(mode_tables_command(&two, "help-mode", "Z"), "cancel");
	assert_string_equal(mode_tables_command(&two, "help-mode", "j"), "scroll-down");
	assert_null(mode_tables_command(&one, "help-mode", "Z"));
	mode_tables_free(&one);
	mode_tables_free(&two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_table),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_per_client),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
