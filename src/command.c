/*
 * command: the one parser of command lines, driven by the entries of
 * command_table[] (see command.h), and what is generated from them:
 * --help, the command list, prompt completion.
 *
 * Syntax, the same from every caller: options come first, short ones
 * clustered or not (-hv, -l40, -l 40), long ones as --name VALUE or
 * --name=VALUE; "--" or the first word that is not an option ends them
 * ("-5" is a word, so a negative number can follow); the rest are the
 * command's words.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bindings.h"
#include "command.h"
#include "error.h"
#include "target.h"
#include "xalloc.h"

#define LINE_WORDS_MAX 64

static bool visible(const struct command_entry *e, int flags)
{
	return (e->flags & flags) != 0;
}

const struct command_entry *command_find(const char *name, int flags)
{
	for (const struct command_entry *e = command_table; e->name != NULL; e++) {
		if (!visible(e, flags))
			continue;
		if (strcmp(e->name, name) == 0)
			return e;
		for (int i = 0; i < 3 && e->aliases[i] != NULL; i++)
			if (strcmp(e->aliases[i], name) == 0)
				return e;
	}
	return NULL;
}

const struct command_entry *command_for_request(const char *name)
{
	for (const struct command_entry *e = command_table; e->name != NULL; e++)
		if (e->exec != NULL && e->request != NULL && strcmp(e->request, name) == 0)
			return e;
	return NULL;
}

static int usage_error(const struct command_entry *e, struct sm_error *err, const char *code,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int usage_error(const struct command_entry *e, struct sm_error *err, const char *code,
		       const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	sm_error_set(err, code, "%s: %s (usage: %s %s)", e->name, why, e->name, e->usage);
	return -1;
}

/* A whole number and nothing else: "12", "-3"; never "12x", "", " 1". */
static bool strict_number(const char *text, long min, long max, long *out)
{
	char *end;
	long n;

	if (text[0] == '\0' || text[0] == ' ' || text[0] == '+')
		return false;
	errno = 0;
	n = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return false;
	*out = n;
	return true;
}

static void set_field(cJSON *object, const char *field, cJSON *value)
{
	if (cJSON_GetObjectItem(object, field) != NULL)
		cJSON_ReplaceItemInObject(object, field, value);
	else
		cJSON_AddItemToObject(object, field, value);
}

static const char *option_name(const struct command_option *o, char *buf, size_t size)
{
	if (o->letter != 0)
		snprintf(buf, size, "-%c", o->letter);
	else
		snprintf(buf, size, "--%s", o->long_name);
	return buf;
}

/* The JSON value an option's text stands for, checked by type. */
static int option_value(const struct command_entry *e, const struct command_option *o,
			const char *text, cJSON **out, struct sm_error *err)
{
	char name[64];
	long n;

	option_name(o, name, sizeof name);
	switch (o->type) {
	case CV_NUMBER: {
		char range[64];

		if (strict_number(text, o->min, o->max, &n))
			break;
		snprintf(range, sizeof range, "%d..%d", o->min, o->max);
		return usage_error(e, err, SM_ERR_INVALID_COMMAND, "%s takes a number %s, not \"%.32s\"",
				   name, range, text);
	}
	case CV_PERCENT:
		if (strict_number(text, 1, 99, &n))
			break;
		return usage_error(e, err, SM_ERR_INVALID_COMMAND,
				   "%s takes a percentage 1..99, not \"%.32s\"", name, text);
	case CV_ROW:
		if (strcmp(text, "-") == 0) {
			*out = o->constant ? cJSON_CreateNumber(atof(o->constant)) : NULL;
			return 0;
		}
		if (strict_number(text, o->min, o->max, &n))
			break;
		return usage_error(e, err, SM_ERR_INVALID_COMMAND,
				   "%s takes a row number or -, not \"%.32s\"", name, text);
	case CV_WINDOW:
		if (strict_number(text[0] == ':' ? text + 1 : text, 0, INT_MAX, &n))
			break;
		return usage_error(e, err, SM_ERR_INVALID_COMMAND,
				   "%s takes a window index (N or :N), not \"%.32s\"", name, text);
	case CV_PANE:
	case CV_SESSION: {
		struct target t;
		struct sm_error why = { 0 };

		if (target_parse(text, &t, &why) < 0)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND, "%s: %s", name,
					   why.message);
		/* A pane id travels as a number in the option's field; any
		 * other target as written, in "target", for the server to
		 * resolve (cmd_target_pane, cmd_target_session). */
		*out = o->type == CV_PANE && t.pane_id >= 0 ? cJSON_CreateNumber(t.pane_id)
							    : cJSON_CreateString(text);
		return 0;
	}
	case CV_BACKEND:
		if (strcmp(text, "none") != 0 && strcmp(text, "native") != 0 &&
		    strcmp(text, "microvm") != 0)
			return usage_error(e, err, SM_ERR_INVALID_BACKEND,
					   "unknown backend \"%.32s\" (none, native, microvm)", text);
		*out = cJSON_CreateString(text);
		return 0;
	case CV_PROFILE:
	case CV_PATH:
	case CV_STRING:
		if (text[0] == '\0')
			return usage_error(e, err, SM_ERR_INVALID_COMMAND, "%s needs a value", name);
		*out = cJSON_CreateString(text);
		return 0;
	case CV_ENV:
	case CV_FLAG:
		*out = cJSON_CreateString(text);
		return 0;
	}
	*out = cJSON_CreateNumber((double)n);
	return 0;
}

