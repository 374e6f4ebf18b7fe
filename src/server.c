/*
 * server: the long-lived process (see server.h).
 *
 * One libuv loop serves the listening socket, every client connection,
 * every pane's PTY and the frame timers.  Requests are JSON lines handed
 * to the command table (cmd.c); replies and pushed events go back as JSON
 * lines.  A client that stops reading is never allowed to stall the
 * loop: its frames are dropped and replaced by one full redraw once its
 * socket drains, while pane data keeps flowing into the emulators.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "config.h"
#include "sandbox-limits.h"
#include "grant.h"
#include "home-layer.h"
#include "log.h"
#include "os.h"
#include "profile.h"
#include "screen-draw.h"
#include "server.h"
#include "term.h"
#include "jsonl.h"
#include "xalloc.h"

#define FRAME_INTERVAL_MS 16 /* at most ~60 frames a second */
#define BACKLOG_LIMIT (4 * 1024 * 1024) /* bytes queued before a client is "behind" */
#define NAME_INTERVAL_MS 500 /* automatic-rename's look at each window's program, as tmux's */

struct server server;

static void server_on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
static void server_on_frame_timer(uv_timer_t *timer);


uint64_t server_now_ms(void)
{
	return uv_hrtime() / 1000000;
}

/* --- writing to clients --------------------------------------------- */

struct write_req {
	uv_write_t req;
	struct conn *conn;
	char *data;
};

static void conn_on_closed(uv_handle_t *handle)
{
	struct conn *c = handle->data;

	free(c->buf);
	free(c->shown);
	free(c);
}

static void conn_close(struct conn *c)
{
	struct conn **pp;
	struct session *s = c->attached;

	if (c->closing)
		return;
	c->closing = true;
	for (pp = &server.conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	c->attached = NULL;
	server_tty_detach(c);
	if (s != NULL)
		session_fit_clients(s);
	uv_close((uv_handle_t *)&c->pipe, conn_on_closed);
}

/* Frames for every visible pane of the session (all rows with full). */
static void server_send_frames(struct session *s, struct conn *only, bool full);

static void server_on_write(uv_write_t *req, int status)
{
	struct write_req *wr = (struct write_req *)req;
	struct conn *c = wr->conn;

	free(wr->data);
	free(wr);
	if (status < 0 || c->closing)
		return;
	/* A client that fell behind gets one full redraw once drained. */
	if (c->needs_full && c->attached != NULL &&
	    uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) == 0) {
		c->needs_full = false;
		server_send_frames(c->attached, c, true);
	}
}

static void server_send_raw(struct conn *c, char *data, size_t len)
{
	struct write_req *wr;
	uv_buf_t buf;

	if (c->closing) {
		free(data);
		return;
	}
	/* Most messages go out at once: straight to the socket, without a
	 * write request and the poll changes libuv makes for one. */
	size_t sent = 0;
	if (uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) == 0) {
		buf = uv_buf_init(data, len);
		int n = uv_try_write((uv_stream_t *)&c->pipe, &buf, 1);
		if (n > 0)
			sent = (size_t)n;
		if (sent == len) {
			free(data);
			return;
		}
	}
	wr = xmalloc(sizeof *wr);
	wr->conn = c;
	wr->data = data;
	buf = uv_buf_init(data + sent, len - sent);
	if (uv_write(&wr->req, (uv_stream_t *)&c->pipe, &buf, 1, server_on_write) < 0) {
		free(data);
		free(wr);
		conn_close(c);
	}
}

void server_send(struct conn *c, cJSON *msg)
{
	const cJSON *event = cJSON_GetObjectItemCaseSensitive(msg, "event");
	char *text;
	size_t len;

	/* A client told to go gives its terminal back at once: not one more
	 * keystroke of the shell's may be read here. */
	if (cJSON_IsString(event) && strcmp(event->valuestring, "exit") == 0) {
		server_tty_detach(c);
	}
	/* A client whose terminal the server draws is shown what went wrong
	 * with a key's command (a notification's error: id null), and the
	 * status pushes, in its status line. */
	if (c->ctty != NULL && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(msg, "id")) &&
	    cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(msg, "ok"))) {
		const cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");
		const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"));
		const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"));

		server_tty_error(c, code, text);
		cJSON_Delete(msg);
		return;
	}
	if (c->ctty != NULL && cJSON_IsString(event) &&
	    strcmp(event->valuestring, "clipboard") == 0) {
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(msg, "text");

		if (cJSON_IsString(text))
			server_tty_clipboard(c, text->valuestring);
		cJSON_Delete(msg);
		return;
	}
	if (c->ctty != NULL && cJSON_IsString(event) && strcmp(event->valuestring, "ask") == 0) {
		server_tty_ask(c, msg);
		cJSON_Delete(msg);
		return;
	}
	if (c->ctty != NULL && cJSON_IsString(event) && strcmp(event->valuestring, "status") == 0) {
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(msg, "text");

		if (cJSON_IsString(text))
			server_tty_message(c, false, text->valuestring);
		cJSON_Delete(msg);
		return;
	}
	/* A client whose terminal the server draws gets no layouts or frames. */
	if (c->ctty != NULL && cJSON_IsString(event) &&
	    (strcmp(event->valuestring, "layout") == 0 || strcmp(event->valuestring, "frame") == 0)) {
		cJSON_Delete(msg);
		return;
	}
	text = jsonl_line(msg, &len);
	cJSON_Delete(msg);
	server_send_raw(c, text, len);
}

