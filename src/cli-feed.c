/*
 * feed: the violation feed pane (`sandmux events --feed`, what C-b v
 * opens).  It is a program in an ordinary pane: it subscribes to the
 * session's events (the backlog first, seeded by the server from the
 * durable log, so a restart shows what came before, marked "earlier")
 * and redraws the pane's whole screen from its own list of lines.
 *
 * One line per violation, in columns: time, pane and its backend label
 * (the theme's colour), action (coloured by kind), count, target, reason.
 * Lines never wrap: a long target is cut in the middle with "…" (the
 * whole of it is in `events --json` and, through `?`, on screen).  A
 * repeat of the same denial (pane, action, target) folds into its line
 * and bumps the count in place.  Lifecycle events are dimmed and hidden
 * with `l`.  Keys: Up/Down (or k/j) select, `f` filters, `p` pauses
 * following, Enter focuses the line's pane, `?` explains the line, `a`
 * allows it (a host: for the session or in the profile; a file: the
 * profile change, for new panes).  A connection held in ask mode (a
 * profile's "network": "ask") asks at once: allow, refuse, or leave it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "allowlist.h"
#include "cli.h"
#include "config.h"
#include "error.h"
#include "hostrun.h"
#include "sandbox.h"
#include "sanitise.h"
#include "theme.h"
#include "xalloc.h"

#define FEED_TIME_W 8

/* Column widths, from the lines on screen, so a narrow pane gives its
 * room to the target. */
struct feed_columns {
	int pane, pane_id, action, count, target, reason;
};

/* The target is what a line is about: a narrow feed gives up the
 * backend label, then the action's end, before its target column falls
 * under this (a ×N count never takes it away). */
#define FEED_TARGET_MIN 16
#define FEED_ACTION_MIN 5

struct feed_line {
	double time;
	int pane;
	char backend[16];
	char action[32]; /* the violation's action, or the lifecycle kind */
	char *target, *reason;
	int count;
	bool lifecycle, error, earlier;
	bool grant; /* a policy-grant or policy-ask: with the violations, never hidden */
	bool flood; /* a pane's flood began or ended: never hidden, never dimmed */
};

/* Where an `a` stands: choosing a scope (for a refusal, or for a
 * connection held in ask mode), or confirming a config diff. */
enum feed_ask { FEED_ASK_NONE, FEED_ASK_SCOPE, FEED_ASK_HELD, FEED_ASK_CONFIRM };

struct feed {
	struct cli_conn *events;
	const char *session;
	double server_started;
	struct theme theme;
	struct feed_line *lines;
	size_t nlines, cap;
	long selected; /* index into lines, -1: none yet */
	bool paused, hide_lifecycle, typing;
	char filter[64], input[64];
	char message[4096]; /* shown at the bottom until the next key */
	enum feed_ask ask;
	int ask_pane;
	bool ask_path;	      /* ask_target is a refused write's path, not a host */
	char ask_target[4096]; /* the host, or the path */
	int cols, rows;
	int self; /* the feed's own pane ($SANDMUX_PANE), 0: not known */
};

