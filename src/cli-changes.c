/*
 * cli-changes: `sandmux changes` and `sandmux keep`, the user's side of
 * the copy-on-write home (backends/home-layer.h).
 *
 *   sandmux changes [-t PANE | --profile NAME] [--json]
 *   sandmux changes [-t PANE | --profile NAME] --diff PATH
 *   sandmux changes [-t PANE | --profile NAME] --discard [--yes]
 *   sandmux keep [-t PANE | --profile NAME] [--yes] PATH...
 *
 * What a pane wrote under $HOME sits in its profile's layer until the
 * user keeps it.  Keeping asks first, at a terminal, and says plainly
 * when the host will run the file; --yes answers for a script, and is
 * required when stdin is not a terminal.  The layer is read directly
 * from the state directory; -t asks the server which profile the pane
 * has.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "error.h"
#include "home-layer.h"
#include "jsonl.h"
#include "sanitise.h"
#include "server.h"

struct changes_args {
	const char *pane;    /* -t */
	const char *profile; /* --profile, or the pane's */
	const char *diff;    /* --diff PATH */
	bool discard, yes, json;
	char **paths; /* keep: the paths */
	int npaths;
};

static int fail(const char *code, const char *fmt, const char *arg)
{
	fputs("sandmux: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (%s)\n", code);
	return 1;
}

static int parse_args(int argc, char **argv, bool keep, struct changes_args *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if ((strcmp(arg, "-t") == 0 || strcmp(arg, "--target") == 0) && i + 1 < argc)
			a->pane = argv[++i];
		else if (strcmp(arg, "--profile") == 0 && i + 1 < argc)
			a->profile = argv[++i];
		else if (!keep && strcmp(arg, "--diff") == 0 && i + 1 < argc)
			a->diff = argv[++i];
		else if (!keep && strcmp(arg, "--discard") == 0)
			a->discard = true;
		else if (!keep && strcmp(arg, "--json") == 0)
			a->json = true;
		else if (strcmp(arg, "-y") == 0 || strcmp(arg, "--yes") == 0)
			a->yes = true;
		else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
			return -2;
		else if (keep && arg[0] != '-') {
			a->paths = argv + i;
			a->npaths = argc - i;
			break;
		} else
			return fail(SM_ERR_INVALID_ARGUMENT, "unknown argument %s", arg);
	}
	if (a->pane != NULL && a->profile != NULL)
		return fail(SM_ERR_INVALID_ARGUMENT, "%s", "-t and --profile: give one");
	if (keep && a->npaths == 0)
		return fail(SM_ERR_MISSING_FIELD, "%s", "keep: which paths?");
	if (a->diff != NULL && a->discard)
		return fail(SM_ERR_INVALID_ARGUMENT, "%s", "--diff and --discard: give one");
	return 0;
}

/* The profile of pane -t, from the server's listing. */
static int pane_profile(const char *target, char *out, size_t size)
{
	struct cli_conn conn;
	cJSON *req, *reply;
	const cJSON *session, *window, *pane;
	long id = strtol(target + (target[0] == '%'), NULL, 10);
	int rc = 1;

	if (cli_connect(&conn, false) < 0)
		return 1;
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "cmd", "list");
	reply = cli_request(&conn, req);
	cli_close(&conn);
	cJSON_ArrayForEach(session, cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"),
							 "sessions"))
		cJSON_ArrayForEach(window, cJSON_GetObjectItem(session, "windows"))
			cJSON_ArrayForEach(pane, cJSON_GetObjectItem(window, "panes"))
				if (cJSON_GetNumberValue(cJSON_GetObjectItem(pane, "id")) == id) {
					snprintf(out, size, "%s",
						 cJSON_GetStringValue(
						     cJSON_GetObjectItem(pane, "profile")));
					rc = 0;
				}
	cJSON_Delete(reply);
	if (rc != 0)
		fail(SM_ERR_NO_SUCH_PANE, "no pane %s", target);
	return rc;
}

/* The layer and the resolved $HOME it stands over. */
static int open_layer(struct changes_args *a, char *layer, size_t size, char home[PATH_MAX])
{
	static char profile[128];
	char root[PATH_MAX];
	struct sm_error err = {0};
	const char *h = getenv("HOME");

	if (a->pane != NULL) {
		if (pane_profile(a->pane, profile, sizeof profile) != 0)
			return 1;
		a->profile = profile;
	}
	if (a->profile == NULL)
		a->profile = "terminal";
	if (h == NULL || realpath(h, home) == NULL)
		return fail(SM_ERR_FAILED, "%s", "no usable $HOME");
	paths_home_layer_root(root, sizeof root);
	home_layer_set_root(root);
	if (home_layer_dir(a->profile, false, layer, size, &err) != 0)
		return fail(err.code, "%s", err.message);
	return 0;
}

