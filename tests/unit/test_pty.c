/*
 * test_pty: what a program started on a pane's PTY inherits.
 *
 * The child must get the slave on 0, 1 and 2, the fds it was asked to
 * keep, and nothing else of the server: not a socket, not another pane's
 * master, not an fd numbered past 1023 (a server holding a thousand proxy
 * tunnels has those).  The child lists its own /proc/self/fd and the test
 * reads the list from the master.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pty.h"

/* Runs argv on a PTY and returns everything it printed until it exited. */
static char *run_on_pty(char **argv, const int *keep, int nkeep)
{
	struct pty_spawn_opts opts = {
		.argv = argv, .rows = 24, .cols = 200, .keep_fds = keep, .nkeep_fds = nkeep};
	static char out[8192];
	char err[256];
	size_t len = 0;
	int master;
	pid_t pid;

	assert_int_equal(pty_spawn(&opts, &master, &pid, err, sizeof err), 0);
	for (;;) {
		struct pollfd p = {.fd = master, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0)
			break;
		n = read(master, out + len, sizeof out - 1 - len);
		if (n <= 0 && !(n < 0 && errno == EAGAIN))
			break;
		if (n > 0)
			len += (size_t)n;
	}
	out[len] = '\0';
	close(master);
	waitpid(pid, NULL, 0);
	return out;
}

/* Whether fd was in the child's list (printed as <N> per fd). */
static int listed(const char *out, int fd)
{
	char word[32];

	snprintf(word, sizeof word, "<%d>", fd);
	return strstr(out, word) != NULL;
}

static void test_only_the_terminal_and_kept_fds_are_inherited(void **state)
{
	/* The list is printed as <N> per fd; the shell's own fd for the
	 * directory listing closes before the printf. */
	char *argv[] = {"/bin/sh", "-c",
			"for f in /proc/$$/fd/*; do printf '<%s>' \"${f##*/}\"; done", NULL};
	struct rlimit rl;
	int low, high, kept;
	char *out;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 2048 && rl.rlim_max >= 2048) {
		rl.rlim_cur = 2048;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	/* Not CLOEXEC: only the closing protects.  Numbered well above the
	 * fds the shell opens for its own listing. */
	low = open("/dev/null", O_RDONLY);
	assert_int_equal(dup2(low, 200), 200);
	close(low);
	low = 200;
	kept = dup2(low, 201);
	assert_int_equal(kept, 201);
	high = rl.rlim_cur >= 2048 ? dup2(low, 1500) : -1;

	out = run_on_pty(argv, &kept, 1);
	assert_true(listed(out, 0) && listed(out, 1) && listed(out, 2));
	assert_true(listed(out, kept));
	assert_false(listed(out, low));
	if (high >= 0)
		assert_false(listed(out, 1500));
	close(low);
	close(kept);
	if (high >= 0)
		close(high);
}

static void test_too_many_kept_fds_is_an_error(void **state)
{
	char *argv[] = {"/bin/true", NULL};
	int keep[PTY_MAX_KEEP_FDS + 1];
	struct pty_spawn_opts opts = {
		.argv = argv, .rows = 24, .cols = 80, .keep_fds = keep, .nkeep_fds = PTY_MAX_KEEP_FDS + 1};
	char err[256];
	int master;
	pid_t pid;

	(void)state;
	for (int i = 0; i < PTY_MAX_KEEP_FDS + 1; i++)
		keep[i] = 0;
	assert_int_equal(pty_spawn(&opts, &master, &pid, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "at most"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_the_terminal_and_kept_fds_are_inherited),
		cmocka_unit_test(test_too_many_kept_fds_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
