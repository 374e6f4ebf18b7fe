/*
 * target: parsing the target grammar (see target.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "target.h"

/* A whole number >= 0 spelled by exactly the digits [text, end). */
static int index_of(const char *text, const char *end)
{
	long n = 0;

	if (text == end)
		return -1;
	for (const char *p = text; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
		if (n > INT_MAX)
			return -1;
	}
	return (int)n;
}

int target_parse(const char *text, struct target *out, struct sm_error *err)
{
	const char *colon, *dot, *end;
	size_t len;

	out->pane_id = out->window = out->pane_index = -1;
	out->session[0] = '\0';
	if (text == NULL || text[0] == '\0') {
		sm_error_set(err, SM_ERR_INVALID_TARGET, "empty target");
		return -1;
	}
	end = text + strlen(text);
	if ((out->pane_id = index_of(text[0] == '%' ? text + 1 : text, end)) >= 0)
		return 0;
	if (text[0] == '%') {
		sm_error_set(err, SM_ERR_INVALID_TARGET, "bad pane target \"%.64s\" (use %%N)", text);
		return -1;
	}
	colon = strchr(text, ':');
	len = colon ? (size_t)(colon - text) : strlen(text);
	if (len >= sizeof out->session || memchr(text, '.', len) != NULL ||
	    memchr(text, '%', len) != NULL) {
		sm_error_set(err, SM_ERR_INVALID_TARGET, "bad target \"%.64s\"", text);
		return -1;
	}
	memcpy(out->session, text, len);
	out->session[len] = '\0';
	if (colon == NULL)
		return 0;
	dot = strchr(colon + 1, '.');
	if (colon[1] != '\0' && colon + 1 != dot &&
	    (out->window = index_of(colon + 1, dot ? dot : end)) < 0) {
		sm_error_set(err, SM_ERR_INVALID_TARGET,
			     "bad window in target \"%.64s\" (SESSION:W.P, W a number)", text);
		return -1;
	}
	if (dot != NULL && (out->pane_index = index_of(dot + 1, end)) < 0) {
		sm_error_set(err, SM_ERR_INVALID_TARGET,
			     "bad pane in target \"%.64s\" (SESSION:W.P, P a number)", text);
		return -1;
	}
	if (len == 0 && colon[1] == '\0') {
		sm_error_set(err, SM_ERR_INVALID_TARGET, "bad target \"%.64s\"", text);
		return -1;
	}
	return 0;
}
