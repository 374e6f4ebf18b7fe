/*
 * test_seatbelt: the macOS Seatbelt profile (seatbelt_build_profile), as
 * data.  Each golden is an input (the profile's fields, the spec's, the
 * launch lists) and the exact SBPL text expected, for pane 7, with
 * these placeholders:
 *
 *   @T@   a temporary tree built here, resolved, outside /tmp, /var and
 *         /etc (whose macOS spellings would double every line) and made
 *         of characters no regex or SBPL string escapes:
 *           @T@/home            $HOME: .bashrc (a file), .config/fish
 *                               (a directory), .ssh -> @T@/keys
 *           @T@/work            the working directory
 *           @T@/extra, @T@/state, @T@/grant, @T@/checkout  directories
 *           @T@/checkout/notes  a file
 *   @A@   the unlink denies of @T@'s own ancestors but "/" (they depend
 *         on where the tree is made)
 *
 * Every output, golden or not, also passes the SBPL reader
 * (test_sbpl_reader.h), and the mutations at the end show the reader
 * failing what it must fail.  Nothing here runs sandbox-exec: this host
 * is Linux.
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

#include "error.h"
#include "hostrun.h"
#include "profile.h"
#include "sandbox.h"
#include "seatbelt.h"
#include "strvec.h"
#include "test_sbpl_reader.h"

static char tree[PATH_MAX];

/* Each placeholder expanded; the result lives until the next call with
 * the same slot. */
static char *expand_in(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	while (*s != '\0' && n + 1 < size) {
		if (strncmp(s, "@T@", 3) == 0) {
			n += (size_t)snprintf(buf + n, size - n, "%s", tree);
			s += 3;
		} else if (strncmp(s, "@A@", 3) == 0) {
			char dir[PATH_MAX], *slash;

			snprintf(dir, sizeof dir, "%s", tree);
			while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
				*slash = '\0';
				n += (size_t)snprintf(buf + n, size - n,
						      "(deny file-write-unlink (with message "
						      "\"sandmux:7\") (literal \"%s\"))\n",
						      dir);
			}
			s += s[3] == '\n' ? 4 : 3;
		} else {
			buf[n++] = *s++;
			buf[n] = '\0';
		}
	}
	return buf;
}

static const char *expand(const char *s)
{
	static char slots[16][PATH_MAX];
	static size_t next;

	return expand_in(s, slots[next++ % 16], PATH_MAX);
}

#define MAXL 6

struct golden {
	const char *name;
	/* the profile: a built-in one's flags (a preset's), then the fields */
	const char *preset;
	enum sandbox_mode mode;
	bool home_writable, proxied;
	const char *writable[MAXL], *state_dirs[MAXL], *deny_read[MAXL], *protected_paths[MAXL],
	    *write_denies[MAXL];
	/* the spec, when use_spec */
	bool use_spec, no_network;
	enum sandbox_mode spec_mode;
	const char *spec_protected[MAXL], *runner_state[MAXL], *exec_grants[MAXL];
	/* the launch */
	const char *cwd, *session_tmp;
	const char *host_run[MAXL], *interpreters[MAXL], *unix_sockets[MAXL];
	int ports[3];
	const char *want;
};

/* What every profile starts with: the base and the default deny-read
 * roots (bwrap_deny_read_defaults) with $HOME at @T@/home. */
#define HEAD                                                                                       \
	"(version 1)\n"                                                                            \
	"(allow default)\n"                                                                        \
	"; reads: the deny-read roots\n"                                                           \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"@T@/home/.ssh\"))\n"             \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"@T@/keys\"))\n"                  \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"@T@/home/.aws\"))\n"             \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"@T@/home/.gnupg\"))\n"           \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"@T@/home/.config/gh\"))\n"       \
	"(deny file-read* (with message \"sandmux:7\") (subpath "                                  \
	"\"@T@/home/Library/Keychains\"))\n"                                                       \
	"(deny file-read* (with message \"sandmux:7\") (subpath "                                  \
	"\"/run/dbus/system_bus_socket\"))\n"                                                      \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"/run/systemd/private\"))\n"      \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"/var/run/docker.sock\"))\n"      \
	"(deny file-read* (with message \"sandmux:7\") (subpath "                                  \
	"\"/private/var/run/docker.sock\"))\n"                                                     \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"/run/docker.sock\"))\n"          \
	"(deny file-read* (with message \"sandmux:7\") (subpath "                                  \
	"\"/run/containerd/containerd.sock\"))\n"                                                  \
	"(deny file-read* (with message \"sandmux:7\") (subpath \"/run/podman/podman.sock\"))\n"

