/*
 * converge: screen convergence, the driver behind tests/tui/converge.sh.
 *
 * The real client runs in a tmux pane, the user's terminal.  This
 * program plays a user at it: a random but seeded sequence of actions
 * (typing, cursor keys, vim and less, splits, kills, windows, zoom,
 * outer resizes, the help overlay, copy mode and its searches).  After
 * each one it waits until the screen has settled -- two snapshots in a
 * row agree, on both sides, and the server says no output is pending --
 * and then compares what the outer tmux shows (capture-pane, the cursor)
 * with the server's own idea of that screen, built here from `list`
 * (geometry, titles, cursors, windows) and `capture` of every visible
 * pane: pane cells at their positions, borders, title lines, the status
 * line, the cursor.  A difference that does not go away within the
 * deadline fails: it prints the seed, the action and both screens.
 *
 * Where the server cannot know what the client shows, the comparison
 * leaves cells out rather than guess: under the help overlay, the clock
 * (its minute may turn between the two snapshots), a copy-mode view after
 * an outer resize (the view is the client's frozen snapshot at the old
 * size), and the whole screen while the outer terminal is below the
 * 10x4 minimum (what fits is the client's choice): the next action grows
 * it back, and that screen is compared in full.  A copy-mode search must
 * leave the cursor on a match (or say "not found").
 *
 * usage: converge SEED ACTIONS TMUX-SOCKET TMUX-CONF TARGET SERVER-NAME
 *                 SESSION DATA-FILE
 * (environment: the test's XDG directories, so the server is its own)
 *
 * CONVERGE_WATCH=TARGET: a second client, in that tmux target, attached
 * to the same session and never typed into.  After each action its
 * screen is compared too, against the same server data at its own size
 * (a client larger than the session shows the rest blank, a smaller one
 * what fits, its status line on its last row): none of the typing
 * client's modes, messages or prefix shows there.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <cjson/cJSON.h>

#include "bindings.h"
#include "cli.h"

#define MAXW 400
#define MAXH 120
#define MAXPANES 32
#define SETTLE_POLL_MS 15
/* How long a screen that differs from the server's is looked at again.
 * A passing comparison returns at once, so the deadline costs nothing
 * there; 10 s rather than 3, because on a machine loaded to 10 and more
 * (make check beside a build, and its own two workers) a client's frame
 * was seen to take longer than 3 s to arrive (clients.sh, once). */
#define CONVERGE_DEADLINE_MS 10000
#define MIN_COLS 10
#define MIN_ROWS 4
/* A message stays on the status line this long at most from when it
 * first showed (server-tty.c's MESSAGE_MS and ERROR_MESSAGE_MS, and a
 * margin): a search's "not found", a refused split's error. */
#define SEARCH_MESSAGE_MS 3500
#define ERROR_MESSAGE_MS 6500

static const char *tmux_socket, *tmux_conf, *target, *watch_target, *session_name, *data_file;
static struct cli_conn conn;
static uint64_t rng;
static long long settle_total_ms;
static int settles;

