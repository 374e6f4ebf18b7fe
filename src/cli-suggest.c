/*
 * suggest: `sandmux profile suggest`, a profile learned from the
 * violation log (learn mode, as AppArmor's aa-logprof learns from the
 * audit log).
 *
 * It reads the durable events log ($XDG_STATE_HOME/sandmux/events.jsonl
 * and its rotated files, oldest first), keeps the violations of one pane
 * or one session (and, with --since, the recent ones), and proposes the
 * profile that would have allowed them: the pane's own profile plus
 * writable roots, state directories and egress allowlist entries, each
 * the smallest that fits:
 *   - a denied write gives the nearest existing directory of what was
 *     written, symlinks resolved (the final object: a link in the work
 *     tree that leads to ~/.ssh grants nothing);
 *   - a denied host gives the host itself, and a wildcard (`*.d.com`)
 *     only where two or more names below one domain were denied and the
 *     wildcard is one the allowlist accepts (never over a public suffix).
 * What it would never allow is listed with the reason instead: secret
 * stores, host-run files and sandmux's own (docs/design.md invariant 7),
 * system directories and $HOME as a whole (too broad to be "smallest"),
 * new secret-named files, and hosts on the fixed deny list.
 *
 * stdout gets only the config JSON ({"profiles": {NAME: {...}}}), so it
 * can be piped into a file and checked with --check-config; what is not
 * allowed, and why, goes to stderr.  `--apply NAME` writes the profile
 * into the config through config-edit.c (a diff, then a confirmation).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "allowlist.h"
#include "bwrap.h"
#include "cli.h"
#include "config-edit.h"
#include "config.h"
#include "error.h"
#include "hostrun.h"
#include "sandbox.h"
#include "sanitise.h"
#include "server.h"
#include "strvec.h"
#include "xalloc.h"
#include "subpath.h"

/* Which violations to learn from. */
struct suggest_filter {
	int pane;	     /* > 0: only this pane's */
	const char *session; /* non-NULL: only this session's */
	double since;	     /* only events at or after this time */
};

/* A denial the suggestion leaves denied, folded by action and target. */
struct refusal {
	char *action, *target, *reason;
	int count;
};

struct suggestion {
	char profile[64];	  /* the pane's profile, "" when the log has none */
	struct strvec profiles;	  /* every profile the selected panes ran under */
	struct strvec writable;	  /* new writable roots, as the config writes them */
	struct strvec state_dirs; /* new state directories */
	struct strvec hosts;	  /* denied names and IP literals, lower case */
	struct refusal *refusals;
	size_t nrefusals;
	struct cJSON *events;	      /* the selected violations, in log order */
	int violations;		      /* how many were learned from */
	bool mode_chat;		      /* the base's mode keeps writable roots writable */
	char home[PATH_MAX];	      /* $HOME, resolved */
	struct strvec secret;	      /* the built-in deny-read roots, both spellings */
	struct strvec host_run;	      /* hostrun_paths, resolved too */
	struct allowlist *deny_check; /* the fixed lists alone, to judge hosts now */
};

/* --- small path helpers ---------------------------------------------------- */

/* A host-run component run (".git/hooks") in path, at component
 * boundaries, or path inside one. */
static bool hostrun_component_hit(const char *path)
{
	for (size_t r = 0; hostrun_components[r] != NULL; r++) {
		const char *rule = hostrun_components[r];
		size_t n = strlen(rule);

		for (const char *p = path; (p = strchr(p, '/')) != NULL; p++)
			if (strncmp(p + 1, rule, n) == 0 && (p[1 + n] == '\0' || p[1 + n] == '/'))
				return true;
	}
	return false;
}

/* The nearest existing directory at or above the parent of target,
 * resolved (realpath); false when there is none below "/". */
