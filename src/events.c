/*
 * events: the event bus.  Backends, panes, the supervisor and the egress
 * proxies emit lifecycle events (starting, ready, exit, killed, error,
 * downgrade) and violations.  Every event is first appended to a durable
 * JSON-lines log, $XDG_STATE_HOME/sandmux/events.jsonl (rotated at 10 MiB,
 * five old files kept, the evidence a flood would push out carried:
 * events-rotate.c), and only then fanned out to subscribers whose
 * filters match (docs/design.md invariant 6: nothing lost).  A violation
 * first passes events-fold.c: long fields cut, repeats folded into a
 * count, a flooding pane marked.  A ring of recent
 * events, seeded from the log's tail at start, is the backlog a new
 * subscriber receives first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "events-internal.h"
#include "log.h"
#include "record.h"
#include "server.h"
#include "jsonl.h"
#include "xalloc.h"

#define EVENTS_ROTATE_BYTES (10 * 1024 * 1024)
#define EVENTS_KEEP 5
#define EVENTS_BACKLOG 1000

static char events_path[PATH_MAX];
static int events_fd = -1;
static off_t events_size;
static bool events_failing;
static char *backlog[EVENTS_BACKLOG]; /* serialized events, oldest first */
static size_t backlog_start, backlog_count;

static void backlog_push(char *line)
{
	size_t slot = (backlog_start + backlog_count) % EVENTS_BACKLOG;

	if (backlog_count == EVENTS_BACKLOG) {
		free(backlog[backlog_start]);
		backlog[backlog_start] = line;
		backlog_start = (backlog_start + 1) % EVENTS_BACKLOG;
		return;
	}
	backlog[slot] = line;
	backlog_count++;
}

/* Seed the backlog from the log's last lines, so a subscriber after a
 * restart still sees what happened before it. */
