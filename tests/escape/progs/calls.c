/*
 * calls: the call families of tests/escape/calls.sh, one per command,
 * each made once by its own syscall (no tool in between that might pick
 * another call).  Prints "NAME: ok" or "NAME: ERRNO-NAME"; exits 0 when
 * the call succeeded.
 *
 *   calls truncate PATH            truncate(PATH, 0)
 *   calls chmod PATH MODE          chmod (octal MODE)
 *   calls fchmod PATH MODE         open(O_RDONLY), then fchmod on that fd
 *   calls fchmodat2 PATH MODE      fchmodat2(AT_FDCWD, PATH, MODE, 0)
 *   calls chown PATH               chown to the caller's own ids (ctime moves)
 *   calls fchown PATH              open(O_RDONLY), then fchown
 *   calls utimes PATH              utimensat: both times to the epoch
 *   calls futimens PATH            open(O_RDONLY), then futimens
 *   calls setxattr PATH            user.evil = "1"
 *   calls fsetxattr PATH           open(O_RDONLY), then fsetxattr
 *   calls removexattr PATH NAME    removexattr
 *   calls getxattr PATH NAME       print the value
 *   calls bind PATH                a Unix socket bound to PATH
 *   calls bindtcp -                a TCP socket bound to 127.0.0.1, any port
 *   calls keyread ID               keyctl(KEYCTL_READ) of key ID
 *   calls keyrun DESC VALUE FILE CMD...
 *                                  a new session keyring holding the user key
 *                                  DESC = VALUE (its id into FILE), which only
 *                                  a possessor may see, then CMD
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_SETPERM 5
#define KEYCTL_READ 11
#define KEY_POS_ALL 0x3f000000
#define KEY_SPEC_SESSION_KEYRING -3

static int report(const char *what, long rc)
{
	if (rc < 0) {
		printf("%s: %s\n", what, strerrorname_np(errno));
		return 1;
	}
	printf("%s: ok\n", what);
	return 0;
}

static int ro_fd(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "", *path = argc > 2 ? argv[2] : "";
	mode_t mode = argc > 3 ? (mode_t)strtol(argv[3], NULL, 8) : 0;
	struct timespec epoch[2] = {{0, 0}, {0, 0}};

	if (argc < 3) {
		fprintf(stderr, "usage: calls COMMAND ARG...\n");
		return 2;
	}
	if (strcmp(cmd, "truncate") == 0)
		return report(cmd, truncate(path, 0));
	if (strcmp(cmd, "chmod") == 0)
		return report(cmd, chmod(path, mode));
	if (strcmp(cmd, "fchmod") == 0)
		return report(cmd, fchmod(ro_fd(path), mode));
	if (strcmp(cmd, "fchmodat2") == 0)
		return report(cmd, syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0));
	if (strcmp(cmd, "chown") == 0)
		return report(cmd, chown(path, getuid(), getgid()));
	if (strcmp(cmd, "fchown") == 0)
		return report(cmd, fchown(ro_fd(path), getuid(), getgid()));
	if (strcmp(cmd, "utimes") == 0)
		return report(cmd, utimensat(AT_FDCWD, path, epoch, 0));
	if (strcmp(cmd, "futimens") == 0)
		return report(cmd, futimens(ro_fd(path), epoch));
	if (strcmp(cmd, "setxattr") == 0)
		return report(cmd, setxattr(path, "user.evil", "1", 1, 0));
	if (strcmp(cmd, "fsetxattr") == 0)
		return report(cmd, fsetxattr(ro_fd(path), "user.evil", "1", 1, 0));
	if (strcmp(cmd, "removexattr") == 0 && argc > 3)
		return report(cmd, removexattr(path, argv[3]));
	if (strcmp(cmd, "getxattr") == 0 && argc > 3) {
		char buf[256];
		ssize_t n = getxattr(path, argv[3], buf, sizeof buf - 1);

		if (n >= 0)
			printf("%.*s\n", (int)n, buf);
		return n < 0;
	}
	if (strcmp(cmd, "bind") == 0) {
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(un.sun_path, sizeof un.sun_path, "%s", path);
		return report(cmd, bind(s, (struct sockaddr *)&un, sizeof un));
	}
	if (strcmp(cmd, "bindtcp") == 0) {
		struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t len = sizeof in;
		int s = socket(AF_INET, SOCK_STREAM, 0);

		if (bind(s, (struct sockaddr *)&in, sizeof in) != 0)
			return report(cmd, -1);
		getsockname(s, (struct sockaddr *)&in, &len);
		printf("port %d\n", ntohs(in.sin_port));
		return report(cmd, ntohs(in.sin_port) > 0 ? 0 : -1);
	}
	if (strcmp(cmd, "keyread") == 0) {
		char buf[256] = "";
		long n = syscall(SYS_keyctl, KEYCTL_READ, atol(path), buf, sizeof buf - 1);

		if (n > 0)
			printf("payload: %.*s\n", (int)n, buf);
		return report(cmd, n);
	}
	if (strcmp(cmd, "keyrun") == 0 && argc > 5) {
		long id;
		FILE *f;

		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
		    (id = syscall(SYS_add_key, "user", path, argv[3], strlen(argv[3]),
				  KEY_SPEC_SESSION_KEYRING)) < 0 ||
		    syscall(SYS_keyctl, KEYCTL_SETPERM, id, KEY_POS_ALL) < 0 ||
		    (f = fopen(argv[4], "w")) == NULL)
			return report(cmd, -1);
		fprintf(f, "%ld\n", id);
		fclose(f);
		execvp(argv[5], argv + 5);
		return report(cmd, -1);
	}
	fprintf(stderr, "calls: unknown command %s\n", cmd);
	return 2;
}
