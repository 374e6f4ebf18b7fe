/*
 * gitdir: what everyday git writes inside a git directory, and which
 * directories are git directories.
 *
 * A git directory is recognised by its shape, as git itself recognises
 * one (setup.c's is_git_directory: a HEAD, and objects/ and refs/ in the
 * directory or in the common directory its `commondir` file names),
 * never by its name: a `.git`, a bare `x.git`, the target of a `.git`
 * file (`git init --separate-git-dir`, a submodule's .git/modules/X, a
 * worktree's .git/worktrees/NAME) and a worktree's common directory are
 * all the same thing to the host's git.  So, to a pane, every directory
 * under a writable root that holds objects and refs (a repository's, or
 * what a commondir may point at) or a HEAD and a commondir (a linked
 * worktree's own), made before the pane started or after, is read-only
 * except for the files git itself writes in everyday work (commit,
 * checkout, rebase, fetch, gc, stash, worktree add): objects, refs,
 * logs, the index, HEAD and the other *_HEAD files, packed-refs, the
 * messages, a rebase's or sequencer's state, a worktree's admin files,
 * and the lock files next to them.  The config is replaced only through
 * the supervisor's check (gitconfig.h); hooks/, info/, commondir once
 * made, modules/, config.worktree and anything else stay read-only.  A
 * directory named `.git` is judged so by its name as well, before it
 * has the shape (while git init fills it).
 *
 * Threat: anything there that makes the host's next git run or read
 * something the pane chose (a hook, a core.fsmonitor, a commondir
 * pointing at a pane-made config, an alternates file, a submodule's or
 * worktree's config).  Since every directory git would accept as a git
 * directory or a common directory is held so, where a `.git` file or a
 * commondir points no longer matters: git refuses a target without the
 * shape, and one with it is held.
 *
 * A directory takes the shape when it gains the last of its names
 * (gitdir_shape_name); the supervisor lets that happen only while the
 * directory holds nothing but what a new git directory holds
 * (gitdir_born_with), the config after its check, so nothing planted
 * while it had no shape comes along.
 *
 * Pure but for gitdir_shape_at (fstatat) and gitdir_linked (which reads
 * a `.git` file and a commondir): unit-tested in
 * tests/unit/test_gitdir.c.
 */
#ifndef SANDMUX_GITDIR_H
#define SANDMUX_GITDIR_H

#include <stdbool.h>

enum gitdir_shape {
	GITDIR_NONE,
	/* objects and refs: a repository's git directory, bare or not, or
	 * the common directory of its worktrees. */
	GITDIR_REPOSITORY,
	/* HEAD and commondir (objects and refs are the common
	 * directory's): a linked worktree's own git directory. */
	GITDIR_WORKTREE,
};

enum gitdir_verdict {
	GITDIR_EVERYDAY, /* git writes it in everyday work */
	GITDIR_CONFIG,	 /* a repository's config: only through gitconfig.h */
	GITDIR_REFUSED,
};

/* The rule a refusal reports. */
#define GITDIR_RULE "git directory (only what everyday git writes)"

/* The shape of the directory at dirfd's `up` ("" for dirfd itself,
 * "../", "../../", ...), from its entries' names alone (fstatat, links
 * not followed: a name that is there counts, whatever it is). */
enum gitdir_shape gitdir_shape_at(int dirfd, const char *up);

/* rel: a path inside a git directory of that shape ("refs/heads/x"). */
enum gitdir_verdict gitdir_judge(enum gitdir_shape shape, const char *rel);

/* gitdir_judge for removing rel (unlink, rmdir): as gitdir_judge, but
 * a linked worktree's commondir may go too (git worktree remove and
 * prune delete the whole admin directory).  Without it the directory
 * loses its shape, and takes it again only through the birth rule
 * (gitdir_born_with), so nothing planted meanwhile comes along. */
enum gitdir_verdict gitdir_judge_removal(enum gitdir_shape shape, const char *rel);

/* A canonical absolute path judged by its first `.git` component alone
 * (a repository nested in another's work tree by its own; everything
 * under a `.git`, modules/ and worktrees/ included, by the outer one),
 * as a repository's git directory: GITDIR_EVERYDAY when it has none. */
enum gitdir_verdict gitdir_judge_named(const char *path);

/* gitdir_judge_named for a guard that does not judge by shape: the
 * worktrees' admin directories stay read-only whole (a commondir made
 * there could point at a directory nothing holds), and the config is
 * refused too (the guard replaces it on its own road).  NULL, or the
 * rule. */
const char *gitdir_write_refused(const char *path);

/* Does an entry of this name give a directory a git directory's shape
 * (HEAD, objects, refs, commondir)? */
bool gitdir_shape_name(const char *name);

/* May an entry of this name be in a directory as it takes the shape:
 * what git init, clone and worktree add put there before the last
 * name.  The config too, but only once the supervisor has checked it
 * and put its own copy in place. */
bool gitdir_born_with(const char *name);

/* What everyday git writes in a git directory, as entries a rule
 * language that cannot call gitdir_judge (Seatbelt's SBPL) can state:
 * each a path relative to the directory and how it matches. */
enum gitdir_match {
	GITDIR_MATCH_TREE,   /* the directory and everything below it */
	GITDIR_MATCH_FILE,   /* the file, and the file with ".lock" added */
	GITDIR_MATCH_EXACT,  /* the file alone */
	GITDIR_MATCH_SUFFIX, /* a file directly there whose name ends so (+ ".lock") */
	GITDIR_MATCH_PREFIX, /* a file directly there (or in the path's directory)
				whose name starts so */
};

struct gitdir_entry {
	const char *path;
	enum gitdir_match match;
};

/* The entries of a directory of that shape, a GITDIR_MATCH_* list ending
 * with path NULL: each one gitdir_judge calls everyday, and together
 * all of it but the config's lock (only through the supervisor's check,
 * gitconfig.h), git init's probe of a new directory, and worktrees/
 * (a worktree's admin directory is listed by itself, as
 * GITDIR_WORKTREE). */
const struct gitdir_entry *gitdir_everyday_entries(enum gitdir_shape shape);

/* A linked work tree: worktree's `.git` is a file ("gitdir: PATH", as
 * git worktree add, --separate-git-dir and submodules write it) naming
 * a git directory outside it.  Returns that directory's shape with its
 * resolved path in gitdir: GITDIR_REPOSITORY, or GITDIR_WORKTREE with
 * its commondir's resolved path in common ("" when that has no
 * repository's shape).  GITDIR_NONE when `.git` is no such file or
 * names no git directory.  Both buffers PATH_MAX. */
enum gitdir_shape gitdir_linked(const char *worktree, char *gitdir, char *common);

/* For a name gitdir_shape_name accepts: the other name that, with it,
 * gives a directory its shape ("objects" -> "refs", "HEAD" ->
 * "commondir", and back). */
const char *gitdir_shape_partner(const char *name);

#endif
