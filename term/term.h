/*
 * term: one terminal emulator instance.
 *
 * Bytes written by a program go in with term_write(); libvterm's *state*
 * layer parses them and its callbacks drive sandmux's own compact grid
 * (grid.h).  The grid keeps the visible screen as a ring of rows, so a
 * full-width scroll is O(1), and pushes rows that leave the top into a
 * bounded scrollback kept in the same compact form.
 *
 * term/ knows nothing about panes, sockets or JSON: callers read cells and
 * damage back through this API and decide what to do with them.
 *
 * Ownership: a struct term owns its VTerm, its grids and its scrollback;
 * term_free() releases all of them.
 */
#ifndef SANDMUX_TERM_H
#define SANDMUX_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Colour: TERM_COLOR_DEFAULT, a palette index 0..255, or RGB. */
enum term_color_kind { TERM_COLOR_DEFAULT = 0, TERM_COLOR_PALETTE, TERM_COLOR_RGB };
struct term_color {
	uint8_t kind; /* enum term_color_kind */
	uint8_t index; /* palette index when kind == TERM_COLOR_PALETTE */
	uint8_t r, g, b; /* when kind == TERM_COLOR_RGB */
};

/* Attribute bits of struct term_style.attrs. */
#define TERM_ATTR_BOLD 0x01
#define TERM_ATTR_ITALIC 0x02
#define TERM_ATTR_UNDERLINE 0x04
#define TERM_ATTR_REVERSE 0x08
#define TERM_ATTR_BLINK 0x10
#define TERM_ATTR_STRIKE 0x20
#define TERM_ATTR_DIM 0x40
#define TERM_ATTR_CONCEAL 0x80

struct term_style {
	struct term_color fg, bg;
	uint8_t attrs;
	uint16_t link; /* an OSC 8 hyperlink (term_link), 0 none */
};

#define TERM_MAX_CHARS 6 /* base character plus combining marks */

/* A decoded cell as callers see it (the grid stores cells far smaller). */
struct term_cell {
	uint32_t chars[TERM_MAX_CHARS]; /* 0-terminated; chars[0]==0: blank */
	uint8_t width; /* 1, 2 for a wide char, 0 for the right half of one */
	struct term_style style;
};

/* Modes and properties a multiplexer needs to honour. */
struct term_modes {
	bool cursor_visible;
	bool alt_screen;
	bool app_cursor_keys;
	bool app_keypad;
	bool bracketed_paste;
	int mouse; /* 0 none, 1 click, 2 drag, 3 any-motion */
	bool mouse_sgr;
};

/* Bytes the emulator wants to send back to the program (replies to
 * queries such as DA or DSR, and encoded keys). */
typedef void (*term_output_fn)(const char *bytes, size_t len, void *user);

struct term;

struct term *term_new(int rows, int cols, int scrollback_limit);
void term_free(struct term *term);
void term_set_output(struct term *term, term_output_fn fn, void *user);

/* Feed program output; never fails, any byte sequence is acceptable. */
void term_write(struct term *term, const char *bytes, size_t len);
/* Plain text skips libvterm where the outcome is the same (on by
 * default); off, every byte goes through libvterm.  For tests that
 * compare the two, and for benchmarks. */
void term_set_fast_text(struct term *term, bool on);
/* Resize; rows/cols are clamped to 1..1000.  The main screen and its
 * history reflow to the new width as in tmux (lines the program's text
 * wrapped rejoin, long lines split, the cursor stays on its character);
 * the alternate screen is cut or padded. */
void term_resize(struct term *term, int rows, int cols);
void term_set_scrollback_limit(struct term *term, int lines);

int term_rows(const struct term *term);
int term_cols(const struct term *term);
/* Lines currently held in scrollback (0..limit). */
int term_history_lines(const struct term *term);
/* Main-screen lines that went into history so far (a resize's reflow
 * takes some back): a reader holding a history row as it was (copy
 * mode) finds where it went, row - (now - then). */
long term_lines_out(const struct term *term);
/* How many times the program emptied the history (ED 3, as clear(1)
 * sends): a reader holding history lines (copy mode) lets them go. */
unsigned long term_history_clears(const struct term *term);

/* Read one cell.  row 0..rows-1 is the visible screen; negative rows
 * reach into scrollback (-1 is the newest history line).  Cells past a
 * row's stored length read as blanks.  Returns false if row/col is out of
 * range. */
bool term_get_cell(const struct term *term, int row, int col, struct term_cell *out);

/* A row's cells as a search reads them: each cell's first character (a
 * blank as a space) with the column it starts at, columns 0..cols-1,
 * the right half of a wide character left out (as term_get_cell reads
 * them, cells out of range as blanks).  A history row is read packed,
 * never unpacked.  Returns how many; -1 if the row is out of range. */
