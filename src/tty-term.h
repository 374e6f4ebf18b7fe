/*
 * tty-term: what one outer terminal can do, read from terminfo.
 *
 * A client names its terminal (TERM) when it hands it over; the server
 * reads that entry once with ncurses' low-level API (setupterm,
 * tigetstr, tigetnum, tigetflag) and keeps its own copy of the strings
 * the tty writer needs, so that several clients with different
 * terminals never share ncurses' one current terminal.  Parameterised
 * strings are expanded with tiparm when written.
 *
 * Ownership: a struct tty_term owns its strings; tty_term_free releases
 * them.
 */
#ifndef SANDMUX_TTY_TERM_H
#define SANDMUX_TTY_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The capabilities the tty writer uses, by terminfo name. */
enum tty_cap {
	TTYC_CUP,   /* cursor to row, column */
	TTYC_CLEAR, /* clear the screen, cursor home */
	TTYC_EL,    /* clear to the end of the line */
	TTYC_SGR0,  /* every attribute off */
	TTYC_BOLD,
	TTYC_DIM,
	TTYC_SITM, /* italic */
	TTYC_SMUL, /* underline */
	TTYC_BLINK,
	TTYC_REV,
	TTYC_INVIS,
	TTYC_SMXX,  /* strike-through (extended) */
	TTYC_SETAF, /* foreground palette colour */
	TTYC_SETAB, /* background palette colour */
	TTYC_CIVIS, /* cursor invisible */
	TTYC_CNORM, /* cursor normal */
	TTYC_SMCUP, /* the alternate screen, for the session's life */
	TTYC_RMCUP,
	TTYC_SMKX, /* keypad transmit */
	TTYC_RMKX,
	TTYC_BEL,
	TTYC_COUNT
};

struct tty_term {
	char name[64];
	char *caps[TTYC_COUNT]; /* NULL when the terminal lacks one */
	int colors;		/* 0 monochrome, 8, 16, 256, ... */
	bool rgb;		/* takes 24-bit colour (RGB or Tc flag, COLORTERM) */
	bool am;		/* auto margins: the last column wraps */
	bool xenl;		/* ... but only at the next character (the last cell is safe) */
	bool bce;		/* erases in the current background colour */
	bool ascii;		/* the client's locale is not UTF-8: ASCII only */
	bool hyperlinks;	/* shows OSC 8 links (terminfo's Hls, or a terminal known to) */
};

/* Read terminfo's entry for `name`.  `colorterm` is the client's
 * COLORTERM ("truecolor" or "24bit" mean RGB whatever terminfo says),
 * NULL if unset.  A terminal without cursor addressing is refused:
 * SM_ERR_INVALID with the reason. */
int tty_term_load(struct tty_term *tt, const char *name, const char *colorterm,
		  struct sm_error *err);
void tty_term_free(struct tty_term *tt);

/* A capability expanded with up to three parameters, into out (size
 * bytes); returns the length, 0 when the terminal lacks it or it does
 * not fit. */
size_t tty_term_string(const struct tty_term *tt, enum tty_cap cap, int a, int b, int c, char *out,
		       size_t size);

#endif
