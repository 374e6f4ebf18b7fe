/*
 * error: errors are values with a code and a human message.  Scripts read
 * the code (stable, snake_case); people read the message.
 */
#ifndef SANDMUX_ERROR_H
#define SANDMUX_ERROR_H

#include <stdarg.h>

struct sm_error {
	char code[48];
	char message[512];
};

void sm_error_set(struct sm_error *err, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
