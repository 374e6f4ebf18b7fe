/*
 * test_seatbelt_log: `log stream --style ndjson` lines in, a pane's
 * violations out (backends/seatbelt-log.c).
 *
 * Each case is an ndjson line as macOS prints it, the pane whose
 * watcher reads it, and the violation expected (action and target), or
 * none.  The hostile cases are lines a pane can make: a path with
 * another pane's tag or control characters, its own os_log message,
 * broken JSON.  Then the reader: lines split across reads, and a line
 * longer than SEATBELT_LOG_LINE_MAX skipped whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "seatbelt-log.h"

/* A kernel line of log stream's ndjson around MSG (JSON-escaped). */
#define KERNEL(msg)                                                                                \
	"{\"traceID\":4071,\"eventMessage\":\"" msg "\",\"eventType\":\"logEvent\","               \
	"\"source\":null,\"formatString\":\"%s\",\"activityIdentifier\":0,\"subsystem\":\"\","      \
	"\"category\":\"\",\"threadID\":1208841,\"senderImageUUID\":"                               \
	"\"8E7C2B3D-2D1C-3F2B-9C1A-0F6A3B1E5D44\",\"backtrace\":{\"frames\":[]},"                   \
	"\"bootUUID\":\"\",\"processImagePath\":\"\\/kernel\","                                     \
	"\"timestamp\":\"2024-05-02 10:11:12.345678+0200\",\"senderImagePath\":"                    \
	"\"\\/System\\/Library\\/Extensions\\/Sandbox.kext\\/Contents\\/MacOS\\/Sandbox\","         \
	"\"machTimestamp\":1234567890,\"messageType\":\"Error\",\"processImageUUID\":"              \
	"\"1C1A8F21-5B3E-3C8B-A1D2-6F0E9D4B7A12\",\"processID\":0,"                                 \
	"\"senderProgramCounter\":123456,\"parentActivityIdentifier\":0,\"timezoneName\":\"\"}"

struct log_case {
	const char *name;
	const char *line;
	int pane;
	const char *action; /* NULL: no violation */
	const char *target;
};

