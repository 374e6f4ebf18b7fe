/*
 * backend: the table of operations every sandbox backend provides.
 *
 * A backend turns a launch request (the command, its environment, the
 * sandbox spec) into a process running on a PTY.  The pane never trusts
 * the request for its label: the backend reports what actually wraps the
 * process in the launch result, and a contained backend only confirms
 * once the contained child is really running (backend_confirm).
 */
#ifndef SANDMUX_BACKEND_H
#define SANDMUX_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>

#include "sandbox.h"

struct sm_error;

/* What the probe found for the native backend (bubblewrap on Linux,
 * sandbox-exec on macOS). */
struct native_probe {
	bool available;
	bool requires_install;
	bool disabled; /* --sandbox off */
	char tool[64]; /* "bubblewrap 0.8.0" */
	char hint[160]; /* "apt-get install bubblewrap socat" */
	char reason[160]; /* why not available */
	/* The copy-on-write home (home-layer.h) mounts here: a profile that
	 * makes $HOME writable needs it; the others run without. */
	bool home_layer;
	char home_layer_reason[200]; /* why not */
	/* Absolute paths on PATH, kept by the probe until the next one. */
	const char *bwrap_path;
	const char *socat_path;
};

/* What the probe found for microvm: the fast part at start (qemu on
 * PATH, the guest image), the rest (qemu's version, which accelerator
 * really boots) in the background; every field but qemu_path and dir is
 * only read after its .probe_settle(true) (probe.c does, for its
 * readers; microvm.c before a launch). */
struct microvm_probe {
	bool available;
	char reason[160];
	char hint[160];	      /* "apt-get install qemu-system-x86" */
	char tool[64];	      /* "qemu 7.2.22" */
	char accel[8];	      /* "kvm" or "tcg" */
	char kvm_reason[160]; /* why not kvm, when tcg */
	/* The paths, "" when not found, kept by the probe (backend_probe)
	 * until the next probe. */
	const char *qemu_path;
	const char *diod_path; /* the guest's 9p file server on the host */
	const char *dir;       /* vmlinux and initramfs.cpio */
};

/* What the probe found, fixed for the server's life: the platform, and
 * each backend's own record, which its .check reads. */
struct probe_result {
	char platform[32]; /* "linux", "wsl2", "macos", ... */
	bool sandbox_off;  /* --sandbox off: every contained backend disabled */
	struct native_probe native;
	struct microvm_probe microvm;
};

/* One launch: the spec says what the sandbox is asked to be (backend,
 * profile, working directory, $HOME, command, environment, session,
 * network; sandbox.h), built by the server for each pane; the rest is
 * what the server made for this one process. */
struct launch_request {
	const struct sandbox_spec *spec; /* never NULL */
	int rows, cols;
	/* Extra host directories a native sandbox must hide (e.g. the
	 * server's socket directory), NULL-terminated; may be NULL. */
	const char *const *deny_paths;
	/* Network only through the session's egress proxies: the host
	 * directory with this pane's http.sock and socks.sock (NULL: the
	 * profile does not restrict the network). */
	const char *egress_dir;
	/* macOS native: the session's proxy ports on localhost (Seatbelt
	 * has no network namespace: the pane talks to them directly). */
	const int *proxy_ports;
	size_t nproxy_ports;
	/* native: who the supervisor reports violations for. */
	int pane_id;
};

struct launch_result {
	enum sandbox_backend backend; /* what really wraps the process */
	int master; /* PTY master, owned by the caller after launch */
	pid_t pid; /* the process sandmux started (bwrap or the shell) */
	pid_t child_pid; /* the contained command once confirmed, else 0 */
	/* Readable whenever confirm has something to look at, until
	 * confirmed; -1 when none needed.  The caller polls it and closes
	 * it; anything else confirmation uses is the backend's to close. */
	int status_fd;
	bool confirmed; /* true once the label may be shown */
	char details[256]; /* e.g. "bubblewrap 0.8.0, profile terminal" */
	/* What the server reads of a contained launch. */
	bool home_layer; /* a copy-on-write home: its changes are counted at the end */
	bool supervised; /* its listener reached the supervisor */
	/* The sandbox's control groups or rlimits (sandbox-limits.h), polled
	 * by the server, until released. */
	struct limits_group *limits;
	/* The backend's own state (native.c's struct native_state,
	 * microvm.c's struct microvm_vm, seatbelt-native.c's struct
	 * seatbelt_pane), NULL before launch; its .release frees it. */
	void *state;
};

