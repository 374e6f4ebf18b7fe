/*
 * sv-make: one way of making a file called NAME in the current
 * directory, for tests/integration/supervisor.sh.  Run inside a native
 * pane; the supervisor must refuse every way when NAME matches a
 * deny_create_patterns entry.
 *
 *   sv-make METHOD NAME
 *
 * METHOD: creat (open O_CREAT), openat2, rename (a new file renamed
 * onto NAME), link (a hard link onto NAME), symlink (a symlink to NAME,
 * then open O_CREAT through it), tmpfile (O_TMPFILE, then linkat to
 * NAME), mknod (a regular file made by mknod), mkfifo.
 * Prints "METHOD NAME: ok" or "METHOD NAME: ERRNO-NAME" and exits 0 when
 * the final step succeeded, 1 when it failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int report(const char *method, const char *name, int rc)
{
	if (rc < 0) {
		printf("%s %s: %s\n", method, name, strerrorname_np(errno));
		return 1;
	}
	printf("%s %s: ok\n", method, name);
	return 0;
}

/* A scratch file with an allowed name, for rename and link. */
static int scratch(char *path, size_t size, const char *method)
{
	int fd;

	snprintf(path, size, "sv-scratch-%s-%d", method, (int)getpid());
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0) {
		printf("%s: cannot make the scratch file: %s\n", method, strerror(errno));
		exit(2);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *method, *name;
	char tmp[256], proc[64];
	int fd, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: sv-make METHOD NAME\n");
		return 2;
	}
	method = argv[1];
	name = argv[2];
	if (strcmp(method, "creat") == 0) {
		fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		return report(method, name, fd);
	}
	if (strcmp(method, "openat2") == 0) {
		struct open_how how = {.flags = O_CREAT | O_WRONLY, .mode = 0644};
		fd = (int)syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof how);
		return report(method, name, fd);
	}
	if (strcmp(method, "rename") == 0) {
		scratch(tmp, sizeof tmp, method);
		rc = rename(tmp, name);
		unlink(tmp);
		return report(method, name, rc);
	}
	if (strcmp(method, "link") == 0) {
		scratch(tmp, sizeof tmp, method);
		rc = link(tmp, name);
		unlink(tmp);
		return report(method, name, rc);
	}
	if (strcmp(method, "symlink") == 0) {
		snprintf(tmp, sizeof tmp, "sv-link-%d", (int)getpid());
		if (symlink(name, tmp) != 0) {
			printf("%s: cannot make the symlink: %s\n", method, strerror(errno));
			return 2;
		}
		fd = open(tmp, O_CREAT | O_WRONLY, 0644);
		unlink(tmp);
		return report(method, name, fd);
	}
	if (strcmp(method, "tmpfile") == 0) {
		fd = open(".", O_TMPFILE | O_WRONLY, 0644);
		if (fd < 0) {
			printf("%s: O_TMPFILE: %s\n", method, strerror(errno));
			return 2;
		}
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		rc = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
		return report(method, name, rc);
	}
	if (strcmp(method, "tmpfile-empty") == 0) {
		fd = open(".", O_TMPFILE | O_WRONLY, 0644);
		if (fd < 0) {
			printf("%s: O_TMPFILE: %s\n", method, strerror(errno));
			return 2;
		}
		rc = linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
		return report(method, name, rc);
	}
	if (strcmp(method, "mknod") == 0)
		return report(method, name, mknod(name, S_IFREG | 0644, 0));
	if (strcmp(method, "mkfifo") == 0)
		return report(method, name, mkfifo(name, 0644));
	fprintf(stderr, "sv-make: unknown method %s\n", method);
	return 2;
}
