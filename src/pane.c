/*
 * pane: one program on a PTY, wrapped by a backend, feeding an emulator.
 *
 * The label a pane shows is taken from the backend's launch result, never
 * from the request: a contained backend is only shown once it confirms
 * the contained child runs, and a launch that fails leaves the pane in
 * state error with no process at all (docs/design.md invariants 1 and 2).
 * Everything the program prints reaches the emulator; only frames to
 * clients are coalesced.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "layout.h"
#include "sandbox-limits.h"
#include "home-layer.h"
#include "log.h"
#include "profile.h"
#include "pty.h"
#include "secret-env.h"
#include "server.h"
#include "session-egress.h"
#include "strvec.h"
#include "record.h"
#include "sanitise.h"
#include "supervisor.h"
#include "term.h"
#include "xalloc.h"

#define READ_CHUNK (64 * 1024)
#define READ_BUDGET (128 * 1024) /* per wakeup, so one pane cannot starve others */
/* The budget of every other pane while a typed key's echo may still come:
 * the server reads one pane at a time, and the echo waits for what it
 * reads before it (128 KiB of a flood is milliseconds of emulation on a
 * loaded machine; 4 KiB is a few tens of microseconds). */
#define TYPIST_READ_BUDGET (4 * 1024)
/* A wakeup that finds this much is a flood: the pane steps out of the
 * poll for one loop turn (a 0 ms timer runs after the next poll for I/O),
 * so every other ready pane and client is served before it is read
 * again.  Pausing for a whole millisecond instead left the writer blocked
 * on a full PTY: attached throughput was about 65 MB/s with it and 85-105
 * MB/s without, and echo under a `yes` flood stays at p99 about 30 ms
 * either way (make bench). */
#define FLOOD_BYTES (32 * 1024)
#define FLOOD_PAUSE_MS 0
/* How long a key's echo keeps every other pane unread: between the key
 * written to the typist's pane and its echo drawn, a flood's reading
 * (4 KiB is 100-200 microseconds of emulation on a loaded machine) is
 * what the echo waits behind, and the CPU the flood's writer and the
 * server take is what the typist's program waits for.  A shell echoes
 * in tens of microseconds; a program that shows nothing for a key
 * costs the other panes at most this long. */
#define ECHO_PARK_MS 3
/* A read this short is all the program had to say (pane_drain). */
#define SHORT_READ 512

static void pane_on_readable(uv_poll_t *handle, int status, int events);
static void pane_write(struct pane *p, const char *bytes, size_t len);

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *pane_backend_label(const struct pane *p)
{
	if (p->state == SANDBOX_ERROR || !p->launch.confirmed)
		return NULL;
	return sandbox_backend_name(p->launch.backend);
}

static void pane_term_output(const char *bytes, size_t len, void *user)
{
	pane_write(user, bytes, len);
}

/* Should this variable stay out of the pane?  Threat: a sandboxed pane
 * reading the tokens and agent sockets the user exported (GITHUB_TOKEN,
 * AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK) while the files holding the
 * same secrets are denied.  What the pane inherits from the server's
 * environment is an allowlist; the request's own variables (-e) lose
 * only what looks like a secret (secret-env.h).  Both are filtered
 * before the sandbox starts: bwrap's own environment is what
 * /proc/1/environ shows inside.  A `none` pane is the host and keeps
 * everything. */
static bool pane_withholds(struct pane *p, const char *entry, bool inherited)
{
	const struct sandbox_profile *prof;
	const char *eq;

	if (p->requested == SANDBOX_NONE)
		return false;
	prof = profile_find(p->profile);
	if (prof != NULL && (inherited ? secret_env_inherited(entry, &prof->pass_env)
				       : !secret_env_withheld(entry, &prof->pass_env)))
		return false;
	eq = strchr(entry, '=');
	if (eq != NULL) {
		char *name = strndup(entry, (size_t)(eq - entry));

		if (name == NULL || (!strvec_contains(&p->withheld_env, name) &&
				     strvec_push(&p->withheld_env, name) != 0))
			abort();
		free(name);
	}
	return true;
}

/* The environment of a pane: the server's, TERM fixed, SANDMUX_PANE
 * and SANDMUX set, then the request's extra variables; secrets withheld
 * from a sandboxed pane (pane_withholds).  SANDMUX is tmux's $TMUX:
 * "socket,server pid,%pane", which is how a client started in a pane
 * knows it would attach a session to itself (cli-verbs.c refuses).  None
 * of it is secret: a socket path (the socket itself is invisible or
 * read-only to a sandboxed pane, docs/security.md), the server's pid and
 * the pane's own id. */
