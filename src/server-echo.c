/*
 * server-echo: the server's side of the echo page (see echo-share.h).
 *
 * On attach a client may name its terminal and its page.  From then on,
 * when a pane's damage is small and made of plain cells, the server
 * writes those rows to the client's terminal itself, before it sends the
 * frame: a keystroke's echo reaches the screen without waiting for the
 * client to wake up.  The frame carries "patched": true, and the client
 * repaints the rows from it.  Anything unusual (the client busy, a wide
 * or combining character, a colour the client would map, more than a few
 * rows, a terminal that cannot take the bytes at once) means no patch:
 * the frame alone, as without a page.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "echo-share.h"
#include "error.h"
#include "log.h"
#include "server.h"
#include "term.h"
#include "xalloc.h"

#define PATCH_ROWS_MAX 4      /* an echo touches a row or two */
#define PATCH_BYTES_MAX 16384 /* well under what a terminal takes at once */

/* How often the server looks whether a client with a page still has its
 * terminal (see watch_client). */
#define ECHO_WATCH_MS 50

static int start_input(struct conn *c);

/* Does the client still own its terminal: running and, when the
 * terminal is its controlling terminal, its process group the
 * terminal's foreground?  Read from /proc/PID/stat (state, pgrp,
 * tty_nr, tpgid): the server cannot ask the terminal itself, it is not
 * the server's controlling terminal.  A terminal that is not the
 * client's controlling one has no job control to lose, so only a stop
 * counts there.  Unreadable counts as yes: the connection's own end
 * says when the client is gone. */
static bool client_owns_terminal(pid_t pid, int tty_fd)
{
	struct proc_stat ps;
	struct stat st;

	if (proc_stat_read(pid, &ps) != 0)
		return true;
	if (ps.state == 'T' || ps.state == 't')
		return false;
	if (fstat(tty_fd, &st) != 0 || (unsigned long long)st.st_rdev != ps.tty_nr)
		return true;
	return ps.tpgid == ps.pgrp;
}

/* Threat: a client stopped from outside (kill -STOP, which it cannot
 * catch and answer) while the server reads its terminal and patches it.
 * The user's shell takes the terminal back; without this the server
 * would keep taking what the user types to the shell and send it to a
 * pane, and paint pane output over the shell's screen.  So every
 * ECHO_WATCH_MS the server looks: not the terminal's owner any more ->
 * no reading, no patches; the owner again (fg) -> reading resumes if the
 * client had asked for it, and the client, woken by SIGCONT, redraws.
 * What is typed within ECHO_WATCH_MS of the stop can still be read; the
 * shell needs about that long to show its prompt.  A look costs one
 * small /proc read, 20 times a second while a client is attached; doing
 * it on every keystroke instead would cost the echo about as much as
 * sandmux is ahead of tmux there. */
static void watch_client(uv_timer_t *timer)
{
	struct conn *c = timer->data;
	bool owns = client_owns_terminal(c->peer_pid, c->echo_tty);

	if (!owns && !c->echo_paused) {
		bool wanted = c->tty_wanted;

		c->echo_paused = true;
		server_echo_stop_input(c);
		c->tty_wanted = wanted;
		log_info("client %d stopped or in the background: its terminal is left alone",
			 (int)c->peer_pid);
	} else if (owns && c->echo_paused) {
		c->echo_paused = false;
		if (c->tty_wanted)
			start_input(c);
		log_info("client %d has its terminal again", (int)c->peer_pid);
	}
}

static void on_watch_closed(uv_handle_t *handle)
{
	free(handle);
}

static void start_watch(struct conn *c)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	uv_os_fd_t fd;

	if (uv_fileno((const uv_handle_t *)&c->pipe, &fd) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0)
		return;
	c->peer_pid = cred.pid;
	c->echo_watch = xmalloc(sizeof *c->echo_watch);
	uv_timer_init(server.loop, c->echo_watch);
	c->echo_watch->data = c;
	uv_timer_start(c->echo_watch, watch_client, ECHO_WATCH_MS, ECHO_WATCH_MS);
}