struct backend_ops {
	const char *name;
	enum sandbox_backend id;
	/* Launch; on failure fill err (code backend_unavailable or
	 * launch_failed, message with reason and install hint) and return -1
	 * with no process left running. */
	int (*launch)(const struct launch_request *req, struct launch_result *res,
		      struct sm_error *err);
	/* Look at what status_fd signalled; never blocks.  Returns 1 when
	 * confirmed (the command really runs, or ran, inside; child_pid
	 * set), 0 when more is needed, -1 on failure (err set: the sandbox
	 * did not start the command; the caller destroys and marks the pane
	 * error).  A backend that can wait forever gives up by itself. */
	int (*confirm)(struct launch_result *res, struct sm_error *err);
	int (*suspend)(struct launch_result *res);
	/* Optional.  Save the whole sandbox to the file path (created, mode
	 * 0600) and end its processes so it holds no memory; resume then
	 * restores it.  0, or -1 with err set and the sandbox as it was. */
	int (*suspend_to_disk)(struct launch_result *res, const char *path, struct sm_error *err);
	/* Continue after suspend, or restore after suspend_to_disk. */
	int (*resume)(struct launch_result *res, struct sm_error *err);
	/* Kill the whole tree (process group / namespace) and release. */
	void (*destroy)(struct launch_result *res);
	/* Optional.  The pane's size changed and the PTY alone does not
	 * carry it to the command (microvm: the guest's own terminal). */
	void (*resize)(struct launch_result *res, int rows, int cols);
	/* Optional.  The process sandmux started ended with wait status
	 * status: the command's exit code when the backend knows better
	 * than that status (microvm: the guest shell's, not qemu's), else
	 * -1; reason gets why the sandbox ended when it was not the
	 * command's own exit.  Releases what the backend still held. */
	int (*exit_code)(struct launch_result *res, int status, char *reason, size_t size);
	/* Optional.  The next refusal the sandbox made outside the
	 * supervisor (microvm: its file servers' and qemu's guards on the
	 * host, source "host"; the guest kernel's own, as its agent
	 * reports them, source "guest"): 1 with action (file-read*,
	 * file-write*, file-write-create, network-outbound), target and
	 * source, 0 when none is waiting.  Never blocks; the server asks a
	 * few times a second. */
	int (*next_violation)(struct launch_result *res, char *action, size_t action_size,
			      char *target, size_t target_size, const char **source);
	/* The process is gone (reaped, or destroyed): free what the launch
	 * still holds.  May be called more than once; NULL: nothing. */
	void (*release)(struct launch_result *res);
	/* May a launch be tried on this host?  Reads the backend's own
	 * record of the probe: 0, or -1 with err (backend_unavailable, the
	 * reason and the install hint; backend_check_record).  NULL: always
	 * (none). */
	int (*check)(const struct probe_result *probe, struct sm_error *err);
	/* Optional.  Probe the host once at server start (backend_probe,
	 * docs/design.md invariant 5) into the backend's own record of r,
	 * r->platform and r->sandbox_off already set; never slow: what
	 * takes time runs in the background, and then probe_settle takes
	 * its answer (block: wait for it; else only if it is there). */
	void (*probe)(struct probe_result *r);
	void (*probe_settle)(bool block);
};

/* Probe once at server start.  sandbox_off is --sandbox off.  What
 * bwrap says is asked in the background: the result is complete when
 * backend_probe_result returns, which waits for that answer. */
void backend_probe(bool sandbox_off, struct probe_result *out);
const struct probe_result *backend_probe_result(void);
/* fn is called once the native record of the result is complete
 * (within backend_probe when nothing was left to ask, else when the
 * bwrap check's answer is taken): the server logs the startup line
 * then. */
void backend_probe_notify(void (*fn)(void));
/* Take the answers of the probe's background parts (each backend's
 * .probe_settle) whose processes have ended, without waiting: the
 * server calls it at each SIGCHLD.  The readers here (the lines, the
 * JSON, backend_check) wait for them, bounded. */
void backend_probe_reap(void);
/* "microvm: available (tcg)", or unavailable with reason and hint. */
void backend_probe_microvm_line(const struct probe_result *probe, char *buf, size_t size);
/* One-line summary for the server log ("sandbox: native ON (...)"). */
void backend_probe_line(const struct probe_result *probe, char *buf, size_t size);
/* `sandmux probe --json`: {platform, native:{available, requiresInstall,
 * disabled, tool, hint, reason}, microvm:{available, reason}}; empty
 * strings are null.  The caller owns the result. */
struct cJSON *probe_to_json(const struct probe_result *probe);
/* Probe helpers, exposed for tests.  probe_find_on_path looks name up in
 * path (a $PATH value; empty and relative entries are skipped) and writes
 * the absolute path to out; 0 found, -1 not.  probe_platform names the
 * platform from uname's sysname and /proc/version: "linux", "wsl2",
 * "macos", else sysname in lower case. */
int probe_find_on_path(const char *name, const char *path, char *out, size_t size);
/* For the backends' .probe.  probe_find_kept: probe_find_on_path, the
 * path kept until the next probe (*out; "" when not found).
 * probe_keep_path keeps a copy of path so.  probe_run_capture(_for):
 * run argv (no shell) with its output (stdout and stderr, cut to size)
 * in out; its exit code, or -1 when it could not run or outran the
 * timeout (PROBE_TIMEOUT_MS without _for).  probe_first_line cuts s at
 * its first line end. */
