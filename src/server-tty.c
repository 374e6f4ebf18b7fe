/*
 * server-tty: a client's terminal, owned by the server (tmux's model).
 *
 * The client (client.c) passes its terminal's descriptors with
 * the attach request (SCM_RIGHTS on the protocol socket, which the
 * server reads as a libuv IPC pipe).  From then on the server is the
 * terminal's one writer and one reader: it sets raw mode, decodes what
 * the user types with term/keys.c (the prefix key first, then the
 * active pane), and draws the client's screen from the panes' grids
 * (screen-draw.c) through the tty writer (tty.c), which writes only
 * what changed and never waits for a slow terminal.  Detach, exit, or
 * a closed connection give the terminal back as it was found: the
 * main screen, the saved termios, blocking descriptors.
 *
 * Ownership: a struct client_tty belongs to its conn (conn->ctty); it
 * owns its descriptors (dups of the client's), its tty and its libuv
 * handles.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "bindings.h"
#include "cli.h"
#include "cmd.h"
#include "command.h"
#include "config.h"
#include "format.h"
#include "log.h"
#include "os.h"
#include "sanitise.h"
#include "screen-draw.h"
#include "server-choose.h"
#include "server-copy.h"
#include "server-prompt.h"
#include "server.h"
#include "term.h"
#include "theme.h"
#include "tty.h"
#include "xalloc.h"

#define ESCAPE_MS 25	  /* how long a lone ESC waits to be a sequence's start */
#define INPUT_MAX 256	  /* bytes of a sequence not complete yet */
#define GIVE_BACK_MS 200  /* how long the last bytes may take to reach a terminal */
#define OWNER_CHECK_MS 50 /* how long a look at who has the terminal holds */
#define MESSAGE_MS 3000	  /* a message in the status line */
#define ERROR_MESSAGE_MS 6000
/* tmux's status-interval: how often a status line is looked at for what
 * changes without a draw (its clock), on the second. */
#define STATUS_TICK_MS 1000

struct client_tty {
	/* The last whole screen drawn (server_tty_draw): what it was drawn
	 * from, for server_tty_draw_rows; false after a draw was skipped. */
	uint64_t drawn_signature;
	bool drawn_whole;
	/* The status line's key the tty's last row was composed from
	 * (screen_status_key); 0: not composed. */
	uint64_t status_drawn;
	struct conn *conn;
	int in_fd, out_fd;
	struct tty *tty;
	struct termios saved;
	bool saved_ok;
	int in_flags, out_flags; /* file status flags before ours */
	uv_poll_t *in_poll, *out_poll;
	bool out_polling;
	uv_timer_t *escape_timer;
	char input[INPUT_MAX];
	size_t ninput;
	bool prefix; /* the prefix key was pressed: the next key is a command */
	struct term_key prefix_key;
	uint64_t repeat_until; /* a repeating binding's keys work alone until then */
	struct binding_table bindings;
	struct mode_tables modes; /* the modes' key tables (copy-mode) */
	char *cwd;		  /* the client's directory: relative paths' base; NULL unknown */
	pid_t client_pid; /* the thin client, from the socket's credentials */
	int client_stat;  /* its /proc stat kept open (proc_stat_open); -1 none */
	bool in_rdev_known;
	unsigned long long in_rdev; /* the terminal's device, for its ownership */
	bool paused;
	bool no_color;		/* the client lost its terminal: no reading, no drawing */
	uint64_t owner_checked; /* when the last look found the client the owner */
	struct server_prompt prompt;
	struct server_copy copy;	 /* copy mode (server-copy.c) */
	struct server_choose choose;	 /* choose mode (server-choose.c) */
	bool display_panes;		 /* the panes' numbers shown (display-panes) */
	uv_timer_t *display_panes_timer; /* ... until it fires (display_panes_time) */
	/* Ask mode's question being asked: the pane, the host, or its
	 * clipboard write. */
	int ask_pane;
	char ask_host[256];
	bool ask_clipboard;
	/* A border being dragged with the mouse: the pane whose right
	 * (vertical) or bottom edge follows, where the press was and the
	 * last place the border was moved to, the pane a title-row press
	 * was on (focused if the mouse did not move). */
	struct {
		bool active, vertical;
		int pane, start_x, start_y, last_x, last_y, press_pane;
	} drag;
	bool unfocused; /* the terminal said its window lost the focus (CSI O) */
	/* A floating pane being moved by its title or border, or sized by
	 * its bottom-right corner: where in its box the press was. */
	struct {
		bool active, resize;
		int pane, dx, dy;
	} float_drag;
	bool help; /* the help overlay (list-keys) */
	const struct binding_table *help_table; /* list-keys -T; NULL: all tables */
	int help_offset;
	/* ... or a command's printed output in its place (`:ls`). */
	char **view;
	int nview;
	char view_title[64];
	char message[512];
	bool message_error;
	/* The request a key's command sent last (its "cmd"): a failure,
	 * which comes back without an id, is shown under that name. */
	char replying_to[32];
	uv_timer_t *message_timer; /* the message goes when it fires */
	struct config config;
	struct theme theme;
};

static void on_handle_closed(uv_handle_t *handle)
{
	free(handle);
}

static void close_handle(void *handle)
{
	if (handle != NULL)
		uv_close((uv_handle_t *)handle, on_handle_closed);
}

/* Raw mode as a multiplexer wants it: every byte as typed, no echo, no
 * signals from ^C or ^Z (they are keys for the panes), no output
 * processing (the tty writer places every character itself). */
static void set_raw(struct client_tty *ct)
{
	struct termios tio = ct->saved;

	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | ICRNL | INLCR | IGNCR | IMAXBEL | ISTRIP);
	tio.c_iflag |= IGNBRK;
	tio.c_oflag &= ~(tcflag_t)(OPOST | ONLCR | OCRNL | ONLRET);
	tio.c_lflag &= ~(tcflag_t)(IEXTEN | ICANON | ECHO | ECHOE | ECHONL | ECHOCTL | ECHOPRT |
				   ECHOKE | ISIG);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	tcsetattr(ct->in_fd, TCSANOW, &tio);
}

static struct pane *active_pane(const struct conn *c)
{
	struct session *s = c->attached;

	if (s == NULL || s->active == NULL)
		return NULL;
	return s->active->zoomed != NULL ? s->active->zoomed : s->active->active;
}

static void start_output_poll(struct client_tty *ct);

/* Does the client still have its terminal: running and, when the
 * terminal is its controlling terminal, its process group the
 * terminal's foreground?  Unreadable counts as yes: the connection's
 * end says when the client is gone. */
static bool client_owns_terminal(struct client_tty *ct)
{
	struct proc_stat ps;

	/* One pread on the stat kept open since the attach (the look is
	 * on a key's way to its pane; the descriptor also names this
	 * client for good, never a process given its pid later). */
	if (ct->client_pid <= 0 ||
	    (ct->client_stat >= 0 ? proc_stat_read_fd(ct->client_stat, &ps)
				  : proc_stat_read(ct->client_pid, &ps)) != 0)
		return true;
	if (ps.state == 'T' || ps.state == 't')
		return false;
	if (!ct->in_rdev_known || ct->in_rdev != ps.tty_nr)
		return true;
	return ps.tpgid == ps.pgrp;
}

/* Threat: a client stopped from outside (kill -STOP, which it cannot
 * catch) while the server reads its terminal and draws on it.  The
 * user's shell takes the terminal back; without this the server would
 * take what the user types to the shell and send it to a pane, and
 * paint pane output over the shell's screen.  So before it reads and
 * before it draws (at most every OWNER_CHECK_MS) the server looks, and
 * a client that lost its terminal is paused until its SIGCONT brings
 * its client-size request (server_tty_resize). */
static bool paused(struct conn *c)
{
	struct client_tty *ct = c->ctty;
	uint64_t now = server_now_ms();

	if (ct->paused)
		return true;
	if (now - ct->owner_checked < OWNER_CHECK_MS)
		return false;
	if (client_owns_terminal(ct)) {
		ct->owner_checked = now;
		return false;
	}
	log_info("client %d lost its terminal: not read, not drawn", (int)ct->client_pid);
	ct->paused = true;
	uv_poll_stop(ct->in_poll);
	return true;
}

/* What screen_draw is told besides the session: this client's modes. */
static void client_overlay(struct conn *c, struct screen_overlay *overlay)
{
	struct client_tty *ct = c->ctty;

	*overlay = (struct screen_overlay){
	    .message = ct->message,
	    .message_error = ct->message_error,
	    .prompt = ct->prompt.active,
	    .prompt_label = ct->prompt.label,
	    .prompt_text = ct->prompt.text,
	    .prompt_candidates = ct->prompt.candidates,
	    .prompt_cursor = ct->prompt.cursor,
	    .prefix = ct->prefix,
	};
	overlay->no_color = ct->no_color;
	overlay->help = !ct->help ? NULL : ct->help_table ? ct->help_table : &ct->bindings;
	overlay->help_modes = ct->help && ct->help_table == NULL ? &ct->modes : NULL;
	overlay->help_prefix = ct->config.prefix;
	overlay->help_offset = &ct->help_offset;
	overlay->view = ct->view;
	overlay->nview = ct->nview;
	overlay->view_title = ct->view_title;
	if (ct->copy.active && pane_find(ct->copy.pane) == NULL)
		server_copy_leave(&ct->copy); /* its pane is gone */
	else if (ct->copy.active)
		server_copy_follow(&ct->copy, pane_find(ct->copy.pane));
	overlay->copy = &ct->copy;
	overlay->display_panes = ct->display_panes;
	overlay->choose = &ct->choose;
	overlay->status_drawn = &ct->status_drawn;
}

