/*
 * sv-readracer: tries to win the check-then-use race on a plain read.
 * One thread flips a path buffer between an allowed file and a secret
 * (a file under a deny-read root that the host made after launch, so
 * no mask covers it and only the supervisor refuses it) while others
 * open(O_RDONLY) and read that same buffer TRIES times in all.  Answered
 * CONTINUE, the kernel re-reads the buffer after the supervisor's check
 * and some opens read the secret; opened by the supervisor, none may.
 *
 *   sv-readracer TRIES ALLOWED SECRET MARKER
 *
 * Prints "tries N read-allowed A read-secret S" and exits 0 only when
 * no read returned MARKER (the secret's content).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READERS 3

static char path[256];
static const char *allowed, *secret, *marker;
static atomic_int remaining;
static atomic_bool done;
static atomic_int read_allowed, read_secret;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		strcpy(path, secret);
		strcpy(path, allowed);
	}
	return NULL;
}

static void *reader(void *arg)
{
	char buf[256];

	(void)arg;
	while (atomic_fetch_sub(&remaining, 1) > 0) {
		int fd = open(path, O_RDONLY);
		ssize_t n;

		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (strstr(buf, marker) != NULL)
			atomic_fetch_add(&read_secret, 1);
		else
			atomic_fetch_add(&read_allowed, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t flip, readers[READERS];

	if (argc != 5 || strlen(argv[2]) >= sizeof path || strlen(argv[3]) >= sizeof path ||
	    argv[4][0] == '\0') {
		fprintf(stderr, "usage: sv-readracer TRIES ALLOWED SECRET MARKER\n");
		return 2;
	}
	atomic_store(&remaining, atoi(argv[1]));
	allowed = argv[2];
	secret = argv[3];
	marker = argv[4];
	strcpy(path, allowed);
	pthread_create(&flip, NULL, flipper, NULL);
	for (int i = 0; i < READERS; i++)
		pthread_create(&readers[i], NULL, reader, NULL);
	for (int i = 0; i < READERS; i++)
		pthread_join(readers[i], NULL);
	atomic_store(&done, true);
	pthread_join(flip, NULL);
	printf("tries %s read-allowed %d read-secret %d\n", argv[1], atomic_load(&read_allowed),
	       atomic_load(&read_secret));
	return atomic_load(&read_secret) == 0 ? 0 : 1;
}
