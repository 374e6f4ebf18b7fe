/* fdscan DIR...: list every open fd of every process visible in /proc
 * whose target is not a terminal, /dev/null, a pipe, an eventfd (bwrap's
 * init waits on one) or under one of the DIRs (the allowed places).  A leaked fd (the seccomp listener, the bwrap status memfd, a
 * socket to the server, a host directory) shows up as one line.  Exits 0
 * when nothing leaked. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int allowed(const char *target, char **dirs, int ndirs)
{
	static const char *const ok[] = { "/dev/pts/", "/dev/tty", "/dev/null", "pipe:", "/dev/ptmx",
					  "anon_inode:[eventfd]" };

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (strncmp(target, ok[i], strlen(ok[i])) == 0)
			return 1;
	for (int i = 0; i < ndirs; i++)
		if (strncmp(target, dirs[i], strlen(dirs[i])) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	DIR *proc = opendir("/proc");
	struct dirent *p, *f;
	int leaked = 0;

	while ((p = readdir(proc)) != NULL) {
		char path[300], link[600], target[4096];
		DIR *fds;
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/fd", p->d_name);
		if ((fds = opendir(path)) == NULL)
			continue;
		while ((f = readdir(fds)) != NULL) {
			ssize_t n;
			if (f->d_name[0] == '.')
				continue;
			snprintf(link, sizeof link, "%s/%s", path, f->d_name);
			if ((n = readlink(link, target, sizeof target - 1)) < 0)
				continue;
			target[n] = '\0';
			/* fdscan's own directory handles */
			if (strcmp(p->d_name, "self") == 0 || atoi(p->d_name) == getpid())
				continue;
			if (!allowed(target, argv + 1, argc - 1)) {
				printf("LEAK pid %s fd %s -> %s\n", p->d_name, f->d_name, target);
				leaked++;
			}
		}
		closedir(fds);
	}
	printf("fdscan: %d leaked\n", leaked);
	return leaked == 0 ? 0 : 1;
}
