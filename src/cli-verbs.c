/*
 * cli-verbs: the command line's side of the commands.  Every verb is an
 * entry of command_table[] (command-table.c); cli_run parses its words
 * through the entry's spec into the protocol request, sends it on a
 * fresh connection and prints the result, or hands the parsed request to
 * the verb's own part here (new and attach attach a client afterwards).
 * Names and flags follow tmux where tmux has the same verb.
 * Exit codes: 0 ok, 1 the request failed, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bindings.h"
#include "cli.h"
#include "client.h"
#include "command.h"
#include "config.h"
#include "error.h"
#include "jsonl.h"
#include "sanitise.h"
#include "session-file.h"
#include "server.h"
#include "xalloc.h"

static const char *error_message(const cJSON *reply)
{
	const cJSON *error = cJSON_GetObjectItem(reply, "error");
	const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"));

	return msg ? msg : "request failed";
}

/* Send a request on a fresh connection; print failures; return the
 * reply's result (owned by *reply_out) or NULL. */
static cJSON *run_request(cJSON *req, bool start, cJSON **reply_out)
{
	struct cli_conn conn;
	cJSON *reply;

	*reply_out = NULL;
	if (cli_connect(&conn, start) < 0) {
		cJSON_Delete(req);
		return NULL;
	}
	reply = cli_request(&conn, req);
	cli_close(&conn);
	*reply_out = reply;
	if (reply == NULL)
		return NULL;
	if (!cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"))) {
		const cJSON *code = cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code");
		fprintf(stderr, "sandmux: %s (%s)\n", error_message(reply),
			cJSON_GetStringValue(code) ? code->valuestring : "error");
		return NULL;
	}
	return cJSON_GetObjectItem(reply, "result");
}

cJSON *cli_run_request(cJSON *req, bool start, cJSON **reply_out)
{
	return run_request(req, start, reply_out);
}

static cJSON *new_request(const char *cmd)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, "cmd", cmd);
	return req;
}

/* The request leaves the parsed command: whoever sends it owns it. */
static cJSON *take_request(struct command_parsed *parsed)
{
	cJSON *req = parsed->request;

	parsed->request = NULL;
	return req;
}

/* --help before "--"; -h too where the command has no -h of its own. */
static bool wants_help(const struct command_entry *e, int argc, char **argv)
{
	bool h_free = true;

	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++)
		if (o->letter == 'h')
			h_free = false;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || (h_free && strcmp(argv[i], "-h") == 0))
			return true;
	return false;
}

const struct command_entry *cli_find_verb(const char *name)
{
	return command_find(name, CMD_CLI);
}

void cli_print_usage(const struct command_entry *entry, bool to_stderr)
{
	command_print_help(entry, to_stderr ? stderr : stdout);
}

static int cli_usage_error(const char *verb)
{
	cli_print_usage(cli_find_verb(verb), true);
	return 2;
}

int cli_run(const struct command_entry *e, int argc, char **argv)
{
	struct command_context ctx = { .flags = CMD_CLI, .active_pane = cli_env_pane() };
	struct command_parsed parsed;
	struct sm_error err = { 0 };
	cJSON *reply, *result;
	int rc;

	if (e->rest == REST_RAW && !(argc == 2 && strcmp(argv[1], "--help") == 0 &&
				     strcmp(e->name, "server") != 0))
		return e->raw(argc, argv);
	if (wants_help(e, argc, argv)) {
		command_print_help(e, stdout);
		return 0;
	}
	if (command_parse(e, argc, argv, &ctx, &parsed, &err) < 0) {
		fprintf(stderr, "sandmux: %s (%s)\n", err.message, err.code);
		return 2;
	}
	if (e->cli != NULL) {
		rc = e->cli(&parsed);
	} else {
		result = run_request(take_request(&parsed), e->flags & CMD_START_SERVER, &reply);
		if (result != NULL && e->print != NULL)
			e->print(&parsed, result, stdout);
		rc = result != NULL ? 0 : 1;
		cJSON_Delete(reply);
	}
	command_parsed_free(&parsed);
	return rc;
}

