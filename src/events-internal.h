/*
 * events-internal: what the event bus's files share.
 *
 *   events.c         the bus: the durable log, the backlog, subscribers
 *   events-fold.c    how a violation enters it: long fields cut, repeats
 *                    folded, a flooding pane marked
 *   events-rotate.c  the log's rotation, which keeps the evidence a flood
 *                    would push out
 */
#ifndef SANDMUX_EVENTS_INTERNAL_H
#define SANDMUX_EVENTS_INTERNAL_H

#include <stdbool.h>

struct cJSON;
struct pane;

/* The longest target or raw path a violation keeps, in bytes. */
#define EVENTS_FIELD_MAX 1024
/* More violations than this in one second mark a pane as flooding. */
#define EVENTS_FLOOD_RATE 1000

/* events.c: append ev to the log, then hand it to the backlog, the
 * recorder and the subscribers; takes ownership. */
void events_write(struct cJSON *ev);

/* events-fold.c.  events_cut_fields shortens a violation's target and
 * raw path to EVENTS_FIELD_MAX bytes, saying so in the event.
 * events_fold returns true when it took ev as a repeat of a violation
 * logged less than a second ago (written later, counted).
 * events_flood_count counts one violation of p toward its rate.
 * events_fold_flush writes every pending repeat (at shutdown). */
void events_cut_fields(struct cJSON *ev);
bool events_fold(struct cJSON *ev);
void events_flood_count(struct pane *p);
void events_fold_flush(void);

/* events-rotate.c: rotate path (keep old files path.1 .. path.keep),
 * carrying what must outlive the oldest into the next oldest. */
void events_rotate_files(const char *path, int keep);

#endif