/* --- small things ------------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* xorshift64*: the same sequence for the same seed everywhere. */
static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n == 0 ? 0 : (uint32_t)((rng * 2685821657736338717ull) >> 33) % n;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("not ok - converge: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

/* --- tmux, the outer terminal ------------------------------------------- */

/* Run tmux with args (NULL-terminated), its stdout into out (if given). */
static int tmux_run(char *out, size_t size, const char *first, ...)
{
	const char *argv[64];
	int n = 0, fds[2], status;
	size_t len = 0;
	va_list ap;
	pid_t pid;

	argv[n++] = "tmux";
	argv[n++] = "-u";
	argv[n++] = "-L";
	argv[n++] = tmux_socket;
	argv[n++] = "-f";
	argv[n++] = tmux_conf;
	va_start(ap, first);
	for (const char *a = first; a != NULL && n < 63; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	if (pipe(fds) != 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp("tmux", (char **)argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		char scratch[4096];
		char *dst = out != NULL && len + 1 < size ? out + len : scratch;
		size_t room = out != NULL && len + 1 < size ? size - len - 1 : sizeof scratch;
		ssize_t got = read(fds[0], dst, room);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (dst != scratch)
			len += (size_t)got;
	}
	close(fds[0]);
	if (out != NULL)
		out[len] = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void keys(const char *first, ...)
{
	const char *argv[32];
	int n = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a != NULL && n < 31; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	/* At most a few keys an action: spelled out, no array building. */
	switch (n) {
	case 1: tmux_run(NULL, 0, "send-keys", "-t", target, argv[0], NULL); break;
	case 2: tmux_run(NULL, 0, "send-keys", "-t", target, argv[0], argv[1], NULL); break;
	case 3: tmux_run(NULL, 0, "send-keys", "-t", target, argv[0], argv[1], argv[2], NULL); break;
	default:
		for (int i = 0; i < n; i++)
			tmux_run(NULL, 0, "send-keys", "-t", target, argv[i], NULL);
	}
}

static void type_text(const char *text)
{
	tmux_run(NULL, 0, "send-keys", "-t", target, "-l", text, NULL);
}

static void prefix(const char *key)
{
	keys("C-b", key, NULL);
}

struct outer {
	char text[MAXH * MAXW * 4];
	int cx, cy, visible, cols, rows;
};

static void outer_snapshot(struct outer *o)
{
	static char buf[sizeof o->text + 128];
	char *meta;

	tmux_run(buf, sizeof buf, "capture-pane", "-p", "-t", target, ";", "display", "-p", "-t",
		 target, "@@#{cursor_x},#{cursor_y},#{cursor_flag},#{pane_width},#{pane_height}",
		 NULL);
	meta = strstr(buf, "@@");
	o->cx = o->cy = o->visible = o->cols = o->rows = -1;
	if (meta != NULL) {
		sscanf(meta + 2, "%d,%d,%d,%d,%d", &o->cx, &o->cy, &o->visible, &o->cols, &o->rows);
		*meta = 0;
	}
	snprintf(o->text, sizeof o->text, "%s", buf);
}

/* --- the server's idea -------------------------------------------------- */

struct spane {
	int id, x, y, cols, rows, cx, cy;
	bool active, cursor_visible, failed, bell;
	char backend[32], title[256], cwd[512]; /* cwd: where its shell is now */
	int violations;
	char *capture; /* the live screen, or the copy-mode view */
};

struct swin {
	int index;
	char name[64];
	bool active, bell; /* bell: a pane of it rang unfocused ("!") */
};

struct server {
	char list[1 << 16]; /* the list reply, for "nothing changed" */
	bool pending, zoomed, attached;
	int cols, rows; /* the session's window area */
	struct spane panes[MAXPANES];
	int npanes, nvisible;
	struct swin windows[16];
	int nwindows;
	int history; /* of the copy-mode pane */
};

static cJSON *request(cJSON *req)
{
	cJSON *reply = cli_request(&conn, req);

	if (reply == NULL)
		die("the server did not answer");
	return reply;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));

	return v != NULL ? v : "";
}

static int json_int(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static bool json_bool(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static char *capture(int pane, int start, int end, int *history)
{
	cJSON *req = cJSON_CreateObject(), *reply, *result;
	char *text;

	cJSON_AddStringToObject(req, "cmd", "capture");
	cJSON_AddNumberToObject(req, "pane", pane);
	if (start != 0 || end >= 0) {
		cJSON_AddNumberToObject(req, "start", start);
		cJSON_AddNumberToObject(req, "end", end);
	}
	reply = request(req);
	result = cJSON_GetObjectItemCaseSensitive(reply, "result");
	text = strdup(json_str(result, "text"));
	if (history != NULL)
		*history = json_int(result, "history");
	cJSON_Delete(reply);
	return text;
}

static void server_free(struct server *s)
{
	for (int i = 0; i < s->npanes; i++)
		free(s->panes[i].capture);
	s->npanes = 0;
}

/* Geometry only (list); captures come in server_snapshot. */
static void server_list(struct server *s)
{
	cJSON *req = cJSON_CreateObject(), *reply, *sess, *win, *p;
	char *printed;

	server_free(s);
	memset(s, 0, sizeof *s);
	cJSON_AddStringToObject(req, "cmd", "list");
	reply = request(req);
	cJSON_ArrayForEach(sess, cJSON_GetObjectItemCaseSensitive(
				     cJSON_GetObjectItemCaseSensitive(reply, "result"), "sessions"))
	{
		if (strcmp(json_str(sess, "name"), session_name) != 0)
			continue;
		s->attached = json_int(sess, "attached") > 0;
		s->pending = json_bool(sess, "pending");
		s->cols = json_int(sess, "cols");
		s->rows = json_int(sess, "rows");
		cJSON_ArrayForEach(win, cJSON_GetObjectItemCaseSensitive(sess, "windows"))
		{
			struct swin *w = &s->windows[s->nwindows < 16 ? s->nwindows++ : 15];

			w->index = json_int(win, "index");
			snprintf(w->name, sizeof w->name, "%s", json_str(win, "name"));
			w->active = json_bool(win, "active");
			cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(win, "panes"))
				w->bell = w->bell || json_bool(p, "bell");
			if (!w->active)
				continue;
			s->zoomed = json_bool(win, "zoomed");
			cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(win, "panes"))
			{
				struct spane *sp;
				const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(p, "cursor");

				if (s->npanes >= MAXPANES)
					break;
				sp = &s->panes[s->npanes++];
				sp->id = json_int(p, "id");
				sp->x = json_int(p, "x");
				sp->y = json_int(p, "y");
				sp->cols = json_int(p, "cols");
				sp->rows = json_int(p, "rows");
				sp->active = json_bool(p, "active");
				sp->failed = strcmp(json_str(p, "state"), "error") == 0;
				snprintf(sp->backend, sizeof sp->backend, "%s", json_str(p, "backend"));
				snprintf(sp->title, sizeof sp->title, "%s", json_str(p, "title"));
				snprintf(sp->cwd, sizeof sp->cwd, "%s", json_str(p, "current_path"));
				sp->bell = json_bool(p, "bell");
				sp->violations = json_int(p, "violations");
				sp->cx = json_int(cursor, "x");
				sp->cy = json_int(cursor, "y");
				sp->cursor_visible = json_bool(cursor, "visible");
			}
		}
	}
	/* Only the pane shown when zoomed (server.c's pane_visible). */
	s->nvisible = s->npanes;
	if (s->zoomed)
		for (int i = 0; i < s->npanes; i++)
			if (s->panes[i].active) {
				struct spane keep = s->panes[i];

				s->panes[i] = s->panes[0];
				s->panes[0] = keep;
				s->nvisible = 1;
			}
	/* The result only: the reply's id changes every time. */
	printed = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(reply, "result"));
	snprintf(s->list, sizeof s->list, "%s", printed);
	free(printed);
	cJSON_Delete(reply);
}

static struct spane *active_pane(struct server *s)
{
	for (int i = 0; i < s->nvisible; i++)
		if (s->panes[i].active)
			return &s->panes[i];
	return NULL;
}

/* --- what the driver knows about the client ------------------------------ */

enum mode { NORMAL, COPY, HELP };
enum program { SHELL, VIM, LESS };

struct model {
	enum mode mode;
	int copy_pane;
	bool copy_view_known; /* false after a resize in copy mode */
	char needle[16];      /* the last copy-mode search */
	bool can_repeat;      /* this copy mode has searched: n and N repeat */
	bool searched;	      /* this action searched */
	char message[96];	   /* a message the last actions may show, or "" */
	long long message_ms;	   /* how long it may show */
	long long message_seen_ms; /* when it first showed, or 0 */
	bool tiny;	      /* the outer terminal is below the minimum */
	int program_pane[64];
	enum program program[64];
	int nprograms;
};

static struct model model;

static enum program program_of(int pane)
{
	for (int i = 0; i < model.nprograms; i++)
		if (model.program_pane[i] == pane)
			return model.program[i];
	return SHELL;
}

static void set_program(int pane, enum program what)
{
	for (int i = 0; i < model.nprograms; i++)
		if (model.program_pane[i] == pane) {
			model.program[i] = what;
			return;
		}
	if (model.nprograms < 64) {
		model.program_pane[model.nprograms] = pane;
		model.program[model.nprograms++] = what;
	}
}

/* --- the expected screen ------------------------------------------------ */

struct grid {
	int cols, rows;
	wchar_t cell[MAXH][MAXW]; /* 0: the right half of a wide character */
	bool masked[MAXH][MAXW];
};

static void grid_put(struct grid *g, int y, int x, wchar_t wc)
{
	if (y >= 0 && y < g->rows && x >= 0 && x < g->cols)
		g->cell[y][x] = wc;
}

/* Text at (y, x) within width columns; a character that does not fit
 * ends it (screen-draw.c's put, tty_put_text).  Returns the columns used. */
static int grid_text(struct grid *g, int y, int x, int width, const char *utf8)
{
	wchar_t wide[1024];
	int used = 0;
	mbstate_t st = {0};
	const char *src = utf8;
	size_t n = mbsrtowcs(wide, &src, 1023, &st);

	if (n == (size_t)-1)
		return 0;
	wide[n] = 0;
	for (size_t i = 0; i < n; i++) {
		int w = wcwidth(wide[i]);

		if (w <= 0)
			continue;
		if (used + w > width)
			break;
		grid_put(g, y, x + used, wide[i]);
		if (w == 2)
			grid_put(g, y, x + used + 1, 0);
		used += w;
	}
	return used;
}

static int text_columns(const char *utf8)
{
	wchar_t wide[1024];
	mbstate_t st = {0};
	const char *src = utf8;
	size_t n = mbsrtowcs(wide, &src, 1023, &st);
	int columns = 0;

	for (size_t i = 0; n != (size_t)-1 && i < n; i++)
		if (wcwidth(wide[i]) > 0)
			columns += wcwidth(wide[i]);
	return columns;
}

/* A pane's capture, row by row, into its rectangle. */
static void grid_pane_text(struct grid *g, const struct spane *p, const char *text, int limit_rows)
{
	const char *line = text;

	for (int row = 0; row < p->rows && line != NULL; row++) {
		const char *end = strchr(line, '\n');
		char buf[4096];
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);

		if (len >= sizeof buf)
			len = sizeof buf - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		if (p->y + row < limit_rows)
			grid_text(g, p->y + row, p->x, p->cols, buf);
		line = end != NULL ? end + 1 : NULL;
	}
}

