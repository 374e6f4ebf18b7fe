/*
 * cli-verbs: the verbs themselves, one function each, declared in a
 * table.  Names and flags follow tmux where tmux has the same verb.
 * Exit codes: 0 ok, 1 the request failed, 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "client.h"
#include "config.h"
#include "server.h"

/* Options shared by verbs that start a pane. */
struct spawn_opts {
	const char *cwd, *backend, *profile;
	bool remain;
	cJSON *env;
};

enum { OPT_BACKEND = 1000, OPT_PROFILE, OPT_REMAIN, OPT_ANSI, OPT_JSON, OPT_HELP, OPT_FOLLOW,
       OPT_ACTION };

static int usage_error(const char *verb)
{
	cli_print_usage(cli_find_verb(verb), true);
	return 2;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

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

static cJSON *new_request(const char *cmd)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, "cmd", cmd);
	return req;
}

/* -t: "%3" or "3" is a pane id; anything else names a session, whose
 * active pane is asked for.  Returns the id or -1 (message printed). */
static int resolve_pane(const char *target)
{
	cJSON *reply, *result, *sessions, *s;
	const char *digits = target[0] == '%' ? target + 1 : target;
	char *end;
	long id = strtol(digits, &end, 10);
	int found = -1;

	if (*digits != '\0' && *end == '\0')
		return (int)id;
	result = run_request(new_request("list"), false, &reply);
	sessions = cJSON_GetObjectItem(result, "sessions");
	cJSON_ArrayForEach(s, sessions)
	{
		cJSON *w, *p;
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), target) != 0)
			continue;
		cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "windows"))
		{
			if (!cJSON_IsTrue(cJSON_GetObjectItem(w, "active")))
				continue;
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "panes"))
			if (cJSON_IsTrue(cJSON_GetObjectItem(p, "active")))
				found = cJSON_GetObjectItem(p, "id")->valueint;
		}
	}
	cJSON_Delete(reply);
	if (found < 0 && result != NULL)
		fprintf(stderr, "sandmux: no pane or session '%s'\n", target);
	return found;
}

static void add_spawn_fields(cJSON *req, const struct spawn_opts *so, int argc, char **argv)
{
	char cwd[PATH_MAX];

	if (so->cwd != NULL)
		cJSON_AddStringToObject(req, "cwd", so->cwd);
	else if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(req, "cmd")), "new-session") == 0 &&
		 getcwd(cwd, sizeof cwd) != NULL)
		cJSON_AddStringToObject(req, "cwd", cwd);
	if (so->backend != NULL)
		cJSON_AddStringToObject(req, "backend", so->backend);
	if (so->profile != NULL)
		cJSON_AddStringToObject(req, "profile", so->profile);
	if (so->remain)
		cJSON_AddBoolToObject(req, "remain", true);
	if (so->env != NULL)
		cJSON_AddItemToObject(req, "env", so->env);
	if (argc > 0) {
		cJSON *a = cJSON_AddArrayToObject(req, "argv");
		for (int i = 0; i < argc; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	}
}

/* Handles the spawn options; returns 1 if consumed, 0 if not, -1 bad. */
static int spawn_option(int ch, struct spawn_opts *so)
{
	char *eq;

	switch (ch) {
	case 'c':
		so->cwd = optarg;
		return 1;
	case OPT_BACKEND:
		so->backend = optarg;
		return 1;
	case OPT_PROFILE:
		so->profile = optarg;
		return 1;
	case OPT_REMAIN:
		so->remain = true;
		return 1;
	case 'e':
		eq = strchr(optarg, '=');
		if (eq == NULL)
			return -1;
		if (so->env == NULL)
			so->env = cJSON_CreateObject();
		*eq = '\0';
		cJSON_AddStringToObject(so->env, optarg, eq + 1);
		return 1;
	}
	return 0;
}

#define SPAWN_LONGOPTS                                                                             \
	{ "backend", required_argument, NULL, OPT_BACKEND },                                       \
		{ "profile", required_argument, NULL, OPT_PROFILE },                               \
		{ "remain", no_argument, NULL, OPT_REMAIN }, { "help", no_argument, NULL, OPT_HELP }

