/*
 * profile: the built-in profiles and the config's.  See profile.h.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "error.h"
#include "profile.h"
#include "secret-env.h"

/* The agent profile's new-file name patterns.  Threat: secrets written
 * into the work tree, where tools read them and commits publish them.
 * dotenv files come as ".env", "prod.env" and ".env.local" alike
 * (FNM_PERIOD: "*.env" does not match ".env" itself). */
static const char *const agent_deny_create_patterns[] = {".env", "*.env", ".env.*", "*.key",
							 "*.pem"};

/* The agent profile's mandatory write-denies, kept read-only wherever
 * they appear, even inside a writable root.  Threat: planting what the
 * host runs later outside the sandbox: shell startup files, git hooks
 * and config (aliases, core.hooksPath), submodule URLs, editor tasks and
 * agent commands or MCP servers. */
static const char *const agent_write_denies[] = {
    ".bashrc",	   ".zshrc",	".profile", ".bash_profile", ".gitconfig",	 ".gitmodules",
    ".git/hooks", ".mcp.json", ".vscode",  ".idea",	     ".claude/commands", ".claude/agents",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static struct sandbox_profile builtin_terminal, builtin_agent;
/* The presets, in the order docs/backends.md lists them. */
static struct sandbox_profile builtin_read_only, builtin_workspace_write, builtin_delete_guard,
    builtin_full_access;
static struct sandbox_profile *const builtins[] = {
    &builtin_terminal,	     &builtin_agent,	    &builtin_read_only,
    &builtin_workspace_write, &builtin_delete_guard, &builtin_full_access,
};
static bool builtins_ready;
static struct sandbox_profile *registry;
static size_t nregistry;

/* A preset: the terminal profile's deny-read roots, host-run list and
 * limits, which every native profile keeps; the rest is the preset's. */
static void preset_init(struct sandbox_profile *p, const char *name)
{
	snprintf(p->name, sizeof p->name, "%s", name);
	snprintf(p->base, sizeof p->base, "terminal");
	p->pids_max = PROFILE_PIDS_MAX_DEFAULT;
	p->memory_percent = PROFILE_MEMORY_PERCENT_DEFAULT;
}

static void builtins_init(void)
{
	if (builtins_ready)
		return;
	preset_init(&builtin_terminal, "terminal");
	builtin_terminal.home_writable = true;
	preset_init(&builtin_agent, "agent");
	snprintf(builtin_agent.base, sizeof builtin_agent.base, "agent");
	builtin_agent.proxied_network = true;
	/* read_only: no writable root at all (mode review binds the work
	 * tree read-only); the sandbox's private /tmp is its only place to
	 * write and delete. */
	preset_init(&builtin_read_only, "read_only");
	builtin_read_only.mode = SANDBOX_MODE_REVIEW;
	builtin_read_only.delete_guard = true;
	/* workspace_write: the work tree (its git directories kept to what
	 * everyday git writes, by the supervisor), the temp and the trash;
	 * nothing of $HOME.  Threat: a tool changing files outside the
	 * project it was given, or deleting what it was not given. */
	preset_init(&builtin_workspace_write, "workspace_write");
	builtin_workspace_write.delete_guard = true;
	builtin_workspace_write.trash = true;
	/* delete_guard: the terminal profile (the copy-on-write $HOME
	 * included), but deletes only in the work tree and the temp.
	 * Threat: `rm -rf` of the wrong directory; what a delete would
	 * lose goes to the trash through the pane's `rm`. */
	preset_init(&builtin_delete_guard, "delete_guard");
	builtin_delete_guard.home_writable = true;
	builtin_delete_guard.delete_guard = true;
	builtin_delete_guard.trash = true;
	/* full_access: no sandbox; the pane runs as none (cmd.c), so its
	 * label never claims one. */
	preset_init(&builtin_full_access, "full_access");
	builtin_full_access.home_writable = true;
	builtin_full_access.not_a_sandbox = true;
	/* Out of memory here leaves the lists short; the server is not
	 * going to get far either, and the failure is not silent there. */
	if (strvec_pushv(&builtin_agent.deny_create_patterns, agent_deny_create_patterns,
			 COUNT(agent_deny_create_patterns)) != 0 ||
	    strvec_pushv(&builtin_agent.write_denies, agent_write_denies,
			 COUNT(agent_write_denies)) != 0)
		abort();
	builtins_ready = true;
}

const struct sandbox_profile *profile_find(const char *name)
{
	builtins_init();
	if (name == NULL)
		return &builtin_terminal;
	for (size_t i = 0; i < COUNT(builtins); i++)
		if (strcmp(builtins[i]->name, name) == 0)
			return builtins[i];
	for (size_t i = 0; i < nregistry; i++)
		if (strcmp(registry[i].name, name) == 0)
			return &registry[i];
	return NULL;
}

bool profile_is_builtin(const char *name)
{
	builtins_init();
	for (size_t i = 0; i < COUNT(builtins); i++)
		if (strcmp(builtins[i]->name, name) == 0)
			return true;
	return false;
}

const char *profile_name_at(size_t index)
{
	builtins_init();
	if (index < COUNT(builtins))
		return builtins[index]->name;
	index -= COUNT(builtins);
	return index < nregistry ? registry[index].name : NULL;
}

void profile_names(char *buf, size_t size)
{
	const char *name;

	buf[0] = '\0';
	for (size_t i = 0; (name = profile_name_at(i)) != NULL; i++) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, "%s%s", i > 0 ? ", " : "", name);
	}
}