static bool nearest_directory(const char *target, char *out)
{
	char walk[PATH_MAX];
	struct stat st;
	char *slash;

	snprintf(walk, sizeof walk, "%s", target);
	while ((slash = strrchr(walk, '/')) != NULL && slash != walk) {
		*slash = '\0';
		if (stat(walk, &st) == 0 && S_ISDIR(st.st_mode))
			return realpath(walk, out) != NULL;
	}
	snprintf(out, PATH_MAX, "/");
	return true;
}

/* Top-level directories that are never a smallest fit: a write that
 * lands directly in one is refused rather than make it writable. */
static const char *const broad_dirs[] = {"/",	 "/home",  "/var", "/opt",  "/srv",
					 "/mnt", "/media", "/tmp", "/root", NULL};
/* The host's software and settings: nothing below is ever suggested. */
static const char *const system_dirs[] = {
    "/usr",  "/etc", "/boot", "/bin", "/sbin",	  "/lib",     "/lib32",	    "/lib64", "/libx32",
    "/proc", "/sys", "/dev",  "/run", "/var/lib", "/var/log", "/var/spool", NULL};

/* --- the reasons a denial stays denied -------------------------------------- */

#define WHY_SECRET "a secret store (the built-in deny-read list: ~/.ssh, ~/.aws, ~/.gnupg, ...)"
#define WHY_DENY_READ "unreadable by the profile's deny_read list (change that list by hand)"
#define WHY_HOST_RUN                                                                               \
	"a host-run file or sandmux's own: the host runs or reads it later (docs/security.md)"
#define WHY_SYSTEM "a system directory (the host's software and settings)"
#define WHY_PATTERN "a new file named like a secret (the profile's deny_create_patterns)"
#define WHY_DENYLIST "on the fixed deny list (cloud metadata, telemetry): no profile can allow it"

static void refuse(struct suggestion *s, const char *action, const char *target, const char *why)
{
	for (size_t i = 0; i < s->nrefusals; i++)
		if (strcmp(s->refusals[i].action, action) == 0 &&
		    strcmp(s->refusals[i].target, target) == 0) {
			s->refusals[i].count++;
			return;
		}
	s->refusals = xrealloc(s->refusals, (s->nrefusals + 1) * sizeof *s->refusals);
	s->refusals[s->nrefusals++] = (struct refusal){.action = xstrdup(action),
						       .target = xstrdup(target),
						       .reason = xstrdup(why),
						       .count = 1};
}

/* Why this path may never become writable, or NULL.  path is absolute. */
static const char *protected_reason(const struct suggestion *s, const char *path)
{
	if (subpath_of_any(path, &s->secret))
		return WHY_SECRET;
	if (subpath_of_any(path, &s->host_run) || hostrun_component_hit(path))
		return WHY_HOST_RUN;
	return NULL;
}

static const char *too_broad_reason(const struct suggestion *s, const char *dir)
{
	static char why[PATH_MAX + 96];

	for (size_t i = 0; system_dirs[i] != NULL; i++)
		if (subpath_of(dir, system_dirs[i]))
			return WHY_SYSTEM;
	for (size_t i = 0; broad_dirs[i] != NULL; i++)
		if (strcmp(dir, broad_dirs[i]) == 0) {
			snprintf(why, sizeof why,
				 "the nearest existing directory is %s: too broad to "
				 "make writable (create the directory it wanted first)",
				 dir);
			return why;
		}
	if (s->home[0] != '\0' && subpath_of(s->home, dir))
		return "the nearest existing directory is $HOME (or above it): too broad; create "
		       "the directory it wanted first, or use a profile with home_writable";
	return NULL;
}

/* "~/x" for a path below $HOME, else the path. */
static void config_spelling(const struct suggestion *s, const char *path, char *out, size_t size)
{
	size_t n = strlen(s->home);

	if (n > 1 && strncmp(path, s->home, n) == 0 && path[n] == '/')
		snprintf(out, size, "~%s", path + n);
	else
		snprintf(out, size, "%s", path);
}

