/*
 * cli-layout: a session built from a session file (docs/sessions.md),
 * for `sandmux layout FILE`, `new --layout FILE` and `sandmux restore`.
 *
 * A layout file and a saved session are one format: windows, each a list
 * of panes in the order that rebuilds its splits, every pane with its
 * backend, profile, cwd and command; a saved session adds each pane's
 * label and last screen.  The whole file is checked before anything is
 * created, and a fault names the field (`windows[1].panes[2].size`), so a
 * corrupt file leaves the running server as it was.
 *
 * The file is stored data, so its backend names are read leniently, as
 * the sandbox model prescribes (backend_from_name: a missing or unknown
 * name means none, "docker" means native, each said on stderr), and the
 * resolved name is sent to the server, which is strict: a native or
 * microvm pane that cannot be had now is FAILED, never run as none
 * (docs/design.md invariant 4).
 *
 * A restore re-runs shells; a pane whose command is another program runs
 * its shell instead, its stored screen above a line saying so, unless the
 * user said to re-run it (cli-restore.c asks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "client.h"
#include "error.h"
#include "os.h"
#include "sandbox.h"
#include "session-file.h"
#include "xalloc.h"

#define LAYOUT_MAX_PANES 64
#define LAYOUT_MAX_WINDOWS 64
#define SESSION_FILE_MAX_BYTES (16 * 1024 * 1024)

static char *read_file(const char *path, size_t *len_out)
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
	} while (n > 0 && len <= SESSION_FILE_MAX_BYTES);
	fclose(f);
	text[len] = '\0';
	*len_out = len;
	return text;
}

/* Listing stored sessions reads them quietly: only what restores is shown. */
static bool quiet;

static int layout_fail(const char *path, const char *field, const char *why)
{
	if (!quiet)
		fprintf(stderr, "sandmux: %s: %s: %s (%s)\n", path, field, why,
			SM_ERR_LAYOUT_INVALID);
	return -1;
}

static bool is_string_array(const cJSON *item, int min, int max)
{
	const cJSON *s;

	if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) < min ||
	    cJSON_GetArraySize(item) > max)
		return false;
	cJSON_ArrayForEach(s, item)
	{
		if (!cJSON_IsString(s))
			return false;
	}
	return true;
}

/* One field of a pane entry: its type and range. */
static const char *pane_field_fault(const cJSON *item, int index)
{
	const char *key = item->string;

	/* null is what a stored session of another tool may hold for
	 * "unspecified": read as none, like a missing name. */
	if (strcmp(key, "backend") == 0)
		return cJSON_IsString(item) || cJSON_IsNull(item) ? NULL
								  : "must be a string or null";
	if (strcmp(key, "label") == 0)
		return cJSON_IsString(item) || cJSON_IsNull(item) ? NULL
								  : "must be a string or null";
	if (strcmp(key, "profile") == 0 || strcmp(key, "cwd") == 0)
		return cJSON_IsString(item) && item->valuestring[0] != '\0'
			   ? NULL
			   : "must be a non-empty string";
	if (strcmp(key, "command") == 0)
		return is_string_array(item, 1, 4096) ? NULL
						      : "must be a non-empty array of strings";
	if (strcmp(key, "screen") == 0)
		return is_string_array(item, 0, SESSION_SCREEN_LINES)
			   ? NULL
			   : "must be an array of at most 200 strings";
	if (strcmp(key, "split") == 0)
		return cJSON_IsString(item) && (strcmp(item->valuestring, "h") == 0 ||
						strcmp(item->valuestring, "v") == 0)
			   ? NULL
			   : "must be \"h\" or \"v\"";
	if (strcmp(key, "of") == 0)
		return cJSON_IsNumber(item) && item->valuedouble == item->valueint &&
			       item->valueint >= 0 && item->valueint < index
			   ? NULL
			   : "must name an earlier pane by its index";
	if (strcmp(key, "size") == 0)
		return cJSON_IsNumber(item) && item->valuedouble >= 1 && item->valuedouble <= 99
			   ? NULL
			   : "must be a percentage from 1 to 99";
	if (strcmp(key, "env") == 0)
		return cJSON_IsObject(item) ? NULL : "must be an object";
	if (strcmp(key, "remain") == 0 || strcmp(key, "feed") == 0)
		return cJSON_IsBool(item) ? NULL : "must be true or false";
	return "unknown key";
}

