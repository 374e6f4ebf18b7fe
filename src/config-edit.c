/*
 * config-edit: a change to the config file that sandmux itself makes (a
 * grant in a profile: `sandmux allow --persist`, `a` in the feed), as
 * text in and text out, and the diff a person confirms before it is
 * written.  Pure: no files are read or written here (src/grant.c does
 * that), so the change and its diff are unit-tested as data.
 *
 * The new text is the old file's JSON printed again by cJSON (tabs, one
 * key a line): a file written that way before changes by exactly the
 * lines of the entry; a file formatted by hand is shown re-indented in
 * the diff, which is why the diff is of the whole file, never just of
 * the entry: what is confirmed is what is written.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config-edit.h"
#include "error.h"
#include "xalloc.h"

int config_edit_add_entry(const char *old_text, const char *profile, const char *field,
			  const char *entry, char **new_text, struct sm_error *err)
{
	cJSON *root = cJSON_Parse(old_text != NULL && old_text[0] ? old_text : "{}");
	cJSON *profiles, *prof, *list, *item;
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
	{
		size_t len = strlen(*new_text);
		*new_text = xrealloc(*new_text, len + 2);
		memcpy(*new_text + len, "\n", 2); /* a text file ends with a newline */
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* The text's lines, pointing into a copy the caller frees. */
static char **split_lines(const char *text, char **copy, size_t *n)
{
	size_t cap = 16;
	char **lines = xmalloc(cap * sizeof *lines);

	*copy = xstrdup(text != NULL ? text : "");
	*n = 0;
	for (char *s = *copy; *s;) {
		char *nl = strchr(s, '\n');
		if (*n == cap)
			lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
		lines[(*n)++] = s;
		if (nl == NULL)
			break;
		*nl = 0;
		s = nl + 1;
	}
	return lines;
}

struct diff_out {
	char *buf;
	size_t len, cap;
};

static void out_line(struct diff_out *o, char mark, const char *line)
{
	size_t need = strlen(line) + 3;

	if (o->len + need + 1 > o->cap) {
		o->cap = (o->len + need + 1) * 2;
		o->buf = xrealloc(o->buf, o->cap);
	}
	o->len += (size_t)snprintf(o->buf + o->len, o->cap - o->len, "%c%s\n", mark, line);
}

/* A unified-style diff with CONTEXT lines around each change, from the
 * longest common subsequence of lines (config files are small; the
 * table is bounded by CONFIG_EDIT_DIFF_LINES squared). */
#define CONTEXT 3

char *config_edit_diff(const char *old_text, const char *new_text, const char *name)
{
	char *old_copy, *new_copy;
	size_t na, nb;
	char **a = split_lines(old_text, &old_copy, &na), **b = split_lines(new_text, &new_copy, &nb);
	struct diff_out o = { 0 };
	unsigned *lcs;
	char *ops;
	size_t nops = 0, i, j;

	o.buf = xasprintf("--- %s\n+++ %s (new)\n", name, name);
	o.len = o.cap = strlen(o.buf);
	if (na > CONFIG_EDIT_DIFF_LINES || nb > CONFIG_EDIT_DIFF_LINES) {
		/* Too long to align: the whole of both, old then new. */
		for (i = 0; i < na; i++)
			out_line(&o, '-', a[i]);
		for (j = 0; j < nb; j++)
			out_line(&o, '+', b[j]);
		goto done;
	}
	lcs = xcalloc((na + 1) * (nb + 1), sizeof *lcs);
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;)
			lcs[i * (nb + 1) + j] = strcmp(a[i], b[j]) == 0
							? lcs[(i + 1) * (nb + 1) + j + 1] + 1
						: lcs[(i + 1) * (nb + 1) + j] > lcs[i * (nb + 1) + j + 1]
							? lcs[(i + 1) * (nb + 1) + j]
							: lcs[i * (nb + 1) + j + 1];
	/* The edit script: ' ' keep, '-' old only, '+' new only. */
	ops = xmalloc(na + nb + 1);
	for (i = 0, j = 0; i < na || j < nb;) {
		if (i < na && j < nb && strcmp(a[i], b[j]) == 0)
			ops[nops++] = ' ', i++, j++;
		else if (i < na && (j == nb || lcs[(i + 1) * (nb + 1) + j] >= lcs[i * (nb + 1) + j + 1]))
			ops[nops++] = '-', i++; /* an old line goes before the new one */
		else
			ops[nops++] = '+', j++;
	}
	/* Print changes with their context; "..." where lines are left out. */
	for (size_t k = 0, ai = 0, bj = 0, gap = 0; k < nops; k++) {
		bool near = false;
		for (size_t d = k >= CONTEXT ? k - CONTEXT : 0; d < nops && d <= k + CONTEXT; d++)
			near = near || ops[d] != ' ';
		if (!near) {
			gap = 1;
		} else {
			if (gap)
				out_line(&o, ' ', "...");
			gap = 0;
			out_line(&o, ops[k], ops[k] == '+' ? b[bj] : a[ai]);
		}
		ai += ops[k] != '+';
		bj += ops[k] != '-';
		if (k + 1 == nops && gap)
			out_line(&o, ' ', "...");
	}
	free(ops);
	free(lcs);
done:
	free(a);
	free(b);
	free(old_copy);
	free(new_copy);
	return o.buf;
}
