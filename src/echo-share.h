/*
 * echo-share: the page a client shares with the server so the server may
 * write a pane's echo straight to the client's terminal.
 *
 * Normally pane output reaches the terminal in two hops: the server
 * sends a frame, the client draws it.  For a keystroke's echo that second
 * hop is a process wake-up on the critical path (tmux has none: its
 * server owns the terminal).  With this page the server writes small
 * updates of plain cells itself ("patches"), at the screen position the
 * client published, and the frame still follows: the client repaints the
 * patched rows from it, so the screen always converges on the client's
 * own drawing.  A cursor key changes no cell: its patch is the cursor's
 * move alone, as fast as an echo.  Showing or hiding the cursor is left
 * to the client (ncurses remembers which it did).
 *
 * The terminal has one writer at a time.  The client holds the page
 * (drawing = 1) whenever it is not asleep in poll(2): every byte it
 * writes, through ncurses or not, is written while it holds it.  The
 * server takes it only when free, never waits for it, and skips the patch
 * when it is busy.  Two flags and sequentially consistent atomics
 * (Dekker's mutual exclusion, one side never waiting):
 *
 *   server: patching = 1; if (drawing) { patching = 0; skip } ... patching = 0
 *   client: drawing = 1; while (patching) wait; ... drawing = 0
 *
 * A patch is written only on a terminal that shows every line the
 * server has sent the client (lines_drawn): the patch and the client's
 * next drawing then start from the same screen.
 *
 * Everything else in the page is written by the client and read by the
 * server only inside their turns.  The server checks every field: the page
 * is the client's, and a client must not be able to make the server write
 * outside the region it drew.
 *
 * The page is a file in the server's private socket directory; the client
 * makes it, the server opens it on attach and unlinks it.
 */
#ifndef SANDMUX_ECHO_SHARE_H
#define SANDMUX_ECHO_SHARE_H

#include <stdatomic.h>
#include <stdint.h>

#define ECHO_SHARE_MAGIC 0x6f686365u /* "echo" */
#define ECHO_SHARE_VERSION 3
#define ECHO_SHARE_PANES 64

struct echo_region {
	int32_t pane;	    /* pane id */
	int32_t x, y;	    /* screen position of its top-left cell */
	int32_t cols, rows; /* its size as the client drew it */
};

struct echo_share {
	uint32_t magic, version;
	_Atomic uint32_t drawing;  /* the client may be writing to the terminal */
	_Atomic uint32_t patching; /* the server is */
	/* Written by the client in its turn: */
	uint32_t enabled;      /* 0: never patch (no terminal, or leaving) */
	uint32_t use_color;    /* 0: NO_COLOR or a terminal without colours */
	uint32_t ncolors;      /* palette size (8, 16, 256, ...) */
	uint32_t direct_color; /* RGB may be sent as is */
	uint32_t screen_cols, screen_rows;
	uint32_t erase_chars; /* the terminal has ECH (CSI n X, terminfo ech) */
	int32_t cursor_pane;  /* the pane whose cursor the client shows, or -1 */
	int32_t focus_pane;   /* the pane the cursor is for, shown or hidden, or -1 */
	uint32_t nregions;
	struct echo_region regions[ECHO_SHARE_PANES];
	/* Lines of the connection the client has handled and drawn.  The
	 * server patches only when that is every line it has sent: a frame
	 * still on its way is drawn later, and ncurses may then scroll what
	 * the patch wrote to a row where the client believes other cells
	 * are (the prompt over a command line that had scrolled up). */
	uint64_t lines_drawn;
	/* Written by the server in its turn: */
	uint64_t patches;	/* patches written, for tests and curiosity */
	uint32_t cursor_moved;	/* a patch left the cursor at: */
	int32_t cursor_y, cursor_x; /* (screen position); the client tells ncurses */
};

#endif
