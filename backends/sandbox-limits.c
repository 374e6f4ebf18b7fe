/*
 * sandbox-limits: a control group (or rlimits) per sandbox.  See sandbox-limits.h.
 *
 * Where the groups live.  The server makes one directory of its own,
 * sandmux-PID, and one group per sandbox in it, sandbox-N:
 *   - cgroup v2, when its controllers include pids and memory and the
 *     server may enable them below the v2 root (root, or a root
 *     delegated to it): ROOT/sandmux-PID/sandbox-N, with pids, memory
 *     and cpu enabled.  Not under the server's own group: v2 forbids
 *     controllers below a group that holds processes, and the server's
 *     group holds the server;
 *   - else a v2 group delegated to the server (probe_v2_delegated):
 *     OWN/sandmux-PID/sandbox-N, the server's processes moved into
 *     OWN/sandmux-PID/server;
 *   - else each v1 hierarchy the server may write (pids, memory, cpu),
 *     under the server's own group in it: MOUNT/OWN/sandmux-PID/
 *     sandbox-N.  A hybrid host (this project's CI) has pids and memory
 *     on v1 and nothing useful on v2;
 *   - else rlimits (see sandbox-limits.h and docs/security.md).
 * The sandbox's first process joins its groups before it execs bwrap
 * (limits_child_apply, writing "0" to cgroup.procs, or to tasks on v1:
 * see join_file), so nothing of the sandbox ever runs outside them.  Inside, /sys is bwrap's read-only
 * bind: a process cannot raise its own limits or leave its group.
 *
 * Why a group of its own for the CPU too: with no limit written, the
 * scheduler still shares the CPU between groups before tasks, so a
 * thousand busy processes in one pane weigh like one task against the
 * server and the other panes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "sandbox-limits.h"
#include "log.h"
#include "profile.h"
#include "strvec.h"
#include "xalloc.h"

enum { H_PIDS, H_MEMORY, H_CPU, H_COUNT };
static const char *const controller_names[H_COUNT] = {"pids", "memory", "cpu"};

/* What host's strings are until the probe sets them: "". */
static char none[1];

/* The paths are strings set by host_set, not PATH_MAX arrays: those
 * would be pages of the server's memory touched for good for a few
 * short paths. */
static struct {
	bool probed;
	bool v2;	      /* the dirs are one v2 group */
	char *dir[H_COUNT];   /* the server's sandmux-PID, "" none */
	unsigned serial;
	struct strvec pending; /* groups not yet removable (still dying) */
	char *summary;	       /* limits_probe's line */
	char *delegated;       /* the delegated v2 group OWN, "" none */
	char enabled[32];      /* what the server enabled in it */
	/* The next sandbox's groups, made ahead (limits_group_prepare):
	 * directories and join fds, no limit written yet; or NULL. */
	struct limits_group *spare;
} host = {.dir = {none, none, none}, .summary = none, .delegated = none};

static void host_set(char **field, const char *value)
{
	if (*field != none)
		free(*field);
	*field = value[0] != '\0' ? xstrdup(value) : none;
}

struct limits_group {
	/* This sandbox's groups, "" none; each its own string, not a
	 * PATH_MAX array: the server keeps one group made ahead for its
	 * whole life (limits_group_prepare). */
	char *dir[H_COUNT];
	int join_fd[H_COUNT];	     /* their join_file, open for the child */
	long pids_max;
	unsigned long long memory_max;
	unsigned long long refused, oom_kills; /* already reported */
};

/* --- files --------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	int fd, rc = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -1;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The number after "key " in a flat-keyed file (pids.events "max N",
 * memory.events / memory.oom_control "oom_kill N"); 0 when absent. */
static unsigned long long keyed_value(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 64], text[1024];
	size_t n = strlen(key);

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (read_file(path, text, sizeof text) != 0)
		return 0;
	for (char *line = text; line != NULL && *line != '\0';) {
		char *next = strchr(line, '\n');

		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return strtoull(line + n + 1, NULL, 10);
		line = next != NULL ? next + 1 : NULL;
	}
	return 0;
}

