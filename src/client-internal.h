/*
 * client-internal: the state the client's files share.
 *
 *   client.c        connection, event loop, protocol messages, requests
 *   client-model.c  the client's copy of every pane (layout, frames), and
 *                   the text sanitiser every drawn string goes through
 *   client-draw.c   ncurses drawing: colours, borders, titles, banners,
 *                   status line, overlays
 *   client-keys.c   keyboard and mouse: prefix, prompt, forwarding
 *   client-cmd.c    the command table (":" prompt and key bindings)
 *   client-copy.c   copy mode: history, search, selection, OSC 52
 *   client-choose.c choose mode: choose-tree, choose-buffer
 *
 * Ownership: struct client owns every pane view, buffer and the copy-mode
 * snapshot; client.c frees them when the client leaves.
 */
#ifndef SANDMUX_CLIENT_INTERNAL_H
#define SANDMUX_CLIENT_INTERNAL_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "bindings.h"
#include "config.h"
#include "theme.h"

/* A cell: a base character and up to three combining marks. */
#define CELL_CHARS 4

struct cell {
	wchar_t chars[CELL_CHARS]; /* 0-terminated; chars[0] == 0 is blank */
	uint8_t width;		   /* 1, 2 for a wide character, 0 for its right half */
	uint8_t attrs;		   /* protocol attribute bits (THEME_ATTR_* and more) */
	struct theme_color fg, bg;
};

#define CELL_ATTR_STRIKE 0x20
#define CELL_ATTR_CONCEAL 0x80

struct pane_view {
	int id;
	int x, y, cols, rows; /* content rectangle; the title is row y-1 */
	bool active;
	bool mouse;	  /* the program asked for mouse reports */
	char backend[16]; /* what really wraps it; "" while unconfirmed */
	char accelerator[8]; /* microvm: "kvm" or "tcg", from the details */
	char profile[32]; /* the sandbox profile (terminal, agent, the config's) */
	char requested[16];
	char state[16];
	char reason[512];
	char hint[512];
	char title[256];
	char cwd[512];
	int violations;
	bool bell; /* rang while not focused; the server clears it on focus */
	char notice[256]; /* a notification (OSC 9, 777) until focused; "" none */
	int progress_state, progress; /* OSC 9;4: state 0 none, and percentage */
	uint64_t title_drawn; /* hash of what the title line shows, 0 none */
	struct cell *cells; /* rows * cols */
	bool *row_dirty;
	int cursor_x, cursor_y;
	bool cursor_visible;
};

struct window_view {
	int index;
	char name[64];
	bool active;
	bool bell; /* a pane in it rang */
	bool denied; /* a pane in it was denied something since it was shown */
};

enum client_mode { MODE_NORMAL, MODE_PROMPT, MODE_COPY, MODE_HELP, MODE_CHOOSE, MODE_DISPLAY_PANES };

/* Choose mode (client-choose.c): what the list holds. */
enum choose_kind { CHOOSE_TREE, CHOOSE_BUFFER };
/* Where choose-tree opens: -s on the sessions (collapsed), -w on the
 * current window, else on the active pane. */
enum choose_start { CHOOSE_START_PANE, CHOOSE_START_SESSIONS, CHOOSE_START_WINDOWS };

struct choose_item {
	int depth;  /* tree: 0 session, 1 window, 2 pane; buffers: 0 */
	int parent; /* index of the item it is under, -1 none */
	bool expandable, expanded;
	char key[96];	 /* what it is across refreshes: "work", "work:1", "%3", a buffer */
	char target[96]; /* what Enter names: switch-client -t, paste-buffer -b */
	char before[192]; /* the line: before, the label (coloured), after, violations */
	char label[48];
	char backend[16]; /* the label's colour: none, native, microvm */
	char state[16];
	char after[640];
	int violations; /* -1: not a pane */
};