static bool inside_content(const struct server *s, int x, int y)
{
	for (int i = 0; i < s->nvisible; i++) {
		const struct spane *p = &s->panes[i];

		if (x >= p->x && x < p->x + p->cols && y >= p->y && y < p->y + p->rows)
			return true;
	}
	return false;
}

static wchar_t junction(bool up, bool down, bool left, bool right)
{
	static const wchar_t glyphs[16] = {
	    L'│', L'─', L'─', L'─', L'│', L'┌', L'┐', L'┬',
	    L'│', L'└', L'┘', L'┴', L'│', L'├', L'┤', L'┼',
	};

	return glyphs[(up ? 8 : 0) | (down ? 4 : 0) | (left ? 2 : 0) | (right ? 1 : 0)];
}

static void grid_borders(struct grid *g, const struct server *s)
{
	static uint8_t mask[MAXH][MAXW];
	int rows = g->rows - 1;

	memset(mask, 0, sizeof mask);
	for (int i = 0; i < s->nvisible; i++) {
		const struct spane *p = &s->panes[i];

		for (int x = p->x; x < p->x + p->cols; x++)
			if (x >= 0 && x < g->cols && p->y - 1 >= 0 && p->y - 1 < rows)
				mask[p->y - 1][x] |= 2;
		for (int y = p->y - 1; y < p->y + p->rows; y++) {
			if (y < 0 || y >= rows)
				continue;
			if (p->x > 0 && p->x - 1 < g->cols && !inside_content(s, p->x - 1, y))
				mask[y][p->x - 1] |= 1;
			if (p->x + p->cols < g->cols && !inside_content(s, p->x + p->cols, y))
				mask[y][p->x + p->cols] |= 1;
		}
	}
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < g->cols; x++) {
			if (!(mask[y][x] & 1))
				continue;
			g->cell[y][x] = junction(y > 0 && (mask[y - 1][x] & 1),
						 y + 1 < rows && (mask[y + 1][x] & 1),
						 x > 0 && (mask[y][x - 1] & 2),
						 x + 1 < g->cols && (mask[y][x + 1] & 2));
		}
}

static void grid_title(struct grid *g, const struct server *s, const struct spane *p)
{
	int y = p->y - 1, x = p->x, width = p->cols, used = 0, right_width;
	char label[48], right[64] = "", text[1024];

	if (y < 0 || y >= g->rows - 1)
		return;
	for (int i = 0; i < width; i++)
		grid_put(g, y, x + i, L'─');
	if (p->failed)
		snprintf(label, sizeof label, " FAILED ");
	else if (p->backend[0] != 0)
		snprintf(label, sizeof label, " %s ", p->backend);
	else
		snprintf(label, sizeof label, " starting ");
	used += grid_text(g, y, x, width, label);
	if (p->violations > 0)
		snprintf(right, sizeof right, " %d denied ", p->violations);
	right_width = text_columns(right);
	if (s->zoomed && p->active)
		right_width += 3;
	if (right_width > width - used - 1)
		right_width = 0;
	snprintf(text, sizeof text, " %s%s%s%s ", p->bell ? "! " : "", p->title,
		 p->title[0] && p->cwd[0] ? " : " : "", p->cwd);
	if (strcmp(text, "  ") != 0 && width - used - right_width - 1 > 0)
		used += grid_text(g, y, x + used, width - used - right_width - 1, text);
	if (right_width > 0) {
		int rx = x + width - right_width - 1;

		if (right[0] != 0)
			rx += grid_text(g, y, rx, width, right);
		if (s->zoomed && p->active)
			grid_text(g, y, rx, 3, " Z ");
	}
}

