/*
 * config-edit: a profile written into the config after a diff and a
 * confirmation.  See config-edit.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config-edit.h"
#include "config.h"
#include "error.h"
#include "xalloc.h"

#define CONFIG_EDIT_MAX (1024 * 1024) /* as config.c reads at most */

cJSON *config_edit_read(const char *path, struct sm_error *err)
{
	FILE *f = fopen(path, "r");
	char *text = xmalloc(CONFIG_EDIT_MAX + 1);
	size_t len;
	cJSON *json;

	if (f == NULL) {
		free(text);
		if (errno == ENOENT)
			return cJSON_CreateObject();
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: %s", path, strerror(errno));
		return NULL;
	}
	len = fread(text, 1, CONFIG_EDIT_MAX + 1, f);
	fclose(f);
	if (len > CONFIG_EDIT_MAX) {
		free(text);
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: larger than 1 MiB", path);
		return NULL;
	}
	text[len] = '\0';
	json = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(json)) {
		cJSON_Delete(json);
		sm_error_set(err, SM_ERR_CONFIG_PARSE_ERROR, "%s: not a JSON object", path);
		return NULL;
	}
	return json;
}

int config_edit_name_check(const char *name, struct sm_error *err)
{
	size_t n = strlen(name);
	bool ok = n >= 1 && n <= 32;

	for (size_t i = 0; ok && i < n; i++)
		ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		     (name[i] >= '0' && name[i] <= '9') || name[i] == '-' || name[i] == '_';
	if (!ok || strcmp(name, "terminal") == 0 || strcmp(name, "agent") == 0) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID,
			     "\"%.40s\" cannot be a profile's name (1 to 32 letters, digits, - and "
			     "_; terminal and agent are built in)",
			     name);
		return -1;
	}
	return 0;
}

/* --- the diff ------------------------------------------------------------------ */

struct lines {
	char **v;
	size_t n;
};

struct diff_op {
	char op; /* ' ', '-', '+' */
	const char *line;
};

/* text cut into lines, in place. */
static struct lines split_lines(char *text)
{
	struct lines l = {0};

	for (char *p = text; *p != '\0';) {
		char *nl = strchr(p, '\n');

		l.v = xrealloc(l.v, (l.n + 1) * sizeof *l.v);
		l.v[l.n++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return l;
}

/* A line diff (longest common subsequence) with three lines of context
 * around each change, "-" old, "+" new.  Configs are small; a huge one
 * is shown as all old then all new. */
static void print_diff(FILE *out, const char *before, const char *after)
{
	char *a_text = xstrdup(before), *b_text = xstrdup(after);
	struct lines a = split_lines(a_text), b = split_lines(b_text);
	size_t w = b.n + 1, i = 0, j = 0, nops = 0, shown = 0;
	unsigned *lcs = a.n * b.n <= 4000000 ? xcalloc((a.n + 1) * w, sizeof *lcs) : NULL;
	struct diff_op *ops = xcalloc(a.n + b.n + 1, sizeof *ops);

	for (size_t x = a.n; lcs != NULL && x-- > 0;)
		for (size_t y = b.n; y-- > 0;) {
			unsigned skip_a = lcs[(x + 1) * w + y], skip_b = lcs[x * w + y + 1];

			lcs[x * w + y] = strcmp(a.v[x], b.v[y]) == 0 ? lcs[(x + 1) * w + y + 1] + 1
					 : skip_a > skip_b	     ? skip_a
								     : skip_b;
		}
	while (i < a.n || j < b.n) {
		if (lcs != NULL && i < a.n && j < b.n && strcmp(a.v[i], b.v[j]) == 0) {
			ops[nops++] = (struct diff_op){' ', a.v[i++]};
			j++;
		} else if (j < b.n && (i == a.n || (lcs != NULL &&
						    lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]))) {
			ops[nops++] = (struct diff_op){'+', b.v[j++]};
		} else {
			ops[nops++] = (struct diff_op){'-', a.v[i++]};
		}
	}
	for (size_t k = 0; k < nops; k++) {
		bool near = false;

		for (size_t d = k >= 3 ? k - 3 : 0; d < nops && d <= k + 3; d++)
			near = near || ops[d].op != ' ';
		if (!near)
			continue;
		if (shown > 0 && k > shown)
			fprintf(out, "  ...\n");
		fprintf(out, "%c %s\n", ops[k].op, ops[k].line);
		shown = k + 1;
	}
	free(ops);
	free(lcs);
	free(a.v);
	free(b.v);
	free(a_text);
	free(b_text);
}

/* --- writing -------------------------------------------------------------------- */

/* A "y" or "yes" line on stdin (the terminal, or a script's answer). */
static bool confirmed(const char *name, const char *path)
{
	char answer[16];

	fprintf(stderr, "Write profile %s to %s? [y/N] ", name, path);
	fflush(stderr);
	if (fgets(answer, sizeof answer, stdin) == NULL)
		return false;
	answer[strcspn(answer, "\n")] = '\0';
	return strcmp(answer, "y") == 0 || strcmp(answer, "Y") == 0 || strcmp(answer, "yes") == 0;
}

/* text into a new file beside path (0600, never through a link), checked
 * as --check-config would, then renamed onto path. */
static int replace_file(const char *path, const char *text, struct sm_error *err)
{
	char dir_buf[PATH_MAX], tmp[PATH_MAX + 32];
	struct config check;
	size_t len = strlen(text);
	int fd;

	snprintf(dir_buf, sizeof dir_buf, "%s", path);
	snprintf(tmp, sizeof tmp, "%s/.config.json.XXXXXX", dirname(dir_buf));
	if (mkdir(dir_buf, 0700) != 0 && errno != EEXIST) {
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: %s", dir_buf, strerror(errno));
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) != 0) {
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "cannot write %s: %s", tmp,
			     strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	close(fd);
	config_defaults(&check);
	if (config_load(tmp, &check, err) != 0) {
		unlink(tmp);
		return -1;
	}
	config_free(&check);
	if (rename(tmp, path) != 0) {
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "cannot replace %s: %s", path,
			     strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int config_edit_set_profile(const char *name, const cJSON *profile, bool yes, struct sm_error *err)
{
	char path[PATH_MAX];
	cJSON *config, *profiles;
	char *before, *after;
	int rc = -1;

	if (config_edit_name_check(name, err) != 0)
		return -1;
	config_default_path(path, sizeof path);
	if ((config = config_edit_read(path, err)) == NULL)
		return -1;
	before = cJSON_Print(config);
	profiles = cJSON_GetObjectItemCaseSensitive(config, "profiles");
	if (!cJSON_IsObject(profiles)) {
		cJSON_DeleteItemFromObjectCaseSensitive(config, "profiles");
		profiles = cJSON_AddObjectToObject(config, "profiles");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(profiles, name);
	cJSON_AddItemToObject(profiles, name, cJSON_Duplicate(profile, true));
	after = cJSON_Print(config);
	fprintf(stderr, "--- %s\n+++ %s (profile %s)\n", path, path, name);
	print_diff(stderr, before, after);
	if (strcmp(before, after) == 0) {
		fprintf(stderr, "profile %s is in %s already: nothing to write\n", name, path);
		rc = 0;
	} else if (!yes && !confirmed(name, path)) {
		sm_error_set(err, SM_ERR_FAILED, "not confirmed: %s is unchanged", path);
	} else if (replace_file(path, after, err) == 0) {
		fprintf(stderr, "profile %s written to %s; new panes get it with --profile %s\n",
			name, path, name);
		rc = 0;
	}
	free(before);
	free(after);
	cJSON_Delete(config);
	return rc;
}