static void events_load_tail(void)
{
	FILE *f = fopen(events_path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (f == NULL)
		return;
	if (events_size > 4 * 1024 * 1024) {
		fseeko(f, events_size - 4 * 1024 * 1024, SEEK_SET);
		if (getline(&line, &cap, f) < 0) { /* skip a partial line */
			free(line);
			fclose(f);
			return;
		}
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (line[0] == '{')
			backlog_push(xstrdup(line));
	}
	free(line);
	fclose(f);
}

int events_open(const char *state_dir)
{
	struct stat st;

	snprintf(events_path, sizeof events_path, "%s/events.jsonl", state_dir);
	events_fd = open(events_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (events_fd < 0) {
		log_warn("events: cannot open %s: %s", events_path, strerror(errno));
		events_failing = true;
		return -1;
	}
	events_size = fstat(events_fd, &st) == 0 ? st.st_size : 0;
	events_load_tail();
	log_info("events: logging to %s", events_path);
	return 0;
}

void events_close(void)
{
	events_fold_flush();
	if (events_fd >= 0)
		close(events_fd);
	events_fd = -1;
	for (size_t i = 0; i < backlog_count; i++)
		free(backlog[(backlog_start + i) % EVENTS_BACKLOG]);
	backlog_count = backlog_start = 0;
}

static void events_rotate(void)
{
	close(events_fd);
	events_rotate_files(events_path, EVENTS_KEEP);
	events_fd = open(events_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	events_size = 0;
}

/* Tell every attached client, once per failure spell, that the log is
 * not being written: an event may not vanish without anybody saying so. */
static void events_report_failure(int err)
{
	char text[PATH_MAX + 128];

	if (events_failing)
		return;
	events_failing = true;
	snprintf(text, sizeof text, "event log %s unwritable: %s (events still shown live)",
		 events_path, strerror(err));
	log_warn("%s", text);
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		server_push_status(s, text);
}

static void events_append(const char *line, size_t len)
{
	ssize_t n;

	if (events_fd < 0 && events_path[0] != '\0')
		events_fd = open(events_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (events_fd < 0) {
		events_report_failure(errno);
		return;
	}
	if (events_size + (off_t)len > EVENTS_ROTATE_BYTES)
		events_rotate();
	do
		n = write(events_fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len) {
		int err = n < 0 ? errno : ENOSPC;
		/* A torn line would make the log unparseable from there on:
		 * cut it off, so the file always ends on a whole event. */
		if (n > 0 && ftruncate(events_fd, events_size) < 0)
			log_warn("events: cannot cut a torn line: %s", strerror(errno));
		events_report_failure(err);
		return;
	}
	events_size += len;
	if (events_failing) {
		events_failing = false;
		log_info("events: log writable again");
	}
}

struct cJSON *events_lifecycle(const char *kind, const struct pane *p)
{
	cJSON *ev = cJSON_CreateObject();
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	cJSON_AddStringToObject(ev, "event", "sandbox");
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddNumberToObject(ev, "time", ts.tv_sec + ts.tv_nsec / 1e9);
	if (p != NULL) {
		const char *label = pane_backend_label(p);
		cJSON_AddNumberToObject(ev, "pane", p->id);
		if (p->window != NULL)
			cJSON_AddStringToObject(ev, "session", p->window->session->name);
		else if (p->session_name[0] != '\0')
			cJSON_AddStringToObject(ev, "session", p->session_name);
		cJSON_AddStringToObject(ev, "requested", sandbox_backend_name(p->requested));
		/* what `profile suggest` starts from */
		if (p->requested != SANDBOX_NONE)
			cJSON_AddStringToObject(ev, "profile", p->profile);
		if (label != NULL)
			cJSON_AddStringToObject(ev, "backend", label);
		else
			cJSON_AddNullToObject(ev, "backend");
	}
	return ev;
}

void events_violation(struct sandbox_violation *v, const struct pane *p)
{
	struct timespec ts;

	if (v->time == 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v->time = ts.tv_sec + ts.tv_nsec / 1e9;
	}
	if (p != NULL) {
		v->pane = p->id;
		if (p->window != NULL)
			v->session = p->window->session->name;
		else if (p->session_name[0] != '\0')
			v->session = p->session_name;
		v->backend = pane_backend_label(p);
		v->profile = p->requested != SANDBOX_NONE ? p->profile : NULL;
	}
	events_emit(sandbox_violation_to_json(v));
}

static bool events_match(const struct conn *c, const cJSON *ev)
{
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
	const cJSON *session = cJSON_GetObjectItem(ev, "session");
	const cJSON *action = cJSON_GetObjectItem(ev, "action");

	if (c->sub_pane > 0 && (!cJSON_IsNumber(pane) || pane->valueint != c->sub_pane))
		return false;
	if (c->sub_session[0] != '\0' &&
	    (!cJSON_IsString(session) || strcmp(session->valuestring, c->sub_session) != 0))
		return false;
	if (c->sub_action[0] != '\0' &&
	    (!cJSON_IsString(action) || strcmp(action->valuestring, c->sub_action) != 0))
		return false;
	return true;
}

void events_send_backlog(struct conn *c)
{
	for (size_t i = 0; i < backlog_count; i++) {
		cJSON *ev = cJSON_Parse(backlog[(backlog_start + i) % EVENTS_BACKLOG]);
		if (ev == NULL)
			continue;
		if (events_match(c, ev)) {
			cJSON_AddBoolToObject(ev, "backlog", true);
			server_send(c, ev);
		} else {
			cJSON_Delete(ev);
		}
	}
}

static bool is_violation(const cJSON *ev)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));

	return kind != NULL && strcmp(kind, "violation") == 0;
}

void events_write(cJSON *ev)
{
	size_t len;
	char *line = jsonl_line(ev, &len);
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");

	/* Durable first, then live. */
	events_append(line, len);
	line[len - 1] = '\0';
	backlog_push(line);
	if (is_violation(ev) && cJSON_IsNumber(pane)) {
		struct pane *p = pane_find(pane->valueint);
		if (p != NULL && p->window != NULL)
			server_layout_dirty(p->window->session);
	}
	record_event(ev);
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->subscribed && !c->closing && events_match(c, ev))
			server_send(c, cJSON_Duplicate(ev, true));
	cJSON_Delete(ev);
}

void events_emit(cJSON *ev)
{
	if (is_violation(ev)) {
		const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
		struct pane *p = cJSON_IsNumber(pane) ? pane_find(pane->valueint) : NULL;

		events_cut_fields(ev);
		if (p != NULL) {
			p->violations++;
			events_flood_count(p);
		}
		if (events_fold(ev))
			return;
	}
	events_write(ev);
}
