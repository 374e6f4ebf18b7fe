/*
 * test_bwrap: the native sandbox's bwrap argv (bwrap_build_argv), as data.  Each case is
 * a file of tests/golden/bwrap/ (golden_read says its form): an input
 * (home, cwd, deny list, writable roots, status fd, command) and the
 * exact argv expected, with @T@ standing for a temporary tree built
 * here (outside /tmp) and @C@ for a working directory under /tmp:
 *
 *   @T@/home                 $HOME
 *   @T@/home/.ssh         -> @T@/keys (absolute symlink; a directory)
 *   @T@/home/link-to-key  -> @T@/home/.ssh/id_ed25519
 *   @T@/home/.aws/           a directory
 *   @T@/home/.config/        gh-token, .hidden-token, readme
 *   @T@/home/secret.txt   -> @T@/outside/secret (a file)
 *   @T@/home/dangling     -> /nonexistent/sandmux
 *   @T@/work, @T@/extra      writable roots
 *   @T@/mask                 the empty mode-000 mask file
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap.h"
#include "error.h"

static char tree[PATH_MAX];    /* @T@ */
static char tmp_cwd[PATH_MAX]; /* @C@ */

/* The argv's opening, named in the goldens by a line of its own. */
static const char *const namespaces[] = {
    "bwrap", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",
    "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--ro-bind", "/", "/", NULL};
/* The namespaces with the two capabilities the shim's binds need. */
static const char *const namespaces_shim_caps[] = {
    "bwrap", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",
    "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
    "--cap-add", "CAP_SETPCAP", NULL};
/* The same, when the shim makes the read-only binds. */
static const char *const namespaces_shim[] = {
    "bwrap", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",
    "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
    "--cap-add", "CAP_SETPCAP", "--ro-bind", "/", "/", NULL};
static const struct {
	const char *line;
	const char *const *argv;
} openings[] = {
    {"@NAMESPACES@", namespaces},
    {"@NAMESPACES_SHIM_CAPS@", namespaces_shim_caps},
    {"@NAMESPACES_SHIM@", namespaces_shim},
};

/*
 * One golden, read from tests/golden/bwrap/NN-NAME.txt: "key: value"
 * lines (name, home, cwd, status-fd, self-exe, shim-binds-at,
 * shim-userns: yes; deny, writable, argv and host-run once per element),
 * then "want:" and the expected argv, one element a line, where a line
 * @NAMESPACES@, @NAMESPACES_SHIM@ or @NAMESPACES_SHIM_CAPS@ stands for
 * the opening above.  Lines before "want:" starting with # are comments.
 */
#define GOLDEN_MAX 96
struct golden {
	char file[PATH_MAX];
	char *name, *home, *cwd, *self_exe;
	const char *deny[GOLDEN_MAX], *writable[GOLDEN_MAX], *argv[GOLDEN_MAX];
	const char *host_run[GOLDEN_MAX], *want[GOLDEN_MAX];
	size_t ndeny, nwritable, nargv, nhost_run, nwant;
	int status_fd;
	size_t shim_binds_at;
	bool shim_userns;
	char *owned[6 * GOLDEN_MAX]; /* every string read, freed by golden_free */
	size_t nowned;
};

/* s, kept to be freed with the case (a leak under the sanitizer lane). */
static char *keep(struct golden *g, const char *s, const char *file)
{
	char *copy = strdup(s);

	if (copy == NULL || g->nowned >= sizeof g->owned / sizeof g->owned[0])
		fail_msg("%s: too many strings", file);
	return g->owned[g->nowned++] = copy;
}

static void golden_free(struct golden *g)
{
	for (size_t i = 0; i < g->nowned; i++)
		free(g->owned[i]);
	g->nowned = 0;
}

static void push(const char **list, size_t *n, const char *value, const char *file)
{
	if (*n + 1 >= GOLDEN_MAX)
		fail_msg("%s: more than %d elements in a list", file, GOLDEN_MAX - 1);
	list[(*n)++] = value;
	list[*n] = NULL;
}