static bool conn_behind(struct conn *c)
{
	return uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) > BACKLOG_LIMIT;
}

/* --- layout and frames ---------------------------------------------- */

bool window_rang(const struct window *w)
{
	for (const struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->bell)
			return true;
	return false;
}

/* A window not on screen where a pane was denied something since the
 * window was last shown: the status line marks it (docs/keys.md). */
bool window_denied(const struct window *w)
{
	for (const struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->violations > p->violations_seen)
			return true;
	return false;
}

static cJSON *server_layout_json(struct session *s, const struct conn *c)
{
	cJSON *ev = cJSON_CreateObject(), *windows, *panes;
	struct window *aw = s->active;

	cJSON_AddStringToObject(ev, "event", "layout");
	cJSON_AddStringToObject(ev, "session", s->name);
	cJSON_AddNumberToObject(ev, "cols", c ? c->client_cols : s->cols);
	cJSON_AddNumberToObject(ev, "rows", c ? c->client_rows : s->rows + 1);
	windows = cJSON_AddArrayToObject(ev, "windows");
	for (struct window *w = s->windows; w != NULL; w = w->next) {
		cJSON *wo = cJSON_CreateObject();
		char name[sizeof w->shown];

		cJSON_AddNumberToObject(wo, "index", w->index);
		window_display_name(w, name, sizeof name);
		cJSON_AddStringToObject(wo, "name", name);
		cJSON_AddBoolToObject(wo, "active", w == aw);
		cJSON_AddBoolToObject(wo, "bell", window_rang(w));
		cJSON_AddBoolToObject(wo, "denied", w != aw && window_denied(w));
		cJSON_AddItemToArray(windows, wo);
	}
	cJSON_AddBoolToObject(ev, "zoomed", aw != NULL && aw->zoomed != NULL);
	panes = cJSON_AddArrayToObject(ev, "panes");
	if (aw != NULL) {
		for (struct pane *p = aw->panes; p != NULL; p = p->next) {
			if (aw->zoomed != NULL && aw->zoomed != p)
				continue;
			cJSON_AddItemToArray(panes, pane_to_json(p));
		}
	}
	return ev;
}

static void server_send_pane_frame(struct session *s, struct pane *p, struct conn *only, bool full);
static bool pane_visible(const struct window *w, const struct pane *p);

static bool client_has_pane(const struct conn *c, const struct pane *p)
{
	for (size_t i = 0; i < c->nshown; i++)
		if (c->shown[i].id == p->id)
			return c->shown[i].cols == p->cols && c->shown[i].rows == p->rows;
	return false;
}

/* A layout to one client, and then the full frame of every pane it
 * lists that the client has no cells for.  The client keeps a pane's
 * cells only while the pane stays in its layouts at the same size (a
 * pane new to it, or resized, starts blank); frames
 * carry only damage, so without this a window switched to, or a pane
 * shown again after a zoom, would be drawn blank until its program
 * wrote something. */
static void server_send_layout(struct conn *c, struct session *s)
{
	struct window *w = s->active;
	struct shown_pane *shown;
	size_t n = 0;

	if (c->ctty != NULL) {
		/* The names drawn now: automatic-rename's timer looks for a change. */
		for (struct window *v = s->windows; v != NULL; v = v->next)
			window_display_name(v, v->shown, sizeof v->shown);
		server_tty_layout(c);
		return;
	}
	server_send(c, server_layout_json(s, c));
	for (struct pane *p = w != NULL ? w->panes : NULL; p != NULL; p = p->next)
		n++;
	shown = xcalloc(n + 1, sizeof *shown);
	n = 0;
	for (struct pane *p = w != NULL ? w->panes : NULL; p != NULL; p = p->next) {
		if (!pane_visible(w, p))
			continue;
		if (!client_has_pane(c, p))
			server_send_pane_frame(s, p, c, true);
		shown[n++] = (struct shown_pane){.id = p->id, .cols = p->cols, .rows = p->rows};
	}
	free(c->shown);
	c->shown = shown;
	c->nshown = n;
}

/* The pane a person looks at: its window's active pane, in the
 * session's active window. */
static bool pane_focused(const struct pane *p)
{
	const struct session *s = p->window->session;

	return s->active == p->window && p->window->active == p;
}

void server_pane_bell(struct pane *p)
{
	struct session *s = p->window->session;
	bool mark = !pane_focused(p) && !p->bell;

	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		cJSON *ev;

		if (c->attached != s)
			continue;
		server_tty_bell(c, p->window);
		ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", "bell");
		cJSON_AddNumberToObject(ev, "pane", p->id);
		cJSON_AddNumberToObject(ev, "window", p->window->index);
		server_send(c, ev);
	}
	if (mark) {
		p->bell = true;
		server_broadcast_layout(s);
	}
}

/* Focus events (DECSET 1004): a pane has the focus while it is the one
 * a person looks at (pane_focused) and a client is attached to its
 * session whose terminal has the focus (server_tty_focused); a program
 * that asked is told each change (term-state.c).  Called wherever the
 * focus or the session's clients change: every focus change sends a
 * layout (server_broadcast_layout), every attach and
 * detach fits the session to its clients (session_fit_clients). */