void cli_print_pane_created(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	const cJSON *backend = cJSON_GetObjectItem(result, "backend");

	fprintf(out, "%%%d %s %s\n", cJSON_GetObjectItem(result, "pane")->valueint,
	       cJSON_IsString(backend) ? backend->valuestring : "pending",
	       cJSON_GetStringValue(cJSON_GetObjectItem(result, "state")));
}

/*
 * Whether this process may become an attached client; tmux's refusals,
 * in tmux's words.  Without a terminal the client would draw into a
 * file or pipe at a made-up size, spinning on a descriptor that never
 * blocks, and that size would shrink the session for its real clients.
 * Inside a pane ($SANDMUX set, pane.c) it would show the session inside
 * itself, copies within copies; unsetting the variable is the way to
 * force it, as with $TMUX.
 */
static bool may_attach(void)
{
	const char *nested = getenv("SANDMUX");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "open terminal failed: not a terminal\n");
		return false;
	}
	if (nested != NULL && nested[0] != '\0') {
		fprintf(stderr, "sessions should be nested with care, unset $SANDMUX to force\n");
		return false;
	}
	return true;
}

/* The session named name, in a list reply's result. */
static bool session_listed(const cJSON *result, const char *name)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(result, "sessions"))
	{
		const char *listed = cJSON_GetStringValue(cJSON_GetObjectItem(s, "name"));

		if (listed != NULL && strcmp(listed, name) == 0)
			return true;
	}
	return false;
}

int cli_new(struct command_parsed *parsed)
{
	cJSON *req = take_request(parsed), *reply, *result;
	bool detached = command_local(parsed, "d") != NULL;
	int cols = 0, rows = 0;
	char session[64], cwd[PATH_MAX];

	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(req, "name"));
	const char *layout = command_local(parsed, "layout");

	/* tmux's new -A: the session named is attached if it exists. */
	if (command_local(parsed, "A") != NULL && name != NULL) {
		struct cli_conn conn;
		bool exists = false;

		if (cli_connect(&conn, true) < 0) {
			cJSON_Delete(req);
			return 1;
		}
		reply = cli_request(&conn, new_request("list"));
		cli_close(&conn);
		exists = session_listed(cJSON_GetObjectItem(reply, "result"), name);
		cJSON_Delete(reply);
		if (exists) {
			cJSON_Delete(req);
			if (detached)
				return 0;
			return may_attach() ? client_attach(cli_socket_path(), name, NULL) : 1;
		}
	}
	/* Refused before the session exists, as tmux's new-session is. */
	if (!detached && !may_attach()) {
		cJSON_Delete(req);
		return 1;
	}
	/* A layout file gives every pane its own backend, cwd and command. */
	if (layout != NULL) {
		int rc = session_file_new(layout, name, detached);

		cJSON_Delete(req);
		return rc;
	}
	if (cJSON_GetObjectItem(req, "cwd") == NULL && getcwd(cwd, sizeof cwd) != NULL)
		cJSON_AddStringToObject(req, "cwd", cwd);
	if (cJSON_GetObjectItem(req, "cols") == NULL && cJSON_GetObjectItem(req, "rows") == NULL &&
	    !detached && isatty(1)) {
		cli_terminal_size(&cols, &rows);
		if (cols > 0)
			cJSON_AddNumberToObject(req, "cols", cols);
		if (rows > 0)
			cJSON_AddNumberToObject(req, "rows", rows);
	}
	result = run_request(req, true, &reply);
	if (result == NULL) {
		cJSON_Delete(reply);
		return 1;
	}
	snprintf(session, sizeof session, "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItem(result, "session")));
	if (detached) {
		printf("%s ", session);
		cli_print_pane_created(parsed, result, stdout);
	}
	cJSON_Delete(reply);
	if (detached)
		return 0;
	return client_attach(cli_socket_path(), session, NULL);
}

