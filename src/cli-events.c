/*
 * cli-events: `sandmux events` prints sandbox events (lifecycle and
 * violations) as they are pushed by the server (`--pretty`: coloured by
 * action; `--feed`: the interactive feed pane, src/cli-feed.c), and `sandmux
 * demo` runs the isolation demo script.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "command.h"
#include "error.h"
#include "jsonl.h"
#include "os.h"
#include "record.h"
#include "sandbox.h"
#include "sanitise.h"
#include "theme.h"
#include "xalloc.h"


static bool pretty;

static void print_event(const cJSON *ev, bool json)
{
	const cJSON *t = cJSON_GetObjectItem(ev, "time");
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
	const char *backend = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "backend"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));
	const char *action = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "action"));
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "target"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "reason"));
	const char *scope = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "scope"));
	const cJSON *what = cJSON_GetObjectItem(ev, "what");
	const cJSON *count = cJSON_GetObjectItem(ev, "count");
	char stamp[32] = "-", times[24] = "";
	struct sandbox_violation v;
	struct sm_error err = {0};

	/* A violation reads as the one schema (sandbox.h); a line that is
	 * not one is printed by its fields, as any other event. */
	if (kind != NULL && strcmp(kind, "violation") == 0 &&
	    sandbox_violation_from_json(ev, &v, &err) == 0) {
		action = v.action;
		target = v.target;
		reason = v.reason;
		backend = v.backend;
	}

	/* A grant says what it allowed in "what": the host or path. */
	if (cJSON_IsObject(what)) {
		action = cJSON_GetStringValue(cJSON_GetObjectItem(what, "action"));
		target = cJSON_GetStringValue(cJSON_GetObjectItem(what, "host"));
		if (target == NULL)
			target = cJSON_GetStringValue(cJSON_GetObjectItem(what, "path"));
	}
	if (json) {
		jsonl_put(stdout, ev);
		fflush(stdout);
		return;
	}
	if (cJSON_IsNumber(t)) {
		time_t secs = (time_t)t->valuedouble;
		struct tm tm;
		localtime_r(&secs, &tm);
		strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
	}
	/* A line the server folded stands for that many violations. */
	if (cJSON_IsNumber(count) && count->valueint > 1)
		snprintf(times, sizeof times, " ×%d", count->valueint);
	if (pretty) {
		struct theme_style style = theme_event_style(kind, action);

		theme_put_sgr(stdout, &style);
	}
	/* Every string may be a pane's choice (sanitise.c): one line per
	 * event, and nothing in it the terminal would obey. */
	printf("%s %%%d ", stamp, cJSON_IsNumber(pane) ? pane->valueint : 0);
	sanitise_fputs(backend != NULL ? backend : "-", stdout);
	putchar(' ');
	sanitise_fputs(kind ? kind : "?", stdout);
	if (action != NULL) {
		putchar(' ');
		sanitise_fputs(action, stdout);
	}
	fputs(times, stdout);
	if (target != NULL) {
		putchar(' ');
		sanitise_fputs(target, stdout);
	}
	if (scope != NULL) {
		fputs(" (", stdout);
		sanitise_fputs(scope, stdout);
		putchar(')');
	}
	if (pretty)
		theme_put_sgr(stdout, &(const struct theme_style){0});
	putchar('\n');
	if (reason != NULL) {
		fputs("    reason: ", stdout);
		sanitise_fputs(reason, stdout);
		putchar('\n');
	}
	if (cJSON_IsNumber(cJSON_GetObjectItem(ev, "home_changed")))
		printf("    home layer: %s%d files changed, not on the host (sandmux changes)\n",
		       cJSON_IsTrue(cJSON_GetObjectItem(ev, "home_changed_more")) ? "at least " : "",
		       cJSON_GetObjectItem(ev, "home_changed")->valueint);
	fflush(stdout);
}