static void flush_drawn(struct client_tty *ct)
{
	tty_flush(ct->tty);
	if (tty_pending(ct->tty) > 0)
		start_output_poll(ct);
}

static void server_tty_draw(struct conn *c)
{
	struct client_tty *ct = c->ctty;
	struct screen_overlay overlay;

	if (ct == NULL || c->attached == NULL)
		return;
	if (paused(c)) {
		ct->drawn_whole = false;
		return;
	}
	client_overlay(c, &overlay);
	screen_draw(ct->tty, c->attached, &ct->config, &ct->theme, &overlay);
	ct->drawn_signature = screen_signature(ct->tty, c->attached, &ct->config, &overlay);
	ct->drawn_whole = true;
	flush_drawn(ct);
}

/* The panes' damage (server.c: a typed key's echo, a frame tick): where
 * nothing but those panes' cells changed since a client's last whole
 * screen, only their rows that changed are drawn again
 * (screen_draw_damage), so that a screen costs what changed, not what
 * it shows; else the whole screen. */
void server_tty_draw_damage(struct session *s, const struct screen_damage *damage, int n)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		struct client_tty *ct = c->ctty;
		struct screen_overlay overlay;
		bool enough = true;

		if (c->attached != s || ct == NULL)
			continue;
		if (!ct->drawn_whole || paused(c)) {
			server_tty_draw(c);
			continue;
		}
		client_overlay(c, &overlay);
		for (int i = 0; i < n && enough; i++)
			enough = screen_rows_enough(s, &overlay, damage[i].pane);
		if (!enough ||
		    screen_signature(ct->tty, s, &ct->config, &overlay) != ct->drawn_signature) {
			server_tty_draw(c);
			continue;
		}
		screen_draw_damage(ct->tty, s, &ct->config, &ct->theme, &overlay, damage, n);
		flush_drawn(ct);
	}
}

/* ---- the status line's clock ---- */

/* One timer for every client (unreferenced, as the name timer: it never
 * keeps the loop alive), running while one is attached. */
static uv_timer_t status_timer;
static bool status_timer_open;

static void status_tick_start(void);

/* A status line shows what can change with nothing drawn: its clock.
 * Each second every attached client's status key is looked at, and a
 * client whose key changed (a clock that shows minutes: once a minute)
 * is drawn again; the draw writes only what differs, the clock's
 * cells. */
static void on_status_timer(uv_timer_t *timer)
{
	bool attached = false;

	(void)timer;
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		struct client_tty *ct = c->ctty;
		struct screen_overlay overlay;

		if (ct == NULL || c->attached == NULL)
			continue;
		attached = true;
		if (paused(c))
			continue;
		client_overlay(c, &overlay);
		if (!ct->drawn_whole ||
		    screen_status_key(ct->tty, c->attached, &ct->config, &ct->theme, &overlay) !=
			ct->status_drawn)
			server_tty_draw(c);
	}
	if (attached)
		status_tick_start();
}

/* The next look, just after the next whole second of the clock. */
static void status_tick_start(void)
{
	struct timespec now;
	uint64_t into;

	if (!status_timer_open) {
		uv_timer_init(server.loop, &status_timer);
		uv_unref((uv_handle_t *)&status_timer);
		status_timer_open = true;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	into = (uint64_t)now.tv_nsec / 1000000;
	uv_timer_start(&status_timer, on_status_timer, STATUS_TICK_MS - into + 1, 0);
}

void server_tty_draw_session(struct session *s)
{
	for (struct conn *c = server.conns; c != NULL; c = c->next)
		if (c->attached == s && c->ctty != NULL)
			server_tty_draw(c);
}

/* The help overlay, or a command's output in its place, closed. */
static void close_overlay(struct client_tty *ct)
{
	ct->help = false;
	for (int i = 0; i < ct->nview; i++)
		free(ct->view[i]);
	free(ct->view);
	ct->view = NULL;
	ct->nview = 0;
}

/* ---- display-panes ---- */

static void on_display_panes_timer(uv_timer_t *timer)
{
	struct conn *c = timer->data;

	if (c->ctty == NULL)
		return;
	c->ctty->display_panes = false;
	server_tty_draw(c);
}

/* A key while the numbers show, through the display-panes table: a
 * digit's select-pane-N focuses the pane with that number (its index in
 * the window, as drawn); any other key only takes the numbers away, as
 * in tmux. */
static void focus_pane(struct conn *c, struct pane *p);

static void display_panes_key(struct conn *c, const char *key)
{
	struct client_tty *ct = c->ctty;
	struct window *w = c->attached->active;
	const char *command = mode_tables_command(&ct->modes, "display-panes", key);
	const char *digit = "select-pane-";

	ct->display_panes = false;
	uv_timer_stop(ct->display_panes_timer);
	if (w != NULL && command != NULL && strncmp(command, digit, strlen(digit)) == 0) {
		int index = command[strlen(digit)] - '0';
		struct pane *p = w->panes;

		while (p != NULL && index-- > 0)
			p = p->next;
		if (p != NULL && (w->zoomed == NULL || w->zoomed == p))
			focus_pane(c, p);
	}
	if (c->ctty == ct)
		server_tty_draw(c);
}

/* ---- messages ---- */

static void on_message_timer(uv_timer_t *timer)
{
	struct conn *c = timer->data;

	if (c->ctty == NULL)
		return;
	c->ctty->message[0] = '\0';
	server_tty_draw(c);
}

void server_tty_message(struct conn *c, bool is_error, const char *text)
{
	struct client_tty *ct = c->ctty;

	if (ct == NULL)
		return;
	snprintf(ct->message, sizeof ct->message, "%s", text);
	ct->message_error = is_error;
	uv_timer_start(ct->message_timer, on_message_timer,
		       is_error ? ERROR_MESSAGE_MS : MESSAGE_MS, 0);
	server_tty_draw(c);
}

void server_tty_to_json(const struct conn *c, cJSON *client)
{
	const struct client_tty *ct = c->ctty;

	if (ct == NULL)
		return;
	cJSON_AddNumberToObject(client, "pid", ct->client_pid);
	cJSON_AddNumberToObject(client, "terminal_cols", ct->tty->cols);
	cJSON_AddNumberToObject(client, "terminal_rows", ct->tty->rows);
	cJSON_AddNumberToObject(client, "terminal_pending", (double)tty_pending(ct->tty));
	cJSON_AddBoolToObject(client, "terminal_behind", ct->tty->blocked);
}

/* A command's failure in the status line: what was asked, the message,
 * the code ("split: pane %3 is too small — no_space"). */
void server_tty_error(struct conn *c, const char *code, const char *message)
{
	struct client_tty *ct = c->ctty;
	char text[sizeof ct->message];

	if (ct == NULL)
		return;
	snprintf(text, sizeof text, "%s: %s%s%s", ct->replying_to[0] ? ct->replying_to : "server",
		 message != NULL ? message : "failed", code != NULL ? " \u2014 " : "",
		 code != NULL ? code : "");
	server_tty_message(c, true, text);
}

/* ---- the terminal's clipboard ---- */

static void clipboard_write(struct client_tty *ct, const char *text, size_t len)
{
	char *osc = server_copy_osc52(text, len);

	if (osc == NULL)
		return;
	tty_raw(ct->tty, osc, strlen(osc));
	free(osc);
	tty_flush(ct->tty);
	if (tty_pending(ct->tty) > 0)
		start_output_poll(ct);
}

void server_tty_clipboard(struct conn *c, const char *text)
{
	if (c->ctty != NULL && !c->ctty->paused)
		clipboard_write(c->ctty, text, strlen(text));
}

/* ---- ask mode ---- */

static int exec_request(struct conn *c, const cJSON *request, cJSON *result, struct sm_error *err);

/* What the question says the answers are: the first key the ask-mode
 * table binds to allow and to deny ("a allow, d deny" by default). */
static void ask_keys(struct client_tty *ct, char *out, size_t size)
{
	static const char *const answers[] = {"allow", "deny"};
	const struct binding_table *table = mode_tables_find(&ct->modes, "ask-mode", NULL);

	out[0] = '\0';
	for (size_t a = 0; a < sizeof answers / sizeof answers[0]; a++)
		for (size_t i = 0; table != NULL && i < table->count; i++) {
			const char *command = table->entries[i].command + strlen(MODE_COMMAND_PREFIX);

			if (strcmp(command, answers[a]) != 0)
				continue;
			snprintf(out + strlen(out), size - strlen(out), "%s%s %s",
				 out[0] ? ", " : "", table->entries[i].key, answers[a]);
			break;
		}
	if (out[0] == '\0')
		snprintf(out, size, "no key answers");
}

void server_tty_ask(struct conn *c, const cJSON *event)
{
	struct client_tty *ct = c->ctty;
	const cJSON *pane = cJSON_GetObjectItemCaseSensitive(event, "pane");
	const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(event, "timeout");
	const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(event, "bytes");
	const char *host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "host"));
	const char *target =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "target"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(event, "kind"));
	bool clipboard = kind != NULL && strcmp(kind, "clipboard") == 0;
	char label[400], text[400], answers[2 * KEY_NAME_MAX + 32];
	char *safe;

	if (ct == NULL || !cJSON_IsNumber(pane) || (!clipboard && host == NULL))
		return;
	ask_keys(ct, answers, sizeof answers);
	/* A person typing a command keeps the line: the question waits in
	 * the feed (or the next write), and is said once here. */
	if (ct->prompt.active && ct->prompt.kind != SERVER_PROMPT_ASK) {
		if (clipboard) {
			snprintf(text, sizeof text,
				 "pane %%%d asks to write your clipboard: held, asked again at its "
				 "next write",
				 pane->valueint);
		} else {
			safe = sanitise_text(target != NULL ? target : host);
			snprintf(text, sizeof text,
				 "pane %%%d asks to reach %s: the feed (C-b v) answers",
				 pane->valueint, safe);
			free(safe);
		}
		server_tty_message(c, false, text);
		return;
	}
	if (clipboard) {
		snprintf(label, sizeof label,
			 "pane %%%d asks to write your clipboard (%d bytes): %s ", pane->valueint,
			 cJSON_IsNumber(bytes) ? bytes->valueint : 0, answers);
		ct->ask_host[0] = '\0';
	} else {
		/* The host is the pane's choice: shown only through the sanitiser. */
		safe = sanitise_text(target != NULL ? target : host);
		snprintf(label, sizeof label, "pane %%%d asks for %s: %s (%d s) ", pane->valueint,
			 safe, answers, cJSON_IsNumber(timeout) ? timeout->valueint : 30);
		free(safe);
		snprintf(ct->ask_host, sizeof ct->ask_host, "%s", host);
	}
	ct->ask_pane = pane->valueint;
	ct->ask_clipboard = clipboard;
	server_prompt_open(&ct->prompt, SERVER_PROMPT_ASK, label, NULL, "");
	ct->message[0] = '\0';
	server_tty_draw(c);
}

