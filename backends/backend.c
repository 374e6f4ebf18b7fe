/*
 * backend: the table of sandbox backends, the words of a refusal
 * (backend_check_record, for each backend's .check), and the
 * process-tree signalling the backends share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <libproc.h>
#include <sys/proc.h>
#endif

#include "backend.h"
#include "error.h"
#include "os.h"
#include "strvec.h"
#include "xalloc.h"

extern const struct backend_ops backend_none_ops;
extern const struct backend_ops backend_native_ops;
extern const struct backend_ops backend_microvm_ops;

static const struct backend_ops *const backend_table[SANDBOX_BACKEND_COUNT] = {
    [SANDBOX_NONE] = &backend_none_ops,
    [SANDBOX_NATIVE] = &backend_native_ops,
    [SANDBOX_MICROVM] = &backend_microvm_ops,
};

#define KILL_GRACE_MS 100

const struct backend_ops *backend_get(enum sandbox_backend id)
{
	if ((unsigned)id >= SANDBOX_BACKEND_COUNT)
		return NULL;
	return backend_table[id];
}

int backend_check_record(const char *name, bool disabled, bool available, const char *reason,
			 const char *hint, bool install, struct sm_error *err)
{
	if (disabled) {
		sm_error_set(err, SM_ERR_BACKEND_UNAVAILABLE, "%s sandbox disabled by --sandbox off",
			     name);
		return -1;
	}
	if (available)
		return 0;
	if (hint[0] != '\0')
		sm_error_set(err, SM_ERR_BACKEND_UNAVAILABLE, "%s sandbox unavailable: %s (%s%s)", name,
			     reason, install ? "install: " : "", hint);
	else
		sm_error_set(err, SM_ERR_BACKEND_UNAVAILABLE, "%s sandbox unavailable: %s", name,
			     reason);
	return -1;
}


/* --- process trees ------------------------------------------------------ */

#ifdef __linux__
/* A stat line's fields after the command name, which may hold spaces
 * and parentheses: parsed after the last ')'. */
static int proc_stat_parse(char *buf, struct proc_stat *out)
{
	char *p = strrchr(buf, ')');
	int ppid, pgrp, sid, tpgid;

	if (p == NULL || sscanf(p + 1, " %c %d %d %d %llu %d", &out->state, &ppid, &pgrp, &sid,
				&out->tty_nr, &tpgid) != 6)
		return -1;
	out->ppid = ppid;
	out->pgrp = pgrp;
	out->session = sid;
	out->tpgid = tpgid;
	return 0;
}

int proc_stat_read(pid_t pid, struct proc_stat *out)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	p = fgets(buf, sizeof buf, f);
	fclose(f);
	return p == NULL ? -1 : proc_stat_parse(buf, out);
}

int proc_stat_open(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int proc_stat_read_fd(int fd, struct proc_stat *out)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return proc_stat_parse(buf, out);
}

#else
/* macOS has no /proc: libproc's record of the process, and getsid. */
int proc_stat_read(pid_t pid, struct proc_stat *out)
{
	struct proc_bsdinfo info;
	pid_t sid;

	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, sizeof info) != (int)sizeof info ||
	    (sid = getsid(pid)) < 0)
		return -1;
	out->state = info.pbi_status == SZOMB ? 'Z' : info.pbi_status == SSTOP ? 'T' : 'S';
	out->ppid = (pid_t)info.pbi_ppid;
	out->pgrp = (pid_t)info.pbi_pgid;
	out->session = sid;
	out->tpgid = (pid_t)info.e_tpgid;
	out->tty_nr = (unsigned long long)info.e_tdev;
	return 0;
}

/* No /proc: the pid is looked up each time. */
int proc_stat_open(pid_t pid)
{
	(void)pid;
	return -1;
}

int proc_stat_read_fd(int fd, struct proc_stat *out)
{
	(void)fd;
	(void)out;
	return -1;
}
#endif

/* Session id and state of pid; -1 if gone. */
static int proc_session(pid_t pid, pid_t *session, char *state)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st) != 0)
		return -1;
	*session = st.session;
	*state = st.state;
	return 0;
}

#ifdef __linux__
static int proc_pidns(pid_t pid, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) != 0)
		return -1;
	*ino = st.st_ino;
	return 0;
}

/* Send sig (0: none) to every live, non-zombie process of the tree but
 * skip_pid.  Returns how many there were, or -1 without /proc. */
