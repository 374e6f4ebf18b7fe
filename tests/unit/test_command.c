/*
 * test_command: the one command table, as data.
 *
 * - every command offered both on the command line and at the prompt is
 *   run through both parsers (command_parse on an argv, as cli_run does;
 *   command_parse_line on a typed line, as the prompt and key bindings
 *   do) with a sample value for every option of its spec, long spellings
 *   on one side and short ones on the other, and the two requests must
 *   be identical;
 * - hand-written lines and the exact request they must become;
 * - strict numbers and typed values: the lines that must be usage errors,
 *   with their code;
 * - the target grammar;
 * - the table itself: every request it can produce has one handler, every
 *   option appears in its command's usage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "command.h"
#include "error.h"
#include "target.h"

#define MAX_WORDS 64

static const struct command_context cli_ctx = { CMD_CLI, -1, NULL };
/* The prompt's defaults differ from every sample, so a default that
 * wrongly replaced a given value would show. */
static const struct command_context prompt_ctx = { CMD_PROMPT, 7, "attached" };

/* A value of each type, with blanks and quotes where a type allows them,
 * so the prompt's quoting is exercised too. */
static const char *sample_value(const struct command_option *o, char *buf, size_t size)
{
	switch (o->type) {
	case CV_NUMBER:
		snprintf(buf, size, "%d", o->max);
		return buf;
	case CV_PERCENT:
		return "40";
	case CV_PANE:
		return "work:1.2";
	case CV_SESSION:
		return "work";
	case CV_WINDOW:
		return "2";
	case CV_BACKEND:
		return "native";
	case CV_PROFILE:
		return "agent";
	case CV_PATH:
		return "/tmp/a dir";
	case CV_ENV:
		return "GREETING=hello \"you\"";
	case CV_ROW:
		return "-3";
	case CV_STRING:
		return "some text";
	case CV_FLAG:
		break;
	}
	return NULL;
}

static void sample_rest(const struct command_entry *e, const char **words, int *n)
{
	switch (e->rest) {
	case REST_ARGV:
		words[(*n)++] = "--";
		words[(*n)++] = "sh";
		words[(*n)++] = "-c";
		words[(*n)++] = "echo 'two words'";
		break;
	case REST_KEYS:
		words[(*n)++] = "Enter";
		words[(*n)++] = "C-c";
		words[(*n)++] = "plain text";
		break;
	case REST_NUMBER:
		words[(*n)++] = "3";
		break;
	case REST_WINDOW:
		words[(*n)++] = ":4";
		break;
	case REST_STRING:
		words[(*n)++] = "a name";
		break;
	case REST_PAIR:
		words[(*n)++] = "window-size";
		words[(*n)++] = "smallest";
		break;
	case REST_WORDS:
		words[(*n)++] = "hello";
		words[(*n)++] = "world";
		break;
	case REST_NONE:
	case REST_RAW:
		break;
	}
}

/* words as one line the prompt's splitter reads back. */
static void join_line(const char **words, int n, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		used += (size_t)snprintf(out + used, size - used, "%s\"", i ? " " : "");
		for (const char *p = words[i]; *p != '\0'; p++) {
			if (*p == '"' || *p == '\\')
				out[used++] = '\\';
			out[used++] = *p;
		}
		used += (size_t)snprintf(out + used, size - used, "\"");
		assert_true(used < size);
	}
}

static char *print(const cJSON *json)
{
	return json ? cJSON_PrintUnformatted(json) : strdup("(none)");
}

