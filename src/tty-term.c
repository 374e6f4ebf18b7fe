/*
 * tty-term: an outer terminal's capabilities, copied out of terminfo.
 *
 * ncurses keeps one current terminal (cur_term) per process.  The
 * server may have clients on several kinds of terminal at once, so the
 * entry is read, the strings this file needs are copied, and ncurses'
 * copy is deleted again before the call returns: nothing here depends
 * on cur_term afterwards.  tiparm expands a copied string by itself.
 *
 * Only this file includes ncurses' <term.h> (as <ncursesw/term.h>): its
 * name is the emulator's header's, and it defines macros such as
 * `lines` and `columns` that would rename code elsewhere.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ncursesw/curses.h>
#include <ncursesw/term.h>

#include "tty-term.h"
#include "xalloc.h"

/* terminfo's names of enum tty_cap, in its order. */
static const char *const cap_names[TTYC_COUNT] = {
    [TTYC_CUP] = "cup",	    [TTYC_CLEAR] = "clear", [TTYC_EL] = "el",	    [TTYC_SGR0] = "sgr0",
    [TTYC_BOLD] = "bold",   [TTYC_DIM] = "dim",	    [TTYC_SITM] = "sitm",   [TTYC_SMUL] = "smul",
    [TTYC_BLINK] = "blink", [TTYC_REV] = "rev",	    [TTYC_INVIS] = "invis", [TTYC_SMXX] = "smxx",
    [TTYC_SETAF] = "setaf", [TTYC_SETAB] = "setab", [TTYC_CIVIS] = "civis", [TTYC_CNORM] = "cnorm",
    [TTYC_SMCUP] = "smcup", [TTYC_RMCUP] = "rmcup", [TTYC_SMKX] = "smkx",   [TTYC_RMKX] = "rmkx",
    [TTYC_BEL] = "bel",
};

/* tigetstr answers (char *)-1 for a name that is not a string
 * capability, NULL for one this terminal lacks. */
static char *copy_string(const char *name)
{
	char *s = tigetstr((char *)name);

	if (s == NULL || s == (char *)-1 || *s == '\0')
		return NULL;
	return xstrdup(s);
}

static bool flag(const char *name)
{
	return tigetflag((char *)name) > 0;
}

static bool colorterm_rgb(const char *colorterm)
{
	return colorterm != NULL &&
	       (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0);
}

/* OSC 8: terminfo says so with tmux's Hls; few entries carry it yet,
 * so the terminals known to show links are named too.  A terminal not
 * known to is sent none: an OSC it does not know could show as text. */
static bool hyperlinks(const char *name)
{
	static const char *const known[] = {"xterm-kitty",   "foot",	  "wezterm",
					    "xterm-ghostty", "alacritty", "contour"};
	char *hls = tigetstr((char *)"Hls");

	if (hls != NULL && hls != (char *)-1)
		return true;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strncmp(name, known[i], strlen(known[i])) == 0)
			return true;
	return false;
}

/* setupterm with a descriptor of its own: it may look at the descriptor's
 * window size, and the client's terminal must not be touched here. */
static int read_entry(const char *name)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC), result = 0, rc;

	rc = setupterm((char *)name, fd, &result);
	if (fd >= 0)
		close(fd);
	return rc == OK && result == 1 ? 0 : -1;
}

int tty_term_load(struct tty_term *tt, const char *name, const char *colorterm,
		  struct sm_error *err)
{
	TERMINAL *entry;

	memset(tt, 0, sizeof(*tt));
	if (name == NULL || *name == '\0' || strlen(name) >= sizeof(tt->name)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "no usable TERM given");
		return -1;
	}
	if (read_entry(name) != 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "unknown terminal type '%s' (no terminfo entry)", name);
		return -1;
	}
	snprintf(tt->name, sizeof(tt->name), "%s", name);
	for (int i = 0; i < TTYC_COUNT; i++)
		tt->caps[i] = copy_string(cap_names[i]);
	tt->colors = tigetnum((char *)"colors");
	if (tt->colors < 0)
		tt->colors = 0;
	tt->rgb = flag("RGB") || flag("Tc") || tt->colors >= 0x1000000 || colorterm_rgb(colorterm);
	tt->am = flag("am");
	tt->xenl = flag("xenl");
	tt->bce = flag("bce");
	tt->hyperlinks = hyperlinks(name);
	entry = cur_term;
	set_curterm(NULL);
	del_curterm(entry);
	if (tt->caps[TTYC_CUP] == NULL) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "terminal type '%s' cannot move its cursor (no cup)", name);
		tty_term_free(tt);
		return -1;
	}
	return 0;
}

void tty_term_free(struct tty_term *tt)
{
	for (int i = 0; i < TTYC_COUNT; i++) {
		free(tt->caps[i]);
		tt->caps[i] = NULL;
	}
}

size_t tty_term_string(const struct tty_term *tt, enum tty_cap cap, int a, int b, int c, char *out,
		       size_t size)
{
	const char *s = tt->caps[cap];
	size_t len;

	if (s == NULL)
		return 0;
	if (strchr(s, '%') != NULL)
		s = tiparm(s, a, b, c);
	if (s == NULL)
		return 0;
	len = strlen(s);
	if (len >= size)
		return 0;
	memcpy(out, s, len + 1);
	return len;
}
