/*
 * record-terminal: a program run on a terminal of its own and recorded
 * whole, for `sandmux demo --record FILE`.  A pane's recording (record.c)
 * holds one pane; the demo is several panes, the feed, the status line
 * and the summary after it, drawn by the client and the server into the
 * user's terminal.  So the demo runs on a PTY this process holds, in
 * between: keys go from the user's terminal to the PTY, everything the
 * PTY shows goes to the user's terminal and, through record.c's writer,
 * into the asciicast file; a change of the user's terminal size resizes
 * the PTY and is an "r" event.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "error.h"
#include "pty.h"
#include "record.h"

extern char **environ;

static volatile sig_atomic_t resized;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void terminal_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

static bool write_all(int fd, const char *bytes, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, bytes, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		bytes += n;
		len -= (size_t)n;
	}
	return true;
}

/* Keys to the program, its output to the terminal and the file, until
 * the program's side of the PTY is closed. */
static void relay(int master, struct recording *rec)
{
	char buf[65536];
	bool keys = true;

	for (;;) {
		struct pollfd fds[2] = { { master, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
		ssize_t n;

		if (resized) {
			int cols, rows;

			resized = 0;
			terminal_size(&cols, &rows);
			pty_resize(master, rows, cols);
			record_terminal_resize(rec, cols, rows);
		}
		if (poll(fds, keys ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(master, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return; /* EIO: every program on the PTY has gone */
			write_all(STDOUT_FILENO, buf, (size_t)n);
			record_terminal_output(rec, buf, (size_t)n);
		}
		if (keys && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(STDIN_FILENO, buf, sizeof buf);
			if (n > 0)
				write_all(master, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				keys = false; /* no more keys: the program goes on alone */
		}
	}
}

int record_terminal_run(const char *path, char *const *argv, const char *title)
{
	struct pty_spawn_opts opts = { .argv = argv, .envp = environ };
	struct sm_error err = { 0 };
	struct recording *rec;
	struct termios saved, raw;
	bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
	struct sigaction sa = { .sa_handler = on_winch };
	char why[256];
	int master, status = 0;
	pid_t pid;

	terminal_size(&opts.cols, &opts.rows);
	if ((rec = record_terminal_open(path, opts.cols, opts.rows, title, &err)) == NULL) {
		fprintf(stderr, "sandmux: %s (%s)\n", err.message, err.code);
		return 1;
	}
	if (pty_spawn(&opts, &master, &pid, why, sizeof why) < 0) {
		fprintf(stderr, "sandmux: %s (failed)\n", why);
		record_terminal_close(rec);
		return 1;
	}
	sigaction(SIGWINCH, &sa, NULL);
	/* The user's keys reach the program as typed: its terminal, the
	 * PTY, does the line discipline. */
	if (tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	relay(master, rec);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	close(master);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	record_terminal_close(rec);
	fprintf(stderr, "sandmux: the demo's recording is in %s\n", path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