/* The answer, ask mode's command for the key typed (the ask-mode
 * table: a allow, d deny by default): anything but allow and deny
 * leaves it to the feed or the timeout.
 * Threat: a pane answering its own question.  The key comes only from
 * the attached terminal (decode_input, which reads the client's tty);
 * a pane's send-keys goes to a pane's input, and send-keys -X reaches
 * copy mode alone (server_tty_mode_commands), never this. */
static void ask_answer(struct conn *c, const char *command)
{
	struct client_tty *ct = c->ctty;
	bool allow = strcmp(command, "allow") == 0;
	cJSON *request, *result;
	struct sm_error err = {0};
	char text[600];
	char *safe;
	int rc;

	if (!allow && strcmp(command, "deny") != 0) {
		safe = sanitise_text(ct->ask_host);
		if (ct->ask_clipboard)
			snprintf(text, sizeof text, "pane %%%d's clipboard write stays held",
				 ct->ask_pane);
		else
			snprintf(text, sizeof text,
				 "left waiting: %s is refused when its time is up", safe);
		free(safe);
		server_tty_message(c, false, text);
		return;
	}
	request = cJSON_CreateObject();
	result = cJSON_CreateObject();
	if (ct->ask_clipboard) {
		cJSON_AddStringToObject(request, "cmd", "clipboard");
		cJSON_AddNumberToObject(request, "pane", ct->ask_pane);
		cJSON_AddBoolToObject(request, "allow", allow);
	} else {
		cJSON_AddStringToObject(request, "cmd", allow ? "allow" : "refuse");
		cJSON_AddNumberToObject(request, "pane", ct->ask_pane);
		cJSON_AddStringToObject(request, "host", ct->ask_host);
		if (allow)
			cJSON_AddStringToObject(request, "via", "prompt");
	}
	rc = exec_request(c, request, result, &err);
	if (rc != 0) {
		server_tty_message(c, true, err.message);
	} else if (!ct->ask_clipboard && allow) {
		snprintf(text, sizeof text,
			 "allowed %s for session %s until it ends (the held connection goes "
			 "through now)",
			 cJSON_GetStringValue(cJSON_GetObjectItem(result, "host")),
			 cJSON_GetStringValue(cJSON_GetObjectItem(result, "session")));
		server_tty_message(c, false, text);
	} else if (!ct->ask_clipboard) {
		const cJSON *refused = cJSON_GetObjectItem(result, "refused");

		snprintf(text, sizeof text, "refused: %d held connection(s) of pane %%%d",
			 cJSON_IsNumber(refused) ? refused->valueint : 0, ct->ask_pane);
		server_tty_message(c, false, text);
	}
	cJSON_Delete(request);
	cJSON_Delete(result);
}

/* ---- choose mode ---- */

/* The server's answer to a list request, as a protocol client reads
 * it; NULL (said in the status line) if it failed. */
static cJSON *list_answer(struct conn *c, const char *cmd)
{
	cJSON *request = cJSON_CreateObject(), *result = cJSON_CreateObject();
	struct sm_error err = {0};

	cJSON_AddStringToObject(request, "cmd", cmd);
	if (exec_request(c, request, result, &err) != 0) {
		server_tty_message(c, true, err.message);
		cJSON_Delete(result);
		result = NULL;
	}
	cJSON_Delete(request);
	return result;
}

/* choose-tree (-s, -w) or choose-buffer: the list opens on the server's
 * answer; no buffer at all opens nothing and says so. */
static void choose_open(struct conn *c, const struct command_parsed *parsed)
{
	struct client_tty *ct = c->ctty;
	bool tree = strcmp(parsed->entry->name, "choose-tree") == 0;
	cJSON *result = list_answer(c, tree ? "list" : "list-buffers");
	struct pane *p = active_pane(c);
	struct window *w = c->attached->active;
	struct server_choose_place place = {.session = c->attached->name,
					    .window = w != NULL ? w->index : 0,
					    .pane = p != NULL ? p->id : -1};
	bool opened = true;

	server_choose_leave(&ct->choose);
	if (result == NULL)
		return;
	if (tree)
		server_choose_open_tree(&ct->choose,
					command_local(parsed, "s")   ? SERVER_CHOOSE_START_SESSIONS
					: command_local(parsed, "w") ? SERVER_CHOOSE_START_WINDOWS
								     : SERVER_CHOOSE_START_PANE,
					result, &place);
	else
		opened = server_choose_open_buffers(&ct->choose, result);
	cJSON_Delete(result);
	if (!opened) {
		server_tty_message(c, false, "no buffers");
		return;
	}
	server_copy_leave(&ct->copy);
	ct->message[0] = '\0';
	server_tty_draw(c);
}

/* The list asked for again: it stays true while it is open.  A buffer
 * list that came back empty has closed, and says so. */
static void choose_refresh(struct conn *c)
{
	struct client_tty *ct = c->ctty;
	cJSON *result;

	if (!ct->choose.active)
		return;
	result = list_answer(c, ct->choose.kind == SERVER_CHOOSE_TREE ? "list" : "list-buffers");
	if (result != NULL && !server_choose_refresh(&ct->choose, result))
		server_tty_message(c, false, "no buffers");
	cJSON_Delete(result);
}

void server_tty_layout(struct conn *c)
{
	if (c->ctty == NULL)
		return;
	if (c->ctty->choose.active && c->ctty->choose.kind == SERVER_CHOOSE_TREE)
		choose_refresh(c);
	server_tty_draw(c);
}

static void run_binding(struct conn *c, const char *line);

/* A key in choose mode: through the mode's key table; Enter's command
 * runs as if typed at the prompt, d's too and the list is asked again. */
static void choose_key(struct conn *c, const struct term_key *key)
{
	struct client_tty *ct = c->ctty;
	char name[KEY_NAME_MAX], canonical[KEY_NAME_MAX];
	struct server_choose_result r;

	term_key_name(key, name, sizeof name);
	if (!key_name_canonical(name, canonical, sizeof canonical))
		return;
	server_choose_key(&ct->choose, &ct->modes, canonical,
			  ct->tty->rows > 4 ? ct->tty->rows - 3 : 1, &r);
	if (r.action == SERVER_CHOOSE_RUN || r.action == SERVER_CHOOSE_RUN_REFRESH)
		run_binding(c, r.command);
	if (r.action == SERVER_CHOOSE_RUN_REFRESH && c->ctty == ct)
		choose_refresh(c);
}

/* ---- input ---- */

static bool same_key(const struct term_key *a, const struct term_key *b)
{
	return a->kind == b->kind && a->mods == b->mods &&
	       (a->kind == TERM_KEY_CHAR ? a->codepoint == b->codepoint : a->named == b->named);
}

static void join_words(const struct command_parsed *parsed, char *out, size_t size)
{
	out[0] = '\0';
	for (int i = 0; i < parsed->nwords; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "",
			 parsed->words[i]);
}

/* What a copy-mode key or search asked for. */
static void copy_result(struct conn *c, struct server_copy_result *r)
{
	struct client_tty *ct = c->ctty;
	struct pane *p;

	switch (r->action) {
	case SERVER_COPY_SEARCH_UP:
		server_prompt_open(&ct->prompt, SERVER_PROMPT_SEARCH_UP, "search up: ", NULL, "");
		break;
	case SERVER_COPY_SEARCH_DOWN:
		server_prompt_open(&ct->prompt, SERVER_PROMPT_SEARCH_DOWN, "search down: ", NULL,
				   "");
		break;
	case SERVER_COPY_COPIED:
		/* A server buffer (prefix ] pastes it, in any client, after a
		 * detach too; it carries the pane's backend), and the outer
		 * terminal's clipboard with OSC 52. */
		p = pane_find(r->source);
		buffers_set(NULL, r->text, r->len, p);
		clipboard_write(ct, r->text, r->len);
		free(r->text);
		r->text = NULL;
		server_tty_message(c, false, r->message);
		return;
	case SERVER_COPY_MESSAGE:
		server_tty_message(c, false, r->message);
		return;
	default:
		break;
	}
}

