/*
 * test_hostrun: the files the shell startup files source or run join
 * the host-run list (backends/hostrun.c, "what the shell startup files
 * source").
 *
 * Each case is a home's startup files (name and text), the paths that
 * must be on the list, and the paths that must not be: a word the
 * reader cannot expand for certain adds nothing.  Files named "@" in a
 * case's text are the case's home.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostrun.h"

struct rc_case {
	const char *name;
	const char *files[4][2]; /* relative path, text */
	const char *on[6];	 /* relative to home, or absolute */
	const char *off[6];
};

static const struct rc_case cases[] = {
    {"nvm: a variable assigned a path, then \\. of it",
     {{".bashrc", "export NVM_DIR=\"$HOME/.nvm\"\n"
		  "[ -s \"$NVM_DIR/nvm.sh\" ] && \\. \"$NVM_DIR/nvm.sh\"  # This loads nvm\n"
		  "[ -s \"$NVM_DIR/bash_completion\" ] && \\. \"$NVM_DIR/bash_completion\"\n"}},
     {".nvm/nvm.sh", ".nvm/bash_completion"},
     {".nvm"}},
    {"fzf and cargo: ~ and $HOME, a test before, a source after &&",
     {{".bashrc", "[ -f ~/.fzf.bash ] && source ~/.fzf.bash\n. \"$HOME/.cargo/env\"\n"}},
     {".fzf.bash", ".cargo/env"},
     {"-f"}},
    {"a sourced file under $HOME is read in turn",
     {{".profile", "if [ -n \"$BASH_VERSION\" ]; then\n    if [ -f \"$HOME/.bashrc\" ]; then\n"
		   "\t. \"$HOME/.bashrc\"\n    fi\nfi\n"},
      {".bashrc", "source ~/dotfiles/shell/init.sh\n"},
      {"dotfiles/shell/init.sh", "for f in ~/dotfiles/shell/*.sh; do . \"$f\"; done\n"
				 "SDKMAN_DIR=${SDKMAN_DIR:-$HOME/.sdkman}\n"
				 "[[ -s \"${SDKMAN_DIR}/bin/sdkman-init.sh\" ]] && "
				 "source \"${SDKMAN_DIR}/bin/sdkman-init.sh\"\n"}},
     {".bashrc", "dotfiles/shell/init.sh", ".sdkman/bin/sdkman-init.sh"},
     {"dotfiles/shell/*.sh", "dotfiles/shell", "dotfiles"}},
    {"a command spelled as a path is run; its arguments are not",
     {{".zshrc", "~/bin/prompt.sh --fast\ncd ~/projects\nalias p='~/bin/alias-target'\n"
		 "eval \"$(~/.local/bin/mise activate zsh)\"\nsource <(kubectl completion zsh)\n"}},
     {"bin/prompt.sh"},
     {"projects", "bin/alias-target", "--fast"}},
    {"what cannot be expanded for certain adds nothing",
     {{".bashrc", "source $UNKNOWN/x.sh\n. ${XDG_CONFIG_HOME}/y.sh\nsource ~/a/*.sh\n"
		  ". ~/../etc/z\nsource `echo ~/q`\n# . ~/commented.sh\n"
		  "echo '. ~/quoted.sh'\n"}},
     {NULL},
     {"a", "etc/z", "q", "commented.sh", "quoted.sh", "x.sh"}},
    {"${VAR:-default}: the default when VAR is unknown here",
     {{".bashrc", ". \"${XDG_CONFIG_HOME:-$HOME/.config}/shell/rc\"\n"}},
     {".config/shell/rc"},
     {NULL}},
    {"a directory, $HOME itself and / are never listed",
     {{".bashrc", ". ~/.config\nsource $HOME\n. /\n"}, {".config/keep", "x\n"}},
     {NULL},
     {".config", "", "/"}},
};

static char *tmpdir;

static int make_file(const char *home, const char *rel, const char *text)
{
	char path[4096], cmd[4200];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", home, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0 || (f = fopen(path, "w")) == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static bool listed(const struct strvec *v, const char *home, const char *rel)
{
	char path[4096];

	if (rel[0] == '/')
		snprintf(path, sizeof path, "%s", rel);
	else
		snprintf(path, sizeof path, "%s%s%s", home, rel[0] != '\0' ? "/" : "", rel);
	return strvec_contains(v, path);
}

static void test_sourced(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const struct rc_case *k = &cases[c];
		char home[4096], cmd[4200];
		struct strvec list = STRVEC_INIT;

		snprintf(home, sizeof home, "%s/home%zu", tmpdir, c);
		assert_int_equal(mkdir(home, 0755), 0);
		for (size_t i = 0; i < 4 && k->files[i][0] != NULL; i++)
			assert_int_equal(make_file(home, k->files[i][0], k->files[i][1]), 0);
		assert_int_equal(hostrun_paths(home, NULL, &list), 0);
		for (size_t i = 0; i < 6 && k->on[i] != NULL; i++)
			if (!listed(&list, home, k->on[i]))
				fail_msg("%s: %s is not on the list", k->name, k->on[i]);
		for (size_t i = 0; i < 6 && k->off[i] != NULL; i++)
			if (listed(&list, home, k->off[i]))
				fail_msg("%s: %s is on the list", k->name, k->off[i]);
		strvec_free(&list);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
		assert_int_equal(system(cmd), 0);
	}
}

/* Entries of the fixed list: on it whether or not they exist, each
 * once. */
static void test_fixed(void **state)
{
	static const char *const entries[] = {
	    ".bash_completion",
	    ".local/share/bash-completion",
	    ".gdbinit",
	    ".hgrc",
	    ".config/starship.toml",
	    ".psqlrc",
	    ".ipython/profile_default/startup",
	    NULL,
	};
	struct strvec list = STRVEC_INIT;

	(void)state;
	assert_int_equal(hostrun_paths(tmpdir, NULL, &list), 0);
	/* No path twice: the fixed entries are pushed without a search. */
	for (size_t i = 0; i < list.n; i++)
		for (size_t j = i + 1; j < list.n; j++)
			if (strcmp(list.v[i], list.v[j]) == 0)
				fail_msg("%s is on the list twice", list.v[i]);
	for (size_t i = 0; entries[i] != NULL; i++)
		if (!listed(&list, tmpdir, entries[i]))
			fail_msg("%s is not on the list", entries[i]);
	strvec_free(&list);
	for (size_t i = 0; hostrun_components[i] != NULL; i++)
		if (strcmp(hostrun_components[i], ".hg/hgrc") == 0)
			return;
	fail_msg(".hg/hgrc is not a host-run component");
}

static int setup(void **state)
{
	static char tmpl[] = "/tmp/test_hostrun.XXXXXX";

	(void)state;
	tmpdir = mkdtemp(tmpl);
	return tmpdir == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sourced),
	    cmocka_unit_test(test_fixed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
