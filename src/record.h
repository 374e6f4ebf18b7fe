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

/* A whole terminal's output as asciicast v2 (sandmux demo --record):
 * the same writer, the file made as a pane's recording is (new, 0600,
 * in a directory no sandbox can write).  NULL with err. */
struct recording;
struct sm_error;
struct recording *record_terminal_open(const char *path, int cols, int rows, const char *title,
				       struct sm_error *err);
void record_terminal_output(struct recording *r, const char *bytes, size_t len);
void record_terminal_resize(struct recording *r, int cols, int rows);
void record_terminal_close(struct recording *r);
/* Run argv on a terminal of its own, relayed to this one (keys in,
 * output out, size followed), its output recorded to path.  The
 * program's exit status, or 1 (the reason printed). */
int record_terminal_run(const char *path, char *const *argv, const char *title);

#endif