static void copy_key(struct conn *c, const char *key)
{
	struct client_tty *ct = c->ctty;
	struct pane *p = pane_find(ct->copy.pane);
	struct server_copy_result r;

	if (p == NULL) {
		server_copy_leave(&ct->copy);
		return;
	}
	/* A clear since the last draw: the key acts on the view it shows. */
	server_copy_follow(&ct->copy, p);
	server_copy_key(&ct->copy, p, &ct->modes, key, &r);
	copy_result(c, &r);
}

/* bind-key and unbind-key [-T TABLE]: this client's tables, until it
 * detaches (the config's key_tables hold for every attach). */
static void bind_key(struct conn *c, const struct command_parsed *parsed)
{
	struct client_tty *ct = c->ctty;
	static const struct command_context check = {CMD_PROMPT, 0, "."};
	bool unbind = strcmp(parsed->entry->name, "unbind-key") == 0;
	const char *table = command_local(parsed, "T");
	char command[BINDING_COMMAND_MAX] = "", text[600];
	struct command_parsed valid;
	struct sm_error err = {0};
	int rc = -1;

	if (unbind ? parsed->nwords != 1 : parsed->nwords < 2)
		sm_error_set(&err, SM_ERR_INVALID_COMMAND, "usage: %s %s", parsed->entry->name,
			     parsed->entry->usage);
	else if (!unbind &&
		 !command_join(parsed->words + 1, parsed->nwords - 1, command, sizeof command))
		sm_error_set(&err, SM_ERR_INVALID_ARGUMENT, "the command is too long");
	else if (table != NULL && strcmp(table, "prefix") != 0)
		rc = mode_tables_bind(&ct->modes, table, parsed->words[0], command, &err);
	else if (unbind || command_parse_line(command, &check, &valid, &err) == 0) {
		if (!unbind)
			command_parsed_free(&valid);
		rc = bindings_set(&ct->bindings, parsed->words[0], command, &err);
	}
	if (rc == 0)
		return;
	snprintf(text, sizeof text, "%s (%s)", err.message, err.code);
	server_tty_message(c, true, text);
}

/* list-keys [-T TABLE]: every table, or the one named; false (the
 * error said) for a table that does not exist. */
static bool list_keys(struct conn *c, const struct command_parsed *parsed)
{
	struct client_tty *ct = c->ctty;
	const char *table = command_local(parsed, "T");
	const struct binding_table *shown = NULL;
	struct sm_error err = {0};

	if (table != NULL && strcmp(table, "prefix") == 0)
		shown = &ct->bindings;
	else if (table != NULL && (shown = mode_tables_find(&ct->modes, table, &err)) == NULL) {
		char text[400];

		snprintf(text, sizeof text, "%s (%s)", err.message, err.code);
		server_tty_message(c, true, text);
		return false;
	}
	ct->help_table = shown;
	server_copy_leave(&ct->copy);
	ct->help = true;
	ct->help_offset = 0;
	return true;
}

static void source_file(struct conn *c, const char *path);

/* The attached terminal's own commands (CMD_TERMINAL: modes, the
 * prompt, messages), which no request of the server's runs. */
static void client_command(struct conn *c, const struct command_parsed *parsed)
{
	struct client_tty *ct = c->ctty;
	const char *name = parsed->entry->name;
	char words[BINDING_COMMAND_MAX], label[160], initial[1024] = "";

	join_words(parsed, words, sizeof words);
	if (strcmp(name, "choose-tree") == 0 || strcmp(name, "choose-buffer") == 0) {
		choose_open(c, parsed);
		return;
	}
	/* One mode at a time. */
	if (strcmp(name, "list-keys") == 0 || strcmp(name, "display-panes") == 0 ||
	    strcmp(name, "copy-mode") == 0)
		server_choose_leave(&ct->choose);
	if (strcmp(name, "send-prefix") == 0) {
		struct pane *p = active_pane(c);

		if (p != NULL)
			term_send_key(p->term, &ct->prefix_key);
		return;
	}
	if (strcmp(name, "display-message") == 0) {
		const cJSON *target = cJSON_GetObjectItemCaseSensitive(parsed->request, "pane");
		struct pane *p =
		    cJSON_IsNumber(target) ? pane_find(target->valueint) : active_pane(c);
		struct format_context ctx;
		char text[512] = "";

		/* The words are text, not a command line (tmux's display-message). */
		if (p != NULL) {
			format_pane_context(p, c->client_cols, c->client_rows, &ctx);
			format_expand(words, &ctx, text, sizeof text);
		}
		server_tty_message(c, false, text);
		return;
	}
	if (strcmp(name, "source-file") == 0) {
		const char *path =
		    cJSON_GetStringValue(cJSON_GetObjectItem(parsed->request, "path"));

		if (path != NULL)
			source_file(c, path);
		return;
	}
	if (strcmp(name, "bind-key") == 0 || strcmp(name, "unbind-key") == 0) {
		bind_key(c, parsed);
		return;
	}
	if (strcmp(name, "list-keys") == 0) {
		if (!list_keys(c, parsed))
			return;
	} else if (strcmp(name, "display-panes") == 0) {
		const char *duration = command_local(parsed, "d");
		int ms = duration != NULL ? atoi(duration) : ct->config.display_panes_time;

		server_copy_leave(&ct->copy);
		ct->display_panes = true;
		uv_timer_stop(ct->display_panes_timer);
		if (ms > 0)
			uv_timer_start(ct->display_panes_timer, on_display_panes_timer,
				       (uint64_t)ms, 0);
	} else if (strcmp(name, "copy-mode") == 0) {
		struct pane *p = active_pane(c);
		bool up = command_local(parsed, "u") != NULL;

		if (p == NULL || p->state == SANDBOX_ERROR)
			return;
		if (!ct->copy.active || ct->copy.pane != p->id)
			server_copy_enter(&ct->copy, p, up);
		else if (up) {
			struct server_copy_result r;

			server_copy_command(&ct->copy, p, "page-up", &r);
			copy_result(c, &r);
		}
	} else if (strcmp(name, "command-prompt") == 0) {
		const char *given = command_local(parsed, "p"), *start = command_local(parsed, "I");
		struct pane *p = active_pane(c);

		if (start != NULL && p != NULL) {
			struct format_context ctx;

			char window_name[64];

			/* #W as the status line shows it: the window's display name. */
			format_pane_context(p, c->client_cols, c->client_rows, &ctx);
			window_display_name(p->window, window_name, sizeof window_name);
			ctx.window_name = window_name;
			format_expand(start, &ctx, initial, sizeof initial);
		}
		if (given != NULL)
			snprintf(label, sizeof label, "%s", given);
		else if (words[0] != '\0')
			snprintf(label, sizeof label, "(%.*s) ", (int)strcspn(words, " \t"), words);
		else
			snprintf(label, sizeof label, ":");
		server_prompt_open(&ct->prompt, SERVER_PROMPT_COMMAND, label, initial, words);
	} else if (strcmp(name, "confirm-before") == 0 && parsed->nwords > 0) {
		const char *question = command_local(parsed, "p");

		if (question != NULL)
			snprintf(label, sizeof label, "%s ", question);
		else
			snprintf(label, sizeof label, "%s? (y/n) ", parsed->words[0]);
		server_prompt_open(&ct->prompt, SERVER_PROMPT_CONFIRM, label, NULL, words);
	} else {
		log_info("%s: %s is not on the server's path yet", __func__, name);
		return;
	}
	ct->message[0] = '\0';
	server_tty_draw(c);
}

/* The request's handler: the entry that answers the request's "cmd"
 * (list-panes sends "list"), run at once; -1 and err if there is none. */
static int exec_request(struct conn *c, const cJSON *request, cJSON *result, struct sm_error *err)
{
	const struct command_entry *entry =
	    command_for_request(cJSON_GetStringValue(cJSON_GetObjectItem(request, "cmd")));

	if (entry == NULL || entry->exec == NULL) {
		sm_error_set(err, SM_ERR_UNKNOWN_COMMAND, "no handler for this request");
		return -1;
	}
	return entry->exec(c, request, result, err);
}

/* What the command line prints for a command (ls, list-panes, record):
 * one line as a message, more in the overlay. */