#define WRITES                                                                                     \
	"; writes: nowhere, then each writable root\n"                                             \
	"(deny file-write* (with message \"sandmux:7\"))\n"                                        \
	"(allow file-write* (literal \"/dev/null\"))\n"                                            \
	"(allow file-write* (literal \"/dev/zero\"))\n"                                            \
	"(allow file-write* (literal \"/dev/tty\"))\n"                                             \
	"(allow file-write* (literal \"/dev/dtracehelper\"))\n"                                    \
	"(allow file-write* (regex \"^/dev/ttys[0-9]+$\"))\n"                                      \
	"(allow file-write* (subpath \"/dev/fd\"))\n"

/* The deny-read roots again, for writes (first in every mandatory
 * section). */
#define MANDATORY                                                                                  \
	"; mandatory denies: after the allows they override\n"                                     \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"@T@/home/.ssh\"))\n"            \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"@T@/keys\"))\n"                 \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"@T@/home/.aws\"))\n"            \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"@T@/home/.gnupg\"))\n"          \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"@T@/home/.config/gh\"))\n"      \
	"(deny file-write* (with message \"sandmux:7\") (subpath "                                 \
	"\"@T@/home/Library/Keychains\"))\n"                                                       \
	"(deny file-write* (with message \"sandmux:7\") (subpath "                                 \
	"\"/run/dbus/system_bus_socket\"))\n"                                                      \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"/run/systemd/private\"))\n"     \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"/var/run/docker.sock\"))\n"     \
	"(deny file-write* (with message \"sandmux:7\") (subpath "                                 \
	"\"/private/var/run/docker.sock\"))\n"                                                     \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"/run/docker.sock\"))\n"         \
	"(deny file-write* (with message \"sandmux:7\") (subpath "                                 \
	"\"/run/containerd/containerd.sock\"))\n"                                                  \
	"(deny file-write* (with message \"sandmux:7\") (subpath \"/run/podman/podman.sock\"))\n"

#include "test_seatbelt_goldens.h"

/* A strvec of the placeholders-expanded entries of a golden's list. */
static void fill(struct strvec *sv, const char *const *list)
{
	for (size_t i = 0; i < MAXL && list[i] != NULL; i++)
		assert_int_equal(strvec_push(sv, expand(list[i])), 0);
}

struct built {
	struct sandbox_profile prof;
	struct sandbox_spec spec;
	struct strvec spec_protected, runner_state, exec_grants, host_run;
	struct seatbelt_input in;
	char cwd[PATH_MAX], tmp[PATH_MAX];
};

static void build(const struct golden *g, struct built *b)
{
	memset(b, 0, sizeof *b);
	b->prof.mode = g->mode;
	b->prof.home_writable = g->home_writable;
	b->prof.proxied_network = g->proxied;
	if (g->preset != NULL) {
		const struct sandbox_profile *p = profile_find(g->preset);

		assert_non_null(p);
		snprintf(b->prof.name, sizeof b->prof.name, "%s", p->name);
		b->prof.mode = p->mode;
		b->prof.home_writable = p->home_writable;
		b->prof.proxied_network = p->proxied_network;
		b->prof.delete_guard = p->delete_guard;
		b->prof.trash = p->trash;
		b->prof.not_a_sandbox = p->not_a_sandbox;
	}
	fill(&b->prof.writable, g->writable);
	fill(&b->prof.state_dirs, g->state_dirs);
	fill(&b->prof.deny_read, g->deny_read);
	fill(&b->prof.protected_paths, g->protected_paths);
	fill(&b->prof.write_denies, g->write_denies);
	fill(&b->spec_protected, g->spec_protected);
	fill(&b->runner_state, g->runner_state);
	fill(&b->exec_grants, g->exec_grants);
	fill(&b->host_run, g->host_run);
	fill(&b->prof.exec_interpreters, g->interpreters);
	fill(&b->prof.unix_sockets, g->unix_sockets);
	b->spec.network_enabled = !g->no_network;
	b->spec.mode = g->spec_mode;
	b->spec.protected_paths = b->spec_protected.v;
	b->spec.nprotected_paths = b->spec_protected.n;
	b->spec.runner_state_dirs = b->runner_state.v;
	b->spec.nrunner_state_dirs = b->runner_state.n;
	b->spec.exec_grant_roots = b->exec_grants.v;
	b->spec.nexec_grant_roots = b->exec_grants.n;
	snprintf(b->cwd, sizeof b->cwd, "%s", expand(g->cwd != NULL ? g->cwd : "@T@/work"));
	if (g->session_tmp != NULL)
		snprintf(b->tmp, sizeof b->tmp, "%s", expand(g->session_tmp));
	b->in = (struct seatbelt_input){
	    .profile = &b->prof,
	    .spec = g->use_spec ? &b->spec : NULL,
	    .home = expand("@T@/home"),
	    .cwd = b->cwd,
	    .pane = 7,
	    .session_tmp = g->session_tmp != NULL ? b->tmp : NULL,
	    .host_run = (const char *const *)b->host_run.v,
	    .proxy_ports = g->ports,
	};
	while (b->in.nproxy_ports < 3 && g->ports[b->in.nproxy_ports] != 0)
		b->in.nproxy_ports++;
}