static const struct log_case cases[] = {
    {"a read of a secret", KERNEL("Sandbox: bash(1234) deny(1) file-read-data /Users/x/.ssh/id_rsa sandmux:3"),
     3, "file-read*", "/Users/x/.ssh/id_rsa"},
    {"a metadata read is a read", KERNEL("Sandbox: ls(77) deny(1) file-read-metadata /Users/x/.aws sandmux:3"),
     3, "file-read*", "/Users/x/.aws"},
    {"a write", KERNEL("Sandbox: zsh(501) deny(1) file-write-data /Users/x/.zshrc sandmux:12"), 12,
     "file-write*", "/Users/x/.zshrc"},
    {"an unlink is a write", KERNEL("Sandbox: rm(9) deny(1) file-write-unlink /Users/x/.gitconfig sandmux:2"),
     2, "file-write*", "/Users/x/.gitconfig"},
    {"a new file", KERNEL("Sandbox: touch(88) deny(1) file-write-create /w/.env sandmux:4"), 4,
     "file-write-create", "/w/.env"},
    {"a connection", KERNEL("Sandbox: curl(4242) deny(1) network-outbound 93.184.216.34:443 sandmux:5"),
     5, "network-outbound", "93.184.216.34:443"},
    {"an exec", KERNEL("Sandbox: sh(31) deny(1) process-exec* /usr/bin/osascript sandmux:6"), 6,
     "process-exec", "/usr/bin/osascript"},
    {"an operation outside the vocabulary keeps its name",
     KERNEL("Sandbox: bash(1) deny(1) mach-lookup com.apple.pasteboard.1 sandmux:6"), 6, "mach-lookup",
     "com.apple.pasteboard.1"},
    {"a path with spaces", KERNEL("Sandbox: cat(5) deny(1) file-read-data /Users/x/My Keys/a b sandmux:3"),
     3, "file-read*", "/Users/x/My Keys/a b"},
    {"the tag before the denial", KERNEL("sandmux:3 Sandbox: cat(5) deny(1) file-read-data /etc/x"), 3,
     NULL, NULL},
    {"another pane's denial", KERNEL("Sandbox: bash(1234) deny(1) file-read-data /Users/x/.ssh/id_rsa sandmux:4"),
     3, NULL, NULL},
    {"pane 31 is not pane 3", KERNEL("Sandbox: bash(1234) deny(1) file-read-data /x sandmux:31"), 3, NULL,
     NULL},
    {"a path forging pane 3's tag, seen by pane 3",
     KERNEL("Sandbox: cat(9) deny(1) file-read-data /tmp/sandmux:3/x sandmux:5"), 3, NULL, NULL},
    {"a path forging pane 3's tag, seen by pane 5",
     KERNEL("Sandbox: cat(9) deny(1) file-read-data /tmp/sandmux:3/x sandmux:5"), 5, NULL, NULL},
    {"no tag at all", KERNEL("Sandbox: cat(9) deny(1) file-read-data /etc/master.passwd"), 3, NULL, NULL},
    {"a control character in the path",
     KERNEL("Sandbox: cat(9) deny(1) file-read-data /tmp/a\\u001b[2Jb\\u0007 sandmux:3"), 3, "file-read*",
     "/tmp/a?[2Jb?"},
    {"a newline in the path", KERNEL("Sandbox: cat(9) deny(1) file-read-data /tmp/a\\nb sandmux:3"), 3,
     "file-read*", "/tmp/a?b"},
    {"a process name spelling a denial",
     KERNEL("Sandbox: x(1) deny(1) file-read-data /fake(77) deny(1) file-read-data /real sandmux:3"), 3,
     "file-read*", "/fake(77) deny(1) file-read-data /real"},
    {"an allow is no denial", KERNEL("Sandbox: cat(9) allow(0) file-read-data /etc/hosts sandmux:3"), 3,
     NULL, NULL},
    {"no target", KERNEL("Sandbox: cat(9) deny(1) file-read-data sandmux:3"), 3, NULL, NULL},
    {"a pane's own os_log message is not the kernel's",
     "{\"eventMessage\":\"Sandbox: bash(1234) deny(1) file-read-data /etc/x sandmux:3\","
     "\"processImagePath\":\"/usr/bin/logger\",\"processID\":6123}",
     3, NULL, NULL},
    {"no processID", "{\"eventMessage\":\"Sandbox: bash(1) deny(1) file-read-data /etc/x sandmux:3\"}", 3,
     NULL, NULL},
    {"processID as a string", "{\"eventMessage\":\"Sandbox: bash(1) deny(1) file-read-data /x sandmux:3\","
     "\"processID\":\"0\"}", 3, NULL, NULL},
    {"eventMessage not a string", "{\"eventMessage\":7,\"processID\":0}", 3, NULL, NULL},
    {"malformed JSON", "{\"eventMessage\":\"Sandbox: bash(1) deny(1) file-read-data /x sandmux:3\",\"processID\":0",
     3, NULL, NULL},
    {"not JSON", "Filtering the log data using \"eventMessage CONTAINS \\\"sandmux:3\\\"\"", 3, NULL, NULL},
    {"log stream's header object", "{\"count\":0,\"finished\":0}", 3, NULL, NULL},
    {"an empty line", "", 3, NULL, NULL},
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct log_case *c = &cases[i];
		struct seatbelt_denial d;
		int rc = seatbelt_log_parse(c->line, strlen(c->line), c->pane, &d);

		if (rc != (c->action != NULL))
			fail_msg("%s: parse returned %d", c->name, rc);
		if (c->action == NULL)
			continue;
		if (strcmp(d.action, c->action) != 0 || strcmp(d.target, c->target) != 0)
			fail_msg("%s: got %s %s", c->name, d.action, d.target);
		if (strchr(d.raw, '\n') != NULL || strchr(d.raw, '\033') != NULL)
			fail_msg("%s: raw keeps a control character", c->name);
	}
}

