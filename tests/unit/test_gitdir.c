/*
 * test_gitdir: which files of a git directory a pane may write
 * (backends/gitdir.c), as data: a path and whether it is refused; a
 * path inside a directory of a shape and the verdict; a directory's
 * entries and its shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gitdir.h"

static const struct {
	const char *path;
	bool refused;
} cases[] = {
    /* not in a git directory */
    {"/w/src/main.c", false},
    {"/w/.git", false},
    {"/w/.gitignore", false},
    {"/w/x.git/config", false},
    /* everyday git */
    {"/w/.git/objects/ab/cdef", false},
    {"/w/.git/objects/pack/pack-1.pack", false},
    {"/w/.git/objects/info/commit-graphs/graph-1.graph", false},
    {"/w/.git/refs/heads/topic", false},
    {"/w/.git/refs/heads/topic.lock", false},
    {"/w/.git/logs/HEAD", false},
    {"/w/.git/index", false},
    {"/w/.git/index.lock", false},
    {"/w/.git/HEAD", false},
    {"/w/.git/HEAD.lock", false},
    {"/w/.git/packed-refs.lock", false},
    {"/w/.git/ORIG_HEAD", false},
    {"/w/.git/FETCH_HEAD", false},
    {"/w/.git/MERGE_HEAD", false},
    {"/w/.git/CHERRY_PICK_HEAD.lock", false},
    {"/w/.git/COMMIT_EDITMSG", false},
    {"/w/.git/description", false},
    {"/w/.git/shallow.lock", false},
    {"/w/.git/config.lock", false},
    {"/w/.git/rebase-merge/git-rebase-todo", false},
    {"/w/.git/gc.pid", false},
    {"/w/.git/index.stash.812", false},
    {"/w/.git/index.stash.812.lock", false},
    {"/w/.git/packed-refs.new", false},
    {"/w/.git/info/refs", false},
    {"/w/.git/info/refs_axnNVM", false},
    {"/w/.git/info/refs/x", true},
    {"/w/.git/info/refsx", true},
    {"/w/.git/index.stash.", true},
    {"/w/.git/tECFaCd", false},
    {"/w/.git/tECFaC", true},
    {"/w/.git/tECF-Cd", true},
    {"/w/a/b/.git/refs/stash", false},
    /* read-only: what makes the host's git run or read something */
    {"/w/.git/config", true},
    {"/w/.git/hooks", true},
    {"/w/.git/hooks/pre-commit", true},
    {"/w/.git/hooks/pre-commit.lock", true},
    {"/w/.git/commondir", true},
    {"/w/.git/info/exclude", true},
    {"/w/.git/info/attributes", true},
    {"/w/.git/worktrees/x/commondir", true},
    {"/w/.git/worktrees/x/HEAD", true},
    {"/w/.git/modules/sub/config", true},
    {"/w/.git/modules/sub/objects/ab/cd", true},
    {"/w/.git/config.worktree", true},
    {"/w/.git/anything", true},
    {"/w/.git/_HEAD", true},
    {"/w/a/b/.git/config", true},
    {"/w/a/b/.git/hooks/post-checkout", true},
};

/* Judged by shape, worktrees' admin directories admitted. */
static const struct {
	enum gitdir_shape shape;
	const char *rel;
	enum gitdir_verdict verdict;
} judged[] = {
    {GITDIR_NONE, "hooks/pre-commit", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "objects/ab/cd", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "HEAD.lock", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "config", GITDIR_CONFIG},
    {GITDIR_REPOSITORY, "config.lock", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "hooks/post-update", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "commondir", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "info/attributes", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "modules/sub/HEAD", GITDIR_REFUSED},
    /* what git worktree add writes */
    {GITDIR_REPOSITORY, "worktrees", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/locked", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/gitdir", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/commondir", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/HEAD", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/HEAD.lock", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/ORIG_HEAD", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/index.lock", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktrees/wt/logs/HEAD", GITDIR_EVERYDAY},
    /* ... and nothing else there */
    {GITDIR_REPOSITORY, "worktrees/wt/config.worktree", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "worktrees/wt/config", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "worktrees/wt/hooks/pre-commit", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "worktrees/wt/info/sparse-checkout", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "worktrees/x", GITDIR_EVERYDAY},
    {GITDIR_REPOSITORY, "worktreesx/a", GITDIR_REFUSED},
    /* a worktree's own, once it has the shape: commondir stays */
    {GITDIR_WORKTREE, "HEAD", GITDIR_EVERYDAY},
    {GITDIR_WORKTREE, "index", GITDIR_EVERYDAY},
    {GITDIR_WORKTREE, "gitdir", GITDIR_EVERYDAY},
    {GITDIR_WORKTREE, "locked", GITDIR_EVERYDAY},
    {GITDIR_WORKTREE, "logs/HEAD", GITDIR_EVERYDAY},
    {GITDIR_WORKTREE, "commondir", GITDIR_REFUSED},
    {GITDIR_WORKTREE, "config", GITDIR_REFUSED},
    {GITDIR_WORKTREE, "config.worktree", GITDIR_REFUSED},
    {GITDIR_WORKTREE, "worktrees/x/HEAD", GITDIR_REFUSED},
    {GITDIR_REPOSITORY, "gitdir", GITDIR_REFUSED},
};

