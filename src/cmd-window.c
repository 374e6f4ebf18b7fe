/*
 * cmd-window: the commands that act on a window as a whole, as tmux
 * names them — last-window, rename-window, kill-window.  (new-window and
 * select-window are the attached client's, in cmd-attached.c.)
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"

CMD_HANDLER(cmd_last_window)
{
	/* From the command line, as tmux's last-window -t: the session
	 * named, else the first. */
	struct session *s = cmd_request_session(c, req, err);

	if (s == NULL)
		return -1;
	if (s->last == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_WINDOW, "no last window");
		return -1;
	}
	session_focus_window(s, s->last);
	cJSON_AddNumberToObject(result, "window", s->active->index);
	server_broadcast_layout(s);
	return 0;
}

CMD_HANDLER(cmd_rename_window)
{
	struct pane *p = cmd_target_pane(c, req, err);
	const char *name = NULL;

	if (p == NULL || cmd_get_string(req, "name", true, &name, err) < 0)
		return -1;
	/* An empty name gives the window back to automatic-rename, as
	 * tmux's "set automatic-rename on" does. */
	if (strlen(name) >= sizeof p->window->name) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "a window name is at most %zu bytes",
			     sizeof p->window->name - 1);
		return -1;
	}
	p->window->renamed = name[0] != 0;
	if (p->window->renamed)
		snprintf(p->window->name, sizeof p->window->name, "%s", name);
	else
		snprintf(p->window->name, sizeof p->window->name, "%d", p->window->index);
	cJSON_AddNumberToObject(result, "window", p->window->index);
	server_broadcast_layout(p->window->session);
	return 0;
}

CMD_HANDLER(cmd_kill_window)
{
	struct pane *p = cmd_target_pane(c, req, err);
	struct window *w;

	if (p == NULL)
		return -1;
	w = p->window;
	cJSON_AddNumberToObject(result, "window", w->index);
	/* Each kill goes through pane_kill (an event per pane, the sandbox
	 * destroyed); the last one takes the window, and the focus goes
	 * back to the window used last (window_destroy). */
	for (;;) {
		struct pane *victim = w->panes;
		bool last = victim->next == NULL;

		/* Floating panes first: the last tiled pane takes the window,
		 * and would take them with it unannounced. */
		for (struct pane *q = w->panes; q != NULL; q = q->next)
			if (q->floating) {
				victim = q;
				break;
			}
		pane_kill(victim, "kill-window");
		if (last)
			break;
	}
	return 0;
}
