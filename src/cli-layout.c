/*
 * cli-layout: `sandmux layout FILE` builds a session from a layout file.
 *
 * A layout is stored data, so its backend names are read leniently, as
 * the sandbox model prescribes for stored values: a missing or unknown
 * name means none and "docker" means native, each substitution logged
 * (backend_from_name).  Only the resolved, valid name is sent to the
 * server, which is strict.  Any other fault in the file is an error
 * naming the file and the field; nothing is created then.
 *
 *   {"session": "work", "cols": 160, "rows": 48,
 *    "panes": [{"backend": "none", "cwd": "/src", "command": ["bash"]},
 *              {"split": "h", "of": 0, "size": 40, "backend": "native",
 *               "profile": "terminal"}]}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "sandbox.h"
#include "xalloc.h"

#define LAYOUT_MAX_PANES 64

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap * 2 + 4096;
			text = xrealloc(text, cap + 1);
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0 && len < 1024 * 1024);
	fclose(f);
	text[len] = '\0';
	return text;
}

static int layout_fail(const char *path, const char *field, const char *why)
{
	fprintf(stderr, "sandmux: layout %s: %s: %s (layout_invalid)\n", path, field, why);
	return 1;
}

/* Check one pane entry before anything is created. */
static int layout_check_pane(const char *path, const cJSON *pane, int index)
{
	static const char *const known[] = { "backend", "cwd", "command", "split", "of",
					     "size",	"profile", "env", "remain" };
	char field[64];
	const cJSON *item;

	if (!cJSON_IsObject(pane)) {
		snprintf(field, sizeof field, "panes[%d]", index);
		return layout_fail(path, field, "must be an object");
	}
	cJSON_ArrayForEach(item, pane)
	{
		bool ok = false;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			ok = ok || strcmp(item->string, known[k]) == 0;
		snprintf(field, sizeof field, "panes[%d].%s", index, item->string);
		if (!ok)
			return layout_fail(path, field, "unknown key");
	}
	item = cJSON_GetObjectItem(pane, "split");
	snprintf(field, sizeof field, "panes[%d].split", index);
	if (index > 0 && (!cJSON_IsString(item) ||
			  (strcmp(item->valuestring, "h") != 0 && strcmp(item->valuestring, "v") != 0)))
		return layout_fail(path, field, "must be \"h\" or \"v\" for every pane after the first");
	item = cJSON_GetObjectItem(pane, "of");
	snprintf(field, sizeof field, "panes[%d].of", index);
	if (item != NULL && (!cJSON_IsNumber(item) || item->valueint < 0 || item->valueint >= index))
		return layout_fail(path, field, "must name an earlier pane by its index");
	item = cJSON_GetObjectItem(pane, "command");
	snprintf(field, sizeof field, "panes[%d].command", index);
	if (item != NULL && (!cJSON_IsArray(item) || cJSON_GetArraySize(item) == 0))
		return layout_fail(path, field, "must be a non-empty array of strings");
	return 0;
}

/* A pane's command as the server will run it.  "sandmux" as the program
 * is this sandmux, the one reading the layout, not whichever one PATH
 * finds (none, from a checkout; another version, installed): the pane
 * then talks to this server through $SANDMUX. */
static cJSON *layout_command(const cJSON *command)
{
	cJSON *argv = cJSON_Duplicate(command, 1);
	cJSON *first = cJSON_GetArrayItem(argv, 0);
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

	if (cJSON_IsString(first) && strcmp(first->valuestring, "sandmux") == 0 && len > 0) {
		self[len] = '\0';
		cJSON_ReplaceItemInArray(argv, 0, cJSON_CreateString(self));
	}
	return argv;
}

/* Copy a pane entry's fields into a request; the backend leniently. */
static void layout_fill_request(cJSON *req, const cJSON *pane)
{
	static const char *const copied[] = { "cwd", "profile", "env", "remain", "size" };
	const cJSON *backend = cJSON_GetObjectItem(pane, "backend");
	const cJSON *command = cJSON_GetObjectItem(pane, "command");

	for (size_t k = 0; k < sizeof copied / sizeof copied[0]; k++) {
		const cJSON *item = cJSON_GetObjectItem(pane, copied[k]);
		if (item != NULL)
			cJSON_AddItemToObject(req, copied[k], cJSON_Duplicate(item, 1));
	}
	if (command != NULL)
		cJSON_AddItemToObject(req, "argv", layout_command(command));
	cJSON_AddStringToObject(req, "backend",
				sandbox_backend_name(backend_from_name(
					cJSON_IsString(backend) ? backend->valuestring : NULL)));
}