void server_update_focus(struct session *s)
{
	bool watched = false;

	for (struct conn *c = server.conns; c != NULL && !watched; c = c->next)
		watched = c->attached == s && server_tty_focused(c);
	for (struct window *w = s->windows; w != NULL; w = w->next)
		for (struct pane *p = w->panes; p != NULL; p = p->next) {
			bool focused = watched && pane_focused(p);
			if (focused != p->focused) {
				p->focused = focused;
				term_focus(p->term, focused);
			}
		}
}

void server_pane_notice(struct pane *p, const char *text)
{
	if (pane_focused(p))
		return;
	snprintf(p->notice, sizeof p->notice, "%s", text);
	server_broadcast_layout(p->window->session);
}

void server_forget_pane(const struct pane *p)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		for (size_t i = 0; i < c->nshown; i++)
			if (c->shown[i].id == p->id)
				c->shown[i].cols = -1;
}

void server_broadcast_layout(struct session *s)
{
	s->layout_dirty = false;
	if (server.loop != NULL)
		s->layout_sent = uv_now(server.loop);
	/* Every focus change sends a layout: a focused pane's mark goes. */
	if (s->active != NULL && s->active->active != NULL) {
		s->active->active->bell = false;
		s->active->active->notice[0] = '\0';
	}
	/* The window on screen shows its panes' denials itself. */
	for (struct pane *p = s->active != NULL ? s->active->panes : NULL; p != NULL; p = p->next)
		p->violations_seen = p->violations;
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->attached == s)
			server_send_layout(c, s);
	server_update_focus(s);
}

/* Violations come in bursts (a build denied a thousand opens): each
 * marks its session, and one layout per session goes out when the loop
 * has run every callback of this turn, as tmux's notify.c queues its
 * notifications, rather than one layout to every client per violation.
 * A loop that keeps up with a burst still turns once per violation or
 * two, so a marked layout also waits until LAYOUT_SPACING_MS have passed
 * since the session's last one: the timer wakes the loop for it then,
 * and the last count of a burst is always sent.
 * (tests/integration/layout-batch.sh) */
#define LAYOUT_SPACING_MS 50

static void server_on_layout_timer(uv_timer_t *timer)
{
	(void)timer; /* the turn it wakes runs server_on_layout_prepare */
}

static void server_on_layout_prepare(uv_prepare_t *prepare)
{
	uint64_t now = uv_now(server.loop), wait = 0;

	(void)prepare;
	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		if (!s->layout_dirty)
			continue;
		if (now - s->layout_sent >= LAYOUT_SPACING_MS) {
			server_broadcast_layout(s);
		} else {
			uint64_t left = s->layout_sent + LAYOUT_SPACING_MS - now;

			if (wait == 0 || left < wait)
				wait = left;
		}
	}
	if (wait > 0)
		uv_timer_start(&server.layout_timer, server_on_layout_timer, wait, 0);
}

void server_layout_dirty(struct session *s)
{
	s->layout_dirty = true;
}

void server_push_status(struct session *s, const char *text)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		if (c->attached != s)
			continue;
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", "status");
		cJSON_AddStringToObject(ev, "text", text);
		server_send(c, ev);
	}
}

static void color_to_json(cJSON *run, const char *key, const struct term_color *col)
{
	char hex[8];

	if (col->kind == TERM_COLOR_PALETTE) {
		cJSON_AddNumberToObject(run, key, col->index);
	} else if (col->kind == TERM_COLOR_RGB) {
		snprintf(hex, sizeof hex, "#%02x%02x%02x", col->r, col->g, col->b);
		cJSON_AddStringToObject(run, key, hex);
	} else {
		cJSON_AddNumberToObject(run, key, -1);
	}
}

static void frame_add_run(const struct term_style *style, const char *utf8, size_t len, int col,
			  int cells, void *user)
{
	cJSON *runs = user, *run = cJSON_CreateObject();
	char *text = xstrndup(utf8, len);

	cJSON_AddStringToObject(run, "t", text);
	free(text);
	cJSON_AddNumberToObject(run, "x", col);
	cJSON_AddNumberToObject(run, "w", cells);
	color_to_json(run, "fg", &style->fg);
	color_to_json(run, "bg", &style->bg);
	cJSON_AddNumberToObject(run, "a", style->attrs);
	cJSON_AddItemToArray(runs, run);
}

cJSON *server_row_json(struct term *t, int row)
{
	cJSON *ro = cJSON_CreateObject();

	cJSON_AddNumberToObject(ro, "y", row);
	term_row_runs(t, row, frame_add_run, cJSON_AddArrayToObject(ro, "runs"));
	return ro;
}

static cJSON *server_frame_json(struct pane *p, bool full)
{
	cJSON *ev = cJSON_CreateObject(), *cursor, *rows;
	int cy, cx;

	term_cursor(p->term, &cy, &cx);
	cJSON_AddStringToObject(ev, "event", "frame");
	cJSON_AddNumberToObject(ev, "pane", p->id);
	cJSON_AddBoolToObject(ev, "full", full);
	cursor = cJSON_AddObjectToObject(ev, "cursor");
	cJSON_AddNumberToObject(cursor, "x", cx);
	cJSON_AddNumberToObject(cursor, "y", cy);
	cJSON_AddBoolToObject(cursor, "visible", term_cursor_visible(p->term));
	rows = cJSON_AddArrayToObject(ev, "rows");
	for (int r = 0; r < term_rows(p->term); r++)
		if (full || term_row_damaged(p->term, r))
			cJSON_AddItemToArray(rows, server_row_json(p->term, r));
	return ev;
}

