/*
 * grant: a person allows what a sandbox was refused (ask mode: `a` in
 * the feed, `sandmux allow`, the `allow` request), or refuses a
 * connection held for that answer (`refuse`, a profile's "network":
 * "ask").  A grant names a pane, whose session and profile it applies
 * to, and a host, and has one of two scopes:
 *
 *   session  the session's egress proxies allow the host from the next
 *            connection on, until the session ends (its proxies stop
 *            with it; a new session starts from its profiles again);
 *   profile  the host is appended to the pane's profile's
 *            "egress_allowlist" in the config file, after the caller
 *            has seen the diff (`dry_run` returns it and writes
 *            nothing); the server's copy of the profile takes it too,
 *            so new panes of the profile get it, and the session has
 *            it now.
 *
 * A refused write's path has only the second: its directory goes into
 * the profile's "writable", for new panes (a mount cannot change under a
 * running pane).
 *
 * Nothing already refused is replayed: a refusal was answered when it
 * happened.  Every grant is a `policy-grant` event in the durable log
 * (who, what, scope) before the reply.
 *
 * What can never be granted, and the threat each refusal stops:
 * - a host on the fixed deny list (cloud metadata, telemetry): the
 *   credentials a metadata service hands out, and the data a telemetry
 *   collector takes, are what a compromised agent wants most, so no
 *   click may open them (host_denylisted);
 * - an address no proxy may reach (loopback, link-local, this host's
 *   own): the proxies would refuse it after resolving anyway, and a
 *   grant that does nothing must not look as if it did;
 * - a host for a pane whose network is not filtered, or a session
 *   without network: there is no list to change (invalid_state).
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "allowlist.h"
#include "cmd.h"
#include "config-edit.h"
#include "config.h"
#include "error.h"
#include "grant.h"
#include "log.h"
#include "profile.h"
#include "session-egress.h"
#include "xalloc.h"

static char config_file[PATH_MAX]; /* "" : the default path */

void grant_use_config(const char *path)
{
	snprintf(config_file, sizeof config_file, "%s", path != NULL ? path : "");
}

static const char *grant_config_path(char *buf, size_t size)
{
	if (config_file[0] != '\0')
		return config_file;
	return config_default_path(buf, size);
}

/* "host", "host:443", "[v6]:443" or a bare IPv6 address: the host.  A
 * feed line's target carries its port; a grant is for the host. */
static void host_of(const char *text, char *out, size_t size)
{
	const char *colon = strrchr(text, ':');

	if (text[0] == '[' && strchr(text, ']') != NULL) {
		snprintf(out, size, "%.*s", (int)(strchr(text, ']') - text - 1), text + 1);
		return;
	}
	if (colon != NULL && strchr(text, ':') == colon && colon[1] != '\0' &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		snprintf(out, size, "%.*s", (int)(colon - text), text);
		return;
	}
	snprintf(out, size, "%s", text);
}

/* May this host be granted at all?  0 with the normalised host in d,
 * or -1 with err. */
static int grantable(const char *host, struct allowlist_decision *d, struct sm_error *err)
{
	const char *why = NULL;

	allowlist_decide(NULL, host, d);
	if (d->reason == ALLOWLIST_INVALID_HOST) {
		sm_error_set(err, SM_ERR_INVALID_ALLOWLIST_ENTRY,
			     "\"%s\" is not a host name or IP address", host);
		return -1;
	}
	if (d->reason == ALLOWLIST_DENYLIST) {
		sm_error_set(err, SM_ERR_HOST_DENYLISTED,
			     "%s is on the fixed deny list (%s: cloud metadata or telemetry): it "
			     "cannot be allowed",
			     d->host, d->rule);
		return -1;
	}
	if (d->is_ip && !allowlist_address_check(&d->ip, NULL, &why)) {
		sm_error_set(err, SM_ERR_HOST_DENYLISTED,
			     "%s is a %s address, which the proxies never connect to: it cannot be "
			     "allowed",
			     d->host, why);
		return -1;
	}
	return 0;
}

static const char *pane_session_name(const struct pane *p)
{
	return p->window != NULL ? p->window->session->name : p->session_name;
}

/* Only a pane whose network goes through its session's proxies has a
 * list a grant can change. */
static int pane_proxied(const struct pane *p, struct sm_error *err)
{
	const struct sandbox_profile *prof = profile_find(p->profile);

	if ((p->requested != SANDBOX_NATIVE && p->requested != SANDBOX_MICROVM) || prof == NULL ||
	    !prof->proxied_network) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "pane %%%d's network is not filtered (backend %s, profile %s): there is "
			     "nothing to allow",
			     p->id, sandbox_backend_name(p->requested), p->profile);
		return -1;
	}
	if (!session_egress_running(pane_session_name(p))) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "session %s has no egress proxies running",
			     pane_session_name(p));
		return -1;
	}
	return 0;
}

