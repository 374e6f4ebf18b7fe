/*
 * seatbelt-launch: the words and answers of a macOS native launch that
 * need no Mac, so they build and are tested on Linux.
 *
 * A Seatbelt pane runs
 *
 *   /usr/bin/sandbox-exec -p PROFILE -- sandmux-seatbelt-exec --fd N -- COMMAND...
 *
 * sandbox-exec applies the profile to itself and execs the helper
 * (backends/seatbelt-exec/main.c), so the helper runs only inside it.
 * The helper writes "inside PID\n" on fd N, marks N close-on-exec and
 * execs the command: the server reads "inside", then end of file, and
 * only then labels the pane native.  A failed exec writes "failed
 * REASON\n" instead; end of file without "inside" means sandbox-exec
 * never got as far as the helper (a profile it refused, a helper the
 * profile may not run).  Either way the pane is FAILED, never shown
 * native.  The argv is built as an array, never a shell string.
 *
 * Violations: one `log stream` per pane (seatbelt_log_stream_argv),
 * its lines judged by seatbelt-log.c.
 */
#ifndef SANDMUX_SEATBELT_LAUNCH_H
#define SANDMUX_SEATBELT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct strvec;
struct probe_result;

#define SEATBELT_EXEC_PATH "/usr/bin/sandbox-exec"
#define SEATBELT_LOG_PATH "/usr/bin/log"

/* The launch argv above into out.  0, or -1 out of memory. */
int seatbelt_exec_argv(const char *profile, const char *helper, int confirm_fd,
		       char *const *command, struct strvec *out);

/* `log stream --style ndjson` for the kernel's lines with pane's tag.
 * 0, or -1 out of memory. */
int seatbelt_log_stream_argv(int pane, struct strvec *out);

/* What the helper wrote on the confirm fd so far (buf, len), and
 * whether it was closed (eof).  1: the command runs inside (pid set to
 * the helper's pid, which the exec kept); 0: wait for more; -1: it did
 * not start, reason says why. */
int seatbelt_confirm_parse(const char *buf, size_t len, bool eof, pid_t *pid, char *reason,
			   size_t size);

/* The probe's decision from what it found: whether sandbox-exec exists
 * (exists), and the wait status and output of running a trivial
 * profile with it.  Fills out's native_* fields. */
void seatbelt_probe_decide(bool exists, int smoke_status, const char *smoke_output,
			   struct probe_result *out);

/* The trivial profile the probe runs (with /usr/bin/true). */
#define SEATBELT_PROBE_PROFILE "(version 1)(allow default)"

#endif