struct choose_list {
	enum choose_kind kind;
	enum choose_start start;
	struct choose_item *items; /* in tree order */
	size_t nitems;
	int selected; /* index into items, always a visible one; -1 none */
	int top;      /* first visible row shown */
	int generation; /* tells replies for an earlier list apart */
};

/* What a line typed at the status-line prompt is for. */
enum prompt_purpose {
	PROMPT_COMMAND,
	PROMPT_CONFIRM,
	PROMPT_ASK, /* ask mode's question: a allows, d refuses (client-ask.c) */
	PROMPT_SEARCH_DOWN,
	PROMPT_SEARCH_UP
};

struct prompt {
	enum prompt_purpose purpose;
	char label[256];
	char text[512]; /* UTF-8 */
	size_t length;
	size_t cursor; /* byte offset of the cursor in text, at a character start */
	int history_at; /* Up/Down: lines back into the history; 0 the line being typed */
	char typed[512]; /* the line being typed, kept while the history is browsed */
	char confirm_command[BINDING_COMMAND_MAX];
	int ask_pane;	    /* PROMPT_ASK: the pane whose connection waits */
	char ask_host[256]; /* ... and the host it asked for */
	bool ask_clipboard; /* ... or it asks to write the clipboard (clipboard.c) */
	/* command-prompt's TEMPLATE: run with %% replaced by the text typed
	 * ("" none: the text itself is the command). */
	char template[BINDING_COMMAND_MAX];
	/* Tab: the matches when there were several, shown above the prompt
	 * ("" none); and a count of edits, so a completion the server
	 * answers late is dropped once the line changed. */
	char candidates[512];
	int edits;
	enum client_mode return_mode; /* where to go when the prompt closes */
};

struct copy_mode {
	int pane;
	int cols, rows;	     /* pane size when copy mode began */
	struct cell **lines; /* [history oldest .. newest][screen rows] */
	int nlines;
	int history_total; /* lines the server holds; -1 until known */
	int history_loaded;
	bool fetching;
	bool screen_from_server; /* lines' screen rows came with the history */
	int top;    /* first line shown */
	bool exit_at_bottom; /* entered by the wheel: scrolled back to the bottom, it ends (tmux) */
	int cy, cx; /* cursor, in line/column */
	bool selecting;
	int sel_y, sel_x; /* selection anchor */
	char search[256];
	bool search_backward; /* the direction of the last / or ? */
	bool search_waiting;  /* a search continues when more history arrives */
	bool waiting_backward; /* ... in this direction */
	int pending_scroll;  /* lines to scroll once history arrives */
	/* OSC 133 prompts (the `prompts` request): their rows when copy
	 * mode began (negative: history; line history_loaded + row), and a
	 * jump up that waits for history to arrive. */
	int *prompt_rows;
	int nprompts;
	bool prompt_waiting;
	int generation;	     /* tells replies for an earlier copy mode apart */
};

/* A reply handler: result is NULL when the request failed (error set). */
struct client;
typedef void (*reply_fn)(struct client *c, const cJSON *result, const cJSON *error, int arg);

#define PENDING_MAX 64

struct pending_request {
	int id;
	reply_fn on_reply;
	int arg;
	char what[32];
};

struct drag {
	bool active;
	int pane;	      /* pane whose right or bottom edge moves */
	bool vertical_border; /* true: the border is a column, moves left/right */
	int last_x, last_y;
	int start_x, start_y;
	int press_pane; /* pane clicked on, focused if the press was no drag */
};

struct echo_share;

struct client {
	int fd;
	char *inbuf;
	size_t inlen, incap;
	char *outbuf;
	size_t outlen, outcap;
	int next_id;
	struct pending_request pending[PENDING_MAX];
	char replying_to[32]; /* the command whose reply is being handled */

	char session[128];
	int cols, rows; /* our terminal */
	struct pane_view *panes;
	size_t npanes;
	struct window_view *windows;
	size_t nwindows;
	bool zoomed;
	bool attached;