static int apply_option(const struct command_entry *e, const struct command_option *o,
			const char *text, struct command_parsed *out, struct sm_error *err)
{
	cJSON *value = NULL;
	char key[2] = { o->letter, 0 };

	if (o->request != NULL && out->request != NULL) {
		cJSON_ReplaceItemInObject(out->request, "cmd", cJSON_CreateString(o->request));
	}
	if (o->field == NULL) {
		set_field(out->local, o->long_name ? o->long_name : key,
			  text ? cJSON_CreateString(text) : cJSON_CreateTrue());
		return 0;
	}
	if (o->type == CV_FLAG) {
		set_field(out->request, o->field,
			  o->constant ? cJSON_CreateString(o->constant) : cJSON_CreateTrue());
		return 0;
	}
	if (o->type == CV_ENV) {
		const char *eq = strchr(text, '=');
		cJSON *env = cJSON_GetObjectItem(out->request, o->field);
		char var[256];

		if (eq == NULL || eq == text || (size_t)(eq - text) >= sizeof var)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND,
					   "-%c takes NAME=VALUE, not \"%.32s\"",
					   o->letter ? o->letter : 'e', text);
		if (env == NULL)
			env = cJSON_AddObjectToObject(out->request, o->field);
		snprintf(var, sizeof var, "%.*s", (int)(eq - text), text);
		set_field(env, var, cJSON_CreateString(eq + 1));
		return 0;
	}
	if (option_value(e, o, text, &value, err) < 0)
		return -1;
	if (value != NULL)
		set_field(out->request, cJSON_IsString(value) && o->type == CV_PANE ? "target" : o->field,
			  value);
	return 0;
}

static const struct command_option *find_short(const struct command_entry *e, char letter)
{
	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++)
		if (o->letter == letter)
			return o;
	return NULL;
}

static const struct command_option *find_long(const struct command_entry *e, const char *name,
					      size_t len)
{
	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++)
		if (o->long_name != NULL && strlen(o->long_name) == len &&
		    strncmp(o->long_name, name, len) == 0)
			return o;
	return NULL;
}

