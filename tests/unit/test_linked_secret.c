/*
 * test_linked_secret: a hard link of a file under a deny-read root is
 * found by its inode, size and time (backends/linked-secret.c), from a
 * live walk and from the list the server hands the microvm work tree's
 * guard; an ordinary hard link and a malformed list are not taken for
 * one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "linked-secret.h"

static char dir[64];
static char root[96], secret[128], link_out[128], plain[128], plain_link[128];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/sandmux-linked.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(root, sizeof root, "%s/.ssh", dir);
	snprintf(secret, sizeof secret, "%s/.ssh/id_k", dir);
	snprintf(link_out, sizeof link_out, "%s/backup-k", dir);
	snprintf(plain, sizeof plain, "%s/plain", dir);
	snprintf(plain_link, sizeof plain_link, "%s/plain2", dir);
	if (mkdir(root, 0700) != 0)
		return -1;
	write_file(secret, "KEY\n");
	write_file(plain, "plain\n");
	return link(secret, link_out) == 0 && link(plain, plain_link) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_live_walk(void **state)
{
	struct linked_secrets cache = {0};
	char *roots[] = {root, NULL};
	struct stat st;

	(void)state;
	assert_int_equal(stat(link_out, &st), 0);
	assert_true(linked_secret(&cache, roots, &st));
	assert_int_equal(stat(plain_link, &st), 0);
	assert_false(linked_secret(&cache, roots, &st));
	/* One link only: never a second name, whatever its inode. */
	assert_int_equal(unlink(plain_link), 0);
	assert_int_equal(stat(plain, &st), 0);
	assert_false(linked_secret(&cache, roots, &st));
	assert_int_equal(link(plain, plain_link), 0);
	/* No roots: nothing is a secret. */
	assert_int_equal(stat(link_out, &st), 0);
	assert_false(linked_secret(&cache, NULL, &st));
	linked_secrets_free(&cache);
}

static void test_list_round_trip(void **state)
{
	struct linked_secrets found = {0}, given = {0};
	char *roots[] = {root, NULL}, text[4096];
	struct stat st;

	(void)state;
	linked_secrets_collect(&found, roots);
	assert_int_equal(found.n, 1);
	assert_true(linked_secrets_format(&found, text, sizeof text) > 0);
	/* Too small a buffer: nothing, never half a list. */
	assert_int_equal(linked_secrets_format(&found, text + 2048, 4), 0);
	assert_int_equal(linked_secrets_parse(&given, text), 0);
	/* The guard sees no roots: the list alone decides. */
	assert_int_equal(stat(link_out, &st), 0);
	assert_true(linked_secret(&given, NULL, &st));
	assert_int_equal(stat(plain_link, &st), 0);
	assert_false(linked_secret(&given, NULL, &st));
	assert_int_equal(linked_secrets_parse(&given, "12 x 3 4\n"), -1);
	assert_int_equal(linked_secrets_parse(&given, "1 2 3 1000000000\n"), -1);
	assert_int_equal(linked_secrets_parse(&given, ""), 0);
	assert_int_equal(stat(link_out, &st), 0);
	assert_false(linked_secret(&given, NULL, &st));
	linked_secrets_free(&found);
	linked_secrets_free(&given);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_live_walk),
	    cmocka_unit_test(test_list_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
