/*
 * strvec: growable NULL-terminated string arrays (see strvec.h).  The
 * array always keeps one spare slot so it can be handed to execv as is.
 */
#include <stdlib.h>
#include <string.h>

#include "strvec.h"
#include "xalloc.h"

static int strvec_reserve(struct strvec *sv, size_t want)
{
	size_t cap = sv->cap ? sv->cap : 16;
	char **v;

	if (want + 1 <= sv->cap)
		return 0;
	while (cap < want + 1)
		cap *= 2;
	v = xrealloc(sv->v, cap * sizeof *v);
	sv->v = v;
	sv->cap = cap;
	return 0;
}

int strvec_push(struct strvec *sv, const char *s)
{
	char *copy;

	if (strvec_reserve(sv, sv->n + 1) != 0)
		return -1;
	copy = xstrdup(s);
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

int strvec_pushv(struct strvec *sv, const char *const *strs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strvec_push(sv, strs[i]) != 0)
			return -1;
	return 0;
}

bool strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
