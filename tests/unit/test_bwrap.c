/*
 * test_bwrap: the native sandbox's bwrap argv (bwrap_build_argv), as data.  Each case is
 * an input (home, cwd, deny list, writable roots, status fd, command) and
 * the exact argv expected, with @T@ standing for a temporary tree built
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
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap.h"
#include "error.h"

static char tree[PATH_MAX];    /* @T@ */
static char tmp_cwd[PATH_MAX]; /* @C@ */

#define NAMESPACES                                                                                 \
	"bwrap", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",          \
	    "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--ro-bind", "/", "/"
/* The same when the shim makes the read-only binds. */
/* The namespaces with the two capabilities the shim's binds need. */
#define NAMESPACES_SHIM_CAPS                                                                       \
	"bwrap", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",          \
	    "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add",             \
	    "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"
#define NAMESPACES_SHIM NAMESPACES_SHIM_CAPS, "--ro-bind", "/", "/"

struct golden {
	const char *name;
	const char *home, *cwd;
	const char *deny[12];
	const char *writable[4];
	int status_fd;
	const char *argv[4];
	const char *self_exe;
	const char *host_run[6];
	size_t shim_binds_at;
	bool shim_userns;
	const char *want[80];
};

static const struct golden goldens[] = {
    {
	.name = "read-only binds in the shim: bwrap keeps the two capabilities, the shim gets "
		"--ro for the host-run path, /proc's files and the directory mask (bwrap only "
		"mounts its tmpfs) before its separator; a path inside another, a masked one, "
		"one outside every root: not bound at all",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.deny = {"~/.aws"},
	.status_fd = -1,
	.argv = {"shim", "--", "sh"},
	.host_run = {"@T@/home/.config", "@T@/home/.config/readme", "@T@/home/.aws",
		     "@T@/home/secret.txt"},
	.shim_binds_at = 1,
	.want = {NAMESPACES_SHIM,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--chdir",
		 "@T@/work",
		 "--perms",
		 "0000",
		 "--tmpfs",
		 "@T@/home/.aws",
		 "--",
		 "shim",
		 "--ro",
		 "@T@/home/.config",
		 "--ro",
		 "/proc/sys",
		 "--ro-try",
		 "/proc/sysrq-trigger",
		 "--ro-try",
		 "/proc/irq",
		 "--ro-try",
		 "/proc/bus",
		 "--ro-mount",
		 "@T@/home/.aws",
		 "--",
		 "sh"},
    },
    {
	.name = "a server not run as root: bwrap runs the shim as uid 0 with CAP_SETFCAP too, "
		"and the shim gets --userns with the server's ids first, to nest its own user "
		"namespace after the binds",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.status_fd = -1,
	.argv = {"shim", "--", "sh"},
	.host_run = {"@T@/home/.config"},
	.shim_binds_at = 1,
	.shim_userns = true,
	.want = {NAMESPACES_SHIM_CAPS,
		 "--uid",
		 "0",
		 "--gid",
		 "0",
		 "--cap-add",
		 "CAP_SETFCAP",
		 "--ro-bind",
		 "/",
		 "/",
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--chdir",
		 "@T@/work",
		 "--",
		 "shim",
		 "--userns",
		 "@IDS@",
		 "--ro",
		 "@T@/home/.config",
		 "--ro",
		 "/proc/sys",
		 "--ro-try",
		 "/proc/sysrq-trigger",
		 "--ro-try",
		 "/proc/irq",
		 "--ro-try",
		 "/proc/bus",
		 "--",
		 "sh"},
    },
    {
	.name = "read-only binds in the shim at the end of the command (a prepared sandbox's "
		"key is built so)",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.status_fd = -1,
	.argv = {"@command"},
	.host_run = {"@T@/home/.config"},
	.shim_binds_at = 1,
	.want = {NAMESPACES_SHIM,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--chdir",
		 "@T@/work",
		 "--",
		 "@command",
		 "--ro",
		 "@T@/home/.config",
		 "--ro",
		 "/proc/sys",
		 "--ro-try",
		 "/proc/sysrq-trigger",
		 "--ro-try",
		 "/proc/irq",
		 "--ro-try",
		 "/proc/bus"},
    },
    {
	.name = "bwrap's read-only binds: a path inside another bound one, or masked, is not "
		"bound again",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.deny = {"~/.aws"},
	.status_fd = -1,
	.argv = {"sh"},
	.host_run = {"@T@/home/.config/readme", "@T@/home/.config", "@T@/home/.aws"},
	.want = {NAMESPACES,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--ro-bind",
		 "@T@/home/.config",
		 "@T@/home/.config",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--ro-bind",
		 "/proc/sys",
		 "/proc/sys",
		 "--ro-bind-try",
		 "/proc/sysrq-trigger",
		 "/proc/sysrq-trigger",
		 "--ro-bind-try",
		 "/proc/irq",
		 "/proc/irq",
		 "--ro-bind-try",
		 "/proc/bus",
		 "/proc/bus",
		 "--chdir",
		 "@T@/work",
		 "--perms",
		 "0000",
		 "--tmpfs",
		 "@T@/home/.aws",
		 "--remount-ro",
		 "@T@/home/.aws",
		 "--",
		 "sh"},
    },
    {
	.name = "host-run paths: bound read-only where they exist inside a root, at their real "
		"location; missing, outside every root, or a root itself: not bound",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.status_fd = -1,
	.argv = {"sh"},
	.host_run = {"@T@/home/.config", "@T@/home/missing", "@T@/home/secret.txt", "@T@/home",
		     "@T@/extra/x", "@T@/work/../home/.config"},
	.want = {NAMESPACES,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--ro-bind",
		 "@T@/home/.config",
		 "@T@/home/.config",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--ro-bind",
		 "/proc/sys",
		 "/proc/sys",
		 "--ro-bind-try",
		 "/proc/sysrq-trigger",
		 "/proc/sysrq-trigger",
		 "--ro-bind-try",
		 "/proc/irq",
		 "/proc/irq",
		 "--ro-bind-try",
		 "/proc/bus",
		 "/proc/bus",
		 "--chdir",
		 "@T@/work",
		 "--",
		 "sh"},
    },
    {
	.name = "terminal secrets: symlinked ~/.ssh masked where it leads, missing skipped",
	.home = "@T@/home",
	.cwd = "@T@/work",
	.deny = {"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/Library/Keychains"},
	.status_fd = 5,
	.argv = {"/bin/bash", "-l"},
	.self_exe = "/tmp/checkout/build/sandmux",
	.want = {NAMESPACES,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/work",
		 "@T@/work",
		 "--tmpfs",
		 "/tmp",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--ro-bind",
		 "/proc/sys",
		 "/proc/sys",
		 "--ro-bind-try",
		 "/proc/sysrq-trigger",
		 "/proc/sysrq-trigger",
		 "--ro-bind-try",
		 "/proc/irq",
		 "/proc/irq",
		 "--ro-bind-try",
		 "/proc/bus",
		 "/proc/bus",
		 "--ro-bind",
		 "/tmp/checkout/build/sandmux",
		 "/tmp/checkout/build/sandmux",
		 "--json-status-fd",
		 "5",
		 "--chdir",
		 "@T@/work",
		 "--perms",
		 "0000",
		 "--tmpfs",
		 "@T@/keys",
		 "--remount-ro",
		 "@T@/keys",
		 "--perms",
		 "0000",
		 "--tmpfs",
		 "@T@/home/.aws",
		 "--remount-ro",
		 "@T@/home/.aws",
		 "--",
		 "/bin/bash",
		 "-l"},
    },
    {
	.name = "files, globs (dotfiles too), links into masked dirs, unresolvable",
	.home = "@T@/home",
	.cwd = "@T@/home",
	.deny = {"~/link-to-key", "~/.ssh", "~/.config/*token*", "~/secret.txt", "~/dangling",
		 "~/missing", "~/.config/*.nomatch", "@T@/keys"},
	.status_fd = -1,
	.argv = {"sh"},
	.want = {NAMESPACES,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--tmpfs",
		 "/tmp",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--ro-bind",
		 "/proc/sys",
		 "/proc/sys",
		 "--ro-bind-try",
		 "/proc/sysrq-trigger",
		 "/proc/sysrq-trigger",
		 "--ro-bind-try",
		 "/proc/irq",
		 "/proc/irq",
		 "--ro-bind-try",
		 "/proc/bus",
		 "/proc/bus",
		 "--chdir",
		 "@T@/home",
		 "--perms",
		 "0000",
		 "--tmpfs",
		 "@T@/keys",
		 "--remount-ro",
		 "@T@/keys",
		 "--ro-bind",
		 "@T@/mask",
		 "@T@/home/.config/.hidden-token",
		 "--ro-bind",
		 "@T@/mask",
		 "@T@/home/.config/gh-token",
		 "--ro-bind",
		 "@T@/mask",
		 "@T@/outside/secret",
		 "--",
		 "sh"},
    },
    {
	.name = "cwd under /tmp is bound after the private /tmp; covered roots dropped",
	.home = "@T@/home",
	.cwd = "@C@",
	.writable = {"@T@/home/.config", "@T@/extra"},
	.status_fd = 3,
	.argv = {"-dash-command"},
	.want = {NAMESPACES,
		 "--bind",
		 "@T@/home",
		 "@T@/home",
		 "--bind",
		 "@T@/extra",
		 "@T@/extra",
		 "--tmpfs",
		 "/tmp",
		 "--bind",
		 "@C@",
		 "@C@",
		 "--dev",
		 "/dev",
		 "--proc",
		 "/proc",
		 "--ro-bind",
		 "/proc/sys",
		 "/proc/sys",
		 "--ro-bind-try",
		 "/proc/sysrq-trigger",
		 "/proc/sysrq-trigger",
		 "--ro-bind-try",
		 "/proc/irq",
		 "/proc/irq",
		 "--ro-bind-try",
		 "/proc/bus",
		 "/proc/bus",
		 "--json-status-fd",
		 "3",
		 "--chdir",
		 "@C@",
		 "--",
		 "-dash-command"},
    },
};

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

static void test_goldens(void **state)
{
	for (size_t c = 0; c < sizeof goldens / sizeof goldens[0]; c++) {
		const struct golden *g = &goldens[c];
		const char *deny[13], *writable[5], *argv[5], *host_run[7];
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
		size_t nwant = 0;

		expand_list(g->deny, 12, deny);
		expand_list(g->writable, 4, writable);
		expand_list(g->argv, 4, argv);
		expand_list(g->host_run, 6, host_run);
		in.host_run = host_run;
		in.deny_read = deny;
		in.writable = writable;
		in.argv = (char *const *)argv;
		print_message("case: %s\n", g->name);
		assert_int_equal(bwrap_build_argv(&in, &out, &err), 0);
		while (g->want[nwant] != NULL)
			nwant++;
		for (size_t i = 0; i < out.n && i < nwant; i++)
			if (strcmp(out.v[i], expand(g->want[i])) != 0)
				fail_msg("%s: argv[%zu] is \"%s\", want \"%s\"", g->name, i,
					 out.v[i], expand(g->want[i]));
		assert_int_equal(out.n, nwant);
		assert_null(out.v[out.n]);
		strvec_free(&out);
	}
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
