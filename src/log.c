/*
 * log: timestamped lines to a file (or stderr), flushed per line so a
 * crash never loses what was said before it.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

#include "log.h"

static FILE *log_file;
static int log_verbose;

void log_open(const char *path, int verbose)
{
	/* The log names paths and reasons: readable by us alone. */
	int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;

	log_verbose = verbose;
	if (f != NULL) {
		if (log_file != NULL && log_file != stderr)
			fclose(log_file);
		log_file = f;
	}
}

static void log_vwrite(const char *level, const char *fmt, va_list ap)
{
	FILE *f = log_file ? log_file : stderr;
	struct timeval tv;
	struct tm tm;
	char stamp[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "%s.%03ld %s ", stamp, (long)(tv.tv_usec / 1000), level);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("info", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("warn", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vwrite("debug", fmt, ap);
	va_end(ap);
}
