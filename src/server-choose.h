/*
 * server-choose: choose mode when the server owns the terminal, a list
 * to pick from that covers the window (tmux's mode-tree), for
 * choose-tree (sessions, windows, panes with their labels and denials;
 * Enter shows one) and choose-buffer (paste buffers; Enter pastes one,
 * d deletes it).  Pure: the server's own answers to `list` and
 * `list-buffers` in, keys by their canonical names in, the command to
 * run out; screen-draw.c draws it and server-tty.c runs the command.
 */
#ifndef SANDMUX_SERVER_CHOOSE_H
#define SANDMUX_SERVER_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "bindings.h"

struct cJSON;

enum server_choose_kind { SERVER_CHOOSE_TREE, SERVER_CHOOSE_BUFFER };
/* Where choose-tree opens: -s on the sessions (collapsed), -w on the
 * current window, else on the active pane. */
enum server_choose_start {
	SERVER_CHOOSE_START_PANE,
	SERVER_CHOOSE_START_SESSIONS,
	SERVER_CHOOSE_START_WINDOWS
};

/* One line of the list.  Its text is whatever sessions, windows, panes
 * and buffers hold (names, titles, paths, a buffer's start): the drawing
 * shows it only through the sanitiser. */
struct server_choose_item {
	int depth;  /* tree: 0 session, 1 window, 2 pane; buffers: 0 */
	int parent; /* index of the item it is under, -1 none */
	bool expandable, expanded;
	char key[96];	      /* what it is across refreshes: "work", "work:1", "%3", a buffer */
	char target[96];      /* what Enter names: switch-client -t, paste-buffer -b */
	char before[192];     /* the line: before, the label (coloured), the denials, after */
	char label[48];	      /* a buffer's: its pane's backend; a pane's is drawn from: */
	char backend[16];     /* its backend (the label's colour: none, native, microvm), */
	char state[16];	      /* its state (FAILED, starting) */
	char accelerator[16]; /* and a microvm's accelerator, as its title line's */
	char after[640];
	int violations; /* -1: not a pane */
};

struct server_choose {
	bool active;
	enum server_choose_kind kind;
	enum server_choose_start start;
	struct server_choose_item *items; /* in tree order */
	size_t nitems;
	int selected; /* index into items, always a visible one; -1 none */
	int top;      /* first visible row shown */
};

/* Where the client is when choose-tree opens: the item it starts on. */
struct server_choose_place {
	const char *session;
	int window; /* the active window's index */
	int pane;   /* the active pane's id, -1 none */
};

/* choose-tree opened on `list`'s result (its "sessions"). */
void server_choose_open_tree(struct server_choose *ch, enum server_choose_start start,
			     const struct cJSON *result, const struct server_choose_place *place);
/* choose-buffer opened on `list-buffers`' result; false (and nothing
 * opened) when there is no buffer. */
bool server_choose_open_buffers(struct server_choose *ch, const struct cJSON *result);
/* The list asked for again (a layout changed, a buffer was deleted):
 * the selection and what was collapsed stay with their keys.  False
 * when a buffer list came back empty: the mode has ended. */
bool server_choose_refresh(struct server_choose *ch, const struct cJSON *result);
void server_choose_leave(struct server_choose *ch);

/* What a key asked of the caller. */
enum server_choose_action {
	SERVER_CHOOSE_NONE,	   /* moved, or nothing: draw again */
	SERVER_CHOOSE_LEAVE,	   /* the mode ended */
	SERVER_CHOOSE_RUN,	   /* the mode ended: run the command (Enter) */
	SERVER_CHOOSE_RUN_REFRESH, /* run the command, then refresh the list (d) */
};

struct server_choose_result {
	enum server_choose_action action;
	char command[BINDING_COMMAND_MAX];
};

/* A key by its canonical name, through the client's `choose-mode` key
 * table (mode-tables.c); page is how many rows PageUp and PageDown move. */
void server_choose_key(struct server_choose *ch, const struct mode_tables *tables, const char *key,
		       int page, struct server_choose_result *out);
/* Scroll so the selection is within rows shown; then the item shown at
 * row (0 the first), or -1. */
void server_choose_scroll(struct server_choose *ch, int rows);
int server_choose_item_at(const struct server_choose *ch, int row);

#endif
