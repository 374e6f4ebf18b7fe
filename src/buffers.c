/*
 * buffers: the server's paste buffers, as tmux keeps them.  They live in
 * the server, so they survive a detach and every client shares them; the
 * newest is the top of the stack, which prefix ] pastes.  Each buffer
 * remembers the backend of the pane it was copied from (its label in
 * list-buffers), because pasting text copied in one sandbox into a pane
 * of another moves data across the boundary the backends draw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "xalloc.h"

/* tmux's buffer-limit: automatic buffers beyond it are dropped, oldest
 * first, so a long session's copies cannot grow the server without end. */
#define BUFFER_LIMIT 50

static struct paste_buffer *buffers; /* newest first */
static int next_buffer_number;

struct paste_buffer *buffers_list(void)
{
	return buffers;
}

struct paste_buffer *buffers_find(const char *name)
{
	for (struct paste_buffer *b = buffers; b != NULL; b = b->next)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

static void buffer_free(struct paste_buffer *b)
{
	free(b->text);
	free(b);
}

static void buffers_trim(void)
{
	int automatic = 0;

	for (struct paste_buffer **pp = &buffers; *pp != NULL;) {
		struct paste_buffer *b = *pp;
		if (b->automatic && ++automatic > BUFFER_LIMIT) {
			*pp = b->next;
			buffer_free(b);
			continue;
		}
		pp = &b->next;
	}
}

struct paste_buffer *buffers_set(const char *name, const char *text, size_t len,
				 const struct pane *source)
{
	struct paste_buffer *b = name != NULL ? buffers_find(name) : NULL, **pp;

	if (b != NULL) {
		/* Replacing a named buffer's text moves it to the top. */
		for (pp = &buffers; *pp != b; pp = &(*pp)->next)
			;
		*pp = b->next;
		free(b->text);
	} else {
		b = xcalloc(1, sizeof *b);
		if (name != NULL)
			snprintf(b->name, sizeof b->name, "%s", name);
		else
			snprintf(b->name, sizeof b->name, "buffer%d", next_buffer_number++);
		b->automatic = name == NULL;
	}
	b->text = xmalloc(len + 1);
	memcpy(b->text, text, len);
	b->text[len] = 0;
	b->len = len;
	b->from_pane = source != NULL;
	b->confirmed_for = 0;
	b->backend = source != NULL ? source->requested : SANDBOX_NONE;
	snprintf(b->label, sizeof b->label, "%s", source != NULL ? pane_backend_label(source) : "");
	b->next = buffers;
	buffers = b;
	buffers_trim();
	return b;
}

bool buffers_delete(const char *name)
{
	for (struct paste_buffer **pp = &buffers; *pp != NULL; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0) {
			struct paste_buffer *b = *pp;
			*pp = b->next;
			buffer_free(b);
			return true;
		}
	return false;
}

void buffers_clear(void)
{
	while (buffers != NULL) {
		struct paste_buffer *b = buffers;
		buffers = b->next;
		buffer_free(b);
	}
}
