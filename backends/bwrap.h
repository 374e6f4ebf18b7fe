/*
 * bwrap: the bubblewrap command line of a native Linux sandbox.
 *
 * bwrap_build_argv is pure in the sense that matters for review: it
 * only looks at the file system (stat, realpath, glob) and returns the
 * argv it would run, so the exact policy can be golden-tested as data.
 */
#ifndef SANDMUX_BWRAP_H
#define SANDMUX_BWRAP_H

#include "strvec.h"

struct sm_error;

struct bwrap_input {
	const char *bwrap;	      /* argv[0]: the bwrap binary (probe result) */
	const char *home;	      /* host $HOME: writable */
	const char *cwd;	      /* the pane's working directory: writable, --chdir */
	const char *const *deny_read; /* NULL-terminated; "~/" is home */
	const char *const *writable;  /* extra writable roots, NULL-terminated, may be NULL */
	const char *mask_file;	      /* host path of an empty mode-000 file */
	int status_fd;		      /* --json-status-fd, or -1 */
	char *const *argv;	      /* the command, NULL-terminated */
	/* Restricted network: a host directory with the pane's egress
	 * sockets, bound read-only at BWRAP_EGRESS_DIR inside a new, empty
	 * network namespace.  NULL: the host's network. */
	const char *egress_dir;
	/* $HOME is not a writable root (the agent profile: only the
	 * working directory and extra roots are). */
	bool no_home;
	/* Nor is the working directory (modes review, plan, orchestrate):
	 * it is bound read-only, still visible under the private /tmp. */
	bool no_cwd;
	/* Absolute paths never writable (a profile's protected paths),
	 * bound read-only over themselves where they exist at launch;
	 * NULL-terminated, may be NULL.  The supervisor enforces them for
	 * what is made later. */
	const char *const *protected_paths;
	/* Names kept read-only inside every writable root (component runs
	 * such as ".git/hooks"), bound read-only where they exist at
	 * launch; NULL-terminated, may be NULL.  The supervisor enforces
	 * them for what is made later. */
	const char *const *read_only_inside;
	/* Absolute paths never writable in any profile (hostrun.h), bound
	 * read-only where they exist inside a writable root (elsewhere the
	 * read-only host or the private /tmp already keeps them from the
	 * host); NULL-terminated, may be NULL.  The supervisor refuses
	 * creating the others. */
	const char *const *host_run;
	/* The shim the sandbox runs first (the static sandmux-shim, or the
	 * sandmux binary itself), and the sandmux binary when the sandbox
	 * runs it too (the egress bridge of agent panes); each bound
	 * read-only at its own path; NULL: none. */
	const char *shim_exe;
	const char *self_exe;
	/* The directory of the pane's `rm` that moves to the trash
	 * (profiles with the trash), bound read-only at its own path;
	 * NULL: none. */
	const char *rm_dir;
	/* 0: bwrap makes the read-only binds over paths inside the writable
	 * roots and over /proc's host-wide files.  Else the shim does
	 * (bwrap.c, "Read-only binds in the shim"): argv is the shim's, and
	 * its --ro and --ro-try arguments (backends/native-inside/shim.c) go in at this index,
	 * before the shim's separator; bwrap keeps the two capabilities
	 * the shim needs for them and drops. */
	size_t shim_binds_at;
	/* With shim_binds_at, for a server not run as root: bwrap runs the
	 * shim as uid 0 of its user namespace (an unprivileged bwrap would
	 * otherwise nest a second namespace that has no say over the
	 * mounts), and the shim, its binds made, moves into a namespace of
	 * its own where the user is the server's uid and gid again
	 * (backends/native-inside/shim.c, --userns). */
	bool shim_userns;
};

/* Where a restricted sandbox finds its egress sockets, and the ports the
 * in-sandbox bridges listen on (127.0.0.1). */
#define BWRAP_EGRESS_DIR "/tmp/.sandmux-egress"
#define BWRAP_EGRESS_HTTP_PORT 3128
#define BWRAP_EGRESS_SOCKS_PORT 1080

/* The deny-read list every profile starts from (a profile's own
 * deny_read is added to it), NULL-terminated. */
extern const char *const bwrap_deny_read_defaults[];

/* Fill out (which must be empty) with the full bwrap argv of a native
 * sandbox, whichever profile in describes.  Returns 0, or -1 with err (code launch_failed) when
 * the input cannot be honoured safely; out is the caller's to free either
 * way. */
int bwrap_build_argv(const struct bwrap_input *in, struct strvec *out,
			struct sm_error *err);

#endif
