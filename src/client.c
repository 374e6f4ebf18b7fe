/*
 * client: connection, event loop and protocol messages of the attached
 * client (see client.h for the concept, client-internal.h for the map of
 * the client's files).
 *
 * The loop is a plain poll() on the terminal, the server socket and a
 * self-pipe for SIGWINCH.  Each wake-up drains everything readable —
 * every key, every complete JSON line — and then draws once, so a
 * keystroke's echo is painted as soon as its frame arrives and a burst of
 * frames costs one doupdate().  The only timeouts are the clock in the
 * status line and expiring messages; nothing waits for a tick.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client-internal.h"
#include "client.h"
#include "echo-share.h"
#include "error.h"
#include "xalloc.h"

#include <ncurses.h>

#define PROTOCOL_VERSION 1
/* Frames of a big, colourful screen can pass the 1 MiB the server
 * accepts from clients; this only bounds a server gone wrong. */
#define INCOMING_LINE_MAX (64 * 1024 * 1024)
#define MESSAGE_MS 3000
#define ERROR_MESSAGE_MS 6000
#define HELLO_TIMEOUT_MS 5000
/* The client sizes the server accepts (cmd-client.c). */
#define CLIENT_COLS_MIN 10
#define CLIENT_ROWS_MIN 4
#define CLIENT_SIZE_MAX 1000

static int winch_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_pending, cont_pending;

/* SIGWINCH, SIGTSTP (kill -TSTP: in raw mode the terminal sends none) and
 * SIGCONT (back from a kill -STOP, which cannot be caught): all only wake
 * the loop through the self-pipe. */
static void on_sigwinch(int sig)
{
	int saved = errno;
	char byte = 0;

	if (sig == SIGTSTP)
		stop_pending = 1;
	if (sig == SIGCONT)
		cont_pending = 1;
	if (write(winch_pipe[1], &byte, 1) < 0) {
		/* the pipe is full: a resize is already pending */
	}
	errno = saved;
}

long long client_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void client_show_message(struct client *c, bool is_error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->message, sizeof c->message, fmt, ap);
	va_end(ap);
	c->message_is_error = is_error;
	c->message_until = client_now_ms() + (is_error ? ERROR_MESSAGE_MS : MESSAGE_MS);
	c->dirty = true;
}

void client_leave(struct client *c, int exit_code, const char *message)
{
	if (c->exiting)
		return;
	c->exiting = true;
	c->exit_code = exit_code;
	snprintf(c->exit_message, sizeof c->exit_message, "%s", message);
}

/* The controlling terminal, for OSC 52.  Written after doupdate() so it
 * never lands inside one of ncurses' sequences. */
void client_write_tty(const char *bytes, size_t len)
{
	client_write_all(STDOUT_FILENO, bytes, len);
}

/* All of it, or as much as fd takes before an error. */
void client_write_all(int fd, const char *bytes, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, bytes, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		bytes += n;
		len -= (size_t)n;
	}
}

/* Outgoing bytes are queued and written as the socket accepts them, so a
 * slow server never blocks the terminal. */
static void flush_output(struct client *c)
{
	while (c->outlen > 0) {
		ssize_t n = send(c->fd, c->outbuf, c->outlen, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			client_leave(c, 1, "[lost server]");
			c->outlen = 0;
			return;
		}
		memmove(c->outbuf, c->outbuf + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
	}
}

static void queue_line(struct client *c, const char *line)
{
	size_t len = strlen(line);

	if (c->outlen + len + 1 > c->outcap) {
		size_t cap = (c->outlen + len + 1) * 2;

		c->outbuf = xrealloc(c->outbuf, cap);
		c->outcap = cap;
	}
	memcpy(c->outbuf + c->outlen, line, len);
	c->outbuf[c->outlen + len] = '\n';
	c->outlen += len + 1;
	flush_output(c);
}

int client_request(struct client *c, cJSON *request, reply_fn on_reply, int arg)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(request, "cmd");
	int id = ++c->next_id;
	struct pending_request *slot = &c->pending[id % PENDING_MAX];
	char *line;

	cJSON_AddNumberToObject(request, "id", id);
	line = cJSON_PrintUnformatted(request);
	/* A ring of pending replies: the server answers in order, so a slot
	 * is long free when its id comes round again. */
	slot->id = id;
	slot->on_reply = on_reply;
	slot->arg = arg;
	snprintf(slot->what, sizeof slot->what, "%s", cJSON_IsString(cmd) ? cmd->valuestring : "?");
	cJSON_Delete(request);
	if (line == NULL)
		return -1;
	queue_line(c, line);
	free(line);
	return id;
}