int cli_attach(struct command_parsed *parsed)
{
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(parsed->request, "session"));
	const char *theme = command_local(parsed, "theme");
	struct cli_conn conn;
	cJSON *reply;
	bool any;

	if (!may_attach())
		return 1;
	/* `sandmux` alone makes a session when there is none, as `tmux`
	 * alone does; `sandmux attach` says there is none, as `tmux attach`
	 * does ("no server running on PATH", "no sessions"). */
	if (cli_connect(&conn, cli_attach_may_create) < 0)
		return 1;
	reply = cli_request(&conn, new_request("list"));
	any = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"),
						     "sessions")) > 0;
	/* A session that is not there is said before the screen is taken,
	 * not on a screen drawn for nothing. */
	if (target != NULL && !session_listed(cJSON_GetObjectItem(reply, "result"), target)) {
		fprintf(stderr, "sandmux: no session %s\n", target);
		cJSON_Delete(reply);
		cli_close(&conn);
		return 1;
	}
	cJSON_Delete(reply);
	if (!any && target == NULL && !cli_attach_may_create) {
		fprintf(stderr, "sandmux: no sessions\n");
		cli_close(&conn);
		return 1;
	}
	if (!any && target == NULL) {
		cJSON *req = new_request("new-session");
		int restored;

		/* Saved sessions are offered first, before a new one is made. */
		cli_close(&conn);
		if ((restored = cli_offer_restore()) >= 0)
			return restored;
		if (cli_connect(&conn, true) < 0) {
			cJSON_Delete(req);
			return 1;
		}
		char cwd[PATH_MAX];
		int cols = 80, rows = 24;
		cli_terminal_size(&cols, &rows);
		cJSON_AddNumberToObject(req, "cols", cols);
		cJSON_AddNumberToObject(req, "rows", rows);
		if (getcwd(cwd, sizeof cwd) != NULL)
			cJSON_AddStringToObject(req, "cwd", cwd);
		reply = cli_request(&conn, req);
		cJSON_Delete(reply);
	}
	cli_close(&conn);
	return client_attach(cli_socket_path(), target, theme);
}

static void print_list_plain(const cJSON *result, FILE *out)
{
	const cJSON *s, *w, *p;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(result, "sessions"))
	{
		int nwin = cJSON_GetArraySize(cJSON_GetObjectItem(s, "windows"));
		sanitise_fputs(cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), out);
		fprintf(out, ": %d windows (%dx%d)%s\n", nwin,
		       cJSON_GetObjectItem(s, "cols")->valueint,
		       cJSON_GetObjectItem(s, "rows")->valueint,
		       cJSON_GetObjectItem(s, "attached")->valueint ? " (attached)" : "");
		cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "windows"))
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "panes"))
		{
			const cJSON *backend = cJSON_GetObjectItem(p, "backend");
			const cJSON *reason = cJSON_GetObjectItem(p, "reason");
			const cJSON *status = cJSON_GetObjectItem(p, "exit_status");
			char state[64];

			/* A --remain pane whose program ended is dead, as tmux says,
			 * with its status; its sandbox's "destroyed" is not news. */
			if (cJSON_IsNumber(status))
				snprintf(state, sizeof state, "dead (status %d)", status->valueint);
			else
				snprintf(state, sizeof state, "%s",
					 cJSON_GetStringValue(cJSON_GetObjectItem(p, "state")));
			char *why = sanitise_text(reason ? reason->valuestring : "");

			fprintf(out, "  %%%d [%dx%d] %s %s%s%s%s\n", cJSON_GetObjectItem(p, "id")->valueint,
			       cJSON_GetObjectItem(p, "cols")->valueint,
			       cJSON_GetObjectItem(p, "rows")->valueint,
			       cJSON_IsString(backend) ? backend->valuestring
			       : strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "state")), "error") == 0
				       ? "FAILED"
				       : "pending",
			       state,
			       cJSON_IsTrue(cJSON_GetObjectItem(p, "flooding")) ? " FLOODING" : "",
			       reason ? ": " : "", why);
			free(why);
		}
	}
}

void cli_print_list(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	if (command_local(parsed, "json") != NULL) {
		char *text = cJSON_Print(result);
		fprintf(out, "%s\n", text);
		free(text);
	} else {
		print_list_plain(result, out);
	}
}

