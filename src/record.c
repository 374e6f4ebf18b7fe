/*
 * record: `sandmux record -t PANE FILE` writes the pane's output as an
 * asciicast v2 file (asciinema's format: a header line, then one JSON
 * array per event), and `record -t PANE --stop` ends it.
 *
 *   {"version": 2, "width": 80, "height": 24, "timestamp": 1795900000,
 *    "title": "sandmux %3 native (work)", "env": {"TERM": ..., "SHELL": ...}}
 *   [0.012345, "o", "$ cat ~/.ssh/id_ed25519\r\n"]
 *   [0.013001, "m", "file-read* /home/u/.ssh/id_ed25519"]
 *   [0.020000, "r", "100x30"]
 *
 * The server writes it, from the bytes the emulator gets, so a recording
 * goes on while no client is attached.  Each violation of the pane is a
 * marker ("m") with its action and target at the time the sandbox decided
 * (never before an event already written: times only go forward), so
 * `asciinema play` stops or jumps to each denial.
 *
 * The pane's output is untrusted: a sandboxed program chooses every byte
 * of it and of its violations' targets.  Threats, and what stops them:
 *   - forging events or breaking the file (a byte sequence that closes
 *     the JSON string and writes a marker of its own): every string is
 *     escaped here, quotes, backslashes and every control character;
 *   - invalid UTF-8, which JSON cannot carry and strict readers reject:
 *     each invalid byte becomes U+FFFD; a character cut by the end of a
 *     read is held back until the rest arrives;
 *   - the file itself as a weapon (a link planted where the recording
 *     will be, so the server's writes land in ~/.bashrc): the file is
 *     created new (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), never opened if
 *     something is there;
 *   - a sandbox rewriting or replacing the recording later (forged
 *     evidence, or a swapped directory under the server): the directory
 *     is resolved first and the decision made on that final directory,
 *     which no sandboxed pane running now may write (the supervisor's
 *     writable roots for native panes, the work tree for microvm);
 *   - filling the disk through a pane that prints forever: a recording
 *     stops at RECORD_MAX_BYTES, saying so in the status line.
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
#include "error.h"
#include "log.h"
#include "os.h"
#include "record.h"
#include "sandbox.h"
#include "server.h"
#include "supervisor.h"
#include "term.h"
#include "xalloc.h"
#include "subpath.h"

#define RECORD_MAX_BYTES (1024ULL * 1024 * 1024)

struct recording {
	int pane_id;
	int fd;
	char path[PATH_MAX];
	double started; /* CLOCK_REALTIME seconds at the header */
	double last;	/* the time of the last event written */
	char held[4];	/* the start of a character cut by a read's end */
	size_t nheld;
	unsigned long long bytes; /* written so far */
	int markers;
	struct recording *next;
};

static struct recording *recordings;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct recording *find(int pane_id)
{
	for (struct recording *r = recordings; r != NULL; r = r->next)
		if (r->pane_id == pane_id)
			return r;
	return NULL;
}

/* --- JSON text ------------------------------------------------------------------ */