static int walk_tree(pid_t session_leader, pid_t ns_member, int sig, pid_t skip_pid)
{
	ino_t ns = 0;
	bool have_ns = ns_member > 0 && proc_pidns(ns_member, &ns) == 0;
	struct dirent *de;
	DIR *dir = opendir("/proc");
	int count = 0;

	if (dir == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name), sid;
		ino_t pid_ns;
		char state;

		if (pid <= 0 || pid == skip_pid || proc_session(pid, &sid, &state) != 0 ||
		    state == 'Z')
			continue;
		if (sid != session_leader &&
		    !(have_ns && proc_pidns(pid, &pid_ns) == 0 && pid_ns == ns))
			continue;
		count++;
		if (sig != 0)
			kill(pid, sig);
	}
	closedir(dir);
	return count;
}

#else
/* macOS: every pid from libproc, the same test; no pid namespaces, so
 * ns_member adds nothing. */
static int walk_tree(pid_t session_leader, pid_t ns_member, int sig, pid_t skip_pid)
{
	int room = proc_listallpids(NULL, 0), n, count = 0;
	pid_t *pids;

	(void)ns_member;
	if (room <= 0)
		return -1;
	room += 64; /* processes started since the count */
	pids = xcalloc((size_t)room, sizeof *pids);
	n = proc_listallpids(pids, room * (int)sizeof *pids);
	for (int i = 0; i < n; i++) {
		pid_t pid = pids[i], sid;
		char state;

		if (pid <= 0 || pid == skip_pid || proc_session(pid, &sid, &state) != 0 ||
		    state == 'Z' || sid != session_leader)
			continue;
		count++;
		if (sig != 0)
			kill(pid, sig);
	}
	free(pids);
	return n < 0 ? -1 : count;
}
#endif

int backend_signal_tree(pid_t session_leader, pid_t ns_member, int sig)
{
	int count;

	if (session_leader <= 0)
		return -1;
	/* The leader last: when bwrap leads, its death takes the whole pid
	 * namespace with SIGKILL, and the shell should see sig first. */
	count = walk_tree(session_leader, ns_member, sig, session_leader);
	if (kill(-session_leader, sig) == 0 || kill(session_leader, sig) == 0)
		return 0;
	return count > 0 ? 0 : -1;
}

void backend_kill_tree(pid_t session_leader, pid_t ns_member)
{
	struct timespec tick = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};

	if (session_leader <= 0)
		return;
	backend_signal_tree(session_leader, ns_member, SIGHUP);
	backend_signal_tree(session_leader, ns_member, SIGCONT);
	for (int waited = 0; waited < KILL_GRACE_MS; waited += 10) {
		if (walk_tree(session_leader, ns_member, 0, 0) <= 0)
			return;
		nanosleep(&tick, NULL);
	}
	backend_signal_tree(session_leader, ns_member, SIGKILL);
}

int backend_shim_prefix(struct strvec *out, char *exe, size_t size)
{
	char self[PATH_MAX], shim[PATH_MAX];
	const char *slash;
	struct stat st;

	if (exe != NULL && size > 0)
		exe[0] = '\0';
	if (os_self_exe(self, sizeof self) != 0)
		return -1;
	if (strstr(self, " (deleted)") != NULL)
		return -1;
	slash = strrchr(self, '/');
	if (slash != NULL &&
	    snprintf(shim, sizeof shim, "%.*s/sandmux-shim", (int)(slash - self), self) <
		(int)sizeof shim &&
	    stat(shim, &st) == 0 && S_ISREG(st.st_mode) && access(shim, X_OK) == 0) {
		if (exe != NULL && size > 0)
			snprintf(exe, size, "%s", shim);
		return strvec_push(out, shim);
	}
	return strvec_pushv(out, (const char *const[]){self, "shim"}, 2);
}

int backend_trash_rm_dir(char *out, size_t size)
{
	static const char *const layouts[] = {"%.*s/sandmux-trash", "%.*s/../lib/sandmux/trash"};
	char self[PATH_MAX], dir[PATH_MAX + 32], rm[PATH_MAX + 40];
	const char *slash;

	if (os_self_exe(self, sizeof self) != 0 || (slash = strrchr(self, '/')) == NULL)
		return -1;
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		snprintf(dir, sizeof dir, layouts[i], (int)(slash - self), self);
		snprintf(rm, sizeof rm, "%s/rm", dir);
		if (access(rm, X_OK) == 0 && realpath(dir, out) != NULL && strlen(out) < size)
			return 0;
	}
	return -1;
}
