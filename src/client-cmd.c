/*
 * client-cmd: the commands a person can run from the ":" prompt or bind
 * to a key — the CLI's verbs (split, new-window, kill-pane, select-pane,
 * resize-pane, zoom...) plus the client's own (copy-mode, list-keys,
 * detach...).
 *
 * Commands are declared, not switched on: each is an entry in
 * client_commands[] with its name, alias, option letters, usage, a
 * one-line summary (the help overlay shows it) and the function that runs
 * it.  Options are parsed by one small getopt-like parser from the
 * entry's spec, so a new verb is a table entry plus one function.  Most
 * commands become one protocol request; a failure comes back as a reply
 * and is shown in the status line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "client.h"
#include "error.h"

#define MAX_ARGS 64

#define MAX_ENV 16

struct cmd_args {
	bool flag[128];
	const char *value[128];
	const char *env[MAX_ENV]; /* every -e NAME=VALUE, which may repeat */
	int nenv;
	int npositional;
	char **positional;
};

struct client_command {
	const char *name;
	const char *alias;
	const char *spec; /* option letters; a letter followed by ':' takes a value */
	const char *usage;
	const char *summary;
	int (*exec)(struct client *c, struct cmd_args *args);
};

/* Long spellings the CLI uses, mapped to the option letter. */
static const struct {
	const char *name;
	char letter;
	bool takes_value;
} long_options[] = {
    {"--backend", 'b', true}, {"--cwd", 'c', true},    {"--size", 'p', true},
    {"--profile", 'P', true}, {"--target", 't', true}, {"--remain", 'r', false},
};

/* Record an option's value; -e may be given more than once. */
static int store_value(struct cmd_args *args, char letter, const char *value, char *why,
		       size_t size)
{
	if (letter == 'e') {
		if (args->nenv == MAX_ENV || strchr(value, '=') == NULL) {
			snprintf(why, size, "-e takes NAME=VALUE (at most %d)", MAX_ENV);
			return -1;
		}
		args->env[args->nenv++] = value;
	}
	args->value[(int)letter] = value;
	return 0;
}

static int parse_long_option(const char *spec, char **argv, int argc, int *i, struct cmd_args *args,
			     char *why, size_t size)
{
	for (size_t k = 0; k < sizeof long_options / sizeof long_options[0]; k++) {
		size_t len = strlen(long_options[k].name);
		char letter = long_options[k].letter;
		const char *at = strchr(spec, letter);

		if (strncmp(argv[*i], long_options[k].name, len) != 0 ||
		    (argv[*i][len] != 0 && argv[*i][len] != '=') || at == NULL)
			continue;
		args->flag[(int)letter] = true;
		if (!long_options[k].takes_value) {
			if (argv[*i][len] == 0)
				return 0;
			snprintf(why, size, "%s takes no value", long_options[k].name);
			return -1;
		}
		if (argv[*i][len] == '=')
			return store_value(args, letter, argv[*i] + len + 1, why, size);
		if (*i + 1 < argc)
			return store_value(args, letter, argv[++*i], why, size);
		snprintf(why, size, "%s needs a value", long_options[k].name);
		return -1;
	}
	snprintf(why, size, "unknown option %s", argv[*i]);
	return -1;
}

static int parse_args(const char *spec, int argc, char **argv, struct cmd_args *args, char *why,
		      size_t size)
{
	int i;

	memset(args, 0, sizeof *args);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] != '-' || arg[1] == 0 || (arg[1] >= '0' && arg[1] <= '9'))
			break;
		if (arg[1] == '-') {
			if (parse_long_option(spec, argv, argc, &i, args, why, size) != 0)
				return -1;
			continue;
		}
		for (const char *p = arg + 1; *p != 0; p++) {
			const char *at = strchr(spec, *p);

			if (at == NULL || *p == ':' || (unsigned char)*p >= 128) {
				snprintf(why, size, "unknown option -%c", *p);
				return -1;
			}
			args->flag[(int)*p] = true;
			if (at[1] != ':')
				continue;
			if (p[1] == 0 && i + 1 >= argc) {
				snprintf(why, size, "-%c needs a value", *p);
				return -1;
			}
			if (store_value(args, *p, p[1] != 0 ? p + 1 : argv[++i], why, size) != 0)
				return -1;
			break;
		}
	}
	args->positional = argv + i;
	args->npositional = argc - i;
	return 0;
}

