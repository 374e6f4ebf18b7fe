/*
 * client-format: formats on the client's side, from its copy of the
 * session, for status_left and status_right (the config).  The names and
 * the expander are format.c's, the same the server's "format" request
 * uses; the values are what the client was last told (the layout), so
 * the status line needs no request per redraw.  command-prompt's -I text
 * is expanded here too ("#W": the window's name, for C-b ,).  pane_pid and
 * pane_start_path are not in that copy and expand to nothing here; while
 * a pane is zoomed the copy holds that pane alone, so window_panes is 1
 * and pane_index 0.
 */
#include <string.h>
#include <time.h>

#include "client-internal.h"
#include "format.h"

static void client_format_context(struct client *c, struct format_context *ctx)
{
	struct pane_view *active = client_active_pane(c);

	memset(ctx, 0, sizeof *ctx);
	ctx->pane_id = -1;
	ctx->session_name = c->session;
	ctx->session_windows = (int)c->nwindows;
	ctx->client_width = c->cols;
	ctx->client_height = c->rows;
	ctx->window_zoomed_flag = c->zoomed;
	ctx->window_panes = (int)c->npanes;
	for (size_t i = 0; i < c->nwindows; i++)
		if (c->windows[i].active) {
			ctx->window_index = c->windows[i].index;
			ctx->window_name = c->windows[i].name;
		}
	if (active == NULL)
		return;
	ctx->pane_id = active->id;
	ctx->pane_index = (int)(active - c->panes);
	ctx->pane_title = active->title;
	ctx->pane_current_path = active->cwd;
	ctx->pane_backend = active->backend;
	ctx->pane_violations = active->violations;
	ctx->pane_width = active->cols;
	ctx->pane_height = active->rows;
	ctx->pane_active = true;
}

void client_status_text(struct client *c, const char *text, char *out, size_t size)
{
	struct format_context ctx;
	char timed[1024];
	time_t now = time(NULL);
	struct tm tm;

	/* The time first, as tmux does: what the formats expand to (a title
	 * with a '%' in it) is never read by strftime. */
	localtime_r(&now, &tm);
	if (strftime(timed, sizeof timed, text, &tm) == 0)
		timed[0] = '\0';
	client_format_context(c, &ctx);
	format_expand(timed, &ctx, out, size);
}

void client_format_text(struct client *c, const char *text, char *out, size_t size)
{
	struct format_context ctx;

	client_format_context(c, &ctx);
	format_expand(text, &ctx, out, size);
}
