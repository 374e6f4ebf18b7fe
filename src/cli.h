/*
 * cli: the command-line verbs.  Each verb is a thin client of the
 * protocol: it connects (starting the server if none runs), says hello,
 * sends one request built from its arguments and prints the reply.
 */
#ifndef SANDMUX_CLI_H
#define SANDMUX_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct cJSON;

struct cli_conn {
	int fd;
	char *buf;
	size_t len, cap;
	int next_id;
};

struct command_entry;
struct command_parsed;
struct sm_error;

extern char cli_server_name[64];
/* -L was given: $SANDMUX does not choose the server. */
extern bool cli_server_named;
/* sandmux with no verb: attach, making a server and session if none. */
extern bool cli_attach_may_create;
extern int cli_verbose;

/* The command line's commands are command_table[]'s entries marked
 * CMD_CLI (command.h).  cli_run parses argv through the entry's spec and
 * runs it: its own part if it has one, else the request, printing the
 * result.  Exit codes: 0 ok, 1 the request failed, 2 usage. */
int cli_run(const struct command_entry *entry, int argc, char **argv);
const struct command_entry *cli_find_verb(const char *name);
void cli_print_usage(const struct command_entry *entry, bool to_stderr);

/* The entries' command-line parts (cli-verbs.c, cli-events.c,
 * cli-layout.c and the internal verbs' own files). */
int cli_new(struct command_parsed *parsed);
int cli_attach(struct command_parsed *parsed);
int cli_events(struct command_parsed *parsed);
int cli_list_commands(struct command_parsed *parsed);
void cli_print_list(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_pane_created(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_capture(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_probe(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_profile_show(struct command_parsed *parsed, const struct cJSON *result,
			    FILE *out); /* cli-profile-show.c */
void cli_print_feed(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_allow(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_windows(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
void cli_print_panes(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
/* allow's request as both front ends send it: who asks, a path apart. */
void cli_allow_prepare(struct cJSON *req, const char *via);
int cli_display_message(struct command_parsed *parsed);
int cli_source_file(struct command_parsed *parsed);
void cli_print_buffers(struct command_parsed *parsed, const struct cJSON *result, FILE *out);
int cli_save_buffer(struct command_parsed *parsed);
int cli_allow(struct command_parsed *parsed); /* cli-allow.c */
int verb_ctl(int argc, char **argv);
int verb_layout(int argc, char **argv);
int verb_save(int argc, char **argv); /* cli-restore.c */
int verb_restore(int argc, char **argv);
int verb_demo(int argc, char **argv);
int verb_changes(int argc, char **argv); /* cli-changes.c */
int verb_keep(int argc, char **argv);
int verb_server(int argc, char **argv);
int verb_check_config(int argc, char **argv);
/* `profile show ...`: argv[0] is "show" (cli-profile-show.c). */
int verb_profile_show(int argc, char **argv);
int verb_profile(int argc, char **argv);
int cli_record(struct command_parsed *parsed); /* cli-record.c */
/* record's request as both front ends send it: a relative FILE made
 * absolute from cwd (an attached client's directory; NULL: this
 * process's) (cli-record.c). */
int record_prepare_in(struct command_parsed *parsed, const char *cwd, struct sm_error *err);
void record_print(struct command_parsed *parsed, const struct cJSON *result, FILE *out);

/* Whether a server answers on the socket now (nothing printed). */
bool cli_server_answers(void);
/* Connect to the server named cli_server_name; start it when start is
 * true and none answers.  Returns 0 or -1 (message printed). */
int cli_connect(struct cli_conn *conn, bool start);
void cli_close(struct cli_conn *conn);
/* Send req (owned) and wait for its reply (caller frees); pushed events
 * before it are skipped.  NULL if the connection failed. */
struct cJSON *cli_request(struct cli_conn *conn, struct cJSON *req);
/* Send req (owned) on a fresh connection (starting the server when start
 * is true); print a failure as "sandmux: MESSAGE (CODE)".  The reply's
 * result (owned by *reply_out, which the caller frees) or NULL. */
struct cJSON *cli_run_request(struct cJSON *req, bool start, struct cJSON **reply_out);
/* Read the next message of any kind, waiting up to timeout_ms (-1:
 * forever).  NULL on timeout or EOF (*eof set). */
struct cJSON *cli_read_message(struct cli_conn *conn, int timeout_ms, bool *eof);
const char *cli_socket_path(void);
/* Inside a pane of the server this command goes to: that pane's id
 * ($SANDMUX_PANE, a command's default target), else -1. */
int cli_env_pane(void);
/* The feed pane's program (src/cli-feed.c): runs on a subscribed connection
 * until the server goes away. */
int feed_run(struct cli_conn *events, const char *session, double server_started);
/* The controlling terminal's size, if there is one (else unchanged). */
void cli_terminal_size(int *cols, int *rows);

#endif
