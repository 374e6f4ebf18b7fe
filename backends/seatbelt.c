/*
 * seatbelt: the SBPL profile of a native macOS sandbox (seatbelt.h).
 *
 * Seatbelt reads a profile top to bottom and, for each operation, the
 * last rule that matches decides.  The profile is built in that light:
 *
 *   1. base: (version 1) (allow default).  A deny-by-default profile
 *      leaves an interactive shell unusable (dyld, XPC, Mach lookups),
 *      so everything the pane must not do is carved out below;
 *   2. reads: the deny-read roots (bwrap.c's defaults and the profile's);
 *   3. writes: reset to deny, then allowed under each writable root
 *      and in the everyday parts of a linked work tree's git
 *      directories (gitdir.h);
 *   4. mandatory denies, after every allow they override so they hold
 *      inside a writable root: the deny-read roots again (for writes),
 *      protected paths, the named interpreters, the host-run paths of
 *      hostrun.c and its component runs (".git/hooks") at any depth of
 *      each root;
 *   5. unlink: every ancestor of a denied path, so renaming a parent
 *      away cannot move the denied path out from under its rule;
 *   6. exec: nothing under a writable root, except the exec grants and
 *      the named interpreters; never the always-dangerous binaries;
 *   7. network: open, proxied (the session's proxies and DNS only), or
 *      none.
 *
 * Spellings.  Seatbelt matches the path the kernel resolved, so every
 * path is emitted as written and resolved: through macos_spellings[]
 * (macOS's fixed symlinks, which do not exist on the Linux host that
 * runs the tests) and through realpath for the host's real symlinks.
 * A path that does not resolve is kept as written.  A path with '*' or
 * '?' is a glob and becomes a regex in which every other character
 * stands for itself: a '[' or '.' in a path is escaped, never a regex
 * operator (SRT issue 576: a literal "[..]" voided a deny).
 *
 * Every deny carries (with message "sandmux:PANE") so a violation in the
 * system log can be attributed to its pane.  Strings are escaped for
 * SBPL's reader; a path that cannot be represented is an error.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bwrap.h"
#include "error.h"
#include "gitdir.h"
#include "hostrun.h"
#include "profile.h"
#include "sandbox.h"
#include "seatbelt.h"
#include "strvec.h"
#include "xalloc.h"

/* macOS's top-level symlinks: the kernel reports /private/..., so a rule
 * written only as /tmp/... would never match. */
static const struct {
	const char *written, *resolved;
} macos_spellings[] = {
    {"/tmp", "/private/tmp"},
    {"/var", "/private/var"}, /* /var/folders: the per-user TMPDIR */
    {"/etc", "/private/etc"},
};

/* The binaries no pane may run, whatever its profile. */
static const char *const seatbelt_exec_denied[] = {
    /* Threat: AppleScript drives other applications (Terminal, Finder)
     * through Apple Events, which run outside the sandbox. */
    "/usr/bin/osascript",
    /* Threat: LaunchServices starts the application or handler a file
     * names, outside the sandbox. */
    "/usr/bin/open",
    /* Threat: launchd runs a submitted job outside the sandbox, now or
     * at the next login. */
    "/bin/launchctl",
    /* Threat: reads keychain items and certificates the deny-read
     * roots do not cover (the login keychain through securityd). */
    "/usr/bin/security",
    NULL,
};

/* Where the resolver sends DNS queries; the proxied network allows it. */
#define SEATBELT_DNS_SOCKET "/private/var/run/mDNSResponder"

/* A growing string; nomem sticks once set. */
struct dstr {
	char *s;
	size_t n, cap;
	bool nomem;
};

static void dstr_addn(struct dstr *d, const char *s, size_t n)
{
	if (d->nomem)
		return;
	if (d->n + n + 1 > d->cap) {
		size_t cap = (d->n + n + 1) * 2;
		d->s = xrealloc(d->s, cap);
		d->cap = cap;
	}
	memcpy(d->s + d->n, s, n);
	d->n += n;
	d->s[d->n] = '\0';
}

static void dstr_add(struct dstr *d, const char *s)
{
	dstr_addn(d, s, strlen(s));
}