/* "-t %3", "-t 3" or no -t (the active pane). */
static int target_pane(struct client *c, struct cmd_args *args)
{
	const char *target = args->value['t'];
	struct pane_view *active = client_active_pane(c);
	char *end;
	long id;

	if (target == NULL)
		return active ? active->id : -1;
	if (target[0] == '%')
		target++;
	id = strtol(target, &end, 10);
	if (*target == 0 || *end != 0 || id < 0) {
		client_show_message(c, true, "bad pane target \"%s\" (use %%N or N)",
				    args->value['t']);
		return -1;
	}
	return (int)id;
}

static cJSON *new_request(const char *cmd)
{
	cJSON *request = cJSON_CreateObject();

	cJSON_AddStringToObject(request, "cmd", cmd);
	return request;
}

static int send_simple(struct client *c, cJSON *request)
{
	return client_request(c, request, client_reply_report_error, 0) < 0 ? -1 : 0;
}

static int pane_request(struct client *c, struct cmd_args *args, const char *cmd)
{
	int pane = target_pane(c, args);
	cJSON *request;

	if (pane < 0)
		return -1;
	request = new_request(cmd);
	cJSON_AddNumberToObject(request, "pane", pane);
	return send_simple(c, request);
}

static bool valid_backend(struct client *c, const char *backend)
{
	if (backend == NULL || strcmp(backend, "none") == 0 || strcmp(backend, "native") == 0 ||
	    strcmp(backend, "microvm") == 0)
		return true;
	client_show_message(c, true, "unknown backend \"%s\" (none, native, microvm)", backend);
	return false;
}

/* Options shared by the commands that start a process. */
static void add_spawn_options(cJSON *request, struct cmd_args *args)
{
	if (args->value['b'] != NULL)
		cJSON_AddStringToObject(request, "backend", args->value['b']);
	if (args->value['c'] != NULL)
		cJSON_AddStringToObject(request, "cwd", args->value['c']);
	if (args->value['P'] != NULL)
		cJSON_AddStringToObject(request, "profile", args->value['P']);
	if (args->flag['r'])
		cJSON_AddBoolToObject(request, "remain", true);
	if (args->nenv > 0) {
		cJSON *env = cJSON_AddObjectToObject(request, "env");

		for (int i = 0; i < args->nenv; i++) {
			const char *eq = strchr(args->env[i], '=');
			char name[256];

			snprintf(name, sizeof name, "%.*s", (int)(eq - args->env[i]), args->env[i]);
			cJSON_AddStringToObject(env, name, eq + 1);
		}
	}
	if (args->npositional > 0) {
		cJSON *argv = cJSON_AddArrayToObject(request, "argv");

		for (int i = 0; i < args->npositional; i++)
			cJSON_AddItemToArray(argv, cJSON_CreateString(args->positional[i]));
	}
}

static int cmd_split(struct client *c, struct cmd_args *args)
{
	int pane = target_pane(c, args);
	cJSON *request;

	if (pane < 0 || !valid_backend(c, args->value['b']))
		return -1;
	request = new_request("split");
	cJSON_AddNumberToObject(request, "pane", pane);
	cJSON_AddStringToObject(request, "direction", args->flag['h'] ? "h" : "v");
	if (args->value['p'] != NULL || args->value['l'] != NULL) {
		int size = atoi(args->value['p'] ? args->value['p'] : args->value['l']);

		if (size < 1 || size > 99) {
			cJSON_Delete(request);
			client_show_message(c, true, "split: -p/-l take a percentage 1..99");
			return -1;
		}
		cJSON_AddNumberToObject(request, "size", size);
	}
	add_spawn_options(request, args);
	return send_simple(c, request);
}

static int cmd_new_window(struct client *c, struct cmd_args *args)
{
	cJSON *request;

	if (!valid_backend(c, args->value['b']))
		return -1;
	request = new_request("new-window");
	if (c->session[0] != 0)
		cJSON_AddStringToObject(request, "session", c->session);
	add_spawn_options(request, args);
	return send_simple(c, request);
}

static int cmd_kill_pane(struct client *c, struct cmd_args *args)
{
	return pane_request(c, args, "kill-pane");
}

static int cmd_kill_session(struct client *c, struct cmd_args *args)
{
	cJSON *request = new_request("kill-session");

	cJSON_AddStringToObject(request, "session",
				args->value['t'] ? args->value['t'] : c->session);
	return send_simple(c, request);
}

static int cmd_kill_server(struct client *c, struct cmd_args *args)
{
	return send_simple(c, new_request("kill-server"));
}

/* The pane after (or before) the active one, in layout order. */
static int neighbour_pane(struct client *c, int step)
{
	for (size_t i = 0; i < c->npanes; i++)
		if (c->panes[i].active)
			return c->panes[(i + c->npanes + (size_t)step) % c->npanes].id;
	return c->npanes > 0 ? c->panes[0].id : -1;
}