/* The status line; the clock's cells are masked (see the top). */
static void grid_status(struct grid *g, const struct server *s)
{
	int y = g->rows - 1, x = 0, clock_width = 14, limit = g->cols - clock_width;
	char left[192];

	/* Too narrow for both, the session and windows go first (the
	 * client's CLOCK_ROOM_MIN). */
	if (limit < 12) {
		clock_width = 0;
		limit = g->cols;
	}

	snprintf(left, sizeof left, "[%s] ", session_name);
	x += grid_text(g, y, x, limit > 0 ? limit : 0, left);
	/* The list scrolls around the current window, < and > where it is
	 * cut (the client's status_window_range). */
	char entries[16][128];
	int widths[16], used = 0, room = limit - x, first = 0, last = s->nwindows, active = 0;

	for (int i = 0; i < s->nwindows; i++) {
		snprintf(entries[i], sizeof entries[i], "%d:%s%s%s", s->windows[i].index,
			 s->windows[i].name, s->windows[i].active ? (s->zoomed ? "*Z" : "*") : "",
			 s->windows[i].bell ? "!" : "");
		widths[i] = text_columns(entries[i]) + 1;
		used += widths[i];
		if (s->windows[i].active)
			active = i;
	}
	if (used > room && s->nwindows > 0) {
		first = active;
		last = active + 1;
		used = widths[active];
		for (bool grew = true; grew;) {
			grew = false;
			int marks = (first > 0) + (last < s->nwindows);

			if (last < s->nwindows &&
			    used + widths[last] + marks - (last + 1 == s->nwindows) <= room) {
				used += widths[last++];
				grew = true;
			}
			marks = (first > 0) + (last < s->nwindows);
			if (first > 0 && used + widths[first - 1] + marks - (first == 1) <= room) {
				used += widths[--first];
				grew = true;
			}
		}
	}
	if (first > 0 && x < limit)
		x += grid_text(g, y, x, limit - x, "<");
	for (int i = first; i < last && x < limit; i++) {
		x += grid_text(g, y, x, limit - x, entries[i]);
		if (x < limit)
			x += grid_text(g, y, x, limit - x, " ");
	}
	if (last < s->nwindows && x < limit)
		x += grid_text(g, y, x, limit - x, ">");
	/* status_right keeps its room (the client's draw_status). */
	if (clock_width > 0)
		for (int i = limit; i < g->cols; i++)
			g->masked[y][i] = true;
}

static struct binding_table bindings;

static void grid_help_mask(struct grid *g)
{
	int width = g->cols - 4;
	int height = g->rows - 3, left = (g->cols - width) / 2;
	int lines = (int)bindings.count;

	if (width < 20 || height < 3)
		return;
	if (height > lines + 2)
		height = lines + 2;
	for (int y = 1; y < 1 + height && y < g->rows; y++)
		for (int x = left; x < left + width && x < g->cols; x++)
			g->masked[y][x] = true;
}

static bool pane_rows_match(const struct grid *g, const struct spane *p, wchar_t outer[][MAXW])
{
	for (int y = p->y; y < p->y + p->rows && y < g->rows - 1; y++)
		for (int x = p->x; x < p->x + p->cols && x < g->cols; x++)
			if (g->cell[y][x] != outer[y][x])
				return false;
	return true;
}

/*
 * A pane too narrow for its position indicator at some offsets: the
 * client draws none there (as tmux does), so the view's offset is the
 * first of those offsets whose window of the server's history and screen
 * is what the outer screen shows.  An offset whose indicator would fit
 * is never taken (its indicator is missing: the view is wrong), and when
 * no window matches, the bottom is expected and the row comparison
 * fails.
 */
static int copy_view_hidden_offset(struct grid *g, const struct spane *p, wchar_t outer[][MAXW])
{
	int history = 0, nlines = 0, found = 0;
	char *all, *line, indicator[64];

	free(capture(p->id, 0, -1, &history));
	all = capture(p->id, -history, p->rows - 1, NULL);
	for (const char *c = all; *c != 0; c++)
		nlines += *c == '\n';
	if (all[0] != 0 && all[strlen(all) - 1] != '\n')
		nlines++;
	for (int above = 0; above <= history; above++) {
		int first = nlines - p->rows - above;

		snprintf(indicator, sizeof indicator, "[%d/%d]", above, history);
		if (text_columns(indicator) <= p->cols || first < 0)
			continue;
		line = all;
		for (int k = 0; k < first && line != NULL; k++) {
			line = strchr(line, '\n');
			line = line != NULL ? line + 1 : NULL;
		}
		if (line == NULL)
			continue;
		for (int y = p->y; y < p->y + p->rows && y < g->rows; y++)
			for (int x = p->x; x < p->x + p->cols && x < g->cols; x++)
				g->cell[y][x] = L' ';
		grid_pane_text(g, p, line, g->rows - 1);
		if (pane_rows_match(g, p, outer)) {
			found = above;
			break;
		}
	}
	free(all);
	return found;
}

/*
 * The screen as the server's data says the client must show it.  In
 * copy mode the pane's view is history, read from the outer screen's
 * own position indicator ([N/total]: N lines above the bottom) and then
 * taken from the server at that offset; the indicator's total must be
 * the server's history.
 */
static void expected_screen(struct grid *g, struct server *s, wchar_t outer[][MAXW])
{
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			g->cell[y][x] = L' ';
			g->masked[y][x] = false;
		}
	for (int i = 0; i < s->nvisible; i++) {
		struct spane *p = &s->panes[i];

		if (model.mode == COPY && p->id == model.copy_pane) {
			if (!model.copy_view_known) {
				for (int y = p->y; y < p->y + p->rows && y < g->rows; y++)
					for (int x = p->x; x < p->x + p->cols && x < g->cols; x++)
						g->masked[y][x] = true;
			} else {
				int above = -1, total = -1;
				char indicator[64];
				wchar_t *row = outer[p->y];

				/* the indicator: the last "[" in the pane's first row */
				for (int x = p->x + p->cols - 1; x >= p->x && above < 0; x--)
					if (row[x] == L'[') {
						char text[64];
						int n = 0;

						for (int k = x; k < p->x + p->cols && n < 60; k++)
							text[n++] = row[k] < 128 ? (char)row[k] : '?';
						text[n] = 0;
						sscanf(text, "[%d/%d]", &above, &total);
						break;
					}
				if (above < 0)
					above = copy_view_hidden_offset(g, p, outer);
				p->capture = capture(p->id, -above, p->rows - 1 - above, &s->history);
				grid_pane_text(g, p, p->capture, g->rows - 1);
				snprintf(indicator, sizeof indicator, "[%d/%d]", above, s->history);
				if (text_columns(indicator) <= p->cols)
					grid_text(g, p->y, p->x + p->cols - text_columns(indicator),
						  text_columns(indicator), indicator);
			}
		} else if (!p->failed) {
			p->capture = capture(p->id, 0, -1, NULL);
			grid_pane_text(g, p, p->capture, g->rows - 1);
		} else {
			for (int y = p->y; y < p->y + p->rows && y < g->rows; y++)
				for (int x = p->x; x < p->x + p->cols && x < g->cols; x++)
					g->masked[y][x] = true;
		}
		grid_title(g, s, p);
	}
	grid_borders(g, s);
	grid_status(g, s);
	if (model.mode == HELP)
		grid_help_mask(g);
}

/* Row y of the grid as UTF-8, masked cells taken from the outer row so
 * they always agree, trailing blanks dropped (as capture-pane does). */