void server_echo_attach(struct conn *c, const char *tty, const char *page)
{
	const char *dir = strrchr(server.socket_path, '/');
	struct echo_share *share;
	struct stat st;
	int fd;

	server_echo_detach(c);
	if (tty == NULL || page == NULL)
		return;
	/* The page must be a plain file of ours in our own socket
	 * directory: a client cannot point the server at anything else. */
	if (dir == NULL || strncmp(page, server.socket_path, (size_t)(dir - server.socket_path)) != 0 ||
	    strncmp(page + (dir - server.socket_path), "/echo-", 6) != 0 ||
	    strchr(page + (dir - server.socket_path) + 1, '/') != NULL)
		return;
	fd = open(page, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	unlink(page);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    st.st_size < (off_t)sizeof *share) {
		close(fd);
		return;
	}
	share = mmap(NULL, sizeof *share, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (share == MAP_FAILED)
		return;
	if (share->magic != ECHO_SHARE_MAGIC || share->version != ECHO_SHARE_VERSION) {
		munmap(share, sizeof *share);
		return;
	}
	/* O_NOCTTY: never the server's controlling terminal.  Non-blocking:
	 * a stalled terminal must not stall the server.  Readable too: the
	 * client may hand its input over (server_echo_tty_request). */
	fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || !isatty(fd)) {
		if (fd >= 0)
			close(fd);
		munmap(share, sizeof *share);
		return;
	}
	c->echo = share;
	c->echo_tty = fd;
	c->prefix_byte = -1;
	c->echo_paused = false;
	start_watch(c);
	log_debug("client echo page on %s", tty);
}

void server_echo_detach(struct conn *c)
{
	server_echo_stop_input(c);
	c->tty_wanted = false;
	if (c->echo_watch != NULL) {
		uv_close((uv_handle_t *)c->echo_watch, on_watch_closed);
		c->echo_watch = NULL;
	}
	if (c->echo != NULL) {
		log_info("client echo: %llu patches written to its terminal; %lu typed bytes "
			 "passed through, %lu chunks of input forwarded",
			 (unsigned long long)c->echo->patches, c->tty_passed, c->tty_forwarded);
		munmap(c->echo, sizeof *c->echo);
	}
	if (c->echo_tty >= 0)
		close(c->echo_tty);
	c->echo = NULL;
	c->echo_tty = -1;
}

struct patch {
	char *buf;
	size_t len, size;
	int col_end; /* the row's cells written so far */
	bool ok;
	const struct echo_share *share;
};

static void put(struct patch *pt, const char *bytes, size_t n)
{
	if (!pt->ok || pt->len + n > pt->size) {
		pt->ok = false;
		return;
	}
	memcpy(pt->buf + pt->len, bytes, n);
	pt->len += n;
}

/* Whether the client's drawing shows this colour as the pane asked for
 * it, so a patch may too; false when it would map it (nearest palette
 * entry, RGB to palette). */
static bool color_as_asked(const struct echo_share *share, const struct term_color *color)
{
	if (color->kind == TERM_COLOR_DEFAULT || !share->use_color)
		return true;
	if (color->kind == TERM_COLOR_PALETTE)
		return color->index < 8 || (!share->direct_color && color->index < share->ncolors);
	return share->direct_color;
}

static void patch_run(const struct term_style *style, const char *utf8, size_t len, int col,
		      int cells, void *user)
{
	struct patch *pt = user;
	struct term_style shown = *style;
	char sgr[TERM_SGR_MAX];

	if (!pt->ok)
		return;
	/* Runs arrive left to right; a gap would be unwritten cells. */
	if (col != pt->col_end) {
		pt->ok = false;
		return;
	}
	pt->col_end = col + cells;
	/* Plain printable ASCII only, one cell each: nothing wide, nothing
	 * combining, no control byte can ever reach the terminal. */
	if ((size_t)cells != len || (style->attrs & (TERM_ATTR_STRIKE | TERM_ATTR_CONCEAL)) != 0 ||
	    !color_as_asked(pt->share, &style->fg) || !color_as_asked(pt->share, &style->bg)) {
		pt->ok = false;
		return;
	}
	for (size_t i = 0; i < len; i++)
		if (utf8[i] < 0x20 || utf8[i] > 0x7e) {
			pt->ok = false;
			return;
		}
	/* Without colours the client draws none (NO_COLOR). */
	if (!pt->share->use_color)
		shown.fg.kind = shown.bg.kind = TERM_COLOR_DEFAULT;
	put(pt, sgr, term_style_sgr(&shown, sgr, sizeof sgr));
	put(pt, utf8, len);
}

static const struct echo_region *region_of(const struct echo_share *share, const struct pane *p)
{
	uint32_t n = share->nregions < ECHO_SHARE_PANES ? share->nregions : ECHO_SHARE_PANES;
	int rows = term_rows(p->term), cols = term_cols(p->term);

	for (uint32_t i = 0; i < n; i++) {
		const struct echo_region *r = &share->regions[i];

		/* Exactly the pane as the server has it, and on the screen. */
		if (r->pane == p->id && r->cols == cols && r->rows == rows && r->x >= 0 &&
		    r->y >= 0 && (uint32_t)r->x + (uint32_t)cols <= share->screen_cols &&
		    (uint32_t)r->y + (uint32_t)rows <= share->screen_rows)
			return r;
	}
	return NULL;
}

