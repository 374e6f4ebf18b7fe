/*
 * agent-frames: the output of an agent's full-screen TUI, for
 * tests/bench/agent.sh.  Every frame is the whole screen drawn again
 * from its top-left corner, as an agent's UI redraws: a header bar, a
 * conversation of coloured lines (prose, tool calls, code with syntax
 * colours, diffs on green and red), and a status line with a spinner,
 * every row COLS columns wide in colour.  Deterministic: the same
 * arguments give the same bytes.
 *
 *   agent-frames some|all SYNC FRAMES COLS ROWS MARKER
 *     some  about a tenth of the rows change from one frame to the
 *           next: the header's counters, the status line, and three
 *           conversation lines replaced (an answer being written);
 *     all   every row changes: the conversation scrolls by one line a
 *           frame, under a header and status line that change too.
 *     SYNC  1: each frame between CSI ? 2026 h and CSI ? 2026 l
 *           (synchronized output), 0: bare.
 *     MARKER  written at the end of the last frame's status line, in
 *           columns where no earlier frame has an upper-case letter or
 *           punctuation other than '.', so that a terminal that writes
 *           only the cells that changed writes all of it, in one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL 509 /* conversation lines to draw from (a prime) */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rng(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static const char *const words[] = {
	"the",	   "server",  "reads",	 "a",	  "pane",     "buffer",	 "and",	   "writes",
	"only",	   "what",    "changed", "to",	  "terminal", "test",	 "passes", "function",
	"returns", "error",   "config",	 "file",  "is",	      "missing", "build",  "with",
	"make",	   "check",   "we",	 "should", "update",  "handler", "for",	   "resize",
	"event",   "queue",   "client",	 "socket", "grid",    "cells",	 "row",	   "column",
};
#define NWORDS (sizeof words / sizeof words[0])

static const char *const code_words[] = {
	"static", "int", "return", "if", "for", "struct", "const", "char", "void", "while",
};
#define NCODE (sizeof code_words / sizeof code_words[0])

/* A row being built: its bytes and how many columns it covers. */
struct row {
	char buf[4096];
	size_t len;
	int cols;
};

static void put(struct row *r, const char *s)
{
	size_t n = strlen(s);

	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

/* Text s, which covers `width` columns. */
static void text(struct row *r, const char *s, int width)
{
	put(r, s);
	r->cols += width;
}

static void sgr(struct row *r, const char *params)
{
	put(r, "\033[");
	put(r, params);
	put(r, "m");
}

/* Words in the colour given, up to `limit` columns. */
static void prose(struct row *r, int limit)
{
	while (r->cols < limit) {
		const char *w = words[rng(NWORDS)];
		int n = (int)strlen(w);

		if (r->cols + n + 1 > limit)
			break;
		if (rng(9) == 0) {
			sgr(r, "38;5;75");
			text(r, w, n);
			sgr(r, "39");
		} else {
			text(r, w, n);
		}
		text(r, " ", 1);
	}
}

/* Pad with spaces in the current colours to `cols` columns. */
static void pad(struct row *r, int cols)
{
	while (r->cols < cols)
		text(r, " ", 1);
}

static void pool_line(struct row *r, int cols, int i)
{
	char num[32];

	r->len = 0;
	r->cols = 0;
	switch (rng(6)) {
	case 0: /* a tool call */
		sgr(r, "38;5;114");
		text(r, "\342\227\217 ", 2); /* ● */
		sgr(r, "1;38;5;255");
		text(r, "Bash", 4);
		sgr(r, "22;38;5;250");
		text(r, "(", 1);
		prose(r, cols / 3);
		text(r, ")", 1);
		sgr(r, "38;5;244");
		text(r, "  \342\216\277  ", 5); /* ⎿ */
		prose(r, cols - 2);
		break;
	case 1: /* code with syntax colours */
		snprintf(num, sizeof num, "%5d ", i + 1);
		sgr(r, "38;5;240");
		text(r, num, 6);
		while (r->cols < cols - 14) {
			const char *w = code_words[rng(NCODE)];

			sgr(r, rng(2) ? "38;5;204" : "38;5;81");
			text(r, w, (int)strlen(w));
			sgr(r, "38;5;252");
			text(r, " ", 1);
			if (rng(4) == 0) {
				sgr(r, "38;5;186");
				text(r, "\"str\" ", 6);
			}
		}
		break;
	case 2: /* a diff line: added */
	case 3: /* or removed */
		snprintf(num, sizeof num, "%5d %c ", i + 1, rng(2) ? '+' : '-');
		sgr(r, num[6] == '+' ? "38;5;255;48;5;22" : "38;5;255;48;5;52");
		text(r, num, 8);
		prose(r, cols - 2);
		break;
	default: /* the agent's prose, a word or two highlighted */
		sgr(r, "38;5;252");
		text(r, "  ", 2);
		prose(r, cols - 2);
		break;
	}
	pad(r, cols);
	sgr(r, "0");
}

static void header(struct row *r, int cols, int frame)
{
	char s[256];
	int n;

	r->len = 0;
	r->cols = 0;
	sgr(r, "1;38;5;255;48;5;236");
	n = snprintf(s, sizeof s, " agent  model opus  frame %06d  tokens %07d  cost %d.%03d  context %d%% ", frame,
		     1000 + frame * 37, frame / 1000, frame % 1000, frame * 100 / 100000);
	text(r, s, n);
	sgr(r, "22;38;5;244");
	pad(r, cols);
	sgr(r, "0");
}

static void status(struct row *r, int cols, int frame, const char *marker)
{
	static const char *const spin[] = { "\302\267", "\342\234\242", "\342\234\263", "\342\234\266",
					    "\342\234\273", "\342\234\275" }; /* · ✢ ✳ ✶ ✻ ✽ */
	char s[256];
	int n, right = (int)strlen(marker) + 2;

	r->len = 0;
	r->cols = 0;
	sgr(r, "38;5;209");
	text(r, " ", 1);
	text(r, spin[frame % 6], 1);
	sgr(r, "38;5;250");
	n = snprintf(s, sizeof s, " thinking. (%ds, %d.%dk tokens, esc to interrupt)", frame / 10, frame / 10,
		     frame % 10);
	text(r, s, n);
	pad(r, cols - right);
	sgr(r, "38;5;244");
	if (marker != NULL && marker[0] != 0) {
		text(r, marker, (int)strlen(marker));
	} else {
		/* lower case and digits: never a character of the marker */
		for (int k = 0; k < right - 2; k++) {
			s[k] = (char)(k % 3 == 2 ? ' ' : 'a' + (frame + k) % 26);
		}
		s[right - 2] = 0;
		text(r, s, right - 2);
	}
	pad(r, cols);
	sgr(r, "0");
}

int main(int argc, char **argv)
{
	static struct row pool[POOL], head, foot;
	int frames, cols, rows, all, sync, shown[256];
	const char *marker;

	if (argc != 7 || (strcmp(argv[1], "some") != 0 && strcmp(argv[1], "all") != 0)) {
		fprintf(stderr, "usage: agent-frames some|all SYNC FRAMES COLS ROWS MARKER\n");
		return 2;
	}
	all = strcmp(argv[1], "all") == 0;
	sync = atoi(argv[2]);
	frames = atoi(argv[3]);
	cols = atoi(argv[4]);
	rows = atoi(argv[5]);
	marker = argv[6];
	if (cols < 80 || cols > 400 || rows < 10 || rows > 256) {
		fprintf(stderr, "agent-frames: COLS 80-400, ROWS 10-256\n");
		return 2;
	}
	for (int i = 0; i < POOL; i++)
		pool_line(&pool[i], cols, i);
	for (int y = 0; y < rows - 2; y++)
		shown[y] = y;
	for (int f = 1; f <= frames; f++) {
		if (all) {
			for (int y = 0; y < rows - 2; y++)
				shown[y] = (f + y) % POOL;
		} else {
			for (int k = 0; k < 3; k++)
				shown[rng(rows - 2)] = rng(POOL);
		}
		header(&head, cols, f);
		status(&foot, cols, f, f == frames ? marker : "");
		if (sync)
			fputs("\033[?2026h", stdout);
		fputs("\033[H", stdout);
		fwrite(head.buf, 1, head.len, stdout);
		for (int y = 0; y < rows - 2; y++) {
			fputs("\r\n", stdout);
			fwrite(pool[shown[y]].buf, 1, pool[shown[y]].len, stdout);
		}
		fputs("\r\n", stdout);
		fwrite(foot.buf, 1, foot.len, stdout);
		if (sync)
			fputs("\033[?2026l", stdout);
	}
	return 0;
}
