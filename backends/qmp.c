/*
 * qmp: the server's side of a qemu's QMP monitor (qmp.h), on the
 * socket qemu was given with -chardev socket,fd=N -mon mode=control.
 * One command at a time, each waited for with a bound: qemu's greeting
 * and the capabilities handshake on first use, then the command and
 * its "return", skipping the events that come in between.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "qmp.h"

/* Send text, with pass_fd as SCM_RIGHTS on its first byte when >= 0. */
static int qmp_send(int fd, const char *text, int pass_fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = (void *)text, .iov_len = strlen(text)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (pass_fd >= 0) {
		memset(control, 0, sizeof control);
		msg.msg_control = control;
		msg.msg_controllen = sizeof control;
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &pass_fd, sizeof(int));
	}
	while (iov.iov_len > 0) {
		ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		/* The fd went with the first part. */
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= (size_t)n;
	}
	return 0;
}

/* Send one command and wait (bounded) for its return; events that come
 * in between are skipped.  qemu greets first: the greeting and the
 * capabilities handshake are done on first use.  The "return" value of
 * the reply goes to *reply when it is not NULL (the caller frees it). */
int qmp_call(struct qmp *q, const char *command, int pass_fd, cJSON **reply)
{
	static const char caps[] = "{\"execute\":\"qmp_capabilities\"}\n";
	char buf[8192];
	size_t len = 0;

	if (q->fd < 0)
		return -1;
	for (int phase = 0; phase < 2; phase++) {
		if (phase == 0 && q->ready)
			continue;
		if (qmp_send(q->fd, phase == 0 ? caps : command, phase == 0 ? -1 : pass_fd) != 0)
			return -1;
		for (;;) {
			struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
			char *nl;
			ssize_t n;

			if (poll(&pfd, 1, 5000) <= 0)
				return -1;
			n = read(q->fd, buf + len, sizeof buf - 1 - len);
			if (n <= 0)
				return -1;
			len += (size_t)n;
			buf[len] = '\0';
			while ((nl = strchr(buf, '\n')) != NULL) {
				cJSON *msg, *ret;

				*nl = '\0';
				msg = cJSON_Parse(buf);
				len -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, len + 1);
				if (msg != NULL && cJSON_GetObjectItem(msg, "error") != NULL) {
					cJSON_Delete(msg);
					return -1;
				}
				ret =
				    msg != NULL ? cJSON_DetachItemFromObject(msg, "return") : NULL;
				cJSON_Delete(msg);
				if (ret == NULL)
					continue;
				if (phase == 1 && reply != NULL)
					*reply = ret;
				else
					cJSON_Delete(ret);
				goto next;
			}
			if (len == sizeof buf - 1)
				len = 0;
		}
	next:
		q->ready = true;
	}
	return 0;
}

int qmp_command(struct qmp *q, const char *command)
{
	return qmp_call(q, command, -1, NULL);
}

/* The "status" string of a query's return, copied to out; -1 if none. */
int qmp_status(struct qmp *q, const char *command, char *out, size_t size)
{
	cJSON *ret = NULL, *status;
	int rc = -1;

	if (qmp_call(q, command, -1, &ret) == 0 &&
	    cJSON_IsString(status = cJSON_GetObjectItem(ret, "status"))) {
		snprintf(out, size, "%s", status->valuestring);
		rc = 0;
	}
	cJSON_Delete(ret);
	return rc;
}
