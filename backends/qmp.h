/*
 * qmp: commands to a qemu over its QMP monitor (qmp.c), used by the
 * microvm backend to stop, continue, save and restore a VM.
 */
#ifndef SANDMUX_QMP_H
#define SANDMUX_QMP_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* One qemu's monitor: the server's end of its socket (-1: none), and
 * whether the greeting was read and the capabilities negotiated (false
 * for a new qemu). */
struct qmp {
	int fd;
	bool ready;
};

/* Send command (a JSON object and a newline; pass_fd, when >= 0, goes
 * with it as SCM_RIGHTS) and wait, bounded, for its return: 0, or -1 on
 * an error reply, a timeout or a closed socket.  The "return" value
 * goes to *reply when reply is not NULL (the caller frees it). */
int qmp_call(struct qmp *q, const char *command, int pass_fd, struct cJSON **reply);
/* qmp_call with no fd and no reply wanted. */
int qmp_command(struct qmp *q, const char *command);
/* The "status" string of a query's return, copied to out; -1 if none. */
int qmp_status(struct qmp *q, const char *command, char *out, size_t size);

#endif
