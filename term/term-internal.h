/*
 * term-internal.h: what term/'s three emulator files share, and nothing
 * outside term/ includes (term.h is the API).  As libvterm layers its own
 * parser, state and screen:
 *   term-scan.c    the scanner in front of libvterm 0.1.4's parser
 *                  (held strings and cut characters, REP, the CSI guard,
 *                  C1 controls, fast text) and term_write();
 *   term-state.c   libvterm's state callbacks driving the grid, OSC,
 *                  modes, damage, lifetime and resize;
 *   term-output.c  text out of the grid: UTF-8, row runs, SGR, capture.
 */
#ifndef SANDMUX_TERM_INTERNAL_H
#define SANDMUX_TERM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vterm.h>

#include "grid.h"
#include "term.h"

/* libvterm 0.1.4's parser states, mirrored by the scanner in scan(). */
enum scan_state {
	SCAN_GROUND,
	SCAN_ESC,
	SCAN_CSI_LEADER,
	SCAN_CSI_ARGS,
	SCAN_CSI_INTERMED,
	SCAN_STRING, /* OSC or DCS */
	SCAN_ESC_IN_STRING,
};

struct probe {
	bool active;
	size_t len;
	char bytes[64];
};

#define KITTY_STACK_MAX 8
#define MARKS_MAX 512

/* An OSC 133 mark (a shell's prompt, command and output): its kind
 * ('A' prompt, 'B' command, 'C' output, 'D' end) and the main screen's
 * line it was on, counted from the first line the terminal ever had
 * (lines_out + the visible row), so it follows its line into history
 * without the grid knowing. */
struct term_mark {
	long line;
	char kind;
};

struct term_link {
	char *uri;
	char *params;
};

struct term {
	VTerm *vt;
	VTermState *state;
	int rows, cols;
	struct grid *main_grid, *alt_grid, *grid; /* grid: whichever is shown */

	struct term_style pen;
	struct grid_cell pen_cell; /* pen as a compact cell, ch left 0 */
	uint32_t compact_limit;	   /* highest char pen_cell can carry: 0xff, or 0 for RGB pens */

	bool cursor_visible;
	int mouse;
	bool bell;
	char *title;
	char *osc7; /* the last OSC 7 (working directory) as sent, or NULL */
	bool osc7_changed;
	char *notice;	    /* the last OSC 9 / 777 notification not yet taken */
	int progress_state; /* OSC 9;4: 0 none, 1 normal, 2 error, 3 busy, 4 paused */
	int progress;	    /* ... and its percentage */
	char *clipboard;    /* the last OSC 52 write, decoded, not yet taken */
	size_t clipboard_len;
	/* OSC 8 hyperlinks: link n (a style's link) is links[n - 1]. */
	struct term_link *links;
	int nlinks, links_cap;

	/* Where the last glyph left libvterm's cursor (see the top): its row,
	 * -2 once the cursor moved elsewhere; its column; and the column just
	 * past the glyph (the edge: a wrap is pending). */
	int wrap_row, wrap_col, wrap_end;
	/* A reflow put the cursor just past the end of a full row: the row
	 * where term_resize makes libvterm's wrap pending again, -1 none;
	 * while it does, putglyph writes nothing (replaying_wrap). */
	int pending_wrap_row;
	bool replaying_wrap;

	uint8_t *damaged; /* one flag per visible row */
	/* The cursor as it was when damage was last cleared: a cursor that
	 * moved (or was shown or hidden) with no cell changed is damage
	 * too, or nothing would tell the screen. */
	int cleared_cursor_row, cleared_cursor_col;
	bool cleared_cursor_visible;
	/* The cursor's row on the main screen when the alternate screen
	 * was shown: where libvterm puts it back (1049) when it goes, in
	 * the main screen's size of then. */
	int saved_row, saved_col;
	/* The main screen was resized when shown again: saved_row/col are
	 * where the cursor goes once libvterm has restored its own. */
	bool saved_moved;
	struct grid_line **row_lines; /* visible row -> its line in the shown grid */
	struct term_cell *row_buffer; /* one row of decoded cells, for moves */

	term_output_fn output;
	void *output_user;
	struct probe probe;

	char *held; /* an OSC/DCS string not yet terminated (see term_write) */
	size_t held_len, held_cap;