static void print_pane_created(const cJSON *result)
{
	const cJSON *backend = cJSON_GetObjectItem(result, "backend");

	printf("%%%d %s %s\n", cJSON_GetObjectItem(result, "pane")->valueint,
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

static int verb_new(int argc, char **argv)
{
	static const struct option longopts[] = { SPAWN_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct spawn_opts so = { 0 };
	const char *name = NULL;
	int ch, cols = 0, rows = 0, rc;
	bool detached = false;
	cJSON *req, *reply, *result;
	char session[64];

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+ds:c:x:y:e:", longopts, NULL)) != -1) {
		if ((rc = spawn_option(ch, &so)) != 0) {
			if (rc < 0)
				return usage_error("new");
			continue;
		}
		switch (ch) {
		case 'd':
			detached = true;
			break;
		case 's':
			name = optarg;
			break;
		case 'x':
			cols = atoi(optarg);
			break;
		case 'y':
			rows = atoi(optarg);
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("new"), false);
			return 0;
		default:
			return usage_error("new");
		}
	}
	/* Refused before the session exists, as tmux's new-session is. */
	if (!detached && !may_attach())
		return 1;
	req = new_request("new-session");
	if (name != NULL)
		cJSON_AddStringToObject(req, "name", name);
	if (cols == 0 && rows == 0 && !detached && isatty(1))
		cli_terminal_size(&cols, &rows);
	if (cols > 0)
		cJSON_AddNumberToObject(req, "cols", cols);
	if (rows > 0)
		cJSON_AddNumberToObject(req, "rows", rows);
	add_spawn_fields(req, &so, argc - optind, argv + optind);
	result = run_request(req, true, &reply);
	if (reply != NULL && result == NULL) {
		cJSON_Delete(reply);
		return 1;
	}
	if (result == NULL)
		return 1;
	snprintf(session, sizeof session, "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItem(result, "session")));
	if (detached)
		printf("%s ", session);
	if (detached)
		print_pane_created(result);
	cJSON_Delete(reply);
	if (detached)
		return 0;
	return client_attach(cli_socket_path(), session, NULL);
}

static int verb_attach(int argc, char **argv)
{
	static const struct option longopts[] = { { "theme", required_argument, NULL, 'T' },
						  { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	const char *target = NULL, *theme = NULL;
	struct cli_conn conn;
	cJSON *reply;
	int ch;
	bool any;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			target = optarg;
			break;
		case 'T':
			theme = optarg;
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("attach"), false);
			return 0;
		default:
			return usage_error("attach");
		}
	}
	if (!may_attach())
		return 1;
	/* No session at all: make one, as `tmux` with no arguments does. */
	if (cli_connect(&conn, true) < 0)
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
	if (!any && target == NULL) {
		cJSON *req = new_request("new-session");
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

static void print_list_plain(const cJSON *result)
{
	const cJSON *s, *w, *p;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(result, "sessions"))
	{
		int nwin = cJSON_GetArraySize(cJSON_GetObjectItem(s, "windows"));
		printf("%s: %d windows (%dx%d)%s\n",
		       cJSON_GetStringValue(cJSON_GetObjectItem(s, "name")), nwin,
		       cJSON_GetObjectItem(s, "cols")->valueint,
		       cJSON_GetObjectItem(s, "rows")->valueint,
		       cJSON_GetObjectItem(s, "attached")->valueint ? " (attached)" : "");
		cJSON_ArrayForEach(w, cJSON_GetObjectItem(s, "windows"))
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "panes"))
		{
			const cJSON *backend = cJSON_GetObjectItem(p, "backend");
			const cJSON *reason = cJSON_GetObjectItem(p, "reason");
			printf("  %%%d [%dx%d] %s %s%s%s\n", cJSON_GetObjectItem(p, "id")->valueint,
			       cJSON_GetObjectItem(p, "cols")->valueint,
			       cJSON_GetObjectItem(p, "rows")->valueint,
			       cJSON_IsString(backend) ? backend->valuestring
			       : strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "state")), "error") == 0
				       ? "FAILED"
				       : "pending",
			       cJSON_GetStringValue(cJSON_GetObjectItem(p, "state")),
			       reason ? ": " : "", reason ? reason->valuestring : "");
		}
	}
}

