/*
 * floor: the emulator floor -- libvterm's state layer alone, no grid.
 *
 * Feeds a file to a 200x50 VTerm whose state callbacks do nothing, and
 * prints the parse rate.  No emulator built on the state layer can beat
 * this; term_write (see termbench.c) is measured against it.
 *
 * Build and run (not part of the Makefile's wildcard):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -o build/floor tests/bench/floor.c \
 *      $(pkg-config --cflags --libs vterm)
 *   build/floor /tmp/bench.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vterm.h>

#define ROWS 50
#define COLS 200
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

static int on_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	return 1;
}

static int on_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	return 1;
}

static int on_erase(VTermRect rect, int selective, void *user)
{
	return 1;
}

static int on_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	return 1;
}

static const VTermStateCallbacks callbacks = {
    .putglyph = on_putglyph,
    .scrollrect = on_scrollrect,
    .erase = on_erase,
    .setpenattr = on_setpenattr,
};

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
	VTerm *vt = vterm_new(ROWS, COLS);
	vterm_set_utf8(vt, 1);
	VTermState *state = vterm_obtain_state(vt);
	vterm_state_set_callbacks(state, &callbacks, NULL);
	vterm_state_reset(state, 1);

	double start = now();
	for (size_t off = 0; off < len; off += CHUNK)
		vterm_input_write(vt, data + off, len - off < CHUNK ? len - off : CHUNK);
	double seconds = now() - start;

	printf("floor: %.1f MB in %.2f s = %.1f MB/s\n", (double)len / 1e6, seconds,
	       (double)len / 1e6 / seconds);
	vterm_free(vt);
	free(data);
	return 0;
}
