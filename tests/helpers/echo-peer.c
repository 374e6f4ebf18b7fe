/*
 * echo-peer: a client that shares an echo page (src/echo-share.h) and
 * its own terminal (a pty it holds the master of) with a real server,
 * and decides exactly when it reads the connection.  It checks the rule
 * that a patch is written only on a terminal showing every line the
 * server has sent: while a frame is still unread, typed text reaches
 * the pane but no patch is written; once everything is read and drawn,
 * the next keystroke is patched.  Without the rule the server patched
 * over a terminal that had yet to scroll, and the client's next drawing
 * moved the patch onto a row that showed the wrong line for good.
 *
 *   echo-peer SOCKET SESSION
 *
 * Prints TAP-like "ok"/"not ok" lines; exits 1 if any is "not ok".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "echo-share.h"

static int sock = -1, failed;
static char inbuf[1 << 20];
static size_t inlen;
static unsigned long long lines;
static struct echo_share *share;

static void die(const char *what)
{
	fprintf(stderr, "echo-peer: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void check(const char *what, int ok)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failed |= !ok;
}

static void send_line(const char *line)
{
	size_t len = strlen(line);

	if (write(sock, line, len) != (ssize_t)len || write(sock, "\n", 1) != 1)
		die("write");
}

/* The next whole line within ms, or NULL; counted as read. */
static cJSON *read_line(int ms)
{
	for (;;) {
		char *nl = memchr(inbuf, '\n', inlen);
		struct pollfd pfd = {sock, POLLIN, 0};
		ssize_t n;

		if (nl != NULL) {
			cJSON *json;

			*nl = '\0';
			json = cJSON_Parse(inbuf);
			inlen -= (size_t)(nl + 1 - inbuf);
			memmove(inbuf, nl + 1, inlen);
			lines++;
			return json;
		}
		if (poll(&pfd, 1, ms) <= 0)
			return NULL;
		n = read(sock, inbuf + inlen, sizeof inbuf - inlen);
		if (n <= 0)
			die("read");
		inlen += (size_t)n;
	}
}

/* Read until the reply with this id; the lines before it are read too. */
static cJSON *reply(int id)
{
	cJSON *json;

	while ((json = read_line(5000)) != NULL) {
		const cJSON *got = cJSON_GetObjectItemCaseSensitive(json, "id");

		if (cJSON_IsNumber(got) && got->valueint == id)
			return json;
		cJSON_Delete(json);
	}
	fprintf(stderr, "echo-peer: no reply to request %d\n", id);
	exit(2);
}

