/*
 * seatbelt: the Seatbelt (SBPL) profile of a native macOS sandbox.
 *
 * seatbelt_build_profile is the macOS twin of bwrap_build_argv: from the
 * pane's profile, its sandbox spec, $HOME, the working directory and the
 * lists of one launch (the host-run paths of hostrun.h, the session's
 * proxy ports) it returns the text `sandbox-exec -p` would run.  Pure in
 * the same sense: it only looks at the file system (stat, realpath) and
 * never at the platform, so it builds and is golden-tested on Linux.
 * The rules, with the threat each stops, are in seatbelt.c and
 * docs/backends.md ("macOS (Seatbelt)").
 */
#ifndef SANDMUX_SEATBELT_H
#define SANDMUX_SEATBELT_H

#include <stddef.h>

struct sandbox_profile;
struct sandbox_spec;
struct sm_error;
struct strvec;

struct seatbelt_input {
	const struct sandbox_profile *profile; /* required */
	/* The pane's spec: its mode (a mode other than chat here or in the
	 * profile makes the roots read-only), bind mounts (writable ones
	 * are roots in mode chat), protected paths, runner state dirs,
	 * exec grant roots, networkEnabled.  NULL: none. */
	const struct sandbox_spec *spec;
	const char *home; /* host $HOME, absolute: "~/" in lists */
	const char *cwd;  /* the pane's working directory, absolute */
	int pane;	  /* every deny says (with message "sandmux:PANE") */
	/* The session's temp dir (TMPDIR), writable in every mode; NULL: none. */
	const char *session_tmp;
	/* hostrun_paths() of this launch, NULL-terminated, may be NULL. */
	const char *const *host_run;
	/* Proxied network: the session's proxy ports on localhost.  The
	 * Unix sockets it may reach and the interpreters that may run
	 * inside a writable root are the profile's (unix_sockets,
	 * exec_interpreters). */
	const int *proxy_ports;
	size_t nproxy_ports;
};

/* Set *out to the SBPL text (malloc'd, the caller frees it).  Returns 0,
 * or -1 with err: launch_failed for a path that is not absolute or too
 * long to represent, out_of_memory. */
int seatbelt_build_profile(const struct seatbelt_input *in, char **out, struct sm_error *err);
/* The writable roots the profile of in allows writes below, expanded,
 * in every spelling, pushed onto out: what the server asks before it
 * writes a file of its own (a recording) where a pane could rewrite it.
 * 0, or -1 with err. */
int seatbelt_writable_roots(const struct seatbelt_input *in, struct strvec *out,
			    struct sm_error *err);

#endif
