/*
 * gitdir: the files a pane may write inside a `.git` directory
 * (gitdir.h).  Pure: a path in, a verdict out.
 */
#include <stdbool.h>
#include <string.h>

#include "gitdir.h"

#define GITDIR_RULE ".git (only what everyday git writes)"

/* Directories git fills in everyday work, everything below them
 * included.  objects: the content, loose and packed, and its indexes
 * (commit-graph, multi-pack-index); refs and logs: branches, tags, the
 * reflogs; rebase-merge, rebase-apply, sequencer: a rebase's,
 * cherry-pick's or revert's state while it runs. */
static const char *const everyday_dirs[] = {
    "objects", "refs", "logs", "rebase-merge", "rebase-apply", "sequencer", NULL,
};

/* Files directly in the git directory (each also as NAME.lock, git's
 * lock next to it).  config.lock is the new config, which lands only
 * through the supervisor's check of the rename (gitconfig.h). */
static const char *const everyday_files[] = {
    "HEAD",	    "ORIG_HEAD",      "FETCH_HEAD",  "index",	   "packed-refs",
    "packed-refs.new", "COMMIT_EDITMSG", "TAG_EDITMSG", "MERGE_MSG",  "MERGE_MODE",
    "MERGE_RR",	    "MERGE_AUTOSTASH", "SQUASH_MSG",  "AUTO_MERGE", "description",
    "shallow",	    "gc.pid",	      "gc.log",	     NULL,
};

static bool named(const char *name, size_t n, const char *const *list)
{
	for (size_t i = 0; list[i] != NULL; i++)
		if (strlen(list[i]) == n && strncmp(name, list[i], n) == 0)
			return true;
	return false;
}

/* A file directly in the git directory: name, n bytes long. */
static bool everyday_file(const char *name, size_t n)
{
	if (n > 5 && strncmp(name + n - 5, ".lock", 5) == 0) {
		n -= 5;
		if (n == 6 && strncmp(name, "config", 6) == 0)
			return true;
	}
	/* MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, REBASE_HEAD,
	 * BISECT_HEAD, ...: refs git keeps while an operation runs. */
	if (n > 5 && strncmp(name + n - 5, "_HEAD", 5) == 0)
		return true;
	/* stash's temporary index, index.stash.PID */
	if (n > 12 && strncmp(name, "index.stash.", 12) == 0)
		return true;
	/* git init's probe of the file system (can it hold a symlink?): a
	 * file and a symlink made from mkstemp's template "tXXXXXX" and
	 * removed at once; git reads nothing of that name. */
	if (n == 7 && name[0] == 't' && strspn(name + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") >= 6)
		return true;
	return named(name, n, everyday_files);
}

/* info/refs and its temporary file (info/refs_XXXXXX): the list of refs
 * for the dumb HTTP protocol, which repack (and so gc) writes; it names
 * refs, nothing git runs or reads as settings. */
static bool server_info(const char *rest)
{
	return strncmp(rest, "info/refs", 9) == 0 && (rest[9] == '\0' || rest[9] == '_') &&
	       strchr(rest + 5, '/') == NULL;
}

const char *gitdir_write_refused(const char *path)
{
	const char *p = strstr(path, "/.git/"), *rest, *slash;
	size_t n;

	/* The first ".git" component: a repository nested in another's
	 * work tree is judged by its own, and everything under a ".git"
	 * (modules/, worktrees/) by the outer one. */
	if (p == NULL || p[6] == '\0')
		return NULL;
	rest = p + 6;
	slash = strchr(rest, '/');
	n = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
	if (named(rest, n, everyday_dirs))
		return NULL;
	if ((slash == NULL && everyday_file(rest, n)) || server_info(rest))
		return NULL;
	return GITDIR_RULE;
}