size_t server_echo_patch_bytes(const struct echo_share *share, int x, int y, struct term *term,
				bool move_cursor, char *buf, size_t size)
{
	struct patch pt = {.buf = buf, .size = size, .ok = true, .share = share};
	int rows = term_rows(term), n = 0;
	char cup[32];

	/* Save the cursor, its attributes and character sets (DECSC); plain
	 * ASCII in G0 for the cells; restored (DECRC) after.  A cursor key
	 * damages no row: then the patch is the cursor's move alone. */
	if (term_any_damage(term))
		put(&pt, "\0337\033(B\017", 6);
	for (int row = 0; row < rows && pt.ok; row++) {
		if (!term_row_damaged(term, row))
			continue;
		if (++n > PATCH_ROWS_MAX)
			return 0;
		snprintf(cup, sizeof cup, "\033[%d;%dH", y + row + 1, x + 1);
		put(&pt, cup, strlen(cup));
		pt.col_end = 0;
		term_row_runs(term, row, patch_run, &pt);
		/* The trailing blanks term_row_runs leaves out: the client
		 * shows default blanks there, and so must the patch (this is
		 * what erases a character taken back with backspace). */
		if (pt.col_end < term_cols(term) && share->erase_chars) {
			char ech[32];

			/* ECH erases without moving, in the default colours
			 * set just before. */
			snprintf(ech, sizeof ech, "\033[0m\033[%dX", term_cols(term) - pt.col_end);
			put(&pt, ech, strlen(ech));
		} else if (pt.col_end < term_cols(term)) {
			put(&pt, "\033[0m", 4);
			while (pt.ok && pt.col_end < term_cols(term)) {
				put(&pt, " ", 1);
				pt.col_end++;
			}
		}
	}
	if (n > 0)
		put(&pt, "\033[0m\0338", 6);
	/* The client's frames come later: put the cursor where they will
	 * (the client then tells ncurses, see echo-share.h). */
	if (move_cursor) {
		int cy, cx;

		term_cursor(term, &cy, &cx);
		snprintf(cup, sizeof cup, "\033[%d;%dH", y + cy + 1, x + cx + 1);
		put(&pt, cup, strlen(cup));
	}
	return pt.ok && (n > 0 || move_cursor) ? pt.len : 0;
}

/* Where the patch leaves the terminal's cursor.  Only the client shows
 * or hides it (ncurses remembers which, and would not repeat itself), so
 * a pane whose cursor the client shows, or would show but hides, is
 * patched only while the pane's cursor is as the client shows it; then
 * the patch moves a shown cursor where the pane has it.  Returns false
 * when the cursor has been shown or hidden since: the frame alone, and
 * the client's drawing, do that. */
static bool cursor_plan(const struct echo_share *share, const struct echo_region *r,
			struct pane *p, bool *move_cursor)
{
	int cy, cx;
	bool visible;

	term_cursor(p->term, &cy, &cx);
	visible = term_cursor_visible(p->term) && cy >= 0 && cx >= 0 && cy < r->rows && cx < r->cols;
	*move_cursor = false;
	if (share->focus_pane != p->id)
		return true;
	if (visible != (share->cursor_pane == p->id))
		return false;
	*move_cursor = visible;
	return true;
}

bool server_echo_patch(struct conn *c, struct pane *p)
{
	struct echo_share *share = c->echo;
	char buf[PATCH_BYTES_MAX];
	const struct echo_region *r;
	bool move_cursor = false;
	size_t len;
	struct pollfd ready[2] = {{.fd = c->echo_tty, .events = POLLOUT}, {.events = POLLRDHUP}};
	uv_os_fd_t conn_fd;
	bool done = false;

	if (share == NULL || c->echo_paused)
		return false;
	/* Our turn only if the client is asleep; never wait for it. */
	atomic_store(&share->patching, 1);
	if (atomic_load(&share->drawing) != 0) {
		atomic_store(&share->patching, 0);
		return false;
	}
	if (share->enabled && share->lines_drawn == c->lines_sent &&
	    (r = region_of(share, p)) != NULL &&
	    cursor_plan(share, r, p, &move_cursor) &&
	    (len = server_echo_patch_bytes(share, r->x, r->y, p->term, move_cursor, buf,
					   sizeof buf)) > 0 &&
	    /* Room for the bytes now, and the client still there: a patch
	     * after it went would land on the shell that got the terminal
	     * back. */
	    uv_fileno((const uv_handle_t *)&c->pipe, &conn_fd) == 0 &&
	    (ready[1].fd = conn_fd, poll(ready, 2, 0) >= 1) && (ready[0].revents & POLLOUT) &&
	    ready[1].revents == 0) {
		ssize_t n = write(c->echo_tty, buf, len);

		if (n == (ssize_t)len) {
			share->patches++;
			if (move_cursor) {
				int cy, cx;

				term_cursor(p->term, &cy, &cx);
				share->cursor_y = r->y + cy;
				share->cursor_x = r->x + cx;
				share->cursor_moved = 1;
			}
			done = true;
		} else if (n > 0) {
			/* Part of a sequence reached the terminal: the client
			 * repaints everything, and no more patches for it. */
			log_warn("client echo: short write to the terminal; patches off");
			share->enabled = 0;
			c->needs_full = true;
			done = true;
		}
	}
	atomic_store(&share->patching, 0);
	return done;
}