/* Send one pane's damaged rows (or all of them) to every attached
 * protocol client that keeps up, or to `only`.  Damage is cleared once
 * sent to all (clients whose terminal the server draws read the grid
 * itself: server_tty_draw_session). */
static void server_send_pane_frame(struct session *s, struct pane *p, struct conn *only, bool full)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *frame;

	/* A cursor that moved is damage like a changed cell: a cursor key
	 * changes no cell, and its frame is all that moves the cursor. */
	if (!full && !term_any_damage(p->term) && !term_cursor_damaged(p->term))
		return;
	/* An update the program wants seen whole is not framed until it
	 * ends (pane.c, synchronized output): its damage stays.  A full
	 * frame (an attach, a client that fell behind) shows what there is. */
	if (!full && pane_output_held(p))
		return;
	/* The frame is built when the first client that gets it is found:
	 * with no protocol client attached it is not built at all. */
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		char *copy;
		if (c->attached != s || (only != NULL && c != only) || c->ctty != NULL)
			continue;
		if (conn_behind(c)) {
			c->needs_full = true;
			continue;
		}
		if (text == NULL) {
			frame = server_frame_json(p, full);
			text = jsonl_line(frame, &len);
			cJSON_Delete(frame);
		}
		copy = xmalloc(len);
		memcpy(copy, text, len);
		server_send_raw(c, copy, len);
	}
	free(text);
	if (only == NULL)
		term_damage_clear(p->term);
}

static bool pane_visible(const struct window *w, const struct pane *p)
{
	return w != NULL && p->window == w && (w->zoomed == NULL || w->zoomed == p);
}

/* A pane's damage as the tty writer takes it, read before its frame
 * clears it: the rows that changed, or NULL when none did (the cursor
 * moved).  A pane holding an update back (synchronized output) has
 * none to give. */
static bool pane_damage_take(struct pane *p, struct screen_damage *damage)
{
	int rows = term_rows(p->term);
	bool *changed = NULL;

	if (pane_output_held(p) || (!term_any_damage(p->term) && !term_cursor_damaged(p->term)))
		return false;
	for (int r = 0; r < rows; r++) {
		if (!term_row_damaged(p->term, r))
			continue;
		/* As long as the pane's rows, which the draw walks. */
		if (changed == NULL)
			changed =
			    xcalloc((size_t)(rows > p->rows ? rows : p->rows), sizeof *changed);
		changed[r] = true;
	}
	*damage = (struct screen_damage){.pane = p, .rows = changed};
	return true;
}

static void damage_free(struct screen_damage *damage, int n)
{
	for (int i = 0; i < n; i++)
		free((bool *)damage[i].rows);
	free(damage);
}

static void server_send_frames(struct session *s, struct conn *only, bool full)
{
	struct window *w = s->active;
	struct screen_damage *damage;
	int n = 0, npanes = 0;

	if (w == NULL)
		return;
	if (only != NULL || full) {
		for (struct pane *p = w->panes; p != NULL; p = p->next)
			if (pane_visible(w, p))
				server_send_pane_frame(s, p, only, full);
		server_tty_draw_session(s);
		s->last_frame_ms = server_now_ms();
		return;
	}
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		npanes++;
	damage = xcalloc((size_t)npanes + 1, sizeof *damage);
	/* The typist's pane first: its rows go out ahead of a flood's. */
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->id == server.typed_pane && pane_visible(w, p) &&
		    pane_damage_take(p, &damage[n]))
			n++;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->id != server.typed_pane && pane_visible(w, p) &&
		    pane_damage_take(p, &damage[n]))
			n++;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (pane_visible(w, p))
			server_send_pane_frame(s, p, NULL, false);
	/* Nothing changed in a pane: what the tick was asked for is the
	 * chrome's, drawn whole. */
	if (n == 0)
		server_tty_draw_session(s);
	else
		server_tty_draw_damage(s, damage, n);
	damage_free(damage, n);
	s->last_frame_ms = server_now_ms();
}

/* How long a frame tick keeps other panes' frames back while a typed
 * key's echo is due in the session (echo_hold_ms). */
#define TYPIST_HOLD_MS 50

/* Milliseconds the session's frame tick should still wait for the echo
 * of a key typed into one of its visible panes: 0 when none is due.  A
 * frame of a flooding pane sent just before the echo is a whole redraw
 * the client must make before it reads the echo's frame. */
static uint64_t echo_hold_ms(const struct session *s)
{
	uint64_t since = server_now_ms() - server.typed_ms;
	struct window *w = s->active;

	if (!server.echo_due || since >= TYPIST_HOLD_MS || w == NULL)
		return 0;
	for (struct pane *p = w->panes; p != NULL; p = p->next)
		if (p->id == server.typed_pane && pane_visible(w, p))
			return TYPIST_HOLD_MS - since;
	return 0;
}

static void server_on_frame_timer(uv_timer_t *timer)
{
	struct session *s = timer->data;
	uint64_t hold = echo_hold_ms(s);

	if (hold > 0) {
		uv_timer_start(&s->frame_timer, server_on_frame_timer,
			       hold < FRAME_INTERVAL_MS ? hold : FRAME_INTERVAL_MS, 0);
		return;
	}
	s->frame_pending = false;
	server_send_frames(s, NULL, false);
}