/* Is word one of the comma- or space-separated tokens of list? */
static bool has_token(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* --- finding the hierarchies --------------------------------------------- */

/* Where the hierarchy holding controller (NULL: the v2 one) is mounted,
 * and the server's own group in it, from /proc/self/mountinfo and
 * /proc/self/cgroup; out is MOUNT + OWN (want_own) or MOUNT. */
static bool hierarchy_path(const char *controller, bool want_own, char *out, size_t size)
{
	/* Fields are taken from line where they lie, and the mount point is
	 * written straight into out: this runs under the start's deepest
	 * frames, and each 4 KiB buffer more here was a page of stack the
	 * server keeps resident for good. */
#ifndef __linux__
	/* No control groups outside Linux: the limits are rlimits there. */
	return false;
#else
	char line[4096], root[PATH_MAX];
	const char *own = NULL;
	size_t mount_len;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	/* ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
	while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
		/* field: the first five; after: TYPE SOURCE SUPER, the three
		 * past the lone "-" (m of them so far, -1 before it). */
		char *field[5], *after[3], *fstype, *super, *save = NULL, *tok;
		int n = 0, m = -1;

		for (tok = strtok_r(line, " \n", &save); tok != NULL && m < 3;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (n < 5)
				field[n++] = tok;
			else if (m < 0)
				m = strcmp(tok, "-") == 0 ? 0 : -1;
			else
				after[m++] = tok;
		}
		if (m < 3)
			continue;
		fstype = after[0];
		super = after[2];
		if ((controller == NULL && strcmp(fstype, "cgroup2") == 0) ||
		    (controller != NULL && strcmp(fstype, "cgroup") == 0 &&
		     has_token(super, controller))) {
			found = snprintf(out, size, "%s", field[4]) < (int)size &&
				snprintf(root, sizeof root, "%s", field[3]) < (int)sizeof root;
			if (!found)
				break;
		}
	}
	if (f != NULL)
		fclose(f);
	if (!found)
		return false;
	mount_len = strlen(out);
	f = fopen("/proc/self/cgroup", "re");
	while (f != NULL && own == NULL && fgets(line, sizeof line, f) != NULL) {
		char *c1 = strchr(line, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;

		if (c2 == NULL)
			continue;
		*c2 = '\0';
		line[strcspn(c2 + 1, "\n") + (size_t)(c2 + 1 - line)] = '\0';
		/* line is read no further once own points into it. */
		if ((controller == NULL && c2 == c1 + 1) ||
		    (controller != NULL && has_token(c1 + 1, controller)))
			own = c2 + 1;
	}
	if (f != NULL)
		fclose(f);
	if (own == NULL)
		own = "";
	/* The mount shows the hierarchy from root on: OWN is below it. */
	if (want_own && strcmp(root, "/") != 0) {
		size_t n = strlen(root);

		if (strncmp(own, root, n) != 0 || (own[n] != '/' && own[n] != '\0'))
			return false;
		own += n;
	}
	if (!want_own || strcmp(own, "/") == 0)
		own = "";
	return snprintf(out + mount_len, size - mount_len, "%s", own) < (int)(size - mount_len);
#endif
}

/* A delegated v2 group's leaf for the server's own processes (see
 * probe_v2_delegated). */
#define SERVER_LEAF "server"

/* Remove what a server that is gone left in base: sandmux-PID with no
 * live PID, its sandbox-N groups first (their processes died with
 * bwrap's --die-with-parent; a group still busy is left). */
static void remove_stale(const char *base)
{
	DIR *dir = opendir(base);
	struct dirent *de;

	while (dir != NULL && (de = readdir(dir)) != NULL) {
		char path[PATH_MAX], child[PATH_MAX + 300];
		int pid;
		DIR *sub;
		struct dirent *se;

		if (sscanf(de->d_name, "sandmux-%d", &pid) != 1 || pid <= 0 ||
		    (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(path, sizeof path, "%s/%s", base, de->d_name);
		sub = opendir(path);
		while (sub != NULL && (se = readdir(sub)) != NULL)
			if (strncmp(se->d_name, "sandbox-", 8) == 0 ||
			    strcmp(se->d_name, SERVER_LEAF) == 0) {
				snprintf(child, sizeof child, "%s/%s", path, se->d_name);
				rmdir(child);
			}
		if (sub != NULL)
			closedir(sub);
		if (rmdir(path) == 0)
			log_info("limits: removed %s, left by a server that is gone", path);
	}
	if (dir != NULL)
		closedir(dir);
}

/* The server's directory under base; "+pids +memory +cpu" enabled in
 * base (v2) first. */
static bool make_server_dir(const char *base, const char *enable, char *out, size_t size)
{
	if (enable != NULL && write_file(base, "cgroup.subtree_control", enable) != 0)
		return false;
	remove_stale(base);
	if (snprintf(out, size, "%s/sandmux-%d", base, (int)getpid()) >= (int)size ||
	    (mkdir(out, 0755) != 0 && errno != EEXIST) ||
	    (enable != NULL && write_file(out, "cgroup.subtree_control", enable) != 0)) {
		if (out[0] != '\0')
			rmdir(out);
		out[0] = '\0';
		return false;
	}
	return true;
}

static bool probe_v2(void)
{
	char root[PATH_MAX], path[PATH_MAX + 32], controllers[512], enable[64] = "+pids +memory";
	char dir[PATH_MAX];

	if (!hierarchy_path(NULL, false, root, sizeof root))
		return false;
	snprintf(path, sizeof path, "%s/cgroup.controllers", root);
	if (read_file(path, controllers, sizeof controllers) != 0 ||
	    !has_token(controllers, "pids") || !has_token(controllers, "memory"))
		return false;
	/* The cpu controller cannot be enabled while a realtime process
	 * sits below: then pids and memory alone. */
	bool cpu = has_token(controllers, "cpu");

	if (cpu)
		strcat(enable, " +cpu");
	if (!make_server_dir(root, enable, dir, sizeof dir)) {
		if (!cpu)
			return false;
		cpu = false;
		snprintf(enable, sizeof enable, "+pids +memory");
		if (!make_server_dir(root, enable, dir, sizeof dir))
			return false;
	}
	host_set(&host.dir[H_PIDS], dir);
	host_set(&host.dir[H_MEMORY], dir);
	if (cpu)
		host_set(&host.dir[H_CPU], dir);
	host.v2 = true;
	return true;
}

/* Every process in from moves to to (cgroup.procs, one pid a write);
 * false if one that is still alive could not be moved. */
static bool move_processes(const char *from, const char *to)
{
	char path[PATH_MAX + 32], pid[32];
	bool moved = true;
	FILE *f;

	snprintf(path, sizeof path, "%s/cgroup.procs", from);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(pid, sizeof pid, f) != NULL) {
		pid[strcspn(pid, "\n")] = '\0';
		if (write_file(to, "cgroup.procs", pid) != 0 && errno != ESRCH)
			moved = false;
	}
	fclose(f);
	return moved;
}

/* A v2 group delegated to the server, when the root is not its own:
 * the server's own group OWN, with cgroup.procs and
 * cgroup.subtree_control writable by it (what systemd's Delegate=yes
 * gives a unit's user) and pids and memory among its controllers.  v2
 * lets no group that holds processes enable controllers for its
 * children, so what OWN holds (the server, and the CLI that started it
 * while that still waits) moves into a leaf, OWN/sandmux-PID/server,
 * and the sandboxes' groups are made beside it, OWN/sandmux-PID/
 * sandbox-N.  At kill-server the server gives OWN back as it found it
 * (restore_delegated); a server that died leaves that to whoever
 * delegated OWN (systemd removes a unit's groups when it ends). */
static bool probe_v2_delegated(void)
{
	char own[PATH_MAX], path[PATH_MAX + 32], controllers[512], leaf[PATH_MAX + 32];
	char dir[PATH_MAX];
	const char *enable[] = {"+pids +memory +cpu", "+pids +memory"};

	if (!hierarchy_path(NULL, true, own, sizeof own))
		return false;
	snprintf(path, sizeof path, "%s/cgroup.controllers", own);
	if (read_file(path, controllers, sizeof controllers) != 0 ||
	    !has_token(controllers, "pids") || !has_token(controllers, "memory"))
		return false;
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", own);
	if (access(path, W_OK) != 0)
		return false;
	snprintf(path, sizeof path, "%s/cgroup.procs", own);
	if (access(path, W_OK) != 0)
		return false;
	remove_stale(own);
	if (snprintf(dir, PATH_MAX, "%s/sandmux-%d", own, (int)getpid()) >= PATH_MAX ||
	    (mkdir(dir, 0755) != 0 && errno != EEXIST))
		goto fail;
	snprintf(leaf, sizeof leaf, "%s/" SERVER_LEAF, dir);
	if ((mkdir(leaf, 0755) != 0 && errno != EEXIST) || !move_processes(own, leaf))
		goto undo;
	for (size_t i = 0; i < sizeof enable / sizeof enable[0]; i++) {
		bool cpu = i == 0 && has_token(controllers, "cpu");

		if (i == 0 && !cpu)
			continue;
		if (write_file(own, "cgroup.subtree_control", enable[i]) != 0 ||
		    write_file(dir, "cgroup.subtree_control", enable[i]) != 0)
			continue;
		host_set(&host.dir[H_PIDS], dir);
		host_set(&host.dir[H_MEMORY], dir);
		if (cpu)
			host_set(&host.dir[H_CPU], dir);
		host.v2 = true;
		host_set(&host.delegated, own);
		snprintf(host.enabled, sizeof host.enabled, "%s", enable[i]);
		log_info("limits: cgroup v2 delegated at %s: the server moved into %s", own, leaf);
		return true;
	}
undo:
	move_processes(leaf, own);
	rmdir(leaf);
	rmdir(dir);
fail:
	return false;
}

static void probe_v1(void)
{
	for (int h = 0; h < H_COUNT; h++) {
		char base[PATH_MAX], dir[PATH_MAX];

		if (hierarchy_path(controller_names[h], true, base, sizeof base) &&
		    access(base, W_OK) == 0 && make_server_dir(base, NULL, dir, sizeof dir))
			host_set(&host.dir[h], dir);
	}
}

/* AddressSanitizer's shadow is a private writable mapping of terabytes,
 * which RLIMIT_DATA counts: a sanitizer build of sandmux could not run
 * its own egress bridge inside an agent pane under it.  Such a build is
 * a test build; it goes without the per-process memory limit. */
#if defined(__SANITIZE_ADDRESS__)
static const bool data_limit_breaks_self = true;
#else
static const bool data_limit_breaks_self = false;
#endif

static const char *mechanism(int h)
{
	if (host.dir[h][0] == '\0' && h == H_MEMORY && data_limit_breaks_self)
		return "none (sanitizer build)";
	return host.dir[h][0] == '\0' ? "rlimit" : host.v2 ? "cgroup v2" : "cgroup v1";
}

/* What holds a pane's processes, memory and CPU on this host, in words. */
static char *describe(void)
{
	if (host.dir[H_PIDS][0] == '\0' && host.dir[H_MEMORY][0] == '\0')
		return xstrdup("limits: no control group to be had, rlimits per pane (RLIMIT_NPROC, "
			       "RLIMIT_DATA)");
	return xasprintf("limits: pids by %s%s%s, memory by %s%s%s, cpu shared by %s",
			 mechanism(H_PIDS), host.dir[H_PIDS][0] ? " in " : "", host.dir[H_PIDS],
			 mechanism(H_MEMORY), host.dir[H_MEMORY][0] && !host.v2 ? " in " : "",
			 host.v2 ? "" : host.dir[H_MEMORY],
			 host.dir[H_CPU][0] ? "group" : "process (no cpu controller)");
}

void limits_probe(void)
{
	char *line;

	if (!host.probed && !probe_v2() && !probe_v2_delegated())
		probe_v1();
	host.probed = true;
	limits_group_prepare();
	line = describe();
	host_set(&host.summary, line);
	free(line);
}

const char *limits_probe_summary(void)
{
	return host.probed ? host.summary : NULL;
}

/* --- a sandbox's group ----------------------------------------------------- */

/* A profile's memory limit in bytes (its share of RAM resolved), 0 none. */
static unsigned long long limits_memory_bytes(const struct sandbox_profile *prof)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (prof->memory_percent > 0 && pages > 0 && page > 0)
		return (unsigned long long)pages * (unsigned long long)page / 100 *
		       (unsigned long long)prof->memory_percent;
	return prof->memory_max;
}

static void remove_dir(const char *dir)
{
	if (rmdir(dir) != 0 && errno == EBUSY && !strvec_contains(&host.pending, dir))
		strvec_push(&host.pending, dir);
}

/* Retry the groups whose last processes were still dying. */
void limits_remove_pending(void)
{
	struct strvec left = STRVEC_INIT;

	for (size_t i = 0; i < host.pending.n; i++)
		if (rmdir(host.pending.v[i]) != 0 && errno == EBUSY)
			strvec_push(&left, host.pending.v[i]);
	strvec_free(&host.pending);
	host.pending = left;
}

/* This group's limits: pids, then memory (v1 names it otherwise). */
static int write_limits(struct limits_group *g, int h)
{
	char value[32];

	if (h == H_PIDS) {
		snprintf(value, sizeof value, g->pids_max > 0 ? "%ld" : "max", g->pids_max);
		return write_file(g->dir[h], "pids.max", value);
	}
	if (h == H_MEMORY) {
		if (g->memory_max == 0)
			return 0;
		snprintf(value, sizeof value, "%llu", g->memory_max);
		return write_file(g->dir[h], host.v2 ? "memory.max" : "memory.limit_in_bytes",
				  value);
	}
	return 0;
}

/* The file the sandbox's first process writes "0" to, joining a group.
 * That process is a fresh fork, and has one thread.  Moving a whole
 * process (cgroup.procs) takes the kernel's global threadgroup lock for
 * writing, which waits for an RCU grace period once the lock has been
 * idle: 8 to 16 ms measured here, on every cold native start (a pane is
 * seldom started within a grace period of the last).  A thread moving
 * itself (v1's tasks; Linux 5.19's single-thread migration) takes no
 * such lock: 20 us.  For a process of one thread the two moves are the
 * same, and what it forks and execs after stays in the group.  v2 has
 * no tasks file in a domain group: cgroup.procs there. */
static const char *join_file(void)
{
	return host.v2 ? "cgroup.procs" : "tasks";
}

/* A sandbox's groups, empty: the directories and their join files open
 * for the child, no limit written. */
static struct limits_group *group_make(struct sm_error *err)
{
	struct limits_group *g = xcalloc(1, sizeof *g);
	char name[32];

	for (int h = 0; h < H_COUNT; h++) {
		g->join_fd[h] = -1;
		g->dir[h] = xstrdup("");
	}
	snprintf(name, sizeof name, "sandbox-%u", ++host.serial);
	for (int h = 0; h < H_COUNT; h++) {
		char procs[PATH_MAX + 32];

		if (host.dir[h][0] == '\0' || (host.v2 && h != H_PIDS))
			continue;
		free(g->dir[h]);
		g->dir[h] = xasprintf("%s/%s", host.dir[h], name);
		snprintf(procs, sizeof procs, "%s/%s", g->dir[h], join_file());
		if (mkdir(g->dir[h], 0755) != 0 ||
		    (g->join_fd[h] = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED,
				     "cannot make the pane's control group %s: %s", g->dir[h],
				     strerror(errno));
			limits_group_free(g);
			return NULL;
		}
	}
	/* v2: one group holds all three. */
	if (host.v2)
		for (int h = H_MEMORY; h < H_COUNT; h++)
			if (host.dir[h][0] != '\0') {
				free(g->dir[h]);
				g->dir[h] = xstrdup(g->dir[H_PIDS]);
			}
	return g;
}

/* Making the groups is most of what a launch spends here (three mkdir
 * in the kernel's cgroup file systems, a few tenths of a millisecond):
 * the server makes the next sandbox's groups ahead, at start and after
 * each launch, off the launch's path.  Empty groups hold nothing and
 * limit nothing until a sandbox joins them with its limits written. */
void limits_group_prepare(void)
{
	struct sm_error err = {0};

	if (host.spare != NULL || (host.dir[H_PIDS][0] == '\0' && host.dir[H_MEMORY][0] == '\0' &&
				   host.dir[H_CPU][0] == '\0'))
		return;
	limits_remove_pending();
	host.spare = group_make(&err);
	if (host.spare == NULL)
		log_debug("%s: %s", __func__, err.message);
}

struct limits_group *limits_group_new(const struct sandbox_profile *prof, struct sm_error *err)
{
	struct limits_group *g = host.spare;

	host.spare = NULL;
	if (g == NULL) {
		limits_remove_pending();
		g = group_make(err);
	}
	if (g == NULL)
		return NULL;
	g->pids_max = prof->pids_max;
	g->memory_max = limits_memory_bytes(prof);
	for (int h = 0; h < H_COUNT; h++)
		if (g->dir[h][0] != '\0' && write_limits(g, h) != 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot set the %s limit of %s: %s",
				     controller_names[h], g->dir[h], strerror(errno));
			limits_group_free(g);
			return NULL;
		}
	return g;
}