static char **pane_environment(struct pane *p, const cJSON *extra)
{
	size_t n = 0, i = 0;
	char **envp;
	const cJSON *item;

	while (server.environ[n] != NULL)
		n++;
	envp = xcalloc(n + cJSON_GetArraySize(extra) + 5, sizeof *envp);
	for (size_t k = 0; k < n; k++) {
		/* A server started inside another's pane has that one's
		 * SANDMUX: each pane gets this server's own. */
		if (strncmp(server.environ[k], "TERM=", 5) == 0 ||
		    strncmp(server.environ[k], "SANDMUX_PANE=", 13) == 0 ||
		    strncmp(server.environ[k], "SANDMUX=", 8) == 0 ||
		    pane_withholds(p, server.environ[k], true))
			continue;
		envp[i++] = xstrdup(server.environ[k]);
	}
	envp[i++] = xstrdup("TERM=xterm-256color");
	envp[i++] = xasprintf("SANDMUX_PANE=%%%d", p->id);
	envp[i++] = xasprintf("SANDMUX=%s,%d,%%%d", server.socket_path, (int)getpid(), p->id);
	cJSON_ArrayForEach(item, extra)
	{
		if (!cJSON_IsString(item))
			continue;
		envp[i] = xasprintf("%s=%s", item->string, item->valuestring);
		if (pane_withholds(p, envp[i], false))
			free(envp[i]);
		else
			i++;
	}
	envp[i] = NULL;
	return envp;
}

static void pane_fail(struct pane *p, const struct sm_error *err)
{
	p->state = SANDBOX_ERROR;
	snprintf(p->reason, sizeof p->reason, "%s", err->message);
	if (strcmp(err->code, SM_ERR_BACKEND_UNAVAILABLE) == 0)
		snprintf(p->hint, sizeof p->hint, "%s",
			 p->requested == SANDBOX_MICROVM ? backend_probe_result()->microvm.hint
							 : backend_probe_result()->native.hint);
	log_warn("pane %%%d: %s backend failed: %s", p->id, sandbox_backend_name(p->requested),
		 err->message);
	{
		cJSON *ev = events_lifecycle("error", p);
		cJSON_AddStringToObject(ev, "code", err->code);
		cJSON_AddStringToObject(ev, "reason", err->message);
		events_emit(ev);
	}
}

static bool pane_drain(struct pane *p, bool whole);

/* A sandbox that died before running the command said why on the PTY
 * (bwrap writes "bwrap: Can't mount ..." to stderr): read it into the
 * emulator, and put its last line, joined across soft wraps (a row
 * filled to the last column continues on the next), into the reason. */
static void pane_add_last_words(struct pane *p, struct sm_error *err)
{
	char *text, *row, *next, last[256] = "", line[256] = "";
	size_t len, row_len = 0;

	if (p->master >= 0)
		pane_drain(p, true);
	text = term_capture(p->term, -term_history_lines(p->term), term_rows(p->term) - 1, false,
			    &len);
	if (text == NULL)
		return;
	for (row = text; *row != '\0'; row = next) {
		next = strchr(row, '\n');
		if (next != NULL)
			*next++ = '\0';
		else
			next = row + strlen(row);
		if (row_len < (size_t)p->cols)
			line[0] = '\0';
		row_len = strlen(row);
		snprintf(line + strlen(line), sizeof line - strlen(line), "%s", row);
		if (line[0] != '\0')
			snprintf(last, sizeof last, "%s", line);
	}
	free(text);
	if (last[0] != '\0') {
		char message[sizeof err->message];

		snprintf(message, sizeof message, "%s: %s", err->message, last);
		snprintf(err->message, sizeof err->message, "%s", message);
	}
}

/* A moment after a native pane is confirmed, the next native sandbox
 * like it is prepared (backends/native.c): later than the confirmation
 * itself, so building it does not compete with the new pane's shell for
 * the CPU while it starts. */
#define PREPARE_DELAY_MS 100

static enum sandbox_backend prepare_backend;

static void pane_on_prepare_timer(uv_timer_t *timer)
{
	if (server.exiting)
		return;
	if (prepare_backend == SANDBOX_MICROVM)
		microvm_prepare_next();
	else
		native_prepare_next();
}

static void pane_schedule_prepare(enum sandbox_backend backend)
{
	static uv_timer_t timer;
	static bool ready;

	prepare_backend = backend;
	if (!ready) {
		uv_timer_init(server.loop, &timer);
		uv_unref((uv_handle_t *)&timer);
		ready = true;
	}
	uv_timer_start(&timer, pane_on_prepare_timer, PREPARE_DELAY_MS, 0);
}

static void pane_on_confirm(uv_poll_t *handle, int status, int events)
{
	struct pane *p = handle->data;
	struct sm_error err = { 0 };
	int rc = p->ops->confirm(&p->launch, &err);

	if (rc == 0 && status >= 0)
		return;
	/* Stopped, not closed: the handle stays in the loop's handle queue
	 * until pane_free closes it (status_poll_active means "open", and
	 * uv_is_active "still confirming").  Clearing the flag here once
	 * left a confirmed native pane's handle linked in the loop after
	 * pane_release freed it; closing its neighbours then wrote into
	 * freed memory (heap corruption, docs/security.md 5). */
	uv_poll_stop(handle);
	if (rc > 0) {
		p->state = SANDBOX_WARM;
		log_info("pane %%%d: %s confirmed, child pid %d", p->id,
			 sandbox_backend_name(p->launch.backend), (int)p->launch.child_pid);
		events_emit(events_lifecycle("ready", p));
		if (p->launch.backend != SANDBOX_NONE)
			pane_schedule_prepare(p->launch.backend);
	} else {
		if (err.code[0] == '\0')
			sm_error_set(&err, SM_ERR_LAUNCH_FAILED, "sandbox did not start");
		p->ops->destroy(&p->launch);
		pane_add_last_words(p, &err);
		pane_fail(p, &err);
	}
	if (p->window != NULL)
		server_broadcast_layout(p->window->session);
}

