/*
 * gitconfig: may a native pane replace a repository's .git/config with
 * this text?
 *
 * A repository's config can make the host's next git command run a
 * program (core.fsmonitor on `git status`, core.hooksPath, core.pager,
 * core.sshCommand, diff and filter drivers, credential helpers) or read
 * another file (include.path).  It is a host-run file (hostrun.h), yet
 * git init, git clone and `git config user.email ...` inside a pane
 * must work, and they all write it by renaming a lock file onto it.  So
 * the supervisor lets that rename through only when this check passes:
 * every entry of the new text is either one of a short list of plain
 * keys (repository format, file modes, remotes' URLs and refspecs,
 * branches' upstreams, user name and email) or already in the old text
 * with the same value.  A pane can add and change plain keys and remove
 * anything; it cannot add or change a key that runs or loads something.
 *
 * The parser is strict on purpose (fail closed): what it does not fully
 * understand (a continuation line, text after a section header, a key
 * outside any section, more than GITCONFIG_MAX bytes) is refused.
 *
 * Pure: no I/O.  Unit-tested in tests/unit/test_gitconfig.c.
 */
#ifndef SANDMUX_GITCONFIG_H
#define SANDMUX_GITCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define GITCONFIG_MAX (64 * 1024)

/* True when old (the config there now; NULL or empty when there is
 * none) may be replaced by new.  Otherwise false, with why saying which
 * entry or line was refused. */
bool gitconfig_change_ok(const char *old, size_t old_len, const char *new, size_t new_len,
			 char *why, size_t why_size);

#endif
