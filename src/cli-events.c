/*
 * cli-events: `sandmux events` prints sandbox events (lifecycle and
 * violations) as they are pushed by the server, and `sandmux demo` runs
 * the isolation demo script.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"

enum { OPT_FOLLOW = 1000, OPT_ACTION, OPT_JSON, OPT_HELP };

static void print_event(const cJSON *ev, bool json)
{
	const cJSON *t = cJSON_GetObjectItem(ev, "time");
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
	const cJSON *backend = cJSON_GetObjectItem(ev, "backend");
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));
	const char *action = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "action"));
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "target"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "reason"));
	char stamp[32] = "-";

	if (json) {
		char *text = cJSON_PrintUnformatted(ev);
		printf("%s\n", text);
		free(text);
		fflush(stdout);
		return;
	}
	if (cJSON_IsNumber(t)) {
		time_t secs = (time_t)t->valuedouble;
		struct tm tm;
		localtime_r(&secs, &tm);
		strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
	}
	printf("%s %%%d %s %s%s%s%s%s\n", stamp, cJSON_IsNumber(pane) ? pane->valueint : 0,
	       cJSON_IsString(backend) ? backend->valuestring : "-", kind ? kind : "?",
	       action ? " " : "", action ? action : "", target ? " " : "", target ? target : "");
	if (reason != NULL)
		printf("    reason: %s\n", reason);
	fflush(stdout);
}

int verb_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, OPT_FOLLOW }, { "action", required_argument, NULL, OPT_ACTION },
		{ "json", no_argument, NULL, OPT_JSON },     { "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *target = NULL, *action = NULL;
	bool follow = false, json = false, eof = false;
	struct cli_conn conn;
	cJSON *req, *reply, *ev;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+ft:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
		case OPT_FOLLOW:
			follow = true;
			break;
		case 't':
			target = optarg;
			break;
		case OPT_ACTION:
			action = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			cli_print_usage(cli_find_verb("events"), false);
			return 0;
		default:
			cli_print_usage(cli_find_verb("events"), true);
			return 2;
		}
	}
	if (cli_connect(&conn, false) < 0)
		return 1;
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "cmd", "subscribe");
	if (target != NULL)
		cJSON_AddNumberToObject(req, "pane", atoi(target[0] == '%' ? target + 1 : target));
	if (action != NULL)
		cJSON_AddStringToObject(req, "action", action);
	reply = cli_request(&conn, req);
	if (reply == NULL || !cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"))) {
		fprintf(stderr, "sandmux: subscribe failed\n");
		cJSON_Delete(reply);
		cli_close(&conn);
		return 1;
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
	char exe[PATH_MAX], script[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash;

	if (n < 0)
		return 1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	/* build/sandmux -> examples/ beside build/; installed -> share. */
	snprintf(script, sizeof script, "%s/../examples/demo-isolation.sh", exe);
	if (access(script, R_OK) != 0)
		snprintf(script, sizeof script, "%s/../share/sandmux/examples/demo-isolation.sh",
			 exe);
	setenv("SANDMUX", exe, 1);
	strcat(exe, "/sandmux");
	setenv("SANDMUX", exe, 1);
	execl("/bin/sh", "sh", script, (char *)NULL);
	perror("sandmux: demo");
	return 1;
}
