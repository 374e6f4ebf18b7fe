/*
 * cli-allow: `sandmux allow -t PANE [--persist [--yes]] HOST|PATH`, the
 * command line's side of a grant (src/grant.c).  Without --persist the
 * host is allowed for the pane's session until it ends.  With it, the
 * host goes into the pane's profile in the config file: the diff is
 * shown first and written only after "y" at the terminal; --yes skips
 * the question, and is required when stdin is not a terminal (a script
 * must say so rather than have the config changed behind a pipe).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "command.h"
#include "error.h"

/* One request on its own connection: the result (in *reply, which the
 * caller frees), or NULL with the error printed. */
static const cJSON *allow_request(cJSON *req, cJSON **reply)
{
	struct cli_conn conn;
	const cJSON *error;

	*reply = NULL;
	if (cli_connect(&conn, false) < 0) {
		cJSON_Delete(req);
		return NULL;
	}
	*reply = cli_request(&conn, req);
	cli_close(&conn);
	if (*reply == NULL)
		return NULL;
	if (cJSON_IsTrue(cJSON_GetObjectItem(*reply, "ok")))
		return cJSON_GetObjectItem(*reply, "result");
	error = cJSON_GetObjectItem(*reply, "error");
	fprintf(stderr, "sandmux: %s (%s)\n",
		cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"))
			? cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"))
			: "request failed",
		cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"))
			? cJSON_GetStringValue(cJSON_GetObjectItem(error, "code"))
			: "error");
	return NULL;
}

static const char *field(const cJSON *result, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(result, key));

	return s != NULL ? s : "?";
}

/* Show the diff and ask.  true: write it. */
static bool confirmed(const cJSON *preview)
{
	char answer[16];

	printf("%s", field(preview, "diff"));
	printf("write this to %s? [y/N] ", field(preview, "config"));
	fflush(stdout);
	if (fgets(answer, sizeof answer, stdin) == NULL)
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

int cli_allow(struct command_parsed *parsed)
{
	cJSON *req = parsed->request, *reply = NULL;
	const cJSON *result;
	bool persist = cJSON_IsTrue(cJSON_GetObjectItem(req, "persist"));
	bool yes = command_local(parsed, "yes") != NULL;

	parsed->request = NULL;
	cli_allow_prepare(req, "cli");
	if (persist && !yes) {
		cJSON *preview_req = cJSON_Duplicate(req, true);

		/* The dry run first: what cannot be allowed at all (a host
		 * pane: invalid_state) is said as that, before any question. */
		cJSON_AddBoolToObject(preview_req, "dry_run", true);
		if ((result = allow_request(preview_req, &reply)) == NULL) {
			cJSON_Delete(reply);
			cJSON_Delete(req);
			return 1;
		}
		if (!isatty(STDIN_FILENO)) {
			fprintf(stderr, "sandmux: --persist changes the config: confirm at a terminal, "
					"or add --yes (%s)\n",
				SM_ERR_CONFIRM_NEEDED);
			cJSON_Delete(reply);
			cJSON_Delete(req);
			return 1;
		}
		if (!confirmed(result)) {
			fprintf(stderr, "sandmux: nothing written (%s)\n", SM_ERR_CONFIRM_NEEDED);
			cJSON_Delete(reply);
			cJSON_Delete(req);
			return 1;
		}
		cJSON_Delete(reply);
	}
	if ((result = allow_request(req, &reply)) == NULL) {
		cJSON_Delete(reply);
		return 1;
	}
	cli_print_allow(parsed, result, stdout);
	cJSON_Delete(reply);
	return 0;
}

/* What a grant did, from its result: the command line's line, and the
 * prompt's message. */
void cli_print_allow(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	(void)parsed;
	if (cJSON_GetObjectItem(result, "path") != NULL)
		fprintf(out, "allowed writes to %s in profile %s: %s written; new panes of %s get it\n",
			field(result, "path"), field(result, "profile"), field(result, "config"),
			field(result, "profile"));
	else if (cJSON_GetObjectItem(result, "config") != NULL)
		fprintf(out,
			"allowed %s in profile %s: %s written; new panes of %s get it, and session %s "
			"%s\n",
			field(result, "host"), field(result, "profile"), field(result, "config"),
			field(result, "profile"), field(result, "session"),
			cJSON_IsTrue(cJSON_GetObjectItem(result, "session_now"))
				? "has it now"
				: "goes without (its network is off)");
	else
		fprintf(out, "allowed %s for session %s until it ends\n", field(result, "host"),
			field(result, "session"));
}

/* An absolute path is a refused write's: its directory for the
 * profile's "writable" (only with --persist: a mount cannot change
 * under a running pane). */
void cli_allow_prepare(cJSON *req, const char *via)
{
	cJSON_AddStringToObject(req, "via", via);
	if (cJSON_GetStringValue(cJSON_GetObjectItem(req, "host"))[0] == '/') {
		cJSON_AddStringToObject(req, "path",
					cJSON_GetStringValue(cJSON_GetObjectItem(req, "host")));
		cJSON_DeleteItemFromObject(req, "host");
	}
}
