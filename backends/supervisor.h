/*
 * supervisor: the server's answer to the shim's seccomp listeners.
 *
 * One thread, waiting in poll(2) over every native pane's listener fd
 * (poll, not epoll: supervisor_thread says why; the one epoll set holds
 * the pidfds of the child threads whose umask and cwd are kept).  For
 * each intercepted call (open family, mkdir, mknod, symlink, link,
 * rename, unlink, the attribute calls, bind, connect) it reads the path
 * arguments once from the child, decides against the pane's policy, and
 * either fails the call with an errno (reporting a violation), performs
 * it itself inside the sandbox's view and injects the result (creates,
 * links, renames: never CONTINUE where a decision enforces something),
 * or lets it proceed (reads and writes the sandbox's mounts judge
 * anyway).  docs/supervisor.md has the rules; supervisor-internal.h
 * says which file holds which part.
 *
 * Threads: supervisor_start/attach/detach/stop and supervisor_gone are
 * called on the libuv loop thread.  Violations and "supervisor gone"
 * reach the loop thread through a uv_async_t and a locked queue; the
 * sink's callbacks run there, never on the supervisor thread.
 */
#ifndef SANDMUX_SUPERVISOR_H
#define SANDMUX_SUPERVISOR_H

#include <stdbool.h>
#include <uv.h>

struct cJSON;

/* What one pane may do.  Paths are absolute, in the sandbox's view
 * (which is the host's for every bound path); all lists are
 * NULL-terminated and may be NULL.  attach copies everything. */
struct supervisor_policy {
	const char *session;		       /* for events */
	const char *profile;		       /* for events: the profile the pane runs */
	const char *const *writable_roots;     /* writes allowed below these */
	const char *const *private_roots;      /* sandbox-own (/tmp, /dev, /proc): mounts judge */
	const char *const *shown_roots;	       /* host directories bound into a private root */
	const char *const *deny_read;	       /* reads fail with EACCES below these */
	const char *const *deny_create_patterns; /* fnmatch on a new name's last component */
	const char *const *write_denies;       /* component runs kept read-only anywhere */
	const char *const *protected_paths;    /* absolute paths never writable */
	/* Deletes (unlink, rmdir, a rename out of its directory) only below
	 * delete_roots and the private roots; false: judged as writes. */
	bool delete_guard;
	const char *const *delete_roots;
	/* Unix sockets the pane may connect to although none of its
	 * processes bound them (the egress proxies', the host's name
	 * services; "DIR/" for the sockets directly in DIR); any other
	 * socket must be one the pane bound itself. */
	const char *const *connect_sockets;
};

struct supervisor_sink {
	uv_loop_t *loop;
	/* A violation event (sandbox_violation_to_json's); the callee owns
	 * it. */
	void (*emit)(struct cJSON *event);
	/* The pane's supervision ended abnormally (supervisor killed or
	 * failed): its intercepted calls now fail with ENOSYS. */
	void (*gone)(int pane_id);
};

/* Start the thread (idempotent).  0, or -1 with errno. */
int supervisor_start(const struct supervisor_sink *sink);
/* Supervise a pane: the supervisor owns listener_fd from here on, even
 * on failure.  0, or -1 (not running: the listener is closed, so the
 * pane's intercepted calls fail). */
int supervisor_attach(int pane_id, int listener_fd, const struct supervisor_policy *policy);
/* The pane is going away: close its listener. */
void supervisor_detach(int pane_id);
/* True when the pane's supervision ended abnormally. */
bool supervisor_gone(int pane_id);
/* Could a supervised pane running now create or replace files in the
 * directory path (absolute, resolved)?  True when it lies in one of a
 * pane's writable roots and no deny-read, write-deny or protected path
 * keeps it; *pane_id (may be NULL) then names that pane.  What the
 * server writes for itself, such as a recording, must not be there. */
bool supervisor_path_writable(const char *path, int *pane_id);

#endif