/* The supervisor stopped answering for this pane: its intercepted calls
 * now fail (ENOSYS).  Say so on the pane rather than let it look fine. */
static void pane_on_supervisor_gone(int pane_id)
{
	struct pane *p = pane_find(pane_id);

	if (p == NULL)
		return;
	snprintf(p->reason, sizeof p->reason,
		 "supervisor gone: sandboxed file calls now fail with ENOSYS");
	log_warn("pane %%%d: %s", p->id, p->reason);
	if (p->window != NULL)
		server_broadcast_layout(p->window->session);
}

static void pane_start_supervisor(void)
{
	struct supervisor_sink sink = {
		.loop = server.loop,
		.emit = events_emit,
		.gone = pane_on_supervisor_gone,
	};

	supervisor_start(&sink);
}

/* How often a sandbox's limit counters are read (sandbox-limits.h): often
 * enough that a refused fork bomb shows while it runs, and a read of
 * two small files per sandboxed pane costs nothing. */
#define LIMITS_POLL_MS 250

/* Were processes refused or killed at the pane's limits since the last
 * look?  Then say so: a `killed` event with the reason (in the events
 * log and the feed) and the pane's reason in every listing. */
static void pane_check_limits(struct pane *p)
{
	char reason[sizeof p->reason];
	cJSON *ev;

	if (p->launch.limits == NULL || !limits_group_poll(p->launch.limits, reason, sizeof reason))
		return;
	log_warn("pane %%%d: %s", p->id, reason);
	snprintf(p->reason, sizeof p->reason, "%s", reason);
	ev = events_lifecycle("killed", p);
	cJSON_AddStringToObject(ev, "reason", reason);
	events_emit(ev);
	if (p->window != NULL)
		server_broadcast_layout(p->window->session);
}

/* Refusals the backend made without the supervisor (a microvm's file
 * servers and qemu on the host, its guest kernel as the agent says):
 * violation events like native's, in the same log, feed and counter,
 * with where the refusal was made; the pane and backend are this
 * pane's, whatever the backend's report says. */
static void pane_check_violations(struct pane *p)
{
	char action[32], target[PATH_MAX];
	const char *source;

	if (p->ops == NULL || p->ops->next_violation == NULL)
		return;
	while (p->ops->next_violation(&p->launch, action, sizeof action, target, sizeof target,
				      &source) == 1) {
		struct sandbox_violation v = {.action = action, .target = target, .source = source};

		events_violation(&v, p);
	}
}

static void pane_on_limits_timer(uv_timer_t *timer)
{
	limits_remove_pending();
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next) {
				pane_check_limits(p);
				pane_check_violations(p);
			}
}

static void pane_watch_limits(void)
{
	static uv_timer_t timer;
	static bool started;

	if (started)
		return;
	uv_timer_init(server.loop, &timer);
	uv_unref((uv_handle_t *)&timer);
	uv_timer_start(&timer, pane_on_limits_timer, LIMITS_POLL_MS, LIMITS_POLL_MS);
	started = true;
}

/* The session's extra allowlist and its network switch come from the
 * server's environment: SANDMUX_EGRESS_ALLOW (entries separated by
 * commas or spaces) and SANDMUX_EGRESS_NETWORK=off.  Each entry is
 * checked like a config entry when the session's proxies start, and a
 * bad one stops the pane with the reason. */
static void spec_network(struct sandbox_spec *spec)
{
	const char *allow = getenv("SANDMUX_EGRESS_ALLOW");
	const char *network = getenv("SANDMUX_EGRESS_NETWORK");
	struct strvec entries = STRVEC_INIT;
	char *copy = xstrdup(allow != NULL ? allow : "");

	spec->network_enabled = network == NULL || strcmp(network, "off") != 0;
	for (char *tok = strtok(copy, ", \t\n"); tok != NULL; tok = strtok(NULL, ", \t\n"))
		strvec_push(&entries, tok);
	free(copy);
	spec->egress_allowlist = entries.v;
	spec->negress_allowlist = entries.n;
}

/* What the pane asks its backend for (backends/sandbox.h): its backend,
 * profile, session and working directory, the host's $HOME, the command
 * and its environment (envp, taken), the network.  Owned copies, which
 * sandbox_spec_free frees. */
static void pane_sandbox_spec(const struct pane *p, char *const *argv, char **envp,
			      struct sandbox_spec *spec)
{
	const char *home = getenv("HOME");
	size_t n = 0;