static bool session_has_clients(const struct session *s)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->attached == s)
			return true;
	return false;
}

/* Whether a visible pane of s other than p has damage not yet drawn. */
static bool session_other_damage(const struct session *s, const struct pane *p)
{
	const struct window *w = s->active;

	for (const struct pane *q = w != NULL ? w->panes : NULL; q != NULL; q = q->next)
		if (q != p && pane_visible(w, q) &&
		    (term_any_damage(q->term) || term_cursor_damaged(q->term)))
			return true;
	return s->frame_pending;
}

/* A pane that was typed into recently answers at once, even while
 * another pane floods the session: the echo of a keystroke must not wait
 * for the flood's frame tick.  Only that pane's rows go out early. */
void server_pane_damaged(struct pane *p)
{
	struct session *s = p->window->session;

	if (server_now_ms() - p->input_ms < ECHO_WINDOW_MS && pane_visible(s->active, p) &&
	    session_has_clients(s)) {
		struct screen_damage damage;

		if (pane_output_held(p)) {
			server_send_pane_frame(s, p, NULL, false);
			server_tty_draw_session(s);
		} else {
			/* No damage still draws the cursor (its visibility). */
			if (!pane_damage_take(p, &damage))
				damage = (struct screen_damage){.pane = p};
			server_send_pane_frame(s, p, NULL, false);
			server_tty_draw_damage(s, &damage, 1);
			free((bool *)damage.rows);
		}
		if (p->id == server.typed_pane && server.echo_due) {
			/* The echo is out: the frames held for it follow (none
			 * when no other pane changed meanwhile). */
			server.echo_due = false;
			pane_echo_drawn();
			if (session_other_damage(s, p))
				server_session_damaged(s);
		}
		return;
	}
	server_session_damaged(s);
}

void server_session_damaged(struct session *s)
{
	uint64_t now, due, hold;
	bool attached = false;

	for (struct conn *c = server.conns; c != NULL && !attached; c = c->next)
		attached = c->attached == s;
	if (!attached || s->frame_pending)
		return;
	hold = echo_hold_ms(s);
	if (hold > 0) {
		s->frame_pending = true;
		uv_timer_start(&s->frame_timer, server_on_frame_timer,
			       hold < FRAME_INTERVAL_MS ? hold : FRAME_INTERVAL_MS, 0);
		return;
	}
	/* After a quiet spell the frame goes out on the next loop turn (a
	 * keystroke echo never waits for a tick); sustained output is
	 * coalesced to one frame per interval. */
	now = server_now_ms();
	due = s->last_frame_ms + FRAME_INTERVAL_MS;
	if (due <= now) {
		server_send_frames(s, NULL, false);
		return;
	}
	s->frame_pending = true;
	uv_timer_start(&s->frame_timer, server_on_frame_timer, due - now, 0);
}

void server_attach(struct conn *c, struct session *s)
{
	/* A new attach has no cells of any pane: every frame goes full. */
	c->nshown = 0;
	c->attached = s;
	session_fit_clients(s);
	server_send_layout(c, s);
}

void server_attach_later(struct conn *c, struct session *s)
{
	c->pending_attach = s;
}

/* --- reading requests ----------------------------------------------- */

static void conn_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
	static char slab[65536];

	buf->base = slab;
	buf->len = sizeof slab;
}

static void conn_reply_error(struct conn *c, const char *code, const char *message)
{
	cJSON *reply = cJSON_CreateObject(), *error;

	cJSON_AddNullToObject(reply, "id");
	cJSON_AddBoolToObject(reply, "ok", false);
	error = cJSON_AddObjectToObject(reply, "error");
	cJSON_AddStringToObject(error, "code", code);
	cJSON_AddStringToObject(error, "message", message);
	server_send(c, reply);
}

static void conn_handle_line(struct conn *c, char *line)
{
	cJSON *req = cJSON_Parse(line);

	if (req == NULL || !cJSON_IsObject(req)) {
		cJSON_Delete(req);
		conn_reply_error(c, SM_ERR_PARSE_ERROR, "request is not a JSON object");
		return;
	}
	cmd_dispatch(c, req);
	cJSON_Delete(req);
}

/* Stop serving a client but let it read why: half-close our side and
 * discard its input until it hangs up (or sends far too much). */
static void conn_refuse(struct conn *c)
{
	c->refused = true;
	c->len = 0;
	c->discarded = 0;
	if (c->attached != NULL) {
		struct session *s = c->attached;
		c->attached = NULL;
		session_fit_clients(s);
	}
	c->subscribed = false;
	uv_shutdown(&c->shutdown, (uv_stream_t *)&c->pipe, NULL);
}

static void conn_consume(struct conn *c, const char *data, size_t len)
{
	size_t start = 0;

	if (c->len + len > c->cap) {
		c->cap = c->len + len + 4096;
		c->buf = xrealloc(c->buf, c->cap);
	}
	memcpy(c->buf + c->len, data, len);
	c->len += len;
	for (size_t i = c->len - len; i < c->len && !c->closing; i++) {
		if (c->buf[i] != '\n')
			continue;
		c->buf[i] = '\0';
		if (i > start)
			conn_handle_line(c, c->buf + start);
		start = i + 1;
	}
	if (c->closing)
		return;
	memmove(c->buf, c->buf + start, c->len - start);
	c->len -= start;
	if (c->len > MAX_LINE) {
		/* Only this client goes: it cannot be resynchronised. */
		conn_reply_error(c, SM_ERR_LINE_TOO_LONG, "request line exceeds 1 MiB; closing");
		conn_refuse(c);
	}
}