/* Keys are notifications: no id, so the server sends no reply on
 * success (one wakeup less per keystroke); an error still comes back,
 * with id null, and is shown like any other. */
static void client_notify(struct client *c, cJSON *request)
{
	char *line = cJSON_PrintUnformatted(request);

	cJSON_Delete(request);
	if (line != NULL)
		queue_line(c, line);
	free(line);
}

void client_reply_report_error(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");

	(void)arg;
	if (result != NULL)
		return;
	client_show_message(c, true, "%s: %s%s%s", c->replying_to,
			    cJSON_IsString(message) ? message->valuestring : "failed",
			    cJSON_IsString(code) ? " — " : "",
			    cJSON_IsString(code) ? code->valuestring : "");
}

/* Typed characters are sent in one text event per batch rather than one
 * request per key; any named key flushes them first, keeping order. */
void client_flush_text(struct client *c)
{
	cJSON *request;
	char text[sizeof c->pending_text + 1];

	if (c->pending_text_len == 0)
		return;
	memcpy(text, c->pending_text, c->pending_text_len);
	text[c->pending_text_len] = 0;
	c->pending_text_len = 0;
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "key");
	cJSON_AddStringToObject(request, "text", text);
	client_notify(c, request);
}

static void client_send_text(struct client *c, const char *utf8, size_t len)
{
	if (c->pending_text_len + len > sizeof c->pending_text)
		client_flush_text(c);
	if (len > sizeof c->pending_text)
		len = sizeof c->pending_text;
	memcpy(c->pending_text + c->pending_text_len, utf8, len);
	c->pending_text_len += len;
}

void client_send_key(struct client *c, const char *name)
{
	cJSON *request;

	if (key_name_is_text(name)) {
		client_send_text(c, strcmp(name, "Space") == 0 ? " " : name,
				 strcmp(name, "Space") == 0 ? 1 : strlen(name));
		return;
	}
	client_flush_text(c);
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "key");
	cJSON_AddStringToObject(request, "key", name);
	client_notify(c, request);
}

static void on_layout(struct client *c, const cJSON *event)
{
	client_echo_forget_regions(c);
	client_apply_layout(c, event);
	choose_layout_changed(c);
}

static void on_frame(struct client *c, const cJSON *event)
{
	client_apply_frame(c, event);
}

/* A pane rang the bell: the terminal rings too, as bell_action says
 * (tmux's bell-action); the mark on the pane comes with the layout. */
static void on_bell(struct client *c, const cJSON *event)
{
	int window = -1;
	const cJSON *index = cJSON_GetObjectItemCaseSensitive(event, "window");

	for (size_t i = 0; i < c->nwindows; i++)
		if (c->windows[i].active)
			window = c->windows[i].index;
	if (c->config.bell_action == BELL_NONE ||
	    (c->config.bell_action == BELL_CURRENT &&
	     (!cJSON_IsNumber(index) || index->valueint != window)))
		return;
	beep();
}

static void on_status(struct client *c, const cJSON *event)
{
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(event, "text");
	const cJSON *level = cJSON_GetObjectItemCaseSensitive(event, "level");

	if (cJSON_IsString(text))
		client_show_message(
		    c, cJSON_IsString(level) && strcmp(level->valuestring, "error") == 0, "%s",
		    text->valuestring);
}

static void on_exit_event(struct client *c, const cJSON *event)
{
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(event, "reason");
	const char *why = cJSON_IsString(reason) ? reason->valuestring : "";
	char message[256];

	if (strcmp(why, "detached") == 0)
		snprintf(message, sizeof message, "[detached (from session %s)]", c->session);
	else if (strcmp(why, "server-exit") == 0)
		snprintf(message, sizeof message, "[server exited]");
	else
		snprintf(message, sizeof message, "[exited]");
	client_leave(c, 0, message);
}

