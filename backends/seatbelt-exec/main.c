/*
 * sandmux-seatbelt-exec: the first process inside a macOS native pane.
 *
 *   sandbox-exec -p PROFILE -- sandmux-seatbelt-exec --fd N -- COMMAND...
 *
 * sandbox-exec applies the profile and only then execs this helper, so
 * its running proves the sandbox is on.  It writes "inside PID\n" on fd
 * N, marks N close-on-exec and execs COMMAND: the server's end of N
 * then reads end of file, and only then is the pane labelled native
 * (backends/seatbelt-launch.h).  A failed exec writes "failed REASON\n"
 * and exits 127.  Portable POSIX: it builds, and its protocol is
 * tested, on Linux too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say(int fd, const char *text)
{
	size_t n = strlen(text);

	while (n > 0) {
		ssize_t w = write(fd, text, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		text += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	char line[256], *end;
	long fd;

	if (argc < 5 || strcmp(argv[1], "--fd") != 0 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: sandmux-seatbelt-exec --fd N -- COMMAND...\n");
		return 126;
	}
	fd = strtol(argv[2], &end, 10);
	if (*end != '\0' || fd < 3 || fd > 1024 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) {
		fprintf(stderr, "sandmux-seatbelt-exec: bad --fd %s\n", argv[2]);
		return 126;
	}
	snprintf(line, sizeof line, "inside %ld\n", (long)getpid());
	say((int)fd, line);
	execvp(argv[4], argv + 4);
	snprintf(line, sizeof line, "failed exec %.100s: %s\n", argv[4], strerror(errno));
	say((int)fd, line);
	fprintf(stderr, "sandmux-seatbelt-exec: %s", line + 7);
	return 127;
}