static void test_cli_and_prompt_agree(void **state)
{
	int compared = 0;

	for (const struct command_entry *e = command_table; e->name != NULL; e++) {
		const char *cli_words[MAX_WORDS], *prompt_words[MAX_WORDS];
		char values[32][64], line[2048], *owned[64];
		int ncli = 0, nprompt = 0, nvalues = 0, nowned = 0;
		struct command_parsed from_cli, from_prompt;
		struct sm_error err = { 0 };

		if ((e->flags & (CMD_CLI | CMD_PROMPT)) != (CMD_CLI | CMD_PROMPT) || e->rest == REST_RAW)
			continue;
		cli_words[ncli++] = e->name;
		prompt_words[nprompt++] = e->aliases[0] ? e->aliases[0] : e->name;
		for (const struct command_option *o = e->options; o && (o->letter || o->long_name);
		     o++) {
			const char *value = sample_value(o, values[nvalues++], sizeof values[0]);
			char *cli_spelling, *prompt_spelling;

			/* The command line says --long where it can, the prompt -x. */
			if (o->long_name != NULL)
				assert_true(asprintf(&cli_spelling, "--%s", o->long_name) > 0);
			else
				assert_true(asprintf(&cli_spelling, "-%c", o->letter) > 0);
			if (o->letter)
				assert_true(asprintf(&prompt_spelling, "-%c", o->letter) > 0);
			else
				prompt_spelling = strdup(cli_spelling);
			owned[nowned++] = cli_spelling;
			owned[nowned++] = prompt_spelling;
			cli_words[ncli++] = cli_spelling;
			prompt_words[nprompt++] = prompt_spelling;
			if (value != NULL) {
				cli_words[ncli++] = value;
				prompt_words[nprompt++] = value;
			}
		}
		sample_rest(e, cli_words, &ncli);
		sample_rest(e, prompt_words, &nprompt);
		join_line(prompt_words, nprompt, line, sizeof line);

		if (command_parse(e, ncli, (char **)cli_words, &cli_ctx, &from_cli, &err) < 0)
			fail_msg("%s on the command line: %s", e->name, err.message);
		if (command_parse_line(line, &prompt_ctx, &from_prompt, &err) < 0)
			fail_msg("%s at the prompt (%s): %s", e->name, line, err.message);
		if (!cJSON_Compare(from_cli.request, from_prompt.request, true)) {
			char *a = print(from_cli.request), *b = print(from_prompt.request);
			fail_msg("%s: the command line made %s, the prompt %s", e->name, a, b);
		}
		if (e->request != NULL) {
			const char *cmd =
			    cJSON_GetStringValue(cJSON_GetObjectItem(from_cli.request, "cmd"));
			assert_non_null(cmd);
			assert_non_null(command_for_request(cmd));
		}
		for (int i = 0; i < nowned; i++)
			free(owned[i]);
		command_parsed_free(&from_cli);
		command_parsed_free(&from_prompt);
		compared++;
	}
	/* The table has a dozen such commands; none may drop out. */
	assert_true(compared >= 12);
}

struct request_case {
	int flags;	      /* CMD_CLI or CMD_PROMPT */
	const char *line;     /* as typed */
	const char *expected; /* the request, JSON */
};