int term_row_chars(const struct term *term, int row, int cols, uint32_t *chars, int *columns);

/* Visit a row as runs of equal style: fn gets UTF-8 text for each run.
 * Trailing blanks with default style are dropped.  Wide characters appear
 * once in the text (their continuation cell is skipped).  Returns false
 * if the row is out of range. */
typedef void (*term_run_fn)(const struct term_style *style, const char *utf8, size_t len,
			    int col, int cells, void *user);
bool term_row_runs(const struct term *term, int row, term_run_fn fn, void *user);

/* Text of rows [start, end] (inclusive; negative = scrollback), one line
 * per row, trailing blanks trimmed, '\n' after each.  With ansi, SGR
 * sequences reproduce colours and attributes, and OSC 8 the hyperlinks
 * (closed at the end of each line).  Caller frees. */
char *term_capture(const struct term *term, int start, int end, bool ansi, size_t *len_out);

void term_cursor(const struct term *term, int *row, int *col);
/* Every mode; the keyboard ones are found by asking libvterm to encode
 * a key (thousands of instructions).  The two below are read directly:
 * the echo patch and the frame need only the cursor's visibility, the
 * pane's property check only the mouse mode. */
void term_get_modes(const struct term *term, struct term_modes *out);
bool term_cursor_visible(const struct term *term);
int term_mouse_mode(const struct term *term); /* as term_modes.mouse */
/* Window title from OSC 0/2, "" if none.  Valid until the next write. */
const char *term_title(const struct term *term);

/* Damage: which visible rows changed since the last term_damage_clear(),
 * and whether the cursor moved or was shown or hidden since then (a
 * cursor key in a shell or an editor changes no cell at all). */
bool term_row_damaged(const struct term *term, int row);
bool term_any_damage(const struct term *term);
bool term_cursor_damaged(const struct term *term);
void term_damage_clear(struct term *term);

/* Keys.  A key event is either a named key or a Unicode character, with
 * modifiers; it is encoded for the terminal's current modes (application
 * cursor keys, etc.) and delivered through the output callback. */
#define TERM_MOD_SHIFT 0x1
#define TERM_MOD_ALT 0x2
#define TERM_MOD_CTRL 0x4

enum term_key_kind { TERM_KEY_CHAR, TERM_KEY_NAMED };
struct term_key {
	int kind; /* enum term_key_kind */
	uint32_t codepoint; /* TERM_KEY_CHAR */
	int named; /* a VTermKey value for TERM_KEY_NAMED */
	int mods; /* TERM_MOD_* */
};

/* Parse a tmux-style key name: "Enter", "Up", "F5", "C-c", "M-x",
 * "S-Tab", "BSpace", "Escape", "Space", "PageUp"... or a single UTF-8
 * character.  Returns false if the name is not a key. */
bool term_key_parse(const char *name, struct term_key *out);
/* Canonical name of a key (for the protocol), written to buf. */
void term_key_name(const struct term_key *key, char *buf, size_t size);
/* What a user's terminal sent, decoded (the server reads a client's
 * terminal): one key, one mouse report (SGR, mode 1006, or the older
 * ESC [ M encoding), or a sequence no key has, to be dropped. */
enum term_input_kind { TERM_INPUT_KEY, TERM_INPUT_MOUSE, TERM_INPUT_FOCUS, TERM_INPUT_OTHER };
struct term_input {
	int kind; /* enum term_input_kind */
	struct term_key key;
	/* TERM_INPUT_MOUSE: button 1-3, 4 and 5 the wheel, 0 motion alone;
	 * row and col from 0; mods TERM_MOD_*. */
	int button, row, col, mods;
	bool pressed; /* ... TERM_INPUT_FOCUS (CSI I, CSI O: DECSET 1004): true for in */
};
/* Decode what starts at bytes: returns its length, or 0 when bytes are
 * the start of a sequence not complete yet.  Call again with more, or
 * with `final` once no more came in time (the escape timeout): a lone
 * ESC is then Escape, and a cut sequence its bytes as keys. */
size_t term_input_decode(const char *bytes, size_t len, bool final, struct term_input *out);
void term_send_key(struct term *term, const struct term_key *key);
/* Literal text, as typed; UTF-8. */
void term_send_text(struct term *term, const char *utf8, size_t len);
/* Paste, wrapped in bracketed-paste markers when the program asked. */
void term_send_paste(struct term *term, const char *utf8, size_t len);
/* Mouse report if the program enabled reporting; returns false if not. */
bool term_send_mouse(struct term *term, int row, int col, int button, bool pressed, int mods);

