/*
 * test_sbpl_reader: a reader for the SBPL text seatbelt.c emits, for the
 * tests alone.  It parses the text as s-expressions and checks what the
 * generator promises of every profile: balanced parentheses, strings
 * with only the escapes SBPL's reader knows, the operations and filters
 * the generator may emit and no other, a message tag on every deny,
 * each deny of a path after every allow that would override it (the
 * one exception: the exec deny on a writable root, which exec grants
 * override by design), and an unlink deny on every ancestor of every
 * denied path.
 *
 * sbpl_check returns NULL when the text passes, or what is wrong.
 */
#ifndef TEST_SBPL_READER_H
#define TEST_SBPL_READER_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBPL_MAX_RULES 4000

struct sbpl_node {
	enum { SX_LIST, SX_ATOM, SX_STRING } kind;
	char text[4200];
	struct sbpl_node *kids[8];
	size_t n;
};

struct sbpl_reader {
	const char *p;
	char why[512];
	struct sbpl_node *pool;
	size_t npool, cap;
};

static struct sbpl_node *sbpl_new(struct sbpl_reader *r, int kind)
{
	struct sbpl_node *node;

	if (r->npool == r->cap)
		return NULL;
	node = &r->pool[r->npool++];
	memset(node, 0, sizeof *node);
	node->kind = kind;
	return node;
}