/* One profile being built. */
struct sb {
	const struct seatbelt_input *in;
	struct sm_error *err;
	bool failed;
	char tag[32];	     /* "sandmux:PANE" */
	struct dstr text;    /* the profile */
	struct strvec lines; /* emitted rules, so none is written twice */
	struct strvec roots; /* writable roots, every spelling */
	/* A linked work tree's git directories outside it (its gitfile's
	 * target, that one's commondir), every spelling: the worktree
	 * shaped ones and the repository shaped ones. */
	struct strvec git_worktree, git_repository;
	struct strvec ancestors; /* unlink-denied ancestors, in order */
	struct strvec unlink_regexes;
};

static void sb_nomem(struct sb *sb)
{
	if (!sb->failed)
		sm_error_set(sb->err, SM_ERR_OUT_OF_MEMORY, "out of memory");
	sb->failed = true;
}

/* s as an SBPL string literal: quotes and backslashes escaped, control
 * characters as \n, \t, \r or \xHH (the reader's escapes). */
static void sbpl_string(struct dstr *d, const char *s)
{
	dstr_add(d, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		char esc[8];

		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof esc, "\\%c", *p);
		else if (*p == '\n')
			strcpy(esc, "\\n");
		else if (*p == '\t')
			strcpy(esc, "\\t");
		else if (*p == '\r')
			strcpy(esc, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(esc, sizeof esc, "\\x%02x", *p);
		else {
			esc[0] = (char)*p;
			esc[1] = '\0';
		}
		dstr_add(d, esc);
	}
	dstr_add(d, "\"");
}

/* Characters with a meaning in a POSIX extended regex, which Seatbelt's
 * regex filter uses; each stands for itself once escaped. */
static void regex_literal(struct dstr *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strchr(".[]{}()\\*+?^$|", s[i]) != NULL)
			dstr_add(d, "\\");
		dstr_addn(d, s + i, 1);
	}
}

/* A glob as an anchored regex: '*' any run of a name, '?' one character
 * of it, everything else literal; it matches the path and what lies
 * below it, as a subpath does. */
static void glob_regex(struct dstr *d, const char *glob)
{
	dstr_add(d, "^");
	for (const char *p = glob; *p != '\0'; p++) {
		if (*p == '*')
			dstr_add(d, "[^/]*");
		else if (*p == '?')
			dstr_add(d, "[^/]");
		else
			regex_literal(d, p, 1);
	}
	dstr_add(d, "(/.*)?$");
}

/* Push path and its macOS spelling onto out, skipping known ones. */
static int push_spelled(struct strvec *out, const char *path)
{
	if (!strvec_contains(out, path) && strvec_push(out, path) != 0)
		return -1;
	for (size_t i = 0; i < sizeof macos_spellings / sizeof macos_spellings[0]; i++) {
		size_t n = strlen(macos_spellings[i].written);
		char mapped[PATH_MAX + 16];

		if (strncmp(path, macos_spellings[i].written, n) != 0 ||
		    (path[n] != '\0' && path[n] != '/'))
			continue;
		snprintf(mapped, sizeof mapped, "%s%s", macos_spellings[i].resolved, path + n);
		if (!strvec_contains(out, mapped) && strvec_push(out, mapped) != 0)
			return -1;
	}
	return 0;
}

/* Every spelling of an absolute path: as written, through the macOS
 * table, resolved by realpath (for a glob: its directory part before
 * the first glob character), and that through the table.  Without
 * resolve, the table alone: macOS's own system paths, which are no
 * symlinks there, whatever the host running the tests has. */
static int spellings(const char *path, bool resolve, struct strvec *out)
{
	char resolved[PATH_MAX], dir[PATH_MAX], joined[PATH_MAX * 2];
	const char *glob = strpbrk(path, "*?");

	if (push_spelled(out, path) != 0)
		return -1;
	if (!resolve)
		return 0;
	if (glob == NULL)
		return realpath(path, resolved) != NULL ? push_spelled(out, resolved) : 0;
	while (glob > path && glob[-1] != '/')
		glob--;
	if (glob - path <= 1 || (size_t)(glob - path) >= sizeof dir)
		return 0;
	memcpy(dir, path, (size_t)(glob - path - 1));
	dir[glob - path - 1] = '\0';
	if (realpath(dir, resolved) == NULL)
		return 0;
	snprintf(joined, sizeof joined, "%s%s%s", resolved, strcmp(resolved, "/") == 0 ? "" : "/",
		 glob);
	return push_spelled(out, joined);
}