static void unbuild(struct built *b)
{
	profile_free(&b->prof);
	strvec_free(&b->spec_protected);
	strvec_free(&b->runner_state);
	strvec_free(&b->exec_grants);
	strvec_free(&b->host_run);
}

/* The expected text, or the first line where got differs. */
static void compare(const char *name, const char *want, const char *got)
{
	size_t line = 1;
	const char *w = want, *g = got;

	while (*w != '\0' && *w == *g) {
		line += *w == '\n';
		w++;
		g++;
	}
	if (*w == '\0' && *g == '\0')
		return;
	print_message("%s: got this profile:\n%s", name, got);
	fail_msg("%s: line %zu differs", name, line);
}

static void test_goldens(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof goldens / sizeof goldens[0]; c++) {
		const struct golden *g = &goldens[c];
		struct built *b = malloc(sizeof *b);
		struct sm_error err = {{0}, {0}};
		char *text = NULL, *want = malloc(1 << 20), why[512];
		const char *bad;

		assert_non_null(b);
		assert_non_null(want);
		build(g, b);
		print_message("golden: %s\n", g->name);
		if (seatbelt_build_profile(&b->in, &text, &err) != 0)
			fail_msg("%s: %s: %s", g->name, err.code, err.message);
		compare(g->name, expand_in(g->want, want, 1 << 20), text);
		if ((bad = sbpl_check(text, why, sizeof why)) != NULL)
			fail_msg("%s: the reader refuses it: %s", g->name, bad);
		free(text);
		free(want);
		unbuild(b);
		free(b);
	}
}

/* The host-run list of a real launch (hostrun_paths) and the agent-like
 * profile: each entry is denied after the allows, files as literal,
 * directories as subpath, and the reader passes it. */
static void test_hostrun(void **state)
{
	struct golden g = {.name = "hostrun", .home_writable = true};
	struct built b;
	struct strvec paths = STRVEC_INIT;
	struct sm_error err = {{0}, {0}};
	char *text = NULL, why[512], rule[PATH_MAX + 128];
	const char *bad;

	(void)state;
	build(&g, &b);
	assert_int_equal(hostrun_paths(expand("@T@/home"), NULL, &paths), 0);
	b.in.host_run = (const char *const *)paths.v;
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	snprintf(rule, sizeof rule,
		 "\n(deny file-write* (with message \"sandmux:7\") (literal \"%s/.bashrc\"))\n",
		 expand("@T@/home"));
	assert_non_null(strstr(text, rule));
	snprintf(
	    rule, sizeof rule,
	    "\n(deny file-write* (with message \"sandmux:7\") (subpath \"%s/.config/fish\"))\n",
	    expand("@T@/home"));
	assert_non_null(strstr(text, rule));
	snprintf(rule, sizeof rule,
		 "\n(deny file-write* (with message \"sandmux:7\") (subpath "
		 "\"%s/.local/state/sandmux\"))\n",
		 expand("@T@/home"));
	assert_non_null(strstr(text, rule));
	if ((bad = sbpl_check(text, why, sizeof why)) != NULL)
		fail_msg("hostrun: the reader refuses it: %s", bad);
	free(text);
	strvec_free(&paths);
	unbuild(&b);
}