/* Options from argv[1]; returns the index of the first word, or -1. */
static int parse_options(const struct command_entry *e, int argc, char **argv,
			 struct command_parsed *out, char *given, struct sm_error *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct command_option *o;

		if (strcmp(arg, "--") == 0)
			return i + 1;
		if (arg[0] != '-' || arg[1] == '\0' || (arg[1] >= '0' && arg[1] <= '9'))
			return i;
		if (arg[1] == '-') {
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);

			if ((o = find_long(e, arg + 2, len)) == NULL)
				return usage_error(e, err, SM_ERR_INVALID_COMMAND,
						   "unknown option %.40s", arg);
			if (o->letter)
				given[(unsigned char)o->letter] = 1;
			if (o->type == CV_FLAG) {
				if (eq != NULL)
					return usage_error(e, err, SM_ERR_INVALID_COMMAND,
							   "--%s takes no value", o->long_name);
				if (apply_option(e, o, NULL, out, err) < 0)
					return -1;
				continue;
			}
			if (eq == NULL && i + 1 >= argc)
				return usage_error(e, err, SM_ERR_INVALID_COMMAND,
						   "--%s needs a value", o->long_name);
			if (apply_option(e, o, eq ? eq + 1 : argv[++i], out, err) < 0)
				return -1;
			continue;
		}
		for (const char *p = arg + 1; *p != '\0'; p++) {
			if ((o = find_short(e, *p)) == NULL)
				return usage_error(e, err, SM_ERR_INVALID_COMMAND,
						   "unknown option -%c", *p);
			given[(unsigned char)*p] = 1;
			if (o->type == CV_FLAG) {
				if (apply_option(e, o, NULL, out, err) < 0)
					return -1;
				continue;
			}
			if (p[1] == '\0' && i + 1 >= argc)
				return usage_error(e, err, SM_ERR_INVALID_COMMAND,
						   "-%s needs a value", (const char[]){ *p, 0 });
			if (apply_option(e, o, p[1] != '\0' ? p + 1 : argv[++i], out, err) < 0)
				return -1;
			break;
		}
	}
	return i;
}

static int parse_rest(const struct command_entry *e, int nwords, char **words,
		      struct command_parsed *out, struct sm_error *err)
{
	cJSON *array;
	long n;

	switch (e->rest) {
	case REST_NONE:
		if (nwords > 0)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND,
					   "unexpected \"%.40s\"", words[0]);
		return 0;
	case REST_ARGV:
	case REST_KEYS:
		if (nwords == 0 && e->rest == REST_ARGV)
			return 0;
		array = cJSON_AddArrayToObject(out->request, e->rest_field);
		for (int i = 0; i < nwords; i++)
			cJSON_AddItemToArray(array, cJSON_CreateString(words[i]));
		return 0;
	case REST_NUMBER:
	case REST_WINDOW:
		if (nwords == 0)
			return 0;
		if (nwords > 1)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND,
					   "unexpected \"%.40s\"", words[1]);
		if (!strict_number(e->rest == REST_WINDOW && words[0][0] == ':' ? words[0] + 1
									 : words[0],
				   e->rest == REST_WINDOW ? 0 : 1, INT_MAX, &n))
			return usage_error(e, err, SM_ERR_INVALID_COMMAND,
					   "%s, not \"%.32s\"",
					   e->rest == REST_WINDOW ? "a window index is N or :N"
								  : "the amount is a positive number",
					   words[0]);
		set_field(out->request, e->rest_field, cJSON_CreateNumber((double)n));
		return 0;
	case REST_STRING:
		if (nwords != 1)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND, "%s",
					   nwords == 0 ? "a word is missing" : "one word only");
		set_field(out->request, e->rest_field, cJSON_CreateString(words[0]));
		return 0;
	case REST_PAIR: {
		const char *comma = strchr(e->rest_field, ',');
		char first[32];

		if (nwords != 2)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND, "%s",
					   nwords < 2 ? "two words are needed" : "two words only");
		snprintf(first, sizeof first, "%.*s", (int)(comma - e->rest_field), e->rest_field);
		set_field(out->request, first, cJSON_CreateString(words[0]));
		set_field(out->request, comma + 1, cJSON_CreateString(words[1]));
		return 0;
	}
	case REST_WORDS:
	case REST_RAW:
		out->words = xcalloc((size_t)nwords + 1, sizeof *out->words);
		for (int i = 0; i < nwords; i++)
			out->words[i] = words[i];
		out->nwords = nwords;
		return 0;
	}
	return 0;
}