static void sbpl_skip(struct sbpl_reader *r)
{
	for (;;) {
		while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t')
			r->p++;
		if (*r->p != ';')
			return;
		while (*r->p != '\0' && *r->p != '\n')
			r->p++;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string after its opening quote: the escapes \" \\ \n \t \r \xHH, no
 * raw control character. */
static struct sbpl_node *sbpl_string_node(struct sbpl_reader *r)
{
	struct sbpl_node *node = sbpl_new(r, SX_STRING);
	size_t n = 0;

	if (node == NULL)
		return NULL;
	for (r->p++; *r->p != '"'; r->p++) {
		char c = *r->p;

		if (c == '\0') {
			snprintf(r->why, sizeof r->why, "unterminated string");
			return NULL;
		}
		if ((unsigned char)c < 0x20 || c == 0x7f) {
			snprintf(r->why, sizeof r->why, "raw control character 0x%02x in a string",
				 c);
			return NULL;
		}
		if (c == '\\') {
			c = *++r->p;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'r')
				c = '\r';
			else if (c == 'x' && hexval(r->p[1]) >= 0 && hexval(r->p[2]) >= 0) {
				c = (char)(hexval(r->p[1]) * 16 + hexval(r->p[2]));
				r->p += 2;
			} else if (c != '"' && c != '\\') {
				snprintf(r->why, sizeof r->why, "unknown escape \\%c in a string",
					 c);
				return NULL;
			}
		}
		if (n + 1 >= sizeof node->text) {
			snprintf(r->why, sizeof r->why, "string too long");
			return NULL;
		}
		node->text[n++] = c;
	}
	r->p++;
	return node;
}

static struct sbpl_node *sbpl_read(struct sbpl_reader *r)
{
	struct sbpl_node *node;

	sbpl_skip(r);
	if (*r->p == '"')
		return sbpl_string_node(r);
	if (*r->p == ')') {
		snprintf(r->why, sizeof r->why, "unbalanced ')'");
		return NULL;
	}
	if (*r->p != '(') {
		size_t n = 0;

		if ((node = sbpl_new(r, SX_ATOM)) == NULL)
			return NULL;
		while (*r->p != '\0' && strchr(" \n\t()\";", *r->p) == NULL &&
		       n + 1 < sizeof node->text)
			node->text[n++] = *r->p++;
		return node;
	}
	if ((node = sbpl_new(r, SX_LIST)) == NULL)
		return NULL;
	r->p++;
	for (;;) {
		struct sbpl_node *kid;

		sbpl_skip(r);
		if (*r->p == ')') {
			r->p++;
			return node;
		}
		if (*r->p == '\0') {
			snprintf(r->why, sizeof r->why,
				 "unbalanced '(': the text ends inside a list");
			return NULL;
		}
		if ((kid = sbpl_read(r)) == NULL)
			return NULL;
		if (node->n == sizeof node->kids / sizeof node->kids[0]) {
			snprintf(r->why, sizeof r->why, "a list longer than any rule");
			return NULL;
		}
		node->kids[node->n++] = kid;
	}
}

/* One rule, as the checks see it. */
struct sbpl_rule {
	bool deny;
	char op[32];
	enum { P_NONE, P_LITERAL, P_SUBPATH, P_REGEX, P_IP } filter;
	char arg[4200];	   /* the filter's string */
	char anchor[4200]; /* the path it concerns: a regex's literal directory */
	bool tagged;
};

static bool sbpl_is(const struct sbpl_node *n, int kind, const char *text)
{
	return (int)n->kind == kind && (text == NULL || strcmp(n->text, text) == 0);
}

/* The literal directory a regex starts with: "^/a/\.b/x[0-9]" -> "/a/.b". */
static void regex_anchor(const char *re, char *out, size_t size)
{
	size_t n = 0;
	char *slash;

	for (const char *p = re + (re[0] == '^'); *p != '\0' && n + 1 < size; p++) {
		if (*p == '\\' && p[1] != '\0')
			out[n++] = *++p;
		else if (strchr(".[]{}()*+?^$|", *p) != NULL)
			break;
		else
			out[n++] = *p;
	}
	out[n] = '\0';
	if ((slash = strrchr(out, '/')) != NULL)
		slash[slash == out ? 1 : 0] = '\0';
}

static const char *const sbpl_ops[] = {
    "file-read*",	"file-write*", "file-write-unlink", "process-exec", "network*",
    "network-outbound", NULL};

/* A rule's filter or modifier; NULL, or what is wrong. */
static const char *sbpl_filter(const struct sbpl_node *f, struct sbpl_rule *rule, char *why,
			       size_t size)
{
	static const char *const paths[] = {"literal", "subpath", "regex"};

	if (f->kind != SX_LIST || f->n < 2 || f->kids[0]->kind != SX_ATOM)
		return "a filter that is no (name ...) list";
	if (sbpl_is(f->kids[0], SX_ATOM, "with")) {
		if (f->n != 3 || !sbpl_is(f->kids[1], SX_ATOM, "message") ||
		    f->kids[2]->kind != SX_STRING || strncmp(f->kids[2]->text, "sandmux:", 8) != 0)
			return "a (with ...) other than (with message \"sandmux:PANE\")";
		rule->tagged = true;
		return NULL;
	}
	if (rule->filter != P_NONE)
		return "two filters in one rule";
	for (size_t i = 0; i < 3; i++) {
		if (!sbpl_is(f->kids[0], SX_ATOM, paths[i]))
			continue;
		if (f->n != 2 || f->kids[1]->kind != SX_STRING)
			return "a path filter without one string";
		rule->filter = i == 0 ? P_LITERAL : i == 1 ? P_SUBPATH : P_REGEX;
		snprintf(rule->arg, sizeof rule->arg, "%s", f->kids[1]->text);
		if (rule->filter == P_REGEX) {
			regex_t re;

			if (regcomp(&re, rule->arg, REG_EXTENDED | REG_NOSUB) != 0) {
				snprintf(why, size, "a regex that does not compile: %s", rule->arg);
				return why;
			}
			regfree(&re);
			regex_anchor(rule->arg, rule->anchor, sizeof rule->anchor);
		} else {
			if (rule->arg[0] != '/')
				return "a path filter on a relative path";
			snprintf(rule->anchor, sizeof rule->anchor, "%s", rule->arg);
		}
		return NULL;
	}
	if (sbpl_is(f->kids[0], SX_ATOM, "remote") && f->n == 3 &&
	    sbpl_is(f->kids[1], SX_ATOM, "ip") && f->kids[2]->kind == SX_STRING &&
	    strncmp(f->kids[2]->text, "localhost:", 10) == 0) {
		rule->filter = P_IP;
		snprintf(rule->arg, sizeof rule->arg, "%s", f->kids[2]->text);
		return NULL;
	}
	if (sbpl_is(f->kids[0], SX_ATOM, "remote") && f->n == 3 &&
	    sbpl_is(f->kids[1], SX_ATOM, "unix-socket") && f->kids[2]->kind == SX_LIST &&
	    f->kids[2]->n == 2 && sbpl_is(f->kids[2]->kids[0], SX_ATOM, "path-literal") &&
	    f->kids[2]->kids[1]->kind == SX_STRING && f->kids[2]->kids[1]->text[0] == '/') {
		rule->filter = P_LITERAL;
		snprintf(rule->arg, sizeof rule->arg, "%s", f->kids[2]->kids[1]->text);
		snprintf(rule->anchor, sizeof rule->anchor, "%s", rule->arg);
		return NULL;
	}
	snprintf(why, size, "a filter the generator never emits: (%s ...)", f->kids[0]->text);
	return why;
}

static bool sbpl_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Operation a's rules can decide operation b (or b's a). */
static bool sbpl_ops_overlap(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	if ((strcmp(a, "file-write*") == 0 && strcmp(b, "file-write-unlink") == 0) ||
	    (strcmp(b, "file-write*") == 0 && strcmp(a, "file-write-unlink") == 0))
		return true;
	return (strcmp(a, "network*") == 0 && strcmp(b, "network-outbound") == 0) ||
	       (strcmp(b, "network*") == 0 && strcmp(a, "network-outbound") == 0);
}

