/*
 * record: a pane's output as an asciicast v2 file, written by the server
 * (so it survives the client), with a marker event for each of the
 * pane's violations (see record.c and docs/feed.md).
 *
 * The server owns every recording; each ends with `record --stop`, with
 * its pane, or at its size limit.
 */
#ifndef SANDMUX_RECORD_H
#define SANDMUX_RECORD_H

#include <stddef.h>

struct cJSON;
struct pane;

/* What the pane's program wrote (as the emulator got it). */
void record_output(const struct pane *p, const char *bytes, size_t len);
/* The pane's size changed. */
void record_resize(const struct pane *p, int cols, int rows);
/* An event on the bus: a violation of a recorded pane becomes a marker. */
void record_event(const struct cJSON *event);
/* The pane is going away: its recording ends. */
void record_pane_gone(int pane_id);

#endif