static void server_on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *c = stream->data;

	if (nread < 0) {
		conn_close(c);
		return;
	}
	if (nread > 0 && c->refused) {
		c->discarded += nread;
		if (c->discarded > 16 * MAX_LINE)
			conn_close(c);
		return;
	}
	if (nread > 0)
		conn_consume(c, buf->base, nread);
}

static bool peer_uid_ok(uv_pipe_t *pipe)
{
	uid_t uid;
	uv_os_fd_t fd;

	if (uv_fileno((uv_handle_t *)pipe, &fd) < 0 || os_peer_credentials(fd, &uid, NULL) != 0)
		return false;
	return uid == getuid();
}

static void server_on_connection(uv_stream_t *listener, int status)
{
	struct conn *c;

	if (status < 0)
		return;
	c = xcalloc(1, sizeof *c);
	/* An IPC pipe: a thin client's attach brings its terminal's
	 * descriptors (server-tty.c). */
	uv_pipe_init(server.loop, &c->pipe, 1);
	c->pipe.data = c;
	if (uv_accept(listener, (uv_stream_t *)&c->pipe) < 0) {
		uv_close((uv_handle_t *)&c->pipe, conn_on_closed);
		return;
	}
	c->next = server.conns;
	server.conns = c;
	uv_read_start((uv_stream_t *)&c->pipe, conn_alloc, server_on_read);
	if (!peer_uid_ok(&c->pipe)) {
		/* Another user must not drive our panes.  Say why, then
		 * half-close so the peer reads the reason before EOF. */
		conn_reply_error(c, SM_ERR_PEER_UID_MISMATCH, "peer runs as another user; refused");
		conn_refuse(c);
	}
}

/* --- lifetime ------------------------------------------------------- */

void server_reap_later(pid_t pid)
{
	if (pid <= 0)
		return;
	server.orphans = xrealloc(server.orphans, (server.norphans + 1) * sizeof *server.orphans);
	server.orphans[server.norphans++] = pid;
}

/* Reap killed panes' processes; with wait_ms > 0, wait for them. */
static void server_reap_orphans(int wait_ms)
{
	for (int waited = 0;; waited += 10) {
		size_t kept = 0;
		for (size_t i = 0; i < server.norphans; i++)
			if (waitpid(server.orphans[i], NULL, WNOHANG) == 0)
				server.orphans[kept++] = server.orphans[i];
		server.norphans = kept;
		if (kept == 0 || waited >= wait_ms)
			return;
		usleep(10000);
	}
}

static void server_on_stop_timer(uv_timer_t *timer)
{
	server_reap_orphans(2000);
	uv_stop(server.loop);
}

void server_shutdown(const char *reason)
{
	static uv_timer_t stop_timer;

	if (server.exiting)
		return;
	server.exiting = true;
	log_info("server exiting: %s", reason);
	while (server.sessions != NULL)
		session_destroy(server.sessions);
	buffers_clear();
	prompt_history_clear();
	native_prepared_discard();
	microvm_prepared_discard();
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", "exit");
		cJSON_AddStringToObject(ev, "reason", "server-exit");
		server_send(c, ev);
	}
	unlink(server.socket_path);
	uv_close((uv_handle_t *)&server.listener, NULL);
	/* Let queued replies drain before the loop stops. */
	uv_timer_init(server.loop, &stop_timer);
	uv_timer_start(&stop_timer, server_on_stop_timer, 50, 0);
}

void server_maybe_exit(void)
{
	if (server.sessions == NULL)
		server_shutdown("last session ended");
}

static bool server_reap_one_pane(void)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next) {
				pid_t pid = p->launch.pid;
				int status;
				if (p->exited || pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
					continue;
				pane_reap(pid, status);
				return true;
			}
	return false;
}

/* tmux's automatic-rename: the program in a window's active pane can
 * change without any output or focus change telling the server, so the
 * names of watched sessions are looked at every NAME_INTERVAL_MS (tmux's
 * NAME_INTERVAL) and a layout goes out when one differs from what
 * clients were shown.  This timer and a layout are the only lookups
 * (an ioctl and a /proc read each): the status line draws w->shown, so
 * a key's echo costs no system call for a name. */
static void server_on_name_timer(uv_timer_t *timer)
{
	(void)timer;
	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		bool watched = false, changed = false;
		char name[sizeof s->windows->shown];

		for (struct conn *c = server.conns; c != NULL && !watched; c = c->next)
			watched = c->attached == s;
		for (struct window *w = s->windows; watched && w != NULL; w = w->next) {
			window_display_name(w, name, sizeof name);
			if (strcmp(name, w->shown) != 0) {
				memcpy(w->shown, name, sizeof w->shown);
				changed = true;
			}
		}
		if (changed)
			server_broadcast_layout(s);
	}
}