/* Sandbox events worth a line in the status bar: a sandbox that failed
 * and a default backend that stepped down.  Violation counts arrive with
 * the layout. */
static void on_sandbox(struct client *c, const cJSON *event)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(event, "kind");
	const cJSON *pane = cJSON_GetObjectItemCaseSensitive(event, "pane");
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(event, "from");
	const cJSON *to = cJSON_GetObjectItemCaseSensitive(event, "to");
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(event, "reason");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(event, "message");
	const char *why = cJSON_IsString(reason)    ? reason->valuestring
			  : cJSON_IsString(message) ? message->valuestring
						    : "";
	char where[32] = "";

	if (!cJSON_IsString(kind))
		return;
	if (cJSON_IsNumber(pane))
		snprintf(where, sizeof where, "pane %%%d: ", pane->valueint);
	if (strcmp(kind->valuestring, "downgrade") == 0)
		client_show_message(c, false, "%sdefault backend %s unavailable, using %s%s%s",
				    where, cJSON_IsString(from) ? from->valuestring : "?",
				    cJSON_IsString(to) ? to->valuestring : "?", why[0] ? ": " : "",
				    why);
	else if (strcmp(kind->valuestring, "error") == 0)
		client_show_message(c, true, "%ssandbox failed%s%s", where, why[0] ? ": " : "",
				    why);
}

static const struct {
	const char *name;
	void (*handle)(struct client *c, const cJSON *event);
} event_handlers[] = {
    {"layout", on_layout},   {"frame", on_frame},     {"status", on_status},
    {"exit", on_exit_event}, {"sandbox", on_sandbox},	 {"tty-input", client_echo_on_input},
    {"bell", on_bell},	     {"ask", client_ask_event},
    {"clipboard", client_clipboard_event},
};

static void handle_reply(struct client *c, const cJSON *message)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(message, "id");
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(message, "ok");
	const cJSON *result = cJSON_GetObjectItemCaseSensitive(message, "result");
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(message, "error");
	struct pending_request *slot;
	cJSON *empty = NULL;

	if (!cJSON_IsNumber(id)) {
		/* A reply without an id answers nothing we sent: show it. */
		snprintf(c->replying_to, sizeof c->replying_to, "server");
		if (cJSON_IsFalse(ok))
			client_reply_report_error(c, NULL, error, 0);
		return;
	}
	slot = &c->pending[id->valueint % PENDING_MAX];
	if (slot->id != id->valueint || slot->on_reply == NULL)
		return;
	slot->id = 0;
	snprintf(c->replying_to, sizeof c->replying_to, "%s", slot->what);
	if (cJSON_IsTrue(ok) && result == NULL)
		result = empty = cJSON_CreateObject();
	slot->on_reply(c, cJSON_IsTrue(ok) ? result : NULL, error, slot->arg);
	cJSON_Delete(empty);
}

static void handle_line(struct client *c, const char *line)
{
	cJSON *message = cJSON_Parse(line);
	const cJSON *event;

	if (message == NULL)
		return;
	event = cJSON_GetObjectItemCaseSensitive(message, "event");
	if (cJSON_IsString(event)) {
		for (size_t i = 0; i < sizeof event_handlers / sizeof event_handlers[0]; i++)
			if (strcmp(event->valuestring, event_handlers[i].name) == 0)
				event_handlers[i].handle(c, message);
	} else {
		handle_reply(c, message);
	}
	cJSON_Delete(message);
}