/* One field of a floating pane's entry: its box, else a pane's field;
 * it is made over the tiled panes, not by a split. */
static const char *float_field_fault(const cJSON *item)
{
	const char *key = item->string;

	if (strcmp(key, "x") == 0 || strcmp(key, "y") == 0)
		return cJSON_IsNumber(item) && item->valuedouble == item->valueint &&
			       item->valueint >= 0 && item->valueint <= 1000
			   ? NULL
			   : "must be a whole number from 0 to 1000";
	if (strcmp(key, "width") == 0 || strcmp(key, "height") == 0)
		return cJSON_IsNumber(item) && item->valuedouble == item->valueint &&
			       item->valueint >= 1 && item->valueint <= 1000
			   ? NULL
			   : "must be a whole number from 1 to 1000";
	if (strcmp(key, "split") == 0 || strcmp(key, "of") == 0 || strcmp(key, "size") == 0)
		return "a floating pane splits nothing";
	return pane_field_fault(item, 0);
}

static int check_floating(const char *path, int window, const cJSON *floating)
{
	char field[128];
	const cJSON *pane, *item;
	const char *fault;
	int index = 0;

	snprintf(field, sizeof field, "windows[%d].floating", window);
	if (!cJSON_IsArray(floating) || cJSON_GetArraySize(floating) > LAYOUT_MAX_PANES)
		return layout_fail(path, field, "must be an array of at most 64 panes");
	cJSON_ArrayForEach(pane, floating)
	{
		snprintf(field, sizeof field, "windows[%d].floating[%d]", window, index);
		if (!cJSON_IsObject(pane))
			return layout_fail(path, field, "must be an object");
		cJSON_ArrayForEach(item, pane)
		{
			snprintf(field, sizeof field, "windows[%d].floating[%d].%s", window, index,
				 item->string);
			if ((fault = float_field_fault(item)) != NULL)
				return layout_fail(path, field, fault);
		}
		index++;
	}
	return 0;
}

/* Check one pane entry before anything is created. */
static int check_pane(const char *path, const char *where, const cJSON *pane, int index)
{
	char field[128];
	const cJSON *item;
	const char *fault;

	if (!cJSON_IsObject(pane)) {
		snprintf(field, sizeof field, "%s[%d]", where, index);
		return layout_fail(path, field, "must be an object");
	}
	cJSON_ArrayForEach(item, pane)
	{
		snprintf(field, sizeof field, "%s[%d].%s", where, index, item->string);
		if ((fault = pane_field_fault(item, index)) != NULL)
			return layout_fail(path, field, fault);
	}
	snprintf(field, sizeof field, "%s[%d].split", where, index);
	if (index > 0 && cJSON_GetObjectItem(pane, "split") == NULL)
		return layout_fail(path, field, "is required for every pane after the first");
	if (index == 0 && cJSON_GetObjectItem(pane, "split") != NULL)
		return layout_fail(path, field, "the first pane of a window splits nothing");
	snprintf(field, sizeof field, "%s[%d].feed", where, index);
	if (index == 0 && cJSON_IsTrue(cJSON_GetObjectItem(pane, "feed")))
		return layout_fail(path, field,
				   "the feed is split from a pane, never a window's first");
	return 0;
}

static int check_panes(const char *path, const char *where, const cJSON *panes)
{
	const cJSON *pane;
	int index = 0;

	if (!cJSON_IsArray(panes) || cJSON_GetArraySize(panes) == 0 ||
	    cJSON_GetArraySize(panes) > LAYOUT_MAX_PANES)
		return layout_fail(path, where, "must be an array of 1 to 64 panes");
	cJSON_ArrayForEach(pane, panes)
	{
		if (check_pane(path, where, pane, index++) < 0)
			return -1;
	}
	return 0;
}

/* The version of the file being checked: what its windows may hold. */
static int file_version;

