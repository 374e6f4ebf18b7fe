/*
 * config: reading and checking config.json.  See config.h.
 *
 * Each key of the file is an entry in config_keys[] with the function
 * that checks and stores it; the loader walks the JSON object and looks
 * every member up there, so an unknown key is found in one place and a
 * new setting is one entry plus one function.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "config.h"
#include "error.h"
#include "profile.h"
#include "theme.h"
#include "xalloc.h"

#define CONFIG_FILE_MAX (1024 * 1024)

void config_defaults(struct config *config)
{
	memset(config, 0, sizeof *config);
	snprintf(config->prefix, sizeof config->prefix, "C-b");
	snprintf(config->theme, sizeof config->theme, "default");
	config->scrollback = 10000;
	config->status = true;
	/* What the status line always showed: the session, the clock. */
	snprintf(config->status_left, sizeof config->status_left, "[#{session_name}] ");
	snprintf(config->status_right, sizeof config->status_right, " %%H:%%M %%d-%%b ");
	config->repeat_time = 500;
	config->display_panes_time = 1000; /* tmux's display-panes-time */
	config->paste_across_ask = true;
	snprintf(config->default_backend, sizeof config->default_backend, "none");
}

void config_free(struct config *config)
{
	free(config->bindings);
	config->bindings = NULL;
	config->nbindings = 0;
	free(config->table_bindings);
	config->table_bindings = NULL;
	config->ntable_bindings = 0;
	for (size_t i = 0; i < config->nprofiles; i++)
		profile_free(&config->profiles[i]);
	free(config->profiles);
	config->profiles = NULL;
	config->nprofiles = 0;
}

struct sandbox_profile *config_take_profiles(struct config *config, size_t *n)
{
	struct sandbox_profile *profiles = config->profiles;

	*n = config->nprofiles;
	config->profiles = NULL;
	config->nprofiles = 0;
	return profiles;
}

const char *config_default_path(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	/* The XDG spec says a relative XDG_CONFIG_HOME is invalid: ignore it. */
	if (xdg != NULL && xdg[0] == '/')
		snprintf(buf, n, "%s/sandmux/config.json", xdg);
	else
		snprintf(buf, n, "%s/.config/sandmux/config.json", home ? home : "");
	return buf;
}

/* Context passed to every key handler, for messages that name the file. */
struct config_parse {
	const char *source;
	struct config *config;
	struct sm_error *err;
	const char *table; /* "key_tables": the mode table being read */
};

static int invalid(struct config_parse *parse, const char *key, const char *what)
{
	sm_error_set(parse->err, SM_ERR_CONFIG_INVALID, "%s: \"%s\" %s", parse->source, key, what);
	return -1;
}

static int copy_string(struct config_parse *parse, const cJSON *item, char *dst, size_t size)
{
	if (!cJSON_IsString(item))
		return invalid(parse, item->string, "must be a string");
	if (strlen(item->valuestring) >= size)
		return invalid(parse, item->string, "is too long");
	snprintf(dst, size, "%s", item->valuestring);
	return 0;
}

static int set_prefix(struct config_parse *parse, const cJSON *item)
{
	char canonical[KEY_NAME_MAX];

	if (!cJSON_IsString(item))
		return invalid(parse, "prefix", "must be a string such as \"C-b\"");
	if (!key_name_canonical(item->valuestring, canonical, sizeof canonical) ||
	    strlen(canonical) >= sizeof parse->config->prefix) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"prefix\": \"%s\" is not a key name", parse->source,
			     item->valuestring);
		return -1;
	}
	snprintf(parse->config->prefix, sizeof parse->config->prefix, "%s", canonical);
	return 0;
}

static int set_theme(struct config_parse *parse, const cJSON *item)
{
	if (cJSON_IsString(item) && item->valuestring[0] == 0)
		return invalid(parse, "theme", "must not be empty");
	return copy_string(parse, item, parse->config->theme, sizeof parse->config->theme);
}