/* A cache or a tool's state: writable in every mode (state_dirs). */
static bool state_like(const struct suggestion *s, const char *dir)
{
	char cache[PATH_MAX + 16], state[PATH_MAX + 16];
	const char *xdg_cache = getenv("XDG_CACHE_HOME");

	snprintf(cache, sizeof cache, "%s/.cache", s->home);
	snprintf(state, sizeof state, "%s/.local/state", s->home);
	return subpath_of(dir, cache) || subpath_of(dir, state) ||
	       (xdg_cache != NULL && xdg_cache[0] == '/' && subpath_of(dir, xdg_cache));
}

/* Add dir to list unless it, or an ancestor, is there; drop descendants. */
static void add_root(struct strvec *list, const char *dir)
{
	size_t j = 0;

	for (size_t i = 0; i < list->n; i++)
		if (subpath_of(dir, list->v[i]))
			return;
	for (size_t i = 0; i < list->n; i++) {
		if (subpath_of(list->v[i], dir))
			free(list->v[i]);
		else
			list->v[j++] = list->v[i];
	}
	list->n = j;
	if (list->v != NULL)
		list->v[j] = NULL;
	strvec_push(list, dir);
}

/* --- one violation ------------------------------------------------------------ */

/* The supervisor's reason, the last "(...)" of its raw line:
 * `openat("/p") = -EROFS (outside the writable roots)`. */
static void raw_reason(const char *raw, char *out, size_t size)
{
	const char *eq = raw != NULL ? strstr(raw, ") = -") : NULL;
	const char *open, *close;

	out[0] = '\0';
	for (const char *next = eq; next != NULL; next = strstr(next + 1, ") = -"))
		eq = next;
	if (eq == NULL || (open = strstr(eq, " (")) == NULL || (close = strrchr(open, ')')) == NULL)
		return;
	snprintf(out, size, "%.*s", (int)(close - open - 2), open + 2);
}

static void learn_write(struct suggestion *s, const char *action, const char *target,
			const char *why)
{
	char dir[PATH_MAX], spelled[PATH_MAX + 2];
	const char *no;

	if (target[0] != '/') {
		refuse(s, action, target, "not an absolute path");
		return;
	}
	if (strcmp(action, "file-write-create") == 0) {
		refuse(s, action, target, WHY_PATTERN);
		return;
	}
	if ((no = protected_reason(s, target)) != NULL) {
		refuse(s, action, target, no);
		return;
	}
	if (strcmp(why, "deny-read root") == 0) {
		refuse(s, action, target, WHY_DENY_READ);
		return;
	}
	if (why[0] == '\0') {
		refuse(s, action, target, "the log does not say which rule denied it");
		return;
	}
	if (strcmp(why, "outside the writable roots") != 0) {
		char text[PATH_MAX + 64];

		snprintf(text, sizeof text, "kept read-only by the rule \"%s\" on purpose", why);
		refuse(s, action, target, text);
		return;
	}
	/* Decided on the directory a grant would really open, links
	 * resolved, never on the spelling in the log. */
	if (!nearest_directory(target, dir)) {
		refuse(s, action, target, "no existing directory above it");
		return;
	}
	if ((no = protected_reason(s, dir)) != NULL || (no = too_broad_reason(s, dir)) != NULL) {
		refuse(s, action, target, no);
		return;
	}
	config_spelling(s, dir, spelled, sizeof spelled);
	add_root(state_like(s, dir) || !s->mode_chat ? &s->state_dirs : &s->writable, spelled);
}

