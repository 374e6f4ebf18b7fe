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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client-internal.h"
#include "client.h"
#include "command.h"
#include "error.h"
#include "sanitise.h"
#include "xalloc.h"

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

void client_view_close(struct client *c)
{
	for (int i = 0; i < c->nview; i++)
		free(c->view[i]);
	free(c->view);
	c->view = NULL;
	c->nview = 0;
}

/* Show text (a command's output) in the overlay, or as a message when
 * it is one line; client_view_close ends it. */
static void client_view_text(struct client *c, const char *title, const char *text)
{
	size_t len = strlen(text);

	while (len > 0 && text[len - 1] == '\n')
		len--;
	if (memchr(text, '\n', len) == NULL) {
		char *line = xstrndup(text, len);
		char *safe = sanitise_text(line);

		client_show_message(c, false, "%s", safe);
		free(safe);
		free(line);
		return;
	}
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	client_view_close(c);
	for (const char *p = text; p < text + len;) {
		const char *end = memchr(p, '\n', (size_t)(text + len - p));
		char *line;

		if (end == NULL)
			end = text + len;
		line = xstrndup(p, (size_t)(end - p));
		c->view = xrealloc(c->view, (size_t)(c->nview + 1) * sizeof *c->view);
		c->view[c->nview++] = sanitise_text(line);
		free(line);
		p = end + 1;
	}
	snprintf(c->view_title, sizeof c->view_title, "%s", title);
	c->mode = MODE_HELP;
	c->help_offset = 0;
	c->redraw_all = true;
	c->dirty = true;
}

/* A command whose result the command line prints (ls, list-panes,
 * probe...): the same printer, its text shown in the overlay. */
static void on_print_reply(struct client *c, const cJSON *result, const cJSON *error, int index)
{
	const struct command_entry *entry = &command_table[index];
	struct command_parsed parsed = { .entry = entry };
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	if (result == NULL) {
		client_reply_report_error(c, result, error, index);
		return;
	}
	if ((out = open_memstream(&text, &size)) == NULL)
		return;
	entry->print(&parsed, result, out);
	fclose(out);
	client_view_text(c, entry->name, text);
	free(text);
}

static int send_printed(struct client *c, struct command_parsed *parsed)
{
	return client_request(c, take_request(parsed), on_print_reply,
			      (int)(parsed->entry - command_table)) < 0
		       ? -1
		       : 0;
}

int client_cmd_record(struct client *c, struct command_parsed *parsed)
{
	struct sm_error err = { 0 };

	if (record_prepare(parsed, &err) < 0) {
		client_show_message(c, true, "%s (%s)", err.message, err.code);
		return -1;
	}
	return send_printed(c, parsed);
}

/* allow --persist at the prompt: the dry run names the change, a y/n
 * question asks for it, and y runs the same allow with --yes. */
static void on_allow_preview(struct client *c, const cJSON *result, const cJSON *error, int pane)
{
	const char *host = cJSON_GetStringValue(cJSON_GetObjectItem(result, "host"));
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(result, "path"));
	const char *profile = cJSON_GetStringValue(cJSON_GetObjectItem(result, "profile"));
	const char *config = cJSON_GetStringValue(cJSON_GetObjectItem(result, "config"));
	char label[512], *safe;

	if (result == NULL || profile == NULL || config == NULL) {
		client_reply_report_error(c, result, error, pane);
		return;
	}
	snprintf(label, sizeof label, "write %s into profile %s in %s? (y/n) ",
		 host != NULL ? host : path, profile, config);
	safe = sanitise_text(label);
	client_prompt_open(c, PROMPT_CONFIRM, safe, NULL);
	free(safe);
	snprintf(c->prompt.confirm_command, sizeof c->prompt.confirm_command,
		 "allow -t %%%d --persist --yes %s", pane, host != NULL ? host : path);
}

int client_cmd_allow(struct client *c, struct command_parsed *parsed)
{
	cJSON *req = parsed->request;
	const cJSON *pane = cJSON_GetObjectItem(req, "pane");

	cli_allow_prepare(req, "prompt");
	if (cJSON_IsTrue(cJSON_GetObjectItem(req, "persist")) &&
	    command_local(parsed, "yes") == NULL && cJSON_IsNumber(pane)) {
		cJSON_AddBoolToObject(req, "dry_run", true);
		return client_request(c, take_request(parsed), on_allow_preview, pane->valueint) < 0
			       ? -1
			       : 0;
	}
	return send_printed(c, parsed);
}

/* source-file at the prompt: each line run as if typed at the prompt;
 * the first that fails stops it, its error shown. */
int client_cmd_source_file(struct client *c, struct command_parsed *parsed)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(parsed->request, "path"));
	FILE *in = fopen(path, "r");
	char line[BINDING_COMMAND_MAX];

	if (in == NULL) {
		client_show_message(c, true, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, in) != NULL) {
		size_t skip = strspn(line, " \t");

		line[strcspn(line, "\n")] = '\0';
		if (line[skip] == '\0' || line[skip] == '#')
			continue;
		if (client_run_command(c, line + skip) < 0)
			break;
	}
	fclose(in);
	return 0;
}

/* bind-key and unbind-key: the prefix table only (the modes' tables
 * are the server's drawing path's). */
int client_cmd_bind_key(struct client *c, struct command_parsed *parsed)
{
	bool unbind = strcmp(parsed->entry->name, "unbind-key") == 0;
	const char *table = command_local(parsed, "T");
	char command[BINDING_COMMAND_MAX] = "";
	struct sm_error err = {0};

	if (table != NULL && strcmp(table, "prefix") != 0) {
		client_show_message(c, true, "bind-key -T %s: the server's drawing path only",
				    table);
		return -1;
	}
	if (unbind ? parsed->nwords != 1 : parsed->nwords < 2) {
		client_show_message(c, true, "usage: %s %s", parsed->entry->name,
				    parsed->entry->usage);
		return -1;
	}
	if ((!unbind &&
	     (!command_join(parsed->words + 1, parsed->nwords - 1, command, sizeof command) ||
	      !client_command_valid(command, &err))) ||
	    bindings_set(&c->bindings, parsed->words[0], command, &err) < 0) {
		client_show_message(c, true, "%s (%s)", err.message[0] ? err.message : "too long",
				    err.code[0] ? err.code : SM_ERR_INVALID_ARGUMENT);
		return -1;
	}
	return 0;
}

int client_cmd_list_keys(struct client *c, struct command_parsed *parsed)
{
	const char *table = command_local(parsed, "T");

	if (table != NULL && strcmp(table, "prefix") != 0) {
		client_show_message(c, true, "list-keys -T %s: the server's drawing path only",
				    table);
		return -1;
	}
	client_view_close(c);
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
	else if (parsed.entry->print != NULL && (parsed.entry->flags & CMD_SHOW))
		rc = client_request(c, take_request(&parsed), on_print_reply,
				    (int)(parsed.entry - command_table)) < 0
			     ? -1
			     : 0;
	else
		rc = send_simple(c, take_request(&parsed));
	command_parsed_free(&parsed);
	return rc;
}
