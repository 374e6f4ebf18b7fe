/*
 * server: the process that owns everything that must outlive a client —
 * sessions, windows, the layout trees, panes with their PTYs and
 * emulators, sandboxes and the event bus.  It never draws to a terminal;
 * clients talk to it over the JSON-lines protocol (docs/protocol.md).
 *
 * Ownership: the server owns the session list; a session owns its
 * windows; a window owns its layout tree and panes; a connection is owned
 * by the server until it closes.
 */
#ifndef SANDMUX_SERVER_H
#define SANDMUX_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "backend.h"
#include "config.h"
#include "error.h"
#include "layout.h"
#include "sandbox.h"
#include "strvec.h"

struct cJSON;
struct term;
struct layout_cell;
struct window;
struct session;

#define PROTOCOL_VERSION 1
#define MAX_LINE (1024 * 1024)
#define ECHO_WINDOW_MS 100 /* output this soon after input is an echo */

struct pane {
	int id;
	struct window *window;
	struct layout_cell *cell;
	struct term *term;

	int master; /* -1 once closed */
	uv_poll_t poll;
	bool poll_active;
	char *pending_input; /* bytes for the pane not yet written */
	size_t npending_input;
	uv_poll_t status_poll; /* backend confirmation (active while pending) */
	bool status_poll_active; /* status_poll is open: closed with the pane */
	int open_handles; /* libuv handles still closing */
	uv_timer_t flood_timer; /* paces reads during sustained output */
	bool flood_timer_active;
	size_t last_read; /* bytes read at the last wakeup */
	/* Synchronized output (DECSET 2026): the update being held
	 * (term_sync_count), its timer (initialised on first use), and
	 * whether it ran out, which lets its damage go until the next. */
	unsigned sync_update;
	uv_timer_t sync_timer;
	bool sync_timer_open;
	bool sync_expired;
	/* A clipboard write (OSC 52) waiting for a person's answer under
	 * set_clipboard "ask" (clipboard.c): the latest only. */
	char *clipboard_held;
	size_t clipboard_held_len;
	char sent_title[256]; /* title and mouse mode in the last layout */
	bool sent_mouse;
	bool bell; /* rang while not focused: marked until it is (server_pane_bell) */
	bool focused; /* the program was last told it has the focus (server_update_focus) */
	/* A notification (OSC 9, 777) that came while not focused, shown in
	 * the title until it is (server_pane_notice); "" none. */
	char notice[256];
	int sent_progress_state, sent_progress; /* OSC 9;4 in the last layout */
	uint64_t input_ms; /* when input was last written to it */
	bool polling_writable;

	struct launch_result launch;
	const struct backend_ops *ops;
	enum sandbox_backend requested;
	bool requested_explicitly;
	enum sandbox_state state;
	char profile[32];
	char session_name[64]; /* for events emitted before it joins a window */
	char reason[512];
	char hint[160];
	bool exited;
	int exit_status; /* shell-style: signal n is 128+n */
	bool remain_on_exit;
	int violations;
	/* The second its last violation came in (monotonic), how many came
	 * in it, and whether the pane makes more than 1,000 a second
	 * (events-fold.c); flood_total counts the flood's violations. */
	long flood_second;
	int flood_count, flood_total;
	bool flooding;
	int violations_seen; /* as many as when its window was last shown */
	/* Names of the secret-looking variables a sandboxed pane was
	 * started without (secret-env.h); never their values. */
	struct strvec withheld_env;
	struct strvec command; /* the argv it was started with; empty: the default shell */
	bool feed; /* the violation feed pane (cmd_feed) */
	/* A floating pane (float.c): a box over the tiled layout, not in the
	 * split tree (its cell stands alone); the box asked for, its place
	 * in the stack (higher is drawn later), and whether it is a popup
	 * (display-popup: one-shot, never saved). */
	bool floating;
	bool popup;
	struct layout_float float_want;
	unsigned float_z;

