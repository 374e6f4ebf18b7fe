/*
 * cli-restore: `sandmux save` and `sandmux restore`, and the offer of
 * saved sessions that `sandmux` alone makes when no session runs
 * (docs/sessions.md).
 *
 * The server writes every session into the state directory's sessions/
 * (session-store.c); these verbs choose one, ask which of its commands
 * to run again, and build it through cli-layout.c.  A shell is always
 * started again; any other command only after the user said so, per
 * pane or for all at once, since a restored session may be days old and
 * its commands may do things (a build, a deploy, an agent with tools).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "client.h"
#include "error.h"
#include "sanitise.h"
#include "server.h"
#include "session-file.h"
#include "xalloc.h"

enum rerun_mode { RERUN_ASK, RERUN_ALL, RERUN_NONE };

#define STORE_MAX 64

struct stored_session {
	char name[64];
	char path[PATH_MAX];
	char saved[32];
	struct timespec written; /* the file's mtime: "saved" has whole seconds */
	int windows, panes;
};

static cJSON *request(const char *cmd)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, "cmd", cmd);
	return req;
}

/* The document written whole or not at all, private when it holds
 * screens (what the panes showed). */
static int write_document(const char *path, const cJSON *doc, mode_t mode)
{
	char tmp[PATH_MAX + 16];
	char *text = cJSON_Print(doc);
	FILE *out;
	int fd, rc;

	if (strcmp(path, "-") == 0) {
		rc = printf("%s\n", text) < 0 ? -1 : 0;
		free(text);
		return rc;
	}
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	rc = out != NULL && fprintf(out, "%s\n", text) > 0 && fflush(out) == 0 &&
		     fsync(fileno(out)) == 0
		 ? 0
		 : -1;
	free(text);
	if (out != NULL && fclose(out) != 0)
		rc = -1;
	else if (out == NULL && fd >= 0)
		close(fd);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "sandmux: %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	return rc;
}

static int save_usage(void)
{
	cli_print_usage(cli_find_verb("save"), true);
	return 2;
}

int verb_save(int argc, char **argv)
{
	const char *session = NULL, *file = NULL;
	bool layout = false;
	struct cli_conn conn;
	cJSON *req, *reply, *result;
	int rc = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			cli_print_usage(cli_find_verb("save"), false);
			return 0;
		} else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			session = argv[++i];
		} else if (strcmp(argv[i], "--layout") == 0) {
			layout = true;
		} else if (argv[i][0] == '-' && strcmp(argv[i], "-") != 0) {
			return save_usage();
		} else if (file == NULL) {
			file = argv[i];
		} else {
			return save_usage();
		}
	}
	if (cli_connect(&conn, false) < 0)
		return 1;
	req = request("save");
	if (session != NULL)
		cJSON_AddStringToObject(req, "session", session);
	if (layout)
		cJSON_AddBoolToObject(req, "layout", true);
	/* No file: into the state directory, where restore finds it. */
	if (file == NULL && !layout)
		cJSON_AddBoolToObject(req, "store", true);
	reply = cli_request(&conn, req);
	cli_close(&conn);
	result = cJSON_GetObjectItem(reply, "result");
	if (result == NULL) {
		fprintf(stderr, "sandmux: save: %s (%s)\n",
			cJSON_GetStringValue(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "message")),
			cJSON_GetStringValue(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code")));
	} else if (file == NULL && !layout) {
		printf("saved %s to %s\n",
		       cJSON_GetStringValue(cJSON_GetObjectItem(result, "session")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(result, "path")));
		rc = 0;
	} else {
		rc = write_document(file != NULL ? file : "-",
				    cJSON_GetObjectItem(result, "document"),
				    layout ? 0644 : 0600) < 0;
	}
	cJSON_Delete(reply);
	return rc;
}