static int check_window(const char *path, const cJSON *window, int index)
{
	char where[64];
	const cJSON *item;

	snprintf(where, sizeof where, "windows[%d]", index);
	if (!cJSON_IsObject(window))
		return layout_fail(path, where, "must be an object");
	cJSON_ArrayForEach(item, window)
	{
		snprintf(where, sizeof where, "windows[%d].%s", index, item->string);
		if (strcmp(item->string, "name") == 0) {
			if (!cJSON_IsString(item) || strlen(item->valuestring) >= 64)
				return layout_fail(path, where,
						   "must be a string of at most 63 bytes");
		} else if (strcmp(item->string, "active") == 0) {
			if (!cJSON_IsBool(item))
				return layout_fail(path, where, "must be true or false");
		} else if (strcmp(item->string, "floating_hidden") == 0 && file_version >= 2) {
			if (!cJSON_IsBool(item))
				return layout_fail(path, where, "must be true or false");
		} else if (strcmp(item->string, "floating") == 0 && file_version >= 2) {
			if (check_floating(path, index, item) < 0)
				return -1;
		} else if (strcmp(item->string, "panes") != 0) {
			return layout_fail(path, where, "unknown key");
		}
	}
	snprintf(where, sizeof where, "windows[%d].panes", index);
	return check_panes(path, where, cJSON_GetObjectItem(window, "panes"));
}

static int check_number(const char *path, const cJSON *root, const char *key, int min, int max)
{
	const cJSON *item = cJSON_GetObjectItem(root, key);
	char why[64];

	if (item == NULL ||
	    (cJSON_IsNumber(item) && item->valuedouble >= min && item->valuedouble <= max))
		return 0;
	snprintf(why, sizeof why, "must be a number from %d to %d", min, max);
	return layout_fail(path, key, why);
}

/* The document as a whole: its version first, since a later version's
 * fields are not this one's to judge. */
static int check_document(const char *path, cJSON *root)
{
	static const char *const known[] = {"version", "saved",	  "session", "cols",
					    "rows",    "windows", "panes"};
	const cJSON *version = cJSON_GetObjectItem(root, "version"), *item;
	const cJSON *windows = cJSON_GetObjectItem(root, "windows");
	int index = 0;

	if (version != NULL && !cJSON_IsNumber(version))
		return layout_fail(path, "version", "must be a number");
	if (version != NULL && (version->valuedouble != version->valueint ||
				version->valueint < SESSION_FILE_VERSION_OLDEST ||
				version->valueint > SESSION_FILE_VERSION)) {
		if (!quiet)
			fprintf(stderr,
				"sandmux: %s: version: unknown version %g (this sandmux reads "
				"versions %d to %d) (%s)\n",
				path, version->valuedouble, SESSION_FILE_VERSION_OLDEST,
				SESSION_FILE_VERSION, SM_ERR_UNKNOWN_VERSION);
		return -1;
	}
	/* A layout file written by hand may leave it out: the newest. */
	file_version = version != NULL ? version->valueint : SESSION_FILE_VERSION;
	if (version == NULL && cJSON_GetObjectItem(root, "saved") != NULL)
		return layout_fail(path, "version", "a saved session must say its version");
	cJSON_ArrayForEach(item, root)
	{
		bool ok = false;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			ok = ok || strcmp(item->string, known[k]) == 0;
		if (!ok)
			return layout_fail(path, item->string, "unknown key");
	}
	item = cJSON_GetObjectItem(root, "session");
	if (item != NULL && (!cJSON_IsString(item) || item->valuestring[0] == '\0' ||
			     strlen(item->valuestring) >= 64 || strpbrk(item->valuestring, ":.%")))
		return layout_fail(path, "session",
				   "must be a name of 1 to 63 bytes without ':', '.' or '%'");
	if (check_number(path, root, "cols", 10, 1000) < 0 ||
	    check_number(path, root, "rows", 3, 1000) < 0)
		return -1;
	if ((windows != NULL) == (cJSON_GetObjectItem(root, "panes") != NULL))
		return layout_fail(path, "windows", "give either windows or panes (one window)");
	if (windows == NULL)
		return check_panes(path, "panes", cJSON_GetObjectItem(root, "panes"));
	if (!cJSON_IsArray(windows) || cJSON_GetArraySize(windows) == 0 ||
	    cJSON_GetArraySize(windows) > LAYOUT_MAX_WINDOWS)
		return layout_fail(path, "windows", "must be an array of 1 to 64 windows");
	cJSON_ArrayForEach(item, windows)
	{
		if (check_window(path, item, index++) < 0)
			return -1;
	}
	return 0;
}

