/*
 * jsonl: JSON lines, the framing of the protocol and of the events log:
 * one object printed without newlines (cJSON escapes any inside
 * strings), then '\n'.  Every writer of a line goes through jsonl_line,
 * so the socket and the log can never disagree about what a line is.
 */
#ifndef SANDMUX_JSONL_H
#define SANDMUX_JSONL_H

#include <stddef.h>
#include <stdio.h>

struct cJSON;

/* msg as one line, '\n' included, NUL-terminated (malloc'd, never NULL);
 * *len is its length with the '\n'. */
char *jsonl_line(const struct cJSON *msg, size_t *len);
/* msg as one line written to f (the CLI's --json output); 0, or -1 when
 * f refused it. */
int jsonl_put(FILE *f, const struct cJSON *msg);

#endif
