/* finalobj: the forms of making or writing a file whose final object
 * differs from the path's spelling, for tests/escape/final-object.sh.
 * Each verb is one attack; a supervisor that decides on the spelling
 * lets it through, one that decides on the object the kernel would
 * touch refuses it.
 *
 *   exchange A B       renameat2(A, B, RENAME_EXCHANGE), then write
 *                      "evil" to B (A's old contents now live there)
 *   tmplink DIR LINK   O_TMPFILE in DIR, write "evil", then
 *                      linkat(/proc/self/fd/N -> LINK, AT_SYMLINK_FOLLOW)
 *   tmpempty DIR LINK  the same, linked with linkat(N, "", AT_EMPTY_PATH)
 *   linkfollow L NEW   linkat(L, NEW, AT_SYMLINK_FOLLOW), then append
 *                      "evil" to NEW (L is a symlink to a protected file)
 *   linkfd FILE NEW    open FILE O_PATH, linkat(/proc/self/fd/N, NEW,
 *                      AT_SYMLINK_FOLLOW), then append "evil" to NEW
 *   reopen FILE        open FILE O_PATH, then open /proc/self/fd/N
 *                      O_WRONLY|O_APPEND and append "evil"
 *   dirfd DIR NAME     openat(open(DIR), NAME, O_CREAT|O_WRONLY)
 *   write PATH         open(PATH, O_WRONLY|O_APPEND), no O_CREAT, and
 *                      append "evil" (PATH is a symlink to elsewhere)
 *   race N OK PROT     one thread flips a path buffer between OK and
 *                      PROT while three open it O_WRONLY|O_APPEND (no
 *                      O_CREAT, both files exist) and append "evil",
 *                      N opens in all
 *
 * Prints what each step returned.  Exit 0: every step succeeded (the
 * attack worked from the inside); 1: a step was refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int step(const char *what, long rc)
{
	printf("%s: %s\n", what, rc < 0 ? strerror(errno) : "OK");
	return rc < 0 ? 1 : 0;
}

static int append_evil(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (step("open", fd))
		return 1;
	return step("write", write(fd, "evil\n", 5));
}

static char race_path[4096];
static const char *race_ok, *race_prot;
static atomic_int race_left;
static atomic_bool race_done;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&race_done)) {
		strcpy(race_path, race_prot);
		strcpy(race_path, race_ok);
	}
	return NULL;
}

static void *racer(void *arg)
{
	(void)arg;
	while (atomic_fetch_sub(&race_left, 1) > 0) {
		int fd = open(race_path, O_WRONLY | O_APPEND);
		if (fd >= 0) {
			if (write(fd, "evil\n", 5) < 0)
				perror("write");
			close(fd);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : "";
	char proc[64];
	int fd;

	if (strcmp(verb, "exchange") == 0 && argc == 4) {
		if (step("renameat2", syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3],
					      2 /* RENAME_EXCHANGE */)))
			return 1;
		return append_evil(argv[3], O_WRONLY | O_APPEND);
	}
	if ((strcmp(verb, "tmplink") == 0 || strcmp(verb, "tmpempty") == 0) && argc == 4) {
		fd = open(argv[2], O_TMPFILE | O_WRONLY, 0644);
		if (step("open O_TMPFILE", fd) || step("write", write(fd, "evil\n", 5)))
			return 1;
		if (verb[3] == 'e')
			return step("linkat AT_EMPTY_PATH",
				    linkat(fd, "", AT_FDCWD, argv[3], AT_EMPTY_PATH));
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		return step("linkat /proc/self/fd", linkat(AT_FDCWD, proc, AT_FDCWD, argv[3],
							   AT_SYMLINK_FOLLOW));
	}
	if (strcmp(verb, "linkfollow") == 0 && argc == 4) {
		if (step("linkat AT_SYMLINK_FOLLOW",
			 linkat(AT_FDCWD, argv[2], AT_FDCWD, argv[3], AT_SYMLINK_FOLLOW)))
			return 1;
		return append_evil(argv[3], O_WRONLY | O_APPEND);
	}
	if (strcmp(verb, "linkfd") == 0 && argc == 4) {
		fd = open(argv[2], O_PATH);
		if (step("open O_PATH", fd))
			return 1;
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		if (step("linkat /proc/self/fd",
			 linkat(AT_FDCWD, proc, AT_FDCWD, argv[3], AT_SYMLINK_FOLLOW)))
			return 1;
		return append_evil(argv[3], O_WRONLY | O_APPEND);
	}
	if (strcmp(verb, "reopen") == 0 && argc == 3) {
		fd = open(argv[2], O_PATH);
		if (step("open O_PATH", fd))
			return 1;
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		return append_evil(proc, O_WRONLY | O_APPEND);
	}
	if (strcmp(verb, "dirfd") == 0 && argc == 4) {
		int dir = open(argv[2], O_RDONLY | O_DIRECTORY);
		if (step("open DIR", dir))
			return 1;
		fd = openat(dir, argv[3], O_CREAT | O_WRONLY, 0644);
		if (step("openat O_CREAT", fd))
			return 1;
		return step("write", write(fd, "evil\n", 5));
	}
	if (strcmp(verb, "write") == 0 && argc == 3)
		return append_evil(argv[2], O_WRONLY | O_APPEND);
	if (strcmp(verb, "race") == 0 && argc == 5 && strlen(argv[3]) < sizeof race_path &&
	    strlen(argv[4]) < sizeof race_path) {
		pthread_t flip, open_threads[3];

		atomic_store(&race_left, atoi(argv[2]));
		race_ok = argv[3];
		race_prot = argv[4];
		strcpy(race_path, race_ok);
		pthread_create(&flip, NULL, flipper, NULL);
		for (int i = 0; i < 3; i++)
			pthread_create(&open_threads[i], NULL, racer, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(open_threads[i], NULL);
		atomic_store(&race_done, true);
		pthread_join(flip, NULL);
		printf("race: %s opens done\n", argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of finalobj.c\n");
	return 2;
}