static cJSON *file_read(const char *path);

cJSON *session_file_read(const char *path, bool quietly)
{
	cJSON *root;

	quiet = quietly;
	root = file_read(path);
	quiet = false;
	return root;
}

static cJSON *file_read(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	const char *end = NULL;
	cJSON *root;

	if (text == NULL) {
		if (!quiet)
			fprintf(stderr, "sandmux: %s: cannot be read: %s (%s)\n", path,
				strerror(errno), SM_ERR_LAYOUT_INVALID);
		return NULL;
	}
	if (len > SESSION_FILE_MAX_BYTES) {
		free(text);
		layout_fail(path, "(file)", "is larger than 16 MiB");
		return NULL;
	}
	root = cJSON_ParseWithOpts(text, &end, true);
	if (root == NULL) {
		/* No field can be named in text that does not parse: where it
		 * stops is the most a reader can be told, and whether that is
		 * on its last line (every file sandmux writes ends with one
		 * holding the closing brace): a file cut short. */
		size_t at = end != NULL && end >= text ? (size_t)(end - text) : 0;
		if (!quiet)
			fprintf(
			    stderr,
			    "sandmux: %s: (file): not valid JSON at byte %zu of %zu (%s) (%s)\n",
			    path, at, len,
			    strchr(text + at, '\n') == NULL ? "truncated" : "corrupt",
			    SM_ERR_LAYOUT_INVALID);
		free(text);
		return NULL;
	}
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		layout_fail(path, "(file)", "is not a JSON object");
		return NULL;
	}
	if (check_document(path, root) < 0) {
		cJSON_Delete(root);
		return NULL;
	}
	/* The one-window form is the windows form with one window. */
	if (cJSON_GetObjectItem(root, "panes") != NULL) {
		cJSON *window = cJSON_CreateObject();
		cJSON *windows = cJSON_AddArrayToObject(root, "windows");

		cJSON_AddItemToObject(window, "panes", cJSON_DetachItemFromObject(root, "panes"));
		cJSON_AddItemToArray(windows, window);
	}
	return root;
}

/* A pane's command as the server will run it.  "sandmux" as the program
 * is this sandmux, the one reading the file, not whichever one PATH
 * finds (none, from a checkout; another version, installed): the pane
 * then talks to this server through $SANDMUX. */
static cJSON *layout_command(const cJSON *command)
{
	cJSON *argv = cJSON_Duplicate(command, 1);
	cJSON *first = cJSON_GetArrayItem(argv, 0);
	char self[4096];

	if (cJSON_IsString(first) && strcmp(first->valuestring, "sandmux") == 0 &&
	    os_self_exe(self, sizeof self) == 0) {
		cJSON_ReplaceItemInArray(argv, 0, cJSON_CreateString(self));
	}
	return argv;
}

bool session_file_is_shell(const cJSON *command)
{
	static const char *const shells[] = {"sh",  "bash", "zsh",  "fish", "dash",
					     "ksh", "mksh", "tcsh", "csh"};
	const char *program, *slash, *own = getenv("SHELL");

	if (command == NULL)
		return true;
	if (cJSON_GetArraySize(command) != 1)
		return false;
	program = cJSON_GetStringValue(cJSON_GetArrayItem(command, 0));
	if (own != NULL && strcmp(program, own) == 0)
		return true;
	slash = strrchr(program, '/');
	program = slash != NULL ? slash + 1 : program;
	for (size_t k = 0; k < sizeof shells / sizeof shells[0]; k++)
		if (strcmp(program, shells[k]) == 0)
			return true;
	return false;
}

/* The line under a pane's stored screen when its command is not run
 * again: what it ran, and how to run it. */