/* --- frames held back after a patch ------------------------------------ */

#define ECHO_HOLD_MS 1000 /* the longest a patched client waits for its frames */

static void on_echo_timer(uv_timer_t *timer)
{
	server_echo_flush(timer->data);
}

void server_echo_hold_frames(struct session *s)
{
	if (!uv_is_active((uv_handle_t *)&s->echo_timer))
		uv_timer_start(&s->echo_timer, on_echo_timer, ECHO_HOLD_MS, 0);
}

/* Every visible pane's damage to every client of the session, the held
 * rows among them (and again to clients that had them: harmless). */
void server_echo_flush(struct session *s)
{
	if (s->echo_flushing)
		return;
	s->echo_flushing = true;
	uv_timer_stop(&s->echo_timer);
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->attached == s)
			c->echo_lazy = c->echo_patched_now = false;
	server_send_frames(s, NULL, false);
	s->echo_flushing = false;
}

/* --- the client's input ------------------------------------------------- */

/* A keystroke whose bytes are what the client would have the pane get
 * for it in its normal mode, whatever the pane's modes: printable ASCII,
 * Tab and Backspace (the encoder sends 0x09 and 0x7f for those keys).
 * Cursor keys pass as keys (cursor_key_at).  Everything else is the
 * client's: Enter (CR LF in newline mode), control keys, other escape
 * sequences, mouse reports, UTF-8, the prefix. */
static bool passes_through(const struct conn *c, unsigned char byte)
{
	return ((byte >= 0x20 && byte <= 0x7e) || byte == 0x09 || byte == 0x7f) &&
	       byte != c->prefix_byte;
}

/* A cursor key as the client's terminal sends it, in either cursor-key
 * mode (CSI or SS3 with A-D, H, F: the forms every xterm-like terminal
 * uses), when the client let them pass: the client would send the pane
 * that key and nothing else, and the server encodes it for the pane's
 * own modes as the client's key would be.  Passing them spares a cursor
 * key the trip through the client, so the cursor's move reaches the
 * screen as fast as an echo.  Returns the sequence's length, or 0. */
static size_t cursor_key_at(const struct conn *c, const unsigned char *bytes, size_t n,
			    struct term_key *key)
{
	static const struct {
		char final;
		const char *name;
	} keys[] = {{'A', "Up"},    {'B', "Down"}, {'C', "Right"},
		    {'D', "Left"},  {'H', "Home"}, {'F', "End"}};

	if (!c->pass_cursor_keys || n < 3 || bytes[0] != 0x1b || (bytes[1] != '[' && bytes[1] != 'O'))
		return 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (bytes[2] == (unsigned char)keys[i].final)
			return term_key_parse(keys[i].name, key) ? 3 : 0;
	return 0;
}

/* What may go straight to the pane from the start of bytes: text and
 * cursor keys, in order.  Returns how many bytes went. */
static size_t pass_to_pane(struct conn *c, struct term *term, const unsigned char *bytes,
			   size_t n)
{
	size_t i = 0, text = 0, len;
	struct term_key key;

	while (i < n) {
		if (passes_through(c, bytes[i])) {
			i++;
			continue;
		}
		if ((len = cursor_key_at(c, bytes + i, n - i, &key)) == 0)
			break;
		term_send_text(term, (const char *)bytes + text, i - text);
		term_send_key(term, &key);
		i += len;
		text = i;
	}
	term_send_text(term, (const char *)bytes + text, i - text);
	c->tty_passed += i;
	return i;
}