/* The roots the macOS server checks its own files against
 * (seatbelt_writable_roots, for a recording's directory) are exactly
 * the subpaths the profile lets the pane write: each golden's allows,
 * no more and no fewer. */
static void test_writable_roots(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof goldens / sizeof goldens[0]; c++) {
		const struct golden *g = &goldens[c];
		struct built *b = malloc(sizeof *b);
		struct strvec roots = STRVEC_INIT;
		struct sm_error err = {{0}, {0}};
		char *text = NULL, rule[PATH_MAX + 64];
		size_t allows = 0;

		assert_non_null(b);
		build(g, b);
		if (seatbelt_build_profile(&b->in, &text, &err) != 0)
			fail_msg("%s: %s: %s", g->name, err.code, err.message);
		assert_int_equal(seatbelt_writable_roots(&b->in, &roots, &err), 0);
		for (size_t i = 0; i < roots.n; i++) {
			/* A path SBPL must escape is found by the count below. */
			if (strpbrk(roots.v[i], "\"\\\n\t\x01") != NULL)
				continue;
			snprintf(rule, sizeof rule, "\n(allow file-write* (subpath \"%s\"))\n",
				 roots.v[i]);
			if (strstr(text, rule) == NULL)
				fail_msg("%s: root %s is not an allowed write", g->name,
					 roots.v[i]);
		}
		for (const char *at = text;
		     (at = strstr(at, "(allow file-write* (subpath \"")) != NULL; at++)
			allows++;
		/* /dev/fd is the one subpath allow that is not a root. */
		if (allows != roots.n + 1)
			fail_msg("%s: %zu subpath allows, %zu roots", g->name, allows, roots.n);
		free(text);
		strvec_free(&roots);
		unbuild(b);
		free(b);
	}
}

/* Does SBPL text hold this rule line?  "@G@" in it is the linked
 * worktree's git directory, "@C@" its common directory; "@g@" and "@c@"
 * the same as a regex in an SBPL string ('.' as "\\\\."; the tree's
 * own path has no other regex character). */
static bool has_rule(const char *text, const char *rule)
{
	char want[PATH_MAX * 4];
	const char *g = expand("@T@/repo/.git/worktrees/linked"), *c = expand("@T@/repo/.git");
	size_t n = 0;

	want[n++] = '\n';
	for (const char *r = rule; *r != '\0' && n + PATH_MAX * 2 < sizeof want;) {
		if (r[0] != '@' || strchr("GCgc", r[1]) == NULL || r[1] == '\0' || r[2] != '@') {
			want[n++] = *r++;
			continue;
		}
		for (const char *p = r[1] == 'G' || r[1] == 'g' ? g : c; *p != '\0'; p++) {
			if (*p == '.' && (r[1] == 'g' || r[1] == 'c'))
				want[n++] = '\\', want[n++] = '\\';
			want[n++] = *p;
		}
		r += 3;
	}
	want[n++] = '\n';
	want[n] = '\0';
	return strstr(text, want) != NULL;
}

/* A linked work tree made by `git worktree add`: its .git is a file
 * naming the worktree's git directory outside it, whose commondir is
 * the main repository's.  workspace_write lets everyday git write their
 * everyday parts (the index, HEAD, objects, refs, lock files) and
 * delete there, and nothing else of them (config, hooks, commondir). */
