/*
 * client: `sandmux attach` (and new, demo, layout, restore): hands the
 * user's terminal to the server, which reads its keys and draws it
 * (server-tty.c), and waits until the server lets it go.
 */
#ifndef SANDMUX_CLIENT_H
#define SANDMUX_CLIENT_H

/* Attach to session (NULL: the server's default, i.e. the most recent)
 * on the server listening at socket_path, and run until detached.
 * theme_override (NULL: the config's theme) is a theme name or path.
 * Returns the process exit code. */
int client_attach(const char *socket_path, const char *session, const char *theme_override);

#endif
