/*
 * gitconfig: the check of a replaced .git/config (see gitconfig.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gitconfig.h"
#include "xalloc.h"

/* Keys a pane may set to any value: none of them makes git run or read
 * anything.  subsection: the key is under [name "sub"] (any sub) rather
 * than [name]. */
static const struct plain_key {
	const char *section;
	bool subsection;
	const char *key;
} plain_keys[] = {
    /* What git init writes. */
    {"core", false, "repositoryformatversion"},
    {"core", false, "filemode"},
    {"core", false, "bare"},
    {"core", false, "logallrefupdates"},
    {"core", false, "ignorecase"},
    {"core", false, "precomposeunicode"},
    {"core", false, "symlinks"},
    {"core", false, "autocrlf"},
    {"core", false, "eol"},
    {"extensions", false, "objectformat"},
    {"init", false, "defaultbranch"},
    /* What git clone, remote add and push -u write.  A URL is checked
     * on its own (url_ok): transports that run commands are refused. */
    {"remote", true, "url"},
    {"remote", true, "pushurl"},
    {"remote", true, "fetch"},
    {"remote", true, "push"},
    {"remote", true, "tagopt"},
    {"remote", true, "prune"},
    {"branch", true, "remote"},
    {"branch", true, "pushremote"},
    {"branch", true, "merge"},
    {"branch", true, "rebase"},
    {"branch", true, "description"},
    /* Who commits, and plain behaviour switches. */
    {"user", false, "name"},
    {"user", false, "email"},
    {"pull", false, "rebase"},
    {"pull", false, "ff"},
    {"push", false, "default"},
    {"push", false, "autosetupremote"},
    {"fetch", false, "prune"},
};

/* One "section.sub.key = value" of a config, as written. */
struct entry {
	char *section, *sub, *key, *value; /* sub NULL: none; value NULL: bare key */
};

struct parsed {
	struct entry *v;
	size_t n, cap;
};

static void parsed_free(struct parsed *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].section);
		free(p->v[i].sub);
		free(p->v[i].key);
		free(p->v[i].value);
	}
	free(p->v);
	memset(p, 0, sizeof *p);
}

static char *dup_range(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);

	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-';
}

static bool rest_is_comment(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s == end || *s == '#' || *s == ';';
}

/* "[name]", "[name "sub"]" (\" and \\ escapes) or the old "[name.sub]".
 * Returns 0 with *section and *sub set (malloc'd), -1 when unreadable. */
static int parse_header(const char *s, const char *end, char **section, char **sub)
{
	const char *p = s + 1, *name = p;
	char buf[1024];
	size_t n = 0;

	while (p < end && (name_char(*p) || *p == '.'))
		p++;
	if (p == name)
		return -1;
	*section = dup_range(name, (size_t)(p - name));
	*sub = NULL;
	if (*section == NULL)
		return -1;
	if (strchr(*section, '.') != NULL) {
		char *dot = strchr(*section, '.');
		*sub = xstrdup(dot + 1);
		*dot = '\0';
	} else if (p < end && (*p == ' ' || *p == '\t')) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p++ != '"')
			return -1;
		while (p < end && *p != '"' && n < sizeof buf - 1) {
			if (*p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\'))
				p++;
			else if (*p == '\\')
				return -1;
			buf[n++] = *p++;
		}
		if (p >= end || *p++ != '"')
			return -1;
		*sub = dup_range(buf, n);
	}
	if (p >= end || *p != ']' || !rest_is_comment(p + 1, end))
		return -1;
	return 0;
}

static int push_entry(struct parsed *out, const char *section, const char *sub, const char *key,
		      size_t key_len, const char *value, size_t value_len, bool bare)
{
	struct entry *e;

	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 16;
		out->v = xrealloc(out->v, cap * sizeof *out->v);
		out->cap = cap;
	}
	e = &out->v[out->n];
	memset(e, 0, sizeof *e);
	e->section = xstrdup(section);
	e->sub = sub != NULL ? xstrdup(sub) : NULL;
	e->key = dup_range(key, key_len);
	e->value = bare ? NULL : dup_range(value, value_len);
	out->n++;
	return 0;
}