static void read_socket(struct client *c)
{
	for (;;) {
		ssize_t n;
		char *start, *search, *newline;

		if (c->incap - c->inlen < 65536) {
			size_t cap = c->incap ? c->incap * 2 : 262144;

			if (c->inlen > INCOMING_LINE_MAX) {
				client_leave(c, 1, "[server sent a line longer than 64 MiB]");
				return;
			}
			c->inbuf = xrealloc(c->inbuf, cap);
			c->incap = cap;
		}
		size_t room = c->incap - c->inlen - 1;
		n = recv(c->fd, c->inbuf + c->inlen, room, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			client_leave(c, 1, "[lost server]");
			return;
		}
		/* Only the bytes just read can hold a new line end: a long
		 * frame arriving in pieces is scanned once, not once a piece. */
		search = c->inbuf + c->inlen;
		c->inlen += (size_t)n;
		start = c->inbuf;
		while (!c->exiting &&
		       (newline = memchr(search, '\n', c->inlen - (size_t)(search - c->inbuf))) !=
			   NULL) {
			*newline = 0;
			c->lines_read++;
			handle_line(c, start);
			start = search = newline + 1;
		}
		c->inlen -= (size_t)(start - c->inbuf);
		memmove(c->inbuf, start, c->inlen);
		/* A short read took all there was: poll() says when more
		 * comes, no need for a recv that only says EAGAIN. */
		if (c->exiting || (size_t)n < room)
			return;
	}
}

static int connect_socket(const char *path, char *why, size_t size)
{
	struct sockaddr_un addr;
	int fd;

	if (strlen(path) >= sizeof addr.sun_path) {
		snprintf(why, size, "socket path too long: %s", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, size, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
		snprintf(why, size, "no server running on %s (%s)", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* hello is answered before the terminal is taken over, so a version
 * mismatch or a refused peer is an ordinary error message on stderr. */
static int say_hello(int fd, char *why, size_t size)
{
	const char *request = "{\"id\":0,\"cmd\":\"hello\",\"version\":1}\n";
	char reply[8192];
	size_t len = 0;
	long long deadline = client_now_ms() + HELLO_TIMEOUT_MS;

	if (send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request)) {
		snprintf(why, size, "cannot talk to the server: %s", strerror(errno));
		return -1;
	}
	while (memchr(reply, '\n', len) == NULL) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int wait = (int)(deadline - client_now_ms());
		ssize_t n;

		if (wait <= 0 || len + 1 >= sizeof reply || poll(&pfd, 1, wait) <= 0) {
			snprintf(why, size, "the server did not answer hello");
			return -1;
		}
		if ((n = recv(fd, reply + len, sizeof reply - len - 1, 0)) <= 0) {
			snprintf(why, size, "the server closed the connection");
			return -1;
		}
		len += (size_t)n;
	}
	reply[len] = 0;
	*strchr(reply, '\n') = 0;
	cJSON *json = cJSON_Parse(reply);
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");
	int rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "ok")) ? 0 : -1;

	if (rc != 0)
		snprintf(why, size, "server refused hello: %s",
			 cJSON_IsString(message) ? message->valuestring : "bad reply");
	cJSON_Delete(json);
	/* Anything after the hello line is not possible before attach. */
	return rc;
}

static void on_attach_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	const cJSON *session = cJSON_GetObjectItemCaseSensitive(result, "session");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");
	char why[600];

	(void)arg;
	if (result == NULL) {
		snprintf(why, sizeof why, "sandmux: %s",
			 cJSON_IsString(message) ? message->valuestring : "attach failed");
		client_leave(c, 1, why);
		return;
	}
	c->attached = true;
	if (cJSON_IsString(session))
		snprintf(c->session, sizeof c->session, "%s", session->valuestring);
	/* The server has our page and terminal: let it read the keys. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "echo")))
		client_echo_hand_over(c, true);
}

static void terminal_size(int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	} else {
		*rows = LINES;
		*cols = COLS;
	}
}

static int clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

static void send_size(struct client *c, const char *cmd, const char *session)
{
	cJSON *request = cJSON_CreateObject();

	cJSON_AddStringToObject(request, "cmd", cmd);
	if (session != NULL)
		cJSON_AddStringToObject(request, "session", session);
	/* Within the sizes the server takes (cmd-client.c): a terminal
	 * smaller than that still gets a session of the smallest size and
	 * shows what fits of it, as tmux does; larger, it shows the largest
	 * session in its top-left corner. */
	cJSON_AddNumberToObject(request, "cols", clamp(c->cols, CLIENT_COLS_MIN, CLIENT_SIZE_MAX));
	cJSON_AddNumberToObject(request, "rows", clamp(c->rows, CLIENT_ROWS_MIN, CLIENT_SIZE_MAX));
	cJSON_AddBoolToObject(request, "status", c->config.status);
	if (strcmp(cmd, "attach") == 0 && c->echo != NULL) {
		cJSON_AddStringToObject(request, "tty", c->echo_tty);
		cJSON_AddStringToObject(request, "echo", c->echo_path);
	}
	client_request(c, request,
		       strcmp(cmd, "attach") == 0 ? on_attach_reply : client_reply_report_error, 0);
}