static void test_linked_worktree(void **state)
{
	static const char *const present[] = {
	    "(allow file-write* (literal \"@G@/HEAD\"))",
	    "(allow file-write* (literal \"@G@/HEAD.lock\"))",
	    "(allow file-write* (literal \"@G@/index\"))",
	    "(allow file-write* (literal \"@G@/index.lock\"))",
	    "(allow file-write* (literal \"@G@/gitdir\"))",
	    "(allow file-write* (subpath \"@G@/logs\"))",
	    "(allow file-write* (regex \"^@g@/[^/]*_HEAD(\\\\.lock)?$\"))",
	    "(allow file-write* (subpath \"@C@/objects\"))",
	    "(allow file-write* (subpath \"@C@/refs\"))",
	    "(allow file-write* (literal \"@C@/packed-refs.lock\"))",
	    "(allow file-write* (regex \"^@c@/index\\\\.stash\\\\.[^/]*$\"))",
	    "(allow file-write-unlink (literal \"@G@/index.lock\"))",
	    "(allow file-write-unlink (subpath \"@C@/refs\"))",
	    "(deny process-exec (with message \"sandmux:7\") (subpath \"@G@\"))",
	    "(deny process-exec (with message \"sandmux:7\") (subpath \"@C@\"))",
	};
	static const char *const absent[] = {
	    "(allow file-write* (literal \"@G@/commondir\"))",
	    "(allow file-write* (literal \"@C@/gitdir\"))",
	    "(allow file-write* (literal \"@C@/config\"))",
	    "(allow file-write* (literal \"@C@/config.lock\"))",
	    "(allow file-write* (subpath \"@C@/hooks\"))",
	    "(allow file-write* (subpath \"@C@\"))",
	    "(allow file-write* (subpath \"@G@\"))",
	};
	struct golden g = {.name = "linked worktree", .preset = "workspace_write",
			   .cwd = "@T@/linked", .session_tmp = "@T@/state"};
	struct built b;
	struct sm_error err = {{0}, {0}};
	char *text = NULL, why[512], cmd[PATH_MAX * 2];
	const char *bad;
	struct strvec roots = STRVEC_INIT;

	(void)state;
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && git init -q repo && git -C repo -c user.name=t -c user.email=t@t "
		 "commit -q --allow-empty -m x && git -C repo worktree add -q ../linked 2>/dev/null",
		 tree);
	assert_int_equal(system(cmd), 0);
	build(&g, &b);
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
		if (!has_rule(text, present[i]))
			fail_msg("linked worktree: no %s in:\n%s", present[i], text);
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		if (has_rule(text, absent[i]))
			fail_msg("linked worktree: %s", absent[i]);
	if ((bad = sbpl_check(text, why, sizeof why)) != NULL)
		fail_msg("linked worktree: the reader refuses it: %s", bad);
	/* The recording check knows the everyday directories too. */
	assert_int_equal(seatbelt_writable_roots(&b.in, &roots, &err), 0);
	assert_true(strvec_contains(&roots, expand("@T@/repo/.git/objects")));
	assert_true(strvec_contains(&roots, expand("@T@/repo/.git/worktrees/linked/logs")));
	strvec_free(&roots);
	free(text);
	unbuild(&b);
	/* A mode other than chat writes no work tree, nor its git. */
	g.preset = "read_only";
	build(&g, &b);
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	assert_false(has_rule(text, present[0]));
	free(text);
	unbuild(&b);
}

static void make(const char *kind, const char *path, const char *target);

/* The profile's exec_interpreters and unix_sockets: escaped as every
 * string, spelled as every path (/var -> /private/var), symlinks
 * resolved; the sockets only with a proxied network, where everything
 * else is denied. */
static void test_profile_lists(void **state)
{
	static const char *const present[] = {
	    "(allow process-exec (literal \"@T@/work/py\\\"3\"))",
	    "(allow process-exec (literal \"@T@/worklink/bin/python\"))",
	    "(allow process-exec (literal \"@T@/work/bin/python\"))",
	    /* ... and unwritable, so the pane cannot put its own there */
	    "(deny file-write* (with message \"sandmux:7\") (literal \"@T@/work/bin/python\"))",
	    "(deny file-write* (with message \"sandmux:7\") (literal \"@T@/worklink/bin/python\"))",
	    "(allow network-outbound (remote unix-socket (path-literal \"/var/run/a\\\"b.sock\")))",
	    "(allow network-outbound (remote unix-socket (path-literal "
	    "\"/private/var/run/a\\\"b.sock\")))",
	};
	struct golden g = {.name = "profile lists",
			   .proxied = true,
			   .ports = {3128},
			   .interpreters = {"@T@/work/py\"3", "@T@/worklink/bin/python"},
			   .unix_sockets = {"/var/run/a\"b.sock"}};
	struct built b;
	struct sm_error err = {{0}, {0}};
	char *text = NULL, why[512], line[PATH_MAX * 2];
	const char *bad;

	(void)state;
	make("dir", "@T@/work/bin", NULL);
	make("file", "@T@/work/bin/python", NULL);
	build(&g, &b);
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
		snprintf(line, sizeof line, "\n%s\n", expand(present[i]));
		if (strstr(text, line) == NULL)
			fail_msg("profile lists: no %s in:\n%s", present[i], text);
	}
	if ((bad = sbpl_check(text, why, sizeof why)) != NULL)
		fail_msg("profile lists: the reader refuses it: %s", bad);
	free(text);
	unbuild(&b);
	/* Open network: nothing to allow a socket past. */
	g.proxied = false;
	build(&g, &b);
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	assert_null(strstr(text, "unix-socket (path-literal \"/var/run/a"));
	free(text);
	unbuild(&b);
}

