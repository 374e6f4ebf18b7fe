/*
 * session-egress: the egress proxies of the sessions that have
 * network-restricted panes (backends/egress.h).  A session's pair of
 * proxies starts with its first such pane and stops with the session;
 * sessions never share one.  Each pane gets its own pair of Unix sockets
 * in its own directory (the directory is what bwrap binds into that
 * pane's sandbox), so a pane sees only its own sockets and every refusal
 * names the pane that asked.  Refusals become network-outbound
 * violations on the event bus; grants (src/grant.c) join the session's
 * list live, a profile's "egress_allowlist" its panes' own; a pane whose profile
 * asks ("network": "ask") has its unknown hosts held, as policy-ask
 * events, until a person answers.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "egress.h"
#include "log.h"
#include "profile.h"
#include "server.h"
#include "session-egress.h"
#include "xalloc.h"

struct session_egress {
	char session[64];
	struct egress *eg;
	char dir[PATH_MAX]; /* 0700, under the server's socket directory */
	struct session_egress *next;
};

static struct session_egress *all;

bool session_egress_wanted(const char *profile)
{
	const struct sandbox_profile *prof = profile != NULL ? profile_find(profile) : NULL;

	return prof != NULL && prof->proxied_network;
}

static void on_violation(void *user, const struct egress_violation *v)
{
	struct session_egress *se = user;
	struct pane *p = v->tag > 0 ? pane_find(v->tag) : NULL;
	struct sandbox_violation violation = v->violation;

	if (p == NULL)
		violation.session = se->session;
	events_violation(&violation, p);
}

/* Whether the window on screen has a feed, which asks itself. */
static bool feed_shown(const struct session *s)
{
	for (const struct pane *p = s->active != NULL ? s->active->panes : NULL; p != NULL;
	     p = p->next)
		if (p->feed && !p->exited)
			return true;
	return false;
}

/* The question goes to every client attached to the session too, which
 * asks it in its status line wherever its user is: the feed may be in
 * another window, or not open at all, and the held program waits.  Not
 * when the session's window on screen has the feed: it asks there, and
 * a second question would take the keys meant for it. */
static void ask_clients(const char *session, const struct pane *p, const struct egress_violation *v)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		cJSON *ev;

		if (c->attached == NULL || c->closing || strcmp(c->attached->name, session) != 0 ||
		    feed_shown(c->attached))
			continue;
		ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", "ask");
		cJSON_AddNumberToObject(ev, "pane", p != NULL ? p->id : 0);
		cJSON_AddStringToObject(ev, "host", v->host);
		cJSON_AddStringToObject(ev, "target", v->violation.target);
		cJSON_AddNumberToObject(ev, "timeout", EGRESS_ASK_MS / 1000);
		server_send(c, ev);
	}
}

/* Ask mode: a held connection is an event of its own, which the feed
 * turns into a prompt (docs/feed.md). */
static void on_ask(void *user, const struct egress_violation *v)
{
	struct session_egress *se = user;
	struct pane *p = v->tag > 0 ? pane_find(v->tag) : NULL;
	cJSON *ev = events_lifecycle("policy-ask", p);

	if (p == NULL)
		cJSON_AddStringToObject(ev, "session", se->session);
	cJSON_AddStringToObject(ev, "action", "network-outbound");
	cJSON_AddStringToObject(ev, "target", v->violation.target);
	cJSON_AddStringToObject(ev, "host", v->host);
	cJSON_AddStringToObject(ev, "protocol", v->violation.protocol);
	cJSON_AddNumberToObject(ev, "timeout", EGRESS_ASK_MS / 1000);
	ask_clients(se->session, p, v);
	events_emit(ev);
}

static struct session_egress *find(const char *session)
{
	for (struct session_egress *se = all; se != NULL; se = se->next)
		if (strcmp(se->session, session) == 0)
			return se;
	return NULL;
}