/* One code point as UTF-8 into out (room for 4 bytes); returns its length. */
size_t term_utf8_encode(uint32_t cp, char *out);
/* The one UTF-8 decoder: the character at s (len bytes available) into
 * *out; returns its length, or 0 when s does not start with a whole,
 * well-formed sequence (overlong forms included: they are how filters
 * get bypassed). */
size_t term_utf8_decode(const char *s, size_t len, uint32_t *out);
/* The one SGR builder: the sequence that sets exactly style from a reset
 * ("\033[0;1;31m"), written to out; returns its length.  64 bytes hold
 * any style.  capture --ansi, the feed and events --pretty use it. */
#define TERM_SGR_MAX 64
size_t term_style_sgr(const struct term_style *style, char *out, size_t size);

/* Memory held by the grids and scrollback, in bytes (for benchmarks). */
size_t term_memory(const struct term *term);

/* The last OSC 7 the program sent (a working directory as a URL,
 * "file://host/path"), as sent, "" if none: untrusted text, any program
 * can send it.  term_take_osc7_change: whether it changed since the last
 * call; clears that. */
const char *term_osc7(const struct term *term);
bool term_take_osc7_change(struct term *term);

/* The kitty keyboard protocol's flags the program pushed for the screen
 * shown (CSI > FLAGS u, CSI = FLAGS ; MODE u; popped with CSI < u).
 * Only the first, "disambiguate escape codes", changes what
 * term_send_key sends (term/keys.c). */
#define TERM_KITTY_DISAMBIGUATE 0x1
int term_kitty_flags(const struct term *term);
/* Bytes to the program as the keyboard's (keys.c's own encodings). */
void term_send_raw(struct term *term, const char *bytes, size_t len);

/* OSC 133 (a shell's prompt marks): the rows of the last command's
 * output, from its "C" mark to the row before the next "D" or "A" (or
 * the cursor's row while it runs); negative rows are history.  start >
 * end: it printed nothing.  False when no output was ever marked.  A
 * width change rewraps the lines and forgets the marks. */
bool term_last_command(const struct term *term, int *start, int *end);
/* The rows (oldest first, negative: history) where prompts began (OSC
 * 133 "A"), at most max; returns how many. */
int term_prompt_rows(const struct term *term, int *rows, int max);

/* The terminal gained or lost the user's focus: a program that asked
 * for focus events (DECSET 1004) gets CSI I or CSI O through the output
 * callback; others get nothing. */
void term_focus(struct term *term, bool in);

/* Synchronized output (DECSET 2026): whether the program is drawing an
 * update it wants shown whole, between CSI ? 2026 h and CSI ? 2026 l (or
 * RIS); and how many updates it started so far, so a caller that looks
 * only now and then still sees that one ended and another began. */
bool term_synchronized(const struct term *term);
unsigned term_sync_count(const struct term *term);

/* OSC 8 hyperlinks.  A cell's style.link names one of the terminal's
 * links: its URI and its parameters (OSC 8's "id=..."), or NULL for 0
 * or an unknown link.  Pane-chosen text, but never a control: a link is
 * kept only when its URI is 1..TERM_LINK_URI_MAX bytes of printable
 * ASCII without spaces (URIs percent-encode the rest) and its parameters
 * are at most TERM_LINK_PARAMS_MAX such bytes without ';'; otherwise
 * its text is kept unlinked.  At most TERM_LINKS_MAX distinct links per
 * terminal: text linked past that is kept unlinked. */
#define TERM_LINK_URI_MAX 2048
#define TERM_LINK_PARAMS_MAX 256
#define TERM_LINKS_MAX 4096
const char *term_link(const struct term *term, uint16_t link, const char **params);

/* The program's last notification (OSC 9 "TEXT", OSC 777 "notify;TITLE;
 * BODY" as "TITLE: BODY"), at most ~200 bytes, since the last call, or
 * NULL; the caller frees it.  Untrusted text: show it sanitised. */
char *term_take_notice(struct term *term);
/* OSC 9;4 progress: its state (0 none, 1 normal, 2 error, 3
 * indeterminate, 4 paused) and percentage (0..100). */
int term_progress(const struct term *term, int *percent);

/* The program's last clipboard write (OSC 52), decoded, since the last
 * call, or NULL; the caller frees it and decides where it may go (a
 * sandboxed program writing the host's clipboard is a way out).  At
 * most 48 KiB: a longer OSC string is cut, its base64 then dropped. */
char *term_take_clipboard(struct term *term, size_t *len);

/* Whether the program rang the bell (BEL) since the last call; clears it. */
bool term_take_bell(struct term *term);

/* The libvterm instance behind a term, for term/keys.c only (it encodes
 * keys with libvterm's keyboard functions).  VTerm is struct VTerm. */
struct VTerm;
struct VTerm *term_vterm(struct term *term);

#endif