	*spec = (struct sandbox_spec){
		.session_id = xstrdup(p->session_name),
		.workspace_id = xstrdup(p->cwd),
		.backend = p->requested,
		.profile = xstrdup(p->profile),
		.workdir = xstrdup(p->cwd),
		.home = home != NULL ? xstrdup(home) : NULL,
		.env = envp,
	};
	while (argv[n] != NULL)
		n++;
	spec->command = xcalloc(n + 1, sizeof *spec->command);
	for (size_t i = 0; i < n; i++)
		spec->command[i] = xstrdup(argv[i]);
	spec->ncommand = n;
	while (envp[spec->nenv] != NULL)
		spec->nenv++;
	spec_network(spec);
}

static int pane_launch(struct pane *p, const struct pane_spawn *spawn, struct sm_error *err)
{
	char *default_argv[] = { server.default_shell, NULL };
	char *const *argv = spawn->argv != NULL ? spawn->argv : default_argv;
	struct sandbox_spec spec;
	char egress_dir[PATH_MAX];
	int proxy_ports[2];
	struct launch_request req = {
		.spec = &spec,
		.rows = spawn->rows,
		.cols = spawn->cols,
		.pane_id = p->id,
	};
	const char *slash = strrchr(argv[0], '/');
	int rc;

	snprintf(p->program, sizeof p->program, "%s", slash != NULL ? slash + 1 : argv[0]);
	if (backend_check(p->requested, err) < 0)
		return -1;
	pane_sandbox_spec(p, argv, pane_environment(p, spawn->env), &spec);
	if ((p->requested == SANDBOX_NATIVE || p->requested == SANDBOX_MICROVM) &&
	    session_egress_wanted(p->profile)) {
		if (session_egress_attach(&spec, p->id, egress_dir, sizeof egress_dir, err) != 0) {
			sandbox_spec_free(&spec);
			return -1;
		}
		req.egress_dir = egress_dir;
		if (session_egress_ports(p->session_name, proxy_ports) == 0) {
			req.proxy_ports = proxy_ports;
			req.nproxy_ports = 2;
		}
	}
	if (p->requested == SANDBOX_NATIVE)
		pane_start_supervisor();
	p->ops = backend_get(p->requested);
	events_emit(events_lifecycle("starting", p));
	rc = p->ops->launch(&req, &p->launch, err);
	sandbox_spec_free(&spec);
	if (rc < 0)
		return -1;
	if (p->launch.limits != NULL || p->ops->next_violation != NULL)
		pane_watch_limits();
	p->master = p->launch.master;
	uv_poll_init(server.loop, &p->poll, p->master);
	p->poll.data = p;
	uv_poll_start(&p->poll, UV_READABLE, pane_on_readable);
	p->poll_active = true;
	uv_timer_init(server.loop, &p->flood_timer);
	p->flood_timer.data = p;
	p->flood_timer_active = true;
	if (p->launch.confirmed) {
		p->state = SANDBOX_WARM;
		events_emit(events_lifecycle("ready", p));
		if (p->launch.backend != SANDBOX_NONE)
			pane_schedule_prepare(p->launch.backend);
	} else {
		uv_poll_init(server.loop, &p->status_poll, p->launch.status_fd);
		p->status_poll.data = p;
		uv_poll_start(&p->status_poll, UV_READABLE, pane_on_confirm);
		p->status_poll_active = true;
	}
	return 0;
}

/* A restored pane's last screen, from its stored session (docs/sessions.md),
 * is put into the emulator before its program starts, so it stays above
 * what the program prints.  The lines are stored text: sanitised, so a
 * stored file can only ever show characters, never move the cursor or
 * set a mode. */
static void pane_show_restored(struct pane *p, const cJSON *screen)
{
	const cJSON *line;

	cJSON_ArrayForEach(line, screen)
	{
		char *text = sanitise_text(cJSON_GetStringValue(line));

		term_write(p->term, text, strlen(text));
		term_write(p->term, "\r\n", 2);
		free(text);
	}
}

/* A pane always exists after this returns non-NULL, possibly in state
 * error (err then says why); NULL means the request itself was bad. */
struct pane *pane_new(const struct pane_spawn *spawn, struct sm_error *err)
{
	struct pane *p = xcalloc(1, sizeof *p);

	p->id = spawn->id > 0 ? spawn->id : server.next_pane_id++;
	p->master = -1;
	p->launch.master = -1;
	p->launch.status_fd = -1;
	p->requested = spawn->backend;
	p->requested_explicitly = spawn->backend_explicit;
	p->remain_on_exit = spawn->remain_on_exit;
	p->started_at = now_seconds();
	p->state = SANDBOX_CREATED;
	snprintf(p->profile, sizeof p->profile, "%s", spawn->profile ? spawn->profile : "terminal");
	snprintf(p->session_name, sizeof p->session_name, "%s", spawn->session ? spawn->session : "");
	if (spawn->cwd != NULL)
		snprintf(p->cwd, sizeof p->cwd, "%s", spawn->cwd);
	else if (getcwd(p->cwd, sizeof p->cwd) == NULL)
		snprintf(p->cwd, sizeof p->cwd, "/");
	p->cols = spawn->cols;
	p->rows = spawn->rows;
	p->term = term_new(spawn->rows, spawn->cols, server.scrollback);
	term_set_output(p->term, pane_term_output, p);
	for (char **a = spawn->argv; a != NULL && *a != NULL; a++)
		strvec_push(&p->command, *a);
	pane_show_restored(p, spawn->screen);
	if (pane_launch(p, spawn, err) < 0)
		pane_fail(p, err);
	return p;
}

