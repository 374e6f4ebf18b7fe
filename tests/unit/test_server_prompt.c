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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prompt_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
