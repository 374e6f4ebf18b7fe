/*
 * cmd: the protocol's commands, declared as a table (name -> handler), as
 * tmux declares its cmd_entry structs.  A new command is one entry plus
 * one function.  Handlers fill `result` and return 0, or fill err and
 * return -1; cmd_dispatch turns that into the reply line.
 */
#ifndef SANDMUX_CMD_H
#define SANDMUX_CMD_H

#include <stdbool.h>

#include "server.h"

struct cJSON;

typedef int (*cmd_exec_fn)(struct conn *c, const struct cJSON *req, struct cJSON *result,
			   struct sm_error *err);

#define CMD_BEFORE_HELLO 0x1 /* may run before hello */

struct cmd_entry {
	const char *name;
	cmd_exec_fn exec;
	int flags;
};

extern const struct cmd_entry cmd_session_entries[];
extern const struct cmd_entry cmd_pane_entries[];
extern const struct cmd_entry cmd_client_entries[];
extern const struct cmd_entry cmd_format_entries[]; /* cmd-format.c */

/* Field helpers: return 0, or -1 with err = missing_field/invalid_argument. */
int cmd_get_int(const struct cJSON *req, const char *key, bool required, int *out,
		struct sm_error *err);
int cmd_get_string(const struct cJSON *req, const char *key, bool required, const char **out,
		   struct sm_error *err);
bool cmd_get_bool(const struct cJSON *req, const char *key, bool fallback);
/* The pane named by "pane", else the attached session's active pane. */
struct pane *cmd_target_pane(struct conn *c, const struct cJSON *req, struct sm_error *err);
/* Fill a pane_spawn from argv/cwd/env/backend/profile/remain fields. */
int cmd_parse_spawn(const struct cJSON *req, struct pane_spawn *spawn, struct sm_error *err);
void cmd_free_spawn(struct pane_spawn *spawn);
/* Reply for a freshly made pane: ok with its json, or its launch error. */
int cmd_pane_result(struct pane *p, struct cJSON *result, struct sm_error *launch_err,
		    struct sm_error *err);

/* server.c helpers used by commands */
void server_attach(struct conn *c, struct session *s);
/* Attach once the current reply has been queued. */
void server_attach_later(struct conn *c, struct session *s);
void server_shutdown(const char *reason);
struct cJSON *server_row_json(struct term *t, int row);
void server_send_full(struct session *s);

#endif