static int set_scrollback(struct config_parse *parse, const cJSON *item)
{
	/* Range first: casting a huge double to int is undefined. */
	if (!cJSON_IsNumber(item) || item->valuedouble < 0 ||
	    item->valuedouble > CONFIG_SCROLLBACK_MAX)
		return invalid(parse, "scrollback", "must be between 0 and 1000000");
	if (item->valuedouble != (double)(int)item->valuedouble)
		return invalid(parse, "scrollback", "must be a whole number of lines");
	if (item->valueint < 0 || item->valueint > CONFIG_SCROLLBACK_MAX)
		return invalid(parse, "scrollback", "must be between 0 and 1000000");
	parse->config->scrollback = item->valueint;
	return 0;
}

static int set_repeat_time(struct config_parse *parse, const cJSON *item)
{
	/* Range first: casting a huge double to int is undefined. */
	if (!cJSON_IsNumber(item) || item->valuedouble < 0 ||
	    item->valuedouble > CONFIG_REPEAT_TIME_MAX ||
	    item->valuedouble != (double)(int)item->valuedouble)
		return invalid(parse, "repeat_time", "must be a whole number of ms, 0..10000");
	parse->config->repeat_time = item->valueint;
	return 0;
}

static int set_display_panes_time(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsNumber(item) || item->valuedouble < 0 ||
	    item->valuedouble > CONFIG_DISPLAY_PANES_TIME_MAX ||
	    item->valuedouble != (double)(int)item->valuedouble)
		return invalid(parse, "display_panes_time", "must be a whole number of ms, 0..60000");
	parse->config->display_panes_time = item->valueint;
	return 0;
}

static int set_paste_across_backends(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsString(item) ||
	    (strcmp(item->valuestring, "ask") != 0 && strcmp(item->valuestring, "allow") != 0))
		return invalid(parse, "paste_across_backends", "must be \"ask\" or \"allow\"");
	parse->config->paste_across_ask = strcmp(item->valuestring, "ask") == 0;
	return 0;
}

static int set_status(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsBool(item))
		return invalid(parse, "status", "must be true or false");
	parse->config->status = cJSON_IsTrue(item);
	return 0;
}

static int set_status_left(struct config_parse *parse, const cJSON *item)
{
	return copy_string(parse, item, parse->config->status_left,
			   sizeof parse->config->status_left);
}

static int set_status_right(struct config_parse *parse, const cJSON *item)
{
	return copy_string(parse, item, parse->config->status_right,
			   sizeof parse->config->status_right);
}

static int set_vi_pane_keys(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsBool(item))
		return invalid(parse, "vi_pane_keys", "must be true or false");
	parse->config->vi_pane_keys = cJSON_IsTrue(item);
	return 0;
}

static int set_renumber_windows(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsBool(item))
		return invalid(parse, "renumber_windows", "must be true or false");
	parse->config->renumber_windows = cJSON_IsTrue(item);
	return 0;
}