static void pane_release(struct pane *p)
{
	term_free(p->term);
	strvec_free(&p->withheld_env);
	strvec_free(&p->command);
	free(p->pending_input);
	free(p->clipboard_held);
	free(p);
}

static void pane_on_handle_closed(uv_handle_t *handle)
{
	struct pane *p = handle->data;

	if (--p->open_handles == 0)
		pane_release(p);
}

void pane_free(struct pane *p)
{
	record_pane_gone(p->id);
	if (session_egress_wanted(p->profile))
		session_egress_detach(p->session_name, p->id);
	pane_check_limits(p);
	if (p->state != SANDBOX_ERROR && !p->exited && p->ops != NULL) {
		p->ops->destroy(&p->launch);
		server_reap_later(p->launch.pid);
		events_emit(events_lifecycle("killed", p));
	}
	if (p->ops != NULL && p->ops->release != NULL)
		p->ops->release(&p->launch);
	p->window = NULL;
	/* Every handle ever initialised is closed (a stopped one is still in
	 * the loop's handle queue), and before its fd: libuv must take the
	 * fd out of epoll while it is still ours. */
	p->open_handles = p->poll_active + p->status_poll_active + p->flood_timer_active +
			  p->sync_timer_open;
	if (p->poll_active)
		uv_close((uv_handle_t *)&p->poll, pane_on_handle_closed);
	if (p->status_poll_active)
		uv_close((uv_handle_t *)&p->status_poll, pane_on_handle_closed);
	if (p->flood_timer_active)
		uv_close((uv_handle_t *)&p->flood_timer, pane_on_handle_closed);
	if (p->sync_timer_open)
		uv_close((uv_handle_t *)&p->sync_timer, pane_on_handle_closed);
	p->poll_active = p->status_poll_active = p->flood_timer_active = false;
	p->sync_timer_open = false;
	if (p->master >= 0)
		close(p->master);
	p->master = -1;
	if (p->launch.status_fd >= 0)
		close(p->launch.status_fd);
	p->launch.status_fd = -1;
	if (p->open_handles == 0)
		pane_release(p);
}

void pane_resize(struct pane *p, int cols, int rows)
{
	if (cols < 1)
		cols = 1;
	if (rows < 1)
		rows = 1;
	if (cols == p->cols && rows == p->rows)
		return;
	p->cols = cols;
	p->rows = rows;
	term_resize(p->term, rows, cols);
	record_resize(p, cols, rows);
	if (p->master >= 0)
		pty_resize(p->master, rows, cols);
	if (p->master >= 0 && p->ops != NULL && p->ops->resize != NULL)
		p->ops->resize(&p->launch, rows, cols);
}

static void pane_flush_input(struct pane *p)
{
	while (p->npending_input > 0 && p->master >= 0) {
		ssize_t n = write(p->master, p->pending_input, p->npending_input);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				p->npending_input = 0;
			break;
		}
		memmove(p->pending_input, p->pending_input + n, p->npending_input - n);
		p->npending_input -= n;
	}
	/* Restarting a poll costs two epoll_ctl calls: only when the
	 * interest really changes. */
	if (p->poll_active && (p->npending_input > 0) != p->polling_writable) {
		p->polling_writable = p->npending_input > 0;
		uv_poll_start(&p->poll, UV_READABLE | (p->polling_writable ? UV_WRITABLE : 0),
			      pane_on_readable);
	}
}

static void pane_write(struct pane *p, const char *bytes, size_t len)
{
	if (p->master < 0 || len == 0 || p->state == SANDBOX_SUSPENDED)
		return;
	char *grown = xrealloc(p->pending_input, p->npending_input + len);

	p->pending_input = grown;
	memcpy(p->pending_input + p->npending_input, bytes, len);
	p->npending_input += len;
	p->input_ms = server_now_ms();
	server.typed_pane = p->id;
	server.typed_ms = p->input_ms;
	server.echo_due = true;
	pane_flush_input(p);
}

/* A native pane with a copy-on-write home says, when it ends, how many
 * files its profile's layer got while it ran (home-layer.h): what it
 * changed in its home, which the host has only once the user keeps it. */
static void pane_add_home_changes(const struct pane *p, cJSON *ev)
{
	bool more;
	int n;

	if (!p->launch.home_layer)
		return;
	n = home_layer_changed_since(p->profile, (time_t)p->started_at, &more);
	if (n >= 0)
		cJSON_AddNumberToObject(ev, "home_changed", n);
	if (n >= 0 && more)
		cJSON_AddBoolToObject(ev, "home_changed_more", true);
}