/* "host:port", "[v6]:port": the host, lower case. */
static void target_host(const char *target, char *out, size_t size)
{
	const char *colon;
	size_t n;

	if (target[0] == '[' && (colon = strchr(target, ']')) != NULL) {
		snprintf(out, size, "%.*s", (int)(colon - target - 1), target + 1);
	} else {
		colon = strrchr(target, ':');
		n = colon != NULL ? (size_t)(colon - target) : strlen(target);
		snprintf(out, size, "%.*s", (int)n, target);
	}
	for (char *c = out; *c != '\0'; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
}

static void learn_network(struct suggestion *s, const char *target, const char *reason)
{
	struct allowlist_decision d;
	char host[ALLOWLIST_HOST_MAX];

	target_host(target, host, sizeof host);
	/* Judged again by today's fixed lists, not by the log's word. */
	allowlist_decide(s->deny_check, host, &d);
	if (d.reason == ALLOWLIST_DENYLIST) {
		refuse(s, "network-outbound", target, WHY_DENYLIST);
		return;
	}
	if (d.reason == ALLOWLIST_INVALID_HOST) {
		refuse(s, "network-outbound", target,
		       "not a host name or address an entry can name");
		return;
	}
	if (reason != NULL && strcmp(reason, "resolves to a forbidden address") == 0) {
		refuse(s, "network-outbound", target,
		       "the name resolved to a forbidden address (loopback, link-local, this "
		       "host's): an entry would not help, by design (docs/network.md)");
		return;
	}
	if (reason != NULL && strcmp(reason, "network disabled") == 0) {
		refuse(s, "network-outbound", target,
		       "the session's network was off (SANDMUX_EGRESS_NETWORK=off)");
		return;
	}
	if (d.allowed)
		return; /* the baseline allows it now */
	if (!strvec_contains(&s->hosts, d.host))
		strvec_push(&s->hosts, d.host);
}

static void learn(struct suggestion *s, const cJSON *ev)
{
	struct sandbox_violation v;
	struct sm_error err = {0};
	const char *action, *target, *raw, *reason;
	char why[PATH_MAX];

	if (sandbox_violation_from_json(ev, &v, &err) != 0)
		return;
	action = v.action;
	target = v.target;
	raw = v.raw;
	reason = v.reason;
	s->violations++;
	if (strcmp(action, "network-outbound") == 0) {
		learn_network(s, target, reason);
		return;
	}
	if (strcmp(action, "file-read*") == 0) {
		refuse(s, action, target,
		       subpath_of_any(target, &s->secret) ? WHY_SECRET : WHY_DENY_READ);
		return;
	}
	if (strncmp(action, "file-write", 10) == 0) {
		raw_reason(raw, why, sizeof why);
		learn_write(s, action, target, reason != NULL ? reason : why);
		return;
	}
	refuse(s, action, target, "not a file or network denial a profile field changes");
}

/* --- hosts into entries ---------------------------------------------------- */

/* Is name strictly below domain? */
static bool below(const char *name, const char *domain)
{
	size_t n = strlen(name), d = strlen(domain);

	return n > d + 1 && name[n - d - 1] == '.' && strcmp(name + n - d, domain) == 0;
}

/* The longest domain (two labels or more) with two or more of the
 * uncovered names below it whose wildcard the allowlist accepts, or
 * false. */
static bool best_domain(const struct strvec *names, const bool *covered, char *out, size_t size)
{
	size_t best = 0;

	for (size_t i = 0; i < names->n; i++) {
		if (covered[i])
			continue;
		for (const char *dot = strchr(names->v[i], '.'); dot != NULL;
		     dot = strchr(dot + 1, '.')) {
			const char *domain = dot + 1;
			char wildcard[ALLOWLIST_HOST_MAX + 2];
			struct sm_error err = {0};
			int count = 0;

			if (strchr(domain, '.') == NULL || strlen(domain) <= best)
				continue;
			for (size_t j = 0; j < names->n; j++)
				count += !covered[j] && below(names->v[j], domain);
			snprintf(wildcard, sizeof wildcard, "*.%s", domain);
			if (count >= 2 && allowlist_entry_check(wildcard, &err) == 0) {
				best = strlen(domain);
				snprintf(out, size, "%s", domain);
			}
		}
	}
	return best > 0;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The smallest entries: names as they are, but several below one domain
 * become its wildcard; IP literals always exactly. */
static void host_entries(const struct suggestion *s, struct strvec *out)
{
	struct strvec names = STRVEC_INIT;
	bool *covered;
	char domain[ALLOWLIST_HOST_MAX];
	struct allowlist_ip ip;

	for (size_t i = 0; i < s->hosts.n; i++)
		if (allowlist_ip_parse(s->hosts.v[i], &ip) == 0)
			strvec_push(out, s->hosts.v[i]);
		else
			strvec_push(&names, s->hosts.v[i]);
	covered = xcalloc(names.n + 1, sizeof *covered);
	while (best_domain(&names, covered, domain, sizeof domain)) {
		char wildcard[ALLOWLIST_HOST_MAX + 2];

		for (size_t j = 0; j < names.n; j++)
			covered[j] = covered[j] || below(names.v[j], domain);
		snprintf(wildcard, sizeof wildcard, "*.%s", domain);
		strvec_push(out, wildcard);
	}
	for (size_t j = 0; j < names.n; j++)
		if (!covered[j])
			strvec_push(out, names.v[j]);
	free(covered);
	strvec_free(&names);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, compare_strings);
}

/* --- reading the log ----------------------------------------------------------- */

static bool selected(const struct suggest_filter *f, const cJSON *ev)
{
	const cJSON *pane = cJSON_GetObjectItem(ev, "pane");
	const cJSON *t = cJSON_GetObjectItem(ev, "time");
	const char *session = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "session"));

	if (f->pane > 0 && (!cJSON_IsNumber(pane) || pane->valueint != f->pane))
		return false;
	if (f->session != NULL && (session == NULL || strcmp(session, f->session) != 0))
		return false;
	return !cJSON_IsNumber(t) || t->valuedouble >= f->since;
}

