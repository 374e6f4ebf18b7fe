/*
 * error: filling an sm_error.  A NULL err is allowed, so callers that do
 * not care about the reason need not allocate one.
 */
#include <stdio.h>
#include <string.h>

#include "error.h"

void sm_error_set(struct sm_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	snprintf(err->code, sizeof err->code, "%s", code);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
}
