/* mkname: create the file NAME in DIR by one of the ways a supervisor
 * that enforces new-file name patterns has to catch:
 *   creat     open(O_CREAT|O_WRONLY)
 *   openat2   openat2(O_CREAT) through the newer syscall
 *   tmpfile   open(O_TMPFILE) then linkat() it to NAME
 *   rename    create an allowed name, renameat2() it to NAME
 *   exchange  renameat2(RENAME_EXCHANGE) an allowed file with a dangling NAME symlink
 *   link      linkat() an allowed file to NAME
 *   symlink   symlinkat() NAME -> an allowed file
 *   mknod     mknodat() a FIFO named NAME
 * Exits 0 if NAME exists afterwards. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how, *name;
	int dir, fd, rc = -1;
	char proc[64];

	if (argc != 4)
		return 2;
	how = argv[1];
	name = argv[3];
	dir = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (strcmp(how, "creat") == 0) {
		rc = openat(dir, name, O_CREAT | O_WRONLY, 0644);
	} else if (strcmp(how, "openat2") == 0) {
		struct open_how oh = { .flags = O_CREAT | O_WRONLY, .mode = 0644 };
		rc = syscall(SYS_openat2, dir, name, &oh, sizeof oh);
	} else if (strcmp(how, "tmpfile") == 0) {
		fd = openat(dir, ".", O_TMPFILE | O_WRONLY, 0644);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		rc = fd < 0 ? -1 : linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW);
	} else if (strcmp(how, "rename") == 0) {
		close(openat(dir, "mkname-allowed", O_CREAT | O_WRONLY, 0644));
		rc = syscall(SYS_renameat2, dir, "mkname-allowed", dir, name, 0);
	} else if (strcmp(how, "exchange") == 0) {
		close(openat(dir, "mkname-allowed", O_CREAT | O_WRONLY, 0644));
		symlinkat("mkname-nowhere", dir, name);
		rc = syscall(SYS_renameat2, dir, "mkname-allowed", dir, name, 2 /* RENAME_EXCHANGE */);
	} else if (strcmp(how, "link") == 0) {
		close(openat(dir, "mkname-allowed", O_CREAT | O_WRONLY, 0644));
		rc = linkat(dir, "mkname-allowed", dir, name, 0);
	} else if (strcmp(how, "symlink") == 0) {
		rc = symlinkat("mkname-allowed", dir, name);
	} else if (strcmp(how, "mknod") == 0) {
		rc = mknodat(dir, name, S_IFIFO | 0644, 0);
	}
	printf("%s %s: %s\n", how, name, rc < 0 ? strerror(errno) : "OK");
	struct stat st;
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : 1;
}