static int layout_create(struct cli_conn *conn, const cJSON *root)
{
	const cJSON *panes = cJSON_GetObjectItem(root, "panes"), *pane;
	const cJSON *session = cJSON_GetObjectItem(root, "session");
	int ids[LAYOUT_MAX_PANES], index = 0, failed = 0;

	cJSON_ArrayForEach(pane, panes)
	{
		cJSON *req = cJSON_CreateObject(), *reply, *result, *error;
		const cJSON *of = cJSON_GetObjectItem(pane, "of");
		const cJSON *id;

		if (index == 0) {
			cJSON_AddStringToObject(req, "cmd", "new-session");
			if (cJSON_IsString(session))
				cJSON_AddStringToObject(req, "name", session->valuestring);
			cJSON_AddNumberToObject(req, "cols", cJSON_IsNumber(cJSON_GetObjectItem(root, "cols"))
								     ? cJSON_GetObjectItem(root, "cols")->valueint
								     : 160);
			cJSON_AddNumberToObject(req, "rows", cJSON_IsNumber(cJSON_GetObjectItem(root, "rows"))
								     ? cJSON_GetObjectItem(root, "rows")->valueint
								     : 48);
		} else {
			cJSON_AddStringToObject(req, "cmd", "split");
			cJSON_AddNumberToObject(req, "pane", ids[of ? of->valueint : index - 1]);
			cJSON_AddStringToObject(req, "direction",
						cJSON_GetObjectItem(pane, "split")->valuestring);
		}
		layout_fill_request(req, pane);
		reply = cli_request(conn, req);
		if (reply == NULL)
			return 1;
		result = cJSON_GetObjectItem(reply, "result");
		error = cJSON_GetObjectItem(reply, "error");
		id = cJSON_GetObjectItem(result ? result : error, "pane");
		if (!cJSON_IsNumber(id)) {
			fprintf(stderr, "sandmux: layout pane %d: %s\n", index,
				cJSON_GetStringValue(cJSON_GetObjectItem(error, "message")));
			cJSON_Delete(reply);
			return 1;
		}
		ids[index] = id->valueint;
		/* A pane that could not be contained stays as FAILED; say so
		 * and go on, the layout keeps its shape. */
		if (error != NULL) {
			failed++;
			fprintf(stderr, "sandmux: layout pane %d (%%%d): %s\n", index, id->valueint,
				cJSON_GetStringValue(cJSON_GetObjectItem(error, "message")));
		}
		printf("%%%d\n", id->valueint);
		cJSON_Delete(reply);
		index++;
	}
	return failed > 0 ? 1 : 0;
}

int verb_layout(int argc, char **argv)
{
	const char *path = argc == 2 ? argv[1] : NULL;
	struct cli_conn conn;
	cJSON *root, *panes, *pane;
	char *text;
	int index = 0, rc;

	if (path == NULL || strcmp(path, "--help") == 0) {
		cli_print_usage(cli_find_verb("layout"), path == NULL);
		return path == NULL ? 2 : 0;
	}
	if ((text = read_file(path)) == NULL)
		return layout_fail(path, "(file)", "cannot be read");
	root = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return layout_fail(path, "(file)", "is not a JSON object");
	}
	panes = cJSON_GetObjectItem(root, "panes");
	if (!cJSON_IsArray(panes) || cJSON_GetArraySize(panes) == 0 ||
	    cJSON_GetArraySize(panes) > LAYOUT_MAX_PANES) {
		cJSON_Delete(root);
		return layout_fail(path, "panes", "must be an array of 1 to 64 panes");
	}
	cJSON_ArrayForEach(pane, panes)
	{
		if (layout_check_pane(path, pane, index++) != 0) {
			cJSON_Delete(root);
			return 1;
		}
	}
	if (cli_connect(&conn, true) < 0) {
		cJSON_Delete(root);
		return 1;
	}
	rc = layout_create(&conn, root);
	cli_close(&conn);
	cJSON_Delete(root);
	return rc;
}