struct line {
	char *buf;
	size_t len, cap;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (l->len + n + 1 > l->cap) {
		l->cap = (l->len + n + 1) * 2;
		l->buf = xrealloc(l->buf, l->cap);
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

static void put_text(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void putf(struct line *l, const char *fmt, double value)
{
	char text[64];
	int n = snprintf(text, sizeof text, fmt, value);

	put(l, text, (size_t)n);
}

/* Could s[0..n) be the start of a well-formed sequence that the next
 * read completes?  (A lead byte and continuation bytes, too few.) */
static bool utf8_prefix(const unsigned char *s, size_t n)
{
	size_t need = s[0] >= 0xf0 && s[0] <= 0xf4   ? 4
		      : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		      : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
						     : 0;

	if (need == 0 || n >= need)
		return false;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/* s[0..n) as the inside of a JSON string: valid UTF-8 kept, every
 * invalid byte as U+FFFD, quotes, backslashes and controls escaped.
 * Unless final, a character cut by the end is not taken: returns how
 * many bytes were. */
static size_t put_escaped(struct line *l, const char *s, size_t n, bool final)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		size_t len;
		char esc[8];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(l, esc, 2);
			i++;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
			put(l, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			put(l, esc, 6);
			i++;
		} else if (c < 0x80) {
			put(l, s + i, 1);
			i++;
		} else if ((len = term_utf8_decode(s + i, n - i, &cp)) > 0) {
			put(l, s + i, len);
			i += len;
		} else if (!final && utf8_prefix((const unsigned char *)s + i, n - i)) {
			break;
		} else {
			put(l, "\\ufffd", 6);
			i++;
		}
	}
	return i;
}

static void put_string(struct line *l, const char *s)
{
	put(l, "\"", 1);
	put_escaped(l, s, strlen(s), true);
	put(l, "\"", 1);
}

/* --- writing ---------------------------------------------------------------------- */

static void record_bytes(struct recording *r, const char *bytes, size_t len);
static void record_size(struct recording *r, int cols, int rows);

static void recording_close(struct recording *r)
{
	for (struct recording **rp = &recordings; *rp != NULL; rp = &(*rp)->next)
		if (*rp == r) {
			*rp = r->next;
			break;
		}
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

/* Say on the pane's session why its recording ended before --stop. */
static void recording_failed(struct recording *r, const char *why)
{
	struct pane *p = pane_find(r->pane_id);
	char text[PATH_MAX + 128];

	/* A terminal's recording (pane 0) is its caller's to close: it
	 * stops writing and says why. */
	if (r->pane_id == 0) {
		fprintf(stderr, "sandmux: recording stopped: %s (%s)\n", why, r->path);
		close(r->fd);
		r->fd = -1;
		return;
	}

	snprintf(text, sizeof text, "recording of %%%d stopped: %s (%s)", r->pane_id, why, r->path);
	log_warn("%s", text);
	if (p != NULL && p->window != NULL)
		server_push_status(p->window->session, text);
	recording_close(r);
}

/* One whole line, or the recording ends (never a torn file that
 * continues after a gap). */
static void write_line(struct recording *r, struct line *l)
{
	size_t done = 0;

	if (r->fd < 0) {
		free(l->buf);
		return;
	}
	put(l, "\n", 1);
	if (r->bytes + l->len > RECORD_MAX_BYTES) {
		free(l->buf);
		recording_failed(r, "it reached 1 GiB");
		return;
	}
	while (done < l->len) {
		ssize_t n = write(r->fd, l->buf + done, l->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(l->buf);
			recording_failed(r, strerror(n < 0 ? errno : ENOSPC));
			return;
		}
		done += (size_t)n;
	}
	r->bytes += l->len;
	free(l->buf);
}

/* "[TIME, \"CODE\", " with the time since the header, never earlier
 * than the last event's. */
static void event_start(struct recording *r, struct line *l, double at, const char *code)
{
	double t = at - r->started;

	if (t < r->last)
		t = r->last;
	r->last = t;
	putf(l, "[%.6f, \"", t);
	put(l, code, 1);
	put(l, "\", \"", 4);
}

void record_output(const struct pane *p, const char *bytes, size_t len)
{
	struct recording *r = recordings != NULL ? find(p->id) : NULL;

	if (r != NULL)
		record_bytes(r, bytes, len);
}

/* Output as an "o" event, a character cut by the end held back. */
static void record_bytes(struct recording *r, const char *bytes, size_t len)
{
	struct line text = {0}, l = {0};
	size_t taken;

	if (len == 0)
		return;
	/* The held start of a character goes first, with as many new bytes
	 * as could complete it (U+FFFD when they do not). */
	if (r->nheld > 0) {
		char joined[8];
		size_t held = r->nheld, more = len < 4 - held ? len : 4 - held;

		memcpy(joined, r->held, held);
		memcpy(joined + held, bytes, more);
		taken = put_escaped(&text, joined, held + more, false);
		if (taken < held) {
			/* still cut (every new byte went into it): hold on */
			memcpy(r->held, joined + taken, held + more - taken);
			r->nheld = held + more - taken;
			free(text.buf);
			return;
		}
		bytes += taken - held;
		len -= taken - held;
		r->nheld = 0;
	}
	taken = put_escaped(&text, bytes, len, false);
	memcpy(r->held, bytes + taken, len - taken);
	r->nheld = len - taken;
	if (text.len == 0)
		return;
	event_start(r, &l, now_seconds(), "o");
	put(&l, text.buf, text.len);
	free(text.buf);
	put(&l, "\"]", 2);
	write_line(r, &l);
}

void record_resize(const struct pane *p, int cols, int rows)
{
	struct recording *r = recordings != NULL ? find(p->id) : NULL;

	if (r != NULL)
		record_size(r, cols, rows);
}

static void record_size(struct recording *r, int cols, int rows)
{
	struct line l = {0};
	char size[32];

	snprintf(size, sizeof size, "%dx%d", cols, rows);
	event_start(r, &l, now_seconds(), "r");
	put(&l, size, strlen(size));
	put(&l, "\"]", 2);
	write_line(r, &l);
}

void record_event(const cJSON *ev)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));
	struct sandbox_violation v;
	struct sm_error err = {0};
	struct recording *r;
	struct line l = {0};