static int verb_ls(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", no_argument, NULL, OPT_JSON },
						  { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	bool json = false;
	cJSON *reply, *result;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (ch == OPT_JSON)
			json = true;
		else if (ch == OPT_HELP) {
			cli_print_usage(cli_find_verb("ls"), false);
			return 0;
		} else
			return usage_error("ls");
	}
	result = run_request(new_request("list"), false, &reply);
	if (result == NULL) {
		cJSON_Delete(reply);
		return 1;
	}
	if (json) {
		char *text = cJSON_Print(result);
		printf("%s\n", text);
		free(text);
	} else {
		print_list_plain(result);
	}
	cJSON_Delete(reply);
	return 0;
}

static int verb_split(int argc, char **argv)
{
	static const struct option longopts[] = { SPAWN_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct spawn_opts so = { 0 };
	const char *target = NULL, *direction = "v";
	int ch, rc, size = 0, pane;
	cJSON *req, *reply, *result;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:hvc:l:e:", longopts, NULL)) != -1) {
		if ((rc = spawn_option(ch, &so)) != 0) {
			if (rc < 0)
				return usage_error("split");
			continue;
		}
		switch (ch) {
		case 't':
			target = optarg;
			break;
		case 'h':
			direction = "h";
			break;
		case 'v':
			direction = "v";
			break;
		case 'l':
			size = atoi(optarg);
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("split"), false);
			return 0;
		default:
			return usage_error("split");
		}
	}
	if (target == NULL)
		return usage_error("split");
	if ((pane = resolve_pane(target)) < 0)
		return 1;
	req = new_request("split");
	cJSON_AddNumberToObject(req, "pane", pane);
	cJSON_AddStringToObject(req, "direction", direction);
	if (size > 0)
		cJSON_AddNumberToObject(req, "size", size);
	add_spawn_fields(req, &so, argc - optind, argv + optind);
	result = run_request(req, false, &reply);
	if (result != NULL)
		print_pane_created(result);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

/* For verbs that take only -t PANE plus their own flags. */
static int simple_pane_verb(const char *verb, const char *cmd, int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	const char *target = NULL;
	cJSON *req, *reply, *result;
	int ch, pane;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:", longopts, NULL)) != -1) {
		if (ch == 't')
			target = optarg;
		else if (ch == OPT_HELP) {
			cli_print_usage(cli_find_verb(verb), false);
			return 0;
		} else
			return usage_error(verb);
	}
	if (target == NULL || optind != argc)
		return usage_error(verb);
	if ((pane = resolve_pane(target)) < 0)
		return 1;
	req = new_request(cmd);
	cJSON_AddNumberToObject(req, "pane", pane);
	result = run_request(req, false, &reply);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_kill_pane(int argc, char **argv)
{
	return simple_pane_verb("kill-pane", "kill-pane", argc, argv);
}

static int verb_suspend(int argc, char **argv)
{
	return simple_pane_verb("suspend", "suspend", argc, argv);
}

static int verb_resume(int argc, char **argv)
{
	return simple_pane_verb("resume", "resume", argc, argv);
}

