/*
 * session-file: the one format of layout files and saved sessions
 * (docs/sessions.md).  The server writes it (session-store.c); the
 * command line reads, checks and builds it (cli-layout.c) and saves and
 * restores sessions with it (cli-restore.c).
 */
#ifndef SANDMUX_SESSION_FILE_H
#define SANDMUX_SESSION_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* Version 2 added floating panes (windows[].floating); version 1 files
 * are read as they always were. */
#define SESSION_FILE_VERSION 2
#define SESSION_FILE_VERSION_OLDEST 1
#define SESSION_SCREEN_LINES 200 /* a stored pane's last screen, at most */

/* The file at path, checked whole, in the windows form; NULL when it
 * cannot be used (the reason printed, naming the field, unless quiet). */
struct cJSON *session_file_read(const char *path, bool quiet);
/* Whether a stored command is a shell (none given, or one word naming
 * a shell or $SHELL): a shell is started again without asking. */
bool session_file_is_shell(const struct cJSON *command);
/* Build the session the document describes, named name (NULL: the
 * file's).  rerun[w][p]: run pane p of window w's command again (NULL:
 * every command); otherwise it shows its stored screen and the shell
 * runs.  session gets the name.  Returns the number of FAILED panes, or
 * -1 when the build stopped. */
int session_file_build(struct cJSON *root, const char *name, bool *const *rerun, char *session,
		       size_t size);
/* `new --layout FILE [-s NAME]` (cli-verbs.c): the file's session,
 * attached unless detached. */
int session_file_new(const char *path, const char *name, bool detached);
/* cli-restore.c: `sandmux` alone with no session offers the saved ones;
 * -1 to go on with a new session, else the exit status. */
int cli_offer_restore(void);

#endif
