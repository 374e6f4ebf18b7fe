/*
 * gitdir: what everyday git writes inside a repository's git directory.
 *
 * A `.git` directory at any depth under a writable root, made before
 * the pane started or after, is read-only to the pane except for the
 * files git itself writes in everyday work (commit, checkout, rebase,
 * fetch, gc, stash): objects, refs, logs, the index, HEAD and the other
 * *_HEAD files, packed-refs, the messages, a rebase's or sequencer's
 * state, and the lock files next to them.  The config is replaced only
 * through the supervisor's check (gitconfig.h); hooks/, info/,
 * commondir, worktrees/, modules/ and anything else stay read-only.
 * Threat: anything there that makes the host's next git run or read
 * something the pane chose (a hook, a commondir pointing at a pane-made
 * config, an alternates file, a submodule's or worktree's config).
 */
#ifndef SANDMUX_GITDIR_H
#define SANDMUX_GITDIR_H

/* For a canonical absolute path: NULL when it is not inside a `.git`
 * directory or is a file everyday git writes there; else the rule that
 * keeps it read-only (a string for the violation). */
const char *gitdir_write_refused(const char *path);

#endif