/* Reads one golden file into g (its strings are never freed: a test). */
static void golden_read(const char *file, struct golden *g)
{
	FILE *f = fopen(file, "r");
	char line[4096];
	bool want = false;

	if (f == NULL)
		fail_msg("%s: cannot open", file);
	memset(g, 0, sizeof *g);
	snprintf(g->file, sizeof g->file, "%s", file);
	g->status_fd = -1;
	while (fgets(line, sizeof line, f) != NULL) {
		char *value;

		line[strcspn(line, "\n")] = 0;
		if (want) {
			size_t o;

			for (o = 0; o < sizeof openings / sizeof openings[0]; o++)
				if (strcmp(line, openings[o].line) == 0)
					break;
			if (o < sizeof openings / sizeof openings[0])
				for (const char *const *a = openings[o].argv; *a != NULL; a++)
					push(g->want, &g->nwant, *a, file);
			else
				push(g->want, &g->nwant, keep(g, line, file), file);
			continue;
		}
		if (line[0] == '#' || line[0] == 0)
			continue;
		if (strcmp(line, "want:") == 0) {
			want = true;
			continue;
		}
		if ((value = strstr(line, ": ")) == NULL)
			fail_msg("%s: \"%s\" is not \"key: value\"", file, line);
		*value = 0;
		value = keep(g, value + 2, file);
		if (strcmp(line, "name") == 0)
			g->name = value;
		else if (strcmp(line, "home") == 0)
			g->home = value;
		else if (strcmp(line, "cwd") == 0)
			g->cwd = value;
		else if (strcmp(line, "self-exe") == 0)
			g->self_exe = value;
		else if (strcmp(line, "status-fd") == 0)
			g->status_fd = atoi(value);
		else if (strcmp(line, "shim-binds-at") == 0)
			g->shim_binds_at = (size_t)atoi(value);
		else if (strcmp(line, "shim-userns") == 0)
			g->shim_userns = strcmp(value, "yes") == 0;
		else if (strcmp(line, "deny") == 0)
			push(g->deny, &g->ndeny, value, file);
		else if (strcmp(line, "writable") == 0)
			push(g->writable, &g->nwritable, value, file);
		else if (strcmp(line, "argv") == 0)
			push(g->argv, &g->nargv, value, file);
		else if (strcmp(line, "host-run") == 0)
			push(g->host_run, &g->nhost_run, value, file);
		else
			fail_msg("%s: unknown key \"%s\"", file, line);
	}
	fclose(f);
	if (g->name == NULL || g->home == NULL || g->cwd == NULL || !want || g->nwant == 0)
		fail_msg("%s: needs name, home, cwd and a want: list", file);
}

struct refusal {
	const char *name;
	const char *home, *cwd;
	const char *deny[4];
	const char *writable[2];
	bool no_mask, no_argv;
	const char *message; /* a part of err.message */
};

static const struct refusal refusals[] = {
    {.name = "cwd /", .home = "@T@/home", .cwd = "/", .message = "refusing to make / writable"},
    {.name = "writable /..",
     .home = "@T@/home",
     .cwd = "@T@/work",
     .writable = {"/tmp/.."},
     .message = "refusing to make /tmp/.. writable"},
    {.name = "relative cwd", .home = "@T@/home", .cwd = "work", .message = "not absolute"},
    {.name = "missing home",
     .home = "@T@/nohome",
     .cwd = "@T@/work",
     .message = "No such file or directory"},
    {.name = "relative deny",
     .home = "@T@/home",
     .cwd = "@T@/work",
     .deny = {"secrets"},
     .message = "deny path \"secrets\" is not absolute"},
    {.name = "file mask without a mask file",
     .home = "@T@/home",
     .cwd = "@T@/work",
     .deny = {"~/secret.txt"},
     .no_mask = true,
     .message = "no mask file"},
    {.name = "no command",
     .home = "@T@/home",
     .cwd = "@T@/work",
     .no_argv = true,
     .message = "no command"},
};

