/*
 * cli-record: the `record` verb on the command line and its request as
 * both front ends send it (FILE made absolute from the caller's working
 * directory, since the server's is not the user's), and its result
 * printed.  The recorder itself is the server's (record.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "command.h"
#include "error.h"

int record_prepare_in(struct command_parsed *parsed, const char *cwd_given, struct sm_error *err)
{
	cJSON *req = parsed->request;
	bool stop = cJSON_IsTrue(cJSON_GetObjectItem(req, "stop"));
	char cwd[PATH_MAX], path[PATH_MAX * 2];

	if (stop != (parsed->nwords == 0) || parsed->nwords > 1) {
		sm_error_set(err, SM_ERR_INVALID_COMMAND, "record takes a FILE, or --stop without one");
		return -1;
	}
	if (stop)
		return 0;
	/* The server's working directory is not the user's. */
	if (parsed->words[0][0] == '/')
		snprintf(path, sizeof path, "%s", parsed->words[0]);
	else if (cwd_given != NULL && cwd_given[0] == '/')
		snprintf(path, sizeof path, "%s/%s", cwd_given, parsed->words[0]);
	else if (getcwd(cwd, sizeof cwd) != NULL)
		snprintf(path, sizeof path, "%s/%s", cwd, parsed->words[0]);
	else {
		sm_error_set(err, SM_ERR_FAILED, "record: %s", strerror(errno));
		return -1;
	}
	cJSON_AddStringToObject(req, "path", path);
	return 0;
}

void record_print(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	(void)parsed;
	if (cJSON_GetObjectItem(result, "seconds") != NULL)
		fprintf(out, "recording of %%%d stopped: %s (%.1f s, %d markers)\n",
			cJSON_GetObjectItem(result, "pane")->valueint,
			cJSON_GetStringValue(cJSON_GetObjectItem(result, "path")),
			cJSON_GetObjectItem(result, "seconds")->valuedouble,
			cJSON_GetObjectItem(result, "markers")->valueint);
	else
		fprintf(out, "recording %%%d to %s\n", cJSON_GetObjectItem(result, "pane")->valueint,
			cJSON_GetStringValue(cJSON_GetObjectItem(result, "path")));
}

int cli_record(struct command_parsed *parsed)
{
	cJSON *req, *reply = NULL, *result;
	struct sm_error err = { 0 };

	if (record_prepare_in(parsed, NULL, &err) < 0) {
		fprintf(stderr, "sandmux: %s (%s)\n", err.message, err.code);
		if (strcmp(err.code, SM_ERR_INVALID_COMMAND) == 0) {
			cli_print_usage(parsed->entry, true);
			return 2;
		}
		return 1;
	}
	req = parsed->request;
	parsed->request = NULL;
	result = cli_run_request(req, false, &reply);
	if (result != NULL)
		record_print(parsed, result, stdout);
	cJSON_Delete(reply);
	return result != NULL ? 0 : 1;
}