static cJSON *restored_screen(const cJSON *pane)
{
	const cJSON *screen = cJSON_GetObjectItem(pane, "screen"), *word;
	cJSON *lines = screen != NULL ? cJSON_Duplicate(screen, 1) : cJSON_CreateArray();
	char note[1024];
	size_t n;

	while (cJSON_GetArraySize(lines) >= SESSION_SCREEN_LINES)
		cJSON_DeleteItemFromArray(lines, 0);
	n = (size_t)snprintf(note, sizeof note, "-- sandmux: restored; this pane ran:");
	cJSON_ArrayForEach(word, cJSON_GetObjectItem(pane, "command"))
	{
		if (n < sizeof note)
			n += (size_t)snprintf(note + n, sizeof note - n, " %s", word->valuestring);
	}
	if (n < sizeof note)
		snprintf(note + n, sizeof note - n, " (not run again) --");
	cJSON_AddItemToArray(lines, cJSON_CreateString(note));
	return lines;
}

/* A host pane whose directory is gone (a session saved days ago) opens
 * in $HOME, as tmux's panes do, and says so.  A sandboxed pane keeps its
 * directory and is FAILED with the reason: its directory is its work
 * tree, and $HOME in its place would widen what it may write. */
static void host_pane_directory(cJSON *req, int window, int index)
{
	const char *cwd = cJSON_GetStringValue(cJSON_GetObjectItem(req, "cwd"));
	const char *home = getenv("HOME");
	struct stat st;

	if (cwd == NULL || (stat(cwd, &st) == 0 && S_ISDIR(st.st_mode)))
		return;
	if (home == NULL || home[0] != '/')
		home = "/";
	fprintf(stderr, "sandmux: windows[%d].panes[%d]: directory %s is gone; opening in %s\n",
		window, index, cwd, home);
	cJSON_ReplaceItemInObject(req, "cwd", cJSON_CreateString(home));
}

/* Copy a pane entry's fields into a request; the backend leniently, and
 * the substitution said where the user sees it. */
static void fill_request(cJSON *req, const cJSON *pane, int window, int index, bool rerun)
{
	static const char *const copied[] = {"cwd", "profile", "env", "remain", "size"};
	const cJSON *backend = cJSON_GetObjectItem(pane, "backend");
	const cJSON *command = cJSON_GetObjectItem(pane, "command");
	const char *stored = cJSON_IsString(backend) ? backend->valuestring : NULL;
	enum sandbox_backend id;
	char here[4096];

	if (cJSON_IsTrue(cJSON_GetObjectItem(pane, "feed"))) {
		cJSON_AddBoolToObject(req, "feed", true);
		cJSON_AddStringToObject(req, "backend", "none");
		if (cJSON_GetObjectItem(pane, "size") != NULL)
			cJSON_AddNumberToObject(req, "size",
						cJSON_GetObjectItem(pane, "size")->valuedouble);
		return;
	}
	for (size_t k = 0; k < sizeof copied / sizeof copied[0]; k++) {
		const cJSON *item = cJSON_GetObjectItem(pane, copied[k]);
		if (item != NULL)
			cJSON_AddItemToObject(req, copied[k], cJSON_Duplicate(item, 1));
	}
	/* A pane without a directory opens where the command was typed, as
	 * `new` does. */
	if (cJSON_GetObjectItem(pane, "cwd") == NULL && getcwd(here, sizeof here) != NULL)
		cJSON_AddStringToObject(req, "cwd", here);
	if (command != NULL && rerun)
		cJSON_AddItemToObject(req, "argv", layout_command(command));
	else if (command != NULL)
		cJSON_AddItemToObject(req, "screen", restored_screen(pane));
	id = backend_from_name(stored);
	if (stored == NULL || strcmp(stored, sandbox_backend_name(id)) != 0)
		fprintf(stderr, "sandmux: windows[%d].panes[%d]: backend %s%s%s read as %s\n",
			window, index, stored ? "\"" : "", stored ? stored : "null or not given",
			stored ? "\"" : "", sandbox_backend_name(id));
	cJSON_AddStringToObject(req, "backend", sandbox_backend_name(id));
	if (id == SANDBOX_NONE)
		host_pane_directory(req, window, index);
}