static void read_event(struct suggestion *s, const struct suggest_filter *f, const cJSON *ev)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));
	const char *profile = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "profile"));

	if (kind == NULL || !selected(f, ev))
		return;
	/* The lifecycle says which profile the pane ran under, and so does
	 * a violation (lines written before violations carried it do not). */
	if ((strcmp(kind, "starting") == 0 || strcmp(kind, "violation") == 0) && profile != NULL) {
		snprintf(s->profile, sizeof s->profile, "%s", profile);
		if (!strvec_contains(&s->profiles, profile))
			strvec_push(&s->profiles, profile);
	}
	if (strcmp(kind, "violation") == 0)
		cJSON_AddItemToArray(s->events, cJSON_Duplicate(ev, true));
}

/* One log file, line by line; a torn or foreign line is skipped. */
static void read_log(struct suggestion *s, const struct suggest_filter *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (in == NULL)
		return;
	while (getline(&line, &cap, in) > 0) {
		cJSON *ev = line[0] == '{' ? cJSON_Parse(line) : NULL;

		if (ev != NULL)
			read_event(s, f, ev);
		cJSON_Delete(ev);
	}
	free(line);
	fclose(in);
}

/* The log and its rotated files (events.c keeps five), oldest first. */
static int read_logs(struct suggestion *s, const struct suggest_filter *f, const char *log,
		     struct sm_error *err)
{
	char path[PATH_MAX + 8];

	if (access(log, R_OK) != 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot read the events log %s: %s", log,
			     strerror(errno));
		return -1;
	}
	for (int i = 5; i >= 1; i--) {
		snprintf(path, sizeof path, "%s.%d", log, i);
		read_log(s, f, path);
	}
	read_log(s, f, log);
	return 0;
}

/* --- the profile ---------------------------------------------------------------- */

static void suggestion_init(struct suggestion *s)
{
	const char *home = getenv("HOME");
	struct strvec raw = STRVEC_INIT;
	struct sm_error err = {0};

	memset(s, 0, sizeof *s);
	s->mode_chat = true;
	s->events = cJSON_CreateArray();
	if (home != NULL && home[0] == '/' && realpath(home, s->home) == NULL)
		snprintf(s->home, sizeof s->home, "%s", home);
	for (size_t i = 0; home != NULL && bwrap_deny_read_defaults[i] != NULL; i++) {
		char *p = sandbox_expand_home(bwrap_deny_read_defaults[i], home);

		if (p != NULL)
			sandbox_deny_spellings(p, &s->secret);
		free(p);
	}
	if (home != NULL && hostrun_paths(home, environ, &raw) == 0)
		for (size_t i = 0; i < raw.n; i++)
			sandbox_deny_spellings(raw.v[i], &s->host_run);
	strvec_free(&raw);
	s->deny_check = allowlist_new(true, NULL, 0, &err);
}