static const struct {
	char letter;
	const char *dir;
} direction_flags[] = {{'L', "left"}, {'R', "right"}, {'U', "up"}, {'D', "down"}};

static const char *direction_of(struct cmd_args *args)
{
	for (size_t i = 0; i < sizeof direction_flags / sizeof direction_flags[0]; i++)
		if (args->flag[(int)direction_flags[i].letter])
			return direction_flags[i].dir;
	return NULL;
}

static int cmd_select_pane(struct client *c, struct cmd_args *args)
{
	const char *dir = direction_of(args);
	cJSON *request = new_request("select-pane");
	int pane;

	if (dir != NULL) {
		cJSON_AddStringToObject(request, "dir", dir);
	} else {
		pane = args->flag['n']	 ? neighbour_pane(c, 1)
		       : args->flag['p'] ? neighbour_pane(c, -1)
					 : target_pane(c, args);
		if (pane < 0) {
			cJSON_Delete(request);
			return -1;
		}
		cJSON_AddNumberToObject(request, "pane", pane);
	}
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	return send_simple(c, request);
}

static int cmd_zoom(struct client *c, struct cmd_args *args)
{
	return pane_request(c, args, "zoom");
}

static int cmd_resize_pane(struct client *c, struct cmd_args *args)
{
	const char *dir = direction_of(args);
	int pane = target_pane(c, args), amount = 1;
	cJSON *request;

	if (args->flag['Z'])
		return cmd_zoom(c, args);
	if (pane < 0)
		return -1;
	if (args->value['x'] != NULL || args->value['y'] != NULL) {
		/* An absolute size, as `sandmux resize -x -y` sets it. */
		request = new_request("resize");
		cJSON_AddNumberToObject(request, "pane", pane);
		if (args->value['x'] != NULL)
			cJSON_AddNumberToObject(request, "cols", atoi(args->value['x']));
		if (args->value['y'] != NULL)
			cJSON_AddNumberToObject(request, "rows", atoi(args->value['y']));
		return send_simple(c, request);
	}
	if (dir == NULL) {
		client_show_message(
		    c, true,
		    "usage: resize-pane [-t PANE] -L|-R|-U|-D [AMOUNT] | -x COLS -y ROWS | -Z");
		return -1;
	}
	if (args->npositional > 0 && (amount = atoi(args->positional[0])) < 1) {
		client_show_message(c, true, "resize-pane: amount must be a positive number");
		return -1;
	}
	request = new_request("resize-pane");
	cJSON_AddNumberToObject(request, "pane", pane);
	cJSON_AddStringToObject(request, "dir", dir);
	cJSON_AddNumberToObject(request, "amount", amount);
	return send_simple(c, request);
}

static int cmd_select_window(struct client *c, struct cmd_args *args)
{
	cJSON *request = new_request("select-window");
	const char *target = args->value['t'];

	if (args->flag['n']) {
		cJSON_AddBoolToObject(request, "next", true);
	} else if (args->flag['p']) {
		cJSON_AddBoolToObject(request, "prev", true);
	} else if (target != NULL || args->npositional > 0) {
		const char *index = target ? target : args->positional[0];
		char *end;
		long n = strtol(index[0] == ':' ? index + 1 : index, &end, 10);

		if (*end != 0 || n < 0) {
			cJSON_Delete(request);
			client_show_message(c, true, "select-window: bad index \"%s\"", index);
			return -1;
		}
		cJSON_AddNumberToObject(request, "index", (double)n);
	} else {
		cJSON_Delete(request);
		client_show_message(c, true, "usage: select-window -t INDEX | -n | -p");
		return -1;
	}
	return send_simple(c, request);
}

static int cmd_next_window(struct client *c, struct cmd_args *args)
{
	cJSON *request = new_request("select-window");

	cJSON_AddBoolToObject(request, "next", true);
	return send_simple(c, request);
}