/* What the prompt and key bindings leave out: the client's active pane
 * and its session; on the command line a required target must be given. */
static int fill_defaults(const struct command_entry *e, const struct command_context *ctx,
			 const char *given, struct command_parsed *out, struct sm_error *err)
{
	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++) {
		bool pane = o->type == CV_PANE, session = o->type == CV_SESSION;

		if ((!pane && !session) || o->field == NULL ||
		    cJSON_GetObjectItem(out->request, o->field) != NULL ||
		    (pane && cJSON_GetObjectItem(out->request, "target") != NULL))
			continue;
		if (pane && ctx->active_pane >= 0)
			set_field(out->request, o->field, cJSON_CreateNumber(ctx->active_pane));
		else if (session && ctx->session != NULL && ctx->session[0] != '\0')
			set_field(out->request, o->field, cJSON_CreateString(ctx->session));
		else if (o->required)
			return usage_error(e, err, SM_ERR_INVALID_COMMAND, "-%c %s is required",
					   o->letter, o->meta ? o->meta : "");
	}
	if (e->need_one_of != NULL) {
		for (const char *p = e->need_one_of; *p != '\0'; p++)
			if (*p == '@' ? out->nwords > 0 || (e->rest_field != NULL &&
							    cJSON_GetObjectItem(out->request,
										e->rest_field))
				      : given[(unsigned char)*p])
				return 0;
		return usage_error(e, err, SM_ERR_INVALID_COMMAND, "one of %s is needed",
				   e->need_one_of);
	}
	return 0;
}

int command_parse(const struct command_entry *e, int argc, char **argv,
		  const struct command_context *ctx, struct command_parsed *out,
		  struct sm_error *err)
{
	char given[256] = { 0 };
	int first;

	memset(out, 0, sizeof *out);
	out->entry = e;
	out->local = cJSON_CreateObject();
	if (e->rest == REST_RAW)
		return parse_rest(e, argc - 1, argv + 1, out, err);
	/* Commands of the client's own have no request; their options
	 * with fields still need somewhere to go. */
	out->request = cJSON_CreateObject();
	if (e->request != NULL)
		cJSON_AddStringToObject(out->request, "cmd", e->request);
	if (e->fixed != NULL) {
		cJSON *fixed = cJSON_Parse(e->fixed);

		for (cJSON *item = fixed ? fixed->child : NULL; item != NULL; item = item->next)
			cJSON_AddItemToObject(out->request, item->string, cJSON_Duplicate(item, 1));
		cJSON_Delete(fixed);
	}
	if ((first = parse_options(e, argc, argv, out, given, err)) < 0 ||
	    parse_rest(e, argc - first, argv + first, out, err) < 0 ||
	    fill_defaults(e, ctx, given, out, err) < 0) {
		command_parsed_free(out);
		return -1;
	}
	return 0;
}

int command_parse_line(const char *line, const struct command_context *ctx,
		       struct command_parsed *out, struct sm_error *err)
{
	char *buf, *argv[LINE_WORDS_MAX];
	size_t size = strlen(line) + 2; /* command_split keeps one byte spare */
	const struct command_entry *e;
	int argc;

	memset(out, 0, sizeof *out);
	buf = xmalloc(size);
	argc = command_split(line, buf, size, argv, LINE_WORDS_MAX);
	if (argc <= 0) {
		free(buf);
		sm_error_set(err, SM_ERR_INVALID_COMMAND,
			     argc < 0 ? "unbalanced quotes or too many words in: %.200s"
				      : "empty command%.0s",
			     line);
		return -1;
	}
	if ((e = command_find(argv[0], ctx->flags)) == NULL) {
		sm_error_set(err, SM_ERR_UNKNOWN_COMMAND, "unknown command: %.64s", argv[0]);
		free(buf);
		return -1;
	}
	if (command_parse(e, argc, argv, ctx, out, err) < 0) {
		free(buf);
		return -1;
	}
	out->buffer = buf; /* the words point into it */
	return 0;
}

/* A binding checked where no client is (the config's): targets may be
 * left out, as a binding runs where the client is. */