void cli_print_capture(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	fputs(cJSON_GetStringValue(cJSON_GetObjectItem(result, "text")), out);
}

void cli_print_probe(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	if (command_local(parsed, "json") != NULL) {
		char *text = cJSON_Print(result);
		fprintf(out, "%s\n", text);
		free(text);
	} else {
		const char *line = cJSON_GetStringValue(cJSON_GetObjectItem(result, "line"));
		fprintf(out, "%s\n", line ? line : "sandbox: unknown");
	}
}

void cli_print_feed(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	fprintf(out, "%%%d\n", cJSON_GetObjectItem(result, "pane")->valueint);
}

/* tmux's list-windows line: "0: sh* (2 panes) [80x23]", the session
 * first when several are listed. */
void cli_print_windows(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	const cJSON *sessions = cJSON_GetObjectItem(result, "sessions"), *s, *w;
	bool several = cJSON_GetArraySize(sessions) > 1;

	(void)parsed;
	cJSON_ArrayForEach(s, sessions)
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "windows"))
	{
		if (several) {
			sanitise_fputs(cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), out);
			fputc(':', out);
		}
		fprintf(out, "%d: ", cJSON_GetObjectItem(w, "index")->valueint);
		sanitise_fputs(cJSON_GetStringValue(cJSON_GetObjectItem(w, "name")), out);
		fprintf(out, "%s (%d panes) [%dx%d]\n",
			cJSON_IsTrue(cJSON_GetObjectItem(w, "active")) ? "*" : "",
			cJSON_GetArraySize(cJSON_GetObjectItem(w, "panes")),
			cJSON_GetObjectItem(s, "cols")->valueint,
			cJSON_GetObjectItem(s, "rows")->valueint);
	}
}

/* tmux's list-panes line with the label: "0: [40x23] %1 native (active)". */
void cli_print_panes(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	const cJSON *s, *w, *p;

	(void)parsed;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(result, "sessions"))
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "windows"))
	{
		int index = 0;

		cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "panes"))
		{
			const char *backend = cJSON_GetStringValue(cJSON_GetObjectItem(p, "backend"));

			const cJSON *box = cJSON_GetObjectItem(p, "float");

			fprintf(out, "%d.%d: [%dx%d] %%%d %s%s%s\n",
				cJSON_GetObjectItem(w, "index")->valueint, index++,
				cJSON_GetObjectItem(p, "cols")->valueint,
				cJSON_GetObjectItem(p, "rows")->valueint,
				cJSON_GetObjectItem(p, "id")->valueint,
				backend != NULL ? backend : "pending",
				box == NULL ? ""
				: cJSON_IsTrue(cJSON_GetObjectItem(box, "hidden")) ? " (floating, hidden)"
										   : " (floating)",
				cJSON_IsTrue(cJSON_GetObjectItem(p, "active")) ? " (active)" : "");
		}
	}
}

static void cli_print_format(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	(void)parsed;
	sanitise_fputs(cJSON_GetStringValue(cJSON_GetObjectItem(result, "text")), out);
	fputc('\n', out);
}

/* display-message on the command line prints, as tmux's -p: the words
 * joined as the text, formats expanded by the server. */
int cli_display_message(struct command_parsed *parsed)
{
	cJSON *req = take_request(parsed), *reply, *result;
	char text[512] = "";
	size_t used = 0;

	for (int i = 0; i < parsed->nwords && used < sizeof text; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? " " : "",
					 parsed->words[i]);
	cJSON_AddStringToObject(req, "text", text);
	result = run_request(req, false, &reply);
	if (result != NULL)
		cli_print_format(parsed, result, stdout);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

/* tmux's source-file: each line a command, as typed after `sandmux`;
 * blank lines and # comments skipped; the first failure stops it. */
int cli_source_file(struct command_parsed *parsed)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(parsed->request, "path"));
	FILE *in = fopen(path, "r");
	char line[4096], buf[sizeof line + 2], *argv[64];
	int number = 0, rc = 0;

	if (in == NULL) {
		fprintf(stderr, "sandmux: %s: %s (invalid_argument)\n", path, strerror(errno));
		return 1;
	}
	while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
		const struct command_entry *e;
		int argc;

		number++;
		line[strcspn(line, "\n")] = '\0';
		argc = command_split(line, buf, sizeof buf, argv, 64);
		if (argc == 0 || argv[0][0] == '#')
			continue;
		if (argc < 0 || (e = cli_find_verb(argv[0])) == NULL) {
			fprintf(stderr, "sandmux: %s:%d: %s (invalid_command)\n", path, number,
				argc < 0 ? "unbalanced quotes" : "unknown command");
			rc = 2;
			break;
		}
		rc = cli_run(e, argc, argv);
	}
	fclose(in);
	return rc;
}