/* Who asked: this user (the socket admits no other, server.c), and
 * through what ("feed", "cli", else "protocol"). */
static cJSON *who_json(const cJSON *req)
{
	const char *via = cJSON_GetStringValue(cJSON_GetObjectItem(req, "via"));
	struct passwd *pw = getpwuid(getuid());
	cJSON *who = cJSON_CreateObject();

	if (via == NULL || (strcmp(via, "feed") != 0 && strcmp(via, "cli") != 0 &&
			    strcmp(via, "prompt") != 0))
		via = "protocol";
	cJSON_AddNumberToObject(who, "uid", getuid());
	if (pw != NULL)
		cJSON_AddStringToObject(who, "user", pw->pw_name);
	cJSON_AddStringToObject(who, "via", via);
	return who;
}

/* What a grant allows: a host the proxies let through, or a directory
 * new panes of the profile get writable. */
struct grant_what {
	const char *action; /* "network-outbound" or "file-write*" */
	const char *key;    /* "host" or "path" */
	const char *value;
	const char *field; /* the profile's list it goes into */
};

static void emit_grant(const cJSON *req, const struct pane *p, const struct grant_what *w,
		       const char *scope, const char *config)
{
	cJSON *ev = events_lifecycle("policy-grant", p), *what = cJSON_CreateObject();

	cJSON_AddItemToObject(ev, "who", who_json(req));
	cJSON_AddStringToObject(what, "action", w->action);
	cJSON_AddStringToObject(what, w->key, w->value);
	cJSON_AddItemToObject(ev, "what", what);
	cJSON_AddStringToObject(ev, "scope", scope);
	/* events_lifecycle names a sandboxed pane's profile already. */
	if (!cJSON_HasObjectItem(ev, "profile"))
		cJSON_AddStringToObject(ev, "profile", p->profile);
	if (config != NULL)
		cJSON_AddStringToObject(ev, "config", config);
	events_emit(ev);
}

/* The profile route: the diff, and unless dry_run, the file written.  A
 * host is the session's at once too (the person asked for it now); a
 * directory only new panes get (a mount cannot change under a running
 * pane). */
static int grant_in_profile(const cJSON *req, struct pane *p, const struct grant_what *w,
			    cJSON *result, struct sm_error *err)
{
	char buf[PATH_MAX];
	const char *path = grant_config_path(buf, sizeof buf);
	char *old_text, *new_text = NULL, *diff;
	bool dry_run = cmd_get_bool(req, "dry_run", false);

	if (profile_is_builtin(p->profile)) {
		sm_error_set(err, SM_ERR_PROFILE_BUILTIN,
			     "pane %%%d's profile %s is built in and cannot be changed: define one "
			     "in %s (\"profiles\": {\"mine\": {\"base\": \"%s\", "
			     "\"%s\": [\"%s\"]}}) and open panes with -P mine",
			     p->id, p->profile, path, profile_find(p->profile)->base, w->field,
			     w->value);
		return -1;
	}
	if ((old_text = config_edit_read_text(path, err)) == NULL)
		return -1;
	if (config_edit_add_entry(old_text, p->profile, w->field, w->value, &new_text, err) != 0) {
		free(old_text);
		return -1;
	}
	diff = config_edit_diff(old_text, new_text);
	cJSON_AddStringToObject(result, "config", path);
	{
		char *shown = xasprintf("--- %s\n+++ %s (new)\n%s", path, path, diff);
		cJSON_AddStringToObject(result, "diff", shown);
		free(shown);
	}
	cJSON_AddBoolToObject(result, "written", !dry_run);
	free(diff);
	free(old_text);
	if (dry_run) {
		free(new_text);
		return 0;
	}
	if (config_edit_replace(path, new_text, err) != 0) {
		free(new_text);
		return -1;
	}
	free(new_text);
	/* The server's own copy of the profile takes the entry too, in place
	 * (a launch under way may hold the profile): new panes get it. */
	if (profile_registry_append(p->profile, w->field, w->value, err) != 0)
		return -1;
	log_info("grant: %s added to %s of profile %s in %s", w->value, w->field, p->profile, path);
	/* The file is written: a session that cannot take the host (its
	 * network off) does not undo that, it only goes without. */
	if (strcmp(w->key, "host") == 0) {
		struct sm_error session_err = { 0 };
		bool now = session_egress_allow(pane_session_name(p), w->value, &session_err) == 0;

		if (!now)
			log_warn("grant: session %s goes without %s: %s", pane_session_name(p),
				 w->value, session_err.message);
		cJSON_AddBoolToObject(result, "session_now", now);
	}
	emit_grant(req, p, w, "profile", path);
	return 0;
}