static void run_printed(struct conn *c, const struct command_parsed *parsed)
{
	struct client_tty *ct = c->ctty;
	struct command_parsed printing = {.entry = parsed->entry};
	cJSON *result = cJSON_CreateObject();
	struct sm_error err = {0};
	char *text = NULL, *line;
	size_t size = 0, len;
	FILE *out;

	if (exec_request(c, parsed->request, result, &err) != 0) {
		server_tty_message(c, true, err.message);
		cJSON_Delete(result);
		return;
	}
	if ((out = open_memstream(&text, &size)) == NULL) {
		cJSON_Delete(result);
		return;
	}
	parsed->entry->print(&printing, result, out);
	fclose(out);
	cJSON_Delete(result);
	len = strlen(text);
	while (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	if (memchr(text, '\n', len) == NULL) {
		server_tty_message(c, false, text);
		free(text);
		return;
	}
	close_overlay(ct);
	server_copy_leave(&ct->copy);
	server_choose_leave(&ct->choose);
	for (char *at = text; (line = strsep(&at, "\n")) != NULL;) {
		ct->view = xrealloc(ct->view, (size_t)(ct->nview + 1) * sizeof *ct->view);
		ct->view[ct->nview++] = xstrdup(line);
	}
	free(text);
	snprintf(ct->view_title, sizeof ct->view_title, "%s", parsed->entry->name);
	ct->help = true;
	ct->help_offset = 0;
	ct->message[0] = '\0';
	server_tty_draw(c);
}

static void run_binding(struct conn *c, const char *line);

/* source-file at the prompt: each line run as if typed there; the
 * first that fails to parse stops it. */
static void source_file(struct conn *c, const char *given)
{
	char line[BINDING_COMMAND_MAX], path[PATH_MAX * 2];
	FILE *in;

	/* A relative path is the user's, from where they attached. */
	if (given[0] != '/' && c->ctty->cwd != NULL)
		snprintf(path, sizeof path, "%s/%s", c->ctty->cwd, given);
	else
		snprintf(path, sizeof path, "%s", given);
	if ((in = fopen(path, "r")) == NULL) {
		char text[600];

		snprintf(text, sizeof text, "%s: %s", path, strerror(errno));
		server_tty_message(c, true, text);
		return;
	}
	while (c->ctty != NULL && fgets(line, sizeof line, in) != NULL) {
		size_t skip = strspn(line, " \t");

		line[strcspn(line, "\n")] = '\0';
		if (line[skip] != '\0' && line[skip] != '#')
			run_binding(c, line + skip);
	}
	fclose(in);
}

/* paste-buffer: a paste across backends the server wants confirmed
 * becomes a y/n question, and y repeats it with --confirmed. */
static void paste_buffer(struct conn *c, const struct command_parsed *parsed)
{
	const cJSON *target = cJSON_GetObjectItemCaseSensitive(parsed->request, "pane");
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(parsed->request, "name"));
	struct pane *active = active_pane(c);
	int pane = cJSON_IsNumber(target) ? target->valueint : active != NULL ? active->id : -1;
	cJSON *result = cJSON_CreateObject();
	struct sm_error err = {0};
	char label[600], command[256];

	if (exec_request(c, parsed->request, result, &err) != 0) {
		if (strcmp(err.code, SM_ERR_CONFIRM_NEEDED) != 0) {
			server_tty_message(c, true, err.message);
		} else {
			snprintf(label, sizeof label, "%s (y/n) ", err.message);
			if (name != NULL)
				snprintf(command, sizeof command,
					 "paste-buffer -b \"%s\" -t %%%d --confirmed", name, pane);
			else
				snprintf(command, sizeof command,
					 "paste-buffer -t %%%d --confirmed", pane);
			server_prompt_open(&c->ctty->prompt, SERVER_PROMPT_CONFIRM, label, NULL,
					   command);
		}
	}
	cJSON_Delete(result);
}

/* allow at the prompt: who asks is the prompt; with --persist the dry
 * run names the change, a y/n question asks for it, and y runs the same
 * allow with --yes.  Otherwise what the command line would print. */
static void allow(struct conn *c, struct command_parsed *parsed)
{
	const cJSON *pane = cJSON_GetObjectItemCaseSensitive(parsed->request, "pane");
	cJSON *result;
	struct sm_error err = {0};
	const char *host, *path, *profile, *config;
	char label[512], command[BINDING_COMMAND_MAX], *safe;

	cli_allow_prepare(parsed->request, "prompt");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(parsed->request, "persist")) ||
	    command_local(parsed, "yes") != NULL || !cJSON_IsNumber(pane)) {
		run_printed(c, parsed);
		return;
	}
	cJSON_AddBoolToObject(parsed->request, "dry_run", true);
	result = cJSON_CreateObject();
	if (exec_request(c, parsed->request, result, &err) != 0) {
		server_tty_message(c, true, err.message);
		cJSON_Delete(result);
		return;
	}
	host = cJSON_GetStringValue(cJSON_GetObjectItem(result, "host"));
	path = cJSON_GetStringValue(cJSON_GetObjectItem(result, "path"));
	profile = cJSON_GetStringValue(cJSON_GetObjectItem(result, "profile"));
	config = cJSON_GetStringValue(cJSON_GetObjectItem(result, "config"));
	if (profile != NULL && config != NULL && (host != NULL || path != NULL)) {
		snprintf(label, sizeof label, "write %s into profile %s in %s? (y/n) ",
			 host != NULL ? host : path, profile, config);
		snprintf(command, sizeof command, "allow -t %%%d --persist --yes %s",
			 pane->valueint, host != NULL ? host : path);
		safe = sanitise_text(label);
		server_prompt_open(&c->ctty->prompt, SERVER_PROMPT_CONFIRM, safe, NULL, command);
		free(safe);
		server_tty_draw(c);
	}
	cJSON_Delete(result);
}

/* A binding's command, run as this client: the server's commands as
 * if the client had sent the request; the client's own (modes) only as
 * far as the server has them yet. */
static void run_binding(struct conn *c, const char *line)
{
	struct pane *p = active_pane(c);
	struct command_context ctx = {CMD_PROMPT, p != NULL ? p->id : -1, c->attached->name};
	struct command_parsed parsed;
	struct sm_error err = {0};

	if (command_parse_line(line, &ctx, &parsed, &err) < 0) {
		server_tty_message(c, true, err.message);
		return;
	}
	/* The client's own commands have no request of the server's; a
	 * few that have one do more on the client's side first. */
	/* Another pane chosen: copy mode ends. */
	if (strcmp(parsed.entry->name, "select-pane") == 0)
		server_copy_leave(&c->ctty->copy);
	if (parsed.entry->flags & CMD_TERMINAL) {
		client_command(c, &parsed);
	} else if (strcmp(parsed.entry->name, "record") == 0 && parsed.request != NULL) {
		if (record_prepare_in(&parsed, c->ctty->cwd, &err) < 0)
			server_tty_message(c, true, err.message);
		else
			run_printed(c, &parsed);
	} else if (parsed.entry->print != NULL && (parsed.entry->flags & CMD_SHOW) &&
		   parsed.request != NULL) {
		run_printed(c, &parsed);
	} else if (strcmp(parsed.entry->name, "paste-buffer") == 0 && parsed.request != NULL) {
		paste_buffer(c, &parsed);
	} else if (strcmp(parsed.entry->name, "allow") == 0 && parsed.request != NULL) {
		allow(c, &parsed);
	} else if (parsed.request != NULL) {
		cJSON *request = parsed.request;
		const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItem(request, "cmd"));

		/* No id: a notification, answered only if it fails. */
		parsed.request = NULL;
		snprintf(c->ctty->replying_to, sizeof c->ctty->replying_to, "%s",
			 cmd != NULL ? cmd : "server");
		cmd_dispatch(c, request);
		cJSON_Delete(request);
	}
	command_parsed_free(&parsed);
}

/* A key's binding, by its canonical name; NULL if none. */
static const char *binding_of(const struct client_tty *ct, const struct term_key *key, bool *repeat)
{
	char name[KEY_NAME_MAX], canonical[KEY_NAME_MAX];

	term_key_name(key, name, sizeof name);
	if (!key_name_canonical(name, canonical, sizeof canonical))
		return NULL;
	*repeat = bindings_repeats(&ct->bindings, canonical);
	return bindings_lookup(&ct->bindings, canonical);
}

/* The key after the prefix: its binding; the prefix again goes to the
 * pane. */
static void prefix_command(struct conn *c, const struct term_key *key)
{
	struct client_tty *ct = c->ctty;
	struct pane *p = active_pane(c);
	bool repeat = false;
	const char *command = binding_of(ct, key, &repeat);

	if (command != NULL) {
		ct->repeat_until = repeat ? server_now_ms() + (uint64_t)ct->config.repeat_time : 0;
		run_binding(c, command);
		return;
	}
	if (same_key(key, &ct->prefix_key) && p != NULL)
		term_send_key(p->term, key);
}

/* The help overlay's keys, through the help-mode table (j/k, Down/Up
 * a line, PageDown/Space/C-f and PageUp/C-b a page); a key bound to
 * nothing closes it, as cancel does. */
static void help_key(struct conn *c, const char *key)
{
	struct client_tty *ct = c->ctty;
	int page = ct->tty->rows > 6 ? ct->tty->rows - 6 : 1;
	const char *command = mode_tables_command(&ct->modes, "help-mode", key);

	if (command == NULL || strcmp(command, "cancel") == 0)
		close_overlay(ct);
	else if (strcmp(command, "scroll-down") == 0)
		ct->help_offset++;
	else if (strcmp(command, "scroll-up") == 0)
		ct->help_offset--;
	else if (strcmp(command, "page-down") == 0)
		ct->help_offset += page;
	else if (strcmp(command, "page-up") == 0)
		ct->help_offset -= page;
	server_tty_draw(c);
}

/* Tab at the prompt: a command's name, or the value of the option
 * before the word from the server's words (cmd-complete.c, the words
 * `complete` answers). */
static void prompt_tab(struct conn *c)
{
	struct client_tty *ct = c->ctty;
	const char *kind = server_prompt_completion_kind(&ct->prompt);
	const char *words[512];
	size_t n = 0;

	if (kind == NULL)
		return;
	if (strcmp(kind, "command") == 0) {
		while (n < sizeof words / sizeof words[0] &&
		       (words[n] = command_complete("", CMD_PROMPT, (int)n)) != NULL)
			n++;
		server_prompt_complete(&ct->prompt, words, n);
	} else {
		cJSON *request = cJSON_CreateObject(), *result = cJSON_CreateObject();
		const cJSON *list, *word;
		struct sm_error err = {0};

		cJSON_AddStringToObject(request, "kind", kind);
		if (cmd_complete(c, request, result, &err) == 0) {
			list = cJSON_GetObjectItemCaseSensitive(result, "words");
			cJSON_ArrayForEach(word, list)
			if (cJSON_IsString(word) && n < sizeof words / sizeof words[0])
				words[n++] = word->valuestring;
			server_prompt_complete(&ct->prompt, words, n);
		}
		cJSON_Delete(request);
		cJSON_Delete(result);
	}
	server_tty_draw(c);
}

