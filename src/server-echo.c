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
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "echo-share.h"
#include "log.h"
#include "server.h"
#include "term.h"

#define PATCH_ROWS_MAX 4      /* an echo touches a row or two */
#define PATCH_BYTES_MAX 16384 /* well under what a terminal takes at once */

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
	 * a stalled terminal must not stall the server. */
	fd = open(tty, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || !isatty(fd)) {
		if (fd >= 0)
			close(fd);
		munmap(share, sizeof *share);
		return;
	}
	c->echo = share;
	c->echo_tty = fd;
	log_debug("client echo page on %s", tty);
}

void server_echo_detach(struct conn *c)
{
	if (c->echo != NULL) {
		log_info("client echo: %llu patches written to its terminal",
			 (unsigned long long)c->echo->patches);
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

/* The SGR parameters the client's drawing would give this colour, or
 * false when it would map it (nearest palette entry, RGB to palette). */
static bool color_sgr(const struct echo_share *share, const struct term_color *color, bool bg,
		      char *out, size_t size)
{
	out[0] = '\0';
	if (color->kind == TERM_COLOR_DEFAULT || !share->use_color)
		return true;
	if (color->kind == TERM_COLOR_PALETTE) {
		if (color->index >= 8 && (share->direct_color || color->index >= share->ncolors))
			return false;
		if (color->index < 8)
			snprintf(out, size, ";%d", (bg ? 40 : 30) + color->index);
		else if (color->index < 16)
			snprintf(out, size, ";%d", (bg ? 100 : 90) + color->index - 8);
		else
			snprintf(out, size, ";%d;5;%d", bg ? 48 : 38, color->index);
		return true;
	}
	if (!share->direct_color)
		return false;
	snprintf(out, size, ";%d;2;%d;%d;%d", bg ? 48 : 38, color->r, color->g, color->b);
	return true;
}

static void patch_run(const struct term_style *style, const char *utf8, size_t len, int col,
		      int cells, void *user)
{
	static const struct {
		uint8_t bit;
		const char *sgr;
	} attrs[] = {{TERM_ATTR_BOLD, ";1"},	  {TERM_ATTR_DIM, ";2"},
		     {TERM_ATTR_ITALIC, ";3"},	  {TERM_ATTR_UNDERLINE, ";4"},
		     {TERM_ATTR_BLINK, ";5"},	  {TERM_ATTR_REVERSE, ";7"}};
	struct patch *pt = user;
	char sgr[96] = "\033[0", fg[32], bg[32];

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
	    !color_sgr(pt->share, &style->fg, false, fg, sizeof fg) ||
	    !color_sgr(pt->share, &style->bg, true, bg, sizeof bg)) {
		pt->ok = false;
		return;
	}
	for (size_t i = 0; i < len; i++)
		if (utf8[i] < 0x20 || utf8[i] > 0x7e) {
			pt->ok = false;
			return;
		}
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		if (style->attrs & attrs[i].bit)
			strcat(sgr, attrs[i].sgr);
	strcat(sgr, fg);
	strcat(sgr, bg);
	strcat(sgr, "m");
	put(pt, sgr, strlen(sgr));
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

/* The client is still there: a patch after it went would land on the
 * shell that got the terminal back. */
static bool peer_alive(struct conn *c)
{
	uv_os_fd_t fd;
	struct pollfd pfd = {.events = POLLRDHUP};

	if (uv_fileno((const uv_handle_t *)&c->pipe, &fd) != 0)
		return false;
	pfd.fd = fd;
	return poll(&pfd, 1, 0) == 0;
}

size_t server_echo_patch_bytes(const struct echo_share *share, int x, int y, struct term *term,
				char *buf, size_t size)
{
	struct patch pt = {.buf = buf, .size = size, .ok = true, .share = share};
	int rows = term_rows(term), n = 0;
	char cup[32];

	/* Save the cursor, its attributes and character sets (DECSC); plain
	 * ASCII in G0 for the cells; restored (DECRC) after. */
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
		if (pt.col_end < term_cols(term))
			put(&pt, "\033[0m", 4);
		while (pt.ok && pt.col_end < term_cols(term)) {
			put(&pt, " ", 1);
			pt.col_end++;
		}
	}
	put(&pt, "\033[0m\0338", 6);
	return pt.ok && n > 0 ? pt.len : 0;
}

bool server_echo_patch(struct conn *c, struct pane *p)
{
	struct echo_share *share = c->echo;
	char buf[PATCH_BYTES_MAX];
	const struct echo_region *r;
	size_t len;
	struct pollfd room = {.fd = c->echo_tty, .events = POLLOUT};
	bool done = false;

	if (share == NULL)
		return false;
	/* Our turn only if the client is asleep; never wait for it. */
	atomic_store(&share->patching, 1);
	if (atomic_load(&share->drawing) != 0) {
		atomic_store(&share->patching, 0);
		return false;
	}
	if (share->enabled && (r = region_of(share, p)) != NULL &&
	    (len = server_echo_patch_bytes(share, r->x, r->y, p->term, buf, sizeof buf)) > 0 &&
	    poll(&room, 1, 0) == 1 && (room.revents & POLLOUT) && peer_alive(c)) {
		ssize_t n = write(c->echo_tty, buf, len);

		if (n == (ssize_t)len) {
			share->patches++;
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