/* Send one pane's request; its id, or -1 when no pane was made.  A pane
 * that could not be contained stays as FAILED: said, and the layout
 * keeps its shape.  The first learns the session's name. */
static int create_pane(struct cli_conn *conn, cJSON *req, int window, int index, int *failed,
		       char *session, size_t size)
{
	cJSON *reply = cli_request(conn, req), *result, *error, *answer;
	const cJSON *id;
	int pane;

	if (reply == NULL)
		return -1;
	result = cJSON_GetObjectItem(reply, "result");
	error = cJSON_GetObjectItem(reply, "error");
	answer = result != NULL ? result : error;
	id = cJSON_GetObjectItem(answer, "pane");
	if (!cJSON_IsNumber(id)) {
		fprintf(stderr, "sandmux: windows[%d].panes[%d]: %s\n", window, index,
			cJSON_GetStringValue(cJSON_GetObjectItem(error, "message")));
		cJSON_Delete(reply);
		return -1;
	}
	pane = id->valueint;
	if (session[0] == '\0' && cJSON_IsString(cJSON_GetObjectItem(answer, "session")))
		snprintf(session, size, "%s", cJSON_GetObjectItem(answer, "session")->valuestring);
	if (error != NULL) {
		(*failed)++;
		fprintf(stderr, "sandmux: windows[%d].panes[%d] (%%%d): FAILED: %s\n", window,
			index, pane, cJSON_GetStringValue(cJSON_GetObjectItem(error, "message")));
	}
	printf("%%%d\n", pane);
	cJSON_Delete(reply);
	return pane;
}

/* The request that makes a window and its first pane; a window is
 * shown when made unless one made earlier is the file's active one. */
static cJSON *window_request(const cJSON *root, const char *session, int window, bool shown)
{
	cJSON *req = cJSON_CreateObject();
	const cJSON *cols = cJSON_GetObjectItem(root, "cols"),
		    *rows = cJSON_GetObjectItem(root, "rows");

	if (window > 0) {
		cJSON_AddStringToObject(req, "cmd", "new-window");
		cJSON_AddStringToObject(req, "session", session);
		if (!shown)
			cJSON_AddBoolToObject(req, "detached", true);
		return req;
	}
	cJSON_AddStringToObject(req, "cmd", "new-session");
	if (session != NULL)
		cJSON_AddStringToObject(req, "name", session);
	cJSON_AddNumberToObject(req, "cols", cols != NULL ? cols->valueint : 160);
	cJSON_AddNumberToObject(req, "rows", rows != NULL ? rows->valueint : 48);
	return req;
}

/* Name the window of pane (kept from automatic-rename, as it was). */
static void name_window(struct cli_conn *conn, int pane, const cJSON *window)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(window, "name"));
	cJSON *req;

	if (name == NULL)
		return;
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "cmd", "rename-window");
	cJSON_AddNumberToObject(req, "pane", pane);
	cJSON_AddStringToObject(req, "name", name);
	cJSON_Delete(cli_request(conn, req));
}

/* One window: its first pane (the session's, for the first window), then
 * each split in the file's order; session is the session's name, the
 * file's or, when it gave none, the first new-session's answer. */