/* A key at the prompt (the prompt table; ask mode's question, the
 * ask-mode table): what it asks for is done here. */
static void prompt_key(struct conn *c, const char *key)
{
	struct client_tty *ct = c->ctty;
	enum server_prompt_kind kind = ct->prompt.kind;
	bool history = server_prompt_has_history(&ct->prompt);
	enum server_prompt_action action;
	const char *const *lines;
	char run[2048];
	int count;

	action = server_prompt_key(&ct->prompt, &ct->modes, key, run, sizeof run);
	switch (action) {
	case SERVER_PROMPT_COMPLETE:
		prompt_tab(c);
		return;
	case SERVER_PROMPT_HISTORY_UP:
	case SERVER_PROMPT_HISTORY_DOWN:
		lines = prompt_history_lines(&count);
		server_prompt_history(&ct->prompt, action == SERVER_PROMPT_HISTORY_UP ? -1 : 1,
				      lines, count);
		break;
	case SERVER_PROMPT_RUN:
		if (kind == SERVER_PROMPT_ASK) {
			ask_answer(c, run);
		} else if (kind == SERVER_PROMPT_SEARCH_UP || kind == SERVER_PROMPT_SEARCH_DOWN) {
			struct pane *cp = pane_find(ct->copy.pane);
			struct server_copy_result r;

			if (ct->copy.active && cp != NULL) {
				server_copy_search(&ct->copy, cp, run,
						   kind == SERVER_PROMPT_SEARCH_UP, &r);
				copy_result(c, &r);
			}
		} else {
			/* The line typed goes into the server's history
			 * (prompt-history.c). */
			if (history)
				prompt_history_add(run);
			run_binding(c, run);
		}
		break;
	case SERVER_PROMPT_EDITED:
		break;
	}
	if (c->ctty == ct)
		server_tty_draw(c);
}

/* A key's canonical name, as the modes' tables are keyed; "" if it has
 * none (no binding has it). */
static const char *canonical_name(const struct term_key *key, char *out, size_t size)
{
	char name[KEY_NAME_MAX];

	term_key_name(key, name, sizeof name);
	if (!key_name_canonical(name, out, size))
		out[0] = '\0';
	return out;
}

static void handle_key(struct conn *c, const struct term_key *key)
{
	struct client_tty *ct = c->ctty;
	char canonical[KEY_NAME_MAX];
	struct pane *p;

	if (ct->help) {
		help_key(c, canonical_name(key, canonical, sizeof canonical));
		return;
	}
	if (ct->display_panes) {
		display_panes_key(c, canonical_name(key, canonical, sizeof canonical));
		return;
	}
	if (ct->prompt.active) {
		if (canonical_name(key, canonical, sizeof canonical)[0] != '\0')
			prompt_key(c, canonical);
		return;
	}
	if (ct->prefix) {
		ct->prefix = false;
		prefix_command(c, key);
		if (c->ctty == ct)
			server_tty_draw(c);
		return;
	}
	/* A repeating binding's key again, soon enough: no prefix needed. */
	if (ct->repeat_until > server_now_ms()) {
		bool repeat = false;
		const char *command = binding_of(ct, key, &repeat);

		if (command != NULL && repeat) {
			ct->repeat_until = server_now_ms() + (uint64_t)ct->config.repeat_time;
			run_binding(c, command);
			return;
		}
		ct->repeat_until = 0;
	}
	if (same_key(key, &ct->prefix_key)) {
		ct->prefix = true;
		server_tty_draw(c);
		return;
	}
	/* Choose mode's keys; the prefix, taken above, still works there. */
	if (ct->choose.active) {
		choose_key(c, key);
		if (c->ctty == ct)
			server_tty_draw(c);
		return;
	}
	/* In copy mode the prefix still works, as in tmux's modes. */
	if (ct->copy.active) {
		if (canonical_name(key, canonical, sizeof canonical)[0] != '\0')
			copy_key(c, canonical);
		if (c->ctty == ct)
			server_tty_draw(c);
		return;
	}
	p = active_pane(c);
	if (p != NULL && p->master >= 0) {
		p->input_ms = server_now_ms();
		term_send_key(p->term, key);
	}
}

/* ---- the mouse ---- */

/* A tiled pane shown (or the zoomed one); floating ones are float_at's. */
static bool shown(const struct window *w, const struct pane *p)
{
	return w->zoomed != NULL ? w->zoomed == p : !p->floating;
}

/* The pane under x, y: its content or its title line.  A floating pane
 * is above the tiled ones; its side and bottom borders are no pane's. */
static struct pane *pane_at(struct conn *c, int x, int y)
{
	struct window *w = c->attached->active;
	bool corner, border;
	struct pane *f = w != NULL ? float_at(w, x, y, &corner, &border) : NULL;

	if (f != NULL)
		return (corner || border) && y != f->cell->y ? NULL : f;

	for (struct pane *p = w != NULL ? w->panes : NULL; p != NULL; p = p->next)
		if (shown(w, p) && x >= p->x && x < p->x + p->cols && y >= p->y - 1 &&
		    y < p->y + p->rows)
			return p;
	return NULL;
}

static void dispatch_pane_request(struct conn *c, const char *cmd, int pane, const char *dir,
				  int amount)
{
	cJSON *request = cJSON_CreateObject();

	cJSON_AddStringToObject(request, "cmd", cmd);
	cJSON_AddNumberToObject(request, "pane", pane);
	if (dir != NULL) {
		cJSON_AddStringToObject(request, "dir", dir);
		cJSON_AddNumberToObject(request, "amount", amount);
	}
	cmd_dispatch(c, request);
	cJSON_Delete(request);
}

static void focus_pane(struct conn *c, struct pane *p)
{
	if (active_pane(c) == p)
		return;
	server_copy_leave(&c->ctty->copy);
	dispatch_pane_request(c, "select-pane", p->id, NULL, 0);
}

/* A press on a border starts a drag: the pane on the border's left (a
 * column) or above it (a title line, the divider between stacked
 * panes) has its right or bottom edge follow. */
static bool start_border_drag(struct conn *c, int x, int y)
{
	struct client_tty *ct = c->ctty;
	struct window *w = c->attached->active;

	for (struct pane *p = w != NULL ? w->panes : NULL; p != NULL; p = p->next) {
		struct pane *below;

		if (!shown(w, p))
			continue;
		if (x == p->x + p->cols && y >= p->y - 1 && y < p->y + p->rows) {
			ct->drag.active = true;
			ct->drag.vertical = true;
			ct->drag.pane = p->id;
			ct->drag.press_pane = -1;
		} else if (y == p->y + p->rows && x >= p->x && x < p->x + p->cols &&
			   (below = pane_at(c, x, y)) != NULL) {
			ct->drag.active = true;
			ct->drag.vertical = false;
			ct->drag.pane = p->id;
			ct->drag.press_pane = below->id;
		} else {
			continue;
		}
		ct->drag.start_x = ct->drag.last_x = x;
		ct->drag.start_y = ct->drag.last_y = y;
		return true;
	}
	return false;
}

static void drag_to(struct conn *c, int x, int y)
{
	struct client_tty *ct = c->ctty;
	int delta = ct->drag.vertical ? x - ct->drag.last_x : y - ct->drag.last_y;

	if (delta == 0)
		return;
	dispatch_pane_request(c, "resize-pane", ct->drag.pane,
			      ct->drag.vertical ? (delta > 0 ? "right" : "left")
						: (delta > 0 ? "down" : "up"),
			      abs(delta));
	ct->drag.last_x = x;
	ct->drag.last_y = y;
}

/* The wheel: a program that asked for the mouse gets it; otherwise copy
 * mode in the pane under the pointer, scrolled 3 lines, and ended when
 * the wheel brings back to the bottom a copy mode the wheel began (as
 * tmux's copy-mode -e). */
static void wheel(struct conn *c, struct pane *p, int x, int y, bool up, int mods)
{
	struct server_copy *copy = &c->ctty->copy;
	bool copying = copy->active && copy->pane == p->id;

	if (term_mouse_mode(p->term) > 0 && !copying) {
		term_send_mouse(p->term, y - p->y, x - p->x, up ? 4 : 5, true, mods);
		return;
	}
	if (p->state == SANDBOX_ERROR)
		return;
	if (!copying) {
		if (!up)
			return;
		server_copy_enter(copy, p, false);
		copy->exit_at_bottom = true;
	}
	server_copy_scroll(copy, up ? -3 : 3);
	if (!up && copy->exit_at_bottom && server_copy_at_bottom(copy))
		server_copy_leave(copy);
}

/* A floating pane under the mouse: a press on its title row or border
 * moves it, on its bottom-right corner sizes it, as long as the button
 * is held; it is focused at the press.  True when the event was this. */
