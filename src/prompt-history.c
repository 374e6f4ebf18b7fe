/*
 * prompt-history: the command prompt's history, kept by the server for
 * its life (as tmux keeps it), so a client attached later, or again after
 * a detach, goes Up through the lines any client ran (server-tty.c's
 * prompt).
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "xalloc.h"

/* tmux keeps 100 lines. */
#define HISTORY_MAX 100
#define HISTORY_LINE_MAX 512

static char *lines[HISTORY_MAX];
static int nlines;

void prompt_history_add(const char *line)
{
	if (line[0] == 0 || strlen(line) >= HISTORY_LINE_MAX || (nlines > 0 && strcmp(lines[nlines - 1], line) == 0))
		return;
	if (nlines == HISTORY_MAX) {
		free(lines[0]);
		memmove(lines, lines + 1, (HISTORY_MAX - 1) * sizeof *lines);
		nlines--;
	}
	lines[nlines++] = xstrdup(line);
}

const char *const *prompt_history_lines(int *count)
{
	*count = nlines;
	return (const char *const *)lines;
}

void prompt_history_clear(void)
{
	while (nlines > 0)
		free(lines[--nlines]);
}