	/* The scanner in front of libvterm (see scan): it follows libvterm's
	 * parser state byte for byte, takes REP and long CSIs away from it,
	 * and knows when plain text may skip it. */
	int scan_state;	      /* enum scan_state */
	bool scan_plain;      /* no private marker or intermediate so far */
	bool scan_first_done; /* the first parameter has ended */
	long scan_count;      /* the first parameter (REP's count, a mode), capped */
	int scan_separators;  /* ';' and ':' seen in this CSI */
	int scan_leader;      /* the CSI's one leader byte, 0 none, -1 several */
	int scan_intermeds;   /* intermediate bytes in this ESC or CSI */
	char scan_intermed;   /* the first of them */
	bool scan_held_c2;    /* a write ended on 0xc2: is a C1 control next? */
	char utf8_cut[4];     /* a UTF-8 character the end of a write cut (see term_write) */
	size_t utf8_cut_len;
	/* What libvterm does to plain ASCII text, as far as the fast path
	 * needs to know (see fast_text). */
	int gl_set;	    /* SO/SI, LS2/LS3: which G set prints 7-bit text */
	bool g0_ascii;	    /* G0 prints ASCII as ASCII (not DEC graphics, UK) */
	bool single_shift;  /* SS2/SS3 waits for the next character */
	bool mode_insert;   /* IRM */
	bool mode_origin;   /* DECOM */
	bool mode_lrmargin; /* DECLRMM */
	bool mode_autowrap; /* DECAWM: at the edge, is a wrap pending? */
	/* Synchronized output (DECSET 2026), which libvterm 0.1.4 does not
	 * know: set, and how many times it was set (term_sync_count). */
	bool mode_sync;
	unsigned sync_count;
	/* OSC 133 marks, oldest first; lines_out: main-screen lines that
	 * went into history so far (so line - lines_out is a row). */
	struct term_mark marks[MARKS_MAX];
	int nmarks;
	long lines_out;
	/* How many times ED 3 emptied the main screen's history
	 * (term_history_clears). */
	unsigned long history_clears;
	/* The kitty keyboard protocol's flags, a stack per screen (main 0,
	 * alternate 1) as its spec has it (term_kitty_flags). */
	uint8_t kitty_stack[2][KITTY_STACK_MAX];
	int kitty_depth[2];
	long scan_value;      /* the CSI parameter being read, capped */
	long scan_last_value; /* the last parameter of the CSI that ended */
	bool scan_sync_param; /* 2026 among this CSI's parameters */
	/* libvterm decodes each run of text ("chunk": text between controls,
	 * within one vterm_input_write) with one decoder, picked by the
	 * chunk's first byte; G0's decoder keeps a partial UTF-8 sequence
	 * from one chunk to the next.  text_chunk: 0 between chunks, 1 in a
	 * chunk G0 decodes, 2 in any other.  g0_need: continuation bytes G0's
	 * decoder still waits for, -1 unknown. */
	int text_chunk;
	int g0_need;
	bool no_fast_text; /* tests: everything goes through libvterm */
	/* What fast_lines needs to know of libvterm's state and cannot ask:
	 * lines_known, the scroll region is the whole screen and no line is
	 * double-width (a whole-screen scroll showed it; any escape
	 * sequence but SGR, and a resize, forget it); tabs_default, the tab
	 * stops are libvterm's own, every 8 columns (no HTS or TBC seen). */
	bool lines_known;
	bool lines_forget; /* a sequence seen by the scanner: forget it once libvterm has it */
	bool tabs_default;
	char *padded;	   /* input copied with zero padding (see scan) */
	size_t padded_cap;
};

/* term-state.c */
/* libvterm's output callback: bytes for the program (answers, reports),
 * or for a probe under way. */
void term_on_output(const char *bytes, size_t len, void *user);
/* The grid line shown at a visible row. */
const struct grid_line *term_line(const struct term *term, int row);
/* The whole screen scrolled one row up, for fast_lines, with
 * the cache of row lines (term_line) and the damage left for
 * term_screen_scrolled to put right once after `count` of them. */
void term_scroll_screen(struct term *term, int cursor_row);
void term_screen_scrolled(struct term *term, int count);

/* libvterm's movecursor callback: the cursor moved to row, col.  The end
 * of a text run reports where its last glyph left the cursor: a wrap may
 * still follow.  Anywhere else, it may not. */
static inline void term_cursor_moved(struct term *term, int row, int col)
{
	if (row != term->wrap_row || col != term->wrap_col)
		term->wrap_row = -2;
}

/* term-scan.c */
/* Back to what RIS (ESC c) leaves in libvterm. */
void term_scan_reset_modes(struct term *term);

#endif
