/*
 * jsonl: JSON lines, the framing of the protocol and of the events log:
 * one object printed without newlines (cJSON escapes any inside
 * strings), then '\n'.  Every writer of a line goes through jsonl_line,
 * so the socket and the log can never disagree about what a line is.
 */
#ifndef SANDMUX_JSONL_H
#define SANDMUX_JSONL_H

#include <stddef.h>

struct cJSON;

/* msg as one line, '\n' included, NUL-terminated (malloc'd, never NULL);
 * *len is its length with the '\n'. */
char *jsonl_line(const struct cJSON *msg, size_t *len);

#endif
