/*
 * hostrun: what the host runs or configures itself from later, and
 * sandmux's own files, kept read-only in every native profile.
 *
 * A native pane may write $HOME and its work tree, but nothing it writes
 * may change what the host does after the pane is gone (design
 * invariant 7): shell startup files, git config and hooks, PATH
 * directories, user services and autostart entries, code-running editor,
 * agent and package-manager config; nor sandmux's config, state, events
 * log, socket and binaries.  The list, entry by entry with the threat
 * each one stops, is in hostrun.c and docs/security.md.
 *
 * Two kinds of entry:
 *   - paths (absolute once expanded): what exists at launch inside a
 *     writable root is bound read-only (bwrap.c); what does not exist is
 *     refused by the supervisor when anything would create it, rename
 *     onto it or into it (supervisor-decide.c, protected paths);
 *   - component runs (".git/hooks"): the same, inside every writable
 *     root at any depth, for repositories that exist at launch and ones
 *     made later (supervisor-decide.c, write-denies).
 *
 * Nothing is ever created on the host to be mounted over (no stub
 * dotfiles in the user's $HOME).
 */
#ifndef SANDMUX_HOSTRUN_H
#define SANDMUX_HOSTRUN_H

#include "strvec.h"

/* Component runs read-only in every writable root, NULL-terminated. */
extern const char *const hostrun_components[];

/* The host-run paths of one launch, absolute, duplicates dropped,
 * pushed onto out: the fixed list under home (and under
 * $XDG_CONFIG_HOME, $XDG_DATA_HOME where the server's environment sets
 * them elsewhere), every directory under home named in the PATH of envp
 * or of the server, every file the shell startup files under home source
 * or run (read from their text, never run), and sandmux's own config and
 * state directories and binaries.  0, or -1 when out of memory. */
int hostrun_paths(const char *home, char *const *envp, struct strvec *out);

/* sandmux's stored sessions (src/session-store.c, paths.c's state
 * directory + "/sessions"), into out: masked unreadable in every
 * sandbox, not only read-only like the rest of the state directory,
 * since a stored session holds what every pane showed (its last screen),
 * a host pane's among them.  "~/" when XDG_STATE_HOME is not set. */
void hostrun_sessions_dir(char *out, size_t size);

/* Is path (absolute) one the host runs or reads as config: at or under
 * one of paths (what hostrun_paths gave), or holding one of the
 * component runs ("/.git/hooks/", a trailing "/.vscode")? */
bool hostrun_covers(const struct strvec *paths, const char *path);

#endif
