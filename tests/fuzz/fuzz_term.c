/*
 * fuzz_term: the emulator under arbitrary program output.  The first two
 * bytes pick the initial size; the rest is split at the first 0xff into
 * output written before and after a resize (to a size taken from the
 * last two bytes).  Every visible and history row is then captured, with
 * and without ANSI, and walked as style runs, as the server does for a
 * frame.  Any crash, leak or undefined behaviour is a finding.
 *
 * A second emulator with the plain-text fast path off gets the same
 * bytes in the same pieces: its capture (text, colours, history) and
 * cursor must equal the first's, or the fast path changed an outcome.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"

static void on_run(const struct term_style *style, const char *utf8, size_t len, int col,
		   int width, void *user)
{
	size_t *total = user;

	(void)style;
	(void)utf8;
	*total += len + (size_t)col + (size_t)width;
}

static void on_output(const char *bytes, size_t len, void *user)
{
	(void)bytes;
	(void)len;
	(void)user;
}

static void walk(struct term *t)
{
	size_t total = 0, len = 0;
	int hist = term_history_lines(t);
	char *text;

	for (int row = -hist; row < term_rows(t); row++)
		term_row_runs(t, row, on_run, &total);
	text = term_capture(t, -hist, term_rows(t) - 1, false, &len);
	free(text);
	text = term_capture(t, -hist, term_rows(t) - 1, true, &len);
	free(text);
	term_damage_clear(t);
}

/* The two emulators must agree on every cell, style and the cursor. */
static void same(struct term *a, struct term *b)
{
	size_t la = 0, lb = 0;
	int hist = term_history_lines(a), ra, ca, rb, cb;
	char *x, *y;

	if (hist != term_history_lines(b))
		abort();
	x = term_capture(a, -hist, term_rows(a) - 1, true, &la);
	y = term_capture(b, -hist, term_rows(b) - 1, true, &lb);
	term_cursor(a, &ra, &ca);
	term_cursor(b, &rb, &cb);
	if (la != lb || memcmp(x, y, la) != 0 || ra != rb || ca != cb)
		abort();
	free(x);
	free(y);
}

/* Write to both, in two pieces cut where the input says. */
static void both(struct term *a, struct term *b, const uint8_t *bytes, size_t len)
{
	size_t cut = len > 0 ? (size_t)bytes[0] * len / 256 : 0;

	term_write(a, (const char *)bytes, cut);
	term_write(b, (const char *)bytes, cut);
	term_write(a, (const char *)bytes + cut, len - cut);
	term_write(b, (const char *)bytes + cut, len - cut);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct term *t, *slow;
	const uint8_t *split;
	size_t first;
	int rows = 24, cols = 80;

	if (size >= 2) {
		rows = 1 + data[0] % 60;
		cols = 1 + data[1] % 200;
		data += 2;
		size -= 2;
	}
	t = term_new(rows, cols, 200);
	slow = term_new(rows, cols, 200);
	term_set_output(t, on_output, NULL);
	term_set_output(slow, on_output, NULL);
	term_set_fast_text(slow, false);
	split = memchr(data, 0xff, size);
	first = split != NULL ? (size_t)(split - data) : size;
	both(t, slow, data, first);
	same(t, slow);
	walk(t);
	if (split != NULL && size - first >= 3) {
		const uint8_t *tail = data + size - 2;
		term_resize(t, 1 + tail[0] % 60, 1 + tail[1] % 200);
		term_resize(slow, 1 + tail[0] % 60, 1 + tail[1] % 200);
		both(t, slow, split + 1, size - first - 3);
		same(t, slow);
		walk(t);
		term_resize(t, 1, 1);
		walk(t);
	}
	term_free(t);
	term_free(slow);
	return 0;
}