/* PATH as the user wrote it (absolute, ~/..., or relative to the
 * current directory) relative to home; NULL when outside it. */
static const char *relative_to_home(const char *path, const char *home, char *buf, size_t size)
{
	char cwd[PATH_MAX];
	size_t n = strlen(home);

	if (strncmp(path, "~/", 2) == 0)
		return path + 2;
	if (path[0] != '/') {
		if (getcwd(cwd, sizeof cwd) == NULL)
			return NULL;
		snprintf(buf, size, "%s/%s", cwd, path);
		path = buf;
	}
	if (strncmp(path, home, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
		return NULL;
	return path + n + 1;
}

static bool ask(const char *question)
{
	char answer[16];

	fputs(question, stdout);
	fputs(" [y/N] ", stdout);
	fflush(stdout);
	return fgets(answer, sizeof answer, stdin) != NULL && (answer[0] == 'y' || answer[0] == 'Y');
}

static int list_changes(const struct changes_args *a, const char *layer, const char *home)
{
	struct home_changes c;
	struct sm_error err = {0};

	if (home_layer_changes(layer, home, &c, &err) != 0)
		return fail(err.code, "%s", err.message);
	if (a->json) {
		cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "changes");

		cJSON_AddStringToObject(root, "profile", a->profile);
		cJSON_AddStringToObject(root, "layer", layer);
		for (size_t i = 0; i < c.n; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "path", c.v[i].path);
			cJSON_AddStringToObject(o, "change", home_change_kind_name(c.v[i].kind));
			cJSON_AddBoolToObject(o, "directory", c.v[i].is_dir);
			cJSON_AddBoolToObject(o, "host_run", c.v[i].host_run);
			cJSON_AddItemToArray(list, o);
		}
		jsonl_put(stdout, root);
		cJSON_Delete(root);
	} else if (c.n == 0) {
		printf("profile %s: the home layer holds no change\n", a->profile);
	} else {
		printf("profile %s: %zu change%s in the home layer (the host has none of them)\n",
		       a->profile, c.n, c.n == 1 ? "" : "s");
		for (size_t i = 0; i < c.n; i++) {
			printf("  %-8s ~/", home_change_kind_name(c.v[i].kind));
			sanitise_fputs(c.v[i].path, stdout);
			printf("%s%s\n", c.v[i].is_dir ? "/" : "",
			       c.v[i].host_run ? "   [host-run: the host runs or reads it]" : "");
		}
		printf("keep one with `sandmux keep --profile %s PATH`, drop all with `sandmux changes "
		       "--profile %s --discard`\n",
		       a->profile, a->profile);
	}
	home_changes_free(&c);
	return 0;
}

/* diff -u of the host's file against the layer's (a deletion against
 * /dev/null), run as an argv, never through a shell. */
static int show_diff(const char *layer, const char *home, const char *path)
{
	char buf[PATH_MAX], host[PATH_MAX * 2], up[PATH_MAX * 2];
	const char *rel = relative_to_home(path, home, buf, sizeof buf);
	struct stat st;
	FILE *diff;
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	int status, out[2];

	if (rel == NULL)
		return fail(SM_ERR_INVALID_ARGUMENT, "%s is not under $HOME", path);
	snprintf(host, sizeof host, "%s/%s", home, rel);
	snprintf(up, sizeof up, "%s/upper/%s", layer, rel);
	if (lstat(up, &st) != 0)
		return fail(SM_ERR_NOT_IN_LAYER, "the layer holds no change at ~/%s", rel);
	if (S_ISCHR(st.st_mode))
		snprintf(up, sizeof up, "/dev/null");
	if (lstat(host, &st) != 0)
		snprintf(host, sizeof host, "/dev/null");
	fflush(stdout);
	if (pipe(out) != 0)
		return fail(SM_ERR_FAILED, "cannot run diff: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *argv[] = {"diff", "-u", "--label", "host", "--label", "layer", host, up, NULL};

		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	/* The layer's bytes are the pane's choice: each line goes through
	 * the one sanitiser, so a file holding escape sequences shows them
	 * as ?, never drives the reader's terminal. */
	if (pid > 0 && (diff = fdopen(out[0], "r")) != NULL) {
		while (getline(&line, &cap, diff) > 0) {
			line[strcspn(line, "\n")] = '\0';
			sanitise_fputs(line, stdout);
			putchar('\n');
		}
		free(line);
		fclose(diff);
	} else {
		close(out[0]);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return fail(SM_ERR_FAILED, "cannot run diff: %s", strerror(errno));
	/* diff: 0 same, 1 different, 2 trouble. */
	return WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? 0 : 1;
}

static int discard(const struct changes_args *a, const char *layer)
{
	struct sm_error err = {0};
	char question[256];

	if (!a->yes) {
		if (!isatty(STDIN_FILENO))
			return fail(SM_ERR_CONFIRM_NEEDED, "%s",
				    "--discard empties the layer: confirm at a terminal, or add --yes");
		snprintf(question, sizeof question,
			 "drop every change in profile %s's home layer?", a->profile);
		if (!ask(question))
			return fail(SM_ERR_CONFIRM_NEEDED, "%s", "nothing dropped");
	}
	if (home_layer_discard(layer, &err) != 0)
		return fail(err.code, "%s", err.message);
	printf("profile %s: the home layer is empty\n", a->profile);
	return 0;
}

/* Is the layer's change at rel one the host runs?  (The listing knows.) */
static bool change_of(const struct home_changes *c, const char *rel, bool *host_run)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, rel) == 0) {
			*host_run = c->v[i].host_run;
			return true;
		}
	return false;
}

