/*
 * client-echo: the client's side of the echo page (see echo-share.h).
 *
 * The client makes the page next to the server's socket, names it and
 * its terminal in the attach request, holds the page while it is awake,
 * and publishes, each time it draws, where each pane's live cells are on
 * its screen.  Without a terminal on stdout, or when anything fails,
 * there is no page and the client draws every echo itself, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <unistd.h>

#include "client-internal.h"
#include "echo-share.h"

#include <ncurses.h>

/* How long the client waits for the server to finish a patch: a patch is
 * one write(2) of a few hundred bytes, so this is only reached when the
 * server died in the middle of one. */
#define ECHO_HOLD_WAIT_MS 50

static bool same_terminal(void)
{
	struct stat in, out;

	return isatty(STDIN_FILENO) && fstat(STDIN_FILENO, &in) == 0 &&
	       fstat(STDOUT_FILENO, &out) == 0 && in.st_rdev == out.st_rdev;
}

void client_echo_open(struct client *c, const char *socket_path)
{
	const char *slash = strrchr(socket_path, '/');
	const char *tty = ttyname(STDOUT_FILENO);
	struct echo_share *share;
	int fd;

	/* Only when keys come from the very terminal the screen is on: the
	 * server will read that terminal for them. */
	if (tty == NULL || !same_terminal() || slash == NULL ||
	    snprintf(c->echo_path, sizeof c->echo_path, "%.*s/echo-XXXXXX",
		     (int)(slash - socket_path), socket_path) >= (int)sizeof c->echo_path ||
	    strlen(tty) >= sizeof c->echo_tty)
		goto none;
	snprintf(c->echo_tty, sizeof c->echo_tty, "%s", tty);
	fd = mkostemp(c->echo_path, O_CLOEXEC);
	if (fd < 0)
		goto none;
	if (ftruncate(fd, sizeof *share) != 0) {
		close(fd);
		unlink(c->echo_path);
		goto none;
	}
	share = mmap(NULL, sizeof *share, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (share == MAP_FAILED) {
		unlink(c->echo_path);
		goto none;
	}
	share->magic = ECHO_SHARE_MAGIC;
	share->version = ECHO_SHARE_VERSION;
	/* Held from the start: the client is awake. */
	atomic_store(&share->drawing, 1);
	c->echo = share;
	return;
none:
	c->echo = NULL;
	c->echo_path[0] = c->echo_tty[0] = '\0';
}

/* The server unlinks the page once it has it; this covers a server that
 * never did (it refused the attach, or predates the page). */
void client_echo_close(struct client *c)
{
	if (c->input_file != NULL)
		fclose(c->input_file); /* and with it input_pipe[0] */
	else if (c->input_pipe[0] >= 0)
		close(c->input_pipe[0]);
	if (c->input_pipe[1] >= 0)
		close(c->input_pipe[1]);
	c->input_file = NULL;
	c->input_pipe[0] = c->input_pipe[1] = -1;
	if (c->echo == NULL)
		return;
	c->echo->enabled = 0;
	munmap(c->echo, sizeof *c->echo);
	c->echo = NULL;
	if (c->echo_path[0] != '\0')
		unlink(c->echo_path);
}

void client_echo_hold(struct client *c)
{
	long long deadline;

	if (c->echo == NULL)
		return;
	atomic_store(&c->echo->drawing, 1);
	if (atomic_load(&c->echo->patching) != 0) {
		deadline = client_now_ms() + ECHO_HOLD_WAIT_MS;
		while (atomic_load(&c->echo->patching) != 0 && client_now_ms() < deadline)
			sched_yield();
	}
	/* A patch moved the cursor: ncurses must know where it is before it
	 * moves it relative to where it thinks it is.  An unknown old
	 * position makes mvcur address the cell absolutely. */
	if (c->echo->cursor_moved) {
		c->echo->cursor_moved = 0;
		mvcur(-1, -1, c->echo->cursor_y, c->echo->cursor_x);
		/* mvcur writes through stdio's stdout (putchar), not
		 * ncurses' own buffer, and a terminal's stdout is line
		 * buffered: unflushed, that move waited for the exit
		 * message's newline and landed after endwin had left the
		 * alternate screen, putting "[detached ...]" over the
		 * user's earlier output at the pane cursor's row. */
		fflush(stdout);
	}
}

/* After a draw: everything handled is on the screen. */
void client_echo_release(struct client *c)
{
	if (c->echo == NULL)
		return;
	c->echo->lines_drawn = c->lines_read;
	atomic_store(&c->echo->drawing, 0);
}

/* Called while held, after a draw: the panes whose live cells are on the
 * screen exactly as the server has them, and nothing over them. */
void client_echo_publish(struct client *c, int pane_rows_on_screen)
{
	struct echo_share *share = c->echo;
	uint32_t n = 0;

	if (share == NULL)
		return;
	share->use_color = c->use_color;
	share->ncolors = c->ncolors > 0 ? (uint32_t)c->ncolors : 0;
	share->direct_color = c->direct_color;
	share->screen_cols = c->cols > 0 ? (uint32_t)c->cols : 0;
	share->screen_rows = c->rows > 0 ? (uint32_t)c->rows : 0;
	share->erase_chars = c->has_ech;
	/* The help overlay, choose mode and display-panes' numbers cover
	 * panes; copy mode shows history. */
	for (size_t i = 0; i < c->npanes && c->mode != MODE_HELP && c->mode != MODE_CHOOSE &&
			   c->mode != MODE_DISPLAY_PANES && n < ECHO_SHARE_PANES;
	     i++) {
		const struct pane_view *pane = &c->panes[i];

		if (!client_pane_visible(c, pane) || strcmp(pane->state, "error") == 0 ||
		    (c->mode == MODE_COPY && c->copy.pane == pane->id) || pane->x < 0 ||
		    pane->y < 0 || pane->x + pane->cols > c->cols ||
		    pane->y + pane->rows > pane_rows_on_screen)
			continue;
		share->regions[n++] = (struct echo_region){
		    .pane = pane->id, .x = pane->x, .y = pane->y, .cols = pane->cols, .rows = pane->rows};
	}
	share->nregions = n;
	share->cursor_pane = share->focus_pane = -1;
	if (c->mode == MODE_NORMAL) {
		const struct pane_view *active = client_active_pane(c);

		for (uint32_t i = 0; active != NULL && i < n; i++)
			if (share->regions[i].pane == active->id) {
				share->focus_pane = active->id;
				if (active->cursor_visible && active->cursor_x < active->cols &&
				    active->cursor_y < active->rows)
					share->cursor_pane = active->id;
			}
	}
	share->enabled = c->attached && !c->exiting;
}

/* Called while held, as a layout arrives: the panes the server may have
 * patched are about to move, go or be hidden, and a patched pane's frame
 * may never come (its shell printed `exit' and died; its window was
 * switched away).  ncurses' idea of the rows those patches wrote is then
 * stale, and it would leave the dead pane's last words on the screen
 * wherever the new layout draws cells it believes are already there
 * (blanks, mostly).  So every row the client published is repainted
 * whole on the next update, when any patch was written since the last
 * layout. */
void client_echo_forget_regions(struct client *c)
{
	struct echo_share *share = c->echo;

	if (share == NULL || share->patches == c->echo_patches_seen)
		return;
	c->echo_patches_seen = share->patches;
	for (uint32_t i = 0; i < share->nregions && i < ECHO_SHARE_PANES; i++)
		for (int32_t y = 0; y < share->regions[i].rows; y++)
			client_draw_repaint_row(share->regions[i].y + y);
}

/* --- input: the terminal handed to the server ----------------------------
 *
 * With a page, ncurses reads the client's keys from a pipe, never from
 * the terminal itself.  The client copies its terminal into that pipe
 * until the server has agreed to read the terminal; from then on the
 * server reads it, writes printable text typed in normal mode straight
 * to the active pane while the client allows it ("passthrough"), and
 * sends everything else here as numbered "tty-input" chunks, which go
 * into the pipe.  One reader of the terminal at a time, always.
 */

/* ncurses' input: the pipe, when the client has a page. */
FILE *client_echo_input(struct client *c)
{
	FILE *in;

	if (c->echo == NULL || pipe2(c->input_pipe, O_CLOEXEC) != 0)
		return NULL;
	in = fdopen(c->input_pipe[0], "r");
	if (in == NULL) {
		close(c->input_pipe[0]);
		close(c->input_pipe[1]);
		c->input_pipe[0] = c->input_pipe[1] = -1;
	}
	c->input_file = in;
	return in;
}

/* Bytes for ncurses, then what they mean. */
static void client_echo_forward(struct client *c, const void *bytes, size_t n)
{
	client_write_all(c->input_pipe[1], bytes, n);
	client_read_input(c);
}

/* The client's own terminal, read while the server does not. */
void client_echo_read_terminal(struct client *c)
{
	char buf[4096];
	ssize_t n = read(STDIN_FILENO, buf, sizeof buf);

	if (n > 0)
		client_echo_forward(c, buf, (size_t)n);
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		client_leave(c, 1, "[terminal closed]");
}

static int hexval(int ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* {"event":"tty-input","seq":N,"data":HEX}: keys the server read. */
void client_echo_on_input(struct client *c, const cJSON *event)
{
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(event, "seq");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(event, "data");
	unsigned char buf[4096];
	size_t n = 0;

	if (!cJSON_IsNumber(seq) || !cJSON_IsString(data) || c->input_pipe[1] < 0)
		return;
	for (const char *h = data->valuestring; h[0] != '\0' && h[1] != '\0'; h += 2) {
		int hi = hexval(h[0]), lo = hexval(h[1]);

		if (hi < 0 || lo < 0)
			break;
		buf[n++] = (unsigned char)(hi << 4 | lo);
		if (n == sizeof buf) {
			client_echo_forward(c, buf, n);
			n = 0;
		}
	}
	c->tty_seq = (unsigned long)seq->valuedouble;
	c->passthrough_asked = false;
	if (n > 0)
		client_echo_forward(c, buf, n);
}

static void on_tty_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	(void)error;
	/* Refused: read the terminal ourselves again. */
	if (arg == 1 && result == NULL)
		c->server_reads_tty = false;
}

static bool prefix_is_cursor_key(const char *prefix)
{
	static const char *const keys[] = {"Up", "Down", "Left", "Right", "Home", "End"};

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(prefix, keys[i]) == 0)
			return true;
	return false;
}