static void test_pid_and_raw(void **state)
{
	const char *line = KERNEL("Sandbox: bash(1234) deny(1) file-read-data /Users/x/.ssh/id_rsa sandmux:3");
	struct seatbelt_denial d;

	(void)state;
	assert_int_equal(seatbelt_log_parse(line, strlen(line), 3, &d), 1);
	assert_int_equal(d.pid, 1234);
	assert_string_equal(d.raw, "Sandbox: bash(1234) deny(1) file-read-data /Users/x/.ssh/id_rsa sandmux:3");
}

/* A target longer than the struct's field is cut, never overrun. */
static void test_long_target(void **state)
{
	char line[8192], path[4000];
	struct seatbelt_denial d;

	(void)state;
	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	snprintf(line, sizeof line,
		 "{\"eventMessage\":\"Sandbox: cat(9) deny(1) file-read-data %s sandmux:3\",\"processID\":0}",
		 path);
	assert_int_equal(seatbelt_log_parse(line, strlen(line), 3, &d), 1);
	assert_int_equal(strlen(d.target), sizeof d.target - 1);
}

static const char *const line_a = KERNEL("Sandbox: cat(1) deny(1) file-read-data /a sandmux:3");
static const char *const line_b = KERNEL("Sandbox: cat(2) deny(1) file-read-data /b sandmux:3");

static void push_all(struct seatbelt_log_reader *r, const char *s, size_t n)
{
	while (n > 0) {
		size_t room = seatbelt_log_room(r), k = n < room ? n : room;

		seatbelt_log_push(r, s, k);
		s += k;
		n -= k;
	}
}

/* Two lines delivered a byte at a time come out as two denials. */
static void test_reader_split(void **state)
{
	static struct seatbelt_log_reader r;
	struct seatbelt_denial d;
	char text[4096];
	int n = snprintf(text, sizeof text, "%s\n%s\n", line_a, line_b);

	(void)state;
	for (int i = 0; i < n; i++) {
		push_all(&r, text + i, 1);
		if (seatbelt_log_next(&r, 3, &d) == 1)
			assert_string_equal(d.target, text[i] == '\n' && i < n - 1 ? "/a" : "/b");
	}
	assert_int_equal(r.len, 0);
}

/* An over-long line, whose tail is a valid line of its own, is skipped
 * whole; the line after it is read. */
static void test_reader_overlong(void **state)
{
	static struct seatbelt_log_reader r;
	struct seatbelt_denial d;
	size_t pad = SEATBELT_LOG_LINE_MAX + 100;
	char *text = malloc(pad + 4096);
	size_t n;
	int found = 0;

	(void)state;
	assert_non_null(text);
	memset(text, ' ', pad);
	n = pad + (size_t)sprintf(text + pad, "%s\n%s\n", line_a, line_b);
	for (size_t off = 0; off < n;) {
		size_t room = seatbelt_log_room(&r), k = n - off < room ? n - off : room;

		seatbelt_log_push(&r, text + off, k);
		off += k;
		while (seatbelt_log_next(&r, 3, &d) == 1) {
			assert_string_equal(d.target, "/b");
			found++;
		}
	}
	assert_int_equal(found, 1);
	free(text);
}

/* A push past the room it was given is cut at the buffer's end. */
static void test_push_cut(void **state)
{
	static struct seatbelt_log_reader r;
	static char big[SEATBELT_LOG_LINE_MAX * 2];

	(void)state;
	memset(big, 'x', sizeof big);
	seatbelt_log_push(&r, big, sizeof big);
	assert_int_equal(r.len, SEATBELT_LOG_LINE_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),	  cmocka_unit_test(test_pid_and_raw),
	    cmocka_unit_test(test_long_target),	  cmocka_unit_test(test_reader_split),
	    cmocka_unit_test(test_reader_overlong), cmocka_unit_test(test_push_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
