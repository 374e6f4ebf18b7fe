/*
 * config-edit: the changes sandmux itself makes to the user's config
 * file, which it otherwise only reads (see config-edit.h): a learned
 * profile set whole (`profile suggest --apply`), and one entry appended
 * to a profile's list (a grant in a profile: `sandmux allow --persist`,
 * `a` then `p` in the feed).  Each is shown as a line diff first and
 * written only after a yes; the new file is checked exactly as
 * `--check-config` would before it replaces the old one, by a rename, so
 * a failed or refused edit leaves the file as it was.
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
#include "profile.h"
#include "xalloc.h"

#define CONFIG_EDIT_MAX (1024 * 1024) /* as config.c reads at most */

char *config_edit_read_text(const char *path, struct sm_error *err)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t len;
	bool failed;

	if (f == NULL) {
		if (errno == ENOENT)
			return xstrdup("");
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: %s", path, strerror(errno));
		return NULL;
	}
	text = xmalloc(CONFIG_EDIT_MAX + 1);
	len = fread(text, 1, CONFIG_EDIT_MAX + 1, f);
	failed = ferror(f) != 0;
	fclose(f);
	if (failed || len > CONFIG_EDIT_MAX) {
		free(text);
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: %s", path,
			     failed ? "read error" : "larger than 1 MiB");
		return NULL;
	}
	text[len] = '\0';
	return text;
}

cJSON *config_edit_read(const char *path, struct sm_error *err)
{
	char *text = config_edit_read_text(path, err);
	cJSON *json;

	if (text == NULL)
		return NULL;
	json = text[0] != '\0' ? cJSON_Parse(text) : cJSON_CreateObject();
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
	if (!ok || profile_is_builtin(name)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID,
			     "\"%.40s\" cannot be a profile's name (1 to 32 letters, digits, - and "
			     "_; terminal, agent and the presets are built in)",
			     name);
		return -1;
	}
	return 0;
}

int config_edit_add_entry(const char *old_text, const char *profile, const char *field,
			  const char *entry, char **new_text, struct sm_error *err)
{
	cJSON *root = cJSON_Parse(old_text != NULL && old_text[0] ? old_text : "{}");
	cJSON *profiles, *prof, *list, *item;
	size_t len;
	int rc = -1;

	*new_text = NULL;
	if (!cJSON_IsObject(root)) {
		sm_error_set(err, SM_ERR_CONFIG_PARSE_ERROR, "the config is no JSON object");
		goto out;
	}
	profiles = cJSON_GetObjectItemCaseSensitive(root, "profiles");
	prof = cJSON_GetObjectItemCaseSensitive(profiles, profile);
	if (!cJSON_IsObject(prof)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID,
			     "the config has no profile \"%s\" (changed since the server read it?)",
			     profile);
		goto out;
	}
	list = cJSON_GetObjectItemCaseSensitive(prof, field);
	if (list == NULL)
		list = cJSON_AddArrayToObject(prof, field);
	if (!cJSON_IsArray(list)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID, "\"profiles\": \"%s\": \"%s\" is no list",
			     profile, field);
		goto out;
	}
	cJSON_ArrayForEach(item, list)
	{
		if (cJSON_IsString(item) && strcmp(item->valuestring, entry) == 0) {
			sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
				     "profile %s already has \"%s\" in \"%s\"", profile, entry, field);
			goto out;
		}
	}
	cJSON_AddItemToArray(list, cJSON_CreateString(entry));
	*new_text = cJSON_Print(root);
	len = strlen(*new_text);
	*new_text = xrealloc(*new_text, len + 2);
	memcpy(*new_text + len, "\n", 2); /* a text file ends with a newline */
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
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

static void out_line(char **buf, size_t *len, char op, const char *line)
{
	size_t need = strlen(line) + 4;

	*buf = xrealloc(*buf, *len + need);
	*len += (size_t)snprintf(*buf + *len, need, "%c %s\n", op, line);
}

char *config_edit_diff(const char *before, const char *after)
{
	char *a_text = xstrdup(before), *b_text = xstrdup(after), *out = xstrdup("");
	struct lines a = split_lines(a_text), b = split_lines(b_text);
	size_t w = b.n + 1, i = 0, j = 0, nops = 0, shown = 0, len = 0;
	unsigned *lcs = a.n * b.n <= 4000000 ? xcalloc((a.n + 1) * w, sizeof *lcs) : NULL;
	struct diff_op *ops = xcalloc(a.n + b.n + 1, sizeof *ops);

	for (size_t x = a.n; lcs != NULL && x-- > 0;)
		for (size_t y = b.n; y-- > 0;) {
			unsigned skip_a = lcs[(x + 1) * w + y], skip_b = lcs[x * w + y + 1];

			lcs[x * w + y] = strcmp(a.v[x], b.v[y]) == 0 ? lcs[(x + 1) * w + y + 1] + 1
					 : skip_a > skip_b	     ? skip_a
								     : skip_b;
		}
	/* The edit script; an old line goes before the new one replacing it. */
	while (i < a.n || j < b.n) {
		if (lcs != NULL && i < a.n && j < b.n && strcmp(a.v[i], b.v[j]) == 0) {
			ops[nops++] = (struct diff_op){' ', a.v[i++]};
			j++;
		} else if (i < a.n && (j == b.n || lcs == NULL ||
				       lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
			ops[nops++] = (struct diff_op){'-', a.v[i++]};
		} else {
			ops[nops++] = (struct diff_op){'+', b.v[j++]};
		}
	}
	for (size_t k = 0; k < nops; k++) {
		bool near = false;

		for (size_t d = k >= 3 ? k - 3 : 0; d < nops && d <= k + 3; d++)
			near = near || ops[d].op != ' ';
		if (!near)
			continue;
		if (k > shown)
			out_line(&out, &len, ' ', "...");
		out_line(&out, &len, ops[k].op, ops[k].line);
		shown = k + 1;
	}
	if (shown < nops)
		out_line(&out, &len, ' ', "...");
	free(ops);
	free(lcs);
	free(a.v);
	free(b.v);
	free(a_text);
	free(b_text);
	return out;
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

int config_edit_replace(const char *path, const char *text, struct sm_error *err)
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
	char *before, *after, *diff;
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
	diff = config_edit_diff(before, after);
	fprintf(stderr, "--- %s\n+++ %s (profile %s)\n%s", path, path, name, diff);
	free(diff);
	if (strcmp(before, after) == 0) {
		fprintf(stderr, "profile %s is in %s already: nothing to write\n", name, path);
		rc = 0;
	} else if (!yes && !confirmed(name, path)) {
		sm_error_set(err, SM_ERR_FAILED, "not confirmed: %s is unchanged", path);
	} else if (config_edit_replace(path, after, err) == 0) {
		fprintf(stderr, "profile %s written to %s; new panes get it with --profile %s\n",
			name, path, name);
		rc = 0;
	}
	free(before);
	free(after);
	cJSON_Delete(config);
	return rc;
}