/* Could one path the two rules name be the same?  A literal is its path,
 * a subpath and a regex the tree under their anchor. */
static bool sbpl_paths_overlap(const struct sbpl_rule *a, const struct sbpl_rule *b)
{
	if (a->filter == P_NONE || b->filter == P_NONE)
		return true;
	if (a->filter == P_IP || b->filter == P_IP)
		return a->filter == b->filter && strcmp(a->arg, b->arg) == 0;
	if (a->filter != P_LITERAL && sbpl_under(b->anchor, a->anchor))
		return true;
	if (b->filter != P_LITERAL && sbpl_under(a->anchor, b->anchor))
		return true;
	return strcmp(a->anchor, b->anchor) == 0;
}

/* Some deny at or before the end covers unlinking path. */
static bool sbpl_unlink_denied(const struct sbpl_rule *rules, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		const struct sbpl_rule *r = &rules[i];

		if (!r->deny ||
		    (strcmp(r->op, "file-write-unlink") != 0 && strcmp(r->op, "file-write*") != 0))
			continue;
		if ((r->filter == P_LITERAL && strcmp(r->arg, path) == 0) ||
		    (r->filter == P_SUBPATH && sbpl_under(path, r->arg)))
			return true;
	}
	return false;
}

static const char *sbpl_check_rules(const struct sbpl_rule *rules, size_t n, char *why, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		const struct sbpl_rule *d = &rules[i];
		char dir[4200];
		char *slash;

		if (!d->deny || d->filter == P_NONE)
			continue; /* an allow, or a reset ((deny file-write*)) */
		for (size_t j = i + 1; j < n; j++) {
			const struct sbpl_rule *a = &rules[j];

			if (a->deny || !sbpl_ops_overlap(d->op, a->op) || !sbpl_paths_overlap(d, a))
				continue;
			/* Exec grants override the writable roots' exec deny. */
			if (strcmp(d->op, "process-exec") == 0 && d->filter == P_SUBPATH)
				continue;
			snprintf(
			    why, size,
			    "rule %zu (deny %s %s) comes before rule %zu (allow %s %s), "
			    "which overrides it: a deny must come after every allow it overrides",
			    i, d->op, d->arg, j, a->op, a->arg);
			return why;
		}
		if (strncmp(d->op, "file-", 5) != 0)
			continue;
		/* The denied path itself (file-read*: a rename would move it
		 * out), then each ancestor. */
		if (strcmp(d->op, "file-read*") == 0 && d->filter != P_REGEX &&
		    !sbpl_unlink_denied(rules, n, d->anchor)) {
			snprintf(why, size, "read-denied %s can be renamed away: no unlink deny",
				 d->anchor);
			return why;
		}
		snprintf(dir, sizeof dir, "%s", d->anchor);
		if (d->filter == P_REGEX && !sbpl_unlink_denied(rules, n, dir)) {
			snprintf(why, size, "%s (the directory of regex %s) has no unlink deny",
				 dir, d->arg);
			return why;
		}
		while (strcmp(dir, "/") != 0 && (slash = strrchr(dir, '/')) != NULL) {
			slash[slash == dir ? 1 : 0] = '\0';
			if (!sbpl_unlink_denied(rules, n, dir)) {
				snprintf(why, size,
					 "%s, an ancestor of denied %s, has no unlink deny", dir,
					 d->anchor);
				return why;
			}
		}
	}
	return NULL;
}