static void suggestion_free(struct suggestion *s)
{
	for (size_t i = 0; i < s->nrefusals; i++) {
		free(s->refusals[i].action);
		free(s->refusals[i].target);
		free(s->refusals[i].reason);
	}
	free(s->refusals);
	cJSON_Delete(s->events);
	strvec_free(&s->profiles);
	strvec_free(&s->writable);
	strvec_free(&s->state_dirs);
	strvec_free(&s->hosts);
	strvec_free(&s->secret);
	strvec_free(&s->host_run);
	allowlist_free(s->deny_check);
}

/* The config's own entry for a profile, or NULL (built in, or gone). */
static cJSON *config_profile(const char *name, cJSON **config)
{
	char path[PATH_MAX];
	struct sm_error err = {0};

	*config = config_edit_read(config_default_path(path, sizeof path), &err);
	return *config != NULL ? cJSON_GetObjectItemCaseSensitive(
				     cJSON_GetObjectItemCaseSensitive(*config, "profiles"), name)
			       : NULL;
}

/* Append list to the object's array field, skipping what is there. */
static void merge_list(cJSON *profile, const char *key, const struct strvec *list)
{
	cJSON *array = cJSON_GetObjectItemCaseSensitive(profile, key);

	if (list->n == 0)
		return;
	if (!cJSON_IsArray(array)) {
		cJSON_DeleteItemFromObjectCaseSensitive(profile, key);
		array = cJSON_AddArrayToObject(profile, key);
	}
	for (size_t i = 0; i < list->n; i++) {
		const cJSON *have;
		bool found = false;

		cJSON_ArrayForEach(have, array) found =
		    found || (cJSON_IsString(have) && strcmp(have->valuestring, list->v[i]) == 0);
		if (!found)
			cJSON_AddItemToArray(array, cJSON_CreateString(list->v[i]));
	}
}

/* The pane's profile (the config's entry copied, or {"base": NAME} for a
 * built-in) with what was learned added. */
static cJSON *suggested_profile(struct suggestion *s, const char *base)
{
	cJSON *config = NULL, *from = config_profile(base, &config);
	cJSON *profile = from != NULL ? cJSON_Duplicate(from, true) : cJSON_CreateObject();
	struct strvec hosts = STRVEC_INIT;

	if (from == NULL)
		cJSON_AddStringToObject(profile, "base", base);
	cJSON_Delete(config);
	host_entries(s, &hosts);
	if (s->writable.n > 1)
		qsort(s->writable.v, s->writable.n, sizeof *s->writable.v, compare_strings);
	if (s->state_dirs.n > 1)
		qsort(s->state_dirs.v, s->state_dirs.n, sizeof *s->state_dirs.v, compare_strings);
	merge_list(profile, "writable", &s->writable);
	merge_list(profile, "state_dirs", &s->state_dirs);
	merge_list(profile, "egress_allowlist", &hosts);
	strvec_free(&hosts);
	return profile;
}

/* The base's mode, so writes outside mode chat go to state_dirs. */
static void read_mode(struct suggestion *s, const char *base)
{
	cJSON *config = NULL, *from = config_profile(base, &config);
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItem(from, "mode"));

	s->mode_chat = mode == NULL || strcmp(mode, "chat") == 0;
	cJSON_Delete(config);
}

