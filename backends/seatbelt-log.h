/*
 * seatbelt-log: macOS sandbox denials, as `log stream --style ndjson`
 * prints them, turned into a pane's violations.
 *
 * A Seatbelt pane's profile tags every deny (with message
 * "sandmux:PANE") (seatbelt.c).  The kernel logs each denial as
 * "Sandbox: NAME(PID) deny(N) OPERATION TARGET" with that tag; one
 * `log stream` per pane (seatbelt-native.c) hands its lines here.  This
 * file is pure (no platform call), so it builds and is tested on Linux.
 *
 * Everything in a line may be the pane's own doing (the path, the
 * process name, a message it logged itself), so:
 *   - only the kernel's lines count (processID 0): a pane that logs a
 *     fake denial through os_log or logger is another process;
 *   - a line is this pane's only when every "sandmux:N" in it names
 *     this pane: a path that spells another pane's tag makes the line
 *     nobody's rather than the other pane's;
 *   - lines are bounded (SEATBELT_LOG_LINE_MAX; the rest of a longer one
 *     is skipped, never read as a line of its own), and the target's
 *     control characters become '?'.
 */
#ifndef SANDMUX_SEATBELT_LOG_H
#define SANDMUX_SEATBELT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SEATBELT_LOG_LINE_MAX 16384

/* One denial: action in the violation vocabulary (file-read*,
 * file-write*, file-write-create, network-outbound, process-exec, else
 * the SBPL operation as written), target (path or host:port), raw (the
 * kernel's message, sanitised), pid (the denied process). */
struct seatbelt_denial {
	char action[32];
	char target[1024];
	char raw[1280];
	pid_t pid;
};

/* Parse one ndjson line (len bytes, no newline needed).  1: a denial of
 * pane's, out filled; 0: anything else (malformed, not the kernel's, not
 * a deny, another pane's, a forged or ambiguous tag, too long). */
int seatbelt_log_parse(const char *line, size_t len, int pane, struct seatbelt_denial *out);

/* Splits a byte stream into lines of at most SEATBELT_LOG_LINE_MAX. */
struct seatbelt_log_reader {
	char buf[SEATBELT_LOG_LINE_MAX + 1];
	size_t len;
	bool skipping; /* inside a line that was too long, until its newline */
};

/* How many bytes the next push may bring, at least 1: a reader whose
 * buffer holds one unfinished line of SEATBELT_LOG_LINE_MAX bytes
 * drops it and skips the rest of that line.  Call it after draining
 * with seatbelt_log_next. */
size_t seatbelt_log_room(struct seatbelt_log_reader *r);
/* Append n bytes (at most seatbelt_log_room's answer: more is cut). */
void seatbelt_log_push(struct seatbelt_log_reader *r, const char *data, size_t n);
/* The next denial of pane's among the complete lines pushed: 1 with out
 * filled, 0 when no complete line is left (lines that are not pane's
 * denials are consumed silently). */
int seatbelt_log_next(struct seatbelt_log_reader *r, int pane, struct seatbelt_denial *out);

#endif
