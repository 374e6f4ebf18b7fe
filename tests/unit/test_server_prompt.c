/*
 * test_server_prompt: the server's status-line prompt as data: the
 * prompt opened, keys typed by their names, the command that runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server-prompt.h"

struct prompt_case {
	enum server_prompt_kind kind;
	const char *initial, *command;
	const char *keys[12]; /* NULL-terminated */
	const char *runs;     /* NULL: nothing runs */
	const char *text;     /* left in the prompt when it did not end */
};

static const struct prompt_case cases[] = {
    {SERVER_PROMPT_COMMAND, "", "", {"s", "p", "l", "i", "t", "Enter"}, "split", NULL},
    {SERVER_PROMPT_COMMAND, "", "", {"n", "e", "w", "Space", "-", "d", "Enter"}, "new -d", NULL},
    {SERVER_PROMPT_COMMAND, "abc", "", {"Left", "BSpace", "x", "End", "Enter"}, "axc", NULL},
    {SERVER_PROMPT_COMMAND, "abc", "", {"C-a", "Delete", "Enter"}, "bc", NULL},
    {SERVER_PROMPT_COMMAND, "one two", "", {"C-w", "Enter"}, "one ", NULL},
    {SERVER_PROMPT_COMMAND, "abc", "", {"C-u", "Enter"}, NULL, NULL},
    {SERVER_PROMPT_COMMAND, "one two", "", {"M-b", "x", "Enter"}, "one xtwo", NULL},
    {SERVER_PROMPT_COMMAND, "one  two", "", {"C-a", "M-f", "x", "M-f", "y", "Enter"}, "onex  twoy", NULL},
    {SERVER_PROMPT_COMMAND, "abc", "", {"C-a", "C-k", "z"}, NULL, "z"},
    {SERVER_PROMPT_COMMAND, "h\xc3\xa9", "", {"BSpace", "Enter"}, "h", NULL},
    {SERVER_PROMPT_COMMAND, "abc", "", {"Escape", "Enter"}, NULL, "abc"},
    {SERVER_PROMPT_COMMAND,
     "win",
     "rename-window -- \"%%\"",
     {"Space", "\"", "Enter"},
     "rename-window -- \"win \\\"\"",
     NULL},
    {SERVER_PROMPT_CONFIRM, NULL, "kill-pane", {"y"}, "kill-pane", NULL},
    {SERVER_PROMPT_CONFIRM, NULL, "kill-pane", {"n", "y"}, NULL, NULL},
    /* Ask mode's question: the one key that answers, whatever it is;
     * copy mode's search: the text typed. */
    {SERVER_PROMPT_ASK, NULL, "", {"a"}, "a", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"x", "d"}, "x", NULL},
    {SERVER_PROMPT_SEARCH_UP, NULL, "", {"1", "2", "Enter"}, "12", NULL},
};

static void test_prompt_cases(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct prompt_case *c = &cases[i];
		struct server_prompt p;
		char run[512] = "";
		bool ran = false;

		server_prompt_open(&p, c->kind, ":", c->initial, c->command);
		for (int k = 0; c->keys[k] != NULL && !ran; k++)
			ran = server_prompt_key(&p, c->keys[k], run, sizeof run);
		if (c->runs == NULL && ran)
			fail_msg("case %zu ran '%s'", i, run);
		if (c->runs != NULL && (!ran || strcmp(run, c->runs) != 0))
			fail_msg("case %zu: wanted '%s', ran %d '%s'", i, c->runs, ran, run);
		if (c->text != NULL && strcmp(p.text, c->text) != 0)
			fail_msg("case %zu: text '%s', wanted '%s'", i, p.text, c->text);
		if (c->runs != NULL)
			assert_false(p.active);
	}
}

/* Up and Down through the history, oldest line first in the list; the
 * line being typed comes back past the newest; a template's prompt has
 * no history. */
static void test_prompt_history(void **state)
{
	static const char *const lines[] = {"first", "second"};
	struct server_prompt p;
	char run[512] = "";

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "typing", "");
	assert_true(server_prompt_has_history(&p));
	server_prompt_history(&p, -1, lines, 2);
	assert_string_equal(p.text, "second");
	server_prompt_history(&p, -1, lines, 2);
	assert_string_equal(p.text, "first");
	server_prompt_history(&p, -1, lines, 2);
	assert_string_equal(p.text, "first");
	assert_int_equal(p.cursor, strlen("first"));
	server_prompt_history(&p, 1, lines, 2);
	server_prompt_history(&p, 1, lines, 2);
	assert_string_equal(p.text, "typing");
	server_prompt_history(&p, 1, lines, 2);
	assert_string_equal(p.text, "typing");
	server_prompt_history(&p, -1, lines, 2);
	assert_true(server_prompt_key(&p, "Enter", run, sizeof run));
	assert_string_equal(run, "second");

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, "(rename-window) ", "win", "rename-window %%");
	assert_false(server_prompt_has_history(&p));
	server_prompt_history(&p, -1, lines, 2);
	assert_string_equal(p.text, "win");
}

/* Tab: the kind of word by where the cursor is, one match completed
 * with a blank, several as far as they agree and listed; a target only
 * at the level typed. */
static void test_prompt_complete(void **state)
{
	static const char *const commands[] = {"select-pane", "select-window", "split"};
	static const char *const targets[] = {"work", "work:1", "work:1.0", "%3"};
	struct server_prompt p;

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "sp", "");
	assert_string_equal(server_prompt_completion_kind(&p), "command");
	server_prompt_complete(&p, commands, 3);
	assert_string_equal(p.text, "split ");
	assert_string_equal(p.candidates, "");

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "sel", "");
	server_prompt_complete(&p, commands, 3);
	assert_string_equal(p.text, "select-");
	assert_string_equal(p.candidates, "select-pane  select-window");
	server_prompt_key(&p, "p", NULL, 0);
	assert_string_equal(p.candidates, "");

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "split -t wo", "");
	assert_string_equal(server_prompt_completion_kind(&p), "target");
	server_prompt_complete(&p, targets, 4);
	assert_string_equal(p.text, "split -t work ");
	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "split -t work:", "");
	server_prompt_complete(&p, targets, 4);
	assert_string_equal(p.text, "split -t work:1 ");

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "split -x", "");
	assert_null(server_prompt_completion_kind(&p));
	server_prompt_open(&p, SERVER_PROMPT_COMMAND, "(rename-window) ", "w", "rename-window %%");
	assert_null(server_prompt_completion_kind(&p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prompt_cases),
	    cmocka_unit_test(test_prompt_history),
	    cmocka_unit_test(test_prompt_complete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