static const struct request_case request_cases[] = {
	{ CMD_CLI, "split -t %3 -h -l 40", "{\"cmd\":\"split\",\"pane\":3,\"direction\":\"h\",\"size\":40}" },
	{ CMD_CLI, "split -t 3 -l40 -- top", "{\"cmd\":\"split\",\"pane\":3,\"size\":40,\"argv\":[\"top\"]}" },
	{ CMD_CLI, "split -t work:1.2 -v --backend native -e A=1 -e B=2",
	  "{\"cmd\":\"split\",\"target\":\"work:1.2\",\"direction\":\"v\",\"backend\":\"native\","
	  "\"env\":{\"A\":\"1\",\"B\":\"2\"}}" },
	{ CMD_CLI, "split -t work", "{\"cmd\":\"split\",\"target\":\"work\"}" },
	{ CMD_CLI, "resize -t 4 -x 30 -y 10", "{\"cmd\":\"resize\",\"pane\":4,\"cols\":30,\"rows\":10}" },
	{ CMD_CLI, "resize-pane -t 4 -L 5", "{\"cmd\":\"resize-pane\",\"pane\":4,\"dir\":\"left\",\"amount\":5}" },
	{ CMD_PROMPT, "resize-pane -Z", "{\"cmd\":\"zoom\",\"pane\":7}" },
	{ CMD_CLI, "capture -t 2 -S - -E -", "{\"cmd\":\"capture\",\"pane\":2,\"start\":-1000000000}" },
	{ CMD_CLI, "capture -t 2 -S -5 --ansi", "{\"cmd\":\"capture\",\"pane\":2,\"start\":-5,\"ansi\":true}" },
	{ CMD_CLI, "send-keys -t %1 -l hello Enter", "{\"cmd\":\"send-keys\",\"pane\":1,\"literal\":true,\"keys\":[\"hello\",\"Enter\"]}" },
	{ CMD_CLI, "send-keys -t %1", "{\"cmd\":\"send-keys\",\"pane\":1,\"keys\":[]}" },
	{ CMD_CLI, "events -t work --action file-read*", "{\"cmd\":\"subscribe\",\"target\":\"work\",\"action\":\"file-read*\"}" },
	{ CMD_CLI, "events -t %5", "{\"cmd\":\"subscribe\",\"pane\":5}" },
	{ CMD_CLI, "kill-session -t 0", "{\"cmd\":\"kill-session\",\"session\":\"0\"}" },
	{ CMD_CLI, "ls --json", "{\"cmd\":\"list\"}" },
	{ CMD_CLI, "new -d -s w -x 100 -y 30", "{\"cmd\":\"new-session\",\"name\":\"w\",\"cols\":100,\"rows\":30}" },
	{ CMD_PROMPT, "kill-pane", "{\"cmd\":\"kill-pane\",\"pane\":7}" },
	{ CMD_PROMPT, "kill-session", "{\"cmd\":\"kill-session\",\"session\":\"attached\"}" },
	{ CMD_PROMPT, "new-window", "{\"cmd\":\"new-window\",\"session\":\"attached\"}" },
	{ CMD_PROMPT, "next-window", "{\"cmd\":\"select-window\",\"next\":true}" },
	{ CMD_PROMPT, "prev", "{\"cmd\":\"select-window\",\"prev\":true}" },
	{ CMD_PROMPT, "select-window -t :3", "{\"cmd\":\"select-window\",\"index\":3}" },
	{ CMD_PROMPT, "select-window 2", "{\"cmd\":\"select-window\",\"index\":2}" },
	{ CMD_PROMPT, "select-pane -n", "{\"cmd\":\"select-pane\",\"pane\":7,\"dir\":\"next\"}" },
	{ CMD_PROMPT, "select-pane -t %9", "{\"cmd\":\"select-pane\",\"pane\":9}" },
	{ CMD_PROMPT, "split -h -p 30 --remain", "{\"cmd\":\"split\",\"pane\":7,\"direction\":\"h\",\"size\":30,\"remain\":true}" },
	{ CMD_PROMPT, "suspend", "{\"cmd\":\"suspend\",\"pane\":7}" },
	{ CMD_PROMPT, "resume-pane -t work", "{\"cmd\":\"resume\",\"target\":\"work\"}" },
	{ CMD_PROMPT, "feed", "{\"cmd\":\"feed\",\"session\":\"attached\"}" },
};

static void test_requests(void **state)
{
	for (size_t i = 0; i < sizeof request_cases / sizeof request_cases[0]; i++) {
		const struct request_case *rc = &request_cases[i];
		const struct command_context *ctx = rc->flags == CMD_CLI ? &cli_ctx : &prompt_ctx;
		cJSON *expected = cJSON_Parse(rc->expected);
		struct command_parsed parsed;
		struct sm_error err = { 0 };

		assert_non_null(expected);
		if (command_parse_line(rc->line, ctx, &parsed, &err) < 0)
			fail_msg("\"%s\": %s", rc->line, err.message);
		if (!cJSON_Compare(parsed.request, expected, true)) {
			char *got = print(parsed.request);
			fail_msg("\"%s\" made %s, not %s", rc->line, got, rc->expected);
		}
		cJSON_Delete(expected);
		command_parsed_free(&parsed);
	}
}

struct error_case {
	int flags;
	const char *line;
	const char *code;
	const char *says; /* part of the message */
};