static void pane_finish(struct pane *p)
{
	cJSON *ev;

	/* First: what ended the pane may have been its memory limit. */
	pane_check_limits(p);
	ev = events_lifecycle("exit", p);
	cJSON_AddNumberToObject(ev, "exitCode", p->exit_status);
	pane_add_home_changes(p, ev);
	events_emit(ev);
	log_info("pane %%%d exited with status %d", p->id, p->exit_status);
	if (p->poll_active)
		uv_poll_stop(&p->poll);
	if (p->state == SANDBOX_ERROR) {
		/* A failed sandbox stays on screen as FAILED, never vanishes. */
		server_broadcast_layout(p->window->session);
		return;
	}
	if (!p->remain_on_exit) {
		pane_remove(p);
		return;
	}
	p->state = SANDBOX_DESTROYED;
	{
		char msg[64];
		int len = snprintf(msg, sizeof msg, "\r\n[exited with status %d]", p->exit_status);
		term_write(p->term, msg, len);
	}
	server_session_damaged(p->window->session);
	server_broadcast_layout(p->window->session);
}

/* Title, current directory and mouse mode travel in the layout: send a
 * new one when the program changed any.  A bell goes out at once, a
 * clipboard write to its policy (clipboard.c). */
static void pane_check_properties(struct pane *p)
{
	const char *title = term_title(p->term);
	bool moved = pane_cwd_output(p), mouse = term_mouse_mode(p->term) != 0;
	size_t clip_len;
	char *clip, *notice;
	int progress_state, progress;

	if (term_take_bell(p->term))
		server_pane_bell(p);
	if ((clip = term_take_clipboard(p->term, &clip_len)) != NULL)
		clipboard_pane_wrote(p, clip, clip_len);
	if ((notice = term_take_notice(p->term)) != NULL) {
		server_pane_notice(p, notice);
		free(notice);
	}
	progress_state = term_progress(p->term, &progress);
	if (progress_state != p->sent_progress_state || progress != p->sent_progress)
		moved = true;
	p->sent_progress_state = progress_state;
	p->sent_progress = progress;
	if (!moved && strcmp(title, p->sent_title) == 0 && mouse == p->sent_mouse)
		return;
	snprintf(p->sent_title, sizeof p->sent_title, "%s", title);
	p->sent_mouse = mouse;
	server_broadcast_layout(p->window->session);
}

/* Synchronized output: a program that sets DECSET 2026 draws an update
 * it wants seen whole (an agent's TUI redrawing a large area), so while
 * it is set the pane's damage stays in the emulator (server.c,
 * pane_output_held); it goes when the mode is reset, or when the update
 * has taken SYNC_TIMEOUT_MS, so a program that never resets it (or died
 * inside an update) is still seen. */
#define SYNC_TIMEOUT_MS 150

static void pane_on_sync_timer(uv_timer_t *timer)
{
	struct pane *p = timer->data;

	p->sync_expired = true;
	if (p->window != NULL)
		server_pane_damaged(p);
}

static void pane_sync_check(struct pane *p)
{
	unsigned update = term_sync_count(p->term);

	if (!term_synchronized(p->term)) {
		if (p->sync_timer_open)
			uv_timer_stop(&p->sync_timer);
		p->sync_expired = false;
		return;
	}
	if (p->sync_timer_open && update == p->sync_update)
		return; /* the same update: its timer runs, or ran out */
	/* A new update: held from now, for at most the timeout. */
	if (!p->sync_timer_open) {
		uv_timer_init(server.loop, &p->sync_timer);
		p->sync_timer.data = p;
		p->sync_timer_open = true;
	}
	p->sync_update = update;
	p->sync_expired = false;
	uv_timer_start(&p->sync_timer, pane_on_sync_timer, SYNC_TIMEOUT_MS, 0);
}

bool pane_output_held(const struct pane *p)
{
	return term_synchronized(p->term) && !p->sync_expired;
}

/* How much one wakeup of p reads: little while another pane's echo is
 * due, so that a flood cannot hold the typist's echo behind it. */
static size_t read_budget(const struct pane *p)
{
	if (server.typed_pane != p->id && server_now_ms() - server.typed_ms < ECHO_WINDOW_MS)
		return TYPIST_READ_BUDGET;
	return READ_BUDGET;
}

/* A pane's read stopped for keys waiting at a client's terminal: they
 * are read before the loop serves anything else (pane_on_readable). */
static bool keys_came;

/* Read what the program wrote.  Returns false at EOF/EIO.  whole: read
 * until the PTY has nothing (EAGAIN); else a read of less than
 * SHORT_READ ends it: a program's answer to a key (an echo, a cursor
 * move) is all there is, and the look for keys and the read that would
 * only say EAGAIN are two system calls on the echo's way to the
 * terminal.  The poll is level-triggered: what came meanwhile wakes the
 * loop at once. */