static int build_window(struct cli_conn *conn, const cJSON *root, const cJSON *window, int w,
			const bool *rerun, char *session, size_t size, int *failed, bool *shown)
{
	const cJSON *panes = cJSON_GetObjectItem(window, "panes"), *pane;
	int ids[LAYOUT_MAX_PANES], index = 0, tiled;

	cJSON_ArrayForEach(pane, panes)
	{
		const cJSON *of = cJSON_GetObjectItem(pane, "of");
		cJSON *req;

		if (index == 0) {
			req = window_request(root, session[0] != '\0' ? session : NULL, w, *shown);
		} else {
			req = cJSON_CreateObject();
			cJSON_AddStringToObject(req, "cmd", "split");
			cJSON_AddNumberToObject(req, "pane", ids[of ? of->valueint : index - 1]);
			cJSON_AddStringToObject(req, "direction",
						cJSON_GetObjectItem(pane, "split")->valuestring);
		}
		fill_request(req, pane, w, index, rerun == NULL || rerun[index]);
		if ((ids[index] = create_pane(conn, req, w, index, failed, session, size)) < 0)
			return -1;
		index++;
	}
	tiled = index;
	cJSON_ArrayForEach(pane, cJSON_GetObjectItem(window, "floating"))
	{
		static const char *const box[] = { "x", "y", "width", "height" };
		cJSON *req = cJSON_CreateObject();

		cJSON_AddStringToObject(req, "cmd", "split");
		cJSON_AddNumberToObject(req, "pane", ids[0]);
		cJSON_AddBoolToObject(req, "float", true);
		for (size_t k = 0; k < sizeof box / sizeof box[0]; k++)
			if (cJSON_GetObjectItem(pane, box[k]) != NULL)
				cJSON_AddNumberToObject(req, box[k],
							cJSON_GetObjectItem(pane, box[k])->valueint);
		fill_request(req, pane, w, index, rerun == NULL || rerun[index]);
		if (create_pane(conn, req, w, index, failed, session, size) < 0)
			return -1;
		index++;
	}
	if (index > tiled) {
		/* The focus where the tiled panes left it, as in a file
		 * without floating panes; or they are hidden, as saved. */
		cJSON *req = cJSON_CreateObject();
		bool hidden = cJSON_IsTrue(cJSON_GetObjectItem(window, "floating_hidden"));

		cJSON_AddStringToObject(req, "cmd", hidden ? "toggle-floating" : "select-pane");
		cJSON_AddNumberToObject(req, "pane", ids[tiled - 1]);
		cJSON_Delete(cli_request(conn, req));
	}
	name_window(conn, ids[0], window);
	*shown = *shown && !cJSON_IsTrue(cJSON_GetObjectItem(window, "active"));
	return 0;
}

int session_file_build(cJSON *root, const char *name, bool *const *rerun, char *session,
		       size_t size)
{
	const cJSON *window;
	struct cli_conn conn;
	int w = 0, failed = 0;
	/* Until the active window is made, each new one is shown (the
	 * first is); after it, none.  A file naming none: the first. */
	bool shown = false;

	snprintf(session, size, "%s",
		 name != NULL ? name
		 : cJSON_GetStringValue(cJSON_GetObjectItem(root, "session"))
		     ? cJSON_GetStringValue(cJSON_GetObjectItem(root, "session"))
		     : "");
	cJSON_ArrayForEach(window, cJSON_GetObjectItem(root, "windows"))
	{
		shown = shown || cJSON_IsTrue(cJSON_GetObjectItem(window, "active"));
	}
	if (cli_connect(&conn, true) < 0)
		return -1;
	cJSON_ArrayForEach(window, cJSON_GetObjectItem(root, "windows"))
	{
		if (build_window(&conn, root, window, w, rerun != NULL ? rerun[w] : NULL, session,
				 size, &failed, &shown) < 0) {
			cli_close(&conn);
			return -1;
		}
		w++;
	}
	cli_close(&conn);
	return failed;
}

int verb_layout(int argc, char **argv)
{
	const char *path = argc == 2 ? argv[1] : NULL;
	char session[64];
	cJSON *root;
	int rc;

	if (path == NULL || strcmp(path, "--help") == 0) {
		cli_print_usage(cli_find_verb("layout"), path == NULL);
		return path == NULL ? 2 : 0;
	}
	if ((root = session_file_read(path, false)) == NULL)
		return 1;
	rc = session_file_build(root, NULL, NULL, session, sizeof session);
	cJSON_Delete(root);
	return rc != 0 ? 1 : 0;
}

int session_file_new(const char *path, const char *name, bool detached)
{
	char session[64];
	cJSON *root = session_file_read(path, false);
	int failed;

	if (root == NULL)
		return 1;
	failed = session_file_build(root, name, NULL, session, sizeof session);
	cJSON_Delete(root);
	if (failed < 0)
		return 1;
	if (detached)
		return failed > 0 ? 1 : 0;
	return client_attach(cli_socket_path(), session, NULL);
}
