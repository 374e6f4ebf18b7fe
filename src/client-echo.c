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
#include <time.h>
#include <unistd.h>

#include "client-internal.h"
#include "echo-share.h"

/* How long the client waits for the server to finish a patch: a patch is
 * one write(2) of a few hundred bytes, so this is only reached when the
 * server died in the middle of one. */
#define ECHO_HOLD_WAIT_NS (50 * 1000 * 1000L)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void client_echo_open(struct client *c, const char *socket_path)
{
	const char *slash = strrchr(socket_path, '/');
	const char *tty = ttyname(STDOUT_FILENO);
	struct echo_share *share;
	int fd;

	if (tty == NULL || slash == NULL ||
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
	if (atomic_load(&c->echo->patching) == 0)
		return;
	deadline = now_ns() + ECHO_HOLD_WAIT_NS;
	while (atomic_load(&c->echo->patching) != 0 && now_ns() < deadline)
		sched_yield();
}

void client_echo_release(struct client *c)
{
	if (c->echo != NULL)
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
	/* The help overlay covers panes; copy mode shows history. */
	for (size_t i = 0; i < c->npanes && c->mode != MODE_HELP && n < ECHO_SHARE_PANES; i++) {
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
	share->enabled = c->attached && !c->exiting;
}
