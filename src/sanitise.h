/*
 * sanitise: the one way text a pane chose (a file name, a reason, a
 * title, a session name) is made safe to print on a terminal.  See
 * sanitise.c.
 */
#ifndef SANDMUX_SANITISE_H
#define SANDMUX_SANITISE_H

#include <stdio.h>

/* A copy of text (NULL: "") where every control character, C0, DEL or
 * C1, and every byte that is not part of valid UTF-8 is '?'.  The
 * caller frees it. */
char *sanitise_text(const char *text);
/* fputs of sanitise_text(text). */
void sanitise_fputs(const char *text, FILE *out);

#endif