/* A refused write's directory as a writable root: the target itself when
 * it is a directory, else the one it is in; it must exist (a root must,
 * at launch) and lie in the user's $HOME.  Threat: one keypress making a
 * system directory (/etc, /usr) writable to every new pane of the
 * profile; such a root is for the config's editor to write by hand.  The
 * host-run files stay read-only inside any root, in every profile. */
static int writable_root(const char *target, char *out, struct sm_error *err)
{
	char dir[PATH_MAX], home[PATH_MAX];
	struct stat st;
	const char *env_home = getenv("HOME");
	size_t n;

	if (target[0] != '/' || strlen(target) >= sizeof dir) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "\"%s\" is no absolute path", target);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s", target);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		*strrchr(dir, '/') = '\0';
	if (dir[0] == '\0')
		snprintf(dir, sizeof dir, "/");
	if (realpath(dir, out) == NULL) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "%s does not exist: create it first (a writable root must exist when a "
			     "pane starts)",
			     dir);
		return -1;
	}
	n = env_home != NULL && realpath(env_home, home) != NULL ? strlen(home) : 0;
	if (n == 0 || strcmp(home, "/") == 0 || strncmp(out, home, n) != 0 ||
	    (out[n] != '\0' && out[n] != '/')) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "%s is outside $HOME: only a directory in $HOME can be made writable "
			     "from a grant (edit the config's \"writable\" by hand for others)",
			     out);
		return -1;
	}
	return 0;
}

/* A file grant: a directory new panes of the profile get writable. */
static int grant_path(const cJSON *req, struct pane *p, const char *target, cJSON *result,
		      struct sm_error *err)
{
	char root[PATH_MAX];
	struct grant_what w = { "file-write*", "path", root, "writable" };

	if (!cmd_get_bool(req, "persist", false)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "a mount cannot change under a running pane: a path can only be allowed "
			     "in the profile (persist), for new panes");
		return -1;
	}
	if (p->requested != SANDBOX_NATIVE && p->requested != SANDBOX_MICROVM) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d is not sandboxed (backend %s)",
			     p->id, sandbox_backend_name(p->requested));
		return -1;
	}
	if (writable_root(target, root, err) != 0)
		return -1;
	cJSON_AddNumberToObject(result, "pane", p->id);
	cJSON_AddStringToObject(result, "session", pane_session_name(p));
	cJSON_AddStringToObject(result, "profile", p->profile);
	cJSON_AddStringToObject(result, "path", root);
	cJSON_AddStringToObject(result, "scope", "profile");
	return grant_in_profile(req, p, &w, result, err);
}

CMD_HANDLER(cmd_allow)
{
	const char *text, *path = NULL;
	char host[ALLOWLIST_HOST_MAX + 8];
	struct allowlist_decision d;
	struct pane *p = cmd_target_pane(c, req, err);
	bool persist = cmd_get_bool(req, "persist", false);
	struct grant_what w = { "network-outbound", "host", d.host, "egress_allowlist" };

	if (p == NULL || cmd_get_string(req, "path", false, &path, err) < 0)
		return -1;
	if (path != NULL)
		return grant_path(req, p, path, result, err);
	if (cmd_get_string(req, "host", true, &text, err) < 0)
		return -1;
	host_of(text, host, sizeof host);
	if (grantable(host, &d, err) != 0 || pane_proxied(p, err) != 0)
		return -1;
	cJSON_AddNumberToObject(result, "pane", p->id);
	cJSON_AddStringToObject(result, "session", pane_session_name(p));
	cJSON_AddStringToObject(result, "profile", p->profile);
	cJSON_AddStringToObject(result, "host", d.host);
	cJSON_AddStringToObject(result, "scope", persist ? "profile" : "session");
	if (persist)
		return grant_in_profile(req, p, &w, result, err);
	if (session_egress_allow(pane_session_name(p), d.host, err) != 0)
		return -1;
	log_info("grant: %s allowed for session %s (pane %d)", d.host, pane_session_name(p), p->id);
	emit_grant(req, p, &w, "session", NULL);
	return 0;
}

/* Ask mode's "no": the session's held connections to the host are
 * refused now rather than when their time runs out. */
CMD_HANDLER(cmd_refuse)
{
	const char *text;
	char host[ALLOWLIST_HOST_MAX + 8];
	struct pane *p = cmd_target_pane(c, req, err);

	if (p == NULL || cmd_get_string(req, "host", true, &text, err) < 0)
		return -1;
	host_of(text, host, sizeof host);
	cJSON_AddNumberToObject(result, "refused", session_egress_refuse(pane_session_name(p), host));
	return 0;
}