static void grid_row(const struct grid *g, int y, const wchar_t *outer_row, char *out, size_t size)
{
	size_t len = 0;

	for (int col = 0; col < g->cols; col++) {
		wchar_t wc = g->masked[y][col] ? outer_row[col] : g->cell[y][col];
		char mb[MB_LEN_MAX];
		mbstate_t st = {0};
		size_t n;

		if (wc == 0)
			continue;
		n = wcrtomb(mb, wc, &st);
		if (n == (size_t)-1 || len + n + 1 >= size)
			break;
		memcpy(out + len, mb, n);
		len += n;
	}
	while (len > 0 && out[len - 1] == ' ')
		len--;
	out[len] = 0;
}

/* The outer screen's rows as cells, so masks can copy them. */
static void outer_cells(const struct outer *o, int rows, int cols, wchar_t cells[][MAXW],
			char lines[][MAXW * 4])
{
	const char *line = o->text;

	for (int y = 0; y < rows; y++) {
		const char *end = line != NULL ? strchr(line, '\n') : NULL;
		size_t len = line == NULL ? 0 : end != NULL ? (size_t)(end - line) : strlen(line);
		wchar_t wide[MAXW * 2];
		mbstate_t st = {0};
		const char *src;
		size_t n;
		int x = 0;

		if (len >= MAXW * 4)
			len = MAXW * 4 - 1;
		if (line != NULL)
			memcpy(lines[y], line, len);
		lines[y][len] = 0;
		while (len > 0 && lines[y][len - 1] == ' ')
			lines[y][--len] = 0;
		src = lines[y];
		n = mbsrtowcs(wide, &src, MAXW * 2 - 1, &st);
		for (int i = 0; i < cols; i++)
			cells[y][i] = L' ';
		for (size_t i = 0; n != (size_t)-1 && i < n && x < cols; i++) {
			int w = wcwidth(wide[i]);

			if (w <= 0)
				continue;
			cells[y][x] = wide[i];
			if (w == 2 && x + 1 < cols)
				cells[y][x + 1] = 0;
			x += w;
		}
		line = end != NULL ? end + 1 : NULL;
	}
}

struct verdict {
	bool same;
	char why[256];
};

static char want_lines[MAXH][MAXW * 4], have_lines[MAXH][MAXW * 4];

static void compare(struct server *s, const struct outer *o, struct grid *g, struct verdict *v)
{
	static wchar_t cells[MAXH][MAXW];
	struct spane *active = active_pane(s);

	v->same = true;
	v->why[0] = 0;
	g->cols = o->cols < MAXW ? o->cols : MAXW;
	g->rows = o->rows < MAXH ? o->rows : MAXH;
	outer_cells(o, g->rows, g->cols, cells, have_lines);
	expected_screen(g, s, cells);
	for (int y = 0; y < g->rows; y++) {
		grid_row(g, y, cells[y], want_lines[y], sizeof want_lines[y]);
		if (strcmp(want_lines[y], have_lines[y]) != 0 && v->same) {
			/* A search that found nothing, or a split refused for
			 * room, says so on the status line, for its time from
			 * when it first showed. */
			if (y == g->rows - 1 && model.message[0] != 0 &&
			    strcmp(have_lines[y], model.message) == 0) {
				if (model.message_seen_ms == 0)
					model.message_seen_ms = now_ms();
				if (now_ms() - model.message_seen_ms < model.message_ms)
					continue;
			}
			v->same = false;
			snprintf(v->why, sizeof v->why, "row %d differs", y);
		}
	}
	if (!v->same)
		return;
	/* The cursor (screen-draw.c's place_cursor). */
	if (model.mode == HELP) {
		if (o->visible != 0)
			snprintf(v->why, sizeof v->why, "the cursor shows under the help overlay");
	} else if (model.mode == COPY) {
		struct spane *p = NULL;

		for (int i = 0; i < s->nvisible; i++)
			if (s->panes[i].id == model.copy_pane)
				p = &s->panes[i];
		if (p != NULL && (o->visible != 1 || o->cx < p->x || o->cx >= p->x + p->cols ||
				  o->cy < p->y || o->cy >= p->y + p->rows))
			snprintf(v->why, sizeof v->why,
				 "copy-mode cursor (%d,%d) visible %d is not in pane %%%d", o->cx,
				 o->cy, o->visible, p->id);
		else if (p != NULL && model.searched && model.copy_view_known) {
			/* A search that found something puts the cursor on it. */
			const wchar_t *row = cells[o->cy];
			wchar_t needle[16];

			mbstowcs(needle, model.needle, 16);
			if (wcsncmp(row + o->cx, needle, wcslen(needle)) != 0 &&
			    !strstr(have_lines[g->rows - 1], "not found"))
				snprintf(v->why, sizeof v->why,
					 "after searching \"%s\" the cursor (%d,%d) is not on a match",
					 model.needle, o->cx, o->cy);
		}
	} else if (active == NULL || !active->cursor_visible || active->failed ||
		   active->cx >= active->cols || active->cy >= active->rows ||
		   active->x + active->cx >= g->cols || active->y + active->cy >= g->rows - 1) {
		/* Hidden, or where this client's screen does not reach. */
		if (o->visible != 0)
			snprintf(v->why, sizeof v->why, "the cursor shows, the pane hides it");
	} else if (o->visible != 1 || o->cx != active->x + active->cx ||
		   o->cy != active->y + active->cy) {
		snprintf(v->why, sizeof v->why,
			 "cursor: the outer terminal has (%d,%d)%s, pane %%%d has it at (%d,%d)",
			 o->cx, o->cy, o->visible ? "" : " hidden", active->id,
			 active->x + active->cx, active->y + active->cy);
	}
	if (v->why[0] != 0)
		v->same = false;
}

/* The server's panes as the failure saw them: geometry and cursor. */
static void print_panes(const struct server *s)
{
	printf("# the server's panes (session %dx%d%s):\n", s->cols, s->rows,
	       s->zoomed ? ", zoomed" : "");
	for (int i = 0; i < s->npanes; i++)
		printf("#   %%%d at %d,%d size %dx%d, cursor %d,%d%s%s\n", s->panes[i].id,
		       s->panes[i].x, s->panes[i].y, s->panes[i].cols, s->panes[i].rows,
		       s->panes[i].cx, s->panes[i].cy, s->panes[i].cursor_visible ? "" : " hidden",
		       s->panes[i].active ? ", active" : "");
}

