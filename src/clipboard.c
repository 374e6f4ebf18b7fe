/*
 * clipboard: a program in a pane writing the user's clipboard (OSC 52),
 * under the config's set_clipboard (tmux's set-clipboard):
 *
 *   off  the write goes nowhere;
 *   on   it becomes a server buffer (buffers.c, with the pane's backend)
 *        and every client attached to the pane's session writes it to
 *        its terminal's clipboard with OSC 52 (the `clipboard` event);
 *   ask  it is held, the latest only, and the session's clients ask
 *        ("pane %3 asks to write your clipboard"); the `clipboard`
 *        request answers: allow writes it as `on` does, else it goes.
 *
 * Unset, host panes are `off` (tmux's default: a program in a pane does
 * not reach the outer terminal, tests/tui/hostile.sh) and sandboxed
 * panes `ask`.  Threat: a
 * sandbox that writes the host's clipboard has a channel out of it (a
 * secret it read, for the user to paste somewhere) and a channel in (a
 * command line the user pastes into a host shell); neither opens
 * without a person's yes.  A program never reads the clipboard: term-state.c
 * does not answer OSC 52 queries.  Every write, held, refused or done,
 * is a `clipboard` event in the durable log.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "log.h"
#include "xalloc.h"

/* What the config's set_clipboard means for this pane. */
static enum set_clipboard pane_clipboard_policy(const struct pane *p)
{
	if (server.set_clipboard != CLIPBOARD_DEFAULT)
		return server.set_clipboard;
	return p->launch.backend == SANDBOX_NONE && p->requested == SANDBOX_NONE ? CLIPBOARD_OFF
										 : CLIPBOARD_ASK;
}

static void emit_clipboard_event(const struct pane *p, const char *decision, size_t len)
{
	cJSON *ev = events_lifecycle("clipboard", p);

	cJSON_AddStringToObject(ev, "decision", decision);
	cJSON_AddNumberToObject(ev, "bytes", (double)len);
	events_emit(ev);
}

/* To every client of the pane's session: a question, or the text for
 * its terminal's clipboard. */
static void tell_clients(const struct pane *p, const char *event, const char *text, size_t len)
{
	const struct session *s = p->window != NULL ? p->window->session : NULL;

	for (struct conn *c = server.conns; c != NULL && s != NULL; c = c->next) {
		cJSON *ev;

		if (c->attached != s || c->closing)
			continue;
		ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", event);
		cJSON_AddNumberToObject(ev, "pane", p->id);
		if (text != NULL) {
			char *copy = xstrndup(text, len);
			cJSON_AddStringToObject(ev, "text", copy);
			free(copy);
		} else {
			cJSON_AddStringToObject(ev, "kind", "clipboard");
			cJSON_AddNumberToObject(ev, "bytes", (double)len);
		}
		server_send(c, ev);
	}
}

static void clipboard_write(struct pane *p, const char *data, size_t len)
{
	buffers_set(NULL, data, len, p);
	tell_clients(p, "clipboard", data, len);
	emit_clipboard_event(p, "written", len);
}

void clipboard_pane_wrote(struct pane *p, char *data, size_t len)
{
	switch (pane_clipboard_policy(p)) {
	case CLIPBOARD_ON:
		clipboard_write(p, data, len);
		free(data);
		return;
	case CLIPBOARD_ASK:
		free(p->clipboard_held);
		p->clipboard_held = data;
		p->clipboard_held_len = len;
		tell_clients(p, "ask", NULL, len);
		emit_clipboard_event(p, "held", len);
		return;
	default:
		log_info("pane %%%d: clipboard write of %zu bytes dropped (set_clipboard off)", p->id,
			 len);
		emit_clipboard_event(p, "off", len);
		free(data);
		return;
	}
}

/* The answer to ask: the held write is written or dropped. */
CMD_HANDLER(cmd_clipboard)
{
	struct pane *p = cmd_target_pane(c, req, err);
	bool allow = cmd_get_bool(req, "allow", false);

	if (p == NULL)
		return -1;
	if (p->clipboard_held == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d holds no clipboard write", p->id);
		return -1;
	}
	if (allow)
		clipboard_write(p, p->clipboard_held, p->clipboard_held_len);
	else
		emit_clipboard_event(p, "refused", p->clipboard_held_len);
	cJSON_AddBoolToObject(result, "written", allow);
	cJSON_AddNumberToObject(result, "bytes", (double)p->clipboard_held_len);
	free(p->clipboard_held);
	p->clipboard_held = NULL;
	p->clipboard_held_len = 0;
	return 0;
}