static int keep(const struct changes_args *a, const char *layer, const char *home)
{
	struct home_changes c;
	struct sm_error err = {0};
	int rc = 0;

	if (!a->yes && !isatty(STDIN_FILENO))
		return fail(SM_ERR_CONFIRM_NEEDED, "%s",
			    "keep changes the host: confirm at a terminal, or add --yes");
	if (home_layer_changes(layer, home, &c, &err) != 0)
		return fail(err.code, "%s", err.message);
	for (int i = 0; i < a->npaths && rc == 0; i++) {
		char buf[PATH_MAX], question[PATH_MAX + 256];
		const char *rel = relative_to_home(a->paths[i], home, buf, sizeof buf);
		bool host_run = false;

		if (rel == NULL) {
			rc = fail(SM_ERR_INVALID_ARGUMENT, "%s is not under $HOME", a->paths[i]);
			break;
		}
		if (!change_of(&c, rel, &host_run)) {
			rc = fail(SM_ERR_NOT_IN_LAYER, "the layer holds no change at ~/%s", rel);
			break;
		}
		char *shown = sanitise_text(rel);

		snprintf(question, sizeof question, "copy ~/%s from the layer to the host?%s", shown,
			 host_run ? " The host runs this file: what the sandboxed pane wrote "
				    "will run outside any sandbox."
				  : "");
		if (!a->yes && !ask(question)) {
			printf("kept nothing at ~/%s\n", shown);
			free(shown);
			continue;
		}
		free(shown);
		if (home_layer_keep(layer, home, rel, &err) != 0) {
			rc = fail(err.code, "%s", err.message);
			break;
		}
		printf("kept ~/");
		sanitise_fputs(rel, stdout);
		printf(" on the host%s\n", host_run ? " (the host runs it from now on)" : "");
	}
	home_changes_free(&c);
	return rc;
}

static int usage(bool keep_verb)
{
	if (keep_verb)
		puts("usage: sandmux keep [-t PANE | --profile NAME] [-y|--yes] PATH...\n"
		     "  copy files a native pane wrote under $HOME from its profile's layer to "
		     "the host");
	else
		puts("usage: sandmux changes [-t PANE | --profile NAME] [--json | --diff PATH | "
		     "--discard [--yes]]\n"
		     "  what a profile's copy-on-write home holds against the host's $HOME");
	return 0;
}

int verb_changes(int argc, char **argv)
{
	struct changes_args a;
	char layer[PATH_MAX], home[PATH_MAX];
	int rc = parse_args(argc, argv, false, &a);

	if (rc == -2)
		return usage(false);
	if (rc != 0 || (rc = open_layer(&a, layer, sizeof layer, home)) != 0)
		return rc;
	if (a.diff != NULL)
		return show_diff(layer, home, a.diff);
	if (a.discard)
		return discard(&a, layer);
	return list_changes(&a, layer, home);
}

int verb_keep(int argc, char **argv)
{
	struct changes_args a;
	char layer[PATH_MAX], home[PATH_MAX];
	int rc = parse_args(argc, argv, true, &a);

	if (rc == -2)
		return usage(true);
	if (rc != 0 || (rc = open_layer(&a, layer, sizeof layer, home)) != 0)
		return rc;
	return keep(&a, layer, home);
}
