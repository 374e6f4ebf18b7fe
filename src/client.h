/*
 * client: the attached terminal client, the program a person sees.
 *
 * It connects to a server's socket, attaches to a session and from then
 * on mirrors it: the server sends layout, frame (row damage) and status
 * events, the client keeps its own copy of every pane's cells and draws
 * them with ncursesw, and it sends keys and mouse back as symbolic
 * events.  Pane output never reaches the outer terminal as bytes: only
 * cells the client itself draws do, so escape sequences a program prints
 * cannot act on the user's terminal.
 */
#ifndef SANDMUX_CLIENT_H
#define SANDMUX_CLIENT_H

#include <stdbool.h>

struct sm_error;

/* Attach to session (NULL: the server's default, i.e. the most recent)
 * on the server listening at socket_path, and run until detached.
 * theme_override (NULL: the config's theme) is a theme name or path.
 * Returns the process exit code. */
int client_attach(const char *socket_path, const char *session, const char *theme_override);

/* The same, handing the terminal to the server, which reads and draws
 * it (client-thin.c); client_attach calls it. */
int client_thin_attach(const char *socket_path, const char *session, const char *theme_override);

/* True if line is a command the client understands (the verbs of the ":"
 * prompt and of key bindings); otherwise err says why. */
bool client_command_valid(const char *line, struct sm_error *err);

#endif
