/*
 * screen-draw: what an attached client's terminal shows, composed by the
 * server from its own data into a tty's wanted cells (tty.h): the active
 * window's panes from their grids, a title line above each (backend
 * label, title, working directory, denials, zoom), borders, FAILED
 * banners, the status line.
 */
#ifndef SANDMUX_SCREEN_DRAW_H
#define SANDMUX_SCREEN_DRAW_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "theme.h"

struct server_choose;
struct tty;
struct session;
struct pane;
struct config;
struct theme;
struct binding_table;
struct mode_tables;
struct server_copy;

/* What the client shows over the panes: a message or the prompt in the
 * status line, the prefix mark. */
struct screen_overlay {
	const char *message; /* NULL or "": none */
	bool message_error;
	bool prompt;
	const char *prompt_label, *prompt_text;
	size_t prompt_cursor; /* bytes of prompt_text before the cursor */
	const char *prompt_candidates; /* Tab's matches, the row above; NULL or "": none */
	bool prefix;
	bool no_color; /* NO_COLOR: the chrome in attributes only */
	/* The help overlay (list-keys): the key table (the prefix's, or a
	 * mode's for list-keys -T), then the modes' tables when all are
	 * listed, the prefix's name and the first line shown, kept in range
	 * by the draw. */
	const struct binding_table *help;
	const struct mode_tables *help_modes; /* listed after help; NULL: none */
	const char *help_prefix;
	int *help_offset;
	/* Or, with help set, a command's printed output in its place (the
	 * prompt's `:ls`): its name and lines, sanitised when drawn. */
	const char *view_title;
	char *const *view;
	int nview;
	/* Copy mode (server-copy.c): its pane shows the view, the selection
	 * and the search's matches, the position at its top right and the
	 * cursor where copy mode has it.  NULL or inactive: none. */
	const struct server_copy *copy;
	/* display-panes: each shown pane's number (its index in the
	 * window) in big digits at its centre, its id and size below. */
	bool display_panes;
	/* Choose mode (server-choose.c): its list over the window, kept
	 * scrolled to the selection by the draw.  NULL or inactive: none. */
	struct server_choose *choose;
	/* The status line's key (screen_status_key) the tty's last row was
	 * last composed from, kept by the draws; 0: not composed.  NULL:
	 * every draw composes it. */
	uint64_t *status_drawn;
};

void screen_draw(struct tty *tty, struct session *s, const struct config *config,
		 const struct theme *theme, const struct screen_overlay *overlay);

/* A pane's damage drawn without composing the whole screen: only its
 * rows that changed (rows[row]; NULL when only its cursor moved).  */
struct screen_damage {
	struct pane *pane;
	const bool *rows;
};

/* The damage of some panes (a typed key's echo first, then every
 * other visible pane's) drawn over what the last screen_draw left in
 * the tty: those rows, the cursor and the status line.  That is the
 * same screen as screen_draw's while nothing else it draws from has
 * changed: screen_signature (geometry, the chrome's text, the status
 * line's message, the modes shown) is what the caller compares with
 * the last full draw's, and screen_rows_enough says no mode or
 * floating pane covers the pane. */
uint64_t screen_signature(const struct tty *tty, const struct session *s,
			  const struct config *config, const struct screen_overlay *overlay);
bool screen_rows_enough(const struct session *s, const struct screen_overlay *overlay,
			const struct pane *p);
void screen_draw_damage(struct tty *tty, struct session *s, const struct config *config,
			const struct theme *theme, const struct screen_overlay *overlay,
			const struct screen_damage *damage, int n);

/* What the status line is composed from, as one number (0 never): its
 * formats with the time put in, the session and its windows' entries,
 * the active pane's format context, the theme's status colours, the
 * terminal's size and the client's prefix, message and prompt.  An
 * equal key composes the same row, so a damage draw (a key's echo)
 * leaves the row as it is, and the status timer (server-tty.c) draws
 * again only a status line whose key changed: a clock, a window's new
 * name. */
uint64_t screen_status_key(struct tty *tty, struct session *s, const struct config *config,
			   const struct theme *theme, const struct screen_overlay *overlay);

#endif