int window_size_from_name(const char *name)
{
	static const char *const names[] = { [WINDOW_SIZE_LATEST] = "latest",
					     [WINDOW_SIZE_SMALLEST] = "smallest",
					     [WINDOW_SIZE_LARGEST] = "largest" };

	for (size_t i = 0; name != NULL && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

static int set_window_size(struct config_parse *parse, const cJSON *item)
{
	int size = window_size_from_name(cJSON_GetStringValue(item));

	if (size < 0)
		return invalid(parse, "window_size", "must be \"latest\", \"smallest\" or \"largest\"");
	parse->config->window_size = (enum window_size)size;
	return 0;
}

static int set_bell_action(struct config_parse *parse, const cJSON *item)
{
	static const char *const names[] = { [BELL_ANY] = "any", [BELL_NONE] = "none",
					     [BELL_CURRENT] = "current" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (cJSON_IsString(item) && strcmp(item->valuestring, names[i]) == 0) {
			parse->config->bell_action = (enum bell_action)i;
			return 0;
		}
	return invalid(parse, "bell_action", "must be \"any\", \"none\" or \"current\"");
}

static int set_set_clipboard(struct config_parse *parse, const cJSON *item)
{
	static const char *const names[] = { [CLIPBOARD_OFF] = "off", [CLIPBOARD_ON] = "on",
					     [CLIPBOARD_ASK] = "ask" };

	for (size_t i = CLIPBOARD_OFF; i < sizeof names / sizeof names[0]; i++)
		if (cJSON_IsString(item) && strcmp(item->valuestring, names[i]) == 0) {
			parse->config->set_clipboard = (enum set_clipboard)i;
			return 0;
		}
	return invalid(parse, "set_clipboard", "must be \"off\", \"on\" or \"ask\"");
}

static int set_default_shell(struct config_parse *parse, const cJSON *item)
{
	if (cJSON_IsString(item) && item->valuestring[0] != 0 && item->valuestring[0] != '/')
		return invalid(parse, "default_shell", "must be an absolute path");
	return copy_string(parse, item, parse->config->default_shell,
			   sizeof parse->config->default_shell);
}

/* Off by default (docs/design.md invariant 3): a split from a sandboxed
 * pane runs on the host unless the user asked for inheritance. */
static int set_inherit_backend(struct config_parse *parse, const cJSON *item)
{
	if (!cJSON_IsBool(item))
		return invalid(parse, "inherit_backend", "must be true or false");
	parse->config->inherit_backend = cJSON_IsTrue(item);
	return 0;
}

static int set_default_backend(struct config_parse *parse, const cJSON *item)
{
	static const char *const backends[] = {"none", "native", "microvm"};

	if (!cJSON_IsString(item))
		return invalid(parse, "default_backend",
			       "must be \"none\", \"native\" or \"microvm\"");
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
		if (strcmp(item->valuestring, backends[i]) == 0) {
			snprintf(parse->config->default_backend,
				 sizeof parse->config->default_backend, "%s", backends[i]);
			parse->config->default_backend_set = true;
			return 0;
		}
	}
	sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
		     "%s: \"default_backend\": \"%s\" is not a backend (none, native, microvm)",
		     parse->source, item->valuestring);
	return -1;
}

static int add_binding(struct config_parse *parse, const cJSON *member)
{
	struct config *config = parse->config;
	struct binding *grown, *entry;
	struct sm_error command_err;

	if (!cJSON_IsString(member) && !cJSON_IsNull(member)) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"bindings\": the value for \"%s\" must be a command string",
			     parse->source, member->string);
		return -1;
	}
	grown = xrealloc(config->bindings, (config->nbindings + 1) * sizeof *grown);
	config->bindings = grown;
	entry = &config->bindings[config->nbindings];
	if (!key_name_canonical(member->string, entry->key, sizeof entry->key)) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"bindings\": \"%s\" is not a key name", parse->source,
			     member->string);
		return -1;
	}
	if (cJSON_IsNull(member) || member->valuestring[0] == 0) {
		entry->command[0] = 0;
	} else {
		if (strlen(member->valuestring) >= sizeof entry->command)
			return invalid(parse, member->string, "binds a command that is too long");
		if (!command_binding_valid(member->valuestring, &command_err)) {
			sm_error_set(parse->err, SM_ERR_CONFIG_INVALID, "%s: \"bindings\": \"%s\": %s",
				     parse->source, member->string, command_err.message);
			return -1;
		}
		snprintf(entry->command, sizeof entry->command, "%s", member->valuestring);
	}
	config->nbindings++;
	return 0;
}

/* An object whose every member goes to add(), which stops at an error. */
static int each_member(struct config_parse *parse, const cJSON *item, const char *what,
		       int (*add)(struct config_parse *parse, const cJSON *member))
{
	const cJSON *member;

	if (!cJSON_IsObject(item))
		return invalid(parse, item->string, what);
	cJSON_ArrayForEach(member, item)
	{
		if (add(parse, member) != 0)
			return -1;
	}
	return 0;
}

static int set_bindings(struct config_parse *parse, const cJSON *item)
{
	return each_member(parse, item, "must be an object mapping keys to commands", add_binding);
}