	struct config config;
	struct theme theme;
	struct binding_table bindings;
	bool prefix_pending;
	/* Command prompt history (oldest first), this client's own copy. */
	char **prompt_history;
	int prompt_history_len;
	char paste_name[32]; /* the buffer the last paste-buffer named ("" the top) */
	/* A repeating binding ran (tmux's bind -r): until then (monotonic
	 * ms) another repeating key runs without the prefix; 0 none. */
	long long repeat_until;

	enum client_mode mode;
	struct prompt prompt;
	struct copy_mode copy;
	struct choose_list choose;
	/* display-panes: the numbers go at this time (monotonic ms; 0: at
	 * the next key only). */
	long long display_panes_until;
	int help_offset;
	/* A command's printed output shown in the help overlay's place
	 * (`ls`, `list-panes`... at the prompt, as tmux's view mode), its
	 * lines sanitised; NULL: the overlay lists the key bindings. */
	char **view;
	int nview;
	char view_title[64];

	char message[512];
	bool message_is_error;
	long long message_until; /* monotonic ms */

	char pending_text[1024]; /* typed characters, sent as one text event */
	size_t pending_text_len;

	struct drag drag;

	bool use_color;
	bool direct_color;
	int ncolors;
	bool redraw_all;
	bool dirty;

	bool exiting;
	/* The echo page shared with the server (echo-share.h), or NULL. */
	struct echo_share *echo;
	uint64_t echo_patches_seen; /* the page's patch count at the last layout */
	uint64_t lines_read; /* lines of the connection handled, the hello reply too */
	char echo_path[PATH_MAX];
	char echo_tty[256];
	int input_pipe[2];	  /* ncurses reads keys from [0] (client-echo.c) */
	FILE *input_file;	  /* [0] as ncurses' input */
	void *screen;		  /* ncurses' SCREEN made by newterm, or NULL */
	bool server_reads_tty;	  /* the server reads the terminal, not us */
	unsigned long tty_seq;	  /* last tty-input chunk handled */
	bool passthrough_asked;	  /* the server was told text may pass */
	bool has_ech;		  /* terminfo: ech is CSI n X */
	int exit_code;
	char exit_message[1024];
};

/* client.c */
long long client_now_ms(void);