	char cwd[PATH_MAX];	    /* where it started */
	char program[64];	    /* its command's name (argv[0]'s last component) */
	char current_path[PATH_MAX]; /* where its shell is now (pane-cwd.c), "" unknown */
	uint64_t cwd_checked_ms;
	bool cwd_stale; /* output came while checks were rate-limited */
	int x, y, cols, rows; /* content rectangle in the window */
	double started_at;
	struct pane *next; /* in the window's pane list */
};

struct window {
	int index;
	char name[64];
	struct session *session;
	struct layout_cell *root;
	struct pane *panes;
	struct pane *active;
	struct pane *last_active; /* focused before active: last-pane, and after a kill */
	struct pane *zoomed;
	bool renamed; /* rename-window: name sticks; otherwise it follows the program */
	char shown[64]; /* the name in the last layout sent (automatic-rename) */
	int preset_used; /* 1 + the preset select-layout applied last; 0 none */
	bool floats_hidden; /* toggle-floating: its floating panes kept but not shown */
	struct window *next; /* in index order */
};

struct session {
	char name[64];
	int cols, rows; /* window area (client size less the status line) */
	struct window *windows;
	struct window *active;
	struct window *last; /* used before active: last-window, and after a kill */
	bool frame_pending;
	int timers_open;
	uv_timer_t frame_timer;
	uint64_t last_frame_ms;
	bool layout_dirty;     /* server_layout_dirty */
	uint64_t layout_sent; /* uv_now at its last layout */
	struct session *next;
};

/* A pane as a client last had it in a layout (server.c). */
struct shown_pane {
	int id, cols, rows;
};

struct conn {
	uv_pipe_t pipe;
	uv_shutdown_t shutdown;
	char *buf;
	size_t len, cap;
	bool hello_done;
	bool closing;
	bool refused; /* told why; input ignored until the peer hangs up */
	size_t discarded;
	struct session *attached;
	int client_cols, client_rows;
	/* The terminal's own size when the server draws it (it may be
	 * smaller than the least client size the session takes). */
	int terminal_cols, terminal_rows;
	unsigned long active_at; /* server.activity at its last key, mouse or attach */
	bool client_status; /* the client keeps its last row for a status line */
	bool needs_full; /* fell behind: one full redraw when drained */
	/* The panes of the last layout sent: the client has their cells
	 * (server_send_layout sends a full frame for any other). */
	struct shown_pane *shown;
	size_t nshown;
	struct session *pending_attach; /* attach after the reply is sent */
	bool subscribed;
	bool pending_backlog; /* send the backlog after the reply */
	int sub_pane;
	char sub_session[64];
	char sub_action[32];
	/* The client's terminal when the server owns it (server-tty.c). */
	struct client_tty *ctty;
	struct conn *next;
};

struct server {
	uv_loop_t *loop;
	double started_at; /* seconds since the epoch: older events are "earlier" */
	uv_pipe_t listener;
	uv_signal_t sigchld, sigterm, sigint, sighup;
	uv_timer_t name_timer; /* automatic-rename (server.c) */
	uv_prepare_t layout_prepare; /* server_layout_dirty's one layout a turn */
	uv_timer_t layout_timer;     /* and its turn after LAYOUT_SPACING_MS */
	char socket_path[PATH_MAX];
	char name[64];
	struct session *sessions;
	struct conn *conns;
	int next_pane_id;
	int scrollback;
	char default_shell[256];
	enum sandbox_backend default_backend;
	bool default_backend_set;
	bool inherit_backend; /* the config's inherit_backend */
	bool sandbox_off;
	bool foreground; /* server -f: the startup line goes to stderr too */
	bool renumber_windows; /* the config's renumber_windows: no gaps after a kill */
	enum window_size window_size; /* the config's window_size (set-option) */
	unsigned long activity; /* counts client activity: conn.active_at */
	bool paste_across_ask; /* the config's paste_across_backends is "ask" */
	enum set_clipboard set_clipboard; /* the config's set_clipboard (clipboard.c) */
	bool exiting;
	char **environ; /* environment captured at start, for panes */
	pid_t *orphans; /* killed pane processes not yet reaped */
	size_t norphans;
	/* The pane input was last written to, and when: while its echo may
	 * still come, other panes are read in small bites (pane.c). */
	int typed_pane;
	uint64_t typed_ms;
	bool echo_due; /* ... and its echo has not gone out yet (server.c) */
};

