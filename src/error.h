/*
 * error: errors are values with a code and a human message.  Scripts read
 * the code (stable, snake_case); people read the message.
 *
 * Every code sandmux can report is a constant here, one code per kind of
 * failure wherever it happens, so a script that checks for one sees it
 * from every command.  docs/protocol.md and the man page list them all
 * (tests/integration/docs.sh checks that they do).
 */
#ifndef SANDMUX_ERROR_H
#define SANDMUX_ERROR_H

#include <stdarg.h>

/* The request itself. */
#define SM_ERR_PARSE_ERROR "parse_error"	/* the line is no JSON object */
#define SM_ERR_LINE_TOO_LONG "line_too_long"	/* a request line over 1 MiB */
#define SM_ERR_MISSING_FIELD "missing_field"	/* a required field is absent */
#define SM_ERR_INVALID_ARGUMENT "invalid_argument" /* a field has a bad value */
#define SM_ERR_UNKNOWN_COMMAND "unknown_command" /* no command has that name */
#define SM_ERR_INVALID_COMMAND "invalid_command" /* a command line that does not parse */
#define SM_ERR_INVALID_TARGET "invalid_target"	/* -t text that is no target */
#define SM_ERR_HELLO_REQUIRED "hello_required"	/* a request before hello */
#define SM_ERR_VERSION_MISMATCH "version_mismatch"
#define SM_ERR_PEER_UID_MISMATCH "peer_uid_mismatch" /* the peer is another user */

/* What a request names. */
#define SM_ERR_NO_SUCH_SESSION "no_such_session"
#define SM_ERR_NO_SUCH_WINDOW "no_such_window"
#define SM_ERR_NO_SUCH_PANE "no_such_pane"
#define SM_ERR_DUPLICATE_SESSION "duplicate_session" /* new-session: the name is taken */
#define SM_ERR_NOT_ATTACHED "not_attached"	  /* needs an attached client */
#define SM_ERR_NO_SPACE "no_space"		  /* split: the pane is too small */
#define SM_ERR_INVALID_STATE "invalid_state"	  /* suspend/resume: not running */
#define SM_ERR_NO_TERMINAL "no_terminal"	  /* attach: terminal without its descriptors */
#define SM_ERR_CONFIRM_NEEDED "confirm_needed" /* paste-buffer across backends: ask first */
#define SM_ERR_NO_SUCH_BUFFER "no_such_buffer"
#define SM_ERR_ALREADY_RECORDING "already_recording" /* record: the pane has one */
#define SM_ERR_NOT_RECORDING "not_recording"	/* record --stop: it has none */
#define SM_ERR_UNSAFE_PATH "unsafe_path" /* record: a sandbox could write there, or it exists */
#define SM_ERR_NOT_IN_LAYER "not_in_layer" /* keep: the home layer holds no change there */
#define SM_ERR_LAYOUT_INVALID "layout_invalid" /* a session or layout file: a field named */
#define SM_ERR_UNKNOWN_VERSION "unknown_version" /* a session file of another version */
#define SM_ERR_FAILED "failed"			  /* an operation that has no finer code */

/* Backends and sandboxes. */
#define SM_ERR_INVALID_BACKEND "invalid_backend"
#define SM_ERR_INVALID_PROFILE "invalid_profile"
#define SM_ERR_BACKEND_UNAVAILABLE "backend_unavailable"
#define SM_ERR_LAUNCH_FAILED "launch_failed"
#define SM_ERR_EGRESS_FAILED "egress_failed"
#define SM_ERR_INVALID_ALLOWLIST_ENTRY "invalid_allowlist_entry"
#define SM_ERR_HOST_DENYLISTED "host_denylisted" /* allow: the fixed deny list's host */
#define SM_ERR_PROFILE_BUILTIN "profile_builtin" /* allow --persist: terminal, agent */

/* Files sandmux reads. */
#define SM_ERR_CONFIG_NOT_FOUND "config_not_found" /* a file named on the command line is absent */
#define SM_ERR_CONFIG_READ_ERROR "config_read_error"
#define SM_ERR_CONFIG_PARSE_ERROR "config_parse_error"
#define SM_ERR_CONFIG_INVALID "config_invalid"
#define SM_ERR_CONFIG_UNKNOWN_KEY "config_unknown_key"
#define SM_ERR_INVALID_KEY "invalid_key" /* a binding's key is no key name */
#define SM_ERR_UNKNOWN_TABLE "unknown_table" /* bind -T, list-keys -T: no key table has that name */
#define SM_ERR_THEME_NOT_FOUND "theme_not_found"
#define SM_ERR_THEME_READ_ERROR "theme_read_error"
#define SM_ERR_THEME_PARSE_ERROR "theme_parse_error"
#define SM_ERR_THEME_INVALID "theme_invalid"

/* The server's own. */
#define SM_ERR_SERVER_RUNNING "server_running"
#define SM_ERR_LISTEN_FAILED "listen_failed"
#define SM_ERR_SOCKET_DIR "socket_dir"
#define SM_ERR_SOCKET_PATH "socket_path"
#define SM_ERR_OUT_OF_MEMORY "out_of_memory"

struct sm_error {
	char code[48];
	char message[512];
};

void sm_error_set(struct sm_error *err, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