static bool pane_drain(struct pane *p, bool whole)
{
	/* One buffer for every pane (the loop reads one pane at a time),
	 * and not on the stack: there its 64 KiB would put every call
	 * under it (the emulator, the echo patches) that much deeper, and
	 * each stack page a call touches stays resident for the server's
	 * life; here only what reads fill is (a PTY read is at most a few
	 * KiB). */
	static char buf[READ_CHUNK];
	size_t total = 0, budget = read_budget(p);

	p->last_read = 0;
	while (total < budget) {
		ssize_t n = read(p->master, buf, budget - total < sizeof buf ? budget - total : sizeof buf);
		if (n > 0) {
			term_write(p->term, buf, n);
			record_output(p, buf, (size_t)n);
			total += n;
			p->last_read = total;
			if (!whole && (size_t)n < SHORT_READ)
				break;
			/* After each read (a PTY gives at most 4 KiB, tens to
			 * a hundred microseconds of emulation), a look for keys
			 * waiting at a client's terminal (one poll(2)): a key
			 * that comes while a flood is read waits for that much,
			 * not for the rest of the budget. */
			if (total < budget && server_tty_keys_waiting()) {
				keys_came = true;
				break;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (total > 0 && p->window != NULL) {
			pane_sync_check(p);
			server_pane_damaged(p);
		}
		return false;
	}
	if (total > 0 && p->window != NULL) {
		pane_sync_check(p);
		server_pane_damaged(p);
		pane_check_properties(p);
	}
	return true;
}

static void pane_on_readable(uv_poll_t *handle, int status, int events);

static void pane_on_flood_timer(uv_timer_t *timer)
{
	struct pane *p = timer->data;

	if (p->poll_active && p->master >= 0)
		uv_poll_start(&p->poll, UV_READABLE, pane_on_readable);
}

/* Milliseconds p stays unread for the echo of a key typed into another
 * pane: 0 when none is due. */
static uint64_t echo_park_ms(const struct pane *p)
{
	uint64_t since = server_now_ms() - server.typed_ms;

	if (!server.echo_due || server.typed_pane == p->id || since >= ECHO_PARK_MS ||
	    p->npending_input > 0 || !p->flood_timer_active)
		return 0;
	return ECHO_PARK_MS - since;
}

void pane_echo_drawn(void)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				if (p->flood_timer_active &&
				    uv_is_active((uv_handle_t *)&p->flood_timer))
					uv_timer_start(&p->flood_timer, pane_on_flood_timer, 0, 0);
}

/* The keys a read stopped for, read now (on every way out of
 * pane_on_readable, so that the flag never outlives its read). */
static void read_keys_came(void)
{
	if (keys_came) {
		keys_came = false;
		server_tty_read_waiting();
	}
}

static void pane_on_readable(uv_poll_t *handle, int status, int events)
{
	struct pane *p = handle->data;
	uint64_t park = status < 0 ? 0 : echo_park_ms(p);

	if (park > 0) {
		uv_poll_stop(handle);
		uv_timer_start(&p->flood_timer, pane_on_flood_timer, park, 0);
		return;
	}
	if (status < 0 || (events & UV_READABLE)) {
		if (!pane_drain(p, false) || status < 0) {
			/* EIO: every holder of the slave has gone; the exit
			 * status arrives with SIGCHLD. */
			uv_poll_stop(handle);
			if (p->exited)
				pane_finish(p);
			read_keys_came();
			return;
		}
	}
	if (events & UV_WRITABLE)
		pane_flush_input(p);
	if (p->last_read >= FLOOD_BYTES && p->npending_input == 0 && p->flood_timer_active) {
		uv_poll_stop(handle);
		uv_timer_start(&p->flood_timer, pane_on_flood_timer, FLOOD_PAUSE_MS, 0);
	}
	/* Last: a key can close p. */
	read_keys_came();
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

void pane_reap(pid_t pid, int status)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		for (struct window *w = s->windows; w != NULL; w = w->next) {
			for (struct pane *p = w->panes; p != NULL; p = p->next) {
				if (p->launch.pid != pid || p->exited)
					continue;
				p->exited = true;
				p->exit_status = exit_code_of(status);
				if (p->status_poll_active &&
				    uv_is_active((uv_handle_t *)&p->status_poll))
					pane_on_confirm(&p->status_poll, -1, 0);
				if (p->ops != NULL && p->ops->exit_code != NULL) {
					char why[sizeof p->reason] = "";
					int code = p->ops->exit_code(&p->launch, status, why,
								     sizeof why);

					if (code >= 0)
						p->exit_status = code;
					if (why[0] != '\0')
						snprintf(p->reason, sizeof p->reason, "%s", why);
				}
				/* Read the last words before the pane goes. */
				if (p->master >= 0)
					pane_drain(p, true);
				pane_finish(p);
				return;
			}
		}
	}
}

static void pane_update_state(struct pane *p)
{
	pid_t fg, shell;

	if (p->state != SANDBOX_WARM && p->state != SANDBOX_ACTIVE)
		return;
	shell = p->launch.child_pid > 0 ? p->launch.child_pid : p->launch.pid;
	fg = p->master >= 0 ? pty_foreground(p->master) : -1;
	/* bwrap's own pid counts as idle too: a command without job control
	 * leaves the group of the process sandmux started in the foreground. */
	p->state = (fg <= 0 || fg == shell || fg == p->launch.pid) ? SANDBOX_WARM : SANDBOX_ACTIVE;
}