extern struct server server;

/* server.c */
int server_main(int argc, char **argv);
void server_send(struct conn *c, struct cJSON *msg); /* takes ownership */
void server_broadcast_layout(struct session *s);
/* The layout of s is out of date (a violation counted): one layout goes
 * to its clients at the end of this loop turn, however many marked it. */
void server_layout_dirty(struct session *s);
/* Clients hold no cells of p any more (a pane respawned in place): the
 * next layout sends its full frame. */
void server_forget_pane(const struct pane *p);
/* The pane's program rang the bell: attached clients hear of it, and a
 * pane that is not the focused one is marked until it is. */
void server_pane_bell(struct pane *p);
void server_update_focus(struct session *s);
/* The pane's program sent a notification (text: its own, untrusted). */
void server_pane_notice(struct pane *p, const char *text);
void server_session_damaged(struct session *s);
/* A pane's screen changed: coalesced, unless it is a fresh echo. */
void server_pane_damaged(struct pane *p);
void server_push_status(struct session *s, const char *text);
void server_maybe_exit(void);
/* A killed pane's process: reap it when it dies (SIGCHLD, or at exit). */
void server_reap_later(pid_t pid);
uint64_t server_now_ms(void);

/* session-store.c: sessions written down as session files
 * (docs/sessions.md), by `save`, on kill-server and once a minute. */
int session_store_dir(char *out, size_t size);
int session_store_path(const char *name, char *out, size_t size);
void session_store_save_all(const char *why);
/* kill-session: the user ended it, so it is no longer offered. */
void session_store_forget(const char *name);
void session_store_start(void);

/* server-tty.c: a client's terminal passed to the server, which reads
 * its keys and draws it (issue 28's model). */
struct client_tty;
struct server_tty_options {
	const char *term, *colorterm; /* the client's TERM and COLORTERM */
	const char *theme;	      /* NULL: the config's */
	const char *config;	      /* the client's config file (its environment's) */
	bool utf8;		      /* the client's locale; else ASCII */
	bool no_color;		      /* the client's NO_COLOR */
	const char *cwd;	      /* the client's working directory; NULL: unknown */
};
int server_tty_attach(struct conn *c, const struct server_tty_options *options,
		      struct sm_error *err);
/* Give the terminal back as it was found (idempotent). */
void server_tty_detach(struct conn *c);
void server_tty_draw_session(struct session *s);
/* The panes' changed rows (screen-draw.h) drawn on every client of s
 * whose screen holds nothing else new, the whole screen on the others
 * (server-tty.c). */
struct screen_damage;
void server_tty_draw_damage(struct session *s, const struct screen_damage *damage, int n);
/* The session's layout changed: choose-tree's list is asked again, and
 * the screen drawn. */
void server_tty_layout(struct conn *c);
void server_tty_resize(struct conn *c);
/* A line in the client's status line for a few seconds. */
void server_tty_message(struct conn *c, bool is_error, const char *text);
/* The client's terminal in `list`: its pid, size and the bytes the server
 * holds for it (a terminal that stopped reading). */
void server_tty_to_json(const struct conn *c, struct cJSON *client);
/* A key's command failed (an error reply without an id): in the status line. */
void server_tty_error(struct conn *c, const char *code, const char *message);
/* Ask mode's question (an `ask` push: a held connection or clipboard
 * write) in the client's status line, a or d answering. */
void server_tty_ask(struct conn *c, const struct cJSON *event);
/* A pane's clipboard write let through (the `clipboard` push,
 * clipboard.c) onto the terminal's clipboard with OSC 52. */
