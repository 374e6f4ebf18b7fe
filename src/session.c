/*
 * session: the server's tree of sessions, windows and panes.
 *
 * A session is a named set of windows sharing one size (its attached
 * clients' as window_size says, or the size it was created with); a window is a
 * layout tree of panes shown together.  When the last pane of a window
 * goes the window goes, and with the last window the session.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "layout.h"
#include "log.h"
#include "os.h"
#include "server.h"
#include "session-egress.h"
#include "pty.h"
#include "term.h"
#include "xalloc.h"

void layout_set_pane_cell(struct pane *p, struct layout_cell *cell)
{
	p->cell = cell;
}

struct session *session_find(const char *name)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

struct session *session_create(const char *name, int cols, int rows)
{
	struct session *s = xcalloc(1, sizeof *s);
	struct session **tail = &server.sessions;

	snprintf(s->name, sizeof s->name, "%s", name);
	s->cols = cols;
	s->rows = rows;
	uv_timer_init(server.loop, &s->frame_timer);
	s->frame_timer.data = s;
	s->timers_open = 1;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = s;
	return s;
}

static void session_on_timer_closed(uv_handle_t *handle)
{
	struct session *s = handle->data;

	if (--s->timers_open == 0)
		free(s);
}

void session_destroy(struct session *s)
{
	struct session **pp;

	while (s->windows != NULL)
		window_destroy(s->windows);
	for (pp = &server.sessions; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		if (c->attached == s) {
			cJSON *ev = cJSON_CreateObject();

			c->attached = NULL;
			/* kill-server ends every session first: its clients say
			 * "[server exited]", as tmux's do, not "[exited]". */
			cJSON_AddStringToObject(ev, "event", "exit");
			cJSON_AddStringToObject(ev, "reason",
						server.exiting ? "server-exit" : "session-ended");
			server_send(c, ev);
		}
	}
	session_egress_close(s->name);
	log_info("session %s ended", s->name);
	uv_close((uv_handle_t *)&s->frame_timer, session_on_timer_closed);
}

/* The lowest index no window of s has, as tmux does: after a few
 * create/kill cycles new windows stay within reach of prefix 0..9. */
static int session_free_index(const struct session *s)
{
	int index = 0;

	/* Windows are kept in index order, so one pass finds the gap. */
	for (const struct window *w = s->windows; w != NULL && w->index == index; w = w->next)
		index++;
	return index;
}

struct window *window_create(struct session *s, struct pane *first)
{
	struct window *w = xcalloc(1, sizeof *w), **pos = &s->windows;

	w->index = session_free_index(s);
	w->session = s;
	snprintf(w->name, sizeof w->name, "%d", w->index);
	w->root = layout_new_leaf(first);
	w->panes = first;
	w->active = first;
	first->window = w;
	first->cell = w->root;
	while (*pos != NULL && (*pos)->index < w->index)
		pos = &(*pos)->next;
	w->next = *pos;
	*pos = w;
	session_focus_window(s, w);
	window_relayout(w);
	return w;
}

/* Renumber a session's windows 0, 1, 2... (the renumber-windows option). */
static void session_renumber_windows(struct session *s)
{
	int index = 0;

	for (struct window *w = s->windows; w != NULL; w = w->next, index++) {
		if (!w->renamed && w->index != index)
			snprintf(w->name, sizeof w->name, "%d", index);
		w->index = index;
	}
}