/* A key of a mode's table: the command must be one of the mode's. */
static int add_table_binding(struct config_parse *parse, const cJSON *member)
{
	struct config *config = parse->config;
	struct table_binding *grown, *entry;
	const char *command = cJSON_IsString(member) ? member->valuestring : "";
	struct sm_error why = {0};

	if (!cJSON_IsString(member) && !cJSON_IsNull(member)) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"key_tables\": \"%s\": the value for \"%s\" must be a command "
			     "string",
			     parse->source, parse->table, member->string);
		return -1;
	}
	grown = xrealloc(config->table_bindings, (config->ntable_bindings + 1) * sizeof *grown);
	config->table_bindings = grown;
	entry = &config->table_bindings[config->ntable_bindings];
	memset(entry, 0, sizeof *entry);
	snprintf(entry->table, sizeof entry->table, "%s", parse->table);
	if (!key_name_canonical(member->string, entry->binding.key, sizeof entry->binding.key)) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"key_tables\": \"%s\": \"%s\" is not a key name", parse->source,
			     parse->table, member->string);
		return -1;
	}
	if (strlen(command) >= sizeof entry->binding.command ||
	    mode_table_check(parse->table, command, &why) < 0) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
			     "%s: \"key_tables\": \"%s\": \"%s\": %s", parse->source, parse->table,
			     member->string,
			     why.message[0] ? why.message : "the command is too long");
		return -1;
	}
	snprintf(entry->binding.command, sizeof entry->binding.command, "%s", command);
	config->ntable_bindings++;
	return 0;
}

/* "key_tables": {"copy-mode": {KEY: COMMAND}, "prefix": {...}}; the
 * prefix table's keys are "bindings"' own. */
static int add_key_table(struct config_parse *parse, const cJSON *member)
{
	struct sm_error why = {0};
	int rc;

	if (strcmp(member->string, "prefix") == 0)
		return set_bindings(parse, member);
	if (key_table_def_find(member->string, &why) == NULL) {
		sm_error_set(parse->err, SM_ERR_CONFIG_INVALID, "%s: \"key_tables\": %s",
			     parse->source, why.message);
		return -1;
	}
	parse->table = member->string;
	rc = each_member(parse, member, "must be an object mapping keys to commands",
			 add_table_binding);
	parse->table = NULL;
	return rc;
}

static int set_key_tables(struct config_parse *parse, const cJSON *item)
{
	return each_member(parse, item, "must be an object mapping table names to keys",
			   add_key_table);
}

static int add_profile(struct config_parse *parse, const cJSON *member)
{
	struct config *config = parse->config;
	struct sandbox_profile *grown;
	struct sm_error why;

	for (size_t i = 0; i < config->nprofiles; i++)
		if (strcmp(config->profiles[i].name, member->string) == 0) {
			sm_error_set(parse->err, SM_ERR_CONFIG_INVALID,
				     "%s: \"profiles\": \"%s\" is defined twice", parse->source,
				     member->string);
			return -1;
		}
	grown = xrealloc(config->profiles, (config->nprofiles + 1) * sizeof *grown);
	config->profiles = grown;
	if (profile_from_json(member->string, member, &config->profiles[config->nprofiles],
			      &why) != 0) {
		sm_error_set(parse->err, why.code, "%s: %s", parse->source, why.message);
		return -1;
	}
	config->nprofiles++;
	return 0;
}

static int set_profiles(struct config_parse *parse, const cJSON *item)
{
	return each_member(parse, item, "must be an object mapping names to profiles", add_profile);
}

static const struct {
	const char *key;
	int (*set)(struct config_parse *parse, const cJSON *item);
} config_keys[] = {
    {"prefix", set_prefix},
    {"bindings", set_bindings},
    {"key_tables", set_key_tables},
    {"theme", set_theme},
    {"scrollback", set_scrollback},
    {"status", set_status},
    {"status_left", set_status_left},
    {"status_right", set_status_right},
    {"bell_action", set_bell_action},
    {"vi_pane_keys", set_vi_pane_keys},
    {"renumber_windows", set_renumber_windows},
    {"window_size", set_window_size},
    {"repeat_time", set_repeat_time},
    {"display_panes_time", set_display_panes_time},
    {"paste_across_backends", set_paste_across_backends},
    {"set_clipboard", set_set_clipboard},
    {"default_shell", set_default_shell},
    {"default_backend", set_default_backend},
    {"inherit_backend", set_inherit_backend},
    {"profiles", set_profiles},
};