void server_tty_clipboard(struct conn *c, const char *text);
/* send-keys -X: each of commands (strings, checked first) run in the
 * copy mode of every client that has p in it; invalid_command for a
 * name copy mode does not have, invalid_state when no client has p in
 * copy mode. */
int server_tty_mode_commands(struct pane *p, const struct cJSON *commands, struct sm_error *err);
/* Whether the client's terminal has the user's focus: false after
 * it reported focus out (DECSET 1004, CSI O) until focus in; true for a
 * client that draws itself. */
bool server_tty_focused(const struct conn *c);
/* Bytes drawn for the client's terminal that it has not taken yet. */
bool server_tty_pending(const struct conn *c);
/* Whether a client's terminal has bytes (keys, mouse) the server has
 * not read yet: a pane's read stops for them (pane.c).  At most 16
 * terminals are looked at. */
bool server_tty_keys_waiting(void);
/* Read and act on what those terminals have waiting, now. */
void server_tty_read_waiting(void);
/* A pane of w rang: the terminal's bell, as the config's bell_action says. */
void server_tty_bell(struct conn *c, const struct window *w);
/* A pane in the window rang since it was focused; a window not shown
 * had a denial since it was (the status line's ! and D). */
bool window_rang(const struct window *w);
bool window_denied(const struct window *w);

/* cmd-format.c: a pane's format context, for a client of that size. */
struct format_context;
void format_pane_context(struct pane *p, int client_cols, int client_rows,
			 struct format_context *ctx);

/* session.c */
struct session *session_find(const char *name);
struct session *session_create(const char *name, int cols, int rows);
void session_destroy(struct session *s);
struct window *window_create(struct session *s, struct pane *first);
void window_destroy(struct window *w);
void window_relayout(struct window *w);
/* Focus changes go through these, so the one used before is remembered. */
void window_focus_pane(struct window *w, struct pane *p);
void session_focus_window(struct session *s, struct window *w);
/* The name shown for a window: the one given by rename-window, else
 * the program in the foreground of its active pane (tmux's
 * automatic-rename), else its index. */
void window_display_name(const struct window *w, char *out, size_t size);
struct pane *pane_find(int id);
void session_resize(struct session *s, int cols, int rows);
void session_fit_clients(struct session *s);
/* The client pressed a key, clicked or attached: under window_size
 * latest its size becomes its session's. */
void session_client_active(struct conn *c);
/* Take a pane out of its window's list and layout, leaving the window
 * (even empty) to the caller: break-pane and join-pane move it on. */
void window_detach_pane(struct pane *p);
/* Remove a pane from its window (closing window/session as they empty). */
void pane_remove(struct pane *p);

/* float.c: floating panes, over a window's tiled layout. */
/* Shown now: floating, its window's floats not hidden, nothing zoomed. */
bool pane_float_shown(const struct pane *p);
/* Its box for the window's size: content rectangle and PTY. */
void float_relayout(struct pane *p);
/* A floating pane given the focus: on top, and shown if hidden. */
void float_focused(struct pane *p);
/* The shown floating pane whose box holds x, y, the topmost; corner:
 * the press was on its bottom-right corner (resize), title: on its top
 * row or border (move). */
struct pane *float_at(struct window *w, int x, int y, bool *corner, bool *border);
/* The shown floating panes of w, lowest first (at most max). */
int float_stack(struct window *w, struct pane **out, int max);
/* Move a floating pane's box to x, y, or size it w x h (clamped). */
void float_move(struct pane *p, int x, int y);
void float_resize(struct pane *p, int w, int h);
/* The pane a split or a hidden float's focus goes to: the active pane
 * when it is tiled, else the one used before, else the first tiled. */
struct pane *window_tiled_pane(struct window *w);
/* p is its window's last tiled pane and floating panes float over it:
 * moving it out would leave them over nothing. */
bool pane_holds_floats(const struct pane *p);

