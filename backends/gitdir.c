/*
 * gitdir: the git directories and what a pane may write in them
 * (gitdir.h).  A path in, a verdict out; gitdir_shape_at looks at a
 * directory's entries.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitdir.h"

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

/* A linked worktree's own files besides those (git worktree add, lock,
 * unlock, move, repair): where its work tree is, and why it is locked.
 * Its commondir is made once, before the directory has the shape, and
 * then read-only: git never rewrites it. */
static const char *const worktree_files[] = {"gitdir", "locked", NULL};

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

/* The length of rel's first component. */
static size_t first_len(const char *rel)
{
	const char *slash = strchr(rel, '/');

	return slash != NULL ? (size_t)(slash - rel) : strlen(rel);
}

/* Under worktrees/ of a repository: NAME/ and what git worktree add
 * puts in it (its admin files, commondir, and everything a worktree's
 * own git directory may hold).  The admin directory, once it has the
 * shape, is judged again by itself (where commondir is read-only). */
static bool worktree_admin(const char *rest)
{
	size_t n = first_len(rest);
	const char *inner = rest + n;

	if (n == 0)
		return false;
	if (*inner == '\0')
		return true;
	inner++;
	return strcmp(inner, "commondir") == 0 ||
	       gitdir_judge(GITDIR_WORKTREE, inner) == GITDIR_EVERYDAY;
}

static enum gitdir_verdict judge(enum gitdir_shape shape, const char *rel, bool worktrees)
{
	size_t n = first_len(rel);
	bool alone = rel[n] == '\0';

	if (shape == GITDIR_NONE)
		return GITDIR_EVERYDAY;
	if (n == 0 || named(rel, n, everyday_dirs) || server_info(rel))
		return GITDIR_EVERYDAY;
	if (alone && (everyday_file(rel, n) ||
		      (shape == GITDIR_WORKTREE && named(rel, n, worktree_files))))
		return GITDIR_EVERYDAY;
	if (alone && shape == GITDIR_REPOSITORY && strcmp(rel, "config") == 0)
		return GITDIR_CONFIG;
	if (worktrees && shape == GITDIR_REPOSITORY && n == 9 && strncmp(rel, "worktrees", 9) == 0 &&
	    (alone || worktree_admin(rel + 10)))
		return GITDIR_EVERYDAY;
	return GITDIR_REFUSED;
}

enum gitdir_verdict gitdir_judge(enum gitdir_shape shape, const char *rel)
{
	return judge(shape, rel, true);
}

enum gitdir_verdict gitdir_judge_removal(enum gitdir_shape shape, const char *rel)
{
	if (shape == GITDIR_WORKTREE && strcmp(rel, "commondir") == 0)
		return GITDIR_EVERYDAY;
	return judge(shape, rel, true);
}

/* The part of path inside its first `.git` directory, or NULL. */
static const char *inside_named(const char *path)
{
	const char *p = strstr(path, "/.git/");

	return p != NULL && p[6] != '\0' ? p + 6 : NULL;
}

enum gitdir_verdict gitdir_judge_named(const char *path)
{
	const char *rel = inside_named(path);

	return rel != NULL ? judge(GITDIR_REPOSITORY, rel, true) : GITDIR_EVERYDAY;
}

const char *gitdir_write_refused(const char *path)
{
	const char *rel = inside_named(path);

	return rel != NULL && judge(GITDIR_REPOSITORY, rel, false) != GITDIR_EVERYDAY ? GITDIR_RULE
										       : NULL;
}

/* Is there an entry of that name at dirfd's up? */
static bool holds(int dirfd, const char *up, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof path, "%s%s", up, name) >= (int)sizeof path)
		return true; /* cannot look: taken as there (fail closed) */
	return fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

enum gitdir_shape gitdir_shape_at(int dirfd, const char *up)
{
	/* refs and commondir first: names that are rare outside git, so
	 * most directories cost two lookups. */
	if (holds(dirfd, up, "refs") && holds(dirfd, up, "objects"))
		return GITDIR_REPOSITORY;
	if (holds(dirfd, up, "commondir") && holds(dirfd, up, "HEAD"))
		return GITDIR_WORKTREE;
	return GITDIR_NONE;
}

bool gitdir_shape_name(const char *name)
{
	return strcmp(name, "HEAD") == 0 || strcmp(name, "objects") == 0 ||
	       strcmp(name, "refs") == 0 || strcmp(name, "commondir") == 0;
}

bool gitdir_born_with(const char *name)
{
	size_t n = strlen(name);

	return named(name, n, everyday_dirs) || everyday_file(name, n) ||
	       named(name, n, worktree_files) || strcmp(name, "commondir") == 0 ||
	       strcmp(name, "config") == 0;
}

