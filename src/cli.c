/*
 * cli: the protocol connection used by the command-line verbs, and the
 * start of a server on first use.  Blocking I/O is fine here: a verb does
 * one thing and exits.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "error.h"
#include "server.h"
#include "jsonl.h"
#include "os.h"
#include "xalloc.h"

char cli_server_name[64] = "default";
bool cli_server_named;
bool cli_attach_may_create;
int cli_verbose;
static char cli_socket[PATH_MAX];
static bool cli_socket_from_env;

/*
 * Inside a pane, $SANDMUX names its server as tmux's $TMUX does
 * ("SOCKET,PID,%PANE", set by pane.c) and $SANDMUX_PANE its pane: a
 * command without -L goes to that server, not to "default", and one
 * without -t acts on that pane (cli_env_pane).  The socket is the text
 * before the last two commas (a path may hold commas itself).
 */
static bool env_socket(char *out, size_t size)
{
	const char *env = getenv("SANDMUX");
	const char *pid, *pane;

	if (cli_server_named || env == NULL || env[0] != '/' ||
	    (pane = strrchr(env, ',')) == NULL)
		return false;
	for (pid = pane - 1; pid > env && *pid != ','; pid--)
		;
	if (pid == env || (size_t)(pid - env) >= size)
		return false;
	memcpy(out, env, (size_t)(pid - env));
	out[pid - env] = '\0';
	return true;
}

int cli_env_pane(void)
{
	const char *pane = getenv("SANDMUX_PANE");
	char socket[PATH_MAX], *end;
	long id;

	if (pane == NULL || pane[0] != '%' || !env_socket(socket, sizeof socket))
		return -1;
	id = strtol(pane + 1, &end, 10);
	return *end == '\0' && id > 0 && id <= 1000000 ? (int)id : -1;
}

const char *cli_socket_path(void)
{
	struct sm_error err = { 0 };

	if (cli_socket[0] == '\0' && env_socket(cli_socket, sizeof cli_socket)) {
		cli_socket_from_env = true;
		return cli_socket;
	}
	if (cli_socket[0] == '\0' &&
	    paths_socket(cli_server_name, cli_socket, sizeof cli_socket, &err) < 0) {
		fprintf(stderr, "sandmux: %s\n", err.message);
		exit(1);
	}
	return cli_socket;
}

static int cli_try_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = os_socket_cloexec(AF_UNIX, SOCK_STREAM, 0);

	if (strlen(path) >= sizeof addr.sun_path) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Run "sandmux -L NAME server": it returns once the socket listens. */
static int cli_start_server(void)
{
	char *argv[] = { "sandmux", "-L", cli_server_name, "server", NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
#ifdef __linux__
		execv("/proc/self/exe", argv);
#else
		char self[PATH_MAX];

		if (os_self_exe(self, sizeof self) == 0)
			execv(self, argv);
#endif
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

static int cli_hello(struct cli_conn *conn)
{
	cJSON *req = cJSON_CreateObject(), *reply;
	int rc = -1;

	cJSON_AddStringToObject(req, "cmd", "hello");
	cJSON_AddNumberToObject(req, "version", PROTOCOL_VERSION);
	reply = cli_request(conn, req);
	if (reply != NULL && cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok")))
		rc = 0;
	else if (reply != NULL)
		fprintf(stderr, "sandmux: %s\n",
			cJSON_GetStringValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(reply, "error"), "message")));
	cJSON_Delete(reply);
	return rc;
}

bool cli_server_answers(void)
{
	int fd = cli_try_connect(cli_socket_path());

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int cli_connect(struct cli_conn *conn, bool start)
{
	const char *path = cli_socket_path();

	memset(conn, 0, sizeof *conn);
	conn->next_id = 1;
	conn->fd = cli_try_connect(path);
	/* The server of $SANDMUX is the pane's own: never another in its
	 * place. */
	if (conn->fd < 0 && start && !cli_socket_from_env) {
		if (cli_start_server() < 0) {
			fprintf(stderr, "sandmux: cannot start the server on %s\n", path);
			return -1;
		}
		conn->fd = cli_try_connect(path);
	}
	if (conn->fd < 0) {
		fprintf(stderr, "sandmux: no server running on %s\n", path);
		return -1;
	}
	if (cli_hello(conn) < 0) {
		cli_close(conn);
		return -1;
	}
	return 0;
}

void cli_close(struct cli_conn *conn)
{
	if (conn->fd >= 0)
		close(conn->fd);
	free(conn->buf);
	conn->fd = -1;
	conn->buf = NULL;
}

static int cli_write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= n;
	}
	return 0;
}

cJSON *cli_read_message(struct cli_conn *conn, int timeout_ms, bool *eof)
{
	*eof = false;
	for (;;) {
		char *nl = conn->len ? memchr(conn->buf, '\n', conn->len) : NULL;
		struct pollfd pfd = { .fd = conn->fd, .events = POLLIN };
		ssize_t n;

		if (nl != NULL) {
			size_t linelen = nl - conn->buf;
			cJSON *msg;
			*nl = '\0';
			msg = cJSON_Parse(conn->buf);
			memmove(conn->buf, nl + 1, conn->len - linelen - 1);
			conn->len -= linelen + 1;
			if (msg != NULL)
				return msg;
			continue;
		}
		if (poll(&pfd, 1, timeout_ms) == 0)
			return NULL;
		if (conn->cap - conn->len < 65536) {
			conn->cap = conn->cap * 2 + 65536;
			conn->buf = xrealloc(conn->buf, conn->cap);
		}
		n = read(conn->fd, conn->buf + conn->len, conn->cap - conn->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*eof = true;
			return NULL;
		}
		conn->len += n;
	}
}

cJSON *cli_request(struct cli_conn *conn, cJSON *req)
{
	int id = conn->next_id++;
	char *text;
	size_t len;
	int rc;

	cJSON_AddNumberToObject(req, "id", id);
	text = jsonl_line(req, &len);
	cJSON_Delete(req);
	rc = cli_write_all(conn->fd, text, len);
	free(text);
	if (rc < 0)
		return NULL;
	for (;;) {
		bool eof;
		cJSON *msg = cli_read_message(conn, -1, &eof);
		const cJSON *rid;
		if (msg == NULL) {
			fprintf(stderr, "sandmux: the server closed the connection\n");
			return NULL;
		}
		rid = cJSON_GetObjectItem(msg, "id");
		if (cJSON_IsNumber(rid) && rid->valueint == id)
			return msg;
		if (cJSON_IsNull(rid) && cJSON_GetObjectItem(msg, "ok") != NULL)
			return msg; /* an error the server could not attribute */
		cJSON_Delete(msg);
	}
}

void cli_terminal_size(int *cols, int *rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}