int limits_child_apply(const void *group)
{
	const struct limits_group *g = group;

	/* Threat: a pane whose processes, or some of them, escape the
	 * limits by forking before they are in the group: the first
	 * process joins before it execs anything. */
	for (int h = 0; h < H_COUNT; h++)
		if (g->join_fd[h] >= 0 && write(g->join_fd[h], "0", 1) != 1)
			return -1;
	/* Without a memory group, each process is held alone. */
	if (g->dir[H_MEMORY][0] == '\0' && g->memory_max > 0 && !data_limit_breaks_self) {
		struct rlimit rl = {g->memory_max, g->memory_max};

		if (setrlimit(RLIMIT_DATA, &rl) != 0)
			return -1;
	}
	return 0;
}

long limits_group_nproc(const struct limits_group *g)
{
	return g->dir[H_PIDS][0] == '\0' ? g->pids_max : 0;
}

int limits_group_poll(struct limits_group *g, char *reason, size_t size)
{
	unsigned long long refused = 0, kills = 0;
	size_t len = 0;

	reason[0] = '\0';
	if (g->dir[H_PIDS][0] != '\0')
		refused = keyed_value(g->dir[H_PIDS], "pids.events", "max");
	if (g->dir[H_MEMORY][0] != '\0')
		kills = keyed_value(g->dir[H_MEMORY],
				    host.v2 ? "memory.events" : "memory.oom_control", "oom_kill");
	if (refused > g->refused)
		len += (size_t)snprintf(
		    reason, size, "process limit (pids_max %ld) reached: %llu fork%s refused",
		    g->pids_max, refused - g->refused, refused - g->refused == 1 ? "" : "s");
	if (kills > g->oom_kills && len < size)
		snprintf(reason + len, size - len,
			 "%smemory limit (memory_max %llu MiB) reached: %llu process%s killed",
			 len ? "; " : "", g->memory_max >> 20, kills - g->oom_kills,
			 kills - g->oom_kills == 1 ? "" : "es");
	g->refused = refused > g->refused ? refused : g->refused;
	g->oom_kills = kills > g->oom_kills ? kills : g->oom_kills;
	return reason[0] != '\0';
}