static const struct error_case error_cases[] = {
	{ CMD_CLI, "split -t 1 -l abc", SM_ERR_INVALID_COMMAND, "percentage 1..99, not \"abc\"" },
	{ CMD_CLI, "split -t 1 -l 0", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_CLI, "split -t 1 -l 100", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_CLI, "split -t 1 -l 40x", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_CLI, "split -t 1 -l ''", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_CLI, "split -t 1 -l ' 40'", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_PROMPT, "split -p -5", SM_ERR_INVALID_COMMAND, "percentage" },
	{ CMD_CLI, "split -l 40", SM_ERR_INVALID_COMMAND, "-t PANE is required" },
	{ CMD_CLI, "split -t 1 --backend docker", SM_ERR_INVALID_BACKEND, "none, native, microvm" },
	{ CMD_CLI, "split -t 1 -e NOEQUALS", SM_ERR_INVALID_COMMAND, "NAME=VALUE" },
	{ CMD_CLI, "split -t 1 -q", SM_ERR_INVALID_COMMAND, "unknown option -q" },
	{ CMD_CLI, "split -t 1 --bogus", SM_ERR_INVALID_COMMAND, "unknown option --bogus" },
	{ CMD_CLI, "split -t", SM_ERR_INVALID_COMMAND, "-t needs a value" },
	{ CMD_CLI, "split -t %x", SM_ERR_INVALID_COMMAND, "bad pane target" },
	{ CMD_CLI, "split -t work:x", SM_ERR_INVALID_COMMAND, "bad window" },
	{ CMD_CLI, "split -t work:1.y", SM_ERR_INVALID_COMMAND, "bad pane" },
	{ CMD_CLI, "new -x 12abc", SM_ERR_INVALID_COMMAND, "number 10..1000" },
	{ CMD_CLI, "new -y 2", SM_ERR_INVALID_COMMAND, "number 3..1000" },
	{ CMD_CLI, "resize -t 1 -x 99999999999999999999", SM_ERR_INVALID_COMMAND, "number" },
	{ CMD_CLI, "resize -t 1 -L x", SM_ERR_INVALID_COMMAND, "positive number" },
	{ CMD_CLI, "resize -t 1 -L 0", SM_ERR_INVALID_COMMAND, "positive number" },
	{ CMD_CLI, "resize -t 1", SM_ERR_INVALID_COMMAND, "one of" },
	{ CMD_CLI, "capture -t 1 -S 1e3", SM_ERR_INVALID_COMMAND, "row number" },
	{ CMD_CLI, "kill-server now", SM_ERR_INVALID_COMMAND, "unexpected" },
	{ CMD_CLI, "ls --json=yes", SM_ERR_INVALID_COMMAND, "takes no value" },
	{ CMD_PROMPT, "select-window -t abc", SM_ERR_INVALID_COMMAND, "window index" },
	{ CMD_PROMPT, "select-window", SM_ERR_INVALID_COMMAND, "one of" },
	{ CMD_PROMPT, "explode-pane", SM_ERR_UNKNOWN_COMMAND, "unknown command: explode-pane" },
	{ CMD_PROMPT, "capture", SM_ERR_UNKNOWN_COMMAND, "unknown command" }, /* CLI only */
	{ CMD_CLI, "copy-mode", SM_ERR_UNKNOWN_COMMAND, "unknown command" }, /* prompt only */
	{ CMD_PROMPT, "split \"-h", SM_ERR_INVALID_COMMAND, "unbalanced" },
};

static void test_errors(void **state)
{
	for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
		const struct error_case *ec = &error_cases[i];
		const struct command_context *ctx = ec->flags == CMD_CLI ? &cli_ctx : &prompt_ctx;
		struct command_parsed parsed;
		struct sm_error err = { 0 };

		if (command_parse_line(ec->line, ctx, &parsed, &err) == 0) {
			char *got = print(parsed.request);
			fail_msg("\"%s\" parsed (%s); wanted %s", ec->line, got, ec->code);
		}
		if (strcmp(err.code, ec->code) != 0 || strstr(err.message, ec->says) == NULL)
			fail_msg("\"%s\": %s (%s); wanted %s with \"%s\"", ec->line, err.message,
				 err.code, ec->code, ec->says);
	}
}

struct target_case {
	const char *text;
	int ok;
	int pane_id;
	const char *session;
	int window, pane_index;
};

static const struct target_case target_cases[] = {
	{ "%3", 1, 3, "", -1, -1 },
	{ "3", 1, 3, "", -1, -1 },
	{ "work", 1, -1, "work", -1, -1 },
	{ "work:", 1, -1, "work", -1, -1 },
	{ "work:1", 1, -1, "work", 1, -1 },
	{ "work:1.2", 1, -1, "work", 1, 2 },
	{ "work:.2", 1, -1, "work", -1, 2 },
	{ ":1", 1, -1, "", 1, -1 },
	{ ":1.0", 1, -1, "", 1, 0 },
	{ "", 0, 0, NULL, 0, 0 },
	{ "%", 0, 0, NULL, 0, 0 },
	{ "%3x", 0, 0, NULL, 0, 0 },
	{ "%-1", 0, 0, NULL, 0, 0 },
	{ ":", 0, 0, NULL, 0, 0 },
	{ "work:x", 0, 0, NULL, 0, 0 },
	{ "work:1.", 0, 0, NULL, 0, 0 },
	{ "work:1.x", 0, 0, NULL, 0, 0 },
	{ "wo.rk", 0, 0, NULL, 0, 0 },
	{ "wo%rk", 0, 0, NULL, 0, 0 },
	{ "%99999999999", 0, 0, NULL, 0, 0 },
};