/* Parentheses outside strings and comments close what they open. */
static bool sbpl_balanced(const char *p)
{
	long depth = 0;

	for (; *p != '\0' && depth >= 0; p++) {
		if (*p == ';')
			while (p[1] != '\0' && p[1] != '\n')
				p++;
		else if (*p == '"')
			while (p[1] != '\0' && *++p != '"')
				p += *p == '\\' && p[1] != '\0';
		else
			depth += (*p == '(') - (*p == ')');
	}
	return depth == 0;
}

static const char *sbpl_check(const char *text, char *why, size_t size)
{
	struct sbpl_reader r = {.p = text};
	struct sbpl_rule *rules;
	size_t n = 0;
	const char *bad = NULL;

	if (!sbpl_balanced(text))
		return "unbalanced parentheses";
	r.cap = 64; /* the nodes of one rule */
	r.pool = malloc(r.cap * sizeof *r.pool);
	rules = calloc(SBPL_MAX_RULES, sizeof *rules);
	if (r.pool == NULL || rules == NULL) {
		free(r.pool);
		free(rules);
		return "out of memory";
	}
	for (size_t form = 0; bad == NULL; form++) {
		struct sbpl_node *node;
		struct sbpl_rule *rule = &rules[n];

		sbpl_skip(&r);
		if (*r.p == '\0')
			break;
		if ((node = sbpl_read(&r)) == NULL) {
			snprintf(why, size, "%s", r.why[0] != '\0' ? r.why : "too many nodes");
			bad = why;
			break;
		}
		if (node->kind != SX_LIST || node->n < 2 || node->kids[0]->kind != SX_ATOM) {
			bad = "a top-level form that is no rule";
			break;
		}
		if (form == 0) {
			if (!sbpl_is(node->kids[0], SX_ATOM, "version") ||
			    !sbpl_is(node->kids[1], SX_ATOM, "1"))
				bad = "the profile does not start with (version 1)";
			continue;
		}
		if (form == 1) {
			if (node->n != 2 || !sbpl_is(node->kids[0], SX_ATOM, "allow") ||
			    !sbpl_is(node->kids[1], SX_ATOM, "default"))
				bad = "the second form is not (allow default)";
			continue;
		}
		rule->deny = sbpl_is(node->kids[0], SX_ATOM, "deny");
		if (!rule->deny && !sbpl_is(node->kids[0], SX_ATOM, "allow")) {
			bad = "a form that is neither allow nor deny";
			break;
		}
		bad = "an operation the generator never emits";
		for (size_t i = 0; sbpl_ops[i] != NULL; i++)
			if (sbpl_is(node->kids[1], SX_ATOM, sbpl_ops[i]))
				bad = NULL;
		if (bad != NULL) {
			snprintf(why, size, "an operation the generator never emits: %s",
				 node->kids[1]->text);
			bad = why;
			break;
		}
		snprintf(rule->op, sizeof rule->op, "%s", node->kids[1]->text);
		for (size_t i = 2; i < node->n && bad == NULL; i++)
			bad = sbpl_filter(node->kids[i], rule, why, size);
		if (bad == NULL && rule->deny && !rule->tagged)
			bad = "a deny without (with message \"sandmux:PANE\")";
		if (bad == NULL && !rule->deny && rule->tagged)
			bad = "an allow with a message";
		if (n + 1 == SBPL_MAX_RULES)
			bad = "too many rules";
		n++;
		r.npool = 0; /* a rule's nodes are done with */
	}
	if (bad == NULL)
		bad = sbpl_check_rules(rules, n, why, size);
	free(r.pool);
	free(rules);
	return bad;
}

#endif