/* "~/" expanded; an error for what is not an absolute path or is too
 * long to name a file. */
static char *expand(struct sb *sb, const char *what, const char *path)
{
	char *out = sandbox_expand_home(path, sb->in->home);

	if (out == NULL) {
		sb_nomem(sb);
		return NULL;
	}
	if (out[0] != '/' || strlen(out) >= PATH_MAX) {
		if (!sb->failed)
			sm_error_set(
			    sb->err, SM_ERR_LAUNCH_FAILED,
			    "seatbelt: a %s must be an absolute path of at most %d bytes: \"%s\"",
			    what, PATH_MAX - 1, path);
		sb->failed = true;
		free(out);
		return NULL;
	}
	return out;
}

static void emit_line(struct sb *sb, const struct dstr *line)
{
	if (line->nomem) {
		sb_nomem(sb);
		return;
	}
	if (strvec_contains(&sb->lines, line->s))
		return;
	if (strvec_push(&sb->lines, line->s) != 0) {
		sb_nomem(sb);
		return;
	}
	dstr_add(&sb->text, line->s);
	dstr_add(&sb->text, "\n");
}

static void emit_raw(struct sb *sb, const char *text)
{
	dstr_add(&sb->text, text);
}

/* How a path is matched. */
enum filter { F_LITERAL, F_SUBPATH, F_AUTO, F_REGEX, F_UNIX_SOCKET };

/* "(ACTION OP [with message] FILTER)" for one spelling. */
static void emit_rule(struct sb *sb, bool deny, const char *op, enum filter f, const char *arg)
{
	struct dstr line = {0};
	struct stat st;

	dstr_add(&line, deny ? "(deny " : "(allow ");
	dstr_add(&line, op);
	if (deny) {
		dstr_add(&line, " (with message ");
		sbpl_string(&line, sb->tag);
		dstr_add(&line, ")");
	}
	if (arg != NULL && f == F_AUTO) /* files literal, directories (or none yet) subpath */
		f = stat(arg, &st) == 0 && !S_ISDIR(st.st_mode) ? F_LITERAL : F_SUBPATH;
	if (arg != NULL && f != F_UNIX_SOCKET && f != F_REGEX && sandbox_path_is_glob(arg)) {
		struct dstr re = {0};

		glob_regex(&re, arg);
		dstr_add(&line, " (regex ");
		sbpl_string(&line, re.nomem ? "" : re.s);
		line.nomem |= re.nomem;
		dstr_add(&line, ")");
		free(re.s);
	} else if (arg != NULL) {
		static const char *const names[] = {"literal", "subpath", "", "regex", ""};

		if (f == F_UNIX_SOCKET)
			dstr_add(&line, " (remote unix-socket (path-literal ");
		else {
			dstr_add(&line, " (");
			dstr_add(&line, names[f]);
			dstr_add(&line, " ");
		}
		sbpl_string(&line, arg);
		dstr_add(&line, f == F_UNIX_SOCKET ? "))" : ")");
	}
	dstr_add(&line, ")");
	emit_line(sb, &line);
	free(line.s);
}

/* Push path's proper ancestors (for a glob: from the directory before
 * its first glob character up) onto the unlink list. */
static void push_ancestors(struct sb *sb, const char *path)
{
	char dir[PATH_MAX];
	const char *glob = strpbrk(path, "*?");
	size_t n = glob != NULL ? (size_t)(glob - path) : strlen(path);
	char *slash;

	if (n >= sizeof dir)
		return;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir ? 1 : 0] = '\0';
	if (strcmp(dir, path) == 0)
		return; /* "/" has none */
	for (;;) {
		if (!strvec_contains(&sb->ancestors, dir) &&
		    strvec_push(&sb->ancestors, dir) != 0) {
			sb_nomem(sb);
			return;
		}
		if (strcmp(dir, "/") == 0 || (slash = strrchr(dir, '/')) == NULL)
			return;
		slash[slash == dir ? 1 : 0] = '\0';
	}
}

/* Each entry of a list, "~/" expanded, in every spelling, as one rule;
 * denied ones' ancestors join the unlink list. */
