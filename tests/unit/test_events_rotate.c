/*
 * test_events_rotate: what the events log's rotation keeps of the oldest
 * file (src/events-rotate.c).
 *
 * Each case is the oldest file's lines, and the lines the file that
 * takes its place must start with; after them comes the next oldest
 * file, whole.  In a line, OLD is a time two days ago and NEW one an
 * hour ago; "V PANE" stands for a violation of that pane.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "events-internal.h"

#define MAX_LINES 8

struct rotate_case {
	const char *name;
	const char *oldest[MAX_LINES]; /* after `first` violations of pane 1 */
	int first;		       /* how many plain violations of pane 1 come first */
	const char *kept[MAX_LINES];   /* after the kept ones of the `first` */
	int first_kept;
};

static const struct rotate_case cases[] = {
    {"a pane's first 100 violations stay, however old; the 101st goes",
     {"{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "x\",\"pane\":1,\"time\":OLD}"},
     100,
     {0},
     100},
    {"a folded line counts as many as it stands for",
     {"{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "a\",\"pane\":2,\"count\":99,\"time\":OLD}",
      "{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "b\",\"pane\":2,\"time\":OLD}",
      "{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "c\",\"pane\":2,\"time\":OLD}"},
     0,
     {"{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "a\",\"pane\":2,\"count\":99,\"time\":OLD}",
      "{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "b\",\"pane\":2,\"time\":OLD}"},
     0},
    {"after the first 100: a refused connection of the last day stays, an older one goes",
     {"{\"kind\":\"violation\",\"action\":\"network-outbound\",\"target\":\"new.test:80\",\"pane\":"
      "1,\"time\":NEW}",
      "{\"kind\":\"violation\",\"action\":\"network-outbound\",\"target\":\"old.test:80\",\"pane\":"
      "1,\"time\":OLD}",
      "{\"kind\":\"violation\",\"action\":\"file-write*\",\"target\":\"/"
      "y\",\"pane\":1,\"time\":NEW}"},
     100,
     {"{\"kind\":\"violation\",\"action\":\"network-outbound\",\"target\":\"new.test:80\",\"pane\":"
      "1,\"time\":NEW}"},
     100},
    {"lifecycle, grants and floods of the last day stay, older ones go",
     {"{\"kind\":\"ready\",\"pane\":4,\"time\":NEW}", "{\"kind\":\"exit\",\"pane\":4,\"time\":OLD}",
      "{\"kind\":\"policy-grant\",\"pane\":4,\"time\":NEW}",
      "{\"kind\":\"flood\",\"state\":\"start\",\"pane\":4,\"time\":NEW}"},
     0,
     {"{\"kind\":\"ready\",\"pane\":4,\"time\":NEW}",
      "{\"kind\":\"policy-grant\",\"pane\":4,\"time\":NEW}",
      "{\"kind\":\"flood\",\"state\":\"start\",\"pane\":4,\"time\":NEW}"},
     0},
    {"a pane's starting counts its violations again (a later server uses the number again)",
     {"{\"kind\":\"starting\",\"pane\":1,\"time\":OLD}",
      "{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "z\",\"pane\":1,\"time\":OLD}"},
     100,
     {"{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/"
      "z\",\"pane\":1,\"time\":OLD}"},
     100},
    {"what is not a whole JSON line goes",
     {"not json", "{\"kind\":\"ready\",\"pane\":5,\"time\":NEW}",
      "{\"kind\":\"ready\",\"pane\":5,"},
     0,
     {"{\"kind\":\"ready\",\"pane\":5,\"time\":NEW}"},
     0},
};

static char dir[64];
static char path[128];
/* The one "now" of a case: the input and the expected lines are written
 * from it, so a second that ticks between them changes neither (under
 * load it did, and the case failed on a time one second off). */
static time_t case_now;

