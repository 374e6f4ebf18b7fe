/*
 * strvec: a growable, NULL-terminated array of owned strings.  Sandbox
 * command lines are built with it, one argument per element, so no
 * argument is ever re-parsed by a shell.
 */
#ifndef SANDMUX_STRVEC_H
#define SANDMUX_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

struct strvec {
	char **v; /* NULL-terminated once anything was pushed; NULL before */
	size_t n;
	size_t cap;
};

#define STRVEC_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Push a copy of s.  Returns 0, or -1 when out of memory (the vector is
 * unchanged). */
int strvec_push(struct strvec *sv, const char *s);
/* Push each of the strings, stopping at the first failure. */
int strvec_pushv(struct strvec *sv, const char *const *strs, size_t n);
bool strvec_contains(const struct strvec *sv, const char *s);
void strvec_free(struct strvec *sv);

#endif