	/* A marker per violation, read as the one schema (sandbox.h). */
	if (recordings == NULL || kind == NULL || strcmp(kind, "violation") != 0 ||
	    sandbox_violation_from_json(ev, &v, &err) != 0 || v.pane <= 0 ||
	    (r = find(v.pane)) == NULL)
		return;
	event_start(r, &l, v.time > 0 ? v.time : now_seconds(), "m");
	put_escaped(&l, v.action, strlen(v.action), true);
	put_text(&l, " ");
	put_escaped(&l, v.target, strlen(v.target), true);
	put(&l, "\"]", 2);
	r->markers++;
	write_line(r, &l);
}

void record_pane_gone(int pane_id)
{
	struct recording *r = recordings != NULL ? find(pane_id) : NULL;

	if (r != NULL) {
		log_info("recording of %%%d ended with its pane (%s)", pane_id, r->path);
		recording_close(r);
	}
}

/* --- where the file may be ------------------------------------------------------- */

/* Which sandboxed pane running now could write in dir (resolved), or 0. */
static int sandbox_reaching(const char *dir)
{
	int pane_id = 0;
	char cwd[PATH_MAX];

	if (supervisor_path_writable(dir, &pane_id))
		return pane_id;
	/* A microvm's work tree is shared read-write into the guest. */
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				if (p->launch.backend == SANDBOX_MICROVM && !p->exited &&
				    p->state != SANDBOX_ERROR && realpath(p->cwd, cwd) != NULL &&
				    subpath_of(dir, cwd))
					return p->id;
	return 0;
}

