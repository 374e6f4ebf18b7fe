/*
 * xalloc: allocations that never return NULL (see xalloc.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void *checked(void *p, size_t size)
{
	if (p == NULL && size > 0) {
		fprintf(stderr, "sandmux: out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1), size ? size : 1);
}

void *xcalloc(size_t count, size_t size)
{
	return checked(calloc(count ? count : 1, size ? size : 1), 1);
}

void *xrealloc(void *ptr, size_t size)
{
	if (size == 0) {
		free(ptr);
		return NULL;
	}
	return checked(realloc(ptr, size), size);
}

char *xstrdup(const char *s)
{
	return checked(strdup(s), strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	return checked(strndup(s, n), n + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return checked(n < 0 ? NULL : out, 1);
}
