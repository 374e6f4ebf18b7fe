/*
 * events-rotate: the events log's rotation.  The log is cut at 10 MiB and
 * five old files are kept, events.jsonl.1 (newest) to .5 (oldest).  When
 * the oldest would be dropped, the lines that must outlive it are
 * carried to the head of the file that takes its place:
 *
 *   - every pane's first 100 violations (a folded line counts as many as
 *     it stands for; a pane's `starting` event starts the count again, as
 *     pane numbers are used again by a later server);
 *   - network-outbound violations, and every event that is not a
 *     violation (lifecycle, policy-grant, policy-ask, flood), of the last
 *     24 hours.
 *
 * Threat: a sandboxed pane making denied calls as fast as it can, with a
 * new name each time so that nothing folds, to push the evidence of what
 * it and the other panes did earlier (their first attempts, their
 * refused connections, the grants a person made) out of the log.
 *
 * The carried lines stay in time order: they are older than anything in
 * the file they head.  They are read again at the next rotation, so a
 * line older than 24 hours leaves then.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "events-internal.h"
#include "log.h"
#include "xalloc.h"

#define KEEP_FIRST_VIOLATIONS 100
#define KEEP_SECONDS (24 * 60 * 60)

/* How many violations of each pane the scan has passed. */
struct pane_count {
	int pane, seen;
};

struct pane_counts {
	struct pane_count *v;
	size_t n, cap;
};

static struct pane_count *pane_count(struct pane_counts *pc, int pane)
{
	for (size_t i = 0; i < pc->n; i++)
		if (pc->v[i].pane == pane)
			return &pc->v[i];
	if (pc->n == pc->cap) {
		pc->cap = pc->cap ? pc->cap * 2 : 32;
		pc->v = xrealloc(pc->v, pc->cap * sizeof *pc->v);
	}
	pc->v[pc->n] = (struct pane_count){.pane = pane, .seen = 0};
	return &pc->v[pc->n++];
}

static bool keep_line(const char *line, struct pane_counts *pc, double now)
{
	cJSON *ev = cJSON_Parse(line);
	const cJSON *pane, *t, *count;
	const char *kind, *action;
	bool keep = false, recent;

	if (ev == NULL)
		return false;
	pane = cJSON_GetObjectItem(ev, "pane");
	t = cJSON_GetObjectItem(ev, "time");
	count = cJSON_GetObjectItem(ev, "count");
	kind = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "kind"));
	action = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "action"));
	recent = cJSON_IsNumber(t) && t->valuedouble > now - KEEP_SECONDS;
	if (kind != NULL && strcmp(kind, "violation") == 0) {
		struct pane_count *c = pane_count(pc, cJSON_IsNumber(pane) ? pane->valueint : 0);

		keep = c->seen < KEEP_FIRST_VIOLATIONS ||
		       (recent && action != NULL && strcmp(action, "network-outbound") == 0);
		c->seen += cJSON_IsNumber(count) && count->valueint > 1 ? count->valueint : 1;
	} else if (kind != NULL) {
		if (strcmp(kind, "starting") == 0 && cJSON_IsNumber(pane))
			pane_count(pc, pane->valueint)->seen = 0;
		keep = recent;
	}
	cJSON_Delete(ev);
	return keep;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The kept lines of oldest, to out. */
static int carry_kept(FILE *oldest, int out)
{
	struct pane_counts pc = {0};
	char *line = NULL;
	size_t cap = 0;
	double now = (double)time(NULL);
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = getline(&line, &cap, oldest)) > 0) {
		if (line[n - 1] != '\n')
			break; /* a torn last line: nothing to keep */
		line[n - 1] = '\0';
		if (keep_line(line, &pc, now)) {
			line[n - 1] = '\n';
			rc = write_all(out, line, (size_t)n);
		}
	}
	free(line);
	free(pc.v);
	return rc;
}

static int append_file(const char *from, int out)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int rc = 0;

	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		rc = write_all(out, buf, (size_t)n);
	}
	close(in);
	return rc;
}

/* path.keep becomes what it must keep, then path.(keep-1) after it;
 * path.(keep-1) is gone.  -1 (and nothing changed) on failure. */
static int carry_oldest(const char *path, int keep)
{
	char oldest[PATH_MAX + 16], next[PATH_MAX + 16], tmp[PATH_MAX + 16];
	FILE *in;
	int out, rc;

	snprintf(oldest, sizeof oldest, "%s.%d", path, keep);
	snprintf(next, sizeof next, "%s.%d", path, keep - 1);
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, keep);
	in = fopen(oldest, "re");
	if (in == NULL)
		return errno == ENOENT ? 0 : -1;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		fclose(in);
		return -1;
	}
	rc = carry_kept(in, out);
	fclose(in);
	if (rc == 0)
		rc = append_file(next, out);
	if (close(out) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, oldest) == 0) {
		unlink(next);
		return 0;
	}
	unlink(tmp);
	return -1;
}

void events_rotate_files(const char *path, int keep)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];

	if (carry_oldest(path, keep) != 0)
		log_warn("events: rotation could not carry the kept lines of %s.%d: %s", path, keep,
			 strerror(errno));
	for (int i = keep - 1; i >= 1; i--) {
		snprintf(from, sizeof from, "%s.%d", path, i);
		snprintf(to, sizeof to, "%s.%d", path, i + 1);
		rename(from, to);
	}
	snprintf(to, sizeof to, "%s.1", path);
	rename(path, to);
}