static void rule_paths(struct sb *sb, bool deny, const char *op, enum filter f, const char *what,
		       const char *const *paths, size_t n, bool resolve)
{
	for (size_t i = 0; i < n && paths[i] != NULL && !sb->failed; i++) {
		struct strvec sp = STRVEC_INIT;
		char *path = expand(sb, what, paths[i]);

		if (path == NULL)
			return;
		if (spellings(path, resolve, &sp) != 0)
			sb_nomem(sb);
		for (size_t j = 0; j < sp.n && !sb->failed; j++) {
			emit_rule(sb, deny, op, f, sp.v[j]);
			if (deny)
				push_ancestors(sb, sp.v[j]);
		}
		strvec_free(&sp);
		free(path);
	}
}

#define ALL ((size_t)-1)

static bool mode_chat(const struct seatbelt_input *in)
{
	return in->profile->mode == SANDBOX_MODE_CHAT &&
	       (in->spec == NULL || in->spec->mode == SANDBOX_MODE_CHAT);
}

/* A linked work tree (its ".git" a file, "gitdir: PATH", as git
 * worktree add, --separate-git-dir and submodules write it): git keeps
 * its metadata outside the work tree, in PATH and, for a worktree, in
 * PATH's commondir.  Everyday git in the pane writes there, so their
 * everyday parts (gitdir_everyday_entries) are allowed and nothing
 * else: hooks, config and commondir stay as they are.  Only a directory
 * with a git directory's shape counts, as git itself requires. */
static void collect_linked_git(struct sb *sb)
{
	char gitdir[PATH_MAX], common[PATH_MAX];
	enum gitdir_shape shape = gitdir_linked(sb->in->cwd, gitdir, common);
	int rc = 0;

	if (shape == GITDIR_REPOSITORY)
		rc = spellings(gitdir, false, &sb->git_repository);
	if (shape == GITDIR_WORKTREE) {
		rc = spellings(gitdir, false, &sb->git_worktree);
		if (rc == 0 && common[0] != '\0')
			rc = spellings(common, false, &sb->git_repository);
	}
	if (rc != 0)
		sb_nomem(sb);
}

/* One entry of a linked git directory as a rule: a tree as subpath, a
 * file as literal (and its lock), a name pattern as an anchored regex. */
static void git_entry_rule(struct sb *sb, bool deny, const char *op, const char *dir,
			   const struct gitdir_entry *e)
{
	struct dstr at = {0};
	bool pattern = e->match == GITDIR_MATCH_SUFFIX || e->match == GITDIR_MATCH_PREFIX;

	if (pattern) {
		dstr_add(&at, "^");
		regex_literal(&at, dir, strlen(dir));
		dstr_add(&at, "/");
		if (e->match == GITDIR_MATCH_SUFFIX)
			dstr_add(&at, "[^/]*");
		regex_literal(&at, e->path, strlen(e->path));
		dstr_add(&at, e->match == GITDIR_MATCH_SUFFIX ? "(\\.lock)?$" : "[^/]*$");
	} else {
		dstr_add(&at, dir);
		dstr_add(&at, "/");
		dstr_add(&at, e->path);
	}
	if (at.nomem)
		sb_nomem(sb);
	else if (pattern)
		emit_rule(sb, deny, op, F_REGEX, at.s);
	else
		emit_rule(sb, deny, op, e->match == GITDIR_MATCH_TREE ? F_SUBPATH : F_LITERAL,
			  at.s);
	if (e->match == GITDIR_MATCH_FILE && !sb->failed) {
		dstr_add(&at, ".lock");
		if (at.nomem)
			sb_nomem(sb);
		else
			emit_rule(sb, deny, op, F_LITERAL, at.s);
	}
	free(at.s);
}

/* One rule per everyday entry of each linked git directory. */
static void emit_git(struct sb *sb, bool deny, const char *op)
{
	const struct strvec *dirs[] = {&sb->git_worktree, &sb->git_repository};
	const enum gitdir_shape shapes[] = {GITDIR_WORKTREE, GITDIR_REPOSITORY};

	for (size_t d = 0; d < 2; d++)
		for (size_t i = 0; i < dirs[d]->n && !sb->failed; i++)
			for (const struct gitdir_entry *e = gitdir_everyday_entries(shapes[d]);
			     e->path != NULL && !sb->failed; e++)
				git_entry_rule(sb, deny, op, dirs[d]->v[i], e);
}

