/*
 * test_seatbelt_launch: the parts of a macOS native launch that need no
 * Mac (backends/seatbelt-launch.c): the argv, the log stream's argv,
 * the confirmation read from the helper, the probe's decision; and the
 * helper itself (build/sandmux-seatbelt-exec), run here without
 * sandbox-exec, answering as it would inside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "seatbelt-launch.h"
#include "strvec.h"

static void assert_argv(const struct strvec *got, const char *const *want)
{
	size_t i;

	for (i = 0; want[i] != NULL; i++) {
		assert_true(i < got->n);
		assert_string_equal(got->v[i], want[i]);
	}
	assert_int_equal(got->n, i);
	assert_null(got->v[i]);
}

static void test_exec_argv(void **state)
{
	struct strvec argv = STRVEC_INIT;
	char *const command[] = {"/bin/zsh", "-l", NULL};
	const char *want[] = {"/usr/bin/sandbox-exec", "-p", "(version 1)(deny default)", "--",
			      "/opt/sandmux/bin/sandmux-seatbelt-exec", "--fd", "5", "--",
			      "/bin/zsh", "-l", NULL};

	(void)state;
	assert_int_equal(seatbelt_exec_argv("(version 1)(deny default)",
					    "/opt/sandmux/bin/sandmux-seatbelt-exec", 5, command, &argv),
			 0);
	assert_argv(&argv, want);
	strvec_free(&argv);
}

static void test_log_stream_argv(void **state)
{
	struct strvec argv = STRVEC_INIT;
	const char *want[] = {"/usr/bin/log", "stream", "--style", "ndjson", "--predicate",
			      "processID == 0 AND eventMessage CONTAINS \"sandmux:7\"", NULL};

	(void)state;
	assert_int_equal(seatbelt_log_stream_argv(7, &argv), 0);
	assert_argv(&argv, want);
	strvec_free(&argv);
}

struct confirm_case {
	const char *name, *bytes;
	bool eof;
	int want; /* 1 confirmed, 0 wait, -1 failed */
	pid_t pid;
};

static const struct confirm_case confirm_cases[] = {
    {"nothing yet", "", false, 0, 0},
    {"half a line", "insi", false, 0, 0},
    {"inside, exec not done", "inside 4242\n", false, 0, 0},
    {"inside, then the exec closed the fd", "inside 4242\n", true, 1, 4242},
    {"sandbox-exec gone before the helper", "", true, -1, 0},
    {"half a line, then gone", "inside 42", true, -1, 0},
    {"the exec failed", "inside 4242\nfailed exec /bin/nope: No such file\n", true, -1, 0},
    {"failed alone", "failed exec x: Permission denied\n", false, -1, 0},
    {"garbage", "hello\n", false, -1, 0},
    {"a pid of 0", "inside 0\n", true, -1, 0},
    {"a pid with a tail", "inside 42x\n", true, -1, 0},
    {"no newline, too long", "inside 11111111111111111111111111111111111111111111111111111111111111", false,
     -1, 0},
};

static void test_confirm(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof confirm_cases / sizeof confirm_cases[0]; i++) {
		const struct confirm_case *c = &confirm_cases[i];
		char reason[160] = "";
		pid_t pid = 0;
		int rc = seatbelt_confirm_parse(c->bytes, strlen(c->bytes), c->eof, &pid, reason,
						sizeof reason);

		if (rc != c->want || (rc == 1 && pid != c->pid) || (rc == -1 && reason[0] == '\0'))
			fail_msg("%s: got %d (pid %d, %s)", c->name, rc, (int)pid, reason);
	}
}

/* The helper beside the test's build tree, run on a pipe: what it
 * writes must confirm for a command that runs and fail for one that
 * does not exist. */
static int run_helper(const char *command, char *out, size_t size, pid_t *helper)
{
	char exe[4096], self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	int fds[2];
	size_t len = 0;
	pid_t pid;
	int status;

	assert_true(n > 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(exe, sizeof exe, "%s/../sandmux-seatbelt-exec", self);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		char fd[16];

		close(fds[0]);
		snprintf(fd, sizeof fd, "%d", fds[1]);
		execl(exe, exe, "--fd", fd, "--", command, (char *)NULL);
		_exit(99);
	}
	close(fds[1]);
	while (len + 1 < size && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*helper = pid;
	return status;
}

static void test_helper(void **state)
{
	char out[512], reason[160];
	pid_t helper, pid = 0;

	(void)state;
	run_helper("/bin/true", out, sizeof out, &helper);
	assert_int_equal(seatbelt_confirm_parse(out, strlen(out), true, &pid, reason, sizeof reason), 1);
	assert_int_equal(pid, helper);
	run_helper("/nonexistent/shell", out, sizeof out, &helper);
	assert_int_equal(seatbelt_confirm_parse(out, strlen(out), true, &pid, reason, sizeof reason), -1);
	assert_non_null(strstr(reason, "/nonexistent/shell"));
}

static void test_probe_decide(void **state)
{
	struct probe_result r;

	(void)state;
	memset(&r, 0, sizeof r);
	seatbelt_probe_decide(false, 0, "", &r);
	assert_false(r.native.available);
	assert_string_equal(r.native.reason, "/usr/bin/sandbox-exec not found");

	memset(&r, 0, sizeof r);
	seatbelt_probe_decide(true, 1 << 8, "sandbox-exec: sandbox_apply: Operation not permitted", &r);
	assert_false(r.native.available);
	assert_non_null(strstr(r.native.reason, "Operation not permitted"));

	memset(&r, 0, sizeof r);
	seatbelt_probe_decide(true, 9 /* killed by SIGKILL */, "", &r);
	assert_false(r.native.available);

	memset(&r, 0, sizeof r);
	seatbelt_probe_decide(true, 0, "", &r);
	assert_true(r.native.available);
	assert_false(r.native.home_layer);
	assert_string_equal(r.native.tool, "Seatbelt (sandbox-exec)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exec_argv), cmocka_unit_test(test_log_stream_argv),
	    cmocka_unit_test(test_confirm),   cmocka_unit_test(test_helper),
	    cmocka_unit_test(test_probe_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