/* The sessions running now, by name. */
static cJSON *running_sessions(void)
{
	struct cli_conn conn;
	cJSON *reply, *names = cJSON_CreateArray();
	const cJSON *s;

	/* No server: nothing runs, and nothing to say. */
	if (!cli_server_answers() || cli_connect(&conn, false) < 0)
		return names;
	reply = cli_request(&conn, request("list"));
	cli_close(&conn);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "sessions"))
	{
		cJSON_AddItemToArray(names, cJSON_CreateString(cJSON_GetStringValue(
						cJSON_GetObjectItem(s, "name"))));
	}
	cJSON_Delete(reply);
	return names;
}

static bool name_in(const cJSON *names, const char *name)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, names)
	{
		if (strcmp(n->valuestring, name) == 0)
			return true;
	}
	return false;
}

static bool newer(const struct stored_session *a, const struct stored_session *b)
{
	return a->written.tv_sec != b->written.tv_sec ? a->written.tv_sec > b->written.tv_sec
						      : a->written.tv_nsec > b->written.tv_nsec;
}

/* The stored sessions not running now, newest first.  A file that
 * cannot be read is left out here; restore NAME says why. */
static int stored_sessions(struct stored_session *out, int max)
{
	char dir[PATH_MAX];
	cJSON *running;
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (session_store_dir(dir, sizeof dir) < 0 || (d = opendir(dir)) == NULL)
		return 0;
	running = running_sessions();
	while ((e = readdir(d)) != NULL && n < max) {
		size_t len = strlen(e->d_name);
		struct stored_session *s = &out[n];
		const cJSON *w;
		cJSON *root;
		struct stat st;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(s->path, sizeof s->path, "%s/%s", dir, e->d_name);
		root = session_file_read(s->path, true);
		if (root == NULL || !cJSON_IsString(cJSON_GetObjectItem(root, "session")) ||
		    name_in(running, cJSON_GetObjectItem(root, "session")->valuestring)) {
			cJSON_Delete(root);
			continue;
		}
		snprintf(s->name, sizeof s->name, "%s",
			 cJSON_GetObjectItem(root, "session")->valuestring);
		snprintf(s->saved, sizeof s->saved, "%s",
			 cJSON_IsString(cJSON_GetObjectItem(root, "saved"))
			     ? cJSON_GetObjectItem(root, "saved")->valuestring
			     : "?");
		s->windows = s->panes = 0;
		s->written = (struct timespec){0};
		if (stat(s->path, &st) == 0)
			s->written = st.st_mtim;
		cJSON_ArrayForEach(w, cJSON_GetObjectItem(root, "windows"))
		{
			s->windows++;
			s->panes += cJSON_GetArraySize(cJSON_GetObjectItem(w, "panes")) +
				    cJSON_GetArraySize(cJSON_GetObjectItem(w, "floating"));
		}
		cJSON_Delete(root);
		n++;
	}
	closedir(d);
	cJSON_Delete(running);
	for (int i = 1; i < n; i++) /* newest first */
		for (int j = i; j > 0 && newer(&out[j], &out[j - 1]); j--) {
			struct stored_session t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void print_stored(const struct stored_session *list, int n, FILE *out)
{
	for (int i = 0; i < n; i++) {
		fprintf(out, "  %d  ", i + 1);
		sanitise_fputs(list[i].name, out);
		fprintf(out, "  %d window%s, %d pane%s, saved %s\n", list[i].windows,
			list[i].windows == 1 ? "" : "s", list[i].panes,
			list[i].panes == 1 ? "" : "s", list[i].saved);
	}
}

/* One line from the terminal, trimmed; false at end of input. */
static bool read_answer(char *buf, size_t size)
{
	size_t len;

	fflush(stdout);
	if (fgets(buf, (int)size, stdin) == NULL)
		return false;
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return true;
}

/* Which commands run again: every shell; the others as mode says, or
 * as the user answers for each (y, n) or for all the rest (a, s). */
static bool **ask_reruns(cJSON *root, enum rerun_mode mode)
{
	const cJSON *windows = cJSON_GetObjectItem(root, "windows"), *w, *p;
	bool **rerun = xcalloc((size_t)cJSON_GetArraySize(windows) + 1, sizeof *rerun);
	int wi = 0;

	cJSON_ArrayForEach(w, windows)
	{
		/* The tiled panes, then the floating ones, in one index. */
		const cJSON *lists[2] = { cJSON_GetObjectItem(w, "panes"),
					  cJSON_GetObjectItem(w, "floating") };
		int pi = 0;

		rerun[wi] = xcalloc((size_t)(cJSON_GetArraySize(lists[0]) +
					     cJSON_GetArraySize(lists[1])),
				    sizeof **rerun);
		for (int li = 0; li < 2; li++) {
			int shown_index = 0;

			cJSON_ArrayForEach(p, lists[li])
			{
				const cJSON *command = cJSON_GetObjectItem(p, "command"), *word;
				char answer[64];

				rerun[wi][pi] = true;
				if (!session_file_is_shell(command) && mode == RERUN_NONE)
					rerun[wi][pi] = false;
				if (!session_file_is_shell(command) && mode == RERUN_ASK) {
					printf("window %d, %spane %d ran:", wi,
					       li == 1 ? "floating " : "", shown_index);
					cJSON_ArrayForEach(word, command)
					{
						putchar(' ');
						sanitise_fputs(word->valuestring, stdout);
					}
					printf("\nRun it again? [y]es, [n]o, [a]ll the rest, [s]kip "
					       "all the rest (default no): ");
					if (!read_answer(answer, sizeof answer))
						answer[0] = 's';
					rerun[wi][pi] = answer[0] == 'y' || answer[0] == 'a';
					mode = answer[0] == 'a'	  ? RERUN_ALL
					       : answer[0] == 's' ? RERUN_NONE
								  : mode;
				}
				pi++;
				shown_index++;
			}
		}
		wi++;
	}
	return rerun;
}

static void free_reruns(bool **rerun)
{
	for (bool **r = rerun; r != NULL && *r != NULL; r++)
		free(*r);
	free(rerun);
}

/* Restore the session file at path: nothing is made when its name runs
 * already or the file is refused.  Returns the verb's exit status. */
static int restore_file(const char *path, const char *name, enum rerun_mode mode, bool attach)
{
	cJSON *root = session_file_read(path, false), *running;
	const char *session;
	char built[64];
	bool **rerun;
	int failed;

	if (root == NULL)
		return 1;
	session = name != NULL ? name : cJSON_GetStringValue(cJSON_GetObjectItem(root, "session"));
	running = running_sessions();
	if (session != NULL && name_in(running, session)) {
		fprintf(
		    stderr,
		    "sandmux: restore: session %s is running; nothing restored (restore -s NAME "
		    "restores it under another name) (%s)\n",
		    session, SM_ERR_DUPLICATE_SESSION);
		cJSON_Delete(running);
		cJSON_Delete(root);
		return 1;
	}
	cJSON_Delete(running);
	if (mode == RERUN_ASK && !isatty(0)) {
		fprintf(stderr, "sandmux: restore: no terminal to ask; commands other than shells "
				"are not run again (--rerun all runs them)\n");
		mode = RERUN_NONE;
	}
	rerun = ask_reruns(root, mode);
	failed = session_file_build(root, name, (bool *const *)rerun, built, sizeof built);
	free_reruns(rerun);
	cJSON_Delete(root);
	if (failed < 0)
		return 1;
	fprintf(stderr, "sandmux: restored session %s%s\n", built,
		failed > 0 ? " (some panes FAILED: see above)" : "");
	if (attach)
		return client_attach(cli_socket_path(), built, NULL);
	return failed > 0 ? 1 : 0;
}

/* A stored session's file, by its name. */
static int stored_path(const char *name, char *out, size_t size)
{
	if (session_store_path(name, out, size) < 0 || access(out, F_OK) < 0) {
		fprintf(stderr,
			"sandmux: restore: no saved session %s (sandmux restore lists them) (%s)\n",
			name, SM_ERR_NO_SUCH_SESSION);
		return -1;
	}
	return 0;
}

static int restore_usage(void)
{
	cli_print_usage(cli_find_verb("restore"), true);
	return 2;
}

static bool parse_rerun(const char *text, enum rerun_mode *mode)
{
	if (strcmp(text, "ask") == 0)
		*mode = RERUN_ASK;
	else if (strcmp(text, "all") == 0)
		*mode = RERUN_ALL;
	else if (strcmp(text, "none") == 0)
		*mode = RERUN_NONE;
	else
		return false;
	return true;
}

int verb_restore(int argc, char **argv)
{
	const char *what = NULL, *name = NULL;
	enum rerun_mode mode = RERUN_ASK;
	bool detached = false;
	struct stored_session list[STORE_MAX];
	char path[PATH_MAX];
	int n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			cli_print_usage(cli_find_verb("restore"), false);
			return 0;
		} else if (strcmp(argv[i], "-d") == 0) {
			detached = true;
		} else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
			name = argv[++i];
		} else if (strcmp(argv[i], "--rerun") == 0 && i + 1 < argc) {
			if (!parse_rerun(argv[++i], &mode)) {
				fprintf(stderr,
					"sandmux: restore: --rerun takes ask, all or none (%s)\n",
					SM_ERR_INVALID_ARGUMENT);
				return 2;
			}
		} else if (argv[i][0] == '-' || what != NULL) {
			return restore_usage();
		} else {
			what = argv[i];
		}
	}
	detached = detached || !isatty(0) || !isatty(1);
	/* A FILE is a path: it has a '/' or ends in ".json", which no
	 * session name can (no '.'); anything else names a stored session. */
	if (what != NULL && (strchr(what, '/') != NULL ||
			     (strlen(what) > 5 && strcmp(what + strlen(what) - 5, ".json") == 0)))
		return restore_file(what, name, mode, !detached);
	if (what != NULL)
		return stored_path(what, path, sizeof path) < 0
			   ? 1
			   : restore_file(path, name, mode, !detached);
	n = stored_sessions(list, STORE_MAX);
	if (n == 0) {
		fprintf(stderr, "sandmux: restore: no saved sessions that are not running\n");
		return 1;
	}
	if (n > 1 && isatty(0) && isatty(1)) {
		char answer[64];
		int choice;

		printf("saved sessions:\n");
		print_stored(list, n, stdout);
		printf("Restore which? Its number (Enter: none): ");
		if (!read_answer(answer, sizeof answer) || answer[0] == '\0')
			return 0;
		choice = atoi(answer);
		if (choice < 1 || choice > n) {
			fprintf(stderr, "sandmux: restore: no saved session %s (%s)\n", answer,
				SM_ERR_NO_SUCH_SESSION);
			return 1;
		}
		return restore_file(list[choice - 1].path, name, mode, !detached);
	}
	if (n > 1) {
		printf("saved sessions (sandmux restore NAME):\n");
		print_stored(list, n, stdout);
		return 0;
	}
	return restore_file(list[0].path, name, mode, !detached);
}

/* `sandmux` alone with no session running: the saved sessions are
 * offered before a new one is made, as zellij lists resurrectable
 * sessions.  Returns -1 to go on with a new session, else the exit
 * status of the restore. */
int cli_offer_restore(void)
{
	struct stored_session list[STORE_MAX];
	char answer[64];
	int n, choice;

	if (!isatty(0) || !isatty(1) || (n = stored_sessions(list, STORE_MAX)) == 0)
		return -1;
	printf("sandmux: saved sessions from an earlier server:\n");
	print_stored(list, n, stdout);
	printf("Restore one? Its number, or Enter for a new session: ");
	if (!read_answer(answer, sizeof answer) || answer[0] == '\0')
		return -1;
	choice = atoi(answer);
	if (choice < 1 || choice > n) {
		printf("sandmux: no saved session %s; starting a new session\n", answer);
		return -1;
	}
	return restore_file(list[choice - 1].path, NULL, RERUN_ASK, true);
}
