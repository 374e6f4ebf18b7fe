/*
 * format: tmux's formats, for display-message and the status line.
 *
 * "#{name}" is replaced by the value of a variable (session_name,
 * window_index, pane_current_path, pane_backend, ...; the table in
 * format.c is the list, docs/config.md documents it), "#S", "#I", "#W",
 * "#P", "#D", "#T", "#H", "#h" are tmux's short forms, "##" is a "#",
 * "#{?cond,then,else}" picks a branch (cond is a variable or a format:
 * true when not empty and not "0"), "#{=N:name}" keeps the first N
 * characters (-N: the last N).  As in tmux, an unknown name expands to
 * nothing; an unterminated "#{" is kept as text.
 *
 * The expander is a pure function of the text and a format_context the
 * caller fills: the server from its panes (the "format" request), the
 * client from its copy of them (status-left, status-right), so both read
 * the same names through the same table.
 */
#ifndef SANDMUX_FORMAT_H
#define SANDMUX_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* Strings may be NULL (they expand to nothing); pane_id < 0: no pane. */
/* What the formats read.  screen_status_key (screen-draw.c) mixes every
 * field into the status line's key: a field added here goes there too,
 * or a status line showing it is not drawn again when it changes. */
struct format_context {
	const char *session_name;
	int session_windows;
	int window_index;
	const char *window_name;
	int window_panes;
	bool window_zoomed_flag;
	int pane_id;
	int pane_index;
	const char *pane_title;
	const char *pane_current_path;
	const char *pane_start_path;
	const char *pane_backend; /* the label: what really wraps it */
	int pane_violations;
	int pane_width, pane_height;
	bool pane_active;
	int pane_pid;
	int client_width, client_height;
};

/* Nesting beyond this (conditionals inside conditionals) expands to
 * nothing: a bound on the work any text can ask for. */
#define FORMAT_MAX_DEPTH 8

/* Expand text into out, which always ends up NUL-terminated; what does
 * not fit in size - 1 bytes is dropped (never half a UTF-8 character).
 * Returns the length written. */
size_t format_expand(const char *text, const struct format_context *ctx, char *out, size_t size);

#endif