static bool float_mouse(struct conn *c, const struct term_input *in)
{
	struct client_tty *ct = c->ctty;
	struct window *w = c->attached->active;
	bool corner, border;
	struct pane *f;

	if (ct->float_drag.active) {
		f = pane_find(ct->float_drag.pane);
		if (!in->pressed || in->button != 1 || f == NULL || !pane_float_shown(f)) {
			ct->float_drag.active = false;
			return f != NULL;
		}
		if (ct->float_drag.resize)
			float_resize(f, in->col - f->cell->x + 1, in->row - f->cell->y + 1);
		else
			float_move(f, in->col - ct->float_drag.dx, in->row - ct->float_drag.dy);
		return true;
	}
	if (w == NULL || in->button != 1 || !in->pressed ||
	    (f = float_at(w, in->col, in->row, &corner, &border)) == NULL || !(corner || border))
		return false;
	ct->float_drag.active = true;
	ct->float_drag.resize = corner;
	ct->float_drag.pane = f->id;
	ct->float_drag.dx = in->col - f->cell->x;
	ct->float_drag.dy = in->row - f->cell->y;
	focus_pane(c, f);
	return true;
}

static void handle_mouse(struct conn *c, const struct term_input *in)
{
	struct client_tty *ct = c->ctty;
	struct pane *p = pane_at(c, in->col, in->row);
	int x = in->col, y = in->row;
	bool reports = p != NULL && term_mouse_mode(p->term) > 0 && y >= p->y &&
		       !(ct->copy.active && ct->copy.pane == p->id);

	if (float_mouse(c, in)) {
		if (c->ctty == ct)
			server_tty_draw(c);
		return;
	}

	if (in->button == 4 || in->button == 5) {
		if (in->pressed && p != NULL && y >= p->y)
			wheel(c, p, x, y, in->button == 4, in->mods);
	} else if (in->button == 1 && in->pressed && ct->drag.active) {
		drag_to(c, x, y);
	} else if (in->pressed && in->button >= 1) {
		/* A tiled border under a floating pane is out of reach. */
		if (in->button == 1 && (p == NULL || !p->floating) && start_border_drag(c, x, y))
			return;
		if (p == NULL)
			return;
		focus_pane(c, p);
		/* Title-line clicks only focus; content clicks reach programs
		 * that asked for the mouse. */
		if (reports)
			term_send_mouse(p->term, y - p->y, x - p->x, in->button, true, in->mods);
	} else if (!in->pressed && ct->drag.active) {
		struct pane *clicked = pane_find(ct->drag.press_pane);
		bool moved = x != ct->drag.start_x || y != ct->drag.start_y;

		drag_to(c, x, y);
		ct->drag.active = false;
		if (!moved && clicked != NULL)
			focus_pane(c, clicked);
	} else if (!in->pressed && reports) {
		term_send_mouse(p->term, y - p->y, x - p->x, in->button > 0 ? in->button : 1, false,
				in->mods);
	}
	if (c->ctty == ct)
		server_tty_draw(c);
}

/* Decode what waits in the input buffer; `final` once the escape timeout
 * passed.  Stops when the client detached on a key. */
static void decode_input(struct conn *c, bool final)
{
	struct client_tty *ct = c->ctty;
	size_t at = 0;

	while (c->ctty == ct && c->attached != NULL && at < ct->ninput) {
		struct term_input in;
		size_t used = term_input_decode(ct->input + at, ct->ninput - at, final, &in);

		if (used == 0)
			break;
		/* Choose mode's list covers the panes: neither the mouse nor
		 * what is no key reaches them. */
		if (ct->choose.active &&
		    (in.kind == TERM_INPUT_MOUSE || in.kind == TERM_INPUT_OTHER)) {
			at += used;
			continue;
		}
		if (in.kind == TERM_INPUT_KEY) {
			handle_key(c, &in.key);
		} else if (in.kind == TERM_INPUT_MOUSE) {
			handle_mouse(c, &in);
		} else if (in.kind == TERM_INPUT_FOCUS) {
			/* The terminal's window lost or gained the user's eye:
			 * the pane a program watches with 1004 is told. */
			ct->unfocused = !in.pressed;
			server_update_focus(c->attached);
		} else if (in.kind == TERM_INPUT_OTHER && !ct->prefix && !ct->prompt.active) {
			/* A sequence no key has is what the user typed (an ESC
			 * and text, as a program's name may hold): the pane gets
			 * it as it came. */
			struct pane *p = active_pane(c);

			if (p != NULL && p->master >= 0)
				term_send_text(p->term, ct->input + at, used);
		}
		at += used;
	}
	if (c->ctty != ct)
		return;
	memmove(ct->input, ct->input + at, ct->ninput - at);
	ct->ninput -= at;
}

static void on_escape_timer(uv_timer_t *timer)
{
	struct conn *c = timer->data;

	if (c->ctty != NULL)
		decode_input(c, true);
}

static void on_input(uv_poll_t *handle, int status, int events)
{
	struct conn *c = handle->data;
	struct client_tty *ct = c->ctty;
	ssize_t n;

	if (ct == NULL || paused(c))
		return;
	n = status < 0 ? -1
		       : read(ct->in_fd, ct->input + ct->ninput, sizeof ct->input - ct->ninput);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The terminal hung up: the client goes with it. */
		uv_poll_stop(handle);
		return;
	}
	ct->ninput += (size_t)n;
	uv_timer_stop(ct->escape_timer);
	session_client_active(c);
	decode_input(c, ct->ninput == sizeof ct->input);
	if (c->ctty == ct && ct->ninput > 0)
		uv_timer_start(ct->escape_timer, on_escape_timer, ESCAPE_MS, 0);
}

/* ---- output ---- */

static void on_writable(uv_poll_t *handle, int status, int events)
{
	struct conn *c = handle->data;
	struct client_tty *ct = c->ctty;
	int rc;

	if (ct == NULL)
		return;
	rc = status < 0 ? -1 : tty_write_out(ct->tty);
	if (rc == 1)
		return;
	uv_poll_stop(handle);
	ct->out_polling = false;
}

static void start_output_poll(struct client_tty *ct)
{
	if (ct->out_polling)
		return;
	ct->out_polling = true;
	uv_poll_start(ct->out_poll, UV_WRITABLE, on_writable);
}

/* ---- taking and giving back ---- */

static pid_t peer_pid(struct conn *c)
{
	uv_os_fd_t fd;
	pid_t pid;

	if (uv_fileno((const uv_handle_t *)&c->pipe, &fd) != 0 ||
	    os_peer_credentials(fd, NULL, &pid) != 0)
		return -1;
	return pid;
}

/* The descriptors that came with the attach line, as our own. */
static int take_fds(struct conn *c, int *fds, int max)
{
	int n = 0;

	while (uv_pipe_pending_count(&c->pipe) > 0) {
		uv_pipe_t *tmp = xmalloc(sizeof *tmp);
		uv_os_fd_t fd = -1;

		uv_pipe_init(server.loop, tmp, 0);
		if (uv_accept((uv_stream_t *)&c->pipe, (uv_stream_t *)tmp) == 0 &&
		    uv_fileno((uv_handle_t *)tmp, &fd) == 0 && n < max)
			fds[n++] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		uv_close((uv_handle_t *)tmp, on_handle_closed);
	}
	return n;
}

int server_tty_attach(struct conn *c, const struct server_tty_options *options,
		      struct sm_error *err)
{
	struct client_tty *ct;
	struct tty_term tt;
	struct sm_error ignored = {0};
	char warning[700] = "";
	int fds[2] = {-1, -1}, n = take_fds(c, fds, 2);

