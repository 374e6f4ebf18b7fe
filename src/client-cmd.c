/*
 * client-cmd: the attached client's side of the commands a person runs
 * from the ":" prompt or binds to a key.  They are command_table[]'s
 * entries marked CMD_PROMPT (command.h): the line is parsed through the
 * entry's spec into the same request the command line would send, with
 * a missing pane or session target filled in from the client (its active
 * pane, its session).  Most commands are just that request; a failure
 * comes back as a reply and is shown in the status line.  The functions
 * here are the client's own part of the few that need one (copy mode,
 * the prompt, the help overlay, detach...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "client.h"
#include "command.h"
#include "error.h"

static int send_simple(struct client *c, cJSON *request)
{
	return client_request(c, request, client_reply_report_error, 0) < 0 ? -1 : 0;
}

static cJSON *take_request(struct command_parsed *parsed)
{
	cJSON *request = parsed->request;

	parsed->request = NULL;
	return request;
}

int client_cmd_select_pane(struct client *c, struct command_parsed *parsed)
{
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	return send_simple(c, take_request(parsed));
}

static void on_detach_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	char message[256];

	if (result == NULL) {
		client_reply_report_error(c, result, error, arg);
		return;
	}
	snprintf(message, sizeof message, "[detached (from session %s)]", c->session);
	client_leave(c, 0, message);
}

int client_cmd_detach(struct client *c, struct command_parsed *parsed)
{
	return client_request(c, take_request(parsed), on_detach_reply, 0) < 0 ? -1 : 0;
}

int client_cmd_copy_mode(struct client *c, struct command_parsed *parsed)
{
	struct pane_view *pane = client_active_pane(c);
	bool up = command_local(parsed, "u") != NULL;

	if (pane == NULL)
		return -1;
	if (c->mode != MODE_COPY)
		copy_mode_enter(c, pane->id, up);
	else if (up)
		copy_mode_key(c, "PageUp");
	return 0;
}

/* paste-buffer's reply: a paste across backends the server wants
 * confirmed becomes a y/n question, and y repeats it with --confirmed. */
static void on_paste_reply(struct client *c, const cJSON *result, const cJSON *error, int pane)
{
	const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"));
	const char *message = cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"));
	char label[256];

	if (result != NULL || code == NULL || strcmp(code, SM_ERR_CONFIRM_NEEDED) != 0) {
		client_reply_report_error(c, result, error, pane);
		return;
	}
	snprintf(label, sizeof label, "%s (y/n) ", message != NULL ? message : "paste?");
	client_prompt_open(c, PROMPT_CONFIRM, label, NULL);
	if (c->paste_name[0] != 0)
		snprintf(c->prompt.confirm_command, sizeof c->prompt.confirm_command,
			 "paste-buffer -b \"%s\" -t %%%d --confirmed", c->paste_name, pane);
	else
		snprintf(c->prompt.confirm_command, sizeof c->prompt.confirm_command,
			 "paste-buffer -t %%%d --confirmed", pane);
}

int client_cmd_paste_buffer(struct client *c, struct command_parsed *parsed)
{
	cJSON *request = take_request(parsed);
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(request, "name"));
	const cJSON *pane = cJSON_GetObjectItem(request, "pane");

	snprintf(c->paste_name, sizeof c->paste_name, "%s", name != NULL ? name : "");
	return client_request(c, request, on_paste_reply, cJSON_IsNumber(pane) ? pane->valueint : -1) <
			       0
		       ? -1
		       : 0;
}

int client_cmd_send_prefix(struct client *c, struct command_parsed *parsed)
{
	client_send_key(c, c->config.prefix);
	client_flush_text(c);
	return 0;
}

/* tmux's command-prompt: -I's formats expanded ("#W" is the window's
 * name); with a TEMPLATE the typed text fills its %% and the prompt is
 * labelled with the template's command, "(rename-window) ", as tmux's. */
int client_cmd_command_prompt(struct client *c, struct command_parsed *parsed)
{
	const char *label = command_local(parsed, "p"), *initial = command_local(parsed, "I");
	char template[BINDING_COMMAND_MAX] = "", expanded[sizeof c->prompt.text], named[128];

	/* The template is a command line already: its words as written. */
	for (int i = 0; i < parsed->nwords; i++)
		snprintf(template + strlen(template), sizeof template - strlen(template), "%s%s",
			 i ? " " : "", parsed->words[i]);
	if (initial != NULL)
		client_format_text(c, initial, expanded, sizeof expanded);
	if (label == NULL && template[0] != 0) {
		snprintf(named, sizeof named, "(%.*s) ", (int)strcspn(template, " \t"), template);
		label = named;
	}
	client_prompt_open(c, PROMPT_COMMAND, label ? label : ":", initial ? expanded : NULL);
	snprintf(c->prompt.template, sizeof c->prompt.template, "%s", template);
	return 0;
}

int client_cmd_list_keys(struct client *c, struct command_parsed *parsed)
{
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	c->mode = MODE_HELP;
	c->help_offset = 0;
	c->redraw_all = true;
	c->dirty = true;
	return 0;
}