/* Every writable root, expanded and spelled, onto sb->roots. */
static void collect_roots(struct sb *sb)
{
	const struct seatbelt_input *in = sb->in;
	const struct sandbox_profile *prof = in->profile;
	const struct sandbox_spec *spec = in->spec;
	struct strvec roots = STRVEC_INIT;
	bool chat = mode_chat(in);
	int rc = 0;

	/* Mode chat: $HOME (when the profile says so), the working
	 * directory, the profile's roots and the spec's writable binds. */
	if (chat && prof->home_writable)
		rc |= strvec_push(&roots, in->home);
	if (chat)
		rc |= strvec_push(&roots, in->cwd);
	for (size_t i = 0; chat && i < prof->writable.n; i++)
		rc |= strvec_push(&roots, prof->writable.v[i]);
	for (size_t i = 0; chat && spec != NULL && i < spec->nbind_mounts; i++)
		if (!spec->bind_mounts[i].read_only)
			rc |= strvec_push(&roots, spec->bind_mounts[i].host_path);
	/* Every mode: state dirs, runner state dirs, the session temp. */
	for (size_t i = 0; i < prof->state_dirs.n; i++)
		rc |= strvec_push(&roots, prof->state_dirs.v[i]);
	for (size_t i = 0; spec != NULL && i < spec->nrunner_state_dirs; i++)
		rc |= strvec_push(&roots, spec->runner_state_dirs[i]);
	if (in->session_tmp != NULL)
		rc |= strvec_push(&roots, in->session_tmp);
	/* The user's trash (macOS keeps it at ~/.Trash), where the pane's
	 * rm moves files (profile.h, trash). */
	if (chat && prof->trash)
		rc |= strvec_push(&roots, "~/.Trash");
	if (rc != 0)
		sb_nomem(sb);
	for (size_t i = 0; i < roots.n && !sb->failed; i++) {
		char *path = expand(sb, "writable root", roots.v[i]);

		if (path != NULL && spellings(path, true, &sb->roots) != 0)
			sb_nomem(sb);
		free(path);
	}
	strvec_free(&roots);
	/* The work tree's git metadata where a gitfile puts it. */
	if (chat && !sb->failed)
		collect_linked_git(sb);
}

/* 2. Reads.  Threat: the pane reading the user's keys and tokens (ssh,
 * cloud, gpg, the GitHub CLI, keychains, and the profile's own). */
static void section_reads(struct sb *sb)
{
	const struct sandbox_profile *prof = sb->in->profile;

	emit_raw(sb, "; reads: the deny-read roots\n");
	rule_paths(sb, true, "file-read*", F_SUBPATH, "deny-read path", bwrap_deny_read_defaults,
		   ALL, true);
	rule_paths(sb, true, "file-read*", F_SUBPATH, "deny-read path",
		   (const char *const *)prof->deny_read.v, prof->deny_read.n, true);
}

/* 3. Writes: nowhere, then under each writable root. */
static void section_writes(struct sb *sb)
{
	/* Not a threat: what a shell writes whatever its profile (a
	 * redirect to /dev/null, its terminal, here-documents' fds). */
	static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/tty",
					      "/dev/dtracehelper", NULL};

	emit_raw(sb, "; writes: nowhere, then each writable root\n");
	emit_rule(sb, true, "file-write*", F_LITERAL, NULL);
	rule_paths(sb, false, "file-write*", F_LITERAL, "device", devices, ALL, false);
	emit_rule(sb, false, "file-write*", F_REGEX, "^/dev/ttys[0-9]+$");
	emit_rule(sb, false, "file-write*", F_SUBPATH, "/dev/fd");
	for (size_t i = 0; i < sb->roots.n && !sb->failed; i++)
		emit_rule(sb, false, "file-write*", F_SUBPATH, sb->roots.v[i]);
	emit_git(sb, false, "file-write*");
}

/* 3b. The delete guard (profile.h, delete_guard).  Threat: a pane that
 * may write the user's files deleting them (an `rm -rf` of the wrong
 * directory): unlinks and renames away only in the work tree, its git
 * directories with it, and the session temp.  Before the mandatory
 * section, whose unlink denies still hold inside these. */
