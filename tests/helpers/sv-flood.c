/*
 * sv-flood: a pane flooding the events log with denied opens, as an
 * attacker erasing the evidence would.
 *
 *   sv-flood COUNT DIR LENGTH [same]
 *
 * Opens COUNT paths under DIR (a deny-read root) for reading, each
 * LENGTH bytes long and, unless "same" is given, new each time (the
 * number comes first, so no two share their first kilobyte).  Prints
 * "flood COUNT refused R" and exits 0 when every open was refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	long count, length, refused = 0;
	int same;
	size_t at;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: sv-flood COUNT DIR LENGTH [same]\n");
		return 2;
	}
	count = atol(argv[1]);
	length = atol(argv[3]);
	same = argc == 5 && strcmp(argv[4], "same") == 0;
	if (length < (long)strlen(argv[2]) + 16 || length >= PATH_MAX) {
		fprintf(stderr, "sv-flood: LENGTH must leave room for a name and stay below %d\n",
			PATH_MAX);
		return 2;
	}
	for (long i = 0; i < count; i++) {
		int n = snprintf(path, sizeof path, "%s/%08ld-", argv[2], same ? 0 : i);
		int fd;

		/* Components of at most 200 bytes: NAME_MAX holds for each. */
		for (at = (size_t)n; at < (size_t)length; at++)
			path[at] = (at - (size_t)n) % 200 == 199 ? '/' : 'x';
		path[at] = '\0';
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
		else if (errno == EACCES || errno == EPERM)
			refused++;
	}
	printf("flood %ld refused %ld\n", count, refused);
	return refused == count ? 0 : 1;
}