static void server_on_signal(uv_signal_t *handle, int signum)
{
	if (signum == SIGCHLD) {
		/* Only our panes' pids: waitpid(-1) would steal the exit
		 * statuses of processes libuv spawned itself.  A reaped pane
		 * may be freed, so the walk starts over after each one. */
		while (server_reap_one_pane())
			;
		server_reap_orphans(0);
		backend_probe_reap();
		return;
	}
	/* SIGTERM is how a machine shutting down ends the server: its
	 * sessions are saved first, as on kill-server. */
	session_store_save_all(strsignal(signum));
	server_shutdown(strsignal(signum));
}

/* Is a live server answering on this path?  A path that refuses
 * connections is a stale socket left by a crashed server. */
static bool server_socket_alive(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = os_socket_cloexec(AF_UNIX, SOCK_STREAM, 0);
	bool alive;

	if (strlen(path) >= sizeof addr.sun_path) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	alive = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
	if (fd >= 0)
		close(fd);
	return alive;
}

static int server_listen(struct sm_error *err)
{
	mode_t old_mask;
	int rc;

	uv_pipe_init(server.loop, &server.listener, 0);
	if (server_socket_alive(server.socket_path)) {
		sm_error_set(err, SM_ERR_SERVER_RUNNING, "a server is already running on %s",
			     server.socket_path);
		return -1;
	}
	if (unlink(server.socket_path) == 0)
		log_info("reclaimed stale socket %s", server.socket_path);
	/* Bind under umask 077 so the socket is never group/world
	 * accessible, not even for an instant before the chmod. */
	old_mask = umask(077);
	rc = uv_pipe_bind(&server.listener, server.socket_path);
	umask(old_mask);
	if (rc == 0)
		rc = chmod(server.socket_path, 0600) < 0 ? -errno : 0;
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&server.listener, 128, server_on_connection);
	if (rc < 0) {
		sm_error_set(err, SM_ERR_LISTEN_FAILED, "cannot listen on %s: %s", server.socket_path,
			     uv_strerror(rc));
		return -1;
	}
	return 0;
}

static void server_usage(FILE *out)
{
	fprintf(out, "usage: sandmux [-L NAME] server [--foreground] [--sandbox on|off] [-v]\n"
		     "  starts the sandmux server (clients start it on first use)\n");
}

struct server_opts {
	bool foreground;
	int verbose;
	const char *sandbox;
	const char *config_path;
};

static int server_parse_args(int argc, char **argv, struct server_opts *o)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' }, { "sandbox", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->sandbox = getenv("SANDMUX_SANDBOX");
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+fvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->foreground = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 's':
			o->sandbox = optarg;
			break;
		case 'c':
			o->config_path = optarg;
			break;
		case 'h':
			server_usage(stdout);
			exit(0);
		default:
			server_usage(stderr);
			return 2;
		}
	}
	if (o->sandbox != NULL && strcmp(o->sandbox, "on") != 0 && strcmp(o->sandbox, "off") != 0) {
		fprintf(stderr, "sandmux: --sandbox takes on or off, not '%s'\n", o->sandbox);
		return 2;
	}
	return 0;
}

static int server_load_config(const char *path)
{
	struct config cfg;
	struct sm_error err = { 0 };
	const char *shell = getenv("SHELL");
	struct sandbox_profile *profiles;
	size_t nprofiles;

	config_defaults(&cfg);
	grant_use_config(path);
	if (config_load(path, &cfg, &err) < 0) {
		/* A broken config must not stop the server: say so, run with
		 * the defaults. */
		log_warn("config: %s: %s (using defaults)", err.code, err.message);
		config_free(&cfg);
		config_defaults(&cfg);
	}
	server.scrollback = cfg.scrollback > 0 ? cfg.scrollback : 10000;
	server.renumber_windows = cfg.renumber_windows;
	server.window_size = cfg.window_size;
	server.paste_across_ask = cfg.paste_across_ask;
	server.set_clipboard = cfg.set_clipboard;
	if (cfg.default_shell[0] != '\0')
		snprintf(server.default_shell, sizeof server.default_shell, "%s", cfg.default_shell);
	else
		snprintf(server.default_shell, sizeof server.default_shell, "%s",
			 shell && shell[0] ? shell : "/bin/sh");
	if (cfg.default_backend_set) {
		server.default_backend = backend_from_name(cfg.default_backend);
		server.default_backend_set = true;
	}
	server.inherit_backend = cfg.inherit_backend;
	profiles = config_take_profiles(&cfg, &nprofiles);
	profile_registry_set(profiles, nprofiles);
	for (size_t i = 0; i < nprofiles; i++)
		log_info("config: profile %s (base %s, mode %s)", profiles[i].name, profiles[i].base,
			 sandbox_mode_name(profiles[i].mode));
	config_free(&cfg);
	return 0;
}

/* Every egress tunnel holds two descriptors and every pane a few: the
 * usual soft limit of 1024 would refuse the thousandth tunnel while the
 * hard limit allows far more.  Panes never inherit the server's fds
 * (pty.c closes all of them, however high). */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		log_warn("cannot raise the open-file limit: %s", strerror(errno));
}

/* Fork into the background; the parent returns only once the child
 * listens (exit 0) or has said why it cannot (exit 1), so the client that
 * started it can connect straight away. */