static void test_targets(void **state)
{
	for (size_t i = 0; i < sizeof target_cases / sizeof target_cases[0]; i++) {
		const struct target_case *tc = &target_cases[i];
		struct target t;
		struct sm_error err = { 0 };
		int rc = target_parse(tc->text, &t, &err);

		if (!tc->ok) {
			if (rc == 0)
				fail_msg("\"%s\" is no target, but parsed", tc->text);
			assert_string_equal(err.code, SM_ERR_INVALID_TARGET);
			continue;
		}
		if (rc < 0)
			fail_msg("\"%s\": %s", tc->text, err.message);
		if (t.pane_id != tc->pane_id || strcmp(t.session, tc->session) != 0 ||
		    t.window != tc->window || t.pane_index != tc->pane_index)
			fail_msg("\"%s\" read as pane %d session \"%s\" window %d index %d", tc->text,
				 t.pane_id, t.session, t.window, t.pane_index);
	}
}

/* The table's own consistency: what docs and --help are generated from. */
static void test_table(void **state)
{
	for (const struct command_entry *e = command_table; e->name != NULL; e++) {
		assert_non_null(e->usage);
		assert_non_null(e->summary);
		if (e->request != NULL && command_for_request(e->request) == NULL)
			fail_msg("%s becomes %s, which no entry serves", e->name, e->request);
		if ((e->flags & (CMD_CLI | CMD_PROMPT)) && e->request == NULL && !(e->flags & CMD_TERMINAL) &&
		    e->cli == NULL && e->raw == NULL)
			fail_msg("%s has nothing that runs it", e->name);
		for (const struct command_option *o = e->options; o && (o->letter || o->long_name);
		     o++) {
			char spelling[40];

			if (o->request != NULL && command_for_request(o->request) == NULL)
				fail_msg("%s -%c becomes %s, which no entry serves", e->name,
					 o->letter, o->request);
			if (o->letter)
				snprintf(spelling, sizeof spelling, "-%c", o->letter);
			else
				snprintf(spelling, sizeof spelling, "--%s", o->long_name);
			if (strstr(e->usage, spelling) == NULL)
				fail_msg("%s: its usage does not show %s", e->name, spelling);
		}
		/* No name may mean two commands to the same front end. */
		for (const struct command_entry *f = e + 1; f->name != NULL; f++) {
			if ((e->flags & f->flags & (CMD_CLI | CMD_PROMPT)) == 0)
				continue;
			if (command_find(f->name, e->flags & f->flags & (CMD_CLI | CMD_PROMPT)) != f)
				fail_msg("%s is shadowed by another entry", f->name);
		}
	}
	/* Every protocol request has exactly one handler. */
	for (const struct command_entry *e = command_table; e->name != NULL; e++)
		if (e->exec != NULL)
			assert_ptr_equal(command_for_request(e->request), e);
}

static void test_completion(void **state)
{
	const char *first = command_complete("sel", CMD_PROMPT, 0);
	const char *second = command_complete("sel", CMD_PROMPT, 1);

	assert_non_null(first);
	assert_non_null(second);
	assert_string_equal(first, "select-pane");
	assert_string_equal(second, "select-layout");
	assert_string_equal(command_complete("sel", CMD_PROMPT, 2), "select-window");
	assert_null(command_complete("sel", CMD_PROMPT, 3));
	assert_string_equal(command_complete("copy", CMD_PROMPT, 0), "copy-mode");
	/* The prompt is offered its own commands only. */
	assert_null(command_complete("capt", CMD_PROMPT, 0));
	assert_null(command_complete("zzz", CMD_PROMPT, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_and_prompt_agree),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