static const struct command_context binding_check_context = {CMD_PROMPT, 0, "."};

bool command_binding_valid(const char *line, struct sm_error *err)
{
	struct command_parsed parsed;

	if (command_parse_line(line, &binding_check_context, &parsed, err) < 0)
		return false;
	command_parsed_free(&parsed);
	return true;
}

void command_parsed_free(struct command_parsed *parsed)
{
	cJSON_Delete(parsed->request);
	cJSON_Delete(parsed->local);
	free(parsed->words);
	free(parsed->buffer);
	memset(parsed, 0, sizeof *parsed);
}

const char *command_local(const struct command_parsed *parsed, const char *name)
{
	const cJSON *item = cJSON_GetObjectItem(parsed->local, name);

	if (item == NULL)
		return NULL;
	return cJSON_IsString(item) ? item->valuestring : "";
}

void command_print_help(const struct command_entry *e, FILE *out)
{
	fprintf(out, "usage: sandmux [-L NAME] %s%s%s\n  %s\n", e->name, e->usage[0] ? " " : "",
		e->usage, e->summary);
	if (e->aliases[0] != NULL) {
		fprintf(out, "  also:");
		for (int i = 0; i < 3 && e->aliases[i] != NULL; i++)
			fprintf(out, " %s", e->aliases[i]);
		fprintf(out, "\n");
	}
	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++) {
		char spell[64];

		snprintf(spell, sizeof spell, "%s%s%s%s%s", o->letter ? "-" : "",
			 o->letter ? (const char[]){ o->letter, 0 } : "",
			 o->letter && o->long_name ? ", " : "", o->long_name ? "--" : "",
			 o->long_name ? o->long_name : "");
		fprintf(out, "  %-18s %-10s %s\n", spell, o->meta ? o->meta : "",
			o->help ? o->help : "");
	}
}

static const char *where_name(const struct command_entry *e)
{
	if ((e->flags & (CMD_CLI | CMD_PROMPT)) == (CMD_CLI | CMD_PROMPT))
		return "command line, prompt";
	if (e->flags & CMD_CLI)
		return "command line";
	if (e->flags & CMD_PROMPT)
		return "prompt";
	return "protocol";
}

/* The request fields a command's spec can fill, for the generated docs. */
static void request_fields(const struct command_entry *e, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (const struct command_option *o = e->options; o && (o->letter || o->long_name); o++) {
		if (o->field == NULL || (used > 0 && strstr(out, o->field) != NULL))
			continue;
		used += (size_t)snprintf(out + used, size - used, "%s`%s`%s", used ? ", " : "",
					 o->field, o->type == CV_PANE ? " or `target`" : "");
		if (used >= size)
			break;
	}
	if (e->rest_field != NULL && used < size)
		used += (size_t)snprintf(out + used, size - used, "%s`%s`", used ? ", " : "",
					 e->rest_field);
	if (used == 0)
		snprintf(out, size, "—");
}

/* A table cell cannot hold a bare "|". */
static void markdown_cell(const char *text, char *out, size_t size)
{
	size_t used = 0;

	for (; *text != '\0' && used + 3 < size; text++) {
		if (*text == '|')
			out[used++] = '\\';
		out[used++] = *text;
	}
	out[used] = '\0';
}

void command_print_list(FILE *out, bool markdown, int flags)
{
	if (markdown)
		fprintf(out, "| command | also | usage | where | request | fields | what it does |\n"
			     "| --- | --- | --- | --- | --- | --- | --- |\n");
	for (const struct command_entry *e = command_table; e->name != NULL; e++) {
		char aliases[96] = "", fields[256], usage[512];

		for (int i = 0; i < 3 && e->aliases[i] != NULL; i++)
			snprintf(aliases + strlen(aliases), sizeof aliases - strlen(aliases),
				 "%s%s", i ? ", " : "", e->aliases[i]);
		if (!markdown) {
			if (visible(e, flags) && !(e->flags & CMD_HIDDEN))
				fprintf(out, "%-16s %s%s%s%s\n", e->name, e->summary,
					aliases[0] ? " (also: " : "", aliases,
					aliases[0] ? ")" : "");
			continue;
		}
		request_fields(e, fields, sizeof fields);
		markdown_cell(e->usage, usage, sizeof usage);
		fprintf(out, "| `%s` | %s | `%s%s%s` | %s | %s%s%s | %s | %s |\n", e->name,
			aliases[0] ? aliases : "—", e->name, usage[0] ? " " : "", usage, where_name(e),
			e->request ? "`" : "", e->request ? e->request : "—",
			e->request ? "`" : "", e->request && e->flags & (CMD_CLI | CMD_PROMPT)
						       ? fields
						       : "see docs/protocol.md",
			e->summary);
	}
}