/* s with @T@ and @C@ replaced; static storage, rotating. */
static const char *expand(const char *s)
{
	static char bufs[64][PATH_MAX];
	static int next;
	char *out = bufs[next++ % 64];
	size_t len = 0;

	if (s == NULL)
		return NULL;
	while (*s != '\0' && len < PATH_MAX - 1) {
		const char *with = strncmp(s, "@T@", 3) == 0   ? tree
				   : strncmp(s, "@C@", 3) == 0 ? tmp_cwd
							       : NULL;

		if (strncmp(s, "@IDS@", 5) == 0) {
			/* The server's ids, as bwrap.c gives them to --userns. */
			len += (size_t)snprintf(out + len, PATH_MAX - len, "%u:%u",
						(unsigned)getuid(), (unsigned)getgid());
			s += 5;
		} else if (with != NULL) {
			len += (size_t)snprintf(out + len, PATH_MAX - len, "%s", with);
			s += 3;
		} else {
			out[len++] = *s++;
		}
	}
	out[len] = '\0';
	return out;
}

static void make(const char *kind, const char *path, const char *target)
{
	char full[PATH_MAX];
	FILE *f;

	snprintf(full, sizeof full, "%s", expand(path));
	if (strcmp(kind, "dir") == 0) {
		assert_int_equal(mkdir(full, 0755), 0);
	} else if (strcmp(kind, "link") == 0) {
		assert_int_equal(symlink(expand(target), full), 0);
	} else {
		f = fopen(full, "w");
		assert_non_null(f);
		fputs("secret\n", f);
		fclose(f);
		if (strcmp(kind, "mask") == 0)
			assert_int_equal(chmod(full, 0), 0);
	}
}

static int setup(void **state)
{
	char dir[] = "/var/tmp/sandmux-bwrap-XXXXXX", cwd[] = "/tmp/sandmux-bwrap-cwd-XXXXXX";

	if (mkdtemp(dir) == NULL || realpath(dir, tree) == NULL || mkdtemp(cwd) == NULL ||
	    realpath(cwd, tmp_cwd) == NULL)
		return -1;
	make("dir", "@T@/home", NULL);
	make("dir", "@T@/keys", NULL);
	make("file", "@T@/keys/id_ed25519", NULL);
	make("link", "@T@/home/.ssh", "@T@/keys");
	make("link", "@T@/home/link-to-key", "@T@/home/.ssh/id_ed25519");
	make("dir", "@T@/home/.aws", NULL);
	make("dir", "@T@/home/.config", NULL);
	make("file", "@T@/home/.config/gh-token", NULL);
	make("file", "@T@/home/.config/.hidden-token", NULL);
	make("file", "@T@/home/.config/readme", NULL);
	make("dir", "@T@/outside", NULL);
	make("file", "@T@/outside/secret", NULL);
	make("link", "@T@/home/secret.txt", "@T@/outside/secret");
	make("link", "@T@/home/dangling", "/nonexistent/sandmux");
	make("dir", "@T@/work", NULL);
	make("dir", "@T@/extra", NULL);
	make("mask", "@T@/mask", NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX * 2 + 32];

	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", tree, tmp_cwd);
	return system(cmd) == 0 ? 0 : -1;
}

/* Expand a NULL-terminated list of at most n templates into out. */
static void expand_list(const char *const *in, size_t n, const char **out)
{
	size_t i;

	for (i = 0; i < n && in[i] != NULL; i++)
		out[i] = expand(in[i]);
	out[i] = NULL;
}

/* Where the goldens are: $SANDMUX_ROOT/tests/golden/bwrap, else beside
 * this source as compiled (make builds from the checkout's root). */
static void golden_dir(char *out, size_t size)
{
	const char *root = getenv("SANDMUX_ROOT");
	const char *src = __FILE__, *cut = strstr(src, "tests/unit/");

	if (root != NULL && root[0] != 0)
		snprintf(out, size, "%s/tests/golden/bwrap", root);
	else
		snprintf(out, size, "%.*stests/golden/bwrap", cut ? (int)(cut - src) : 0, src);
}