/* Entries made in an empty directory, and the shape that gives. */
static const struct {
	const char *entries[4];
	enum gitdir_shape shape;
} shapes[] = {
    {{NULL}, GITDIR_NONE},
    {{"HEAD", NULL}, GITDIR_NONE},
    {{"objects", NULL}, GITDIR_NONE},
    {{"refs", "HEAD", NULL}, GITDIR_NONE},
    {{"objects", "refs", NULL}, GITDIR_REPOSITORY},
    {{"objects", "refs", "HEAD", NULL}, GITDIR_REPOSITORY},
    {{"commondir", NULL}, GITDIR_NONE},
    {{"HEAD", "commondir", NULL}, GITDIR_WORKTREE},
};

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if ((gitdir_write_refused(cases[i].path) != NULL) != cases[i].refused)
			fail_msg("%s: expected %s", cases[i].path,
				 cases[i].refused ? "refused" : "allowed");
}

static void test_judged(void **state)
{
	for (size_t i = 0; i < sizeof judged / sizeof judged[0]; i++)
		if (gitdir_judge(judged[i].shape, judged[i].rel) != judged[i].verdict)
			fail_msg("%d/%s: expected %d", judged[i].shape, judged[i].rel,
				 judged[i].verdict);
	assert_int_equal(gitdir_judge_named("/w/.git/config"), GITDIR_CONFIG);
	assert_int_equal(gitdir_judge_named("/w/.git/worktrees/a/commondir"), GITDIR_EVERYDAY);
	assert_int_equal(gitdir_judge_named("/w/src/config"), GITDIR_EVERYDAY);
}

static void test_shapes(void **state)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		char dir[] = "/tmp/test_gitdir.XXXXXX", path[64];
		int fd;

		assert_non_null(mkdtemp(dir));
		for (size_t k = 0; shapes[i].entries[k] != NULL; k++) {
			snprintf(path, sizeof path, "%s/%s", dir, shapes[i].entries[k]);
			assert_int_equal(mkdir(path, 0700), 0);
		}
		snprintf(path, sizeof path, "%s/sub", dir);
		assert_int_equal(mkdir(path, 0700), 0);
		fd = open(path, O_PATH | O_DIRECTORY);
		assert_true(fd >= 0);
		/* the directory itself, and seen from below */
		assert_int_equal(gitdir_shape_at(fd, "../"), shapes[i].shape);
		close(fd);
		fd = open(dir, O_PATH | O_DIRECTORY);
		assert_int_equal(gitdir_shape_at(fd, ""), shapes[i].shape);
		close(fd);
		for (size_t k = 0; shapes[i].entries[k] != NULL; k++) {
			snprintf(path, sizeof path, "%s/%s", dir, shapes[i].entries[k]);
			rmdir(path);
		}
		snprintf(path, sizeof path, "%s/sub", dir);
		rmdir(path);
		rmdir(dir);
	}
}

/* What a directory may hold as it takes the shape. */
static void test_born_with(void **state)
{
	static const char *const admitted[] = {"HEAD", "refs", "objects", "config", "commondir",
					       "gitdir", "locked", "description", "config.lock",
					       "packed-refs", "logs", "index"};
	static const char *const refused[] = {"hooks", "info", "config.worktree", "modules",
					      "worktrees", "evil", "alternates"};

	for (size_t i = 0; i < sizeof admitted / sizeof admitted[0]; i++)
		if (!gitdir_born_with(admitted[i]))
			fail_msg("%s: expected admitted", admitted[i]);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (gitdir_born_with(refused[i]))
			fail_msg("%s: expected refused", refused[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_judged),
	    cmocka_unit_test(test_shapes),
	    cmocka_unit_test(test_born_with),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