/* pane.c */
struct pane_spawn {
	const char *session; /* name of the session it will belong to */
	char **argv; /* NULL: the default shell */
	const char *cwd;
	struct cJSON *env; /* object of extra variables, may be NULL */
	enum sandbox_backend backend;
	bool backend_explicit;
	const char *profile;
	bool remain_on_exit;
	int rows, cols;
	int id; /* respawn-pane: the id the pane keeps; 0: a new one */
	const struct cJSON *screen; /* restored: lines shown before the program starts */
};
struct pane *pane_new(const struct pane_spawn *spawn, struct sm_error *err);
void pane_free(struct pane *p);
void pane_resize(struct pane *p, int cols, int rows);
/* The program is inside a synchronized update (DECSET 2026) that has
 * not timed out: its damage is not sent to clients yet. */
bool pane_output_held(const struct pane *p);
/* The typed key's echo is drawn: the panes left unread for it are read
 * again on the next loop turn. */
void pane_echo_drawn(void);
void pane_kill(struct pane *p, const char *reason);
void pane_reap(pid_t pid, int status);
struct cJSON *pane_to_json(const struct pane *p);
const char *pane_backend_label(const struct pane *p);

/* pane-cwd.c: the pane's current directory (OSC 7, else /proc). */
/* Output arrived: refresh, rate-limited; true if the path changed. */
bool pane_cwd_output(struct pane *p);
/* Where the shell is now, else where it started. */
const char *pane_current_path(struct pane *p);
/* The directory a pane started from p opens in (out, or p->cwd). */
const char *pane_cwd_for_new_pane(const struct pane *p, char *out, size_t size);
/* clipboard.c: a program's OSC 52 write (data, owned from here) under
 * set_clipboard; at the pane's end, what it held goes. */
void clipboard_pane_wrote(struct pane *p, char *data, size_t len);
/* buffers.c: the server's paste buffers (newest first). */
struct paste_buffer {
	char name[32];
	char *text;
	size_t len;
	bool automatic; /* named by the server (bufferN): dropped past the limit */
	bool from_pane; /* copied from a pane (else set from the command line) */
	enum sandbox_backend backend; /* that pane's backend */
	char label[32]; /* that pane's label, as its title shows it */
	int confirmed_for; /* pane id a paste across backends was confirmed for */
	struct paste_buffer *next;
};
struct paste_buffer *buffers_list(void);
struct paste_buffer *buffers_find(const char *name);
/* Set a buffer (name NULL: a new automatic one at the top); source is the
 * pane the text was copied from, or NULL. */
struct paste_buffer *buffers_set(const char *name, const char *text, size_t len,
				 const struct pane *source);
bool buffers_delete(const char *name);
/* At exit: every buffer goes (buffers are the server's, not saved). */
void buffers_clear(void);

/* prompt-history.c: at exit, the prompt history goes. */
void prompt_history_clear(void);
/* A line run at the prompt, and the lines so far, oldest first (the
 * server's own prompt, server-tty.c). */
void prompt_history_add(const char *line);
const char *const *prompt_history_lines(int *count);

/* events.c */
int events_open(const char *state_dir);
void events_close(void);
void events_emit(struct cJSON *event); /* takes ownership */
/* Replay the recent events matching the connection's filters. */
void events_send_backlog(struct conn *c);
struct cJSON *events_lifecycle(const char *kind, const struct pane *p);
/* A violation made in pane p (NULL: none; the session's proxies): v's
 * pane, session, backend and profile are p's, whatever the source said,
 * and its time now when it has none; then written and emitted. */
void events_violation(struct sandbox_violation *v, const struct pane *p);

/* cmd.c */
void cmd_dispatch(struct conn *c, struct cJSON *req);

/* paths.c */
int paths_socket(const char *name, char *out, size_t size, struct sm_error *err);
int paths_state_dir(char *out, size_t size);
/* STATE/home-layer: where the copy-on-write homes live (home-layer.h). */
int paths_home_layer_root(char *out, size_t size);

#endif
