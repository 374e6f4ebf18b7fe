/*
 * test_gitconfig: which replacements of a repository's .git/config a
 * native pane may make (backends/gitconfig.c), as data: the config
 * there now, the text replacing it, and whether it passes (with the
 * entry or line named when it does not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "gitconfig.h"

#define INIT                                                                                       \
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"               \
	"\tlogallrefupdates = true\n"

struct change {
	const char *old; /* NULL: no config yet */
	const char *new;
	bool ok;
	const char *why; /* part of the reason when refused */
};

static const struct change changes[] = {
    /* git init, then clone's remote and branch, then user and push -u. */
    {NULL, INIT, true, NULL},
    {INIT, INIT "[remote \"origin\"]\n\turl = /srv/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
     true, NULL},
    {INIT, INIT "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true, NULL},
    {INIT, INIT "[user]\n\tname = A U Thor\n\temail = a@example.com\n", true, NULL},
    {INIT, INIT "[branch.main]\n\tremote = origin\n", true, NULL},
    {INIT, "# comment\n; other\n" INIT "\n", true, NULL},
    /* Keys that make the host's git run or read something. */
    {INIT, INIT "\tfsmonitor = /tmp/evil\n", false, "core.fsmonitor"},
    {INIT, INIT "\tFSMonitor = /tmp/evil\n", false, "core.FSMonitor"},
    {NULL, "[core]\n\tfsmonitor = /tmp/evil\n", false, "core.fsmonitor"},
    {INIT, INIT "\thooksPath = /tmp\n", false, "core.hooksPath"},
    {INIT, INIT "\tsshCommand = sh -c evil\n", false, "core.sshCommand"},
    {INIT, INIT "\tpager = evil\n", false, "core.pager"},
    {INIT, INIT "[include]\n\tpath = ../evil\n", false, "include.path"},
    {INIT, INIT "[includeIf \"gitdir:/\"]\n\tpath = ../evil\n", false, "includeIf"},
    {INIT, INIT "[filter \"x\"]\n\tclean = evil\n", false, "filter.x.clean"},
    {INIT, INIT "[diff \"x\"]\n\ttextconv = evil\n", false, "diff.x.textconv"},
    {INIT, INIT "[alias]\n\tst = !evil\n", false, "alias.st"},
    {INIT, INIT "[credential]\n\thelper = !evil\n", false, "credential.helper"},
    {INIT, INIT "\tworktree = /elsewhere\n", false, "core.worktree"},
    /* URLs that run a command, or pass an option. */
    {INIT, INIT "[remote \"o\"]\n\turl = ext::sh -c evil\n", false, "remote.o.url"},
    {INIT, INIT "[remote \"o\"]\n\turl = \"fd::3\"\n", false, "remote.o.url"},
    {INIT, INIT "[remote \"o\"]\n\turl = -oProxyCommand=evil\n", false, "remote.o.url"},
    /* What was there may stay, unchanged; changing it is adding it. */
    {INIT "\tpager = less\n", INIT "\tpager = less\n[user]\n\tname = x\n", true, NULL},
    {INIT "\tpager = less\n", INIT "\tpager = evil\n", false, "core.pager"},
    {INIT "[alias]\n\tst = status\n", INIT, true, NULL},
    /* What the parser does not understand is refused. */
    {INIT, INIT "\tname = a \\\n\tfsmonitor = x\n", false, "line 6"},
    {INIT, "[core] fsmonitor = x\n", false, "line 1"},
    {INIT, "fsmonitor = x\n", false, "line 1"},
    {INIT, "[core\n", false, "line 1"},
    {INIT, INIT "[remote \"o\\q\"]\n", false, "line 6"},
    {"[core] bare = true\n", INIT, false, "line 1"},
};

static void test_changes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
		const struct change *c = &changes[i];
		char why[160] = "";
		bool ok = gitconfig_change_ok(c->old, c->old ? strlen(c->old) : 0, c->new,
					      strlen(c->new), why, sizeof why);

		if (ok != c->ok || (c->why != NULL && strstr(why, c->why) == NULL))
			fail_msg("case %zu: %s, expected %s (why \"%s\", expected \"%s\")", i,
				 ok ? "passed" : "refused", c->ok ? "pass" : "refusal", why,
				 c->why ? c->why : "");
	}
}

static void test_size_and_nul(void **state)
{
	static char big[GITCONFIG_MAX + 2];
	char why[160] = "";

	(void)state;
	memset(big, '#', sizeof big - 1);
	assert_false(gitconfig_change_ok(NULL, 0, big, sizeof big - 1, why, sizeof why));
	assert_non_null(strstr(why, "larger"));
	assert_false(gitconfig_change_ok(NULL, 0, "[core]\n\tbare = f\0\n\tfsmonitor = x\n", 32,
					 why, sizeof why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_changes),
	    cmocka_unit_test(test_size_and_nul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