static void print_refusals(const struct suggestion *s)
{
	for (size_t i = 0; i < s->nrefusals; i++) {
		const struct refusal *r = &s->refusals[i];
		char count[24] = "";

		if (r->count > 1)
			snprintf(count, sizeof count, " (x%d)", r->count);
		/* The target is a pane's choice (sanitise.c). */
		fputs("not allowed: ", stderr);
		sanitise_fputs(r->action, stderr);
		fputc(' ', stderr);
		sanitise_fputs(r->target, stderr);
		fprintf(stderr, "%s: ", count);
		sanitise_fputs(r->reason, stderr);
		fputc('\n', stderr);
	}
}

/* --- the verb ------------------------------------------------------------------- */

/* --since: seconds since the epoch, a duration ago ("30m", "2h", "1d",
 * "90s"), or a local time "YYYY-MM-DDTHH:MM[:SS]" (or with a blank). */
static int parse_since(const char *text, double *out)
{
	char *end;
	double n = strtod(text, &end);
	struct tm tm = {0};
	const char *rest;

	if (end != text && *end == '\0' && n >= 0) {
		*out = n;
		return 0;
	}
	if (end != text && n >= 0 && end[1] == '\0' && strchr("smhd", *end) != NULL) {
		double unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 86400;
		*out = (double)time(NULL) - n * unit;
		return 0;
	}
	rest = strptime(text, "%Y-%m-%d", &tm);
	if (rest != NULL && (*rest == 'T' || *rest == ' ')) {
		const char *after = strptime(rest + 1, "%H:%M:%S", &tm);
		rest = after != NULL ? after : strptime(rest + 1, "%H:%M", &tm);
	}
	if (rest == NULL || *rest != '\0')
		return -1;
	tm.tm_isdst = -1;
	*out = (double)mktime(&tm);
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr,
		"sandmux: profile: %s (invalid_command)\n"
		"usage: sandmux profile suggest -t PANE | --session SESSION [--since TIME] "
		"[--apply NAME [--yes]]\n",
		why);
	return 2;
}

/* --help anywhere: what each option does, on stdout, exit 0. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

static void print_help(void)
{
	printf("usage: sandmux profile suggest -t PANE | --session SESSION [--since TIME] "
	       "[--apply NAME [--yes]]\n"
	       "  propose a profile from the violation log (learn mode)\n"
	       "  -t, --target       PANE       the pane whose violations are read (%%3)\n"
	       "  -s, --session      SESSION    every pane of a session instead\n"
	       "  --since            TIME       seconds since 1970, 30m / 2h / 1d ago, or "
	       "YYYY-MM-DDTHH:MM[:SS]\n"
	       "  --apply            NAME       write the profile into the config, the diff "
	       "shown first\n"
	       "  -y, --yes                     confirm --apply without a question\n"
	       "usage: sandmux profile show NAME [--platform linux|macos] [-c DIR]\n"
	       "  a profile's effective rules (see sandmux profile-show --help)\n");
}

struct suggest_args {
	struct suggest_filter filter;
	const char *apply;
	bool yes;
};

static int parse_args(int argc, char **argv, struct suggest_args *a)
{
	memset(a, 0, sizeof *a);
	if (argc < 2 || strcmp(argv[1], "suggest") != 0)
		return usage(argc < 2 ? "a subcommand is missing (suggest, show)"
				      : "the subcommands are suggest and show");
	for (int i = 2; i < argc; i++) {
		const char *opt = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (strcmp(opt, "--yes") == 0 || strcmp(opt, "-y") == 0) {
			a->yes = true;
			continue;
		}
		if (value == NULL)
			return usage(strncmp(opt, "-", 1) == 0 ? "an option's value is missing"
							       : "unexpected word");
		i++;
		if (strcmp(opt, "-t") == 0 || strcmp(opt, "--target") == 0) {
			long id = strtol(value + (value[0] == '%'), &end, 10);

			if (end == value + (value[0] == '%') || *end != '\0' || id < 1 ||
			    id > INT_MAX)
				return usage("-t takes a pane id (%3): the log names panes by id");
			a->filter.pane = (int)id;
		} else if (strcmp(opt, "--session") == 0 || strcmp(opt, "-s") == 0) {
			a->filter.session = value;
		} else if (strcmp(opt, "--since") == 0) {
			if (parse_since(value, &a->filter.since) != 0)
				return usage("--since takes seconds since 1970, 30m / 2h / 1d ago, "
					     "or YYYY-MM-DDTHH:MM[:SS]");
		} else if (strcmp(opt, "--apply") == 0) {
			a->apply = value;
		} else {
			return usage("unknown option");
		}
	}
	if ((a->filter.pane > 0) == (a->filter.session != NULL))
		return usage("give one of -t PANE and --session SESSION");
	return 0;
}

/* Which profile to start from: the one the panes ran under. */
static int choose_base(const struct suggestion *s, const char **base, struct sm_error *err)
{
	if (s->profiles.n > 1) {
		char names[256] = "";

		for (size_t i = 0; i < s->profiles.n; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 i ? ", " : "", s->profiles.v[i]);
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "the session's panes ran under different profiles (%s): name one pane "
			     "with -t",
			     names);
		return -1;
	}
	*base = s->profile[0] != '\0' ? s->profile : NULL;
	return 0;
}