static int server_daemonize(int *ready_fd)
{
	int fds[2];
	pid_t pid;
	char msg[600];
	ssize_t n;

	if (os_pipe_cloexec(fds, 0) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(fds[1]);
		n = read(fds[0], msg, sizeof msg - 1);
		if (n <= 0)
			_exit(1);
		msg[n] = '\0';
		if (msg[0] == '+')
			_exit(0);
		fprintf(stderr, "sandmux: %s\n", msg + 1);
		_exit(1);
	}
	close(fds[0]);
	setsid();
	{
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	*ready_fd = fds[1];
	return 0;
}

static void server_ready(int ready_fd, const struct sm_error *err)
{
	char msg[600];
	int len;

	if (ready_fd < 0) {
		if (err != NULL)
			fprintf(stderr, "sandmux: %s\n", err->message);
		return;
	}
	len = snprintf(msg, sizeof msg, "%c%s", err ? '-' : '+', err ? err->message : "");
	if (write(ready_fd, msg, len) < 0)
		log_warn("cannot tell the starter we are ready");
	close(ready_fd);
}

/* The probe's native part is complete (docs/design.md invariant 5: once,
 * fixed for the server's life): its startup line, and what bounds a
 * native pane. */
static void server_on_probe(void)
{
	char line[512];

	backend_probe_line(backend_probe_result(), line, sizeof line);
	log_info("%s", line);
	if (server.foreground)
		fprintf(stderr, "%s\n", line);
	if (backend_probe_result()->native.available) {
		limits_probe();
		log_info("%s", limits_probe_summary());
	}
}

/* The log, the config, the events log and the host's probe, whose
 * bwrap check runs beside the server's first requests (only a
 * sandboxed launch waits for it).
 * Never inlined into server_main: its path buffers are then gone from
 * the stack before the loop runs, where every frame under the loop's
 * would otherwise sit deeper for the server's whole life, and stack a
 * process has touched stays resident. */
__attribute__((noinline)) static void server_open_state(const struct server_opts *opts)
{
	char state_dir[PATH_MAX], log_path[PATH_MAX + 128], layer_root[PATH_MAX];
	extern char **environ;

	paths_state_dir(state_dir, sizeof state_dir);
	snprintf(log_path, sizeof log_path, "%s/server-%s.log", state_dir, server.name);
	paths_home_layer_root(layer_root, sizeof layer_root);
	home_layer_set_root(layer_root);
	log_open(opts->foreground ? NULL : log_path, opts->verbose);
	log_info("sandmux server %s starting, pid %d, socket %s", server.name, (int)getpid(),
		 server.socket_path);
	signal(SIGPIPE, SIG_IGN);
	server.environ = environ;
	server.next_pane_id = 1;
	server.foreground = opts->foreground;
	server.sandbox_off = opts->sandbox != NULL && strcmp(opts->sandbox, "off") == 0;
	server_load_config(opts->config_path);
	raise_fd_limit();
	events_open(state_dir);

	backend_probe_notify(server_on_probe);
	backend_probe(server.sandbox_off, NULL);
}

int server_main(int argc, char **argv)
{
	struct server_opts opts = { 0 };
	struct sm_error err = { 0 };
	int ready_fd = -1, rc;

	rc = server_parse_args(argc, argv, &opts);
	if (rc != 0)
		return rc;
	if (server.name[0] == '\0')
		snprintf(server.name, sizeof server.name, "default");
	{
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		server.started_at = now.tv_sec + now.tv_nsec / 1e9;
	}
	if (paths_socket(server.name, server.socket_path, sizeof server.socket_path, &err) < 0) {
		fprintf(stderr, "sandmux: %s\n", err.message);
		return 1;
	}
	if (server_socket_alive(server.socket_path)) {
		fprintf(stderr, "sandmux: a server is already running on %s\n", server.socket_path);
		return 1;
	}
	if (!opts.foreground && server_daemonize(&ready_fd) < 0) {
		perror("sandmux: fork");
		return 1;
	}
	server_open_state(&opts);

	server.loop = uv_default_loop();
	if (server_listen(&err) < 0) {
		log_warn("%s", err.message);
		server_ready(ready_fd, &err);
		return 1;
	}
	uv_signal_init(server.loop, &server.sigchld);
	uv_signal_start(&server.sigchld, server_on_signal, SIGCHLD);
	/* The probe's processes may have ended before SIGCHLD had a
	 * handler. */
	backend_probe_reap();
	uv_signal_init(server.loop, &server.sigterm);
	uv_signal_start(&server.sigterm, server_on_signal, SIGTERM);
	uv_signal_init(server.loop, &server.sigint);
	uv_signal_start(&server.sigint, server_on_signal, SIGINT);
	uv_signal_init(server.loop, &server.sighup);
	uv_signal_start(&server.sighup, server_on_signal, SIGHUP);
	uv_timer_init(server.loop, &server.name_timer);
	uv_timer_start(&server.name_timer, server_on_name_timer, NAME_INTERVAL_MS, NAME_INTERVAL_MS);
	uv_unref((uv_handle_t *)&server.name_timer);
	session_store_start();
	uv_prepare_init(server.loop, &server.layout_prepare);
	uv_prepare_start(&server.layout_prepare, server_on_layout_prepare);
	uv_unref((uv_handle_t *)&server.layout_prepare);
	uv_timer_init(server.loop, &server.layout_timer);
	uv_unref((uv_handle_t *)&server.layout_timer);
	server_ready(ready_fd, NULL);
	uv_run(server.loop, UV_RUN_DEFAULT);
	limits_shutdown();
	events_close();
	log_info("server stopped");
	return 0;
}
