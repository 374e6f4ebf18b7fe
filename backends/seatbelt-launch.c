/*
 * seatbelt-launch: a macOS native launch's argv, its confirmation and
 * the probe's decision, apart from the platform calls (seatbelt-launch.h).
 */
#include "seatbelt-launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend.h"
#include "strvec.h"

int seatbelt_exec_argv(const char *profile, const char *helper, int confirm_fd,
		       char *const *command, struct strvec *out)
{
	char fd[16];
	const char *head[] = {SEATBELT_EXEC_PATH, "-p", profile, "--", helper, "--fd", fd, "--"};

	snprintf(fd, sizeof fd, "%d", confirm_fd);
	if (strvec_pushv(out, head, sizeof head / sizeof head[0]) != 0)
		return -1;
	for (size_t i = 0; command[i] != NULL; i++)
		if (strvec_push(out, command[i]) != 0)
			return -1;
	return 0;
}

int seatbelt_log_stream_argv(int pane, struct strvec *out)
{
	char predicate[96];
	/* processID 0: the kernel's own lines; seatbelt-log.c checks again. */
	const char *argv[] = {SEATBELT_LOG_PATH, "stream", "--style", "ndjson", "--predicate", predicate};

	snprintf(predicate, sizeof predicate,
		 "processID == 0 AND eventMessage CONTAINS \"sandmux:%d\"", pane);
	return strvec_pushv(out, argv, sizeof argv / sizeof argv[0]);
}

int seatbelt_confirm_parse(const char *buf, size_t len, bool eof, pid_t *pid, char *reason,
			   size_t size)
{
	const char *nl = memchr(buf, '\n', len);
	int n = 0, used = 0;

	if (nl != NULL && (size_t)(nl - buf) >= 7 && strncmp(buf, "failed ", 7) == 0) {
		snprintf(reason, size, "the command did not start: %.*s", (int)(nl - buf - 7),
			 buf + 7);
		return -1;
	}
	if (nl != NULL && sscanf(buf, "inside %d%n", &n, &used) == 1 && buf + used == nl && n > 0) {
		/* "inside" alone is not enough: end of file (the exec closed
		 * the fd) says the command replaced the helper. */
		if (!eof && len == (size_t)(nl - buf) + 1)
			return 0;
		if (len != (size_t)(nl - buf) + 1) {
			/* Its exec failed: the reason follows. */
			if (seatbelt_confirm_parse(nl + 1, len - (size_t)(nl + 1 - buf), eof, pid,
						   reason, size) != -1 ||
			    strncmp(nl + 1, "failed ", 7) != 0)
				snprintf(reason, size, "the helper wrote more than it should");
			return -1;
		}
		*pid = n;
		return 1;
	}
	if (nl != NULL || len >= 64) {
		snprintf(reason, size, "the helper's answer is not understood");
		return -1;
	}
	if (eof) {
		snprintf(reason, size,
			 "sandbox-exec exited before running the command (the profile was "
			 "refused, or the helper may not run under it)");
		return -1;
	}
	return 0;
}

void seatbelt_probe_decide(bool exists, int smoke_status, const char *smoke_output,
			   struct probe_result *out)
{
	if (!exists) {
		snprintf(out->native.reason, sizeof out->native.reason,
			 SEATBELT_EXEC_PATH " not found");
		return;
	}
	if (!WIFEXITED(smoke_status) || WEXITSTATUS(smoke_status) != 0) {
		snprintf(out->native.reason, sizeof out->native.reason,
			 "sandbox-exec cannot run a trivial profile here: %.100s",
			 smoke_output != NULL && smoke_output[0] != '\0' ? smoke_output
									 : "it failed without a message");
		return;
	}
	out->native.available = true;
	snprintf(out->native.tool, sizeof out->native.tool, "Seatbelt (sandbox-exec)");
	/* No copy-on-write layer exists for Seatbelt: a writable $HOME is
	 * guarded by the profile's mandatory denies alone (docs/security.md). */
	out->native.home_layer = false;
	snprintf(out->native.home_layer_reason, sizeof out->native.home_layer_reason,
		 "Seatbelt has no copy-on-write layer; the mandatory denies guard $HOME");
}
