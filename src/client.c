/*
 * client: the attached terminal's client, the server owning the
 * terminal (tmux's client).
 *
 * It connects, says hello, and hands its terminal to the server: the
 * attach request goes out with its standard input and output as
 * SCM_RIGHTS descriptors, the terminal type (TERM, COLORTERM) and size
 * in the request.  From then on it only waits: a SIGWINCH or SIGCONT
 * becomes a client-size request (the server redraws), and the server's exit event (sent after the
 * server gave the terminal back) says what to print.  It reads no key
 * and writes nothing to the terminal while attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "config.h"
#include "jsonl.h"
#include "os.h"
#include "xalloc.h"

#define REPLY_MAX 65536

static int signal_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	char byte = (char)sig;

	if (write(signal_pipe[1], &byte, 1) < 0) {
		/* A full pipe already says a signal came. */
	}
	errno = saved;
}

static int connect_to(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof addr.sun_path) {
		fprintf(stderr, "sandmux: socket path too long: %s\n", path);
		return -1;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = os_socket_cloexec(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
		fprintf(stderr, "sandmux: no server running on %s (%s)\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A request line, with the terminal's descriptors when fds is set. */
static int send_line(int sock, cJSON *request, bool fds)
{
	size_t len;
	char *line = jsonl_line(request, &len);
	struct iovec iov = {.iov_base = line, .iov_len = len};
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	cJSON_Delete(request);
	if (fds) {
		int pass[2] = {STDIN_FILENO, STDOUT_FILENO};
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof control);
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof control.buf;
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof pass);
		memcpy(CMSG_DATA(cmsg), pass, sizeof pass);
	}
	do
		n = sendmsg(sock, &msg, OS_SEND_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	free(line);
	return n == (ssize_t)len ? 0 : -1;
}

/* Lines from the server, one at a time: the next whole line into *line
 * (the caller frees it); 0 at a line, -1 when the server hung up. */
struct reader {
	char buf[REPLY_MAX];
	size_t len;
};

static int next_line(int sock, struct reader *r, char **line, int wake)
{
	for (;;) {
		char *nl = memchr(r->buf, '\n', r->len);
		struct pollfd pfd[2] = {{.fd = sock, .events = POLLIN},
					{.fd = wake, .events = POLLIN}};
		ssize_t n;

		if (nl != NULL) {
			size_t take = (size_t)(nl - r->buf);

			*line = xmalloc(take + 1);
			memcpy(*line, r->buf, take);
			(*line)[take] = '\0';
			memmove(r->buf, nl + 1, r->len - take - 1);
			r->len -= take + 1;
			return 0;
		}
		if (r->len == sizeof r->buf)
			r->len = 0; /* a line too long for a thin client: not one it needs */
		if (poll(pfd, wake >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (wake >= 0 && (pfd[1].revents & POLLIN)) {
			*line = NULL;
			return 0;
		}
		n = recv(sock, r->buf + r->len, sizeof r->buf - r->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		r->len += (size_t)n;
	}
}

static void terminal_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row > 1000 ? 1000 : ws.ws_row;
		*cols = ws.ws_col > 1000 ? 1000 : ws.ws_col;
	}
}

static cJSON *request(int id, const char *cmd)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddNumberToObject(req, "id", id);
	cJSON_AddStringToObject(req, "cmd", cmd);
	return req;
}

static void add_size(cJSON *req)
{
	int rows, cols;

	/* The session is sized at least 10x4; the server draws what of it
	 * fits a smaller terminal. */
	terminal_size(&rows, &cols);
	cJSON_AddNumberToObject(req, "cols", cols < 10 ? 10 : cols);
	cJSON_AddNumberToObject(req, "rows", rows < 4 ? 4 : rows);
	cJSON_AddNumberToObject(req, "terminal_cols", cols);
	cJSON_AddNumberToObject(req, "terminal_rows", rows);
}

/* An answer that is an error: its message, else NULL. */
static const char *error_message(const cJSON *msg)
{
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "ok")))
		return NULL;
	return cJSON_IsString(message) ? message->valuestring : "refused";
}

/* What the client prints when it leaves, from the server's exit event. */
static void exit_message(const cJSON *event, const char *session, char *out, size_t size)
{
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(event, "reason");
	const char *why = cJSON_IsString(reason) ? reason->valuestring : "";

	if (strcmp(why, "detached") == 0)
		snprintf(out, size, "[detached (from session %s)]", session);
	else if (strcmp(why, "server-exit") == 0)
		snprintf(out, size, "[server exited]");
	else
		snprintf(out, size, "[exited]");
}

static int hello(int sock, struct reader *r)
{
	cJSON *req = request(0, "hello"), *reply;
	char *line = NULL;
	const char *why;
	int rc;

	cJSON_AddNumberToObject(req, "version", 1);
	if (send_line(sock, req, false) != 0 || next_line(sock, r, &line, -1) != 0) {
		fprintf(stderr, "sandmux: the server did not answer hello\n");
		return -1;
	}
	reply = cJSON_Parse(line);
	free(line);
	why = reply != NULL ? error_message(reply) : "bad reply";
	if (why != NULL)
		fprintf(stderr, "sandmux: server refused hello: %s\n", why);
	rc = why == NULL ? 0 : -1;
	cJSON_Delete(reply);
	return rc;
}