static int golden_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".txt") == 0;
}

static void test_goldens(void **state)
{
	char dir[PATH_MAX];
	struct dirent **files;
	int nfiles;

	golden_dir(dir, sizeof dir);
	nfiles = scandir(dir, &files, golden_file, alphasort);
	if (nfiles < 8)
		fail_msg("%s: %d golden files, want at least the 8 there are", dir, nfiles);
	for (int c = 0; c < nfiles; c++) {
		static struct golden golden;
		struct golden *g = &golden;
		char file[PATH_MAX * 2];
		const char *deny[GOLDEN_MAX], *writable[GOLDEN_MAX], *argv[GOLDEN_MAX];
		const char *host_run[GOLDEN_MAX];

		snprintf(file, sizeof file, "%s/%s", dir, files[c]->d_name);
		golden_read(file, g);
		struct bwrap_input in = {
		    .bwrap = "bwrap",
		    .home = expand(g->home),
		    .cwd = expand(g->cwd),
		    .mask_file = expand("@T@/mask"),
		    .status_fd = g->status_fd,
		    .self_exe = g->self_exe,
		    .shim_binds_at = g->shim_binds_at,
		    .shim_userns = g->shim_userns,
		};
		struct strvec out = STRVEC_INIT;
		struct sm_error err = {{0}, {0}};

		expand_list(g->deny, GOLDEN_MAX - 1, deny);
		expand_list(g->writable, GOLDEN_MAX - 1, writable);
		expand_list(g->argv, GOLDEN_MAX - 1, argv);
		expand_list(g->host_run, GOLDEN_MAX - 1, host_run);
		in.host_run = host_run;
		in.deny_read = deny;
		in.writable = writable;
		in.argv = (char *const *)argv;
		print_message("case %s: %s\n", files[c]->d_name, g->name);
		assert_int_equal(bwrap_build_argv(&in, &out, &err), 0);
		for (size_t i = 0; i < out.n && i < g->nwant; i++)
			if (strcmp(out.v[i], expand(g->want[i])) != 0)
				fail_msg("%s: argv[%zu] is \"%s\", want \"%s\"", files[c]->d_name,
					 i, out.v[i], expand(g->want[i]));
		assert_int_equal(out.n, g->nwant);
		assert_null(out.v[out.n]);
		strvec_free(&out);
		golden_free(g);
		free(files[c]);
	}
	free(files);
}

static void test_refusals(void **state)
{
	for (size_t c = 0; c < sizeof refusals / sizeof refusals[0]; c++) {
		const struct refusal *r = &refusals[c];
		const char *deny[5], *writable[3];
		char *argv[] = {"sh", NULL};
		struct bwrap_input in = {
		    .bwrap = "bwrap",
		    .home = expand(r->home),
		    .cwd = expand(r->cwd),
		    .mask_file = r->no_mask ? NULL : expand("@T@/mask"),
		    .status_fd = -1,
		    .argv = r->no_argv ? NULL : argv,
		};
		struct strvec out = STRVEC_INIT;
		struct sm_error err = {{0}, {0}};

		expand_list(r->deny, 4, deny);
		expand_list(r->writable, 2, writable);
		in.deny_read = deny;
		in.writable = writable;
		print_message("refusal: %s\n", r->name);
		assert_int_equal(bwrap_build_argv(&in, &out, &err), -1);
		assert_string_equal(err.code, "launch_failed");
		if (strstr(err.message, r->message) == NULL)
			fail_msg("%s: message \"%s\" lacks \"%s\"", r->name, err.message,
				 r->message);
		strvec_free(&out);
	}
}

static void test_terminal_deny_list(void **state)
{
	static const char *const secrets[] = {"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh",
					      "~/Library/Keychains"};

	for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
		assert_string_equal(bwrap_deny_read_defaults[i], secrets[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_goldens),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_terminal_deny_list),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