/* Kill every process still in the group (they should have gone with
 * the namespace; one that has not must not outlive its pane). */
static void kill_members(const char *dir)
{
	char path[PATH_MAX + 32], text[8192];

	if (host.v2 && write_file(dir, "cgroup.kill", "1") == 0)
		return;
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if (read_file(path, text, sizeof text) != 0)
		return;
	for (char *p = text; *p != '\0';) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		p = end;
		while (*p == '\n')
			p++;
	}
}

void limits_group_free(struct limits_group *g)
{
	if (g == NULL)
		return;
	for (int h = 0; h < H_COUNT; h++) {
		if (g->join_fd[h] >= 0)
			close(g->join_fd[h]);
		if (g->dir[h][0] == '\0' || (host.v2 && h != H_PIDS))
			continue;
		kill_members(g->dir[h]);
		remove_dir(g->dir[h]);
	}
	for (int h = 0; h < H_COUNT; h++)
		free(g->dir[h]);
	free(g);
}

/* The delegated group as the server found it: its controllers turned
 * off again (the server's directory first, then OWN), the server back
 * in OWN, the leaf and the directory removed.  Called once every
 * sandbox group is gone; whatever cannot be undone is logged. */
static void restore_delegated(const char *dir)
{
	char off[32], leaf[PATH_MAX + 32];

	snprintf(off, sizeof off, "%s", host.enabled);
	for (char *c = off; *c != '\0'; c++)
		if (*c == '+')
			*c = '-';
	snprintf(leaf, sizeof leaf, "%s/" SERVER_LEAF, dir);
	if (write_file(dir, "cgroup.subtree_control", off) != 0 ||
	    write_file(host.delegated, "cgroup.subtree_control", off) != 0 ||
	    !move_processes(leaf, host.delegated) || rmdir(leaf) != 0)
		log_warn("limits: cannot give %s back as it was: %s", host.delegated, strerror(errno));
	host_set(&host.delegated, "");
}