static struct session_egress *start(const struct sandbox_spec *spec, struct sm_error *err)
{
	const char *session = spec->session_id;
	struct session_egress *se = xcalloc(1, sizeof *se);
	struct egress_policy policy = {
	    .network_enabled = spec->network_enabled,
	    .allowlist = (const char *const *)spec->egress_allowlist,
	    .nallowlist = spec->negress_allowlist,
	    .label = session,
	};
	char base[PATH_MAX];

	snprintf(se->session, sizeof se->session, "%s", session);
	snprintf(base, sizeof base, "%s", server.socket_path);
	snprintf(se->dir, sizeof se->dir, "%s/egress.XXXXXX", dirname(base));
	if (mkdtemp(se->dir) == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot create the egress socket directory: %s",
			     strerror(errno));
		free(se);
		return NULL;
	}
	se->eg = egress_start(server.loop, &policy, on_violation, se, err);
	if (se->eg == NULL) {
		rmdir(se->dir);
		free(se);
		return NULL;
	}
	egress_on_ask(se->eg, on_ask);
	se->next = all;
	all = se;
	return se;
}

int session_egress_attach(const struct sandbox_spec *spec, int pane, char *dir, size_t size,
			  struct sm_error *err)
{
	const char *session = spec->session_id;
	struct session_egress *se = find(session);
	const struct sandbox_profile *prof = profile_find(spec->profile);
	char http[PATH_MAX], socks[PATH_MAX];

	if (se == NULL && (se = start(spec, err)) == NULL)
		return -1;
	snprintf(dir, size, "%s/pane-%d", se->dir, pane);
	snprintf(http, sizeof http, "%s/http.sock", dir);
	snprintf(socks, sizeof socks, "%s/socks.sock", dir);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (egress_listen_unix(se->eg, http, socks, pane, err) != 0) {
		rmdir(dir);
		return -1;
	}
	/* The profile's own hosts, for this pane's sockets only: a pane of
	 * another profile in the same session does not get them. */
	if (prof != NULL &&
	    egress_tag_allow(se->eg, pane, (const char *const *)prof->egress_allowlist.v,
			     prof->egress_allowlist.n, err) != 0) {
		session_egress_detach(session, pane);
		return -1;
	}
	egress_ask_unix(se->eg, pane, prof != NULL && prof->ask_network);
	return 0;
}

int session_egress_ports(const char *session, int ports[2])
{
	struct session_egress *se = find(session);

	if (se == NULL)
		return -1;
	ports[0] = egress_http_port(se->eg);
	ports[1] = egress_socks_port(se->eg);
	return 0;
}

bool session_egress_running(const char *session)
{
	return find(session) != NULL;
}

int session_egress_allow(const char *session, const char *entry, struct sm_error *err)
{
	struct session_egress *se = find(session);

	if (se == NULL) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "session %s has no egress proxies (no pane of it is proxied)", session);
		return -1;
	}
	return egress_allow(se->eg, entry, err);
}

int session_egress_refuse(const char *session, const char *host)
{
	struct session_egress *se = find(session);

	return se != NULL ? egress_refuse_held(se->eg, host) : 0;
}

void session_egress_detach(const char *session, int pane)
{
	struct session_egress *se = find(session);
	char dir[PATH_MAX + 16];

	if (se == NULL)
		return;
	egress_unlisten_unix(se->eg, pane);
	snprintf(dir, sizeof dir, "%s/pane-%d", se->dir, pane);
	rmdir(dir); /* its sockets were unlinked as their listeners closed */
}

/* The session's directory holds only pane directories, and those only
 * sockets, which egress_close has unlinked already. */
static void remove_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX + 256];

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "pane-", 5) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		rmdir(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

void session_egress_close(const char *session)
{
	struct session_egress **pp, *se;

	for (pp = &all; *pp != NULL; pp = &(*pp)->next)
		if (strcmp((*pp)->session, session) == 0)
			break;
	if ((se = *pp) == NULL)
		return;
	*pp = se->next;
	egress_close(se->eg);
	remove_dirs(se->dir);
	log_info("egress %s: closed", session);
	free(se);
}
