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

/* The entries a rule language states (Seatbelt's) are what
 * gitdir_judge calls everyday, each sample of each match; and what it
 * refuses is in none of them. */
static bool listed(const struct gitdir_entry *e, const char *rel)
{
	for (; e->path != NULL; e++) {
		size_t n = strlen(e->path), r = strlen(rel);

		if (e->match == GITDIR_MATCH_SUFFIX && r > 5 && strcmp(rel + r - 5, ".lock") == 0)
			r -= 5;

		if ((e->match == GITDIR_MATCH_TREE && strncmp(rel, e->path, n) == 0 &&
		     (rel[n] == '\0' || rel[n] == '/')) ||
		    (e->match == GITDIR_MATCH_EXACT && strcmp(rel, e->path) == 0) ||
		    (e->match == GITDIR_MATCH_FILE &&
		     (strcmp(rel, e->path) == 0 ||
		      (strncmp(rel, e->path, n) == 0 && strcmp(rel + n, ".lock") == 0))) ||
		    (e->match == GITDIR_MATCH_SUFFIX && strchr(rel, '/') == NULL && r > n &&
		     strncmp(rel + r - n, e->path, n) == 0) ||
		    (e->match == GITDIR_MATCH_PREFIX && strncmp(rel, e->path, n) == 0 &&
		     strchr(rel + n, '/') == NULL))
			return true;
	}
	return false;
}

static void test_everyday_entries(void **state)
{
	static const enum gitdir_shape shapes_judged[] = {GITDIR_REPOSITORY, GITDIR_WORKTREE};
	static const char *const refused[] = {"config", "config.lock", "hooks/pre-commit",
					      "commondir", "info/attributes", "config.worktree",
					      "modules/x/HEAD", "worktrees/x/HEAD"};

	assert_null(gitdir_everyday_entries(GITDIR_NONE)[0].path);
	for (size_t s = 0; s < 2; s++) {
		const struct gitdir_entry *list = gitdir_everyday_entries(shapes_judged[s]);

		for (const struct gitdir_entry *e = list; e->path != NULL; e++) {
			/* Two names each match: the entry's own, and one more. */
			static const char *const around[][2][2] = {
			    [GITDIR_MATCH_TREE] = {{"", ""}, {"", "/ab/cd"}},
			    [GITDIR_MATCH_FILE] = {{"", ""}, {"", ".lock"}},
			    [GITDIR_MATCH_EXACT] = {{"", ""}, {"", ""}},
			    [GITDIR_MATCH_SUFFIX] = {{"MERGE", ""}, {"CHERRY_PICK", ".lock"}},
			    [GITDIR_MATCH_PREFIX] = {{"", "123"}, {"", "x"}},
			};

			for (size_t k = 0; k < 2; k++) {
				char sample[64];

				snprintf(sample, sizeof sample, "%s%s%s", around[e->match][k][0],
					 e->path, around[e->match][k][1]);
				if (gitdir_judge(shapes_judged[s], sample) != GITDIR_EVERYDAY ||
				    !listed(list, sample))
					fail_msg("shape %d: %s is listed, not everyday",
						 shapes_judged[s], sample);
			}
		}
		for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
			if (listed(list, refused[i]))
				fail_msg("shape %d: %s is listed", shapes_judged[s], refused[i]);
		if (listed(list, "gitdir") != (shapes_judged[s] == GITDIR_WORKTREE))
			fail_msg("shape %d: gitdir listed wrongly", shapes_judged[s]);
		if (!listed(list, "index.lock") || !listed(list, "MERGE_HEAD") ||
		    listed(list, "info/refs.lock") || !listed(list, "info/refs_Ab12") ||
		    !listed(list, "refs/heads/main"))
			fail_msg("shape %d: an everyday file is not listed", shapes_judged[s]);
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
	    cmocka_unit_test(test_everyday_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