static int config_apply_member(struct config_parse *parse, const cJSON *member)
{
	for (size_t i = 0; i < sizeof config_keys / sizeof config_keys[0]; i++)
		if (strcmp(member->string, config_keys[i].key) == 0)
			return config_keys[i].set(parse, member);
	sm_error_set(parse->err, SM_ERR_CONFIG_UNKNOWN_KEY,
		     "%s: unknown key \"%s\" (known: prefix, bindings, key_tables, theme, "
		     "scrollback, status, status_left, status_right, bell_action, vi_pane_keys, "
		     "renumber_windows, window_size, repeat_time, display_panes_time, "
		     "paste_across_backends, set_clipboard, default_shell, default_backend, "
		     "inherit_backend, profiles)",
		     parse->source, member->string);
	return -1;
}

static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at && *p != 0; p++)
		if (*p == '\n')
			line++;
	return line;
}

static int config_parse_text(const char *text, const char *source, struct config *config,
			     struct sm_error *err)
{
	struct config parsed = *config;
	struct config_parse parse = {source, &parsed, err, NULL};
	const char *error_at = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &error_at, true);
	const cJSON *member;
	int rc = 0;

	/* The parse works on a copy with its own bindings array, so a failure
	 * half way leaves the caller's config as it was. */
	parsed.bindings = NULL;
	parsed.nbindings = 0;
	parsed.table_bindings = NULL;
	parsed.ntable_bindings = 0;
	parsed.profiles = NULL;
	parsed.nprofiles = 0;
	if (root == NULL || !cJSON_IsObject(root)) {
		sm_error_set(err, SM_ERR_CONFIG_PARSE_ERROR, "%s: line %d: %s", source,
			     error_at ? line_of(text, error_at) : 1,
			     root == NULL ? "invalid JSON" : "the file must hold one JSON object");
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(member, root)
	{
		if ((rc = config_apply_member(&parse, member)) != 0)
			break;
	}
	cJSON_Delete(root);
	if (rc != 0) {
		config_free(&parsed);
		return -1;
	}
	config_free(config);
	*config = parsed;
	return 0;
}

int config_load(const char *path, struct config *config, struct sm_error *err)
{
	char default_path[PATH_MAX];
	const char *file = path ? path : config_default_path(default_path, sizeof default_path);
	FILE *f = fopen(file, "r");
	char *text;
	size_t len;
	int rc;

	if (f == NULL) {
		if (errno == ENOENT && path == NULL)
			return 0;
		sm_error_set(err, errno == ENOENT ? SM_ERR_CONFIG_NOT_FOUND : SM_ERR_CONFIG_READ_ERROR,
			     "%s: %s", file, strerror(errno));
		return -1;
	}
	text = xmalloc(CONFIG_FILE_MAX + 1);
	len = fread(text, 1, CONFIG_FILE_MAX + 1, f);
	rc = ferror(f);
	fclose(f);
	if (rc != 0 || len > CONFIG_FILE_MAX) {
		free(text);
		sm_error_set(err, SM_ERR_CONFIG_READ_ERROR, "%s: %s", file,
			     rc ? "read error" : "larger than 1 MiB");
		return -1;
	}
	text[len] = 0;
	rc = config_parse_text(text, file, config, err);
	free(text);
	return rc;
}

int config_check_main(const char *path)
{
	char default_path[PATH_MAX];
	const char *file = path ? path : config_default_path(default_path, sizeof default_path);
	struct config config;
	struct sm_error err = {"", ""};
	struct theme theme;

	config_defaults(&config);
	if (config_load(path, &config, &err) != 0) {
		fprintf(stderr, "sandmux: %s (%s)\n", err.message, err.code);
		config_free(&config);
		return 1;
	}
	if (theme_load(config.theme, &theme, &err) != 0) {
		fprintf(stderr, "sandmux: %s: \"theme\": %s (%s)\n", file, err.message, err.code);
		config_free(&config);
		return 1;
	}
	if (path == NULL && access(file, F_OK) != 0)
		printf("%s: not present, the defaults apply\n", file);
	else
		printf("%s: OK (prefix %s, theme %s, %zu binding%s)\n", file, config.prefix,
		       theme.path[0] ? theme.path : "built-in default", config.nbindings,
		       config.nbindings == 1 ? "" : "s");
	config_free(&config);
	return 0;
}