static int cmd_previous_window(struct client *c, struct cmd_args *args)
{
	cJSON *request = new_request("select-window");

	cJSON_AddBoolToObject(request, "prev", true);
	return send_simple(c, request);
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

static int cmd_detach(struct client *c, struct cmd_args *args)
{
	return client_request(c, new_request("detach"), on_detach_reply, 0) < 0 ? -1 : 0;
}

static int cmd_copy_mode(struct client *c, struct cmd_args *args)
{
	struct pane_view *pane = client_active_pane(c);

	if (pane == NULL)
		return -1;
	if (c->mode != MODE_COPY)
		copy_mode_enter(c, pane->id, args->flag['u']);
	else if (args->flag['u'])
		copy_mode_key(c, "PageUp");
	return 0;
}

static int cmd_paste_buffer(struct client *c, struct cmd_args *args)
{
	cJSON *request;

	if (c->paste_buffer == NULL || c->paste_buffer[0] == 0) {
		client_show_message(c, false, "no buffer: copy something first (prefix [ )");
		return -1;
	}
	request = new_request("paste");
	cJSON_AddStringToObject(request, "text", c->paste_buffer);
	return send_simple(c, request);
}

static int cmd_send_keys(struct client *c, struct cmd_args *args)
{
	int pane = target_pane(c, args);
	cJSON *request, *keys;

	if (pane < 0)
		return -1;
	request = new_request("send-keys");
	cJSON_AddNumberToObject(request, "pane", pane);
	keys = cJSON_AddArrayToObject(request, "keys");
	for (int i = 0; i < args->npositional; i++)
		cJSON_AddItemToArray(keys, cJSON_CreateString(args->positional[i]));
	if (args->flag['l'])
		cJSON_AddBoolToObject(request, "literal", true);
	return send_simple(c, request);
}

static int cmd_send_prefix(struct client *c, struct cmd_args *args)
{
	client_send_key(c, c->config.prefix);
	client_flush_text(c);
	return 0;
}

static int cmd_command_prompt(struct client *c, struct cmd_args *args)
{
	client_prompt_open(c, PROMPT_COMMAND, args->value['p'] ? args->value['p'] : ":",
			   args->value['I']);
	return 0;
}

static int cmd_list_keys(struct client *c, struct cmd_args *args)
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

static int cmd_confirm_before(struct client *c, struct cmd_args *args)
{
	char command[BINDING_COMMAND_MAX], label[128];

	if (args->npositional == 0) {
		client_show_message(c, true, "usage: confirm-before [-p PROMPT] COMMAND");
		return -1;
	}
	join_words(args->positional, args->npositional, command, sizeof command);
	if (args->value['p'] != NULL)
		snprintf(label, sizeof label, "%s ", args->value['p']);
	else
		snprintf(label, sizeof label, "%s? (y/n) ", args->positional[0]);
	client_prompt_open(c, PROMPT_CONFIRM, label, NULL);
	snprintf(c->prompt.confirm_command, sizeof c->prompt.confirm_command, "%s", command);
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
 * where the panes are: the "format" request. */
static int cmd_display_message(struct client *c, struct cmd_args *args)
{
	char text[512];
	int pane = target_pane(c, args);
	cJSON *request;

	if (pane < 0)
		return -1;
	join_words(args->positional, args->npositional, text, sizeof text);
	request = new_request("format");
	cJSON_AddNumberToObject(request, "pane", pane);
	cJSON_AddStringToObject(request, "text", text);
	return client_request(c, request, on_format_reply, 0) < 0 ? -1 : 0;
}

static int cmd_suspend(struct client *c, struct cmd_args *args)
{
	return pane_request(c, args, "suspend");
}

static int cmd_resume(struct client *c, struct cmd_args *args)
{
	return pane_request(c, args, "resume");
}

static const struct client_command client_commands[] = {
    {"split", "split-window", "hvb:c:e:l:p:P:rt:",
     "split [-h|-v] [-b|--backend BACKEND] [-c DIR] [-e NAME=VALUE] [-l|-p PERCENT] [--profile P] "
     "[--remain] [-t PANE] [COMMAND...]",
     "split the pane (-h side by side, -v stacked)", cmd_split},
    {"new-window", "neww", "b:c:e:P:r",
     "new-window [-b|--backend BACKEND] [-c DIR] [-e NAME=VALUE] [--profile P] [COMMAND...]",
     "open a new window", cmd_new_window},
    {"kill-pane", "killp", "t:", "kill-pane [-t PANE]", "kill the pane", cmd_kill_pane},
    {"kill-session", NULL, "t:", "kill-session [-t SESSION]", "kill the session", cmd_kill_session},
    {"kill-server", NULL, "", "kill-server", "stop the server and every pane", cmd_kill_server},
    {"select-pane", "selectp", "t:LRUDnp", "select-pane [-t PANE | -L | -R | -U | -D | -n | -p]",
     "move the focus", cmd_select_pane},
    {"resize-pane", "resizep", "t:x:y:LRUDZ",
     "resize-pane [-t PANE] -L|-R|-U|-D [AMOUNT] | -x COLS -y ROWS | -Z", "move the pane's edge",
     cmd_resize_pane},
    {"resize", NULL, "t:x:y:LRUDZ", "resize [-t PANE] -L|-R|-U|-D [AMOUNT] | -x COLS -y ROWS",
     "resize the pane (as the CLI's resize)", cmd_resize_pane},
    {"zoom", NULL, "t:", "zoom [-t PANE]", "zoom or unzoom the pane", cmd_zoom},
    {"select-window", "selectw", "t:np", "select-window -t INDEX | -n | -p", "switch window",
     cmd_select_window},
    {"next-window", "next", "", "next-window", "switch to the next window", cmd_next_window},
    {"previous-window", "prev", "", "previous-window", "switch to the previous window",
     cmd_previous_window},
    {"detach", "detach-client", "", "detach", "detach, leaving the session running", cmd_detach},
    {"copy-mode", NULL, "u", "copy-mode [-u]", "scroll, search and copy history", cmd_copy_mode},
    {"paste-buffer", "pasteb", "", "paste-buffer", "paste the last copied text", cmd_paste_buffer},
    {"send-keys", "send", "t:l", "send-keys [-t PANE] [-l] KEY...", "send keys to a pane",
     cmd_send_keys},
    {"send-prefix", NULL, "", "send-prefix", "send the prefix key to the pane", cmd_send_prefix},
    {"command-prompt", NULL, "p:I:", "command-prompt [-p PROMPT] [-I TEXT]", "type a command",
     cmd_command_prompt},
    {"list-keys", "lsk", "", "list-keys", "show the key bindings", cmd_list_keys},
    {"confirm-before", "confirm", "p:", "confirm-before [-p PROMPT] COMMAND",
     "run a command after y", cmd_confirm_before},
    {"display-message", "display", "t:", "display-message [-t PANE] TEXT",
     "show a message, formats (#{pane_current_path}...) expanded", cmd_display_message},
    {"suspend-pane", "suspend", "t:", "suspend-pane [-t PANE]", "pause the pane's sandbox",
     cmd_suspend},
    {"resume-pane", "resume", "t:", "resume-pane [-t PANE]", "resume a paused sandbox", cmd_resume},
};

static const size_t client_command_count = sizeof client_commands / sizeof client_commands[0];

static const struct client_command *find_command(const char *name)
{
	for (size_t i = 0; i < client_command_count; i++) {
		const struct client_command *cmd = &client_commands[i];

		if (strcmp(name, cmd->name) == 0 || (cmd->alias && strcmp(name, cmd->alias) == 0))
			return cmd;
	}
	return NULL;
}

bool client_command_valid(const char *line, struct sm_error *err)
{
	char buf[1024], *argv[MAX_ARGS], why[128];
	struct cmd_args args;
	const struct client_command *cmd;
	int argc = command_split(line, buf, sizeof buf, argv, MAX_ARGS);

	if (argc < 0) {
		sm_error_set(err, "invalid_command", "unbalanced quotes or too long: %s", line);
		return false;
	}
	if (argc == 0) {
		sm_error_set(err, "invalid_command", "empty command");
		return false;
	}
	if ((cmd = find_command(argv[0])) == NULL) {
		sm_error_set(err, "unknown_command", "unknown command \"%s\"", argv[0]);
		return false;
	}
	if (parse_args(cmd->spec, argc, argv, &args, why, sizeof why) != 0) {
		sm_error_set(err, "invalid_command", "%s: %s (usage: %s)", argv[0], why,
			     cmd->usage);
		return false;
	}
	return true;
}

const char *client_command_summary(const char *line)
{
	char name[64];
	size_t len = strcspn(line, " \t");
	const struct client_command *cmd;

	if (len >= sizeof name)
		return "";
	memcpy(name, line, len);
	name[len] = 0;
	cmd = find_command(name);
	return cmd ? cmd->summary : "";
}

int client_run_command(struct client *c, const char *line)
{
	char buf[1024], *argv[MAX_ARGS], why[128];
	struct cmd_args args;
	const struct client_command *cmd;
	int argc = command_split(line, buf, sizeof buf, argv, MAX_ARGS);

	if (argc <= 0) {
		if (argc < 0)
			client_show_message(c, true, "unbalanced quotes in: %s", line);
		return -1;
	}
	if ((cmd = find_command(argv[0])) == NULL) {
		client_show_message(c, true, "unknown command: %s", argv[0]);
		return -1;
	}
	if (parse_args(cmd->spec, argc, argv, &args, why, sizeof why) != 0) {
		client_show_message(c, true, "%s: %s (usage: %s)", argv[0], why, cmd->usage);
		return -1;
	}
	c->dirty = true;
	return cmd->exec(c, &args);
}