int cli_events(struct command_parsed *parsed)
{
	const cJSON *session_item = cJSON_GetObjectItem(parsed->request, "session");
	const char *session = cJSON_GetStringValue(session_item);
	bool follow = command_local(parsed, "follow") != NULL;
	bool json = command_local(parsed, "json") != NULL, eof = false;
	bool feed = command_local(parsed, "feed") != NULL;
	char *session_name;
	struct cli_conn conn;
	cJSON *req, *reply, *ev;

	pretty = command_local(parsed, "pretty") != NULL;
	follow = follow || pretty || feed;
	if (cli_connect(&conn, false) < 0)
		return 1;
	if (pretty) {
		theme_put_sgr(stdout, &(const struct theme_style){.attrs = THEME_ATTR_BOLD});
		fputs("time     pane backend event", stdout);
		theme_put_sgr(stdout, &(const struct theme_style){0});
		putchar('\n');
		fflush(stdout);
	}
	/* The request goes (and is freed) with cli_request: keep the name. */
	session_name = feed && session != NULL ? xstrdup(session) : NULL;
	req = parsed->request;
	parsed->request = NULL;
	reply = cli_request(&conn, req);
	if (reply == NULL || !cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"))) {
		const cJSON *error = cJSON_GetObjectItem(reply, "error");
		fprintf(stderr, "sandmux: subscribe failed: %s (%s)\n",
			cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"))
				? cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"))
				: "no reply",
			cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"))
				? cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"))
				: "error");
		cJSON_Delete(reply);
		free(session_name);
		cli_close(&conn);
		return 1;
	}
	if (feed) {
		const cJSON *started = cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"),
							   "server_started");
		double since = cJSON_IsNumber(started) ? started->valuedouble : 0;
		cJSON_Delete(reply);
		feed_run(&conn, session_name, since);
		free(session_name);
		cli_close(&conn);
		return 0;
	}
	cJSON_Delete(reply);
	/* Without --follow, print what arrives within a short quiet spell
	 * (the backlog) and stop. */
	while ((ev = cli_read_message(&conn, follow ? -1 : 300, &eof)) != NULL) {
		if (cJSON_GetObjectItem(ev, "event") != NULL)
			print_event(ev, json);
		cJSON_Delete(ev);
	}
	cli_close(&conn);
	return 0;
}

int verb_demo(int argc, char **argv)
{
	char exe[PATH_MAX], script[PATH_MAX + 64], dir[PATH_MAX];
	char **args;
	const char *record = NULL;

	if (os_self_exe(exe, sizeof exe) != 0)
		return 1;
	snprintf(dir, sizeof dir, "%s", exe);
	*strrchr(dir, '/') = '\0';
	/* build/sandmux finds examples/ beside build/; an installed binary
	 * finds PREFIX/share/sandmux/examples. */
	snprintf(script, sizeof script, "%s/../examples/demo-isolation.sh", dir);
	if (access(script, R_OK) != 0)
		snprintf(script, sizeof script, "%s/../share/sandmux/examples/demo-isolation.sh", dir);
	/* Not $SANDMUX: that says "inside a pane", and the script's attach
	 * would refuse as nested. */
	setenv("SANDMUX_BIN", exe, 1);
	args = xcalloc(argc + 4, sizeof *args);
	args[0] = "/bin/sh";
	args[1] = script;
	for (int i = 1, n = 2; i < argc; i++) {
		/* --record FILE: the whole demo, as the terminal shows it. */
		if (strcmp(argv[i], "--record") == 0 && i + 1 < argc) {
			record = argv[++i];
			continue;
		}
		args[n++] = argv[i];
	}
	if (record != NULL) {
		char path[PATH_MAX * 2], cwd[PATH_MAX];
		int rc;

		if (record[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
			snprintf(path, sizeof path, "%s", record);
		else
			snprintf(path, sizeof path, "%s/%s", cwd, record);
		/* Without a terminal the demo prints its panes and verdict;
		 * on the PTY it would take it for one and attach. */
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			int n = 2;

			while (args[n] != NULL)
				n++;
			args[n] = "--no-attach";
		}
		rc = record_terminal_run(path, args, "sandmux demo");
		free(args);
		return rc;
	}
	execv("/bin/sh", args);
	perror("sandmux: demo");
	return 1;
}