int verb_profile(int argc, char **argv)
{
	struct suggest_args a;
	struct suggestion s;
	struct sm_error err = {0};
	char log[PATH_MAX + 16], state[PATH_MAX];
	const char *base = NULL;
	const cJSON *ev;
	cJSON *profile, *config;
	char *text;
	int rc;

	if (argc >= 2 && strcmp(argv[1], "show") == 0)
		return verb_profile_show(argc - 1, argv + 1);
	if (wants_help(argc, argv)) {
		print_help();
		return 0;
	}
	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc;
	if (a.apply != NULL && config_edit_name_check(a.apply, &err) != 0) {
		fprintf(stderr, "sandmux: %s (%s)\n", err.message, err.code);
		return 1;
	}
	paths_state_dir(state, sizeof state);
	snprintf(log, sizeof log, "%s/events.jsonl", state);
	suggestion_init(&s);
	if (read_logs(&s, &a.filter, log, &err) != 0 || choose_base(&s, &base, &err) != 0) {
		fprintf(stderr, "sandmux: profile suggest: %s (%s)\n", err.message, err.code);
		suggestion_free(&s);
		return 1;
	}
	if (base == NULL) {
		/* The log lost the pane's start (rotated away): network
		 * denials only come from proxied panes. */
		base = "terminal";
		cJSON_ArrayForEach(ev, s.events)
		{
			const char *action =
			    cJSON_GetStringValue(cJSON_GetObjectItem(ev, "action"));

			if (action != NULL && strcmp(action, "network-outbound") == 0)
				base = "agent";
		}
		fprintf(stderr,
			"sandmux: profile suggest: the log does not say which profile the "
			"pane ran under; starting from %s\n",
			base);
	}
	/* The base's mode decides where writes go: outside mode chat only
	 * state_dirs are writable. */
	read_mode(&s, base);
	cJSON_ArrayForEach(ev, s.events) learn(&s, ev);
	profile = suggested_profile(&s, base);
	fprintf(stderr, "sandmux: profile suggest: %d violation%s read, starting from profile %s\n",
		s.violations, s.violations == 1 ? "" : "s", base);
	print_refusals(&s);
	config = cJSON_CreateObject();
	cJSON_AddItemToObject(cJSON_AddObjectToObject(config, "profiles"),
			      a.apply != NULL ? a.apply : "suggested",
			      cJSON_Duplicate(profile, true));
	text = cJSON_Print(config);
	printf("%s\n", text);
	fflush(stdout);
	free(text);
	cJSON_Delete(config);
	rc = 0;
	if (a.apply != NULL && config_edit_set_profile(a.apply, profile, a.yes, &err) != 0) {
		fprintf(stderr, "sandmux: profile suggest: %s (%s)\n", err.message, err.code);
		rc = 1;
	}
	cJSON_Delete(profile);
	suggestion_free(&s);
	return rc;
}
