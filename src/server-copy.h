/*
 * server-copy: copy mode when the server owns the terminal — scrolling
 * back through a pane's history, searching it, selecting text and
 * copying it.  Its keys are looked up in the "copy-mode" key table
 * (mode-tables.c; the config rebinds them), each naming one of the copy
 * commands tmux has (send-keys -X cursor-up, docs/keys.md).
 *
 * Entering freezes the pane's screen (its cells, copied) and takes the
 * history as it is from then on straight from the pane's grid: a line of
 * history is found again by how many lines went into history since
 * (term_lines_out), so output arriving underneath moves nothing in the
 * view, and nothing is copied but the screen.  Pure apart from the
 * pane's term it reads: keys in, what to do out; server-tty.c draws it
 * (screen-draw.c) and acts on the result.
 */
#ifndef SANDMUX_SERVER_COPY_H
#define SANDMUX_SERVER_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "term.h"

struct pane;
struct mode_tables;

struct server_copy {
	bool active;
	int pane;		  /* the pane's id */
	int cols, rows;		  /* the pane's size when copy mode began */
	struct term_cell *screen; /* its screen then, rows * cols */
	long lines_out;		  /* term_lines_out then */
	unsigned long history_clears; /* term_history_clears then */
	int history;		  /* history lines then: lines 0..history-1 */
	int nlines;		  /* history + rows */
	int top, cy, cx;	  /* the first line shown; the cursor (line, column) */
	bool selecting;
	int sel_y, sel_x;
	char search[256];
	bool search_backward;
	int *prompt_rows; /* OSC 133 prompts then, as lines */
	int nprompts;
	bool exit_at_bottom; /* entered with the wheel: leaves at the bottom */
};

/* What a key asked of the caller. */
enum server_copy_action {
	SERVER_COPY_NONE,
	SERVER_COPY_LEAVE,	 /* copy mode ended */
	SERVER_COPY_SEARCH_UP,	 /* open the "search up: " prompt */
	SERVER_COPY_SEARCH_DOWN, /* open the "search down: " prompt */
	SERVER_COPY_COPIED,	 /* text to copy (malloc'd), copy mode ended */
	SERVER_COPY_MESSAGE,	 /* a message for the status line */
};

struct server_copy_result {
	enum server_copy_action action;
	char *text; /* SERVER_COPY_COPIED: owned by the caller */
	size_t len;
	int source; /* SERVER_COPY_COPIED: the pane's id */
	char message[320];
};

void server_copy_enter(struct server_copy *copy, const struct pane *p, bool page_up);
/* Before drawing: a pane whose program emptied its history since (ED 3)
 * gives copy mode a new view, at its bottom. */
void server_copy_follow(struct server_copy *copy, const struct pane *p);
void server_copy_leave(struct server_copy *copy);
/* A key by its canonical name: its command in tables' "copy-mode"
 * table; an unbound key does nothing. */
void server_copy_key(struct server_copy *copy, const struct pane *p,
		     const struct mode_tables *tables, const char *key,
		     struct server_copy_result *out);
/* A copy command by its name ("cursor-up", mode-tables.c lists them);
 * false if there is no such command. */
bool server_copy_command(struct server_copy *copy, const struct pane *p, const char *command,
			 struct server_copy_result *out);
/* Search for text from the cursor, up (backward) or down; n and N repeat. */
void server_copy_search(struct server_copy *copy, const struct pane *p, const char *text,
			bool backward, struct server_copy_result *out);
/* Scroll the view by lines (negative: up), the cursor kept inside it. */
void server_copy_scroll(struct server_copy *copy, int lines);
bool server_copy_at_bottom(const struct server_copy *copy);

/* Row `row` of the view (0: the pane's top) as copy->cols cells, and
 * for each whether it is selected or part of a match of the last search. */
void server_copy_row(const struct server_copy *copy, const struct pane *p, int row,
		     struct term_cell *cells, bool *selected, bool *matched);
/* "[N/M]": N lines above the bottom, of M in history. */
void server_copy_position(const struct server_copy *copy, char *buf, size_t size);
/* The cursor's row and column in the view. */
void server_copy_cursor(const struct server_copy *copy, int *row, int *col);

/* OSC 52 for text: base64, so copied text cannot smuggle controls out.
 * NULL when it is too big to send (terminals drop huge payloads). */
char *server_copy_osc52(const char *text, size_t len);

#endif