void window_destroy(struct window *w)
{
	struct session *s = w->session;
	struct window **pp;

	while (w->panes != NULL) {
		struct pane *p = w->panes;
		w->panes = p->next;
		if (p->floating) /* its cell is its own, not the tree's */
			free(p->cell);
		pane_free(p);
	}
	layout_free(w->root);
	for (pp = &s->windows; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	/* Back to the window used last, as tmux does, else the first. */
	if (s->active == w)
		s->active = s->last != NULL && s->last != w ? s->last : s->windows;
	if (s->last == w || s->last == s->active)
		s->last = NULL;
	free(w);
	if (server.renumber_windows)
		session_renumber_windows(s);
}

void window_focus_pane(struct window *w, struct pane *p)
{
	/* Another pane gets the focus: the zoom ends, as in tmux, or the
	 * screen would show the zoomed pane while keys went to a hidden one. */
	if (w->zoomed != NULL && w->zoomed != p) {
		w->zoomed = NULL;
		window_relayout(w);
	}
	if (p->floating)
		float_focused(p);
	if (w->active == p)
		return;
	w->last_active = w->active;
	w->active = p;
}

void session_focus_window(struct session *s, struct window *w)
{
	if (s->active == w)
		return;
	s->last = s->active;
	s->active = w;
}


void window_display_name(const struct window *w, char *out, size_t size)
{
	char comm[64] = "";
	pid_t fg;

	if (w->renamed || w->active == NULL || w->active->master < 0) {
		snprintf(out, size, "%s", w->name);
		return;
	}
	/* A microvm pane's terminal belongs to qemu on the host: what runs
	 * in the guest is out of the host kernel's sight, so the window is
	 * named after the program the pane was started with (its shell). */
	if (w->active->launch.confirmed && w->active->launch.backend == SANDBOX_MICROVM &&
	    w->active->program[0] != 0) {
		snprintf(out, size, "%s", w->active->program);
		return;
	}
	/* The pane's foreground process group leader, as the kernel names
	 * it (comm: at most 15 bytes, set by the program; the client
	 * sanitises it like any pane text).  A native pane's group is a
	 * host pid: tcgetpgrp answers in the server's pid namespace. */
	fg = pty_foreground(w->active->master);
	if (fg > 0)
		os_process_name(fg, comm, sizeof comm);
	snprintf(out, size, "%s", comm[0] ? comm : w->name);
}

void window_relayout(struct window *w)
{
	struct session *s = w->session;

	if (w->root == NULL)
		return;
	layout_apply(w->root, 0, 0, s->cols, s->rows);
	for (struct pane *p = w->panes; p != NULL; p = p->next) {
		struct layout_cell *c = p->cell;
		if (p->floating && w->zoomed != p) {
			float_relayout(p);
			continue;
		}
		if (w->zoomed == p)
			pane_resize(p, s->cols, s->rows - 1);
		else
			pane_resize(p, c->w, c->h - 1);
		p->x = w->zoomed == p ? 0 : c->x;
		p->y = w->zoomed == p ? 1 : c->y + 1;
	}
}

struct pane *pane_find(int id)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				if (p->id == id)
					return p;
	return NULL;
}

void session_resize(struct session *s, int cols, int rows)
{
	if (cols < 10)
		cols = 10;
	if (rows < 3)
		rows = 3;
	if (cols == s->cols && rows == s->rows)
		return;
	s->cols = cols;
	s->rows = rows;
	for (struct window *w = s->windows; w != NULL; w = w->next)
		window_relayout(w);
	server_broadcast_layout(s);
}

/* Which attached clients size a session, as tmux's window-size says:
 * the one used last (latest, tmux 3.3's default: a key, a click, an
 * attach or its terminal resized), or the smallest or largest in each
 * direction.  A client larger than its session shows the rest blank; a
 * smaller one shows what fits. */
void session_fit_clients(struct session *s)
{
	int cols = 0, rows = 0;
	const struct conn *latest = NULL;

	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		/* The client's rows but its status line's. */
		int window_rows = c->client_rows - (c->client_status ? 1 : 0);
		bool first = cols == 0;

		if (c->attached != s)
			continue;
		if (server.window_size == WINDOW_SIZE_LATEST) {
			if (latest == NULL || c->active_at > latest->active_at) {
				latest = c;
				cols = c->client_cols;
				rows = window_rows;
			}
			continue;
		}
		bool smallest = server.window_size == WINDOW_SIZE_SMALLEST;
		if (first || (smallest ? c->client_cols < cols : c->client_cols > cols))
			cols = c->client_cols;
		if (first || (smallest ? window_rows < rows : window_rows > rows))
			rows = window_rows;
	}
	if (cols > 0)
		session_resize(s, cols, rows);
	server_update_focus(s);
}

void session_client_active(struct conn *c)
{
	c->active_at = ++server.activity;
	if (server.window_size == WINDOW_SIZE_LATEST && c->attached != NULL)
		session_fit_clients(c->attached);
}

void window_detach_pane(struct pane *p)
{
	struct window *w = p->window;
	struct pane **pp;

	for (pp = &w->panes; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	p->next = NULL;
	if (p->floating) {
		free(p->cell);
		p->floating = false;
	} else {
		w->root = layout_remove(w->root, p->cell);
	}
	p->cell = NULL;
	if (w->zoomed == p)
		w->zoomed = NULL;
	/* Back to the pane used last, as tmux does, else the first. */
	if (w->active == p)
		w->active = w->last_active != NULL && w->last_active != p ? w->last_active : w->panes;
	if (w->last_active == p || w->last_active == w->active)
		w->last_active = NULL;
}

void pane_remove(struct pane *p)
{
	struct window *w = p->window;
	struct session *s = w->session;

	window_detach_pane(p);
	pane_free(p);
	/* Floating panes float over tiled ones: with the last tiled pane
	 * the window goes, its floating panes with it. */
	if (w->root == NULL) {
		window_destroy(w);
		if (s->windows == NULL) {
			session_destroy(s);
			server_maybe_exit();
			return;
		}
	} else {
		window_relayout(w);
	}
	server_broadcast_layout(s);
}