static void print_screens(const struct grid *g)
{
	printf("# %-*s | %s\n", 60, "expected (server)", "outer terminal (client)");
	for (int y = 0; y < g->rows; y++)
		printf("# %s%3d %s\n#     %s\n", strcmp(want_lines[y], have_lines[y]) ? "!" : " ", y,
		       want_lines[y], have_lines[y]);
}

/* --- settling ----------------------------------------------------------- */

static struct outer outer_a, outer_b;
static struct server server_a, server_b;
static struct outer *outer_now = &outer_a, *outer_before = &outer_b;
static struct server *server_now = &server_a, *server_before = &server_b;
static struct grid grid;

/*
 * Wait for the screen to settle and compare.  Settled: the outer screen
 * and cursor the same twice in a row, the server's list the same twice
 * in a row, and no output pending for the session's clients.  A
 * settled screen that differs from the server's is looked at again
 * until the deadline (a frame may still be inside the client); one that
 * still differs then is a failure.
 */
static bool settle_and_compare(struct verdict *v)
{
	long long start = now_ms(), deadline = start + CONVERGE_DEADLINE_MS;
	bool have_before = false;

	v->same = false;
	snprintf(v->why, sizeof v->why, "the screen never settled");
	for (;;) {
		struct outer *o;
		struct server *sv;

		server_list(server_now);
		outer_snapshot(outer_now);
		if (have_before && !server_now->pending &&
		    strcmp(outer_now->text, outer_before->text) == 0 &&
		    outer_now->cx == outer_before->cx && outer_now->cy == outer_before->cy &&
		    outer_now->visible == outer_before->visible &&
		    strcmp(server_now->list, server_before->list) == 0) {
			if (model.tiny) {
				v->same = true;
				break;
			}
			compare(server_now, outer_now, &grid, v);
			if (v->same)
				break;
		}
		if (now_ms() > deadline) {
			if (!v->same && strcmp(v->why, "the screen never settled") == 0)
				snprintf(v->why, sizeof v->why,
					 "the screen never settled (%s)",
					 server_now->pending ? "the server says output is pending"
					 : strcmp(server_now->list, server_before->list) != 0
					     ? "the server's list kept changing"
					     : "the outer screen kept changing");
			break;
		}
		o = outer_before;
		outer_before = outer_now;
		outer_now = o;
		sv = server_before;
		server_before = server_now;
		server_now = sv;
		have_before = true;
		sleep_ms(SETTLE_POLL_MS);
	}
	settle_total_ms += now_ms() - start;
	settles++;
	return v->same;
}

/* The watching client's screen: the same comparison, in its target,
 * with a model of a client nobody types into (no mode, no message). */
static bool settle_and_compare_watch(struct verdict *v)
{
	const char *typed = target;
	struct model typing = model;
	bool same;

	memset(&model, 0, sizeof model);
	model.mode = NORMAL;
	target = watch_target;
	same = settle_and_compare(v);
	target = typed;
	model = typing;
	return same;
}

/* --- actions ------------------------------------------------------------ */

static char action[256];

static const char *const words[] = {"abc", "hello", "x", "seq", "42", "foo-bar", "zz", "q"};

/* The last actions, printed with a failure: what led up to it. */
#define RECENT 12
static char recent[RECENT][sizeof action];
static int nactions;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(action, sizeof action, fmt, ap);
	va_end(ap);
	snprintf(recent[nactions++ % RECENT], sizeof action, "%s", action);
}

static void print_recent(void)
{
	int first = nactions > RECENT ? nactions - RECENT : 0;

	printf("# the actions before it:\n");
	for (int i = first; i < nactions; i++)
		printf("#   %d. %s\n", i + 1, recent[i % RECENT]);
}

static void resize_outer(int cols, int rows)
{
	char w[16], h[16];

	snprintf(w, sizeof w, "%d", cols);
	snprintf(h, sizeof h, "%d", rows);
	tmux_run(NULL, 0, "resize-window", "-t", target, "-x", w, "-y", h, NULL);
	model.tiny = cols < MIN_COLS || rows < MIN_ROWS;
	if (model.mode == COPY)
		model.copy_view_known = false;
}

/* The shell's prompts so far: each pane's bash appends a line to the
 * file CONVERGE_PROMPTS names as it prints its prompt (PROMPT_COMMAND,
 * converge.sh's .bashrc). */
