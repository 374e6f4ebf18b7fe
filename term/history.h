/*
 * history: the scrollback of one screen, a ring of packed lines.
 *
 * A line leaving the screen is packed: its cells become runs of one
 * style each, a run of simple cells holds only their character bytes
 * (a plain ASCII line is its text and a few bytes of header), a run of
 * extended cells (wide, combining, non-Latin-1, RGB) holds their entries
 * whole, and the wrapped mark rides along.  Packing is exact: unpacking
 * gives back every cell, style and mark as it was.
 *
 * Lines are unpacked only when something reads their cells: a reader
 * of one line (copy mode's drawing, a capture with styles) gets a view
 * the history keeps and reuses (history_get; one line at a time), a
 * resize or reflow takes lines back whole (history_pop, history_unpack)
 * and packs them again.  What reads only characters reads the runs
 * themselves: a search (history_chars), a plain capture (history_text).
 */
#ifndef SANDMUX_HISTORY_H
#define SANDMUX_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grid_line;
struct history_packed;

struct history {
	struct history_packed **lines; /* ring of `cap` slots */
	int cap;		       /* slots allocated (grows geometrically up to limit) */
	int limit;
	int count;
	int start; /* slot of the oldest line */
	/* What history_get last unpacked: not part of the history's value,
	 * so a const history may refill it. */
	struct history_view *view;
};

void history_init(struct history *history, int limit);
void history_free(struct history *history);

/* Pack a copy of the line (trimmed of trailing blanks unless wrapped) as
 * the newest; when full, the oldest is dropped. */
void history_push(struct history *history, const struct grid_line *line);
/* Take the newest line back, unpacked into *out (which then owns its
 * storage); false when empty. */
bool history_pop(struct history *history, struct grid_line *out);
/* Line `index` (0: oldest) unpacked into *out, which then owns its storage. */
void history_unpack(const struct history *history, int index, struct grid_line *out);
/* Line `index`'s used width and wrapped mark, without unpacking it. */
void history_line_shape(const struct history *history, int index, uint16_t *used,
			bool *wrapped);
/* Line `index`'s cells before column `width` as a search reads them,
 * without unpacking it: each cell's first character (a blank as a
 * space) into chars and its column into columns, the right half of a
 * wide character left out.  Returns how many; *covered is the column
 * after the last one stored (blanks follow it). */
int history_chars(const struct history *history, int index, int width, uint32_t *chars,
		  int *columns, int *covered);
/* Line `index`'s text before column `width` as a plain capture shows it
 * (each cell's characters in UTF-8, a blank as a space, the right half
 * of a wide character nothing, trailing default blanks dropped),
 * without unpacking it, into out, which has room for width *
 * TERM_MAX_CHARS * 4 bytes.  Returns how many bytes. */
size_t history_text(const struct history *history, int index, int width, char *out);
/* Line `index` (0: oldest) unpacked into the history's own view: valid
 * until the next call or change; NULL when out of range. */
const struct grid_line *history_get(const struct history *history, int index);

/* Drop every line; the limit stays. */
void history_clear(struct history *history);
void history_set_limit(struct history *history, int limit);
size_t history_memory(const struct history *history);

#endif