int probe_find_kept(const char *name, const char *path, const char **out);
const char *probe_keep_path(const char *path);
int probe_run_capture_for(char *const argv[], char *out, size_t size, long timeout_ms);
int probe_run_capture(char *const argv[], char *out, size_t size);
void probe_first_line(char *s);
/* A backend's slow part in a child process (probe_answer_start: find
 * fills an answer of size bytes, at most 1 KiB, that the child writes
 * whole to a pipe and exits; the server's descriptors are closed in
 * it), taken by probe_answer_take (block: wait for the child, else
 * only an answer already there): 1 with the answer, 0 when the child
 * ended without one, -1 when there is nothing (yet) to take. */
int probe_answer_start(const struct probe_result *r,
		       void (*find)(const struct probe_result *, void *), size_t size, pid_t *child,
		       int *fd);
int probe_answer_take(pid_t *child, int *fd, void *answer, size_t size, bool block);
/* The native record is complete: the backend that fills it calls this
 * once per probe (backend_probe_notify's function runs). */
void probe_native_complete(void);
void probe_platform(const char *sysname, const char *proc_version, char *out, size_t size);

const struct backend_ops *backend_get(enum sandbox_backend id);

/* The fields of /proc/PID/stat that sandmux looks at. */
struct proc_stat {
	char state; /* R, S, D, T, t, Z, ... */
	pid_t ppid, pgrp, session, tpgid;
	unsigned long long tty_nr; /* the controlling terminal's device, 0 none */
};
/* 0, or -1 when pid is gone or its stat cannot be read. */
int proc_stat_read(pid_t pid, struct proc_stat *out);
/* The same from a descriptor kept open on the process's stat
 * (proc_stat_open; -1 where there is no /proc): one pread a look, and
 * it names that process for good: once it is gone the read fails, and a
 * new process given the same pid is never read in its place. */
int proc_stat_open(pid_t pid);
int proc_stat_read_fd(int fd, struct proc_stat *out);

/* Process-tree helpers for backends.  backend_signal_tree sends sig to
 * every process of the PTY session led by session_leader (the pane's
 * process and every job it started) and, when ns_member > 0, to every
 * process in ns_member's pid namespace.  backend_kill_tree sends SIGHUP
 * (and SIGCONT, so stopped jobs see it), gives the tree a moment to go,
 * then SIGKILLs what is left.  Neither reaps: the server does. */
int backend_signal_tree(pid_t session_leader, pid_t ns_member, int sig);
void backend_kill_tree(pid_t session_leader, pid_t ns_member);

/* native: prepare a sandbox for the next native launch like the last
 * one (backends/native.c, "the prepared sandbox"); called by the server
 * a moment after a native pane is confirmed.  discard kills it (server
 * shutdown, config reload).  Both are no-ops when there is nothing to
 * do or SANDMUX_NATIVE_PREPARE=0. */
void native_prepare_next(void);
void native_prepared_discard(void);
/* `profile show` on Linux: the rules a native pane of req->profile would
 * get in req->cwd, as lines of text into the array lines: the bwrap
 * argv (per-launch files and the shim's fd as placeholders), then the
 * supervisor's lists and rules.  Makes nothing on disk.  0, or -1 with
 * err (launch_failed: what a launch would refuse). */
int native_describe(const struct launch_request *req, struct cJSON *lines, struct sm_error *err);

/* microvm: boot the next VM like the last microvm pane's and leave it
 * waiting (backends/microvm.c, "the prepared VM"), called a moment after
 * a microvm pane is confirmed; discard kills it (server shutdown).
 * No-ops when there is nothing to do or SANDMUX_MICROVM_PREPARE=0. */
void microvm_prepare_next(void);
void microvm_prepared_discard(void);

/* Check that a backend may be launched given the probe (its .check);
 * fills err with code backend_unavailable and the reason/hint if not. */
int backend_check(enum sandbox_backend id, struct sm_error *err);
/* A backend's .check from what its record says: disabled by --sandbox
 * off, else available, else unavailable with reason and hint (an
 * "install: " hint when install). */
int backend_check_record(const char *name, bool disabled, bool available, const char *reason,
			 const char *hint, bool install, struct sm_error *err);

struct strvec;
/* The shim's first words, pushed onto out: the standalone shim beside
 * the server's binary (build/sandmux-shim, PREFIX/bin/sandmux-shim:
 * static and small, it execs in a fraction of the time the full sandmux
 * takes), else [sandmux, shim].  exe (may be NULL) gets the standalone
 * shim's path, or "" without one.  0, or -1 (the binary cannot be
 * found, or was replaced: restart the server; out of memory). */
int backend_shim_prefix(struct strvec *out, char *exe, size_t size);
/* The directory holding a pane's trash `rm` (backends/trash-rm.sh), for
 * a profile with the trash: sandmux-trash/ beside the binary (the
 * build), or PREFIX/lib/sandmux/trash installed.  0, or -1 when neither
 * has one.  native (Linux) and native on macOS both put it first on the
 * pane's PATH. */
int backend_trash_rm_dir(char *out, size_t size);

#endif