static long prompts_shown(void)
{
	const char *path = getenv("CONVERGE_PROMPTS");
	long lines = 0;
	FILE *f;
	int c;

	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return -1;
	while ((c = getc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	return lines;
}

/* Enter a command line and wait (3 s at most) until the shell has run it
 * and prompts again.  A screen that stays the same for two looks before
 * the command ran is not settled: the next action (copy mode's frozen
 * view) would race the command's output, a clear(1) emptying the history
 * under it. */
static void enter_command(void)
{
	long before = prompts_shown(), deadline = now_ms() + 3000;

	keys("Enter", NULL);
	while (before >= 0 && prompts_shown() <= before && now_ms() < deadline)
		sleep_ms(SETTLE_POLL_MS);
}

/* A key that starts a shell (a split, a new window): wait (3 s at most;
 * a refused split starts none) until it prompts, for the same reason:
 * copy mode entered in the new pane before its first prompt froze a
 * view without it. */
static void prefix_new_shell(const char *key)
{
	long before = prompts_shown(), deadline = now_ms() + 3000;

	prefix(key);
	while (before >= 0 && prompts_shown() <= before && now_ms() < deadline)
		sleep_ms(SETTLE_POLL_MS);
}

static void shell_action(struct spane *p)
{
	static const char *const editing[] = {"Left", "Right", "Home", "End", "C-a", "C-e",
					      "BSpace", "Up", "Down", "C-u"};
	char cmd[256];

	switch (rnd(14)) {
	case 0:
	case 1:
	case 2:
		type_text(words[rnd(8)]);
		say("type a word in the shell of %%%d", p->id);
		break;
	case 3:
	case 4:
	case 5:
	case 6: {
		const char *k = editing[rnd(10)];

		keys(k, NULL);
		say("%s in the shell of %%%d", k, p->id);
		break;
	}
	case 7:
		snprintf(cmd, sizeof cmd, "seq 1 %u", 1 + rnd(120));
		type_text(cmd);
		enter_command();
		say("run '%s' in %%%d", cmd, p->id);
		break;
	case 8:
		type_text("clear");
		enter_command();
		say("clear in %%%d", p->id);
		break;
	case 9:
		snprintf(cmd, sizeof cmd, "printf '%%0%ud|\\n' 7", 20 + rnd(200));
		type_text(cmd);
		enter_command();
		say("a long line that wraps in %%%d", p->id);
		break;
	case 10:
		snprintf(cmd, sizeof cmd, "vim -u NONE -N %s", data_file);
		keys("C-u", NULL);
		type_text(cmd);
		keys("Enter", NULL);
		set_program(p->id, VIM);
		say("start vim in %%%d", p->id);
		break;
	case 11:
		snprintf(cmd, sizeof cmd, "less %s", data_file);
		keys("C-u", NULL);
		type_text(cmd);
		keys("Enter", NULL);
		set_program(p->id, LESS);
		say("start less in %%%d", p->id);
		break;
	default:
		enter_command();
		say("Enter in %%%d", p->id);
	}
}

/* Wait (3 s at most) until the active window is named after this
 * program: the server names it after what runs in its active pane. */
static void wait_window_named(const char *name)
{
	static struct server look;
	long long deadline = now_ms() + 3000;

	do {
		server_list(&look);
		for (int i = 0; i < look.nwindows; i++)
			if (look.windows[i].active && strcmp(look.windows[i].name, name) == 0)
				return;
		sleep_ms(SETTLE_POLL_MS);
	} while (now_ms() < deadline);
}

/*
 * vim leaves insert mode (and a prompt) on C-c, not Escape: an Escape
 * the next action's C-b follows within the server's escape time is one
 * key, M-C-b, as tmux reads it (escape-time), and the prefix is lost.
 * A person's keys are further apart; the driver's are not, and nothing
 * on the screen says when the server has decided.
 */
static void vim_action(struct spane *p)
{
	static const char *const motions[] = {"j", "k", "h", "l", "w", "b", "0", "$", "G",
					      "C-d", "C-u", "}", "{", "e"};

	switch (rnd(10)) {
	case 0:
		keys("g", "g", NULL);
		say("vim gg in %%%d", p->id);
		break;
	case 1:
		keys("i", NULL);
		type_text(words[rnd(8)]);
		keys("C-c", NULL);
		say("vim insert a word in %%%d", p->id);
		break;
	case 2:
		if (rnd(3) == 0) {
			keys("C-c", NULL);
			type_text(":q!");
			keys("Enter", NULL);
			/* Until vim has gone: a screen that stays the same
			 * for two looks while vim is still exiting is not
			 * settled, and the next action (copy mode's frozen
			 * view) would race its last output. */
			wait_window_named("bash");
			set_program(p->id, SHELL);
			say("vim :q! in %%%d", p->id);
			break;
		}
		/* fall through */
	default: {
		const char *m = motions[rnd(14)];

		keys(m, NULL);
		say("vim %s in %%%d", m, p->id);
	}
	}
}

static void less_action(struct spane *p)
{
	static const char *const moves[] = {"Space", "b", "j", "k", "G", "g", "d", "u"};

	switch (rnd(8)) {
	case 0:
		keys("q", NULL);
		set_program(p->id, SHELL);
		say("less q in %%%d", p->id);
		break;
	case 1:
		keys("/", NULL);
		type_text("7");
		keys("Enter", NULL);
		say("less /7 in %%%d", p->id);
		break;
	default: {
		const char *m = moves[rnd(8)];

		keys(m, NULL);
		say("less %s in %%%d", m, p->id);
	}
	}
}

/* A message the action may put on the status line (see compare). */
__attribute__((format(printf, 2, 3))) static void expect_message(long long ms, const char *fmt,
								   ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(model.message, sizeof model.message, fmt, ap);
	va_end(ap);
	model.message_ms = ms;
	model.message_seen_ms = 0;
}

static void copy_action(void)
{
	static const char *const moves[] = {"k", "j", "Up", "Down", "PageUp", "C-u", "C-d", "g",
					    "G", "l", "h", "PageDown"};
	char needle[8];

	switch (rnd(10)) {
	case 0:
		keys("q", NULL);
		model.mode = NORMAL;
		say("leave copy mode");
		break;
	case 1:
	case 2:
		snprintf(needle, sizeof needle, "%u", 1 + rnd(99));
		snprintf(model.needle, sizeof model.needle, "%s", needle);
		keys(rnd(2) ? "?" : "/", NULL);
		type_text(needle);
		keys("Enter", NULL);
		model.searched = true;
		model.can_repeat = true;
		expect_message(SEARCH_MESSAGE_MS, "\"%s\" not found", needle);
		say("copy mode: search for %s", needle);
		break;
	case 3:
	case 4:
		if (model.can_repeat) {
			const char *k = rnd(2) ? "n" : "N";

			keys(k, NULL);
			model.searched = true;
			expect_message(SEARCH_MESSAGE_MS, "\"%s\" not found", model.needle);
			say("copy mode: %s (search %s again)", k, model.needle);
			break;
		}
		/* fall through */
	default: {
		const char *m = moves[rnd(12)];

		keys(m, NULL);
		say("copy mode: %s", m);
	}
	}
}

static void help_action(void)
{
	switch (rnd(4)) {
	case 0:
		keys("q", NULL);
		model.mode = NORMAL;
		say("close the help overlay");
		break;
	case 1:
		keys("k", NULL);
		say("help: k");
		break;
	default:
		keys("j", NULL);
		say("help: j");
	}
}

/* One action from the current state; the state is the last snapshot. */
static void act(struct server *s)
{
	struct spane *p = active_pane(s);
	uint32_t r;

	model.searched = false;
	if (model.tiny) {
		int cols = 40 + (int)rnd(100), rows = 12 + (int)rnd(30);

		resize_outer(cols, rows);
		say("resize the outer terminal back to %dx%d", cols, rows);
		return;
	}
	r = rnd(100);
	if (r < 4) {
		if (rnd(4) == 0) {
			int cols = rnd(2) ? 3 + (int)rnd(7) : 20 + (int)rnd(20);
			int rows = cols >= MIN_COLS ? 1 + (int)rnd(3) : 2 + (int)rnd(10);

			resize_outer(cols, rows);
			say("resize the outer terminal below the minimum, to %dx%d", cols, rows);
		} else {
			int cols = 30 + (int)rnd(110), rows = 8 + (int)rnd(36);

			resize_outer(cols, rows);
			say("resize the outer terminal to %dx%d", cols, rows);
		}
		return;
	}
	if (model.mode == COPY) {
		copy_action();
		return;
	}
	if (model.mode == HELP) {
		help_action();
		return;
	}
	if (p == NULL) {
		keys("Enter", NULL);
		say("Enter (no active pane seen)");
		return;
	}
	if (r < 7 && s->nvisible < 6) {
		bool side = rnd(2);

		if ((side && p->cols >= 24) || (!side && p->rows >= 10)) {
			/* A zoomed pane is unzoomed to split, and may then
			 * be too small: the split is refused (the window
			 * stays zoomed) with this error. */
			expect_message(ERROR_MESSAGE_MS,
				       "split: pane %%%d is too small to split \u2014 no_space", p->id);
			prefix_new_shell(side ? "%" : "\"");
			say("split %%%d %s", p->id, side ? "side by side" : "stacked");
			return;
		}
	}
	if (r < 9 && (s->npanes > 1 || s->nwindows > 1)) {
		prefix("x");
		keys("y", NULL);
		say("kill pane %%%d%s", p->id, s->npanes == 1 ? " (the window's last)" : "");
		return;
	}
	if (r < 10 && program_of(p->id) == SHELL && (s->npanes > 1 || s->nwindows > 1)) {
		keys("C-u", NULL);
		type_text("exit");
		keys("Enter", NULL);
		say("exit the shell of %%%d%s", p->id, s->npanes == 1 ? " (the window's last)" : "");
		return;
	}
	if (r < 12 && s->nwindows < 4) {
		prefix_new_shell("c");
		say("new window");
		return;
	}
	if (r < 16 && s->nwindows > 1) {
		char digit[4];

		switch (rnd(3)) {
		case 0:
			prefix("n");
			say("next window");
			break;
		case 1:
			prefix("p");
			say("previous window");
			break;
		default:
			snprintf(digit, sizeof digit, "%d", s->windows[rnd(s->nwindows)].index);
			if (strlen(digit) > 1) {
				prefix("n");
				say("next window");
				break;
			}
			prefix(digit);
			say("window %s", digit);
		}
		return;
	}
	if (r < 19 && s->npanes > 1) {
		prefix("z");
		say("zoom toggle on %%%d", p->id);
		return;
	}
	if (r < 22 && s->nvisible > 1) {
		static const char *const dirs[] = {"Left", "Right", "Up", "Down"};
		const char *d = dirs[rnd(4)];

		prefix(d);
		say("select the pane %s of %%%d", d, p->id);
		return;
	}
	if (r < 23 && s->nvisible > 1) {
		static const char *const dirs[] = {"C-Left", "C-Right", "C-Up", "C-Down"};
		const char *d = dirs[rnd(4)];

		prefix(d);
		say("resize-pane %s on %%%d", d, p->id);
		return;
	}
	if (r < 24) {
		prefix("?");
		model.mode = HELP;
		say("open the help overlay");
		return;
	}
	/* Not over vim or less: their screen is the alternate one. */
	if (r < 28 && program_of(p->id) == SHELL) {
		prefix("[");
		model.mode = COPY;
		model.copy_pane = p->id;
		model.copy_view_known = true;
		/* Each copy mode starts without a search to repeat. */
		model.can_repeat = false;
		say("enter copy mode in %%%d", p->id);
		return;
	}
	switch (program_of(p->id)) {
	case VIM:
		vim_action(p);
		break;
	case LESS:
		less_action(p);
		break;
	default:
		shell_action(p);
	}
}

/* Copy mode ends when its pane goes, and vim or less end with theirs. */
static void follow_server(struct server *s)
{
	bool copy_pane_there = false;

	for (int i = 0; i < s->nvisible; i++)
		if (s->panes[i].id == model.copy_pane)
			copy_pane_there = true;
	if (model.mode == COPY && !copy_pane_there)
		model.mode = NORMAL;
}

int main(int argc, char **argv)
{
	struct verdict v;
	int actions;
	unsigned long long seed;
	long long began = now_ms();

	if (argc != 9) {
		fprintf(stderr, "usage: converge SEED ACTIONS TMUX-SOCKET TMUX-CONF TARGET SERVER "
				"SESSION DATA-FILE\n");
		return 2;
	}
	setlocale(LC_ALL, "");
	seed = strtoull(argv[1], NULL, 10);
	actions = atoi(argv[2]);
	tmux_socket = argv[3];
	tmux_conf = argv[4];
	target = argv[5];
	snprintf(cli_server_name, sizeof cli_server_name, "%s", argv[6]);
	session_name = argv[7];
	data_file = argv[8];
	watch_target = getenv("CONVERGE_WATCH");
	if (watch_target != NULL && watch_target[0] == 0)
		watch_target = NULL;
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	bindings_init_defaults(&bindings);
	if (cli_connect(&conn, false) < 0)
		die("cannot connect to the server %s", argv[6]);
	model.mode = NORMAL;
	if (!settle_and_compare(&v)) {
		printf("not ok - converge (seed %llu): before any action: %s\n", seed, v.why);
		print_screens(&grid);
		return 1;
	}
	if (watch_target != NULL && !settle_and_compare_watch(&v)) {
		printf("not ok - converge (seed %llu): before any action, in %s: %s\n", seed,
		       watch_target, v.why);
		print_screens(&grid);
		return 1;
	}
	for (int i = 1; i <= actions; i++) {
		follow_server(server_now);
		act(server_now);
		if (!settle_and_compare(&v)) {
			printf("not ok - converge (seed %llu): action %d of %d, \"%s\": %s\n", seed,
			       i, actions, action, v.why);
			print_recent();
			print_panes(server_now);
			print_screens(&grid);
			return 1;
		}
		if (!server_now->attached)
			die("the client left at action %d (\"%s\")", i, action);
		if (watch_target != NULL && !settle_and_compare_watch(&v)) {
			printf("not ok - converge (seed %llu): action %d of %d, \"%s\": %s: %s\n",
			       seed, i, actions, action, watch_target, v.why);
			print_recent();
			print_panes(server_now);
			print_screens(&grid);
			return 1;
		}
	}
	printf("ok - converge (seed %llu): the client's screen matched the server's after each of "
	       "%d actions%s%s\n",
	       seed, actions, watch_target != NULL ? ", and so did the watching client's in " : "",
	       watch_target != NULL ? watch_target : "");
	printf("# %d actions in %lld ms, %lld ms settling on average\n", actions,
	       now_ms() - began, settles > 0 ? settle_total_ms / settles : 0);
	server_free(&server_a);
	server_free(&server_b);
	bindings_free(&bindings);
	cli_close(&conn);
	return 0;
}
