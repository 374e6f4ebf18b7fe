/*
 * cmd: the server's side of the commands.  Each protocol command is
 * served by the handler its entry in command_table[] names (command.h:
 * one declaration per command, with its syntax and its docs).  Handlers
 * fill `result` and return 0, or fill err and return -1; cmd_dispatch
 * turns that into the reply line.
 */
#ifndef SANDMUX_CMD_H
#define SANDMUX_CMD_H

#include <stdbool.h>

#include "server.h"

struct cJSON;

/* The handlers, by file: cmd-session.c, cmd-pane.c, cmd-attached.c, cmd-format.c. */
#define CMD_HANDLER(name)                                                                          \
	int name(struct conn *c, const struct cJSON *req, struct cJSON *result,                    \
		 struct sm_error *err)
CMD_HANDLER(cmd_hello);
CMD_HANDLER(cmd_new_session);
CMD_HANDLER(cmd_list);
CMD_HANDLER(cmd_profile_show); /* profile-show.c */
CMD_HANDLER(cmd_save);	     /* session-store.c */
CMD_HANDLER(cmd_kill_session);
CMD_HANDLER(cmd_has_session);
CMD_HANDLER(cmd_rename_session);
CMD_HANDLER(cmd_set_option);
CMD_HANDLER(cmd_kill_server);
CMD_HANDLER(cmd_probe);
CMD_HANDLER(cmd_subscribe);
CMD_HANDLER(cmd_feed);
CMD_HANDLER(cmd_split);
CMD_HANDLER(cmd_send_keys);
CMD_HANDLER(cmd_send_text);
CMD_HANDLER(cmd_capture);
CMD_HANDLER(cmd_history);
CMD_HANDLER(cmd_resize);
CMD_HANDLER(cmd_kill_pane);
CMD_HANDLER(cmd_suspend);
CMD_HANDLER(cmd_resume);
CMD_HANDLER(cmd_attach);
CMD_HANDLER(cmd_detach);
CMD_HANDLER(cmd_client_size);
CMD_HANDLER(cmd_key);
CMD_HANDLER(cmd_select_pane);
CMD_HANDLER(cmd_resize_pane);
CMD_HANDLER(cmd_zoom);
CMD_HANDLER(cmd_new_window);
CMD_HANDLER(cmd_select_window);
CMD_HANDLER(cmd_switch_client);
CMD_HANDLER(cmd_complete); /* cmd-complete.c */
CMD_HANDLER(cmd_format); /* cmd-format.c */
CMD_HANDLER(cmd_last_window);
CMD_HANDLER(cmd_set_buffer);
CMD_HANDLER(cmd_list_buffers);
CMD_HANDLER(cmd_show_buffer);
CMD_HANDLER(cmd_delete_buffer);
CMD_HANDLER(cmd_paste_buffer);
CMD_HANDLER(cmd_respawn_pane);
CMD_HANDLER(cmd_rename_window);
CMD_HANDLER(cmd_kill_window);
CMD_HANDLER(cmd_last_pane);
CMD_HANDLER(cmd_swap_pane);
CMD_HANDLER(cmd_break_pane);
CMD_HANDLER(cmd_join_pane);
CMD_HANDLER(cmd_select_layout);
CMD_HANDLER(cmd_next_layout);
CMD_HANDLER(cmd_allow); /* grant.c */
CMD_HANDLER(cmd_refuse);
CMD_HANDLER(cmd_clipboard);
CMD_HANDLER(cmd_record); /* record.c */
CMD_HANDLER(cmd_display_popup); /* float.c */
CMD_HANDLER(cmd_toggle_floating);
CMD_HANDLER(cmd_float_pane);
/* split --float: a floating pane opened from target (the feed's when feed). */
int cmd_split_float(struct conn *c, const struct cJSON *req, struct pane *target, bool feed,
		    struct cJSON *result, struct sm_error *err);
/* The feed pane's program for session s, into spawn (cmd-pane.c). */
int split_feed_spawn(const struct session *s, struct pane_spawn *spawn, struct sm_error *err);

/* Field helpers: return 0, or -1 with err = missing_field/invalid_argument. */
int cmd_get_int(const struct cJSON *req, const char *key, bool required, int *out,
		struct sm_error *err);
int cmd_get_string(const struct cJSON *req, const char *key, bool required, const char **out,
		   struct sm_error *err);
bool cmd_get_bool(const struct cJSON *req, const char *key, bool fallback);
/* The pane named by "pane" (an id, or a target as src/target.h writes
 * it), else the attached session's active pane. */
struct pane *cmd_target_pane(struct conn *c, const struct cJSON *req, struct sm_error *err);
/* The pane or session a target names; NULL with err (no_such_*). */
struct pane *cmd_resolve_pane(struct conn *c, const char *text, struct sm_error *err);
struct session *cmd_resolve_session(struct conn *c, const char *text, struct sm_error *err);
struct session *cmd_request_session(struct conn *c, const struct cJSON *req, struct sm_error *err);
/* Fill a pane_spawn from argv/cwd/env/backend/profile/remain fields. */
int cmd_parse_spawn(const struct cJSON *req, struct pane_spawn *spawn, struct sm_error *err);
/* What a new pane takes from the pane it was opened from (may be NULL):
 * its profile when the new one is sandboxed and names none, and its
 * backend when the config's inherit_backend asks for it. */
void cmd_spawn_inherit(struct pane_spawn *spawn, const struct pane *from);
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

#endif