static void handle_resize(struct client *c)
{
	char drain[64];

	while (read(winch_pipe[0], drain, sizeof drain) > 0) {
	}
	if (stop_pending) {
		/* Give the terminal back, stop, and repaint on return. */
		bool reading = c->server_reads_tty;

		stop_pending = 0;
		/* The shell gets the terminal back: the server stops reading. */
		client_echo_hand_over(c, false);
		flush_output(c);
		endwin();
		kill(getpid(), SIGSTOP);
		refresh();
		if (reading)
			client_echo_hand_over(c, true);
		cont_pending = 0;
	}
	if (cont_pending) {
		/* Stopped from outside and continued: the shell had the
		 * terminal meanwhile (its modes, its output on the screen).
		 * Ours again, and everything drawn anew. */
		cont_pending = 0;
		reset_prog_mode();
		clearok(curscr, TRUE);
	}
	terminal_size(&c->rows, &c->cols);
	resize_term(c->rows, c->cols);
	/* The terminal rearranged what it showed to its new size (tmux and
	 * xterm reflow lines, push rows into their history); what ncurses
	 * believes is on the screen is no longer there.  The next update
	 * clears the screen and paints every cell, as tmux redraws a
	 * resized client whole. */
	clearok(curscr, TRUE);
	send_size(c, "client-size", NULL);
	c->redraw_all = true;
	c->dirty = true;
}

/* Milliseconds poll() may sleep: until a message expires, display-panes'
 * numbers go or the clock's minute turns over, whichever comes first. */
static int next_timeout(struct client *c)
{
	long long now = client_now_ms();
	int timeout = (int)(60000 - (time(NULL) % 60) * 1000);

	if (c->mode == MODE_DISPLAY_PANES && c->display_panes_until != 0) {
		long long left = c->display_panes_until - now;

		if (left <= 0) {
			/* display_panes_time is up: the numbers go. */
			c->mode = MODE_NORMAL;
			c->redraw_all = true;
			c->dirty = true;
			return 0;
		}
		if (left < timeout)
			timeout = (int)left;
	}
	if (c->message[0] != 0) {
		long long left = c->message_until - now;

		if (left <= 0) {
			c->message[0] = 0;
			c->dirty = true;
			return 0;
		}
		if (left < timeout)
			timeout = (int)left;
	}
	return timeout;
}

static void run_loop(struct client *c)
{
	while (!c->exiting) {
		struct pollfd fds[3] = {
		    /* Not while the server reads the terminal: one reader. */
		    {c->server_reads_tty ? -1 : STDIN_FILENO, POLLIN, 0},
		    {c->fd, (short)(POLLIN | (c->outlen > 0 ? POLLOUT : 0)), 0},
		    {winch_pipe[0], POLLIN, 0},
		};
		int timeout = next_timeout(c), ready;

		client_draw(c);
		/* Asleep, the terminal is free for the server's echo patches;
		 * awake, every write to it is ours (echo-share.h). */
		client_echo_release(c);
		ready = poll(fds, 3, timeout);
		client_echo_hold(c);
		if (ready < 0 && errno != EINTR)
			break;
		if (ready == 0)
			c->dirty = true; /* the clock's minute turned, or a message expired */
		if (fds[2].revents & POLLIN)
			handle_resize(c);
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR))
			read_socket(c);
		if (fds[1].revents & POLLOUT)
			flush_output(c);
		if (fds[0].revents & (POLLHUP | POLLERR))
			client_leave(c, 1, "[terminal closed]");
		else if ((fds[0].revents & POLLIN) && c->input_pipe[1] >= 0)
			client_echo_read_terminal(c);
		else if (fds[0].revents & POLLIN)
			client_read_input(c);
		client_echo_passthrough(c);
	}
	flush_output(c);
}