/* Characters, counting UTF-8 sequences as one cell each. */
static size_t text_cells(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The byte offset of character index `cells`. */
static size_t cell_offset(const char *s, size_t cells)
{
	size_t i = 0;

	for (; s[i] && cells > 0; cells--)
		for (i++; ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	return i;
}

/* Exactly `width` cells of s: padded, or cut in the middle with "…"
 * keeping more of the end, where a path's file name is. */
static void put_middle(FILE *out, const char *s, size_t width, bool middle)
{
	size_t cells = text_cells(s);

	if (width == 0)
		return;
	if (cells <= width) {
		fprintf(out, "%s%*s", s, (int)(width - cells), "");
		return;
	}
	size_t head = middle ? (width - 1) / 3 : width - 1, tail = width - 1 - head;
	fwrite(s, 1, cell_offset(s, head), out);
	fputs("…", out);
	fputs(s + cell_offset(s, cells - tail), out);
}

/* Text broken into lines of at most `width` cells, at spaces where it
 * can: the explanations are read whole, in a pane of any width. */
static char *wrap_text(const char *text, size_t width)
{
	size_t len = strlen(text), used = 0, line_cells = 0, last_space = 0;
	char *out = xmalloc(len * 2 + 2);

	for (const char *s = text; *s; s++) {
		bool starts_char = ((unsigned char)*s & 0xc0) != 0x80;
		if (*s == '\n') {
			out[used++] = '\n';
			line_cells = 0, last_space = 0;
			continue;
		}
		if (starts_char && line_cells == width && width > 0) {
			if (last_space > 0) {
				out[last_space] = '\n';
				line_cells = 0;
				for (size_t i = last_space + 1; i < used; i++)
					line_cells += ((unsigned char)out[i] & 0xc0) != 0x80;
			} else {
				out[used++] = '\n';
				line_cells = 0;
			}
			last_space = 0;
		}
		if (*s == ' ')
			last_space = used;
		out[used++] = *s;
		line_cells += starts_char;
	}
	out[used] = 0;
	return out;
}

/* The feed's own styles; every SGR it writes is theme_put_sgr's. */
static const struct theme_style plain = {0}, bold = {.attrs = THEME_ATTR_BOLD},
				 dim = {.attrs = THEME_ATTR_DIM},
				 reverse = {.attrs = THEME_ATTR_REVERSE};

/* A backend's label in the feed: the theme's colours, bold or not. */
static void put_theme_style(FILE *out, const struct theme_style *st)
{
	struct theme_style label = {st->fg, st->bg, st->attrs & THEME_ATTR_BOLD};

	theme_put_sgr(out, &label);
}

static const struct theme_style *label_style(const struct feed *f, const char *backend)
{
	if (strcmp(backend, "native") == 0)
		return &f->theme.slots[THEME_LABEL_NATIVE];
	if (strcmp(backend, "microvm") == 0)
		return &f->theme.slots[THEME_LABEL_MICROVM];
	return &f->theme.slots[THEME_LABEL_NONE];
}

static bool line_visible(const struct feed *f, const struct feed_line *l)
{
	char pane[16];

	/* An earlier server's starts, exits and kills are of panes that are
	 * gone (its errors, a sandbox that could not start, stay); the
	 * feed's own start is not news to someone reading it. */
	if (l->lifecycle && (f->hide_lifecycle || (l->earlier && !l->error) ||
			     (!l->earlier && f->self > 0 && l->pane == f->self)))
		return false;
	if (f->filter[0] == 0)
		return true;
	snprintf(pane, sizeof pane, "%%%d", l->pane);
	return strcmp(pane, f->filter) == 0 || strstr(l->action, f->filter) != NULL ||
	       strstr(l->target, f->filter) != NULL || strstr(l->reason, f->filter) != NULL ||
	       strcmp(l->backend, f->filter) == 0;
}

static int count_text(const struct feed_line *l, char *buf, size_t size)
{
	buf[0] = 0;
	if (l->count > 1)
		snprintf(buf, size, "×%d", l->count);
	return (int)text_cells(buf);
}

static void columns_fit(struct feed_columns *c, int cols)
{
	int rest = cols - FEED_TIME_W - c->pane - c->action - (c->count ? c->count + 1 : 0) - 3;
	int label = c->pane - c->pane_id - 1, give;

	if (rest < FEED_TARGET_MIN && label > 0) {
		give = FEED_TARGET_MIN - rest < label ? FEED_TARGET_MIN - rest : label;
		c->pane -= give;
		rest += give;
	}
	if (rest < FEED_TARGET_MIN && c->action > FEED_ACTION_MIN) {
		give = FEED_TARGET_MIN - rest < c->action - FEED_ACTION_MIN
			   ? FEED_TARGET_MIN - rest
			   : c->action - FEED_ACTION_MIN;
		c->action -= give;
		rest += give;
	}
	/* The reason gets a column only when the target keeps two thirds
	 * of a fair width; the whole reason is always one `?` away. */
	c->target = rest > 0 ? rest : 0;
	c->reason = 0;
	if (rest >= 48) {
		c->reason = rest / 3 - 1;
		c->target = rest - rest / 3;
	}
}

static void columns_widen(struct feed_columns *c, const struct feed_line *l)
{
	char text[32];
	int pane_id = snprintf(text, sizeof text, "%%%d", l->pane);
	int pane = pane_id + 1 + (int)strlen(l->backend);
	int count = count_text(l, text, sizeof text);
	int action = (int)text_cells(l->action);

	c->pane = pane > c->pane ? pane : c->pane;
	c->pane_id = pane_id > c->pane_id ? pane_id : c->pane_id;
	c->action = action > c->action ? action : c->action;
	c->count = count > c->count ? count : c->count;
}

static void put_line(struct feed *f, FILE *out, const struct feed_line *l, bool selected,
		     const struct feed_columns *c)
{
	char stamp[16] = "--:--:--", pane[16], count[32];
	time_t secs = (time_t)l->time;
	struct tm tm;
	int label_w, count_w;

	localtime_r(&secs, &tm);
	strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
	snprintf(pane, sizeof pane, "%%%d", l->pane);
	count_w = count_text(l, count, sizeof count);
	theme_put_sgr(out, selected ? &reverse : l->lifecycle ? &dim : &plain);
	fprintf(out, "%s %s ", stamp, pane);
	label_w = c->pane - (int)strlen(pane) - 1;
	if (!selected && !l->lifecycle)
		put_theme_style(out, label_style(f, l->backend));
	put_middle(out, l->backend, label_w > 0 ? (size_t)label_w : 0, false);
	if (!selected)
		theme_put_sgr(out, l->lifecycle ? &dim : &plain);
	fputc(' ', out);
	if (!selected && !l->lifecycle) {
		struct theme_style ev = theme_event_style(l->flood   ? "flood"
							  : l->error ? "error"
							  : l->grant ? l->action
								     : NULL,
							  l->action);

		theme_put_sgr(out, &ev);
	}
	put_middle(out, l->action, (size_t)c->action, false);
	if (!selected && !l->lifecycle)
		theme_put_sgr(out, &bold);
	if (c->count > 0)
		fprintf(out, " %*s%s", c->count - count_w, "", count);
	fputc(' ', out);
	if (!selected && !l->lifecycle)
		theme_put_sgr(out, &plain);
	put_middle(out, l->target, (size_t)c->target, true);
	if (c->reason > 0) {
		fputc(' ', out);
		if (!selected && !l->lifecycle)
			theme_put_sgr(out, &dim);
		put_middle(out, l->reason, (size_t)c->reason, false);
	}
	theme_put_sgr(out, &plain);
}

/* Totals by action, as the first line and the pane's title show them. */
static void put_totals(const struct feed *f, char *buf, size_t size)
{
	static const char *actions[] = { "file-read*", "file-write*", "file-write-create",
					 "network-outbound", "process-exec" };
	size_t used = (size_t)snprintf(buf, size, "feed · %s", f->session ? f->session : "all");

	for (size_t a = 0; a < sizeof actions / sizeof actions[0] && used < size; a++) {
		long total = 0;
		for (size_t i = 0; i < f->nlines; i++)
			if (!f->lines[i].lifecycle && strcmp(f->lines[i].action, actions[a]) == 0)
				total += f->lines[i].count;
		if (total > 0)
			used += (size_t)snprintf(buf + used, size - used, "  %s %ld", actions[a], total);
	}
}

static void feed_draw(struct feed *f)
{
	struct winsize ws;
	char totals[512];
	size_t *shown = xcalloc(f->nlines + 1, sizeof *shown), nshown = 0, first = 0;
	int body, msg_rows = 1;
	FILE *out = stdout;
	bool marked;
	char *message, help[256];
	size_t k_next;
	struct feed_columns columns = { 0 };

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
		f->cols = ws.ws_col, f->rows = ws.ws_row;
	for (size_t i = 0; i < f->nlines; i++)
		if (line_visible(f, &f->lines[i]))
			shown[nshown++] = i;
	if (!f->paused && nshown > 0)
		f->selected = (long)shown[nshown - 1];
	message = wrap_text(f->message, (size_t)f->cols);
	if (message[0])
		for (const char *m = message; (m = strchr(m, '\n')) != NULL; m++)
			msg_rows++;
	body = f->rows - 2 - msg_rows;
	if (body < 1)
		body = 1;
	/* Keep the selected line in view, as low as it can be (one row is
	 * kept for the "earlier" mark). */
	for (size_t k = 0; k < nshown; k++)
		if ((long)shown[k] == f->selected && k + 2 > (size_t)body)
			first = k + 2 - (size_t)body;
	marked = first > 0 && f->lines[shown[first - 1]].earlier;
	k_next = first;
	for (size_t k = first; k < nshown && k < first + (size_t)body; k++)
		columns_widen(&columns, &f->lines[shown[k]]);
	columns_fit(&columns, f->cols);
	put_totals(f, totals, sizeof totals);
	/* Autowrap off: whatever the columns, a line is cut at the margin,
	 * never wrapped onto the next. */
	fprintf(out, "\033]2;%s\007\033[?7l\033[?25l\033[H", totals);
	theme_put_sgr(out, &bold);
	put_middle(out, totals, (size_t)f->cols, false);
	theme_put_sgr(out, &dim);
	fputs("\r\n", out);
	put_middle(out, columns.reason ? "time     pane, action, target, reason"
				       : "time     pane, action, target (? for the reason)",
		   (size_t)f->cols, false);
	theme_put_sgr(out, &plain);
	for (int row = 0; row < body; row++) {
		fputs("\r\n\033[2K", out);
		if (k_next >= nshown)
			continue;
		const struct feed_line *l = &f->lines[shown[k_next]];
		/* The first earlier line says where the durable log's past starts. */
		if (l->earlier && !marked && row + 1 < body) {
			theme_put_sgr(out, &dim);
			put_middle(out, "── earlier ── (before the server started)", (size_t)f->cols, false);
			theme_put_sgr(out, &plain);
			marked = true;
			continue;
		}
		put_line(f, out, l, (long)shown[k_next] == f->selected && f->paused, &columns);
		k_next++;
	}
	fputs("\r\n\033[2K", out);
	if (f->typing) {
		snprintf(help, sizeof help, "filter (pane %%N, action or text): %s", f->input);
		put_middle(out, help, (size_t)f->cols, false);
	} else if (message[0]) {
		for (const char *m = message; *m; m++)
			fputs(*m == '\n' ? "\r\n\033[2K" : (char[2]){ *m, 0 }, out);
	} else {
		snprintf(help, sizeof help, "%s%s%s ↑↓ select ⏎ go ? why a allow f filter p %s l %s",
			 f->paused ? "PAUSED " : "", f->filter[0] ? "filter: " : "", f->filter,
			 f->paused ? "follow" : "pause", f->hide_lifecycle ? "lifecycle" : "hide lifecycle");
		theme_put_sgr(out, &dim);
		put_middle(out, help, (size_t)f->cols, false);
		theme_put_sgr(out, &plain);
	}
	fputs("\033[J", out);
	fflush(out);
	free(message);
	free(shown);
}

static const char *json_string(const cJSON *ev, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(ev, key));
}

static void feed_add(struct feed *f, const cJSON *ev)
{
	const cJSON *t = cJSON_GetObjectItem(ev, "time"), *pane = cJSON_GetObjectItem(ev, "pane");
	const char *kind = json_string(ev, "kind"), *action = json_string(ev, "action");
	const char *reason = json_string(ev, "reason"), *raw = json_string(ev, "raw");
	const char *backend = json_string(ev, "backend"), *target = json_string(ev, "target");
	const cJSON *count = cJSON_GetObjectItem(ev, "count");
	struct sandbox_violation v;
	struct sm_error err = { 0 };
	const char *name;
	struct feed_line l = { 0 };

	/* A violation is read as the one schema (sandbox.h); a line that is
	 * not one is not shown as one. */
	if (kind != NULL && strcmp(kind, "violation") == 0) {
		if (sandbox_violation_from_json(ev, &v, &err) != 0)
			return;
		action = v.action;
		target = v.target;
		reason = v.reason;
		raw = v.raw;
		backend = v.backend;
	}
	l.time = cJSON_IsNumber(t) ? t->valuedouble : 0;
	l.pane = cJSON_IsNumber(pane) ? pane->valueint : 0;
	l.grant = kind != NULL && (strcmp(kind, "policy-grant") == 0 || strcmp(kind, "policy-ask") == 0);
	l.flood = kind != NULL && strcmp(kind, "flood") == 0;
	l.lifecycle = !l.grant && !l.flood && (kind == NULL || strcmp(kind, "violation") != 0);
	l.error = kind != NULL && strcmp(kind, "error") == 0;
	l.earlier = cJSON_IsTrue(cJSON_GetObjectItem(ev, "backlog")) && l.time < f->server_started;
	snprintf(l.backend, sizeof l.backend, "%s", backend ? backend : "-");
	name = l.flood ? "FLOODING" : l.lifecycle || l.grant ? kind : action;
	snprintf(l.action, sizeof l.action, "%s", name ? name : "?");
	if (l.flood) {
		/* A flood reads as what it is: more than 1,000 denials a
		 * second, and at its end how many it made. */
		const cJSON *n = cJSON_GetObjectItem(ev, "violations");
		const char *state = json_string(ev, "state");
		char text[96];

		if (state != NULL && strcmp(state, "end") == 0)
			snprintf(text, sizeof text, "flood over: %d violations",
				 cJSON_IsNumber(n) ? n->valueint : 0);
		else
			snprintf(text, sizeof text, "more than 1000 violations a second");
		l.target = sanitise_text(text);
	} else if (l.grant) {
		/* A grant reads as what was allowed, and for how long; a
		 * question as what waits for the answer. */
		const cJSON *what = cJSON_GetObjectItem(ev, "what");
		const char *allowed = json_string(what, "host") ? json_string(what, "host")
								 : json_string(what, "path");
		char *text = strcmp(kind, "policy-ask") == 0
				     ? xasprintf("%s (held)", json_string(ev, "target") ? json_string(ev, "target") : "?")
				     : xasprintf("%s (%s)", allowed ? allowed : "?",
						 json_string(ev, "scope") ? json_string(ev, "scope") : "?");
		l.target = sanitise_text(text);
		free(text);
	} else if (l.lifecycle && cJSON_IsNumber(cJSON_GetObjectItem(ev, "home_changed"))) {
		/* A pane with a copy-on-write home ends: what it changed there
		 * waits in its profile's layer (sandmux changes). */
		int n = cJSON_GetObjectItem(ev, "home_changed")->valueint;
		char text[160];

		snprintf(text, sizeof text, "%s; %d%s file%s changed in its home layer",
			 json_string(ev, "requested") ? json_string(ev, "requested") : "?", n,
			 cJSON_IsTrue(cJSON_GetObjectItem(ev, "home_changed_more")) ? "+" : "",
			 n == 1 ? "" : "s");
		l.target = sanitise_text(text);
	} else {
		l.target = sanitise_text(l.lifecycle ? json_string(ev, "requested") : target);
	}
	l.reason = sanitise_text(reason ? reason : raw);
	/* A line the server folded stands for "count" violations. */
	l.count = cJSON_IsNumber(count) && count->valueint > 1 ? count->valueint : 1;
	if (!l.lifecycle && !l.grant && !l.flood)
		for (size_t i = 0; i < f->nlines; i++) {
			struct feed_line *o = &f->lines[i];
			if (!o->lifecycle && !o->flood && o->pane == l.pane &&
			    o->earlier == l.earlier && strcmp(o->action, l.action) == 0 &&
			    strcmp(o->target, l.target) == 0) {
				o->count += l.count;
				o->time = l.time;
				free(l.target);
				free(l.reason);
				return;
			}
		}
	if (f->nlines == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->lines = xrealloc(f->lines, f->cap * sizeof *f->lines);
	}
	f->lines[f->nlines++] = l;
}

/* A request on a connection of its own: the events connection carries
 * pushed events that cli_request would skip. */
static cJSON *feed_request(cJSON *req)
{
	struct cli_conn conn;
	cJSON *reply;

	if (cli_connect(&conn, false) < 0) {
		cJSON_Delete(req);
		return NULL;
	}
	reply = cli_request(&conn, req);
	cli_close(&conn);
	return reply;
}

/* The pane's profile, from the server's listing ("" if it is gone). */
static void pane_profile(int id, char *out, size_t size)
{
	cJSON *req = cJSON_CreateObject(), *reply;
	const cJSON *stack[64];
	int depth = 0;

	snprintf(out, size, "%s", "");
	cJSON_AddStringToObject(req, "cmd", "list");
	if ((reply = feed_request(req)) == NULL)
		return;
	stack[depth++] = cJSON_GetObjectItem(reply, "result");
	while (depth > 0) {
		const cJSON *node = stack[--depth];
		const cJSON *pid = cJSON_GetObjectItem(node, "id");
		const char *profile = json_string(node, "profile");

		if (cJSON_IsNumber(pid) && pid->valueint == id && profile != NULL) {
			snprintf(out, size, "%s", profile);
			break;
		}
		for (const cJSON *c = node ? node->child : NULL; c != NULL && depth < 64; c = c->next)
			if (cJSON_IsObject(c) || cJSON_IsArray(c))
				stack[depth++] = c;
	}
	cJSON_Delete(reply);
}

/* A refused write to what the host runs or reads as config later
 * (hostrun.h): no profile makes it writable, so neither `?` nor `a`
 * points at "writable".  The list is this client's $HOME's, read once. */
static bool host_run_target(const char *target)
{
	static struct strvec paths = STRVEC_INIT;
	static bool loaded;
	extern char **environ;
	const char *home = getenv("HOME");

	if (!loaded && home != NULL && home[0] == '/' && hostrun_paths(home, environ, &paths) != 0)
		strvec_free(&paths);
	loaded = true;
	return target[0] == '/' && hostrun_covers(&paths, target);
}

static const struct feed_line *selected_line(const struct feed *f)
{
	return f->selected >= 0 && (size_t)f->selected < f->nlines ? &f->lines[f->selected] : NULL;
}

/* `?`: which rule denied the line, and how to change that rule. */
static void explain(struct feed *f, const struct feed_line *l)
{
	char profile[64];
	const char *how;

	pane_profile(l->pane, profile, sizeof profile);
	if (!profile[0])
		snprintf(profile, sizeof profile, "(pane gone)");
	if (strcmp(l->action, "file-read*") == 0)
		how = "a deny-read root (the built-in list, or the profile's \"deny_read\").\n"
		      "Built-in roots (secret stores) always apply; a config profile's own are\n"
		      "removed from its \"deny_read\" (docs/config.md). New panes get the change.";
	else if (strcmp(l->action, "file-write-create") == 0)
		how = "the profile's \"deny_create_patterns\" (a name matched a pattern).\n"
		      "Change the list in a config profile (docs/config.md); new panes get it.";
	else if (strcmp(l->action, "file-write*") == 0 && host_run_target(l->target))
		how = "a host-run file (docs/security.md, \"Host-run files\"): the host runs it or\n"
		      "reads it as config later, so no profile makes it writable in a real root.\n"
		      "Under the terminal profile's $HOME, writes land in the copy-on-write layer\n"
		      "instead (sandmux changes, sandmux keep).";
	else if (strcmp(l->action, "file-write*") == 0)
		how = "outside the writable roots, a \"write_denies\" name or a protected path.\n"
		      "Add a root to the profile's \"writable\" or \"state_dirs\" (docs/config.md);\n"
		      "a mount cannot change under a running pane: new panes get it.";
	else if (strcmp(l->action, "network-outbound") == 0)
		how = "the session's egress allowlist (docs/network.md): deny list first, then the\n"
		      "baseline, GitHub, the spec's and the profile's \"egress_allowlist\". Press a to allow it.";
	else if (l->flood)
		how = "not a violation: the pane made more than 1000 violations a second; repeats\n"
		      "fold into counted lines, and the log keeps every pane's first 100\n"
		      "(docs/security.md, \"Evidence a flood cannot erase\").";
	else if (l->grant)
		how = "not a violation: a grant (sandmux allow, a in the feed) or a connection held\n"
		      "for an answer (a profile's \"network\": \"ask\"), in the durable log.";
	else
		how = "not a violation: a pane's lifecycle event.";
	snprintf(f->message, sizeof f->message, "%%%d %s, profile %s: %s\n%s\nrule: %s", l->pane,
		 l->backend, profile, l->action, l->target, how);
	if (!l->lifecycle && !l->grant && !l->flood) {
		size_t used = strlen(f->message);
		snprintf(f->message + used, sizeof f->message - used, "\nwhy: %s", l->reason);
	}
}

/* `a`: allowing what the line denied (ask mode, src/grant.c).  A
 * network denial offers the session or the profile; the profile route
 * shows the server's diff of the config and writes only after `y`.  A
 * deny-listed host is refused here already, with the reason, and the
 * server refuses it again whoever asks. */
static void allow_choices(struct feed *f, const struct feed_line *l)
{
	char host[ALLOWLIST_HOST_MAX + 8], profile[64];
	struct allowlist_decision d;
	const char *colon = strrchr(l->target, ':');

	snprintf(host, sizeof host, "%.*s", colon != NULL ? (int)(colon - l->target) : (int)strlen(l->target),
		 l->target);
	allowlist_decide(NULL, host, &d);
	if (d.reason == ALLOWLIST_DENYLIST) {
		snprintf(f->message, sizeof f->message,
			 "%s is on the fixed deny list (rule %s):\n"
			 "cloud metadata and telemetry can never be allowed, here or anywhere.",
			 d.host, d.rule);
		return;
	}
	if (strcmp(l->reason, "resolves to a forbidden address") == 0) {
		snprintf(f->message, sizeof f->message,
			 "%s resolved to an address no proxy connects to (loopback, link-local,\n"
			 "this host's own): allowing the name would not change that.",
			 host);
		return;
	}
	pane_profile(l->pane, profile, sizeof profile);
	if (!profile[0]) {
		snprintf(f->message, sizeof f->message, "pane %%%d is gone: nothing to allow", l->pane);
		return;
	}
	f->ask = FEED_ASK_SCOPE;
	f->ask_pane = l->pane;
	f->ask_path = false;
	snprintf(f->ask_target, sizeof f->ask_target, "%s", d.host[0] ? d.host : host);
	snprintf(f->message, sizeof f->message,
		 "allow %s for pane %%%d?\n"
		 "  s  this session, until it ends\n"
		 "  p  profile %s, in the config (the diff first)\n"
		 "  c  cancel",
		 f->ask_target, l->pane, profile);
}

/* A file denial: only the profile can change (a mount cannot change under
 * a running pane), and only new panes get it. */
static void allow_file_hint(struct feed *f, const struct feed_line *l)
{
	char profile[64];

	pane_profile(l->pane, profile, sizeof profile);
	if (strcmp(l->action, "file-write*") == 0 && host_run_target(l->target)) {
		snprintf(f->message, sizeof f->message,
			 "a host-run file: the host would run or read what the pane wrote, so no\n"
			 "profile makes it writable. Change it from the host if you mean to (a native\n"
			 "pane's $HOME writes wait in its layer: sandmux changes, sandmux keep).");
	} else if (strcmp(l->action, "file-write*") == 0 && profile[0] && l->target[0] == '/') {
		/* The profile route alone: the server names the directory and
		 * shows the diff after p. */
		f->ask = FEED_ASK_SCOPE;
		f->ask_pane = l->pane;
		f->ask_path = true;
		snprintf(f->ask_target, sizeof f->ask_target, "%s", l->target);
		snprintf(f->message, sizeof f->message,
			 "a mount cannot change under a running pane: only the profile can, and\n"
			 "new panes get it: its directory in \"writable\" of profile %s.\n"
			 "  p  profile %s, in the config (the diff first)\n"
			 "  c  cancel",
			 profile, profile);
	} else if (strcmp(l->action, "file-write*") == 0) {
		snprintf(f->message, sizeof f->message, "pane %%%d is gone: nothing to allow", l->pane);
	} else if (strcmp(l->action, "file-write-create") == 0)
		snprintf(f->message, sizeof f->message,
			 "a mount cannot change under a running pane: only the profile can, and\n"
			 "new panes get it. The change, in the config's profile %s: the pattern\n"
			 "matching %s taken out of \"deny_create_patterns\"\n"
			 "then sandmux --check-config, and sandmux split -b native -P %s",
			 profile[0] ? profile : "(pane gone)", l->target, profile[0] ? profile : "PROFILE");
	else
		snprintf(f->message, sizeof f->message,
			 "a mount cannot change under a running pane: only the profile can, and\n"
			 "new panes get it. The change, in the config's profile %s: %s taken out\n"
			 "of its own \"deny_read\" (the built-in secret stores always stay denied)\n"
			 "then sandmux --check-config, and sandmux split -b native -P %s",
			 profile[0] ? profile : "(pane gone)", l->target, profile[0] ? profile : "PROFILE");
}

static void allow_start(struct feed *f, const struct feed_line *l)
{
	if (l->lifecycle || l->grant || l->flood)
		snprintf(f->message, sizeof f->message, "nothing to allow: %s",
			 l->grant ? "this line is a grant or a question"
			 : l->flood ? "a flood mark" : "a lifecycle event");
	else if (l->earlier) /* its pane, and that pane's profile, are gone */
		snprintf(f->message, sizeof f->message,
			 "an earlier server's line: %%%d now is another pane; allow it from a "
			 "line of a pane running now", l->pane);
	else if (strcmp(l->action, "network-outbound") == 0)
		allow_choices(f, l);
	else
		allow_file_hint(f, l);
}

/* The grant request; its result, or NULL with the error in the message. */
static cJSON *allow_send(struct feed *f, bool persist, bool dry_run)
{
	cJSON *req = cJSON_CreateObject(), *reply;
	const cJSON *error;

	cJSON_AddStringToObject(req, "cmd", "allow");
	cJSON_AddNumberToObject(req, "pane", f->ask_pane);
	cJSON_AddStringToObject(req, f->ask_path ? "path" : "host", f->ask_target);
	cJSON_AddStringToObject(req, "via", "feed");
	if (persist)
		cJSON_AddBoolToObject(req, "persist", true);
	if (dry_run)
		cJSON_AddBoolToObject(req, "dry_run", true);
	if ((reply = feed_request(req)) == NULL) {
		snprintf(f->message, sizeof f->message, "cannot allow %s: the server is gone",
			 f->ask_target);
		return NULL;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok")))
		return reply;
	error = cJSON_GetObjectItem(reply, "error");
	snprintf(f->message, sizeof f->message, "cannot allow %s: %s (%s)", f->ask_target,
		 json_string(error, "message") ? json_string(error, "message") : "refused",
		 json_string(error, "code") ? json_string(error, "code") : "error");
	cJSON_Delete(reply);
	return NULL;
}

/* Ask mode's "no" (`d`): the held connections are refused now. */
static void refuse_held(struct feed *f)
{
	cJSON *req = cJSON_CreateObject(), *reply;

	cJSON_AddStringToObject(req, "cmd", "refuse");
	cJSON_AddNumberToObject(req, "pane", f->ask_pane);
	cJSON_AddStringToObject(req, "host", f->ask_target);
	reply = feed_request(req);
	if (reply != NULL && cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok")))
		snprintf(f->message, sizeof f->message, "refused %s now (%d held)", f->ask_target,
			 cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "refused")
				 ? cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "refused")
					   ->valueint
				 : 0);
	else
		snprintf(f->message, sizeof f->message, "cannot refuse %s: the server did not answer",
			 f->ask_target);
	cJSON_Delete(reply);
}

/* Ask mode: a connection held for an answer asks the person now.  Not
 * from the backlog (its time is long up), and not over a question or a
 * filter being typed (the next one asks again). */
static void ask_held(struct feed *f, const cJSON *ev)
{
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane"), *timeout = cJSON_GetObjectItem(ev, "timeout");
	const char *host = json_string(ev, "host"), *target = json_string(ev, "target");
	char profile[64], *safe_host, *safe_target;

	if (cJSON_IsTrue(cJSON_GetObjectItem(ev, "backlog")) || host == NULL || target == NULL ||
	    !cJSON_IsNumber(pane) || f->typing || f->ask != FEED_ASK_NONE)
		return;
	pane_profile(pane->valueint, profile, sizeof profile);
	safe_host = sanitise_text(host);
	safe_target = sanitise_text(target);
	f->ask = FEED_ASK_HELD;
	f->ask_pane = pane->valueint;
	f->ask_path = false;
	snprintf(f->ask_target, sizeof f->ask_target, "%s", safe_host);
	snprintf(f->message, sizeof f->message,
		 "pane %%%d asks to reach %s: held %d s for your answer, then refused\n"
		 "  s  allow for this session\n"
		 "  p  profile %s, in the config (the diff first)\n"
		 "  d  refuse now\n"
		 "  c  leave it",
		 pane->valueint, safe_target, cJSON_IsNumber(timeout) ? timeout->valueint : 30,
		 profile[0] ? profile : "(pane gone)");
	free(safe_host);
	free(safe_target);
}

static void on_key_asking(struct feed *f, unsigned char c)
{
	enum feed_ask ask = f->ask;
	cJSON *reply;
	const cJSON *result;

	f->ask = FEED_ASK_NONE;
	if ((ask == FEED_ASK_SCOPE || ask == FEED_ASK_HELD) && c == 's' && !f->ask_path) {
		if ((reply = allow_send(f, false, false)) == NULL)
			return;
		result = cJSON_GetObjectItem(reply, "result");
		/* A held connection is let through by the grant; one
		 * refused earlier was answered then and is not replayed. */
		snprintf(f->message, sizeof f->message,
			 "allowed %s for session %s until it ends\n(%s)", f->ask_target,
			 json_string(result, "session"),
			 ask == FEED_ASK_HELD
				 ? "the held connection goes through now"
				 : "the next connection goes through; nothing refused is replayed");
		cJSON_Delete(reply);
	} else if ((ask == FEED_ASK_SCOPE || ask == FEED_ASK_HELD) && c == 'p') {
		if ((reply = allow_send(f, true, true)) == NULL)
			return;
		result = cJSON_GetObjectItem(reply, "result");
		snprintf(f->message, sizeof f->message, "%swrite this to %s? y/n",
			 json_string(result, "diff"), json_string(result, "config"));
		f->ask = FEED_ASK_CONFIRM;
		cJSON_Delete(reply);
	} else if (ask == FEED_ASK_CONFIRM && (c == 'y' || c == 'Y')) {
		if ((reply = allow_send(f, true, false)) == NULL)
			return;
		result = cJSON_GetObjectItem(reply, "result");
		if (f->ask_path)
			snprintf(f->message, sizeof f->message,
				 "written to %s:\nnew panes of profile %s get %s writable (this one "
				 "keeps its mounts)",
				 json_string(result, "config"), json_string(result, "profile"),
				 json_string(result, "path"));
		else
			snprintf(f->message, sizeof f->message,
				 "written to %s:\nnew panes of profile %s get %s; session %s %s",
				 json_string(result, "config"), json_string(result, "profile"),
				 f->ask_target, json_string(result, "session"),
				 cJSON_IsTrue(cJSON_GetObjectItem(result, "session_now"))
					 ? "has it now"
					 : "goes without (its network is off)");
		cJSON_Delete(reply);
	} else if (ask == FEED_ASK_HELD && c == 'd') {
		refuse_held(f);
	} else {
		snprintf(f->message, sizeof f->message, "%s",
			 ask == FEED_ASK_CONFIRM ? "nothing written"
			 : ask == FEED_ASK_HELD	 ? "left waiting: refused when its time is up"
						 : "cancelled: nothing allowed");
	}
}

static void focus_pane(struct feed *f, const struct feed_line *l)
{
	cJSON *req, *reply;

	/* Pane ids start again at %1 with each server: an earlier line's
	 * pane is gone, and today's pane of that id is another one. */
	if (l->earlier) {
		snprintf(f->message, sizeof f->message,
			 "an earlier server's line: its %%%d is gone (%%%d now is another pane)",
			 l->pane, l->pane);
		return;
	}
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "cmd", "select-pane");
	cJSON_AddNumberToObject(req, "pane", l->pane);
	reply = feed_request(req);
	if (reply == NULL || !cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok")))
		snprintf(f->message, sizeof f->message, "pane %%%d is gone", l->pane);
	cJSON_Delete(reply);
}

static void move_selection(struct feed *f, int step)
{
	long i = f->selected;

	f->paused = true;
	for (i += step; i >= 0 && (size_t)i < f->nlines; i += step)
		if (line_visible(f, &f->lines[i])) {
			f->selected = i;
			return;
		}
}

static void on_key_typing(struct feed *f, unsigned char c)
{
	size_t len = strlen(f->input);

	if (c == '\r' || c == '\n') {
		snprintf(f->filter, sizeof f->filter, "%s", f->input);
		f->typing = false;
	} else if (c == 0x1b) {
		f->typing = false;
	} else if ((c == 0x7f || c == 0x08) && len > 0) {
		f->input[len - 1] = 0;
	} else if (c >= 0x20 && c != 0x7f && len + 1 < sizeof f->input) {
		f->input[len] = (char)c;
		f->input[len + 1] = 0;
	}
}

static void on_keys(struct feed *f, const unsigned char *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct feed_line *l = selected_line(f);
		unsigned char c = keys[i];

		if (f->typing) {
			on_key_typing(f, c);
			continue;
		}
		if (f->ask != FEED_ASK_NONE) {
			on_key_asking(f, c);
			continue;
		}
		f->message[0] = 0;
		if (c == 0x1b && i + 2 < n && (keys[i + 1] == '[' || keys[i + 1] == 'O')) {
			if (keys[i + 2] == 'A' || keys[i + 2] == 'B')
				move_selection(f, keys[i + 2] == 'A' ? -1 : 1);
			i += 2;
		} else if (c == 'k' || c == 'j') {
			move_selection(f, c == 'k' ? -1 : 1);
		} else if (c == 'f') {
			f->typing = true;
			f->input[0] = 0;
		} else if (c == 0x1b) {
			f->filter[0] = 0;
		} else if (c == 'p') {
			f->paused = !f->paused;
		} else if (c == 'l') {
			f->hide_lifecycle = !f->hide_lifecycle;
		} else if (c == '\r' && l != NULL) {
			focus_pane(f, l);
		} else if (c == '?' && l != NULL) {
			explain(f, l);
		} else if (c == 'a' && l != NULL) {
			allow_start(f, l);
		}
	}
}

