/*
 * pane-cwd: where a pane's shell is now.  It is shown in the pane's
 * title, reported by `ls --json` (current_path), expanded by
 * #{pane_current_path}, and it is where a split or new window started
 * from the pane opens (tmux's -c "#{pane_current_path}").
 *
 * Two sources, as the issue asks and as tmux has them (pane_path and
 * pane_current_path):
 *  - OSC 7 ("file://host/path"), which many shells send at each prompt.
 *    Any program in the pane can send it, so it is untrusted text: it is
 *    decoded, must be an absolute path without control characters, and
 *    is only ever shown.  Nothing is opened or started by it (threat: a
 *    file that is cat'ed, or a sandboxed program, steering a new host
 *    shell into a directory of its choosing).
 *  - The kernel's answer: readlink of /proc/PGRP/cwd (macOS:
 *    proc_pidinfo's vnode path; os.c) for the terminal's foreground
 *    process group, read when output arrived, at most once per
 *    CWD_CHECK_MS per pane (a trailing check catches the prompt after a
 *    `cd`).  readlink only reads the link's text; for a native pane that
 *    text is the path in the sandbox's own mount namespace (its view),
 *    which is what its user sees, and it is never opened on the host.
 *
 * The directory a new pane opens in is decided separately, each time, on
 * the final object (pane_cwd_for_new_pane).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "os.h"
#include "pty.h"
#include "server.h"
#include "term.h"

#define CWD_CHECK_MS 150

static uv_timer_t check_timer;
static bool check_timer_ready;

/* Percent-decode the path of a "file://host/path" URL into out; false if
 * it is not one, or decodes to anything but an absolute path of
 * printable characters. */
static bool osc7_path(const char *url, char *out, size_t size)
{
	const char *path;
	size_t len = 0;

	if (strncmp(url, "file://", 7) != 0 || (path = strchr(url + 7, '/')) == NULL)
		return false;
	for (const char *p = path; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '%') {
			unsigned int byte;
			if (sscanf(p + 1, "%2x", &byte) != 1 || !p[1] || !p[2])
				return false;
			c = (unsigned char)byte;
			p += 2;
		}
		/* NUL, C0, DEL and C1-looking bytes: not a path to show. */
		if (c < 0x20 || c == 0x7f)
			return false;
		if (len + 1 >= size)
			return false;
		out[len++] = (char)c;
	}
	out[len] = '\0';
	return len > 0 && out[0] == '/';
}

/* The kernel's idea of the foreground process's directory, as a string
 * in that process's own view (readlink; nothing is followed).  Only for
 * backends whose processes are ours to ask: a microvm's is qemu's. */
static bool proc_path(const struct pane *p, char *out, size_t size)
{
	pid_t group;

	if (p->master < 0 || p->exited || p->state == SANDBOX_ERROR ||
	    p->launch.backend == SANDBOX_MICROVM)
		return false;
	if ((group = pty_foreground(p->master)) <= 0)
		return false;
	if (os_process_cwd(group, out, size) != 0)
		return false;
	return out[0] == '/';
}

/* Refresh p->current_path; true if it changed. */
static bool pane_cwd_refresh(struct pane *p)
{
	char path[PATH_MAX];
	bool found = false;

	term_take_osc7_change(p->term);
	if (term_osc7(p->term)[0] != '\0')
		found = osc7_path(term_osc7(p->term), path, sizeof path);
	if (!found)
		found = proc_path(p, path, sizeof path);
	p->cwd_checked_ms = server_now_ms();
	if (!found || strcmp(path, p->current_path) == 0)
		return false;
	snprintf(p->current_path, sizeof p->current_path, "%s", path);
	return true;
}

static void on_check_timer(uv_timer_t *timer)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		bool changed = false;
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				if (p->cwd_stale) {
					p->cwd_stale = false;
					changed |= pane_cwd_refresh(p);
				}
		if (changed)
			server_broadcast_layout(s);
	}
}

bool pane_cwd_output(struct pane *p)
{
	uint64_t now = server_now_ms();

	/* An OSC 7 is news at once; /proc is asked at a bounded rate. */
	if (term_take_osc7_change(p->term) || now - p->cwd_checked_ms >= CWD_CHECK_MS) {
		p->cwd_stale = false;
		return pane_cwd_refresh(p);
	}
	if (!check_timer_ready) {
		uv_timer_init(server.loop, &check_timer);
		uv_unref((uv_handle_t *)&check_timer); /* never keeps the server up */
		check_timer_ready = true;
	}
	p->cwd_stale = true;
	if (!uv_is_active((uv_handle_t *)&check_timer))
		uv_timer_start(&check_timer, on_check_timer, CWD_CHECK_MS, 0);
	return false;
}

const char *pane_current_path(struct pane *p)
{
	if (p->current_path[0] == '\0')
		pane_cwd_refresh(p);
	return p->current_path[0] != '\0' ? p->current_path : p->cwd;
}

/* Whether `path` is `root` or inside it (both already resolved). */
static bool path_within(const char *path, const char *root)
{
	size_t len = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/*
 * Where a pane started from p opens.  A host pane's directory is the
 * kernel's answer as it is (the user's own shell).  A sandboxed pane's
 * directory string is a path in the sandbox's view, which means the same
 * on the host only for paths bound where they are: so it is used only if,
 * resolved on the host (realpath: no symlink left in it), it is the very
 * directory the sandboxed shell is in (device and inode of
 * /proc/PID/cwd, which the kernel resolves to that object without
 * walking any path), and it lies within the directory the sandbox was
 * started in.  That last rule means a new pane, host or sandboxed, is
 * never given a directory (nor, for a native pane, a writable root) the
 * user had not already given the sandbox: the threat is a sandboxed
 * program steering a new host shell, or a new sandbox's writable bind,
 * somewhere else by `cd` or by symlinks it planted.  Anything else,
 * OSC 7 included, gives the original directory (p->cwd).
 */
const char *pane_cwd_for_new_pane(const struct pane *p, char *out, size_t size)
{
	char seen[PATH_MAX], resolved[PATH_MAX], root[PATH_MAX];
	struct stat actual, host;

	if (!proc_path(p, seen, sizeof seen))
		return p->cwd;
	if (p->launch.backend == SANDBOX_NONE) {
		if (stat(seen, &host) != 0 || !S_ISDIR(host.st_mode))
			return p->cwd;
		snprintf(out, size, "%s", seen);
		return out;
	}
	if (os_process_cwd_stat(pty_foreground(p->master), &actual) != 0 ||
	    realpath(seen, resolved) == NULL || stat(resolved, &host) != 0 ||
	    !S_ISDIR(host.st_mode) || host.st_dev != actual.st_dev ||
	    host.st_ino != actual.st_ino || realpath(p->cwd, root) == NULL ||
	    !path_within(resolved, root))
		return p->cwd;
	snprintf(out, size, "%s", resolved);
	return out;
}
