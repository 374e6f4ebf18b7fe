/* tiocsti: push TEXT and a newline into the terminal on fd 0 with
 * TIOCSTI, one byte per ioctl, so the shell would run TEXT next.  With "wide" the request number is passed with high bits set
 * (a filter that compares all 64 bits of the argument would miss it;
 * the kernel only looks at the low 32).  Prints how many bytes went in;
 * exits 0 only if every byte was injected. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char text[4096];
	unsigned long request = TIOCSTI;
	size_t injected = 0;
	int err = 0;

	snprintf(text, sizeof text, "%s\n", argc > 1 ? argv[1] : "");
	if (argc > 2 && strcmp(argv[2], "wide") == 0)
		request |= 0xdead00000000UL;
	for (const char *p = text; *p; p++) {
		if (syscall(SYS_ioctl, 0, request, p) == 0)
			injected++;
		else
			err = errno;
	}
	printf("tiocsti injected %zu/%zu%s%s\n", injected, strlen(text), err ? " errno " : "",
	       err ? strerror(err) : "");
	return injected == strlen(text) && injected > 0 ? 0 : 1;
}
