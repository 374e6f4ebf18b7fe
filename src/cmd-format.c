/*
 * cmd-format: the "format" request, tmux's formats expanded where the
 * data is.  {"cmd":"format","pane":N,"text":"#{pane_current_path}"}
 * replies {"text":"..."}; without "pane", the attached session's active
 * pane.  display-message sends its text through it (docs/protocol.md).
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "error.h"
#include "format.h"
#include "term.h"

/* Longest text accepted, and longest expansion returned. */
#define FORMAT_TEXT_MAX 4096
#define FORMAT_OUT_MAX 8192

/* The window's name as the layout shows it (server.c): the active
 * pane's title when it has one. */
static const char *window_shown_name(const struct window *w)
{
	return w->active && term_title(w->active->term)[0] ? term_title(w->active->term) : w->name;
}

void format_pane_context(struct pane *p, int client_cols, int client_rows,
			 struct format_context *ctx)
{
	struct window *w = p->window;
	struct session *s = w ? w->session : NULL;

	memset(ctx, 0, sizeof *ctx);
	ctx->pane_id = p->id;
	ctx->pane_title = term_title(p->term);
	ctx->pane_current_path = pane_current_path(p);
	ctx->pane_start_path = p->cwd;
	ctx->pane_backend = pane_backend_label(p);
	ctx->pane_violations = p->violations;
	ctx->pane_width = p->cols;
	ctx->pane_height = p->rows;
	ctx->pane_pid = p->state == SANDBOX_ERROR ? 0 : p->launch.pid;
	ctx->client_width = client_cols;
	ctx->client_height = client_rows;
	if (w == NULL)
		return;
	ctx->pane_active = w->active == p;
	ctx->window_index = w->index;
	ctx->window_name = window_shown_name(w);
	ctx->window_zoomed_flag = w->zoomed != NULL;
	for (struct pane *q = w->panes; q != NULL; q = q->next) {
		if (q == p)
			ctx->pane_index = ctx->window_panes;
		ctx->window_panes++;
	}
	ctx->session_name = s->name;
	for (struct window *v = s->windows; v != NULL; v = v->next)
		ctx->session_windows++;
}

CMD_HANDLER(cmd_format)
{
	static char out[FORMAT_OUT_MAX];
	struct format_context ctx;
	const char *text = NULL;
	struct pane *p;

	if (cmd_get_string(req, "text", true, &text, err) < 0)
		return -1;
	if (strlen(text) > FORMAT_TEXT_MAX) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "text is longer than %d bytes",
			     FORMAT_TEXT_MAX);
		return -1;
	}
	if ((p = cmd_target_pane(c, req, err)) == NULL)
		return -1;
	format_pane_context(p, c->client_cols, c->client_rows, &ctx);
	format_expand(text, &ctx, out, sizeof out);
	cJSON_AddStringToObject(result, "text", out);
	return 0;
}