/* Input that cannot be represented is an error with a code, never a
 * rule dropped. */
static void test_refusals(void **state)
{
	static const struct {
		const char *name, *writable, *cwd, *message;
		int port;
	} cases[] = {
	    {"a relative writable root", "work/sub", NULL, "writable root must be an absolute path",
	     0},
	    {"a relative working directory", NULL, "work", "must be absolute", 0},
	    {"a proxy port out of range", NULL, NULL, "proxy port 70000", 70000},
	    {"full_access, which is no sandbox", NULL, NULL, "not a sandbox", 0},
	};
	char longpath[PATH_MAX + 8];

	(void)state;
	memset(longpath, 'a', sizeof longpath - 1);
	longpath[0] = '/';
	longpath[sizeof longpath - 1] = '\0';
	for (size_t i = 0; i < sizeof cases / sizeof cases[0] + 1; i++) {
		bool too_long = i == sizeof cases / sizeof cases[0];
		struct golden g = {.name = "refusal", .proxied = true};
		struct built b;
		struct sm_error err = {{0}, {0}};
		char *text = NULL;
		const char *message = too_long ? "at most" : cases[i].message;

		if (!too_long) {
			g.writable[0] = cases[i].writable;
			g.ports[0] = cases[i].port;
			g.preset = strstr(cases[i].name, "full_access") != NULL ? "full_access" : NULL;
		}
		build(&g, &b);
		if (too_long)
			assert_int_equal(strvec_push(&b.prof.writable, longpath), 0);
		else if (cases[i].cwd != NULL)
			b.in.cwd = cases[i].cwd;
		assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), -1);
		assert_null(text);
		assert_string_equal(err.code, "launch_failed");
		if (strstr(err.message, message) == NULL)
			fail_msg("%s: message \"%s\" lacks \"%s\"",
				 too_long ? "a path too long" : cases[i].name, err.message,
				 message);
		unbuild(&b);
	}
}

/* The reader fails what it must: the generator's own output, each time
 * with one thing broken. */
static __attribute__((noinline)) char *golden_text(size_t index)
{
	struct built b;
	struct sm_error err = {{0}, {0}};
	char *text = NULL;

	build(&goldens[index], &b);
	assert_int_equal(seatbelt_build_profile(&b.in, &text, &err), 0);
	unbuild(&b);
	return text;
}

/* Move the line starting with `line` to just before the line starting
 * with `before`. */
static __attribute__((noinline)) char *move_line(const char *text, const char *line,
						 const char *before)
{
	const char *from = strstr(text, line), *to = strstr(text, before), *end;
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(from);
	assert_non_null(to);
	assert_true(to < from);
	end = strchr(from, '\n') + 1;
	memcpy(o, text, (size_t)(to - text));
	o += to - text;
	memcpy(o, from, (size_t)(end - from));
	o += end - from;
	memcpy(o, to, (size_t)(from - to));
	o += from - to;
	strcpy(o, end);
	return out;
}

static char *replace(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	char *out = malloc(strlen(text) + strlen(new) + 1);

	assert_non_null(at);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), new);
	strcat(out, at + strlen(old));
	return out;
}

static void expect_refused(const char *what, const char *text, const char *reason)
{
	char why[512];
	const char *bad = sbpl_check(text, why, sizeof why);

	if (bad == NULL)
		fail_msg("%s: the reader passed it", what);
	if (strstr(bad, reason) == NULL)
		fail_msg("%s: refused for \"%s\", not \"%s\"", what, bad, reason);
	print_message("mutation refused: %s: %s\n", what, bad);
}

