/*
 * tty: the writer of one client's terminal.
 *
 * The server composes what a client's terminal should show (panes,
 * borders, titles, status line, a mode's overlay) into the tty's
 * `want` cells and cursor, then calls tty_flush.  The tty keeps what it
 * last wrote (`shown`), so a flush writes only the cells that differ,
 * with the terminal's own sequences (tty-term.h).
 *
 * The terminal's descriptor is non-blocking and never waited on.  Bytes
 * the terminal has not taken yet wait in an output buffer; the caller
 * calls tty_write_out when the descriptor is writable.  A terminal that
 * falls behind by more than a screenful (the buffer over its bound) is
 * given nothing more: its damage is merged, and once the buffer has
 * drained the whole screen is written again from `want`, once.  A slow
 * or stopped terminal costs the server a bounded buffer and no time.
 *
 * Ownership: a struct tty owns its cells, its buffer and its tty_term;
 * it does not own the descriptor.
 */
#ifndef SANDMUX_TTY_H
#define SANDMUX_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "term.h"
#include "tty-term.h"

/* A cell as a tty keeps it, 4 bytes (a struct term_cell is 40, and a
 * tty holds two screens of them): its width, the low byte of its
 * character, and its look, an index into the tty's table of the
 * distinct looks its screens use (tty.c).  A look is what a run of text
 * has alike: the style, the combining marks and the rest of the
 * character (its block of 256 code points). */
struct tty_cell {
	uint32_t look : 22;
	uint32_t width : 2; /* 1, 2 for a wide char, 0 for the right half of one, 3 unknown */
	uint32_t low : 8;   /* the character's low byte */
};
/* Looks a tty may name: two screens' cells name at most two a cell. */
#define TTY_LOOKS_MAX (1u << 22)
struct tty_look {
	struct term_style style;
	uint32_t high;			    /* the base character but its low byte (ch >> 8) */
	uint32_t marks[TERM_MAX_CHARS - 1]; /* combining marks, 0-terminated */
};

struct tty {
	int fd;
	struct tty_term term;
	int rows, cols;
	struct tty_cell *want;	/* rows * cols: what the terminal should show */
	struct tty_cell *shown; /* what it shows, as far as the tty knows */
	bool *dirty;		/* rows: want may differ from shown there */
	/* The looks the cells name (look 0: a blank's, the default style,
	 * no marks), each once: open addressing by hash, slots hold look + 1, 0 free.
	 * Looks no cell names any more are dropped when the table fills. */
	struct tty_look *looks;
	uint32_t nlooks, looks_cap;
	uint32_t *look_slots;
	uint32_t nslots;
	struct term_style cached_style; /* the last style looked up without marks */
	uint32_t cached_high;		/* ... with that high part */
	uint32_t cached_look;
	bool cached;
	int want_row, want_col;
	bool want_cursor;

	/* The terminal's state as last written; -1 or false: unknown. */
	int row, col;
	int cursor_shown; /* -1 unknown, 0 hidden, 1 visible */
	struct term_style pen;
	bool pen_known;
	int link; /* the OSC 8 link open on the terminal (tty_link's); -1 unknown */

	/* OSC 8 links the cells name (style.link n is links[n - 1]): each
	 * "PARAMS;URI", checked when added. */
	char **links;
	int nlinks;
	uint16_t *link_slots; /* open addressing by the entry's hash: link ids, 0 free */

	char *out; /* bytes not yet taken by the terminal: [sent, len) */
	size_t len, cap, sent;
	size_t bound;
	bool blocked; /* over the bound: nothing added until drained */
	bool redraw;  /* shown is unknown: the next flush writes every cell */
	bool started; /* between tty_start and tty_stop: flushes draw */

	/* For tests and benchmarks. */
	uint64_t bytes_written;
	unsigned redraws;
};

/* A tty over descriptor `fd` (made non-blocking) for the terminal `tt`
 * (taken over: the caller's copy is emptied), rows x cols. */
struct tty *tty_new(int fd, struct tty_term *tt, int rows, int cols);
void tty_free(struct tty *tty);

/* Take the terminal: its alternate screen and keypad mode; the next
 * flush clears it and draws.  tty_stop gives it back (attributes off,
 * cursor shown, the main screen again) and flushes draw nothing until
 * the next tty_start (a client stopped by SIGTSTP).  Both only queue
 * bytes. */
void tty_start(struct tty *tty);
void tty_stop(struct tty *tty);

/* New size: want is blank again, and the next flush redraws. */
void tty_resize(struct tty *tty, int rows, int cols);
/* The terminal's content is unknown (resumed after a stop, redraw
 * asked): the next flush writes every cell. */
void tty_invalidate(struct tty *tty);

/* Composing: cells of `want`.  Out of range is ignored.  A width-2 cell
 * also sets its right half; the last column cannot hold one. */
void tty_set_cell(struct tty *tty, int row, int col, const struct term_cell *cell);
/* n blank cells with style (NULL: default) from row, col. */
void tty_fill(struct tty *tty, int row, int col, int n, const struct term_style *style);
/* UTF-8 text at row, col in style, cut at the right edge; returns the
 * columns used. */
int tty_put_text(struct tty *tty, int row, int col, const char *utf8,
		 const struct term_style *style);
void tty_set_cursor(struct tty *tty, int row, int col, bool visible);
/* The id a cell's style.link gives an OSC 8 link to uri with params
 * (OSC 8's "id=...", NULL or "" for none), for this tty; 0 (no link: the
 * text is drawn unlinked) when the terminal shows no links, when the
 * URI is not 1..TTY_LINK_URI_MAX bytes of printable ASCII without
 * spaces, when params are over TTY_LINK_PARAMS_MAX or hold anything
 * but printable ASCII without ';', or past TTY_LINKS_MAX links.  A pane
 * chose the text: nothing else can reach the terminal inside an OSC. */
#define TTY_LINK_URI_MAX 2048
#define TTY_LINK_PARAMS_MAX 256
#define TTY_LINKS_MAX 4096
uint16_t tty_link(struct tty *tty, const char *uri, const char *params);
/* Columns a character takes (wcwidth in UTF-8, whatever the process's
 * locale): 0 for a combining mark, 2 for a wide one, else 1. */
int tty_char_width(uint32_t cp);

/* The cell of `want` at row, col (in range), as a struct term_cell. */
void tty_want_cell(const struct tty *tty, int row, int col, struct term_cell *cell);

/* Write the difference between want and shown (unless blocked), then
 * as much of the buffer as the terminal takes. */
void tty_flush(struct tty *tty);
/* Queue bytes as they are (a bell, a mode change), even while
 * blocked: they are few. */
void tty_raw(struct tty *tty, const char *bytes, size_t len);
/* Write what the terminal takes now.  Returns 0 when the buffer is
 * empty, 1 when bytes wait (call again when writable), -1 when the
 * terminal is gone (EIO, EPIPE, ...).  A blocked tty that drains is
 * redrawn whole. */
int tty_write_out(struct tty *tty);
/* Bytes waiting for the terminal. */
size_t tty_pending(const struct tty *tty);

/* A colour as this terminal can show it: palette colours beyond its
 * count and RGB on a terminal without it become the nearest palette
 * colour it has; none at all on a monochrome one. */
struct term_color tty_color_reduce(const struct tty_term *tt, const struct term_color *color);

#endif