	if (n < 1 || fds[0] < 0 || !isatty(fds[0]) || (n == 2 && (fds[1] < 0 || !isatty(fds[1])))) {
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		sm_error_set(err, SM_ERR_NO_TERMINAL, "the attach request came without a terminal");
		return -1;
	}
	if (tty_term_load(&tt, options->term, options->colorterm, err) != 0) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return -1;
	}
	tt.ascii = !options->utf8;
	/* NO_COLOR: attributes only, the chrome's as the theme's slots say. */
	if (options->no_color)
		tt.colors = 0;
	ct = xcalloc(1, sizeof *ct);
	ct->conn = c;
	ct->client_pid = peer_pid(c);
	ct->client_stat = ct->client_pid > 0 ? proc_stat_open(ct->client_pid) : -1;
	ct->in_fd = fds[0];
	ct->out_fd = n == 2 ? fds[1] : fds[0];
	ct->saved_ok = tcgetattr(ct->in_fd, &ct->saved) == 0;
	{
		struct stat st;

		ct->in_rdev_known = fstat(ct->in_fd, &st) == 0;
		ct->in_rdev = ct->in_rdev_known ? (unsigned long long)st.st_rdev : 0;
	}
	ct->in_flags = fcntl(ct->in_fd, F_GETFL);
	ct->out_flags = fcntl(ct->out_fd, F_GETFL);
	fcntl(ct->in_fd, F_SETFL, ct->in_flags | O_NONBLOCK);
	if (ct->saved_ok)
		set_raw(ct);
	ct->tty = tty_new(ct->out_fd, &tt, c->terminal_rows, c->terminal_cols);
	config_defaults(&ct->config);
	/* The config the client would read, by its environment: the same
	 * user (the socket's peer is checked), so any file it names is one
	 * it may read itself.  Its default file may be missing. */
	if ((options->config == NULL || access(options->config, F_OK) == 0) &&
	    config_load(options->config, &ct->config, &ignored) != 0) {
		/* Not fatal: said in the status line, the defaults used. */
		snprintf(warning, sizeof warning, "config: %s", ignored.message);
		config_free(&ct->config);
		config_defaults(&ct->config);
	}
	bindings_init_defaults(&ct->bindings);
	if (ct->config.vi_pane_keys)
		bindings_add_vi_pane_keys(&ct->bindings);
	for (size_t i = 0; i < ct->config.nbindings; i++)
		bindings_set(&ct->bindings, ct->config.bindings[i].key,
			     ct->config.bindings[i].command, NULL);
	if (options->cwd != NULL && options->cwd[0] == '/')
		ct->cwd = xstrndup(options->cwd, PATH_MAX - 1);
	mode_tables_init(&ct->modes);
	for (size_t i = 0; i < ct->config.ntable_bindings; i++)
		mode_tables_bind(&ct->modes, ct->config.table_bindings[i].table,
				 ct->config.table_bindings[i].binding.key,
				 ct->config.table_bindings[i].binding.command, NULL);
	/* Without a status line the panes have the last row too. */
	c->client_status = ct->config.status;
	if (!term_key_parse(ct->config.prefix, &ct->prefix_key))
		term_key_parse("C-b", &ct->prefix_key);
	if (theme_load(options->theme != NULL ? options->theme : ct->config.theme, &ct->theme,
		       &ignored) != 0)
		snprintf(warning, sizeof warning, "%s; using the built-in theme", ignored.message);
	ct->in_poll = xmalloc(sizeof *ct->in_poll);
	ct->out_poll = xmalloc(sizeof *ct->out_poll);
	ct->escape_timer = xmalloc(sizeof *ct->escape_timer);
	ct->message_timer = xmalloc(sizeof *ct->message_timer);
	ct->display_panes_timer = xmalloc(sizeof *ct->display_panes_timer);
	uv_timer_init(server.loop, ct->display_panes_timer);
	ct->display_panes_timer->data = c;
	uv_timer_init(server.loop, ct->message_timer);
	ct->message_timer->data = c;
	uv_poll_init(server.loop, ct->in_poll, ct->in_fd);
	uv_poll_init(server.loop, ct->out_poll, ct->out_fd);
	uv_timer_init(server.loop, ct->escape_timer);
	ct->in_poll->data = ct->out_poll->data = ct->escape_timer->data = c;
	uv_poll_start(ct->in_poll, UV_READABLE, on_input);
	tty_start(ct->tty);
	c->ctty = ct;
	if (!status_timer_open || !uv_is_active((uv_handle_t *)&status_timer))
		status_tick_start();
	if (warning[0] != '\0')
		server_tty_message(c, true, warning);
	ct->no_color = options->no_color;
	log_info("client terminal %s, %dx%d", options->term, c->terminal_cols, c->terminal_rows);
	return 0;
}

/* The last bytes (the main screen back) reach the terminal if it reads
 * within GIVE_BACK_MS; a terminal that does not read is left as it is.
 * One that fell behind already (it stopped reading) is not waited for:
 * the server and every other client would stand still for nothing. */
static void write_last(struct client_tty *ct)
{
	uint64_t deadline = server_now_ms() + GIVE_BACK_MS;

	if (ct->tty->blocked) {
		log_info("client %d: its terminal stopped reading; given back without waiting",
			 (int)ct->client_pid);
		tty_write_out(ct->tty);
		return;
	}
	while (tty_write_out(ct->tty) == 1) {
		struct pollfd pfd = {.fd = ct->out_fd, .events = POLLOUT};
		uint64_t now = server_now_ms();

		if (now >= deadline || poll(&pfd, 1, (int)(deadline - now)) <= 0)
			break;
	}
}

void server_tty_detach(struct conn *c)
{
	struct client_tty *ct = c->ctty;

	if (ct == NULL)
		return;
	c->ctty = NULL;
	tty_stop(ct->tty);
	write_last(ct);
	if (ct->saved_ok)
		tcsetattr(ct->in_fd, TCSADRAIN, &ct->saved);
	/* The descriptors share their file description with the user's
	 * shell: it gets them back blocking, as they came. */
	if (ct->in_flags >= 0)
		fcntl(ct->in_fd, F_SETFL, ct->in_flags);
	if (ct->out_flags >= 0)
		fcntl(ct->out_fd, F_SETFL, ct->out_flags);
	close_handle(ct->in_poll);
	close_handle(ct->out_poll);
	close_handle(ct->escape_timer);
	close_handle(ct->message_timer);
	close_handle(ct->display_panes_timer);
	if (ct->out_fd != ct->in_fd)
		close(ct->out_fd);
	close(ct->in_fd);
	if (ct->client_stat >= 0)
		close(ct->client_stat);
	tty_free(ct->tty);
	server_copy_leave(&ct->copy);
	server_choose_leave(&ct->choose);
	close_overlay(ct);
	config_free(&ct->config);
	bindings_free(&ct->bindings);
	mode_tables_free(&ct->modes);
	free(ct->cwd);
	free(ct);
}

int server_tty_mode_commands(struct pane *p, const cJSON *commands, struct sm_error *err)
{
	const cJSON *command;
	bool found = false;

	cJSON_ArrayForEach(command, commands)
	{
		if (mode_table_check("copy-mode", command->valuestring, err) < 0)
			return -1;
	}
	for (struct conn *c = server.conns; c != NULL; c = c->next) {
		if (c->ctty == NULL || !c->ctty->copy.active || c->ctty->copy.pane != p->id)
			continue;
		found = true;
		cJSON_ArrayForEach(command, commands)
		{
			struct server_copy_result r;

			server_copy_command(&c->ctty->copy, p, command->valuestring, &r);
			copy_result(c, &r);
		}
		server_tty_draw(c);
	}
	if (!found)
		sm_error_set(err, SM_ERR_INVALID_STATE, "pane %%%d is not in copy mode", p->id);
	return found ? 0 : -1;
}

bool server_tty_focused(const struct conn *c)
{
	return c->ctty == NULL || !c->ctty->unfocused;
}

bool server_tty_pending(const struct conn *c)
{
	return c->ctty != NULL && tty_pending(c->ctty->tty) > 0;
}

/* The attached terminals whose keys the server reads: not a paused
 * client's, nor one whose terminal hung up (its poll is stopped, and
 * poll(2) would report it ready for ever). */
static nfds_t read_terminals(struct pollfd *fds, struct conn **conns, nfds_t max)
{
	nfds_t n = 0;

	for (struct conn *c = server.conns; c != NULL && n < max; c = c->next)
		if (c->ctty != NULL && !c->ctty->paused &&
		    uv_is_active((uv_handle_t *)c->ctty->in_poll)) {
			conns[n] = c;
			fds[n++] = (struct pollfd){.fd = c->ctty->in_fd, .events = POLLIN};
		}
	return n;
}

/* One poll(2) of every attached terminal, no wait. */
bool server_tty_keys_waiting(void)
{
	struct pollfd fds[16];
	struct conn *conns[16];
	nfds_t n = read_terminals(fds, conns, 16);

	return n > 0 && poll(fds, n, 0) > 0;
}

static bool conn_alive(const struct conn *c)
{
	for (const struct conn *k = server.conns; k != NULL; k = k->next)
		if (k == c)
			return true;
	return false;
}

/* Read the terminals that have keys waiting now, ahead of whatever the
 * loop would serve first (a flooding pane polled ready before the key
 * came is served before it in the next turn).  A key can close a
 * client, so each is looked up again before it is read. */
void server_tty_read_waiting(void)
{
	struct pollfd fds[16];
	struct conn *conns[16];
	nfds_t n = read_terminals(fds, conns, 16);

	if (n == 0 || poll(fds, n, 0) <= 0)
		return;
	for (nfds_t i = 0; i < n; i++)
		if (fds[i].revents != 0 && conn_alive(conns[i]) && conns[i]->ctty != NULL)
			on_input(conns[i]->ctty->in_poll, 0, UV_READABLE);
}

void server_tty_bell(struct conn *c, const struct window *w)
{
	struct client_tty *ct = c->ctty;
	const char *bel;

	if (ct == NULL || ct->config.bell_action == BELL_NONE ||
	    (ct->config.bell_action == BELL_CURRENT &&
	     (c->attached == NULL || c->attached->active != w)))
		return;
	bel = ct->tty->term.caps[TTYC_BEL] != NULL ? ct->tty->term.caps[TTYC_BEL] : "\a";
	tty_raw(ct->tty, bel, strlen(bel));
	tty_flush(ct->tty);
	if (tty_pending(ct->tty) > 0)
		start_output_poll(ct);
}

/* Write the whole screen again: the terminal's content is unknown. */
static void server_tty_redraw(struct conn *c)
{
	if (c->ctty == NULL)
		return;
	tty_invalidate(c->ctty->tty);
	server_tty_draw(c);
}

void server_tty_resize(struct conn *c)
{
	struct client_tty *ct = c->ctty;

	if (ct == NULL)
		return;
	if (ct->paused) {
		ct->owner_checked = 0;
		if (!client_owns_terminal(ct))
			return;
		/* Back in the foreground: the shell had the terminal in its
		 * own modes meanwhile. */
		log_info("client %d has its terminal again", (int)ct->client_pid);
		ct->paused = false;
		if (ct->saved_ok)
			set_raw(ct);
		tty_start(ct->tty);
		uv_poll_start(ct->in_poll, UV_READABLE, on_input);
	}
	/* The same size again: the client was continued after a stop, and
	 * whatever ran meanwhile drew over the screen. */
	if (ct->tty->rows == c->terminal_rows && ct->tty->cols == c->terminal_cols) {
		server_tty_redraw(c);
		return;
	}
	tty_resize(ct->tty, c->terminal_rows, c->terminal_cols);
	server_tty_draw(c);
}