static void forward(struct conn *c, const unsigned char *bytes, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	cJSON *ev;
	char *data;

	/* The client acts on these keys against the screen it has: output
	 * that came before them and still waits for the frame tick goes
	 * first, as the held frames do (server_send_raw).  Otherwise a
	 * `C-b [` right after vim quit froze vim's screen in copy mode,
	 * while the pane already showed the shell again. */
	if (c->attached != NULL)
		server_flush_pending_frames(c->attached);
	ev = cJSON_CreateObject();
	data = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		data[2 * i] = hex[bytes[i] >> 4];
		data[2 * i + 1] = hex[bytes[i] & 15];
	}
	data[2 * n] = '\0';
	cJSON_AddStringToObject(ev, "event", "tty-input");
	cJSON_AddNumberToObject(ev, "seq", (double)++c->tty_forwarded);
	cJSON_AddStringToObject(ev, "data", data);
	free(data);
	server_send(c, ev);
}

static void on_tty_readable(uv_poll_t *poll_handle, int status, int events)
{
	struct conn *c = poll_handle->data;
	unsigned char buf[4096];
	ssize_t n;
	size_t i = 0;

	(void)events;
	if (status < 0) {
		server_echo_stop_input(c);
		c->tty_wanted = false;
		return;
	}
	n = read(c->echo_tty, buf, sizeof buf);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The terminal hung up: the client will hear of it too. */
		server_echo_stop_input(c);
		c->tty_wanted = false;
		return;
	}
	session_client_active(c);
	if (c->passthrough && c->attached != NULL && c->attached->active != NULL &&
	    c->attached->active->active != NULL)
		i = pass_to_pane(c, c->attached->active->active->term, buf, (size_t)n);
	if (i < (size_t)n) {
		/* From the first byte that is not plain text on, the client
		 * decides, until it says it has caught up. */
		c->passthrough = false;
		forward(c, buf + i, (size_t)n - i);
	}
}

static void on_tty_poll_closed(uv_handle_t *handle)
{
	free(handle);
}

void server_echo_stop_input(struct conn *c)
{
	if (c->tty_poll == NULL)
		return;
	uv_close((uv_handle_t *)c->tty_poll, on_tty_poll_closed);
	c->tty_poll = NULL;
	c->passthrough = false;
}

/* Start reading the client's terminal (once). */
static int start_input(struct conn *c)
{
	if (c->tty_poll != NULL)
		return 0;
	c->tty_poll = xmalloc(sizeof *c->tty_poll);
	if (uv_poll_init(server.loop, c->tty_poll, c->echo_tty) != 0) {
		free(c->tty_poll);
		c->tty_poll = NULL;
		return -1;
	}
	c->tty_poll->data = c;
	uv_poll_start(c->tty_poll, UV_READABLE, on_tty_readable);
	return 0;
}

/* {"cmd":"tty", "read":BOOL?, "passthrough":true?, "seq":N, "prefix":N?,
 *  "cursor_keys":BOOL?}
 * Passthrough is granted only when seq is the last chunk forwarded: a
 * chunk still on its way to the client holds input typed before, which
 * must reach the pane first. */
int server_echo_tty_request(struct conn *c, const cJSON *req, struct sm_error *err)
{
	const cJSON *read_on = cJSON_GetObjectItemCaseSensitive(req, "read");
	const cJSON *pass = cJSON_GetObjectItemCaseSensitive(req, "passthrough");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(req, "seq");
	const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(req, "prefix");
	const cJSON *cursor_keys = cJSON_GetObjectItemCaseSensitive(req, "cursor_keys");

	if (c->echo == NULL || c->echo_tty < 0) {
		sm_error_set(err, SM_ERR_NO_TERMINAL, "this client shared no terminal at attach");
		return -1;
	}
	if (cJSON_IsBool(read_on) && !cJSON_IsTrue(read_on)) {
		server_echo_stop_input(c);
		c->tty_wanted = false;
		return 0;
	}
	if (cJSON_IsTrue(read_on)) {
		c->tty_wanted = true;
		if (!c->echo_paused && start_input(c) != 0) {
			sm_error_set(err, SM_ERR_NO_TERMINAL, "cannot watch the terminal");
			return -1;
		}
	}
	if (cJSON_IsNumber(prefix))
		c->prefix_byte = prefix->valueint >= 0 && prefix->valueint < 256 ? prefix->valueint : -1;
	if (cJSON_IsBool(cursor_keys))
		c->pass_cursor_keys = cJSON_IsTrue(cursor_keys);
	if (cJSON_IsTrue(pass) && cJSON_IsNumber(seq) && c->tty_poll != NULL &&
	    (unsigned long)seq->valuedouble == c->tty_forwarded)
		c->passthrough = true;
	else if (cJSON_IsFalse(pass))
		c->passthrough = false;
	return 0;
}