const char *gitdir_shape_partner(const char *name)
{
	if (strcmp(name, "HEAD") == 0)
		return "commondir";
	if (strcmp(name, "commondir") == 0)
		return "HEAD";
	return strcmp(name, "objects") == 0 ? "refs" : "objects";
}

/* worktree_files (a worktree's own directory's alone), then
 * everyday_dirs, everyday_files and server_info, as entries. */
static const struct gitdir_entry everyday_entries[] = {
    {"gitdir", GITDIR_MATCH_EXACT},
    {"locked", GITDIR_MATCH_EXACT},
    {"objects", GITDIR_MATCH_TREE},
    {"refs", GITDIR_MATCH_TREE},
    {"logs", GITDIR_MATCH_TREE},
    {"rebase-merge", GITDIR_MATCH_TREE},
    {"rebase-apply", GITDIR_MATCH_TREE},
    {"sequencer", GITDIR_MATCH_TREE},
    {"HEAD", GITDIR_MATCH_FILE},
    {"ORIG_HEAD", GITDIR_MATCH_FILE},
    {"FETCH_HEAD", GITDIR_MATCH_FILE},
    {"index", GITDIR_MATCH_FILE},
    {"packed-refs", GITDIR_MATCH_FILE},
    {"packed-refs.new", GITDIR_MATCH_FILE},
    {"COMMIT_EDITMSG", GITDIR_MATCH_FILE},
    {"TAG_EDITMSG", GITDIR_MATCH_FILE},
    {"MERGE_MSG", GITDIR_MATCH_FILE},
    {"MERGE_MODE", GITDIR_MATCH_FILE},
    {"MERGE_RR", GITDIR_MATCH_FILE},
    {"MERGE_AUTOSTASH", GITDIR_MATCH_FILE},
    {"SQUASH_MSG", GITDIR_MATCH_FILE},
    {"AUTO_MERGE", GITDIR_MATCH_FILE},
    {"description", GITDIR_MATCH_FILE},
    {"shallow", GITDIR_MATCH_FILE},
    {"gc.pid", GITDIR_MATCH_FILE},
    {"gc.log", GITDIR_MATCH_FILE},
    {"_HEAD", GITDIR_MATCH_SUFFIX},
    {"index.stash.", GITDIR_MATCH_PREFIX},
    {"info/refs", GITDIR_MATCH_EXACT},
    {"info/refs_", GITDIR_MATCH_PREFIX},
    {NULL, GITDIR_MATCH_FILE},
};

const struct gitdir_entry *gitdir_everyday_entries(enum gitdir_shape shape)
{
	size_t n = sizeof everyday_entries / sizeof everyday_entries[0];

	if (shape == GITDIR_WORKTREE)
		return everyday_entries;
	return shape == GITDIR_REPOSITORY ? everyday_entries + 2 : everyday_entries + n - 1;
}

/* The directory a git file names: its first line, after key ("gitdir:"
 * in a `.git` file, "" in a commondir), relative to the file's
 * directory; resolved into out.  0, or -1 when there is none. */
static int read_gitfile(const char *file, const char *key, char *out)
{
	char line[PATH_MAX + 16], joined[PATH_MAX * 2 + 2], *end;
	const char *path = line, *slash = strrchr(file, '/');
	size_t klen = strlen(key);
	FILE *f = fopen(file, "r");
	bool ok;

	if (f == NULL)
		return -1;
	ok = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	if (!ok || slash == NULL)
		return -1;
	if ((end = strchr(line, '\n')) != NULL)
		*end = '\0';
	if (strncmp(line, key, klen) != 0)
		return -1;
	path = line + klen + strspn(line + klen, " ");
	if (path[0] == '\0')
		return -1;
	if (path[0] != '/') {
		snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - file), file, path);
		path = joined;
	}
	return realpath(path, out) != NULL ? 0 : -1;
}

static enum gitdir_shape shape_of(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	enum gitdir_shape shape;

	if (fd < 0)
		return GITDIR_NONE;
	shape = gitdir_shape_at(fd, "");
	close(fd);
	return shape;
}

enum gitdir_shape gitdir_linked(const char *worktree, char *gitdir, char *common)
{
	char file[PATH_MAX + 16];
	struct stat st;
	enum gitdir_shape shape;

	gitdir[0] = common[0] = '\0';
	if (snprintf(file, sizeof file, "%s/.git", worktree) >= (int)sizeof file ||
	    lstat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    read_gitfile(file, "gitdir:", gitdir) != 0)
		return GITDIR_NONE;
	shape = shape_of(gitdir);
	if (shape == GITDIR_WORKTREE) {
		snprintf(file, sizeof file, "%s/commondir", gitdir);
		if (read_gitfile(file, "", common) != 0 || shape_of(common) != GITDIR_REPOSITORY)
			common[0] = '\0';
	}
	if (shape == GITDIR_NONE)
		gitdir[0] = '\0';
	return shape;
}