void limits_shutdown(void)
{
	struct timespec tick = {0, 20 * 1000 * 1000};

	limits_group_free(host.spare);
	host.spare = NULL;
	/* Killed processes leave their groups within moments. */
	for (int i = 0; i < 100 && host.pending.n > 0; i++) {
		limits_remove_pending();
		if (host.pending.n > 0)
			nanosleep(&tick, NULL);
	}
	if (host.delegated[0] != '\0' && host.pending.n == 0)
		restore_delegated(host.dir[H_PIDS]);
	for (int h = 0; h < H_COUNT; h++) {
		if (host.dir[h][0] != '\0' && (!host.v2 || h == H_PIDS))
			rmdir(host.dir[h]);
		host_set(&host.dir[h], "");
	}
	strvec_free(&host.pending);
}

cJSON *limits_group_to_json(const struct limits_group *g)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "pids_max", (double)g->pids_max);
	cJSON_AddNumberToObject(o, "memory_max", (double)g->memory_max);
	cJSON_AddStringToObject(o, "pids", mechanism(H_PIDS));
	cJSON_AddStringToObject(o, "memory", mechanism(H_MEMORY));
	if (g->dir[H_PIDS][0] != '\0')
		cJSON_AddStringToObject(o, "cgroup", g->dir[H_PIDS]);
	if (g->refused > 0)
		cJSON_AddNumberToObject(o, "forks_refused", (double)g->refused);
	if (g->oom_kills > 0)
		cJSON_AddNumberToObject(o, "oom_kills", (double)g->oom_kills);
	return o;
}