void pane_kill(struct pane *p, const char *reason)
{
	cJSON *ev;

	pane_check_limits(p);
	ev = events_lifecycle("killed", p);
	cJSON_AddStringToObject(ev, "reason", reason);
	pane_add_home_changes(p, ev);
	events_emit(ev);
	if (p->ops != NULL && p->state != SANDBOX_ERROR && !p->exited) {
		p->ops->destroy(&p->launch);
		server_reap_later(p->launch.pid);
	}
	p->exited = true;
	pane_remove(p);
}

cJSON *pane_to_json(const struct pane *p)
{
	cJSON *o = cJSON_CreateObject(), *cursor;
	const char *label = pane_backend_label(p);
	struct term_modes modes;
	struct window *w = p->window;
	int cy, cx, progress, progress_state = term_progress(p->term, &progress);

	pane_update_state((struct pane *)p);
	term_get_modes(p->term, &modes);
	cJSON_AddNumberToObject(o, "id", p->id);
	if (w != NULL) {
		cJSON_AddStringToObject(o, "session", w->session->name);
		cJSON_AddNumberToObject(o, "window", w->index);
		cJSON_AddBoolToObject(o, "active", w->active == p);
	}
	cJSON_AddNumberToObject(o, "cols", p->cols);
	cJSON_AddNumberToObject(o, "rows", p->rows);
	cJSON_AddNumberToObject(o, "x", p->x);
	cJSON_AddNumberToObject(o, "y", p->y);
	if (p->floating) {
		cJSON *box = cJSON_AddObjectToObject(o, "float");

		cJSON_AddNumberToObject(box, "x", p->cell->x);
		cJSON_AddNumberToObject(box, "y", p->cell->y);
		cJSON_AddNumberToObject(box, "width", p->cell->w);
		cJSON_AddNumberToObject(box, "height", p->cell->h);
		cJSON_AddBoolToObject(box, "hidden", !pane_float_shown(p));
		cJSON_AddBoolToObject(box, "popup", p->popup);
	}
	cJSON_AddStringToObject(o, "requested", sandbox_backend_name(p->requested));
	if (label != NULL)
		cJSON_AddStringToObject(o, "backend", label);
	else
		cJSON_AddNullToObject(o, "backend");
	cJSON_AddStringToObject(o, "state", sandbox_state_name(p->state));
	cJSON_AddStringToObject(o, "profile", p->profile);
	if (p->reason[0] != '\0')
		cJSON_AddStringToObject(o, "reason", p->reason);
	if (p->hint[0] != '\0')
		cJSON_AddStringToObject(o, "hint", p->hint);
	if (p->launch.details[0] != '\0' && label != NULL) {
		cJSON *details = cJSON_AddObjectToObject(o, "details");

		cJSON_AddStringToObject(details, "summary", p->launch.details);
		if (p->launch.backend == SANDBOX_MICROVM)
			cJSON_AddStringToObject(details, "accelerator",
						backend_probe_result()->microvm.accel);
	}
	if (p->launch.limits != NULL)
		cJSON_AddItemToObject(o, "limits", limits_group_to_json(p->launch.limits));
	if (p->requested != SANDBOX_NONE) {
		cJSON *names = cJSON_AddArrayToObject(o, "withheld_env");

		for (size_t i = 0; i < p->withheld_env.n; i++)
			cJSON_AddItemToArray(names, cJSON_CreateString(p->withheld_env.v[i]));
	}
	cJSON_AddNumberToObject(o, "pid", p->state == SANDBOX_ERROR ? 0 : p->launch.pid);
	if (p->exited)
		cJSON_AddNumberToObject(o, "exit_status", p->exit_status);
	cJSON_AddStringToObject(o, "title", term_title(p->term));
	cJSON_AddStringToObject(o, "cwd", p->cwd);
	cJSON_AddStringToObject(o, "current_path", pane_current_path((struct pane *)p));
	cJSON_AddNumberToObject(o, "violations", p->violations);
	cJSON_AddBoolToObject(o, "flooding", p->flooding);
	cJSON_AddBoolToObject(o, "bell", p->bell);
	if (p->notice[0] != '\0')
		cJSON_AddStringToObject(o, "notice", p->notice);
	if (progress_state != 0) {
		cJSON_AddNumberToObject(o, "progress_state", progress_state);
		cJSON_AddNumberToObject(o, "progress", progress);
	}
	if (p->launch.supervised && supervisor_gone(p->id))
		cJSON_AddStringToObject(o, "supervisor", "gone");
	cJSON_AddBoolToObject(o, "mouse", modes.mouse != 0);
	/* Where the pane's program has its cursor: what an attached client
	 * must show (tests compare the two). */
	cursor = cJSON_AddObjectToObject(o, "cursor");
	term_cursor(p->term, &cy, &cx);
	cJSON_AddNumberToObject(cursor, "x", cx);
	cJSON_AddNumberToObject(cursor, "y", cy);
	cJSON_AddBoolToObject(cursor, "visible", modes.cursor_visible);
	return o;
}
