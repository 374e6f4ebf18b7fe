/*
 * session-store: a running session written down as a session file
 * (docs/sessions.md), so that it can be built again by another server.
 *
 * The document is the layout file's form with more in it: windows, each
 * a list of panes in the order that rebuilds its split tree (the first
 * pane, then each split of an earlier pane with the new pane's share),
 * and for each pane its requested backend, profile, current directory,
 * command, the label it wore and, in a saved session, its last screen.
 * `save` returns it; the server also writes every session into the state
 * directory's `sessions/` on `kill-server` and once a minute, where no
 * native pane can reach it (hostrun.c lists the state directory among
 * sandmux's own files: a sandbox that could write a stored session would
 * choose what the host runs at the next restore).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "layout.h"
#include "log.h"
#include "session-file.h"
#include "term.h"
#include "xalloc.h"

#define SESSION_SAVE_INTERVAL_MS 60000

static uv_timer_t save_timer;

/* The leaf a subtree's rebuild starts from: its first pane, which holds
 * the whole subtree's rectangle until the subtree's splits are made. */
static const struct layout_cell *first_leaf(const struct layout_cell *cell)
{
	while (cell->type != LAYOUT_PANE)
		cell = cell->first;
	return cell;
}

/* The last rows of the pane, history first: what a pane that is not
 * re-run shows above the line saying it was restored. */
static cJSON *pane_screen(const struct pane *p)
{
	int rows = term_rows(p->term), history = term_history_lines(p->term);
	int start = rows - SESSION_SCREEN_LINES, end = rows - 1;
	cJSON *lines = cJSON_CreateArray();
	char *text, *line, *next;
	size_t size;

	if (start < -history)
		start = -history;
	text = term_capture(p->term, start, end, false, &size);
	for (line = text; line != NULL && *line != '\0'; line = next) {
		size_t len;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		/* A full-screen program's blank cells are spaces: not kept. */
		for (len = strlen(line); len > 0 && line[len - 1] == ' '; len--)
			line[len - 1] = '\0';
		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
	}
	free(text);
	/* Blank rows below the last text are no part of what was shown. */
	while (cJSON_GetArraySize(lines) > 0 &&
	       cJSON_GetStringValue(cJSON_GetArrayItem(lines, cJSON_GetArraySize(lines) - 1))[0] ==
		   '\0')
		cJSON_DeleteItemFromArray(lines, cJSON_GetArraySize(lines) - 1);
	return lines;
}

static cJSON *pane_entry(struct pane *p, bool layout_only)
{
	cJSON *entry = cJSON_CreateObject();

	if (p->feed) {
		cJSON_AddBoolToObject(entry, "feed", true);
		return entry;
	}
	cJSON_AddStringToObject(entry, "backend", sandbox_backend_name(p->requested));
	if (p->requested != SANDBOX_NONE)
		cJSON_AddStringToObject(entry, "profile", p->profile);
	cJSON_AddStringToObject(entry, "cwd", pane_current_path(p));
	if (p->command.n > 0)
		cJSON_AddItemToObject(
		    entry, "command",
		    cJSON_CreateStringArray((const char *const *)p->command.v, (int)p->command.n));
	if (p->remain_on_exit)
		cJSON_AddBoolToObject(entry, "remain", true);
	if (!layout_only) {
		/* null, as in listings: FAILED, or not yet confirmed. */
		if (pane_backend_label(p) != NULL)
			cJSON_AddStringToObject(entry, "label", pane_backend_label(p));
		else
			cJSON_AddNullToObject(entry, "label");
		if (p->command.n > 0)
			cJSON_AddItemToObject(entry, "screen", pane_screen(p));
	}
	return entry;
}

/* A window's panes in rebuild order: the subtree's own split first (its
 * second child's first leaf split from the first leaf, with the second
 * child's share), then each child's. */
static void add_cells(const struct layout_cell *cell, int from, cJSON *panes, bool layout_only)
{
	cJSON *entry;
	int second, share;

	if (cell->type == LAYOUT_PANE)
		return;
	share = 100 - (cell->permille + 5) / 10;
	entry = pane_entry(first_leaf(cell->second)->pane, layout_only);
	second = cJSON_GetArraySize(panes);
	cJSON_AddStringToObject(entry, "split", cell->type == LAYOUT_LEFTRIGHT ? "h" : "v");
	cJSON_AddNumberToObject(entry, "of", from);
	cJSON_AddNumberToObject(entry, "size", share < 1 ? 1 : share > 99 ? 99 : share);
	cJSON_AddItemToArray(panes, entry);
	add_cells(cell->first, from, panes, layout_only);
	add_cells(cell->second, second, panes, layout_only);
}

/* A window's floating panes, each with its box as placed now, lowest
 * first, so a rebuild stacks them the same way; popups are one-shot
 * and not kept. */
static void add_floating(struct window *w, cJSON *win, bool layout_only)
{
	cJSON *floating = NULL;
	struct pane *order[64];
	int n = 0;

	for (struct pane *p = w->panes; p != NULL && n < 64; p = p->next) {
		int at = n++;

		if (!p->floating || p->popup) {
			n--;
			continue;
		}
		while (at > 0 && order[at - 1]->float_z > p->float_z) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = p;
	}
	for (int i = 0; i < n; i++) {
		cJSON *entry = pane_entry(order[i], layout_only);

		cJSON_AddNumberToObject(entry, "x", order[i]->cell->x);
		cJSON_AddNumberToObject(entry, "y", order[i]->cell->y);
		cJSON_AddNumberToObject(entry, "width", order[i]->cell->w);
		cJSON_AddNumberToObject(entry, "height", order[i]->cell->h);
		if (floating == NULL)
			floating = cJSON_AddArrayToObject(win, "floating");
		cJSON_AddItemToArray(floating, entry);
	}
	if (floating != NULL && w->floats_hidden)
		cJSON_AddBoolToObject(win, "floating_hidden", true);
}