/* The server reads the terminal from now on (or not: read false, before
 * the client stops or leaves). */
void client_echo_hand_over(struct client *c, bool server_reads)
{
	cJSON *request;
	int prefix = -1;

	if (c->input_pipe[1] < 0 || c->server_reads_tty == server_reads)
		return;
	/* The prefix is never passed through: the server is told its byte
	 * when it is one that could be. */
	if (strlen(c->config.prefix) == 1)
		prefix = (unsigned char)c->config.prefix[0];
	else if (strcmp(c->config.prefix, "Space") == 0)
		prefix = ' ';
	else if (strcmp(c->config.prefix, "Tab") == 0)
		prefix = 0x09;
	else if (strcmp(c->config.prefix, "BSpace") == 0)
		prefix = 0x7f;
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "tty");
	cJSON_AddBoolToObject(request, "read", server_reads);
	cJSON_AddNumberToObject(request, "prefix", prefix);
	/* Cursor keys may pass too, unless one of them is the prefix. */
	cJSON_AddBoolToObject(request, "cursor_keys", !prefix_is_cursor_key(c->config.prefix));
	client_request(c, request, on_tty_reply, server_reads ? 1 : 0);
	c->server_reads_tty = server_reads;
	c->passthrough_asked = false;
}

/* After input: printable text may go straight to the pane again when the
 * client is in its normal mode and has handled every chunk. */
void client_echo_passthrough(struct client *c)
{
	bool want = c->server_reads_tty && c->mode == MODE_NORMAL && !c->prefix_pending &&
		    !c->exiting;
	cJSON *request;

	if (want == c->passthrough_asked)
		return;
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "tty");
	cJSON_AddBoolToObject(request, "passthrough", want);
	cJSON_AddNumberToObject(request, "seq", (double)c->tty_seq);
	client_request(c, request, client_reply_report_error, 0);
	c->passthrough_asked = want;
}