void profile_free(struct sandbox_profile *p)
{
	strvec_free(&p->writable);
	strvec_free(&p->state_dirs);
	strvec_free(&p->deny_read);
	strvec_free(&p->deny_create_patterns);
	strvec_free(&p->write_denies);
	strvec_free(&p->protected_paths);
	strvec_free(&p->pass_env);
	strvec_free(&p->egress_allowlist);
	strvec_free(&p->exec_interpreters);
	strvec_free(&p->unix_sockets);
}

void profile_registry_set(struct sandbox_profile *profiles, size_t n)
{
	for (size_t i = 0; i < nregistry; i++)
		profile_free(&registry[i]);
	free(registry);
	registry = profiles;
	nregistry = n;
}

/* --- reading a profile from the config --------------------------------- */

static int bad(struct sm_error *err, const char *name, const char *field, const char *what)
{
	sm_error_set(err, SM_ERR_CONFIG_INVALID, "\"profiles\": \"%s\": \"%s\" %s", name, field, what);
	return -1;
}

/* Absolute, or "~/" for $HOME at launch. */
static bool path_ok(const char *s)
{
	return (s[0] == '/' || (s[0] == '~' && s[1] == '/')) && strlen(s) < PATH_MAX;
}

/* Absolute or "~/", naming one file: no glob character, which the
 * Seatbelt generator would turn into a regex (an exec or connect grant
 * wider than the file named). */
static bool file_path_ok(const char *s)
{
	return path_ok(s) && strpbrk(s, "*?") == NULL;
}

/* The last component of a new name: no "/" in it. */
static bool pattern_ok(const char *s)
{
	return s[0] != '\0' && strchr(s, '/') == NULL && strlen(s) < NAME_MAX;
}

/* A relative run of components (".git/hooks"), none of them "." or "..". */
static bool component_run_ok(const char *s)
{
	const char *c = s;

	if (s[0] == '\0' || s[0] == '/' || strlen(s) >= PATH_MAX)
		return false;
	while (c != NULL) {
		const char *end = strchr(c, '/');
		size_t n = end != NULL ? (size_t)(end - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = end != NULL ? end + 1 : NULL;
	}
	return true;
}

/* An egress allowlist entry as docs/network.md defines them (a host, a
 * wildcard over a domain that is not a public suffix, an IP literal). */
static bool allowlist_entry_ok(const char *s)
{
	struct sm_error why = {0};

	return allowlist_entry_check(s, &why) == 0;
}

/* A list field: an array of strings each passing ok(); replaces *out. */
static int read_list(const char *name, const cJSON *item, bool (*ok)(const char *),
		     const char *each, struct strvec *out, struct sm_error *err)
{
	const cJSON *s;
	struct strvec list = STRVEC_INIT;

	if (!cJSON_IsArray(item))
		return bad(err, name, item->string, "must be an array of strings");
	cJSON_ArrayForEach(s, item)
	{
		if (!cJSON_IsString(s) || !ok(s->valuestring)) {
			strvec_free(&list);
			return bad(err, name, item->string, each);
		}
		if (strvec_push(&list, s->valuestring) != 0) {
			strvec_free(&list);
			sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "\"profiles\": \"%s\": out of memory", name);
			return -1;
		}
	}
	strvec_free(out);
	*out = list;
	return 0;
}

static int read_mode(const char *name, const cJSON *item, enum sandbox_mode *out,
		     struct sm_error *err)
{
	for (int m = SANDBOX_MODE_CHAT; m <= SANDBOX_MODE_ORCHESTRATE; m++)
		if (cJSON_IsString(item) && strcmp(item->valuestring, sandbox_mode_name(m)) == 0) {
			*out = (enum sandbox_mode)m;
			return 0;
		}
	return bad(err, name, "mode", "must be one of chat, review, plan, orchestrate");
}

/* The base's values, copied: the profile owns its lists. */
static int start_from(const char *name, const cJSON *json, struct sandbox_profile *out,
		      struct sm_error *err)
{
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(json, "base");
	const struct sandbox_profile *from;