/* The new file, or -1 with err.  path is absolute. */
static int open_recording(const char *path, char *final, size_t size, struct sm_error *err)
{
	char dir[PATH_MAX], resolved[PATH_MAX];
	const char *name = strrchr(path, '/') + 1;
	int dirfd, fd, reaching;

	if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "%s: not a file name", path);
		return -1;
	}
	snprintf(dir, sizeof dir, "%.*s", (int)(name - path - 1 > 0 ? name - path - 1 : 1), path);
	/* The directory as it resolves now, held open: the checks below
	 * and the create are about this very directory, whatever its path
	 * leads to later. */
	dirfd = open(dir, OS_O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (os_fd_path(dirfd, resolved, sizeof resolved) != 0) {
		sm_error_set(err, SM_ERR_UNSAFE_PATH, "%s: cannot tell where it leads", dir);
		close(dirfd);
		return -1;
	}
	if ((reaching = sandbox_reaching(resolved)) > 0) {
		sm_error_set(err, SM_ERR_UNSAFE_PATH,
			     "%s is writable by sandboxed pane %%%d, which could rewrite the "
			     "recording: choose a directory no sandbox can write (for example "
			     "$XDG_STATE_HOME/sandmux or a host /tmp directory)",
			     resolved, reaching);
		close(dirfd);
		return -1;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd < 0) {
		sm_error_set(err, errno == EEXIST ? SM_ERR_UNSAFE_PATH : SM_ERR_INVALID_ARGUMENT,
			     "%s: %s%s", path, strerror(errno),
			     errno == EEXIST ? " (a recording is always a new file)" : "");
		return -1;
	}
	snprintf(final, size, "%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved, name);
	return fd;
}

/* The header: the pane's size, when, what it is, its terminal. */
static void write_header(struct recording *r, const struct pane *p)
{
	struct line l = {0};
	char title[256];
	const char *label = pane_backend_label(p);

	snprintf(title, sizeof title, "sandmux %%%d %s (%s)", p->id,
		 label			     ? label
		 : p->state == SANDBOX_ERROR ? "FAILED"
					     : "starting",
		 p->window != NULL ? p->window->session->name : p->session_name);
	putf(&l, "{\"version\": 2, \"width\": %.0f", term_cols(p->term));
	putf(&l, ", \"height\": %.0f", term_rows(p->term));
	putf(&l, ", \"timestamp\": %.0f, \"title\": ", (double)(long long)r->started);
	put_string(&l, title);
	put_text(&l, ", \"env\": {\"TERM\": \"xterm-256color\", \"SHELL\": ");
	put_string(&l, server.default_shell);
	put(&l, "}}", 2);
	write_line(r, &l);
}

CMD_HANDLER(cmd_record)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct recording *r;
	const char *path;
	char final[PATH_MAX];
	int fd;

	if (p == NULL)
		return -1;
	r = find(p->id);
	if (cmd_get_bool(req, "stop", false)) {
		if (r == NULL) {
			sm_error_set(err, SM_ERR_NOT_RECORDING, "pane %%%d is not being recorded",
				     p->id);
			return -1;
		}
		cJSON_AddNumberToObject(result, "pane", p->id);
		cJSON_AddStringToObject(result, "path", r->path);
		cJSON_AddNumberToObject(result, "seconds", now_seconds() - r->started);
		cJSON_AddNumberToObject(result, "markers", r->markers);
		cJSON_AddNumberToObject(result, "bytes", (double)r->bytes);
		recording_close(r);
		return 0;
	}
	if (cmd_get_string(req, "path", true, &path, err) < 0)
		return -1;
	if (r != NULL) {
		sm_error_set(
		    err, SM_ERR_ALREADY_RECORDING,
		    "pane %%%d is already being recorded to %s (record -t %%%d --stop ends it)",
		    p->id, r->path, p->id);
		return -1;
	}
	if (path[0] != '/' || strlen(path) >= PATH_MAX) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "the recording's path must be absolute");
		return -1;
	}
	if ((fd = open_recording(path, final, sizeof final, err)) < 0)
		return -1;
	r = xcalloc(1, sizeof *r);
	r->pane_id = p->id;
	r->fd = fd;
	r->started = now_seconds();
	snprintf(r->path, sizeof r->path, "%s", final);
	r->next = recordings;
	recordings = r;
	write_header(r, p);
	if (find(p->id) == NULL) {
		sm_error_set(err, SM_ERR_FAILED, "cannot write the recording's header to %s",
			     final);
		return -1;
	}
	log_info("recording %%%d to %s", p->id, final);
	cJSON_AddNumberToObject(result, "pane", p->id);
	cJSON_AddStringToObject(result, "path", final);
	return 0;
}

/* --- a terminal ---------------------------------------------------------------------- */

/* A whole terminal's output (sandmux demo --record), not a pane's: the
 * recording has pane id 0 and is on no list; its caller feeds it. */
struct recording *record_terminal_open(const char *path, int cols, int rows, const char *title,
				       struct sm_error *err)
{
	struct recording *r;
	struct line l = {0};
	char final[PATH_MAX];
	int fd;

	if (path[0] != '/' || strlen(path) >= PATH_MAX) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "the recording's path must be absolute");
		return NULL;
	}
	if ((fd = open_recording(path, final, sizeof final, err)) < 0)
		return NULL;
	r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->started = now_seconds();
	snprintf(r->path, sizeof r->path, "%s", final);
	putf(&l, "{\"version\": 2, \"width\": %.0f", cols);
	putf(&l, ", \"height\": %.0f", rows);
	putf(&l, ", \"timestamp\": %.0f, \"title\": ", (double)(long long)r->started);
	put_string(&l, title);
	put_text(&l, ", \"env\": {\"TERM\": ");
	put_string(&l, getenv("TERM") != NULL ? getenv("TERM") : "xterm-256color");
	put(&l, "}}", 2);
	write_line(r, &l);
	return r;
}

void record_terminal_output(struct recording *r, const char *bytes, size_t len)
{
	record_bytes(r, bytes, len);
}

void record_terminal_resize(struct recording *r, int cols, int rows)
{
	record_size(r, cols, rows);
}

void record_terminal_close(struct recording *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}
