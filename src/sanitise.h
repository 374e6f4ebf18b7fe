/*
 * sanitise: the one rule for text a pane chose (a file name, a reason, a
 * title, a program's name) before a terminal shows it.  See sanitise.c.
 */
#ifndef SANDMUX_SANITISE_H
#define SANDMUX_SANITISE_H

#include <stdint.h>
#include <stdio.h>

/* What to show for code point cp: cp itself; '?' for a control (C0,
 * DEL, C1) or what is no character (a surrogate, past U+10FFFF); 0 to
 * drop it (bidirectional and invisible format characters). */
uint32_t sanitise_codepoint(uint32_t cp);
/* A copy of text (NULL: "") with sanitise_codepoint applied to every
 * character, and every byte that is not part of valid UTF-8 as '?'.
 * The caller frees it. */
char *sanitise_text(const char *text);
/* fputs of sanitise_text(text). */
void sanitise_fputs(const char *text, FILE *out);

#endif
