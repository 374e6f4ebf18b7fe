/*
 * ptyharness: run a program on a fresh PTY of a given size, the way a
 * terminal would, for benchmarks and latency measurements.
 *
 *   ptyharness drain COLS ROWS -- CMD...
 *       read and discard everything CMD draws until it exits.
 *   ptyharness latency COLS ROWS N WARMUP_MS -- CMD...
 *       wait WARMUP_MS for CMD (a client attached to a shell) to settle,
 *       then N times: type one printable character and time until the
 *       character comes back in CMD's output.  Prints the median, p90
 *       and p99 in milliseconds.  The characters are erased with
 *       backspace afterwards so the shell line stays short.
 *   ptyharness cursor COLS ROWS N WARMUP_MS -- CMD...
 *       the same for a change of the cursor alone: after WARMUP_MS,
 *       type a line of text (not entered), then N times press Left or
 *       Right (in turn, so the cursor stays on the text) and time until
 *       CMD's output moves the cursor.  A line editor such as bash's
 *       changes no cell for these keys: what reaches the terminal is the
 *       cursor's move alone.
 *   ptyharness until COLS ROWS MARKER -- CMD...
 *       read what CMD draws, counting its bytes, until MARKER appears
 *       as text (escape sequences skipped, so an SGR between two of
 *       its characters does not hide it); then print the bytes, how
 *       many synchronized updates (CSI ? 2026 h) CMD began, and the
 *       wall-clock time (seconds since the epoch, as `date +%s.%N`)
 *       it was seen, and go on draining until CMD exits.  MARKER's
 *       first character must not recur in it (the search restarts on
 *       that character alone).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pty.h" /* sandmux's own: setsid + controlling tty */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t spawn(char **argv, int cols, int rows, int *master)
{
	struct pty_spawn_opts opts = { .argv = argv, .rows = rows, .cols = cols };
	extern char **environ;
	char err[256];
	pid_t pid;

	setenv("TERM", "xterm-256color", 1);
	opts.envp = environ;
	if (pty_spawn(&opts, master, &pid, err, sizeof err) < 0) {
		fprintf(stderr, "ptyharness: %s\n", err);
		return -1;
	}
	return pid;
}