/* Words back into one command line, quoting those that need it. */
static void join_words(char **words, int n, char *out, size_t size)
{
	size_t used = 0;

	out[0] = 0;
	for (int i = 0; i < n && used < size; i++) {
		bool quote = strpbrk(words[i], " \t\"'") != NULL || words[i][0] == 0;

		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "",
					 quote ? "\"" : "");
		for (const char *p = words[i]; *p != 0 && used + 2 < size; p++) {
			if (quote && (*p == '"' || *p == '\\'))
				out[used++] = '\\';
			out[used++] = *p;
		}
		if (used < size)
			used += (size_t)snprintf(out + used, size - used, "%s", quote ? "\"" : "");
	}
	out[size - 1] = 0;
}

int client_cmd_confirm_before(struct client *c, struct command_parsed *parsed)
{
	char command[BINDING_COMMAND_MAX], label[128];
	const char *question = command_local(parsed, "p");

	if (parsed->nwords == 0) {
		client_show_message(c, true, "usage: confirm-before [-p PROMPT] COMMAND");
		return -1;
	}
	join_words(parsed->words, parsed->nwords, command, sizeof command);
	if (question != NULL)
		snprintf(label, sizeof label, "%s ", question);
	else
		snprintf(label, sizeof label, "%s? (y/n) ", parsed->words[0]);
	client_prompt_open(c, PROMPT_CONFIRM, label, NULL);
	snprintf(c->prompt.confirm_command, sizeof c->prompt.confirm_command, "%s", command);
	return 0;
}

int client_cmd_choose_tree(struct client *c, struct command_parsed *parsed)
{
	enum choose_start start = command_local(parsed, "s")   ? CHOOSE_START_SESSIONS
				  : command_local(parsed, "w") ? CHOOSE_START_WINDOWS
							       : CHOOSE_START_PANE;

	choose_open(c, CHOOSE_TREE, start);
	return 0;
}

int client_cmd_choose_buffer(struct client *c, struct command_parsed *parsed)
{
	choose_open(c, CHOOSE_BUFFER, CHOOSE_START_PANE);
	return 0;
}

/* tmux's display-panes: every visible pane's number drawn over it until
 * a key or display_panes_time (-d: this many ms; 0 until a key); a
 * digit then focuses that pane (client-keys.c). */
int client_cmd_display_panes(struct client *c, struct command_parsed *parsed)
{
	const char *duration = command_local(parsed, "d");
	int ms = duration != NULL ? atoi(duration) : c->config.display_panes_time;

	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	c->mode = MODE_DISPLAY_PANES;
	c->display_panes_until = ms > 0 ? client_now_ms() + ms : 0;
	c->redraw_all = true;
	c->dirty = true;
	return 0;
}

static void on_format_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	if (result == NULL) {
		client_reply_report_error(c, result, error, arg);
		return;
	}
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(result, "text"));

	client_show_message(c, false, "%s", text ? text : "");
}

/* tmux's formats (#{pane_current_path}, ...) are expanded by the server,
 * where the panes are: the entry's "format" request, with the pane (-t,
 * or the active one) already in it, gets the words as its text. */
int client_cmd_display_message(struct client *c, struct command_parsed *parsed)
{
	char text[512] = "";
	cJSON *request = take_request(parsed);
	size_t used = 0;

	/* The words are text, not a command line: joined by spaces, with
	 * no quotes put back (tmux's display-message). */
	for (int i = 0; i < parsed->nwords && used < sizeof text; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? " " : "",
					 parsed->words[i]);
	cJSON_AddStringToObject(request, "text", text);
	return client_request(c, request, on_format_reply, 0) < 0 ? -1 : 0;
}

/* Commands checked without a client (the config's bindings) may leave
 * targets out: a binding runs where the client is. */
static const struct command_context check_context = { CMD_PROMPT, 0, "." };

bool client_command_valid(const char *line, struct sm_error *err)
{
	struct command_parsed parsed;

	if (command_parse_line(line, &check_context, &parsed, err) < 0)
		return false;
	command_parsed_free(&parsed);
	return true;
}

/* A command-prompt with a template (C-b ,) is described by what the
 * template runs: "name a window", not "type a command". */
const char *client_command_summary(const char *line)
{
	char name[64];
	size_t len = strcspn(line, " \t");
	const struct command_entry *cmd;
	struct command_parsed parsed;
	struct sm_error err = { 0 };
	const char *summary;

	if (len >= sizeof name)
		return "";
	memcpy(name, line, len);
	name[len] = 0;
	cmd = command_find(name, CMD_PROMPT);
	if (cmd == NULL || cmd->client != client_cmd_command_prompt ||
	    command_parse_line(line, &check_context, &parsed, &err) < 0)
		return cmd ? cmd->summary : "";
	summary = parsed.nwords > 0 ? client_command_summary(parsed.words[0]) : cmd->summary;
	command_parsed_free(&parsed);
	return summary[0] != 0 ? summary : cmd->summary;
}

int client_run_command(struct client *c, const char *line)
{
	struct pane_view *active = client_active_pane(c);
	struct command_context ctx = { CMD_PROMPT, active ? active->id : -1, c->session };
	struct command_parsed parsed;
	struct sm_error err = { 0 };
	int rc;

	if (command_parse_line(line, &ctx, &parsed, &err) < 0) {
		client_show_message(c, true, "%s", err.message);
		return -1;
	}
	c->dirty = true;
	if (parsed.entry->client != NULL)
		rc = parsed.entry->client(c, &parsed);
	else
		rc = send_simple(c, take_request(&parsed));
	command_parsed_free(&parsed);
	return rc;
}