static void load_settings(struct client *c, const char *theme_override, char *warning, size_t size)
{
	struct sm_error err = {"", ""};
	const char *theme;

	config_defaults(&c->config);
	bindings_init_defaults(&c->bindings);
	if (config_load(NULL, &c->config, &err) != 0)
		snprintf(warning, size, "config: %s", err.message);
	if (c->config.vi_pane_keys)
		bindings_add_vi_pane_keys(&c->bindings);
	for (size_t i = 0; i < c->config.nbindings; i++)
		bindings_set(&c->bindings, c->config.bindings[i].key, c->config.bindings[i].command,
			     NULL);
	theme = theme_override != NULL ? theme_override : c->config.theme;
	if (theme_load(theme, &c->theme, &err) != 0) {
		/* Shown before ncurses takes the screen and again in the status
		 * line, where it is not scrolled away. */
		fprintf(stderr, "sandmux: %s; using the built-in theme\n", err.message);
		snprintf(warning, size, "%s; using the built-in theme", err.message);
	}
}

static void start_terminal(struct client *c)
{
	struct sigaction sa;
	FILE *in;

	/* Installed before initscr() so ncurses leaves SIGWINCH to us: the
	 * self-pipe wakes poll() and the resize is handled in the loop. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigwinch;
	sigaction(SIGWINCH, &sa, NULL);
	/* Ours too, so ncurses does not install its own SIGTSTP handler
	 * and switch it off and on around every screen update (two
	 * syscalls on each keystroke's echo). */
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	set_escdelay(25);
	/* With an echo page, keys reach ncurses through a pipe: the client
	 * or, once it has agreed, the server fills it (client-echo.c). */
	in = client_echo_input(c);
	if (in != NULL)
		c->screen = newterm(NULL, stdout, in);
	if (c->screen == NULL)
		initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* No typeahead check inside doupdate: input is polled by our loop. */
	typeahead(-1);
	meta(stdscr, TRUE);
	mousemask(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION, NULL);
	mouseinterval(0);
	client_draw_init(c);
	terminal_size(&c->rows, &c->cols);
	resize_term(c->rows, c->cols);
}

static void client_free(struct client *c)
{
	client_model_free(c);
	copy_mode_leave(c);
	config_free(&c->config);
	bindings_free(&c->bindings);
	client_view_close(c);
	free(c->inbuf);
	free(c->outbuf);
	for (int i = 0; i < c->prompt_history_len; i++)
		free(c->prompt_history[i]);
	free(c->prompt_history);
	client_echo_close(c);
	if (c->fd >= 0)
		close(c->fd);
}

int client_attach(const char *socket_path, const char *session, const char *theme_override)
{
	struct client *c = xcalloc(1, sizeof *c);
	char why[600], warning[700] = "";
	int exit_code;

	/* The server owns the terminal (issue 28): always the thin client. */
	free(c);
	return client_thin_attach(socket_path, session, theme_override);
	c->input_pipe[0] = c->input_pipe[1] = -1;
	setlocale(LC_ALL, "");
	c->fd = connect_socket(socket_path, why, sizeof why);
	if (c->fd < 0 || say_hello(c->fd, why, sizeof why) != 0) {
		fprintf(stderr, "sandmux: %s\n", why);
		client_free(c);
		free(c);
		return 1;
	}
	c->lines_read = 1; /* the hello reply */
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	if (pipe2(winch_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		fprintf(stderr, "sandmux: pipe: %s\n", strerror(errno));
		client_free(c);
		free(c);
		return 1;
	}
	load_settings(c, theme_override, warning, sizeof warning);
	client_echo_open(c, socket_path);
	start_terminal(c);
	if (warning[0] != 0)
		client_show_message(c, true, "%s", warning);
	send_size(c, "attach", session);
	run_loop(c);
	if (c->echo != NULL)
		c->echo->enabled = 0; /* still held: the loop ends awake */
	endwin();
	if (c->screen != NULL)
		delscreen(c->screen);
	signal(SIGWINCH, SIG_DFL);
	close(winch_pipe[0]);
	close(winch_pipe[1]);
	if (c->exit_message[0] != 0)
		printf("%s\n", c->exit_message);
	exit_code = c->exit_code;
	client_free(c);
	free(c);
	return exit_code;
}