/* Read what is there within timeout; returns bytes read, -1 at EOF. */
static ssize_t drain_for(int fd, int timeout_ms, char *seen, size_t seen_size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[65536];
	ssize_t n, total = 0;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	n = read(fd, buf, sizeof buf);
	if (n <= 0)
		return -1;
	if (seen != NULL && seen_size > 0) {
		size_t k = (size_t)n < seen_size - 1 ? (size_t)n : seen_size - 1;
		memcpy(seen, buf, k);
		seen[k] = '\0';
	}
	total += n;
	return total;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int run_drain(int master, pid_t pid)
{
	int status;

	while (drain_for(master, 1000, NULL, 0) >= 0)
		;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* c appears in out as text, not as part of an escape sequence (a final
 * byte such as the 'H' of a cursor move is not the echo). */
static bool shown(const char *out, char c)
{
	for (const char *p = out; *p != 0; p++) {
		if (*p != 0x1b) {
			if (*p == c)
				return true;
			continue;
		}
		if (p[1] == '[') {
			for (p += 2; *p != 0 && !(*p >= 0x40 && *p <= 0x7e); p++) {
			}
		} else if (p[1] == ']') {
			for (p += 2; *p != 0 && *p != 0x07 && *p != 0x1b; p++) {
			}
		} else if (p[1] != 0) {
			p++;
		}
		if (*p == 0)
			break;
	}
	return false;
}

/* out moves the cursor: a backspace, or a CSI cursor motion (CUU, CUD,
 * CUF, CUB, CHA, CUP, HVP). */
static bool cursor_moved(const char *out)
{
	for (const char *p = out; *p != 0; p++) {
		if (*p == '\b')
			return true;
		if (p[0] != 0x1b || p[1] != '[')
			continue;
		for (p += 2; *p != 0 && !(*p >= 0x40 && *p <= 0x7e); p++) {
		}
		if (*p != 0 && strchr("ABCDGHf", *p) != NULL)
			return true;
		if (*p == 0)
			break;
	}
	return false;
}

/* End the child: SIGTERM, and SIGKILL if it is still there after half a
 * second (an interactive shell ignores SIGTERM: the bare-PTY run hung). */
static void stop_child(int master, pid_t pid)
{
	kill(pid, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		drain_for(master, 10, NULL, 0);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Wait for quiet, but not for ever: under a flood (another pane of the
 * same client) the screen never goes quiet. */
static void wait_quiet(int master)
{
	for (double quiet = now_ms(); now_ms() - quiet < 300;)
		if (drain_for(master, 20, NULL, 0) <= 0)
			break;
}

static void report(double *samples, int count)
{
	qsort(samples, count, sizeof *samples, cmp_double);
	printf("median %.3f p90 %.3f p99 %.3f\n", samples[count / 2], samples[count * 9 / 10],
	       samples[count * 99 / 100]);
}

static int run_latency(int master, pid_t pid, int count, int warmup_ms)
{
	double *samples = calloc(count, sizeof *samples);
	double start = now_ms();
	char seen[65536];

	while (now_ms() - start < warmup_ms)
		drain_for(master, 50, NULL, 0);
	for (int i = 0; i < count; i++) {
		char c = 'a' + i % 26;
		double t0, deadline;
		bool got = false;

		wait_quiet(master);
		t0 = now_ms();
		if (write(master, &c, 1) != 1)
			return 1;
		deadline = t0 + 2000;
		while (!got && now_ms() < deadline) {
			ssize_t n = drain_for(master, 100, seen, sizeof seen);
			if (n < 0)
				return 1;
			if (n > 0 && shown(seen, c))
				got = true;
		}
		samples[i] = got ? now_ms() - t0 : 2000;
		if (write(master, "\177", 1) != 1)
			return 1;
	}
	report(samples, count);
	stop_child(master, pid);
	free(samples);
	return 0;
}

static int run_cursor(int master, pid_t pid, int count, int warmup_ms)
{
	static const char text[] = "cursor-bench-text";
	double *samples = calloc(count, sizeof *samples);
	double start = now_ms();
	char seen[65536];

	while (now_ms() - start < warmup_ms)
		drain_for(master, 50, NULL, 0);
	if (write(master, text, strlen(text)) != (ssize_t)strlen(text))
		return 1;
	for (int i = 0; i < count; i++) {
		/* Left first: the cursor starts after the text. */
		const char *key = i % 2 == 0 ? "\033[D" : "\033[C";
		double t0, deadline;
		bool got = false;

		wait_quiet(master);
		t0 = now_ms();
		if (write(master, key, 3) != 3)
			return 1;
		deadline = t0 + 2000;
		while (!got && now_ms() < deadline) {
			ssize_t n = drain_for(master, 100, seen, sizeof seen);
			if (n < 0)
				return 1;
			if (n > 0 && cursor_moved(seen))
				got = true;
		}
		samples[i] = got ? now_ms() - t0 : 2000;
	}
	report(samples, count);
	stop_child(master, pid);
	free(samples);
	return 0;
}

/* The text of a terminal's stream, one byte at a time: escape
 * sequences (CSI, OSC and the other strings, two- and three-byte ESC
 * sequences) are skipped, and CSI ? 2026 h counted. */
struct text_scan {
	enum { SCAN_TEXT, SCAN_ESC, SCAN_ESC_INTERMEDIATE, SCAN_CSI, SCAN_STRING, SCAN_STRING_ESC } state;
	char params[16];
	size_t nparams;
	unsigned long syncs;
};

/* Feed one byte; returns it if it is text, -1 if it belongs to a sequence. */
static int scan_byte(struct text_scan *t, unsigned char c)
{
	switch (t->state) {
	case SCAN_TEXT:
		if (c != 0x1b)
			return c;
		t->state = SCAN_ESC;
		return -1;
	case SCAN_ESC:
		if (c == '[') {
			t->state = SCAN_CSI;
			t->nparams = 0;
		} else if (c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X')
			t->state = SCAN_STRING;
		else if (c >= 0x20 && c <= 0x2f)
			t->state = SCAN_ESC_INTERMEDIATE;
		else
			t->state = SCAN_TEXT;
		return -1;
	case SCAN_ESC_INTERMEDIATE:
		if (c < 0x20 || c > 0x2f)
			t->state = SCAN_TEXT;
		return -1;
	case SCAN_CSI:
		if (c >= 0x40 && c <= 0x7e) {
			if (c == 'h' && t->nparams == 5 && memcmp(t->params, "?2026", 5) == 0)
				t->syncs++;
			t->state = SCAN_TEXT;
		} else if (t->nparams < sizeof t->params)
			t->params[t->nparams++] = (char)c;
		return -1;
	case SCAN_STRING:
		if (c == 0x07)
			t->state = SCAN_TEXT;
		else if (c == 0x1b)
			t->state = SCAN_STRING_ESC;
		return -1;
	case SCAN_STRING_ESC:
		t->state = c == '\\' ? SCAN_TEXT : SCAN_STRING;
		return -1;
	}
	return -1;
}

#define UNTIL_SILENCE_MS 60000 /* a client that draws nothing for this long has failed */

static int run_until(int master, pid_t pid, const char *marker)
{
	struct text_scan scan = { .state = SCAN_TEXT };
	size_t len = strlen(marker), matched = 0;
	unsigned long long bytes = 0;
	char buf[65536];

	while (matched < len) {
		struct pollfd pfd = { .fd = master, .events = POLLIN };
		ssize_t n;

		/* The master is non-blocking (pty_spawn's, for an event loop). */
		int ready = poll(&pfd, 1, UNTIL_SILENCE_MS);

		if (ready == 0) {
			fprintf(stderr, "ptyharness: nothing drawn for %d s and %s not shown\n",
				UNTIL_SILENCE_MS / 1000, marker);
			stop_child(master, pid);
			return 1;
		}
		n = ready < 0 ? -1 : read(master, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			fprintf(stderr, "ptyharness: the program ended before %s was shown\n", marker);
			stop_child(master, pid);
			return 1;
		}
		bytes += n;
		for (ssize_t i = 0; i < n && matched < len; i++) {
			int c = scan_byte(&scan, (unsigned char)buf[i]);

			if (c < 0)
				continue;
			if (c == (unsigned char)marker[matched])
				matched++;
			else
				matched = c == (unsigned char)marker[0];
		}
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	printf("bytes %llu syncs %lu seen %lld.%09ld\n", bytes, scan.syncs, (long long)ts.tv_sec, ts.tv_nsec);
	fflush(stdout);
	return run_drain(master, pid);
}

int main(int argc, char **argv)
{
	int master, cols, rows, dash = 0;
	pid_t pid;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dash = i;
			break;
		}
	if (argc < 5 || dash == 0 || dash + 1 >= argc) {
		fprintf(stderr, "usage: ptyharness drain|latency|cursor|until COLS ROWS [N WARMUP_MS | MARKER] -- CMD...\n");
		return 2;
	}
	cols = atoi(argv[2]);
	rows = atoi(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	pid = spawn(argv + dash + 1, cols, rows, &master);
	if (pid < 0)
		return 1;
	if (strcmp(argv[1], "drain") == 0)
		return run_drain(master, pid);
	if (strcmp(argv[1], "latency") == 0 && dash >= 6)
		return run_latency(master, pid, atoi(argv[4]), atoi(argv[5]));
	if (strcmp(argv[1], "until") == 0 && dash >= 5 && argv[4][0] != 0)
		return run_until(master, pid, argv[4]);
	if (strcmp(argv[1], "cursor") == 0 && dash >= 6)
		return run_cursor(master, pid, atoi(argv[4]), atoi(argv[5]));
	fprintf(stderr, "ptyharness: unknown mode %s\n", argv[1]);
	return 2;
}