static cJSON *session_store_document(struct session *s, bool layout_only)
{
	cJSON *doc = cJSON_CreateObject(), *windows;
	char when[32];
	time_t now = time(NULL);

	cJSON_AddNumberToObject(doc, "version", SESSION_FILE_VERSION);
	if (!layout_only) {
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		cJSON_AddStringToObject(doc, "saved", when);
	}
	cJSON_AddStringToObject(doc, "session", s->name);
	cJSON_AddNumberToObject(doc, "cols", s->cols);
	cJSON_AddNumberToObject(doc, "rows", s->rows);
	windows = cJSON_AddArrayToObject(doc, "windows");
	for (struct window *w = s->windows; w != NULL; w = w->next) {
		cJSON *win = cJSON_CreateObject(), *panes = cJSON_CreateArray();

		if (w->renamed)
			cJSON_AddStringToObject(win, "name", w->name);
		if (w == s->active)
			cJSON_AddBoolToObject(win, "active", true);
		cJSON_AddItemToArray(panes, pane_entry(first_leaf(w->root)->pane, layout_only));
		add_cells(w->root, 0, panes, layout_only);
		cJSON_AddItemToObject(win, "panes", panes);
		add_floating(w, win, layout_only);
		cJSON_AddItemToArray(windows, win);
	}
	return doc;
}

/* A session's name as a file name: characters outside [A-Za-z0-9_-]
 * (a '/', a leading '.') as %XX, so every name has its own file in the
 * directory and none leaves it. */
static void store_file_name(const char *name, char *out, size_t size)
{
	size_t n = 0;

	for (const unsigned char *c = (const unsigned char *)name; *c != '\0' && n + 4 < size;
	     c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')
			out[n++] = (char)*c;
		else
			n += (size_t)snprintf(out + n, size - n, "%%%02X", *c);
	}
	snprintf(out + n, size - n, ".json");
}

int session_store_dir(char *out, size_t size)
{
	char state[PATH_MAX];

	if (paths_state_dir(state, sizeof state) < 0)
		return -1;
	snprintf(out, size, "%s/sessions", state);
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int session_store_path(const char *name, char *out, size_t size)
{
	char dir[PATH_MAX], file[256];

	if (session_store_dir(dir, sizeof dir) < 0)
		return -1;
	store_file_name(name, file, sizeof file);
	snprintf(out, size, "%s/%s", dir, file);
	return 0;
}

/* Written whole or not at all: a new file beside it, then renamed over,
 * so a server killed mid-write leaves the last complete save. */
static int write_document(const char *path, const cJSON *doc, struct sm_error *err)
{
	char tmp[PATH_MAX + 16];
	char *text = cJSON_Print(doc);
	size_t len = strlen(text), done = 0;
	int fd;

	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	free(text);
	if (fd < 0 || done < len || write(fd, "\n", 1) != 1 || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int session_store_save(struct session *s, char *path, size_t size, struct sm_error *err)
{
	cJSON *doc;
	int rc;

	if (session_store_path(s->name, path, size) < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot make the sessions directory: %s",
			     strerror(errno));
		return -1;
	}
	doc = session_store_document(s, false);
	rc = write_document(path, doc, err);
	cJSON_Delete(doc);
	return rc;
}

void session_store_save_all(const char *why)
{
	char path[PATH_MAX];

	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		struct sm_error err = {0};

		if (session_store_save(s, path, sizeof path, &err) < 0)
			log_warn("session %s not saved (%s): %s", s->name, why, err.message);
		else
			log_debug("session %s saved (%s): %s", s->name, why, path);
	}
}

void session_store_forget(const char *name)
{
	char path[PATH_MAX];

	if (session_store_path(name, path, sizeof path) == 0 && unlink(path) == 0)
		log_info("session %s: stored copy removed (kill-session)", name);
}

static void on_save_timer(uv_timer_t *timer)
{
	(void)timer;
	session_store_save_all("every minute");
}

void session_store_start(void)
{
	const char *every = getenv("SANDMUX_SAVE_INTERVAL");
	uint64_t ms = SESSION_SAVE_INTERVAL_MS;
	char dir[PATH_MAX];

	/* Made now: a sandbox masks only what exists at its launch. */
	if (session_store_dir(dir, sizeof dir) < 0)
		log_warn("sessions directory %s: %s", dir, strerror(errno));

	/* Tests set a shorter interval; seconds, at least one. */
	if (every != NULL && atoi(every) > 0)
		ms = (uint64_t)atoi(every) * 1000;
	uv_timer_init(server.loop, &save_timer);
	uv_timer_start(&save_timer, on_save_timer, ms, ms);
	uv_unref((uv_handle_t *)&save_timer);
}

/* save: the session's document (layout: without what only a restore
 * needs), and with store, written into the state directory. */
CMD_HANDLER(cmd_save)
{
	struct session *s = cmd_request_session(c, req, err);
	bool layout_only = cmd_get_bool(req, "layout", false);
	char path[PATH_MAX];

	if (s == NULL)
		return -1;
	if (cmd_get_bool(req, "store", false)) {
		if (session_store_save(s, path, sizeof path, err) < 0)
			return -1;
		cJSON_AddStringToObject(result, "path", path);
	}
	cJSON_AddStringToObject(result, "session", s->name);
	cJSON_AddItemToObject(result, "document", session_store_document(s, layout_only));
	return 0;
}
