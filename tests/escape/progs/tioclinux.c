/* tioclinux: TIOCLINUX on fd 0: subcode 2 (set the selection) then 3
 * (paste it into the console's input), the console equivalent of
 * TIOCSTI.  Prints each result; exits 0 if the paste succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
	struct {
		char subcode;
		short xs, ys, xe, ye, mode;
	} __attribute__((packed)) sel = { 2, 1, 1, 10, 1, 0 };
	char paste = 3;
	int rc1 = ioctl(0, TIOCLINUX, &sel), e1 = errno;
	int rc2 = ioctl(0, TIOCLINUX, &paste), e2 = errno;

	printf("tioclinux set-selection %d (%s) paste %d (%s)\n", rc1, rc1 ? strerror(e1) : "ok",
	       rc2, rc2 ? strerror(e2) : "ok");
	return rc2 == 0 ? 0 : 1;
}
