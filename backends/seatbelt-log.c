/*
 * seatbelt-log: macOS sandbox denials from `log stream --style ndjson`
 * into a pane's violations.  The rules, and the threat each stops, are
 * in seatbelt-log.h; the watcher that runs `log stream` is in
 * seatbelt-native.c.
 */
#include "seatbelt-log.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG "sandmux:"
#define PREFIX "Sandbox: "

/* The violation action for an SBPL operation ("file-read-data" ->
 * "file-read*"). */
static void seatbelt_log_action(const char *operation, char *out, size_t size)
{
	static const struct {
		const char *prefix, *action;
	} map[] = {
	    {"file-read", "file-read*"},
	    {"file-write-create", "file-write-create"},
	    {"file-write", "file-write*"},
	    {"network-outbound", "network-outbound"},
	    {"network-bind", "network-outbound"},
	    {"process-exec", "process-exec"},
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strncmp(operation, map[i].prefix, strlen(map[i].prefix)) == 0) {
			snprintf(out, size, "%s", map[i].action);
			return;
		}
	snprintf(out, size, "%s", operation);
}

/* Copy at most size-1 bytes of s[0..n), control characters as '?': the
 * text reaches the feed, the events log and terminals. */
static void copy_sanitised(char *out, size_t size, const char *s, size_t n)
{
	size_t i;

	if (size == 0)
		return;
	for (i = 0; i < n && i + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[i] = '\0';
}

/* The pane every "sandmux:N" in msg names: N when there is at least one
 * and all agree, else -1 (none, or two panes named: a forged tag). */
static long tagged_pane(const char *msg)
{
	long pane = -1;

	for (const char *p = strstr(msg, TAG); p != NULL; p = strstr(p + 1, TAG)) {
		const char *d = p + strlen(TAG);
		char *end;
		long n;

		if (*d < '0' || *d > '9')
			continue;
		n = strtol(d, &end, 10);
		if (end - d > 9 || (pane >= 0 && n != pane))
			return -1;
		pane = n;
	}
	return pane;
}

/* "Sandbox: NAME(PID) deny(N) OPERATION TARGET": the first "(PID)
 * deny(N) " after the prefix ends the name (a name that spells one
 * itself only misleads the pid, which attributes nothing). */
static int split_message(const char *msg, struct seatbelt_denial *out, const char **op,
			 size_t *op_len, const char **target)
{
	const char *p;

	if (strncmp(msg, PREFIX, strlen(PREFIX)) != 0)
		return -1;
	for (p = strchr(msg + strlen(PREFIX), '('); p != NULL; p = strchr(p + 1, '(')) {
		int pid, used = 0;

		if (sscanf(p, "(%d) deny(%*d) %n", &pid, &used) >= 1 && used > 0 && pid > 0) {
			out->pid = pid;
			*op = p + used;
			*op_len = strcspn(*op, " ");
			if (*op_len == 0 || (*op)[*op_len] != ' ')
				return -1;
			*target = *op + *op_len + 1;
			return 0;
		}
	}
	return -1;
}

/* The target without the pane's tag when the message ends with it. */
static size_t target_length(const char *target, int pane)
{
	char tag[32];
	size_t n = strlen(target), t;

	snprintf(tag, sizeof tag, " " TAG "%d", pane);
	t = strlen(tag);
	if (n >= t && strcmp(target + n - t, tag) == 0)
		n -= t;
	else if (strcmp(target, tag + 1) == 0)
		n = 0;
	while (n > 0 && target[n - 1] == ' ')
		n--;
	return n;
}

int seatbelt_log_parse(const char *line, size_t len, int pane, struct seatbelt_denial *out)
{
	cJSON *doc, *msg_item, *pid_item;
	const char *msg, *op, *target;
	size_t op_len;
	char operation[64];
	int rc = 0;

	if (len > SEATBELT_LOG_LINE_MAX || pane < 0)
		return 0;
	doc = cJSON_ParseWithLength(line, len);
	if (doc == NULL)
		return 0;
	msg_item = cJSON_GetObjectItemCaseSensitive(doc, "eventMessage");
	pid_item = cJSON_GetObjectItemCaseSensitive(doc, "processID");
	/* Threat: a pane logging a denial of its own making (os_log,
	 * logger) for another pane or for a path it never touched. */
	if (!cJSON_IsString(msg_item) || !cJSON_IsNumber(pid_item) || pid_item->valuedouble != 0)
		goto out;
	msg = msg_item->valuestring;
	memset(out, 0, sizeof *out);
	/* Threat: a path naming another pane's tag, to put a denial on it. */
	if (tagged_pane(msg) != pane || split_message(msg, out, &op, &op_len, &target) != 0)
		goto out;
	copy_sanitised(operation, sizeof operation, op, op_len);
	seatbelt_log_action(operation, out->action, sizeof out->action);
	copy_sanitised(out->target, sizeof out->target, target, target_length(target, pane));
	copy_sanitised(out->raw, sizeof out->raw, msg, strlen(msg));
	rc = out->target[0] != '\0';
out:
	cJSON_Delete(doc);
	return rc;
}

size_t seatbelt_log_room(struct seatbelt_log_reader *r)
{
	if (r->len == SEATBELT_LOG_LINE_MAX) {
		/* Threat: a line too long to hold, whose tail would otherwise
		 * read as a line of its own.  Drained, a full buffer holds no
		 * newline: it is all one line. */
		r->len = 0;
		r->skipping = true;
	}
	return SEATBELT_LOG_LINE_MAX - r->len;
}

void seatbelt_log_push(struct seatbelt_log_reader *r, const char *data, size_t n)
{
	if (r->skipping) {
		const char *nl = memchr(data, '\n', n);

		if (nl == NULL)
			return;
		r->skipping = false;
		n -= (size_t)(nl + 1 - data);
		data = nl + 1;
	}
	if (n > SEATBELT_LOG_LINE_MAX - r->len)
		n = SEATBELT_LOG_LINE_MAX - r->len;
	memcpy(r->buf + r->len, data, n);
	r->len += n;
}

int seatbelt_log_next(struct seatbelt_log_reader *r, int pane, struct seatbelt_denial *out)
{
	char *nl;

	while ((nl = memchr(r->buf, '\n', r->len)) != NULL) {
		size_t line_len = (size_t)(nl - r->buf);
		int found = seatbelt_log_parse(r->buf, line_len, pane, out);

		memmove(r->buf, nl + 1, r->len - line_len - 1);
		r->len -= line_len + 1;
		if (found)
			return 1;
	}
	return 0;
}