/* Wait for the server's word while it owns the terminal. */
static int wait_attached(int sock, struct reader *r, char *session, size_t session_size,
			 char *message, size_t message_size)
{
	int next_id = 2;

	for (;;) {
		char *line = NULL;
		cJSON *msg;
		const cJSON *event, *id, *result;

		if (next_line(sock, r, &line, signal_pipe[0]) != 0) {
			snprintf(message, message_size, "[lost server]");
			return 1;
		}
		if (line == NULL) {
			char sig;

			while (read(signal_pipe[0], &sig, 1) == 1) {
				/* Continued after a stop: the size again, which also
				 * has the server draw the whole screen. */
				if (sig == SIGWINCH || sig == SIGCONT) {
					cJSON *req = request(next_id++, "client-size");

					add_size(req);
					send_line(sock, req, false);
				}
			}
			continue;
		}
		msg = cJSON_Parse(line);
		free(line);
		event = cJSON_GetObjectItemCaseSensitive(msg, "event");
		id = cJSON_GetObjectItemCaseSensitive(msg, "id");
		result = cJSON_GetObjectItemCaseSensitive(msg, "result");
		if (cJSON_IsNumber(id) && id->valueint == 1) {
			const char *why = error_message(msg);
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(result, "session");

			if (why != NULL) {
				snprintf(message, message_size, "sandmux: %s", why);
				cJSON_Delete(msg);
				return 1;
			}
			if (cJSON_IsString(name))
				snprintf(session, session_size, "%s", name->valuestring);
		} else if (cJSON_IsString(event) && strcmp(event->valuestring, "exit") == 0) {
			exit_message(msg, session, message, message_size);
			cJSON_Delete(msg);
			return 0;
		}
		cJSON_Delete(msg);
	}
}

int client_attach(const char *socket_path, const char *session_name, const char *theme)
{
	struct reader *r = xcalloc(1, sizeof *r);
	char session[64] = "", message[600] = "";
	const char *term_name = getenv("TERM"), *colorterm = getenv("COLORTERM");
	const char *no_color = getenv("NO_COLOR");
	char config_path[4096], cwd[4096];
	cJSON *req, *terminal;
	struct termios saved;
	bool saved_ok;
	int sock, rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sandmux: attach needs a terminal\n");
		free(r);
		return 1;
	}
	/* Kept to put back if the server dies holding the terminal. */
	saved_ok = tcgetattr(STDIN_FILENO, &saved) == 0;
	sock = connect_to(socket_path);
	if (sock < 0 || hello(sock, r) != 0 || os_pipe_cloexec(signal_pipe, O_NONBLOCK) != 0) {
		if (sock >= 0)
			close(sock);
		free(r);
		return 1;
	}
	signal(SIGWINCH, on_signal);
	signal(SIGCONT, on_signal);
#ifndef __linux__
	/* No MSG_NOSIGNAL (os.h): a server gone mid-send is EPIPE, not a
	 * client killed before it can give the terminal back. */
	signal(SIGPIPE, SIG_IGN);
#endif
	req = request(1, "attach");
	if (session_name != NULL)
		cJSON_AddStringToObject(req, "session", session_name);
	add_size(req);
	terminal = cJSON_AddObjectToObject(req, "terminal");
	cJSON_AddStringToObject(terminal, "term",
				term_name != NULL && term_name[0] ? term_name : "vt100");
	if (colorterm != NULL)
		cJSON_AddStringToObject(terminal, "colorterm", colorterm);
	if (theme != NULL)
		cJSON_AddStringToObject(terminal, "theme", theme);
	/* Outside UTF-8 the server draws in ASCII. */
	setlocale(LC_CTYPE, "");
	cJSON_AddBoolToObject(terminal, "utf8", strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
	cJSON_AddBoolToObject(terminal, "no_color", no_color != NULL && no_color[0] != '\0');
	cJSON_AddStringToObject(terminal, "config",
				config_default_path(config_path, sizeof config_path));
	/* Where the user is: what record FILE and source-file PATH with a
	 * relative path mean (the server's own directory is not theirs). */
	if (getcwd(cwd, sizeof cwd) != NULL)
		cJSON_AddStringToObject(terminal, "cwd", cwd);
	if (send_line(sock, req, true) != 0) {
		fprintf(stderr, "sandmux: cannot hand the terminal to the server: %s\n",
			strerror(errno));
		rc = 1;
	} else {
		rc = wait_attached(sock, r, session, sizeof session, message, sizeof message);
	}
	signal(SIGWINCH, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	if (rc != 0 && saved_ok)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	close(sock);
	close(signal_pipe[0]);
	close(signal_pipe[1]);
	if (message[0] != '\0')
		fprintf(rc == 0 ? stdout : stderr, "%s\n", message);
	free(r);
	return rc;
}