static void feed_free(struct feed *f)
{
	for (size_t i = 0; i < f->nlines; i++) {
		free(f->lines[i].target);
		free(f->lines[i].reason);
	}
	free(f->lines);
}

int feed_run(struct cli_conn *events, const char *session, double server_started)
{
	struct feed f = { .events = events, .session = session, .selected = -1, .cols = 80, .rows = 24,
			  .server_started = server_started };
	struct termios saved, raw;
	bool have_tty = tcgetattr(STDIN_FILENO, &saved) == 0, eof = false;
	struct config cfg;
	struct sm_error err = { 0 };

	if (getenv("SANDMUX_PANE") != NULL && getenv("SANDMUX_PANE")[0] == '%')
		f.self = atoi(getenv("SANDMUX_PANE") + 1);
	theme_builtin_default(&f.theme);
	config_defaults(&cfg);
	if (config_load(NULL, &cfg, &err) == 0)
		theme_load(cfg.theme, &f.theme, &err);
	config_free(&cfg);
	if (have_tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	feed_draw(&f);
	while (!eof) {
		int cols = f.cols, rows = f.rows;
		struct winsize ws;
		struct pollfd pfd[2] = { { .fd = events->fd, .events = POLLIN },
					 { .fd = STDIN_FILENO, .events = POLLIN } };
		bool changed = false;
		cJSON *ev;

		/* A resize needs a redraw too: poll wakes every half second. */
		if (events->len == 0 && poll(pfd, 2, 500) < 0 && errno != EINTR)
			break;
		while ((ev = cli_read_message(events, 0, &eof)) != NULL) {
			if (cJSON_GetObjectItem(ev, "event") != NULL) {
				feed_add(&f, ev);
				if (strcmp(json_string(ev, "kind") ? json_string(ev, "kind") : "", "policy-ask") == 0)
					ask_held(&f, ev);
				changed = true;
			}
			cJSON_Delete(ev);
		}
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			unsigned char keys[64];
			ssize_t n = read(STDIN_FILENO, keys, sizeof keys);
			if (n <= 0)
				break;
			on_keys(&f, keys, (size_t)n);
			changed = true;
		}
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
			changed = changed || ws.ws_col != cols || ws.ws_row != rows;
		if (changed)
			feed_draw(&f);
	}
	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	fputs("\033[?7h\033[?25h", stdout);
	feed_free(&f);
	return 0;
}
