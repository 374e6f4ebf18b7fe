/*
 * events: the event bus.  Backends and panes emit lifecycle events
 * (starting, ready, exit, killed, error, downgrade) and violations; the bus
 * fans them out to every subscribed connection whose filters match.
 */
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "server.h"

struct cJSON *events_lifecycle(const char *kind, const struct pane *p)
{
	cJSON *ev = cJSON_CreateObject();
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	cJSON_AddStringToObject(ev, "event", "sandbox");
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddNumberToObject(ev, "time", ts.tv_sec + ts.tv_nsec / 1e9);
	if (p != NULL) {
		const char *label = pane_backend_label(p);
		cJSON_AddNumberToObject(ev, "pane", p->id);
		if (p->window != NULL)
			cJSON_AddStringToObject(ev, "session", p->window->session->name);
		cJSON_AddStringToObject(ev, "requested", sandbox_backend_name(p->requested));
		if (label != NULL)
			cJSON_AddStringToObject(ev, "backend", label);
		else
			cJSON_AddNullToObject(ev, "backend");
	}
	return ev;
}

static bool events_match(const struct conn *c, const cJSON *ev)
{
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
	const cJSON *session = cJSON_GetObjectItem(ev, "session");
	const cJSON *action = cJSON_GetObjectItem(ev, "action");

	if (c->sub_pane > 0 && (!cJSON_IsNumber(pane) || pane->valueint != c->sub_pane))
		return false;
	if (c->sub_session[0] != '\0' &&
	    (!cJSON_IsString(session) || strcmp(session->valuestring, c->sub_session) != 0))
		return false;
	if (c->sub_action[0] != '\0' &&
	    (!cJSON_IsString(action) || strcmp(action->valuestring, c->sub_action) != 0))
		return false;
	return true;
}

void events_emit(cJSON *ev)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->subscribed && !c->closing && events_match(c, ev))
			server_send(c, cJSON_Duplicate(ev, true));
	cJSON_Delete(ev);
}