/* Read and "draw" everything until the server has been quiet a while. */
static void catch_up(void)
{
	cJSON *json;

	while ((json = read_line(300)) != NULL)
		cJSON_Delete(json);
	share->lines_drawn = lines;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static unsigned long long patches_after(int ms)
{
	sleep_ms(ms);
	return (unsigned long long)atomic_load((_Atomic uint64_t *)&share->patches);
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	char page[sizeof addr.sun_path + 16], req[1024];
	const char *slash;
	cJSON *json, *sessions, *pane = NULL;
	int master, fd;
	unsigned long long before;
	struct termios tio;

	if (argc != 3) {
		fprintf(stderr, "usage: echo-peer SOCKET SESSION\n");
		return 2;
	}
	/* Our terminal: the server reads the typed bytes we write here. */
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
		die("pty");
	/* Raw, as a client's terminal is (ncurses' raw mode): each typed
	 * byte is readable at once, not at the end of a line. */
	fd = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (fd < 0 || tcgetattr(fd, &tio) != 0)
		die("pty slave");
	cfmakeraw(&tio);
	if (tcsetattr(fd, TCSANOW, &tio) != 0)
		die("raw");
	close(fd);
	/* The page, where the server looks for it: next to its socket. */
	slash = strrchr(argv[1], '/');
	if (slash == NULL || strlen(argv[1]) >= sizeof addr.sun_path)
		die("socket path");
	snprintf(page, sizeof page, "%.*s/echo-XXXXXX", (int)(slash - argv[1]), argv[1]);
	fd = mkstemp(page);
	if (fd < 0 || ftruncate(fd, sizeof *share) != 0)
		die("page");
	share = mmap(NULL, sizeof *share, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (share == MAP_FAILED)
		die("mmap");
	close(fd);
	share->magic = ECHO_SHARE_MAGIC;
	share->version = ECHO_SHARE_VERSION;
	atomic_store(&share->drawing, 1);

	memcpy(addr.sun_path, argv[1], strlen(argv[1]) + 1);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0)
		die("connect");
	send_line("{\"id\":0,\"cmd\":\"hello\",\"version\":1}");
	cJSON_Delete(reply(0));
	snprintf(req, sizeof req,
		 "{\"id\":1,\"cmd\":\"attach\",\"session\":\"%s\",\"cols\":80,\"rows\":24,"
		 "\"status\":true,\"tty\":\"%s\",\"echo\":\"%s\"}",
		 argv[2], ptsname(master), page);
	send_line(req);
	cJSON_Delete(reply(1));
	send_line("{\"id\":2,\"cmd\":\"list\"}");
	json = reply(2);
	/* The session's one pane, where the server has it. */
	sessions = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(json, "result"),
						    "sessions");
	for (cJSON *s = sessions ? sessions->child : NULL; s != NULL && pane == NULL; s = s->next) {
		const cJSON *windows = cJSON_GetObjectItemCaseSensitive(s, "windows");

		for (cJSON *w = windows ? windows->child : NULL; w != NULL && pane == NULL;
		     w = w->next)
			pane = cJSON_GetObjectItemCaseSensitive(w, "panes")->child;
	}
	if (pane == NULL) {
		fprintf(stderr, "echo-peer: no pane\n");
		return 2;
	}
	share->regions[0] = (struct echo_region){
	    .pane = cJSON_GetObjectItemCaseSensitive(pane, "id")->valueint,
	    .x = cJSON_GetObjectItemCaseSensitive(pane, "x")->valueint,
	    .y = cJSON_GetObjectItemCaseSensitive(pane, "y")->valueint,
	    .cols = cJSON_GetObjectItemCaseSensitive(pane, "cols")->valueint,
	    .rows = cJSON_GetObjectItemCaseSensitive(pane, "rows")->valueint};
	share->nregions = 1;
	share->focus_pane = share->cursor_pane = share->regions[0].pane;
	share->screen_cols = 80;
	share->screen_rows = 24;
	share->erase_chars = 1;
	share->enabled = 1;
	cJSON_Delete(json);
	/* The server reads our terminal and passes plain text through. */
	send_line("{\"id\":3,\"cmd\":\"tty\",\"read\":true,\"prefix\":2,\"cursor_keys\":true}");
	cJSON_Delete(reply(3));
	send_line("{\"id\":4,\"cmd\":\"tty\",\"passthrough\":true,\"seq\":0}");
	cJSON_Delete(reply(4));
	/* A first keystroke: what the attach's full frames left damaged
	 * (every row, more than a patch takes) goes out as a frame. */
	atomic_store(&share->drawing, 0);
	if (write(master, "w", 1) != 1)
		die("type");
	sleep_ms(300);
	atomic_store(&share->drawing, 1);
	catch_up();
	atomic_store(&share->drawing, 0);

	/* Everything drawn: a keystroke's echo is patched. */
	before = patches_after(0);
	if (write(master, "a", 1) != 1)
		die("type");
	check("with every line drawn, a typed character's echo is patched",
	      patches_after(1000) > before);

	/* Output the client has not read yet: the server sends its frame
	 * (its reply too), and we leave both unread. */
	atomic_store(&share->drawing, 1);
	catch_up();
	snprintf(req, sizeof req,
		 "{\"id\":5,\"cmd\":\"send-text\",\"pane\":%d,\"text\":\"\\u0015echo hi\\r\"}",
		 share->regions[0].pane);
	send_line(req);
	atomic_store(&share->drawing, 0);
	sleep_ms(500);
	before = patches_after(0);
	if (write(master, "b", 1) != 1)
		die("type");
	check("with a frame unread, a typed character's echo is not patched",
	      patches_after(1000) == before);

	/* Read and drawn: patches again. */
	atomic_store(&share->drawing, 1);
	catch_up();
	atomic_store(&share->drawing, 0);
	before = patches_after(0);
	if (write(master, "c", 1) != 1)
		die("type");
	check("once it is read and drawn, the echo is patched again", patches_after(1000) > before);
	unlink(page);
	return failed;
}
