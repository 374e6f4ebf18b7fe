/*
 * pty: open a pseudo-terminal and start a program on it.
 *
 * The child becomes a session leader (setsid) and takes the slave as its
 * controlling terminal (TIOCSCTTY), so job control works inside it.  The
 * caller keeps the master.  Nothing here knows about panes or backends: a
 * backend hands in the argv it wants run.
 */
#ifndef SANDMUX_PTY_H
#define SANDMUX_PTY_H

#include <stdbool.h>
#include <sys/types.h>

#define PTY_MAX_KEEP_FDS 16

struct pty_spawn_opts {
	char *const *argv; /* argv[0] is looked up on PATH */
	char *const *envp; /* full environment for the child */
	const char *cwd; /* NULL: inherit */
	int rows, cols;
	const int *keep_fds; /* fds the child must inherit (not CLOEXEC), */
			     /* at most PTY_MAX_KEEP_FDS of them */
	int nkeep_fds;
	/* Run in the child before anything else (async-signal-safe calls
	 * only): what the caller must set up for the program, such as the
	 * control group it belongs to.  Non-zero (errno set) fails the
	 * spawn.  NULL: nothing. */
	int (*child_setup)(const void *arg);
	const void *child_arg;
};

/* Returns 0 and sets *master_out, *pid_out; or -errno with a message in
 * err (size errsz).  The exec failure of the child is reported by the
 * child writing errno to a CLOEXEC pipe, so a missing program is an error
 * here, not an exit status later. */
int pty_spawn(const struct pty_spawn_opts *opts, int *master_out, pid_t *pid_out, char *err,
	      size_t errsz);
/* The same on a PTY the caller already has (its master): a program
 * started again on the terminal the last one left, such as a VM restored
 * from disk on its pane's PTY.  The slave must have no session left. */
int pty_spawn_on(const struct pty_spawn_opts *opts, int master, pid_t *pid_out, char *err,
		 size_t errsz);
int pty_resize(int master, int rows, int cols);
/* Foreground process group of the terminal, or -1. */
pid_t pty_foreground(int master);

#endif