int cli_list_commands(struct command_parsed *parsed)
{
	command_print_list(stdout, command_local(parsed, "markdown") != NULL, CMD_CLI | CMD_PROMPT);
	return 0;
}

int verb_ctl(int argc, char **argv)
{
	struct cli_conn conn;
	cJSON *req, *reply;
	bool ok;

	if (argc != 2)
		return cli_usage_error("ctl");
	req = cJSON_Parse(argv[1]);
	if (!cJSON_IsObject(req)) {
		cJSON_Delete(req);
		fprintf(stderr, "sandmux: ctl: argument is not a JSON object (parse_error)\n");
		return 2;
	}
	cJSON_DeleteItemFromObject(req, "id");
	if (cli_connect(&conn, false) < 0) {
		cJSON_Delete(req);
		return 1;
	}
	reply = cli_request(&conn, req);
	cli_close(&conn);
	if (reply == NULL)
		return 1;
	jsonl_put(stdout, reply);
	ok = cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"));
	cJSON_Delete(reply);
	return ok ? 0 : 1;
}

int verb_server(int argc, char **argv)
{
	snprintf(server.name, sizeof server.name, "%s", cli_server_name);
	return server_main(argc, argv);
}

int verb_check_config(int argc, char **argv)
{
	return config_check_main(argc > 1 ? argv[1] : NULL);
}

void cli_print_buffers(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	const cJSON *b;

	(void)parsed;
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(result, "buffers"))
	{
		const char *label = cJSON_GetStringValue(cJSON_GetObjectItem(b, "label"));
		const char *sample = cJSON_GetStringValue(cJSON_GetObjectItem(b, "sample"));

		/* tmux's line, with the label of the pane it was copied from;
		 * the sample is pane text: controls are shown, not sent. */
		fprintf(out, "%s: %d bytes%s%s%s: \"", cJSON_GetStringValue(cJSON_GetObjectItem(b, "name")),
		       cJSON_GetObjectItem(b, "size")->valueint, label && label[0] ? " [" : "",
		       label && label[0] ? label : "", label && label[0] ? "]" : "");
		for (const unsigned char *p = (const unsigned char *)(sample ? sample : ""); *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\%03o", *p);
			else
				fputc(*p, out);
		fprintf(out, "\"\n");
	}
}

int cli_save_buffer(struct command_parsed *parsed)
{
	cJSON *req = take_request(parsed), *reply, *result;
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(req, "path"));
	char *target = path != NULL ? xstrdup(path) : NULL;
	const char *text;
	FILE *out;
	int rc = 1;

	result = run_request(req, false, &reply);
	if (result == NULL || target == NULL)
		goto done;
	text = cJSON_GetStringValue(cJSON_GetObjectItem(result, "text"));
	/* The file is written by the command line, as the user who typed
	 * it, never by the server. */
	out = strcmp(target, "-") == 0 ? stdout : fopen(target, "w");
	if (out == NULL) {
		fprintf(stderr, "sandmux: %s: %s\n", target, strerror(errno));
		goto done;
	}
	fputs(text != NULL ? text : "", out);
	rc = (out == stdout ? fflush(out) : fclose(out)) == 0 ? 0 : 1;
	if (rc != 0)
		fprintf(stderr, "sandmux: %s: %s\n", target, strerror(errno));
done:
	free(target);
	cJSON_Delete(reply);
	return rc;
}