/* client-echo.c */
void client_echo_open(struct client *c, const char *socket_path);
void client_echo_close(struct client *c);
void client_echo_hold(struct client *c);
void client_echo_release(struct client *c);
void client_echo_publish(struct client *c, int pane_rows_on_screen);
void client_echo_forget_regions(struct client *c);
void client_draw_repaint_row(int screen_y);
FILE *client_echo_input(struct client *c);
void client_echo_read_terminal(struct client *c);
void client_echo_on_input(struct client *c, const cJSON *event);
void client_echo_hand_over(struct client *c, bool server_reads);
void client_echo_passthrough(struct client *c);
int client_request(struct client *c, cJSON *request, reply_fn on_reply, int arg);
void client_view_close(struct client *c);
void client_show_message(struct client *c, bool is_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void client_reply_report_error(struct client *c, const cJSON *result, const cJSON *error, int arg);
void client_leave(struct client *c, int exit_code, const char *message);
void client_send_key(struct client *c, const char *name);
void client_flush_text(struct client *c);
void client_write_tty(const char *bytes, size_t len);
void client_write_all(int fd, const char *bytes, size_t len);

/* client-model.c */
struct pane_view *client_pane(struct client *c, int id);
struct pane_view *client_active_pane(struct client *c);
/* client-format.c: a status_left/status_right text, the time and formats
 * (format.h) expanded from the client's copy of the session. */
void client_status_text(struct client *c, const char *text, char *out, size_t size);
/* The same formats alone, no strftime (command-prompt -I "#W"). */
void client_format_text(struct client *c, const char *text, char *out, size_t size);
struct pane_view *client_pane_at(struct client *c, int x, int y);
bool client_pane_visible(const struct client *c, const struct pane_view *pane);
void client_apply_layout(struct client *c, const cJSON *layout);
void client_apply_frame(struct client *c, const cJSON *frame);
void cells_from_runs(const cJSON *runs, struct cell *row, int cols);
void cells_blank(struct cell *cells, int n);
void client_model_free(struct client *c);
/* Decode UTF-8 to wide characters safe to draw: control characters and
 * invalid bytes become U+FFFD, bidirectional overrides are dropped.
 * Returns the number of characters written (out is 0-terminated). */
size_t sanitize_text(const char *utf8, wchar_t *out, size_t max);
/* UTF-8 of a row of cells [from, to), trailing blanks trimmed. */
size_t cells_to_utf8(const struct cell *row, int from, int to, char *out, size_t size);

/* client-draw.c */
void client_draw_init(struct client *c);
void client_draw(struct client *c);

/* client-keys.c */
void client_read_input(struct client *c);
void client_prompt_open(struct client *c, enum prompt_purpose purpose, const char *label,
			const char *initial);

/* client-ask.c: ask mode's question in the status line. */
void client_ask_event(struct client *c, const cJSON *event);
void client_ask_answer(struct client *c, const char *key);
/* A pane's clipboard write the server let through (clipboard.c), onto
 * the terminal's clipboard (client-copy.c). */
void client_clipboard_event(struct client *c, const cJSON *event);
void client_clipboard_tty(const char *text, size_t len);

/* client-cmd.c */
int client_run_command(struct client *c, const char *line);
/* The client's own parts of commands (client-cmd.c, named in
 * command-table.c). */
struct command_parsed;
int client_cmd_select_pane(struct client *c, struct command_parsed *parsed);
int client_cmd_detach(struct client *c, struct command_parsed *parsed);
int client_cmd_copy_mode(struct client *c, struct command_parsed *parsed);
int client_cmd_paste_buffer(struct client *c, struct command_parsed *parsed);
int client_cmd_send_prefix(struct client *c, struct command_parsed *parsed);
int client_cmd_command_prompt(struct client *c, struct command_parsed *parsed);
int client_cmd_list_keys(struct client *c, struct command_parsed *parsed);
int client_cmd_bind_key(struct client *c, struct command_parsed *parsed);
int client_cmd_confirm_before(struct client *c, struct command_parsed *parsed);
int client_cmd_display_message(struct client *c, struct command_parsed *parsed);
int client_cmd_source_file(struct client *c, struct command_parsed *parsed);
int client_cmd_allow(struct client *c, struct command_parsed *parsed);
int client_cmd_record(struct client *c, struct command_parsed *parsed);
int client_cmd_display_panes(struct client *c, struct command_parsed *parsed);

/* client-choose.c: choose-tree and choose-buffer. */
void choose_open(struct client *c, enum choose_kind kind, enum choose_start start);
void choose_key(struct client *c, const char *name, int page);
/* A layout arrived: an open tree is asked for again. */
void choose_layout_changed(struct client *c);
/* The item shown on row (0 the first of the list), or -1. */
int choose_item_at(const struct client *c, int row);
/* Scroll so the selection is within rows rows. */
void choose_scroll(struct client *c, int rows);
int client_cmd_choose_tree(struct client *c, struct command_parsed *parsed);
int client_cmd_choose_buffer(struct client *c, struct command_parsed *parsed);

/* client-copy.c */
void copy_mode_enter(struct client *c, int pane, bool page_up);
void copy_mode_leave(struct client *c);
void copy_mode_key(struct client *c, const char *name);
void copy_mode_scroll(struct client *c, int lines);
/* The view shows the pane's last line (no scroll still waiting). */
bool copy_mode_at_bottom(const struct client *c);
void copy_mode_search(struct client *c, const char *text, bool backward);
void copy_mode_pane_gone(struct client *c);
void copy_mode_draw_line(const struct client *c, int screen_row, struct cell *out, int cols,
			 bool *selected, bool *matched);
void copy_mode_position(const struct client *c, char *buf, size_t size);
void copy_mode_cursor(const struct client *c, int *x, int *y);

#endif
