/*
 * termbench: throughput and memory of sandmux's emulator (term_write).
 *
 * Feeds a file to a 200x50 struct term with a 10,000-line scrollback in
 * PTY-sized chunks and prints the parse rate and term_memory().  Compare
 * the rate with floor.c (libvterm's state layer with no-op callbacks) on
 * the same file; the target is within 1.3x of it.
 *
 * Build and run (not part of the Makefile's wildcard):
 *   make build/libsandmux.a
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iterm -o build/termbench tests/bench/termbench.c \
 *      build/libsandmux.a $(pkg-config --cflags --libs vterm)
 *   build/termbench /tmp/bench.txt
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "term.h"

#define ROWS 50
#define COLS 200
#define SCROLLBACK 10000
#define CHUNK 4096 /* a typical PTY read */

static char *read_file(const char *path, size_t *len)
{
	FILE *file = fopen(path, "rb");
	if (file == NULL) {
		perror(path);
		exit(1);
	}
	fseek(file, 0, SEEK_END);
	*len = (size_t)ftell(file);
	rewind(file);
	char *data = malloc(*len);
	if (data == NULL || fread(data, 1, *len, file) != *len) {
		fprintf(stderr, "%s: cannot read\n", path);
		exit(1);
	}
	fclose(file);
	return data;
}

/* Bytes malloc has handed out, from its arenas and as separate mappings. */
static size_t heap_in_use(void)
{
	struct mallinfo2 info = mallinfo2();
	return info.uordblks + info.hblkhd;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	size_t len;
	char *data = read_file(argv[1], &len);
	/* The heap in use before and after, malloc's own overhead included,
	 * checks term_memory()'s count (the input file, read before, is left out). */
	size_t heap_before = heap_in_use();
	struct term *term = term_new(ROWS, COLS, SCROLLBACK);

	double start = now();
	for (size_t off = 0; off < len; off += CHUNK)
		term_write(term, data + off, len - off < CHUNK ? len - off : CHUNK);
	double seconds = now() - start;

	size_t memory = term_memory(term);
	size_t heap = heap_in_use() - heap_before;
	int lines = term_history_lines(term);
	printf("term_write: %.1f MB in %.2f s = %.1f MB/s\n", (double)len / 1e6, seconds,
	       (double)len / 1e6 / seconds);
	printf("memory: %zu bytes (%.2f MB) for %d history lines + %dx%d screen; "
	       "%.2f bytes/cell\n",
	       memory, (double)memory / 1e6, lines, ROWS, COLS,
	       (double)memory / ((double)(lines + 2 * ROWS) * COLS));
	printf("heap: %zu bytes (%.2f MB) including malloc overhead and libvterm\n", heap,
	       (double)heap / 1e6);
	term_free(term);
	free(data);
	return 0;
}