/* Every entry of text, or -1 (why set) when a line is not understood. */
static int parse(const char *text, size_t len, struct parsed *out, char *why, size_t why_size)
{
	char *section = NULL, *sub = NULL;
	const char *line = text, *end = text + len;
	int lineno = 0, rc = 0;

	while (line < end && rc == 0) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *stop = eol != NULL ? eol : end, *p = line, *key;
		size_t key_len;

		lineno++;
		while (p < stop && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (stop > p && (stop[-1] == '\r' || stop[-1] == ' ' || stop[-1] == '\t'))
			stop--;
		if (memchr(p, '\0', (size_t)(stop - p)) != NULL) {
			rc = -1;
		} else if (p == stop || *p == '#' || *p == ';') {
			/* blank or comment */
		} else if (*p == '[') {
			free(section);
			free(sub);
			section = sub = NULL;
			rc = parse_header(p, stop, &section, &sub);
		} else if (section == NULL || !isalpha((unsigned char)*p) || stop[-1] == '\\') {
			/* A key outside a section, or a continuation line. */
			rc = -1;
		} else {
			key = p;
			while (p < stop && name_char(*p))
				p++;
			key_len = (size_t)(p - key);
			while (p < stop && (*p == ' ' || *p == '\t'))
				p++;
			if (p == stop || *p == '#' || *p == ';') {
				rc = push_entry(out, section, sub, key, key_len, NULL, 0, true);
			} else if (*p == '=') {
				p++;
				while (p < stop && (*p == ' ' || *p == '\t'))
					p++;
				rc = push_entry(out, section, sub, key, key_len, p,
						(size_t)(stop - p), false);
			} else {
				rc = -1;
			}
		}
		if (rc != 0)
			snprintf(why, why_size, "git config line %d not understood", lineno);
		line = eol != NULL ? eol + 1 : end;
	}
	free(section);
	free(sub);
	return rc;
}

static bool plain(const struct entry *e)
{
	for (size_t i = 0; i < sizeof plain_keys / sizeof plain_keys[0]; i++)
		if (strcasecmp(plain_keys[i].section, e->section) == 0 &&
		    plain_keys[i].subsection == (e->sub != NULL) &&
		    strcasecmp(plain_keys[i].key, e->key) == 0)
			return true;
	return false;
}

/* Threat: git's transports that run a command ("ext::sh -c ...",
 * "fd::"), and an option smuggled in as a URL ("-oProxyCommand=..."). */
static bool url_ok(const struct entry *e)
{
	const char *v = e->value != NULL ? e->value : "";

	if (strcasecmp(e->section, "remote") != 0 ||
	    (strcasecmp(e->key, "url") != 0 && strcasecmp(e->key, "pushurl") != 0))
		return true;
	if (*v == '"')
		v++;
	return strncasecmp(v, "ext::", 5) != 0 && strncasecmp(v, "fd::", 4) != 0 && *v != '-';
}

static bool same_str(const char *a, const char *b, bool fold)
{
	if (a == NULL || b == NULL)
		return a == b;
	return fold ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

/* Is e, with its value, in old? */
static bool kept(const struct entry *e, const struct parsed *old)
{
	for (size_t i = 0; i < old->n; i++)
		if (same_str(old->v[i].section, e->section, true) &&
		    same_str(old->v[i].sub, e->sub, false) &&
		    same_str(old->v[i].key, e->key, true) &&
		    same_str(old->v[i].value, e->value, false))
			return true;
	return false;
}

bool gitconfig_change_ok(const char *old, size_t old_len, const char *new, size_t new_len,
			 char *why, size_t why_size)
{
	struct parsed before = {0}, after = {0};
	bool ok = true;

	if (old_len > GITCONFIG_MAX || new_len > GITCONFIG_MAX) {
		snprintf(why, why_size, "git config larger than %d bytes", GITCONFIG_MAX);
		return false;
	}
	if ((old != NULL && parse(old, old_len, &before, why, why_size) != 0) ||
	    parse(new, new_len, &after, why, why_size) != 0) {
		parsed_free(&before);
		parsed_free(&after);
		return false;
	}
	for (size_t i = 0; i < after.n && ok; i++) {
		const struct entry *e = &after.v[i];

		if ((plain(e) && url_ok(e)) || kept(e, &before))
			continue;
		snprintf(why, why_size, "git config %s%s%s.%s", e->section, e->sub ? "." : "",
			 e->sub ? e->sub : "", e->key);
		ok = false;
	}
	parsed_free(&before);
	parsed_free(&after);
	return ok;
}
