/*
 * cli: the command-line verbs.  Each verb is a thin client of the
 * protocol: it connects (starting the server if none runs), says hello,
 * sends one request built from its arguments and prints the reply.
 */
#ifndef SANDMUX_CLI_H
#define SANDMUX_CLI_H

#include <stdbool.h>

struct cJSON;

struct cli_conn {
	int fd;
	char *buf;
	size_t len, cap;
	int next_id;
};

struct cli_verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

extern const struct cli_verb cli_verbs[];
extern char cli_server_name[64];
extern int cli_verbose;

const struct cli_verb *cli_find_verb(const char *name);
void cli_print_usage(const struct cli_verb *verb, bool to_stderr);

/* Connect to the server named cli_server_name; start it when start is
 * true and none answers.  Returns 0 or -1 (message printed). */
int cli_connect(struct cli_conn *conn, bool start);
void cli_close(struct cli_conn *conn);
/* Send req (owned) and wait for its reply (caller frees); pushed events
 * before it are skipped.  NULL if the connection failed. */
struct cJSON *cli_request(struct cli_conn *conn, struct cJSON *req);
/* Read the next message of any kind, waiting up to timeout_ms (-1:
 * forever).  NULL on timeout or EOF (*eof set). */
struct cJSON *cli_read_message(struct cli_conn *conn, int timeout_ms, bool *eof);
const char *cli_socket_path(void);
/* The controlling terminal's size, if there is one (else unchanged). */
void cli_terminal_size(int *cols, int *rows);

#endif
