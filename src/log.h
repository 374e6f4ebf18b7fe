/*
 * log: the server's log.  One line per message, prefixed with the time
 * and level, written to the log file set with log_open() (stderr until
 * then).  log_debug lines appear only with -v.
 */
#ifndef SANDMUX_LOG_H
#define SANDMUX_LOG_H

void log_open(const char *path, int verbose);
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