	builtins_init();
	if (base != NULL && (!cJSON_IsString(base) || (strcmp(base->valuestring, "terminal") != 0 &&
						       strcmp(base->valuestring, "agent") != 0)))
		return bad(err, name, "base", "must be \"terminal\" or \"agent\"");
	from = base != NULL && strcmp(base->valuestring, "agent") == 0 ? &builtin_agent
								       : &builtin_terminal;
	snprintf(out->name, sizeof out->name, "%s", name);
	snprintf(out->base, sizeof out->base, "%s", from->name);
	out->mode = from->mode;
	out->home_writable = from->home_writable;
	out->proxied_network = from->proxied_network;
	out->ask_network = from->ask_network;
	out->pids_max = from->pids_max;
	out->memory_max = from->memory_max;
	out->memory_percent = from->memory_percent;
	if (strvec_pushv(&out->deny_create_patterns, (const char *const *)from->deny_create_patterns.v,
			 from->deny_create_patterns.n) != 0 ||
	    strvec_pushv(&out->write_denies, (const char *const *)from->write_denies.v,
			 from->write_denies.n) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "\"profiles\": \"%s\": out of memory", name);
		return -1;
	}
	return 0;
}

/* The fields that are lists, what each entry must be, and where it goes. */
#define PATHS_WHY "must hold absolute or ~/ paths"
#define FILES_WHY "must hold absolute or ~/ paths of files, without * or ?"
static const struct list_field {
	const char *key;
	bool (*ok)(const char *entry);
	const char *why;
	size_t offset;
} list_fields[] = {
    {"writable", path_ok, PATHS_WHY, offsetof(struct sandbox_profile, writable)},
    {"state_dirs", path_ok, PATHS_WHY, offsetof(struct sandbox_profile, state_dirs)},
    {"deny_read", path_ok, PATHS_WHY, offsetof(struct sandbox_profile, deny_read)},
    {"protected_paths", path_ok, PATHS_WHY, offsetof(struct sandbox_profile, protected_paths)},
    {"deny_create_patterns", pattern_ok, "must hold file name patterns without \"/\"",
     offsetof(struct sandbox_profile, deny_create_patterns)},
    {"write_denies", component_run_ok, "must hold relative names such as \".git/hooks\"",
     offsetof(struct sandbox_profile, write_denies)},
    {"egress_allowlist", allowlist_entry_ok,
     "must hold hosts, wildcards (\"*.example.com\") or IP literals, without ports or URLs",
     offsetof(struct sandbox_profile, egress_allowlist)},
    {"exec_interpreters", file_path_ok, FILES_WHY,
     offsetof(struct sandbox_profile, exec_interpreters)},
    {"unix_sockets", file_path_ok, FILES_WHY, offsetof(struct sandbox_profile, unix_sockets)},
    {"pass_env", secret_env_pattern_ok,
     "must hold variable names (letters, digits, _; * and ? as wildcards)",
     offsetof(struct sandbox_profile, pass_env)},
};

int profile_registry_append(const char *name, const char *field, const char *entry,
			    struct sm_error *err)
{
	for (size_t i = 0; i < nregistry; i++) {
		if (strcmp(registry[i].name, name) != 0)
			continue;
		for (size_t k = 0; k < sizeof list_fields / sizeof list_fields[0]; k++) {
			const struct list_field *f = &list_fields[k];
			struct strvec *list = (struct strvec *)((char *)&registry[i] + f->offset);

			if (strcmp(f->key, field) != 0)
				continue;
			if (!f->ok(entry))
				return bad(err, name, field, f->why);
			if (!strvec_contains(list, entry) && strvec_push(list, entry) != 0) {
				sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
				return -1;
			}
			return 0;
		}
		return bad(err, name, field, "is no list of the profile");
	}
	sm_error_set(err, SM_ERR_INVALID_PROFILE, "no profile %s in the config", name);
	return -1;
}

/* "pids_max": a whole number, 0 for no limit. */
static int read_pids_max(const char *name, const cJSON *item, long *out, struct sm_error *err)
{
	if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble > 4194304 ||
	    item->valuedouble != (double)(long)item->valuedouble)
		return bad(err, name, "pids_max",
			   "must be a whole number from 0 (no limit) to 4194304");
	*out = (long)item->valuedouble;
	return 0;
}

/* "memory_max": bytes as a number or with a K, M, G suffix ("512M"), a
 * share of RAM ("50%"), or 0 for no limit. */
static int read_memory_max(const char *name, const cJSON *item, struct sandbox_profile *out,
			   struct sm_error *err)
{
	static const char why[] =
	    "must be bytes (a number, or with K, M or G: \"4G\"), a share of RAM (\"50%\"), or 0";
	unsigned long long value;
	char *end;