static int verb_send_keys(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	const char *target = NULL;
	bool literal = false;
	cJSON *req, *reply, *result, *keys;
	int ch, pane;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:l", longopts, NULL)) != -1) {
		if (ch == 't')
			target = optarg;
		else if (ch == 'l')
			literal = true;
		else if (ch == OPT_HELP) {
			cli_print_usage(cli_find_verb("send-keys"), false);
			return 0;
		} else
			return usage_error("send-keys");
	}
	if (target == NULL)
		return usage_error("send-keys");
	if ((pane = resolve_pane(target)) < 0)
		return 1;
	req = new_request("send-keys");
	cJSON_AddNumberToObject(req, "pane", pane);
	if (literal)
		cJSON_AddBoolToObject(req, "literal", true);
	keys = cJSON_AddArrayToObject(req, "keys");
	for (int i = optind; i < argc; i++)
		cJSON_AddItemToArray(keys, cJSON_CreateString(argv[i]));
	result = run_request(req, false, &reply);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_capture(int argc, char **argv)
{
	static const struct option longopts[] = { { "ansi", no_argument, NULL, OPT_ANSI },
						  { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	const char *target = NULL, *start = NULL, *end = NULL;
	bool ansi = false;
	cJSON *req, *reply, *result;
	int ch, pane;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:S:E:ep", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			target = optarg;
			break;
		case 'S':
			start = optarg;
			break;
		case 'E':
			end = optarg;
			break;
		case 'e':
		case OPT_ANSI:
			ansi = true;
			break;
		case 'p':
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("capture"), false);
			return 0;
		default:
			return usage_error("capture");
		}
	}
	if (target == NULL)
		return usage_error("capture");
	if ((pane = resolve_pane(target)) < 0)
		return 1;
	req = new_request("capture");
	cJSON_AddNumberToObject(req, "pane", pane);
	/* "-S -" is the start of history, as in tmux. */
	if (start != NULL)
		cJSON_AddNumberToObject(req, "start", strcmp(start, "-") == 0 ? -1000000000
									   : atoi(start));
	if (end != NULL && strcmp(end, "-") != 0)
		cJSON_AddNumberToObject(req, "end", atoi(end));
	if (ansi)
		cJSON_AddBoolToObject(req, "ansi", true);
	result = run_request(req, false, &reply);
	if (result != NULL)
		fputs(cJSON_GetStringValue(cJSON_GetObjectItem(result, "text")), stdout);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_resize(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, OPT_HELP },
						  { NULL, 0, NULL, 0 } };
	const char *target = NULL, *dir = NULL;
	int ch, pane, cols = 0, rows = 0, amount = 1;
	cJSON *req, *reply, *result;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+t:x:y:LRUD", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			target = optarg;
			break;
		case 'x':
			cols = atoi(optarg);
			break;
		case 'y':
			rows = atoi(optarg);
			break;
		case 'L':
			dir = "left";
			break;
		case 'R':
			dir = "right";
			break;
		case 'U':
			dir = "up";
			break;
		case 'D':
			dir = "down";
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("resize"), false);
			return 0;
		default:
			return usage_error("resize");
		}
	}
	if (optind < argc)
		amount = atoi(argv[optind]);
	if (target == NULL || (dir == NULL && cols == 0 && rows == 0))
		return usage_error("resize");
	if ((pane = resolve_pane(target)) < 0)
		return 1;
	req = new_request(dir != NULL ? "resize-pane" : "resize");
	cJSON_AddNumberToObject(req, "pane", pane);
	if (dir != NULL) {
		cJSON_AddStringToObject(req, "dir", dir);
		cJSON_AddNumberToObject(req, "amount", amount);
	}
	if (cols > 0)
		cJSON_AddNumberToObject(req, "cols", cols);
	if (rows > 0)
		cJSON_AddNumberToObject(req, "rows", rows);
	result = run_request(req, false, &reply);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_kill_session(int argc, char **argv)
{
	cJSON *req, *reply, *result;
	int ch;

	optind = 1;
	if (wants_help(argc, argv)) {
		cli_print_usage(cli_find_verb("kill-session"), false);
		return 0;
	}
	const char *target = NULL;
	while ((ch = getopt(argc, argv, "+t:")) != -1) {
		if (ch == 't')
			target = optarg;
		else
			return usage_error("kill-session");
	}
	if (target == NULL)
		return usage_error("kill-session");
	req = new_request("kill-session");
	cJSON_AddStringToObject(req, "session", target);
	result = run_request(req, false, &reply);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_kill_server(int argc, char **argv)
{
	cJSON *reply, *result;

	if (wants_help(argc, argv)) {
		cli_print_usage(cli_find_verb("kill-server"), false);
		return 0;
	}
	if (argc > 1)
		return usage_error("kill-server");
	result = run_request(new_request("kill-server"), false, &reply);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}

static int verb_ctl(int argc, char **argv)
{
	struct cli_conn conn;
	cJSON *req, *reply;
	char *text;
	bool ok;

	if (wants_help(argc, argv)) {
		cli_print_usage(cli_find_verb("ctl"), false);
		return 0;
	}
	if (argc != 2)
		return usage_error("ctl");
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
	text = cJSON_PrintUnformatted(reply);
	printf("%s\n", text);
	free(text);
	ok = cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"));
	cJSON_Delete(reply);
	return ok ? 0 : 1;
}

static int verb_probe(int argc, char **argv)
{
	bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
	cJSON *reply, *result;

	if (wants_help(argc, argv)) {
		cli_print_usage(cli_find_verb("probe"), false);
		return 0;
	}
	result = run_request(new_request("probe"), true, &reply);
	if (result == NULL) {
		cJSON_Delete(reply);
		return 1;
	}
	if (json) {
		char *text = cJSON_Print(result);
		printf("%s\n", text);
		free(text);
	} else {
		const char *line = cJSON_GetStringValue(cJSON_GetObjectItem(result, "line"));
		printf("%s\n", line ? line : "sandbox: unknown");
	}
	cJSON_Delete(reply);
	return 0;
}

static int verb_server(int argc, char **argv)
{
	snprintf(server.name, sizeof server.name, "%s", cli_server_name);
	return server_main(argc, argv);
}

static int verb_check_config(int argc, char **argv)
{
	return config_check_main(argc > 1 ? argv[1] : NULL);
}

int verb_events(int argc, char **argv);
int verb_demo(int argc, char **argv);
int verb_feed(int argc, char **argv);
int verb_layout(int argc, char **argv);
int shim_main(int argc, char **argv);
int verb_egress_bridge(int argc, char **argv);

const struct cli_verb cli_verbs[] = {
	{ "new", verb_new,
	  "new [-d] [-s NAME] [-c DIR] [-x COLS -y ROWS] [-e VAR=VAL] [--backend none|native|microvm]\n"
	  "    [--profile NAME] [--remain] [-- CMD...]",
	  "create a session (and attach unless -d)" },
	{ "attach", verb_attach, "attach [-t SESSION] [--theme NAME]", "attach to a session" },
	{ "ls", verb_ls, "ls [--json]", "list sessions, windows and panes" },
	{ "split", verb_split,
	  "split -t PANE [-h|-v] [-l PERCENT] [-c DIR] [-e VAR=VAL] [--backend B] [--profile P]\n"
	  "    [--remain] [-- CMD...]",
	  "split a pane (-h side by side, -v stacked)" },
	{ "send-keys", verb_send_keys, "send-keys -t PANE [-l] KEYS...",
	  "send key names (Enter, C-c, Up) or text" },
	{ "capture", verb_capture, "capture -t PANE [-S START|-] [-E END] [--ansi]",
	  "print a pane's screen and scrollback" },
	{ "resize", verb_resize, "resize -t PANE [-x COLS] [-y ROWS] | [-L|-R|-U|-D] [AMOUNT]",
	  "resize a pane" },
	{ "kill-pane", verb_kill_pane, "kill-pane -t PANE", "kill a pane and its processes" },
	{ "kill-session", verb_kill_session, "kill-session -t SESSION", "kill a session" },
	{ "kill-server", verb_kill_server, "kill-server", "kill every pane and stop the server" },
	{ "suspend", verb_suspend, "suspend -t PANE", "stop a pane's whole process tree" },
	{ "resume", verb_resume, "resume -t PANE", "continue a suspended pane" },
	{ "ctl", verb_ctl, "ctl JSON", "send a raw protocol request, print the reply" },
	{ "probe", verb_probe, "probe [--json]", "what sandboxing this host offers" },
	{ "events", verb_events,
	  "events [--follow] [-t PANE] [--session S] [--action A] [--json] [--feed]",
	  "print sandbox events" },
	{ "layout", verb_layout, "layout FILE", "build a session from a layout file (JSON)" },
	{ "feed", verb_feed, "feed [-t SESSION]", "open the live violation feed beside a session's pane" },
	{ "demo", verb_demo, "demo", "open the isolation demo session" },
	{ "server", verb_server, "server [--foreground] [--sandbox on|off] [--config FILE] [-v]",
	  "run the server (started automatically)" },
	{ "egress-bridge", verb_egress_bridge, "egress-bridge SOCAT -- CMD...",
	  "(inside a restricted sandbox) bridge to the egress proxies, run CMD" },
	{ "shim", shim_main, "shim --fd N -- CMD...", "(inside a native sandbox) install the seccomp filter, run CMD" },
	{ "--check-config", verb_check_config, "--check-config [FILE]",
	  "validate the config file without starting" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_verb *cli_find_verb(const char *name)
{
	static const struct {
		const char *alias, *name;
	} aliases[] = { { "new-session", "new" },     { "attach-session", "attach" },
			{ "a", "attach" },	      { "list-sessions", "ls" },
			{ "split-window", "split" },  { "capture-pane", "capture" },
			{ "resize-pane", "resize" } };

	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (const struct cli_verb *v = cli_verbs; v->name != NULL; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

void cli_print_usage(const struct cli_verb *verb, bool to_stderr)
{
	FILE *out = to_stderr ? stderr : stdout;

	fprintf(out, "usage: sandmux [-L NAME] %s\n  %s\n", verb->usage, verb->summary);
}
