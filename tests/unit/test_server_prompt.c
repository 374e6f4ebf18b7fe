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

#include "bindings.h"
#include "server-prompt.h"

static struct mode_tables tables; /* the defaults */

/* A key through the default tables; true when the prompt ended with
 * something to run. */
static bool key(struct server_prompt *p, const char *name, char *run, size_t size)
{
	char ignored[8];

	if (run == NULL) {
		run = ignored;
		size = sizeof ignored;
	}
	return server_prompt_key(p, &tables, name, run, size) == SERVER_PROMPT_RUN;
}

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
    /* Ask mode's question: the one key that answers, as the ask-mode
     * table has it (a allow, d deny, any other dismiss); copy mode's
     * search: the text typed. */
    {SERVER_PROMPT_ASK, NULL, "", {"a"}, "allow", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"d"}, "deny", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"x", "d"}, "dismiss", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"A"}, "dismiss", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"Enter"}, "dismiss", NULL},
    {SERVER_PROMPT_ASK, NULL, "", {"M-a"}, "dismiss", NULL},
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
			ran = key(&p, c->keys[k], run, sizeof run);
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
	assert_true(key(&p, "Enter", run, sizeof run));
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
	key(&p, "p", NULL, 0);
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

/* What the keys ask of the prompt's owner: Tab completion, Up and Down
 * the history; a prompt key rebound does its new command, one unbound
 * types itself (text) or nothing. */
static void test_prompt_actions(void **state)
{
	struct mode_tables mine;
	struct server_prompt p;
	char run[64] = "";

	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "sp", "");
	assert_int_equal(server_prompt_key(&p, &tables, "Tab", run, sizeof run),
			 SERVER_PROMPT_COMPLETE);
	assert_int_equal(server_prompt_key(&p, &tables, "Up", run, sizeof run),
			 SERVER_PROMPT_HISTORY_UP);
	assert_int_equal(server_prompt_key(&p, &tables, "Down", run, sizeof run),
			 SERVER_PROMPT_HISTORY_DOWN);

	mode_tables_init(&mine);
	assert_int_equal(mode_tables_bind(&mine, "prompt", "C-p", "history-up", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "prompt", "C-j", "send-keys -X enter", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "prompt", "C-a", "", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "prompt", "q", "cancel", NULL), 0);
	assert_int_equal(server_prompt_key(&p, &mine, "C-p", run, sizeof run),
			 SERVER_PROMPT_HISTORY_UP);
	assert_int_equal(server_prompt_key(&p, &mine, "C-a", run, sizeof run),
			 SERVER_PROMPT_EDITED);
	assert_int_equal(p.cursor, 2); /* C-a unbound: no start-of-line */
	assert_int_equal(server_prompt_key(&p, &mine, "C-j", run, sizeof run), SERVER_PROMPT_RUN);
	assert_string_equal(run, "sp");
	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "x", "");
	server_prompt_key(&p, &mine, "q", run, sizeof run);
	assert_false(p.active); /* q, bound to cancel, no longer types */
	mode_tables_free(&mine);
}

/* Threat: a key the user did not bind answering allow.  The defaults
 * are a and d alone; a key unbound, or bound elsewhere, dismisses; only
 * a key the user bound to allow allows, in ask mode's table alone. */
static void test_ask_rebound(void **state)
{
	struct mode_tables mine;
	struct server_prompt p;
	char run[64];

	mode_tables_init(&mine);
	assert_int_equal(mode_tables_find(&mine, "ask-mode", NULL)->count, 2);
	assert_int_equal(mode_tables_bind(&mine, "ask-mode", "a", "", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "ask-mode", "y", "send-keys -X allow", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "prompt", "z", "enter", NULL), 0);
	assert_int_equal(mode_tables_bind(&mine, "copy-mode", "Y", "cancel", NULL), 0);
	assert_int_not_equal(mode_tables_bind(&mine, "ask-mode", "w", "enter", NULL), 0);
	assert_int_not_equal(mode_tables_bind(&mine, "ask-mode", "w", "allow-all", NULL), 0);
	static const char *const answers[][2] = {
	    {"a", "dismiss"}, {"y", "allow"},	{"d", "deny"},	  {"z", "dismiss"},
	    {"Y", "dismiss"}, {"w", "dismiss"}, {"C-a", "dismiss"},
	};
	for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
		server_prompt_open(&p, SERVER_PROMPT_ASK, "?", NULL, "");
		assert_int_equal(server_prompt_key(&p, &mine, answers[i][0], run, sizeof run),
				 SERVER_PROMPT_RUN);
		assert_false(p.active);
		if (strcmp(run, answers[i][1]) != 0)
			fail_msg("%s answered %s, wanted %s", answers[i][0], run, answers[i][1]);
	}
	/* Ask mode's commands are no prompt editing. */
	server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "x", "");
	assert_false(server_prompt_command(&p, "allow", run, sizeof run));
	assert_true(p.active);
	mode_tables_free(&mine);
}

/* Every command of the prompt table does something to a line with the
 * cursor inside it ("ab |cd"): moves the cursor, edits the text or ends
 * the prompt; complete and the history are asked of the owner. */
static void test_every_command(void **state)
{
	const struct key_table_def *def = key_table_def_find("prompt", NULL);

	assert_non_null(def);
	for (size_t i = 0; i < def->ncommands; i++) {
		const char *name = def->commands[i].name;
		struct server_prompt p;
		char run[64];

		if (strcmp(name, "complete") == 0 || strncmp(name, "history-", 8) == 0)
			continue;
		server_prompt_open(&p, SERVER_PROMPT_COMMAND, ":", "ab cd", "");
		p.cursor = 3;
		server_prompt_command(&p, name, run, sizeof run);
		if (p.active && p.cursor == 3 && strcmp(p.text, "ab cd") == 0)
			fail_msg("%s did nothing", name);
	}
}

static int setup(void **state)
{
	(void)state;
	mode_tables_init(&tables);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mode_tables_free(&tables);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prompt_cases),
	    cmocka_unit_test(test_prompt_history),
	    cmocka_unit_test(test_prompt_complete),
	    cmocka_unit_test(test_prompt_actions),
	    cmocka_unit_test(test_ask_rebound),
	    cmocka_unit_test(test_every_command),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