	if (cJSON_IsNumber(item)) {
		if (item->valuedouble < 0 || item->valuedouble > 1e18 ||
		    item->valuedouble != (double)(unsigned long long)item->valuedouble)
			return bad(err, name, "memory_max", why);
		out->memory_max = (unsigned long long)item->valuedouble;
		out->memory_percent = 0;
		return 0;
	}
	if (!cJSON_IsString(item) || item->valuestring[0] < '0' || item->valuestring[0] > '9')
		return bad(err, name, "memory_max", why);
	value = strtoull(item->valuestring, &end, 10);
	if (strcmp(end, "%") == 0 && value >= 1 && value <= 100) {
		out->memory_max = 0;
		out->memory_percent = (int)value;
		return 0;
	}
	for (const char *units = "KMG"; *end != '\0' && *units != '\0'; units++) {
		value <<= 10;
		if (*end == *units && end[1] == '\0' && value < (1ULL << 60)) {
			out->memory_max = value;
			out->memory_percent = 0;
			return 0;
		}
	}
	if (*end != '\0' || value > (1ULL << 60))
		return bad(err, name, "memory_max", why);
	out->memory_max = value;
	out->memory_percent = 0;
	return 0;
}

static int read_field(const char *name, const cJSON *item, struct sandbox_profile *out,
		      struct sm_error *err)
{
	const char *key = item->string;

	if (strcmp(key, "base") == 0)
		return 0; /* read first, by start_from */
	if (strcmp(key, "mode") == 0)
		return read_mode(name, item, &out->mode, err);
	if (strcmp(key, "home_writable") == 0) {
		if (!cJSON_IsBool(item))
			return bad(err, name, key, "must be true or false");
		out->home_writable = cJSON_IsTrue(item);
		return 0;
	}
	if (strcmp(key, "network") == 0) {
		if (!cJSON_IsString(item) || (strcmp(item->valuestring, "open") != 0 &&
					      strcmp(item->valuestring, "proxied") != 0 &&
					      strcmp(item->valuestring, "ask") != 0))
			return bad(err, name, key, "must be \"open\", \"proxied\" or \"ask\"");
		/* ask is proxied, with a person asked before an unknown host
		 * is refused (docs/feed.md). */
		out->ask_network = strcmp(item->valuestring, "ask") == 0;
		out->proxied_network = out->ask_network || strcmp(item->valuestring, "proxied") == 0;
		return 0;
	}
	if (strcmp(key, "pids_max") == 0)
		return read_pids_max(name, item, &out->pids_max, err);
	if (strcmp(key, "memory_max") == 0)
		return read_memory_max(name, item, out, err);
	for (size_t i = 0; i < sizeof list_fields / sizeof list_fields[0]; i++) {
		const struct list_field *f = &list_fields[i];

		if (strcmp(key, f->key) == 0)
			return read_list(name, item, f->ok, f->why,
					 (struct strvec *)((char *)out + f->offset), err);
	}
	sm_error_set(err, SM_ERR_CONFIG_UNKNOWN_KEY,
		     "\"profiles\": \"%s\": unknown key \"%s\" (known: base, mode, home_writable, "
		     "network, writable, state_dirs, deny_read, deny_create_patterns, "
		     "write_denies, protected_paths, egress_allowlist, exec_interpreters, "
		     "unix_sockets, pass_env, pids_max, memory_max)",
		     name, key);
	return -1;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > PROFILE_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' || name[i] == '_'))
			return false;
	return true;
}

int profile_from_json(const char *name, const cJSON *json, struct sandbox_profile *out,
		      struct sm_error *err)
{
	const cJSON *item;

	memset(out, 0, sizeof *out);
	if (!name_ok(name)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID,
			     "\"profiles\": \"%.40s\" is not a profile name (1 to %d letters, "
			     "digits, - and _)",
			     name, PROFILE_NAME_MAX);
		return -1;
	}
	if (profile_is_builtin(name)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID,
			     "\"profiles\": \"%s\" is built in; give yours another name (and a "
			     "\"base\": terminal or agent)",
			     name);
		return -1;
	}
	if (!cJSON_IsObject(json)) {
		sm_error_set(err, SM_ERR_CONFIG_INVALID, "\"profiles\": \"%s\" must be an object", name);
		return -1;
	}
	if (start_from(name, json, out, err) != 0) {
		profile_free(out);
		return -1;
	}
	cJSON_ArrayForEach(item, json)
	{
		if (read_field(name, item, out, err) != 0) {
			profile_free(out);
			memset(out, 0, sizeof *out);
			return -1;
		}
	}
	return 0;
}
