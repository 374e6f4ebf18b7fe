/*
 * test_gitdir: which files of a `.git` directory a pane may write
 * (backends/gitdir.c), as data: a path and whether it is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if ((gitdir_write_refused(cases[i].path) != NULL) != cases[i].refused)
			fail_msg("%s: expected %s", cases[i].path,
				 cases[i].refused ? "refused" : "allowed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