const char *command_complete(const char *prefix, int flags, int index)
{
	size_t len = strlen(prefix);

	for (const struct command_entry *e = command_table; e->name != NULL; e++)
		if (visible(e, flags) && strncmp(e->name, prefix, len) == 0 && index-- == 0)
			return e->name;
	return NULL;
}

/* command-prompt's template with every %% replaced by text, quoted for
 * the double quotes the template puts around it (tmux's "%%"): a name
 * with blanks or quotes stays one word. */
void command_fill_template(const char *template, const char *text, char *out, size_t size)
{
	size_t used = 0;

	for (const char *t = template; *t != 0 && used + 1 < size; t++) {
		if (t[0] != '%' || t[1] != '%') {
			out[used++] = *t;
			continue;
		}
		for (const char *p = text; *p != 0 && used + 2 < size; p++) {
			if (*p == '"' || *p == '\\')
				out[used++] = '\\';
			out[used++] = *p;
		}
		t++;
	}
	out[used] = 0;
}

/* A command-prompt with a template (C-b ,) is described by what the
 * template runs: "name a window", not "type a command". */
const char *command_summary(const char *line)
{
	static const struct command_context check = {CMD_PROMPT, 0, "."};
	char name[64];
	size_t len = strcspn(line, " \t");
	const struct command_entry *cmd;
	struct command_parsed parsed;
	struct sm_error err = {0};
	const char *summary;

	if (len >= sizeof name)
		return "";
	memcpy(name, line, len);
	name[len] = 0;
	cmd = command_find(name, CMD_PROMPT);
	if (cmd == NULL || strcmp(cmd->name, "command-prompt") != 0 ||
	    command_parse_line(line, &check, &parsed, &err) < 0)
		return cmd ? cmd->summary : "";
	summary = parsed.nwords > 0 ? command_summary(parsed.words[0]) : cmd->summary;
	command_parsed_free(&parsed);
	return summary[0] != 0 ? summary : cmd->summary;
}

/* Targets are completed a level at a time, as they are written: session
 * names, then "SESSION:W" once a ':' is typed, "SESSION:W.P" after the
 * '.', pane ids after a '%'. */
int command_target_level(const char *word, size_t len)
{
	const char *colon = memchr(word, ':', len);

	if (len > 0 && word[0] == '%')
		return 3;
	if (colon == NULL)
		return 0;
	return memchr(colon, '.', len - (size_t)(colon - word)) != NULL ? 2 : 1;
}

/* What the option before the word takes, as the command's entry types
 * it: the kind of words the server completes it from, or NULL. */
const char *command_option_value_kind(const struct command_entry *entry, const char *option)
{
	if (entry == NULL || option[0] != '-' || option[1] == 0)
		return NULL;
	for (const struct command_option *o = entry->options; o && (o->letter || o->long_name);
	     o++) {
		bool named = option[1] == '-' ? o->long_name != NULL &&
							 strcmp(option + 2, o->long_name) == 0
					      : o->letter != 0 && option[strlen(option) - 1] == o->letter;

		if (!named)
			continue;
		switch (o->type) {
		case CV_PANE:
		case CV_SESSION:
		case CV_WINDOW:
			return "target";
		case CV_BACKEND:
			return "backend";
		case CV_PROFILE:
			return "profile";
		default:
			return NULL;
		}
	}
	return NULL;
}
