/*
 * sv-racer: tries to win the check-then-use race against the
 * supervisor.  One thread flips a path buffer between an allowed name
 * and a denied one as fast as it can while others open(O_CREAT) that
 * same buffer TRIES times in all.  With CONTINUE answers, the kernel
 * re-reads the buffer after the supervisor's check and some denied
 * files get made; with emulation, none may.
 *
 *   sv-racer TRIES ALLOWED DENIED
 *
 * Prints "tries N created-allowed A created-denied D" and exits 0 only
 * when DENIED does not exist at the end.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPENERS 3

static char path[256];
static const char *allowed, *denied;
static atomic_int remaining;
static atomic_bool done;
static atomic_int created_allowed, created_denied;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		strcpy(path, denied);
		strcpy(path, allowed);
	}
	return NULL;
}

static void *opener(void *arg)
{
	struct stat st;

	(void)arg;
	while (atomic_fetch_sub(&remaining, 1) > 0) {
		int fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
		if (stat(denied, &st) == 0) {
			atomic_fetch_add(&created_denied, 1);
			unlink(denied);
		}
		if (stat(allowed, &st) == 0) {
			atomic_fetch_add(&created_allowed, 1);
			unlink(allowed);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t flip, open_threads[OPENERS];
	struct stat st;

	if (argc != 4 || strlen(argv[2]) >= sizeof path || strlen(argv[3]) >= sizeof path) {
		fprintf(stderr, "usage: sv-racer TRIES ALLOWED DENIED\n");
		return 2;
	}
	atomic_store(&remaining, atoi(argv[1]));
	allowed = argv[2];
	denied = argv[3];
	strcpy(path, allowed);
	pthread_create(&flip, NULL, flipper, NULL);
	for (int i = 0; i < OPENERS; i++)
		pthread_create(&open_threads[i], NULL, opener, NULL);
	for (int i = 0; i < OPENERS; i++)
		pthread_join(open_threads[i], NULL);
	atomic_store(&done, true);
	pthread_join(flip, NULL);
	if (stat(denied, &st) == 0)
		atomic_fetch_add(&created_denied, 1);
	printf("tries %s created-allowed %d created-denied %d\n", argv[1],
	       atomic_load(&created_allowed), atomic_load(&created_denied));
	return atomic_load(&created_denied) == 0 ? 0 : 1;
}