/* line with OLD and NEW replaced by times, '\n' added (malloc'd). */
static char *fill(const char *line)
{
	char old[32], recent[32], *out = malloc(strlen(line) + 64), *o = out;
	time_t now = case_now;

	snprintf(old, sizeof old, "%ld", (long)(now - 2 * 24 * 3600));
	snprintf(recent, sizeof recent, "%ld", (long)(now - 3600));
	while (*line) {
		if (strncmp(line, "OLD", 3) == 0 || strncmp(line, "NEW", 3) == 0) {
			o = stpcpy(o, line[0] == 'O' ? old : recent);
			line += 3;
		} else {
			*o++ = *line++;
		}
	}
	strcpy(o, "\n");
	return out;
}

static void append(FILE *f, const char *line)
{
	char *text = fill(line);

	fputs(text, f);
	free(text);
}

static void first_violations(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(
		    f,
		    "{\"kind\":\"violation\",\"action\":\"file-read*\",\"target\":\"/first-%d\","
		    "\"pane\":1,\"time\":%ld}\n",
		    i, (long)case_now - 2 * 24 * 3600);
}

static char *slurp(const char *name)
{
	FILE *f = fopen(name, "r");
	char *text = NULL;
	size_t size = 0;

	if (f == NULL)
		return NULL;
	FILE *out = open_memstream(&text, &size);
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, out);
	fclose(out);
	fclose(f);
	return text;
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_case(const struct rotate_case *c)
{
	char name[160], *expected, *got;
	size_t size = 0;
	FILE *f, *want;

	case_now = time(NULL);
	snprintf(name, sizeof name, "%s.5", path);
	f = fopen(name, "w");
	assert_non_null(f);
	first_violations(f, c->first);
	for (int i = 0; i < MAX_LINES && c->oldest[i]; i++)
		append(f, c->oldest[i]);
	fclose(f);
	for (int i = 1; i <= 4; i++) {
		char text[32];

		snprintf(name, sizeof name, "%s.%d", path, i);
		snprintf(text, sizeof text, "file %d\n", i);
		write_file(name, text);
	}
	write_file(path, "current\n");

	events_rotate_files(path, 5);

	want = open_memstream(&expected, &size);
	first_violations(want, c->first_kept);
	for (int i = 0; i < MAX_LINES && c->kept[i]; i++)
		append(want, c->kept[i]);
	fputs("file 4\n", want);
	fclose(want);
	snprintf(name, sizeof name, "%s.5", path);
	got = slurp(name);
	if (got == NULL || strcmp(got, expected) != 0)
		fail_msg("%s:\nexpected\n%s\ngot\n%s", c->name, expected, got ? got : "(none)");
	free(got);
	free(expected);
	for (int i = 1; i <= 4; i++) {
		char text[32];

		snprintf(name, sizeof name, "%s.%d", path, i);
		if (i == 1)
			snprintf(text, sizeof text, "current\n");
		else
			snprintf(text, sizeof text, "file %d\n", i - 1);
		got = slurp(name);
		assert_non_null(got);
		assert_string_equal(got, text);
		free(got);
	}
	assert_int_equal(access(path, F_OK), -1);
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		test_case(&cases[i]);
}

/* Fewer files than five: a plain shift, nothing carried or lost. */
static void test_no_oldest(void **state)
{
	char name[160], *got;

	(void)state;
	for (int i = 1; i <= 5; i++) {
		snprintf(name, sizeof name, "%s.%d", path, i);
		unlink(name);
	}
	write_file(path, "current\n");
	events_rotate_files(path, 5);
	snprintf(name, sizeof name, "%s.1", path);
	got = slurp(name);
	assert_non_null(got);
	assert_string_equal(got, "current\n");
	free(got);
	snprintf(name, sizeof name, "%s.5", path);
	assert_int_equal(access(name, F_OK), -1);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test-events-rotate.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof path, "%s/events.jsonl", dir);
	return 0;
}

static int teardown(void **state)
{
	char name[160];

	(void)state;
	unlink(path);
	for (int i = 1; i <= 5; i++) {
		snprintf(name, sizeof name, "%s.%d", path, i);
		unlink(name);
	}
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_no_oldest),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