static void section_deletes(struct sb *sb)
{
	const struct seatbelt_input *in = sb->in;
	struct strvec where = STRVEC_INIT;

	if (!in->profile->delete_guard)
		return;
	emit_raw(sb, "; deletes: only in the work tree and the session temp\n");
	emit_rule(sb, true, "file-write-unlink", F_LITERAL, NULL);
	if ((mode_chat(in) && spellings(in->cwd, true, &where) != 0) ||
	    (in->session_tmp != NULL && spellings(in->session_tmp, true, &where) != 0))
		sb_nomem(sb);
	for (size_t i = 0; i < where.n && !sb->failed; i++)
		emit_rule(sb, false, "file-write-unlink", F_SUBPATH, where.v[i]);
	/* git's metadata: lock files renamed into place, a rebase's state
	 * removed when it ends. */
	emit_git(sb, false, "file-write-unlink");
	strvec_free(&where);
}

/* A component run (".git/hooks") at any depth of root, as a regex; its
 * leading components (".git") as unlink regexes. */
static void component_rule(struct sb *sb, const char *root, const char *component)
{
	struct dstr re = {0};
	size_t rn = strlen(root);

	if (rn > 0 && root[rn - 1] == '/')
		rn--;
	for (const char *slash = strchr(component, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		struct dstr up = {0};

		dstr_add(&up, "^");
		regex_literal(&up, root, rn);
		dstr_add(&up, "/(.*/)?");
		regex_literal(&up, component, (size_t)(slash - component));
		dstr_add(&up, "$");
		if (up.nomem || (!strvec_contains(&sb->unlink_regexes, up.s) &&
				 strvec_push(&sb->unlink_regexes, up.s) != 0))
			sb_nomem(sb);
		free(up.s);
	}
	dstr_add(&re, "^");
	regex_literal(&re, root, rn);
	dstr_add(&re, "/(.*/)?");
	regex_literal(&re, component, strlen(component));
	dstr_add(&re, "(/.*)?$");
	if (re.nomem)
		sb_nomem(sb);
	else
		emit_rule(sb, true, "file-write*", F_REGEX, re.s);
	free(re.s);
}

/* 4. Mandatory denies, after the allows so each holds inside a writable
 * root. */
static void section_mandatory(struct sb *sb)
{
	const struct sandbox_profile *prof = sb->in->profile;
	const struct sandbox_spec *spec = sb->in->spec;

	emit_raw(sb, "; mandatory denies: after the allows they override\n");
	/* Threat: renaming or hard-linking a secret out of a deny-read root
	 * into a readable place, or planting files there (ssh keys, config). */
	rule_paths(sb, true, "file-write*", F_SUBPATH, "deny-read path", bwrap_deny_read_defaults,
		   ALL, true);
	rule_paths(sb, true, "file-write*", F_SUBPATH, "deny-read path",
		   (const char *const *)prof->deny_read.v, prof->deny_read.n, true);
	/* Threat: the pane changing a protected checkout or file the user
	 * named, in any mode. */
	rule_paths(sb, true, "file-write*", F_AUTO, "protected path",
		   (const char *const *)prof->protected_paths.v, prof->protected_paths.n, true);
	if (spec != NULL)
		rule_paths(sb, true, "file-write*", F_AUTO, "protected path",
			   (const char *const *)spec->protected_paths, spec->nprotected_paths,
			   true);
	/* Threat: the pane replacing an interpreter the profile lets run
	 * inside a writable root (rule 6) with a binary of its own. */
	rule_paths(sb, true, "file-write*", F_AUTO, "interpreter",
		   (const char *const *)prof->exec_interpreters.v, prof->exec_interpreters.n, true);
	/* Threat: changing what the host runs later (shell rc files, PATH
	 * directories, agent and tool config) or sandmux's own config,
	 * state and binaries: hostrun.c says why for each entry. */
	if (sb->in->host_run != NULL)
		rule_paths(sb, true, "file-write*", F_AUTO, "host-run path", sb->in->host_run, ALL,
			   true);
	/* Threat: git hooks and config, editor and agent project config in
	 * any repository of a writable root, existing or made later. */
	for (size_t r = 0; r < sb->roots.n && !sb->failed; r++) {
		for (size_t i = 0; hostrun_components[i] != NULL; i++)
			component_rule(sb, sb->roots.v[r], hostrun_components[i]);
		for (size_t i = 0; i < prof->write_denies.n; i++)
			component_rule(sb, sb->roots.v[r], prof->write_denies.v[i]);
		/* The root itself and its ancestors: renaming the root away
		 * takes its repositories' hooks with it. */
		if (!strvec_contains(&sb->ancestors, sb->roots.v[r]) &&
		    strvec_push(&sb->ancestors, sb->roots.v[r]) != 0)
			sb_nomem(sb);
		push_ancestors(sb, sb->roots.v[r]);
	}
}

/* 5. Unlink.  Threat: renaming a parent of a denied path (rm -rf ~,
 * mv ~/.config elsewhere) moves the denied file out from under its rule,
 * or puts a new one in its place. */
static void section_unlink(struct sb *sb)
{
	emit_raw(sb, "; unlink: every ancestor of a denied path\n");
	for (size_t i = 0; i < sb->ancestors.n && !sb->failed; i++)
		emit_rule(sb, true, "file-write-unlink", F_LITERAL, sb->ancestors.v[i]);
	for (size_t i = 0; i < sb->unlink_regexes.n && !sb->failed; i++)
		emit_rule(sb, true, "file-write-unlink", F_REGEX, sb->unlink_regexes.v[i]);
}

/* 6. Exec. */
static void section_exec(struct sb *sb)
{
	const struct sandbox_spec *spec = sb->in->spec;

	emit_raw(sb, "; exec: nothing written by the pane, except grants; never the denied "
		     "binaries\n");
	/* Threat: running a binary the pane (or what it downloaded) wrote:
	 * nothing under a writable root runs. */
	for (size_t i = 0; i < sb->roots.n && !sb->failed; i++)
		emit_rule(sb, true, "process-exec", F_SUBPATH, sb->roots.v[i]);
	for (size_t i = 0; i < sb->git_worktree.n && !sb->failed; i++)
		emit_rule(sb, true, "process-exec", F_SUBPATH, sb->git_worktree.v[i]);
	for (size_t i = 0; i < sb->git_repository.n && !sb->failed; i++)
		emit_rule(sb, true, "process-exec", F_SUBPATH, sb->git_repository.v[i]);
	if (spec != NULL)
		rule_paths(sb, false, "process-exec", F_SUBPATH, "exec grant root",
			   (const char *const *)spec->exec_grant_roots, spec->nexec_grant_roots,
			   true);
	/* Not a threat: an interpreter the profile names (a venv's python
	 * inside the work tree) runs, as any file of a grant root does;
	 * what it runs is a script it reads, which the pane could feed any
	 * interpreter outside the roots anyway. */
	rule_paths(sb, false, "process-exec", F_LITERAL, "interpreter",
		   (const char *const *)sb->in->profile->exec_interpreters.v,
		   sb->in->profile->exec_interpreters.n, true);
	/* Last, so no grant reaches them (seatbelt_exec_denied says why). */
	rule_paths(sb, true, "process-exec", F_LITERAL, "denied binary", seatbelt_exec_denied, ALL,
		   false);
}

/* 7. Network. */
static void section_network(struct sb *sb)
{
	const struct seatbelt_input *in = sb->in;
	char port[40];

	if (in->spec != NULL && !in->spec->network_enabled) {
		emit_raw(sb, "; network: none\n");
		/* Threat: any connection from a pane asked to have none. */
		emit_rule(sb, true, "network*", F_LITERAL, NULL);
		return;
	}
	if (!in->profile->proxied_network && !in->profile->ask_network) {
		emit_raw(sb, "; network: open\n");
		return;
	}
	emit_raw(sb, "; network: the session's proxies on localhost, and DNS\n");
	/* Threat: exfiltration past the egress allowlist, and services on
	 * loopback (no blanket localhost, no Unix socket not named). */
	emit_rule(sb, true, "network*", F_LITERAL, NULL);
	for (size_t i = 0; i < in->nproxy_ports && !sb->failed; i++) {
		struct dstr line = {0};

		if (in->proxy_ports[i] < 1 || in->proxy_ports[i] > 65535) {
			sm_error_set(sb->err, SM_ERR_LAUNCH_FAILED,
				     "seatbelt: proxy port %d out of range", in->proxy_ports[i]);
			sb->failed = true;
			return;
		}
		snprintf(port, sizeof port, "localhost:%d", in->proxy_ports[i]);
		dstr_add(&line, "(allow network-outbound (remote ip ");
		sbpl_string(&line, port);
		dstr_add(&line, "))");
		emit_line(sb, &line);
		free(line.s);
	}
	emit_rule(sb, false, "network-outbound", F_UNIX_SOCKET, SEATBELT_DNS_SOCKET);
	/* Each socket the profile names (unix_sockets), and no other: a
	 * host service's socket (docker's, an agent's) is a way out of
	 * the sandbox the person must have asked for. */
	rule_paths(sb, false, "network-outbound", F_UNIX_SOCKET, "Unix socket",
		   (const char *const *)in->profile->unix_sockets.v, in->profile->unix_sockets.n,
		   true);
}

/* The everyday directories (objects, refs, ...) of the linked git
 * directories dirs, of that shape, onto out. */
static void git_trees(struct sb *sb, const struct strvec *dirs, enum gitdir_shape shape,
		      struct strvec *out)
{
	char path[PATH_MAX * 2];

	for (size_t i = 0; i < dirs->n && !sb->failed; i++)
		for (const struct gitdir_entry *e = gitdir_everyday_entries(shape); e->path != NULL;
		     e++) {
			if (e->match != GITDIR_MATCH_TREE)
				continue;
			snprintf(path, sizeof path, "%s/%s", dirs->v[i], e->path);
			if (strvec_push(out, path) != 0)
				sb_nomem(sb);
		}
}

int seatbelt_writable_roots(const struct seatbelt_input *in, struct strvec *out,
			    struct sm_error *err)
{
	struct sb sb = {.in = in, .err = err};

	collect_roots(&sb);
	for (size_t i = 0; !sb.failed && i < sb.roots.n; i++)
		if (strvec_push(out, sb.roots.v[i]) != 0)
			sb_nomem(&sb);
	git_trees(&sb, &sb.git_worktree, GITDIR_WORKTREE, out);
	git_trees(&sb, &sb.git_repository, GITDIR_REPOSITORY, out);
	strvec_free(&sb.roots);
	strvec_free(&sb.git_worktree);
	strvec_free(&sb.git_repository);
	return sb.failed ? -1 : 0;
}

int seatbelt_build_profile(const struct seatbelt_input *in, char **out, struct sm_error *err)
{
	struct sb sb = {.in = in, .err = err};

	*out = NULL;
	snprintf(sb.tag, sizeof sb.tag, "sandmux:%d", in->pane);
	if (in->home == NULL || in->home[0] != '/' || in->cwd == NULL || in->cwd[0] != '/') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "seatbelt: $HOME and the working directory must be absolute paths");
		return -1;
	}
	/* Never a rule set that would put a sandbox's name on what runs
	 * unrestricted: full_access runs as none. */
	if (in->profile->not_a_sandbox) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "seatbelt: profile %s is not a sandbox; it runs only as none",
			     in->profile->name);
		return -1;
	}
	emit_raw(&sb, "(version 1)\n(allow default)\n");
	collect_roots(&sb);
	if (!sb.failed)
		section_reads(&sb);
	if (!sb.failed)
		section_writes(&sb);
	if (!sb.failed)
		section_deletes(&sb);
	if (!sb.failed)
		section_mandatory(&sb);
	if (!sb.failed)
		section_unlink(&sb);
	if (!sb.failed)
		section_exec(&sb);
	if (!sb.failed)
		section_network(&sb);
	if (!sb.failed && sb.text.nomem)
		sb_nomem(&sb);
	strvec_free(&sb.lines);
	strvec_free(&sb.roots);
	strvec_free(&sb.git_worktree);
	strvec_free(&sb.git_repository);
	strvec_free(&sb.ancestors);
	strvec_free(&sb.unlink_regexes);
	if (sb.failed) {
		free(sb.text.s);
		return -1;
	}
	*out = sb.text.s;
	return 0;
}
