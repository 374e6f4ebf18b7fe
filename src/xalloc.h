/*
 * xalloc: the one way sandmux handles running out of memory.  Every
 * allocation in src/, term/ and backends/ goes through these (but the
 * programs built alone: the static shim, backends/native-inside/shim.c,
 * and the guest's /init, which check their own); when the allocator
 * says no they print why and abort, because no caller has anything
 * sensible to fall back to and a half-made pane or frame would be worse
 * than a clean crash (the server's sessions are lost either way, and
 * abort at least leaves a core to look at).  Part of the base that every
 * layer may use, with error.h and log.h (docs/CODE-MAP.md).
 */
#ifndef SANDMUX_XALLOC_H
#define SANDMUX_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
/* size 0 frees ptr and returns NULL, as realloc may. */
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* asprintf that never fails. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
