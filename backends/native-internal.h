/*
 * native-internal: what backends/native.c and its prepared sandbox
 * (native-prepared.c) share and nothing else includes: a launch's own
 * state, the profile's paths for one launch, the shim's handshake, and
 * the steps of a launch the prepared sandbox runs ahead of time.
 */
#ifndef SANDMUX_NATIVE_INTERNAL_H
#define SANDMUX_NATIVE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "backend.h"
#include "bwrap.h"
#include "error.h"
#include "profile.h"
#include "strvec.h"

/* A native launch's own state (launch_result.state): made at launch,
 * freed by native_release. */
struct native_state {
	char mask_file[64]; /* the empty mode-000 file masks bind */
	char *layer_work;   /* the home layer's work directory, or NULL */
	char status_buf[512]; /* a partial line read from status_file */
	size_t status_len;
	int status_file;    /* memfd bwrap writes --json-status-fd to */
	int status_timer;   /* the tick timerfd in status_fd's epoll set */
	off_t status_offset; /* how much of it was read */
	pid_t sandbox_init; /* the pid namespace's init (bwrap's child) */
	long long launched_ms; /* CLOCK_MONOTONIC at launch */
	/* The shim's handshake and the pane's supervisor policy, until
	 * confirmation; then the supervised pane's id. */
	struct native_shim *shim;
	int supervised_pane;
};

static inline struct native_state *native_of(const struct launch_result *res)
{
	return res->state;
}

/* The profile's paths for one launch, "~/" expanded: what bwrap mounts
 * and what the supervisor compares against. */
struct native_paths {
	const struct sandbox_profile *prof;
	const char *home, *cwd;
	bool dry;		       /* native_describe: make no directory */
	bool no_home, no_cwd;	       /* not writable roots (profile, mode) */
	struct strvec extra_writable;  /* writable roots besides home and cwd */
	/* A linked work tree's git directories outside it (gitdir_linked):
	 * writable roots, judged by the supervisor as every git directory,
	 * and places deletes may happen under the delete guard. */
	struct strvec linked_git;
	struct strvec writable;	       /* every writable root */
	struct strvec deny;	       /* deny-read entries, "~/" as written */
	struct strvec protected_paths; /* never writable (the profile's) */
	struct strvec host_run;	       /* never writable, every profile (hostrun.h) */
	struct strvec write_denies;    /* the profile's and hostrun_components */
	struct strvec bound_inside;    /* of those, bound read-only where they exist */
	char trash[PATH_MAX];	       /* the user's trash, a writable root; "" none */
	char rm_dir[PATH_MAX];	       /* the directory of the pane's `rm`; "" none */
	/* The copy-on-write home (home-layer.h), when $HOME is writable:
	 * home resolved, the profile's layer, and the real roots in it. */
	bool layer;
	char home_real[PATH_MAX];
	char layer_dir[PATH_MAX];
	struct strvec real;
};

struct native_shim {
	int sock;	/* the server's end of the handshake socketpair */
	int child_sock; /* bwrap's end, until it is started */
	int watch;	/* the exec watch from the handshake, until it hangs up */
	int epoll;	/* the launch's status_fd: sock, then watch, are in it */
	bool attached;	/* the listener reached the supervisor */
	bool exec_seen; /* the exec watch hung up: the shim exec'd or died */
	char exe[PATH_MAX]; /* the standalone shim, or "" */
	char failure[400];
	int pane_id;
	char session[64];
	struct strvec writable, shown, deny_read, protected_paths, write_denies, delete_roots;
	bool egress; /* the pane's network is the egress proxies' sockets */
	const struct sandbox_profile *prof;
};

/* native.c: the steps of a launch. */
void native_result_init(struct launch_result *res);
int native_make_mask_file(struct launch_result *res, struct sm_error *err);
void native_remove_mask_file(struct launch_result *res);
int native_paths_build(const struct launch_request *req, const struct sandbox_profile *prof,
		       const char *home, bool dry, struct native_paths *np, struct sm_error *err);
void native_paths_free(struct native_paths *np);
int native_check_request(const struct launch_request *req, const struct sandbox_profile **prof,
			 const char **home, struct sm_error *err);
void native_shim_free(struct launch_result *res);
bool native_shim_binds(void);
int native_pane_envp(const struct launch_request *req, const struct sandbox_profile *prof,
		     struct strvec *out);
void native_terminal_input(const struct launch_request *req, const struct native_paths *paths,
			   struct bwrap_input *in);
int native_spawn_bwrap(const struct launch_request *req, const struct sandbox_profile *prof,
		       const char *home, struct launch_result *res, int status_write,
		       struct sm_error *err);
long long native_monotonic_ms(void);
void native_close_confirm_fds(struct launch_result *res);
int native_open_status(struct launch_result *res, struct sm_error *err);
bool native_bwrap_gone(pid_t pid);

/* native-prepared.c: the prepared sandbox.  Remember the launch to
 * prepare the next one like it; take the prepared one over for this
 * launch: 0 taken (res filled, the command on its way), -1 start cold. */
void native_prepared_remember(const struct launch_request *req, const struct sandbox_profile *prof,
			      const char *home);
int native_prepared_take(const struct launch_request *req, const struct sandbox_profile *prof,
			 const char *home, struct launch_result *res);

#endif