static void test_reader_mutations(void **state)
{
	char *text = golden_text(0), *m, deny[PATH_MAX + 128], allow[PATH_MAX + 64];
	char why[512];

	(void)state;
	assert_null(sbpl_check(text, why, sizeof why));
	/* A mandatory deny moved before the allow it must override. */
	snprintf(deny, sizeof deny, "(deny file-write* (with message \"sandmux:7\") (literal \"%s",
		 expand("@T@/home/.bashrc"));
	snprintf(allow, sizeof allow, "(allow file-write* (subpath \"%s\"))", expand("@T@/home"));
	m = move_line(text, deny, allow);
	expect_refused("deny before allow", m, "must come after every allow");
	free(m);
	/* The unlink deny of an ancestor dropped. */
	snprintf(deny, sizeof deny,
		 "(deny file-write-unlink (with message \"sandmux:7\") (literal \"%s\"))\n",
		 expand("@T@/home/.config"));
	m = replace(text, deny, "");
	expect_refused("an ancestor without unlink deny", m, "has no unlink deny");
	free(m);
	m = replace(text, "(allow default)", "(allow default");
	expect_refused("unbalanced parentheses", m, "unbalanced");
	free(m);
	m = replace(text, "(version 1)\n(allow default)\n", "(version 1)\n(allow default)\n)\n");
	expect_refused("a stray closing parenthesis", m, "unbalanced");
	free(m);
	m = replace(text, "/dev/null\"", "/dev/\\qnull\"");
	expect_refused("an unknown string escape", m, "unknown escape");
	free(m);
	m = replace(text, "/dev/null\"", "/dev/\nnull\"");
	expect_refused("a raw newline in a string", m, "raw control character");
	free(m);
	m = replace(text, "(allow default)\n", "(allow default)\n(allow mach-lookup)\n");
	expect_refused("an operation never emitted", m, "never emits: mach-lookup");
	free(m);
	m = replace(text, " (with message \"sandmux:7\") (subpath \"/run/systemd/private\")",
		    " (subpath \"/run/systemd/private\")");
	expect_refused("a deny without its tag", m, "without (with message");
	free(m);
	m = replace(text, "(literal \"/dev/null\")", "(regex \"^/dev/(null$\")");
	expect_refused("a regex that does not compile", m, "does not compile");
	free(m);
	free(text);
}

static void make(const char *kind, const char *path, const char *target)
{
	const char *full = expand(path);

	if (strcmp(kind, "dir") == 0)
		assert_int_equal(mkdir(full, 0755), 0);
	else if (strcmp(kind, "link") == 0)
		assert_int_equal(symlink(expand(target), full), 0);
	else {
		FILE *f = fopen(full, "w");

		assert_non_null(f);
		fclose(f);
	}
}

/* The tree goes where its path needs no spelling and no escaping: the
 * first base of these that allows it. */
static int setup(void **state)
{
	const char *bases[] = {".", getenv("HOME"), "/dev/shm", "/run/user"};
	char dir[PATH_MAX];

	(void)state;
	tree[0] = '\0';
	for (size_t i = 0; i < sizeof bases / sizeof bases[0] && tree[0] == '\0'; i++) {
		if (bases[i] == NULL ||
		    snprintf(dir, sizeof dir, "%s/sandmux-seatbelt-XXXXXX", bases[i]) >=
			(int)sizeof dir ||
		    mkdtemp(dir) == NULL)
			continue;
		if (realpath(dir, tree) == NULL ||
		    strspn(tree,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_-") !=
			strlen(tree) ||
		    strncmp(tree, "/tmp/", 5) == 0 || strncmp(tree, "/var/", 5) == 0 ||
		    strncmp(tree, "/etc/", 5) == 0 || strncmp(tree, "/private/", 9) == 0) {
			rmdir(dir);
			tree[0] = '\0';
		}
	}
	if (tree[0] == '\0')
		return -1;
	make("dir", "@T@/home", NULL);
	make("file", "@T@/home/.bashrc", NULL);
	make("dir", "@T@/home/.config", NULL);
	make("dir", "@T@/home/.config/fish", NULL);
	make("dir", "@T@/keys", NULL);
	make("link", "@T@/home/.ssh", "@T@/keys");
	make("dir", "@T@/work", NULL);
	make("dir", "@T@/extra", NULL);
	make("dir", "@T@/state", NULL);
	make("dir", "@T@/grant", NULL);
	make("dir", "@T@/checkout", NULL);
	make("file", "@T@/checkout/notes", NULL);
	make("link", "@T@/worklink", "@T@/work");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 32];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_goldens),
	    cmocka_unit_test(test_hostrun),
	    cmocka_unit_test(test_writable_roots),
	    cmocka_unit_test(test_linked_worktree),
	    cmocka_unit_test(test_profile_lists),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_reader_mutations),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
