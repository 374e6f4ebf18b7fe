/*
 * client-ask: ask mode's question where the user is.  A pane whose
 * profile says "network": "ask" has a connection to an unknown host held
 * by the egress proxy for up to 30 s while someone answers (grant.c).
 * The feed asks it, but the feed may be in another window or not open;
 * so every client attached to the session asks it in its status line
 * too: "pane %3 asks for example.com:443: a allow, d deny (30 s)".  One
 * key answers, as in the feed: a sends the
 * `allow` request (the held connection goes through), d sends `refuse`,
 * any other key leaves it to the feed or the timeout.  A pane's held
 * clipboard write (set_clipboard "ask", clipboard.c) is asked the same
 * way, and an allowed one lands on the terminal's clipboard here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client-internal.h"
#include "command.h"
#include "sanitise.h"
#include "xalloc.h"

/* set_clipboard "ask": the pane's write is held until a or d. */
static void ask_clipboard(struct client *c, int pane, const cJSON *bytes)
{
	char label[256];

	if (c->mode == MODE_PROMPT) {
		client_show_message(c, false,
				    "pane %%%d asks to write your clipboard: held, asked again at its next write",
				    pane);
		return;
	}
	snprintf(label, sizeof label, "pane %%%d asks to write your clipboard (%d bytes): a allow, d deny ",
		 pane, cJSON_IsNumber(bytes) ? bytes->valueint : 0);
	client_prompt_open(c, PROMPT_ASK, label, NULL);
	c->prompt.ask_pane = pane;
	c->prompt.ask_clipboard = true;
}

void client_clipboard_event(struct client *c, const cJSON *event)
{
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "text"));

	(void)c;
	if (text != NULL)
		client_clipboard_tty(text, strlen(text));
}

void client_ask_event(struct client *c, const cJSON *event)
{
	const cJSON *pane = cJSON_GetObjectItemCaseSensitive(event, "pane");
	const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(event, "timeout");
	const char *host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "host"));
	const char *target =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "target"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "kind"));
	char label[256];
	char *safe;

	if (cJSON_IsNumber(pane) && kind != NULL && strcmp(kind, "clipboard") == 0) {
		ask_clipboard(c, pane->valueint, cJSON_GetObjectItemCaseSensitive(event, "bytes"));
		return;
	}
	if (!cJSON_IsNumber(pane) || host == NULL)
		return;
	/* The host is the pane's choice: shown only through the sanitiser. */
	safe = sanitise_text(target != NULL ? target : host);
	/* A person typing a command keeps the line: the question waits in
	 * the feed, and is said once here. */
	if (c->mode == MODE_PROMPT) {
		client_show_message(c, false,
				    "pane %%%d asks to reach %s: the feed (C-b v) answers",
				    pane->valueint, safe);
		free(safe);
		return;
	}
	snprintf(label, sizeof label, "pane %%%d asks for %s: a allow, d deny (%d s) ",
		 pane->valueint, safe, cJSON_IsNumber(timeout) ? timeout->valueint : 30);
	free(safe);
	client_prompt_open(c, PROMPT_ASK, label, NULL);
	c->prompt.ask_pane = pane->valueint;
	c->prompt.ask_clipboard = false;
	snprintf(c->prompt.ask_host, sizeof c->prompt.ask_host, "%s", host);
}

static void on_allow_reply(struct client *c, const cJSON *result, const cJSON *error, int pane)
{
	if (result == NULL) {
		client_reply_report_error(c, result, error, pane);
		return;
	}
	client_show_message(c, false,
			    "allowed %s for session %s until it ends (the held "
			    "connection goes through now)",
			    cJSON_GetStringValue(cJSON_GetObjectItem(result, "host")),
			    cJSON_GetStringValue(cJSON_GetObjectItem(result, "session")));
}

static void on_refuse_reply(struct client *c, const cJSON *result, const cJSON *error, int pane)
{
	if (result == NULL) {
		client_reply_report_error(c, result, error, pane);
		return;
	}
	client_show_message(c, false, "refused: %d held connection(s) of pane %%%d",
			    cJSON_GetObjectItem(result, "refused")->valueint, pane);
}

void client_ask_answer(struct client *c, const char *key)
{
	int pane = c->prompt.ask_pane;
	cJSON *request;
	char *safe;

	if (c->prompt.ask_clipboard) {
		if (strcmp(key, "a") != 0 && strcmp(key, "d") != 0) {
			client_show_message(c, false, "pane %%%d's clipboard write stays held", pane);
			return;
		}
		request = cJSON_CreateObject();
		cJSON_AddStringToObject(request, "cmd", "clipboard");
		cJSON_AddNumberToObject(request, "pane", pane);
		cJSON_AddBoolToObject(request, "allow", key[0] == 'a');
		client_request(c, request, client_reply_report_error, pane);
		return;
	}

	if (strcmp(key, "a") != 0 && strcmp(key, "d") != 0) {
		safe = sanitise_text(c->prompt.ask_host);
		client_show_message(c, false, "left waiting: %s is refused when its time is up",
				    safe);
		free(safe);
		return;
	}
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", key[0] == 'a' ? "allow" : "refuse");
	cJSON_AddNumberToObject(request, "pane", pane);
	cJSON_AddStringToObject(request, "host", c->prompt.ask_host);
	if (key[0] == 'a')
		cJSON_AddStringToObject(request, "via", "prompt");
	client_request(c, request, key[0] == 'a' ? on_allow_reply : on_refuse_reply, pane);
}
