/*
 * probe: what this host can sandbox with, found once at server start.
 *
 * The result is fixed for the server's life (docs/design.md invariant 5): a
 * pane's label is decided against it, and it is printed as one startup
 * line and served as JSON by `sandmux probe`.  This file knows the
 * platform and the order; each backend probes for itself (its `.probe`
 * in the table fills its own record: native.c runs bwrap once to know it
 * really builds a sandbox here, microvm.c boots its guest under KVM, each
 * in a child process beside the server's first requests) with the
 * helpers here.  Programs are run from argv arrays, never through a
 * shell.  A backend whose probe answers later is waited for by whoever
 * reads its record (through the backends' `.probe_settle`): the native
 * record by every reader of the result (backend_probe_result), microvm's
 * by its own readers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "error.h"
#include "log.h"
#include "os.h"
#include "strvec.h"

#define PROBE_TIMEOUT_MS 5000

static struct probe_result probe_saved;
static bool probe_done;
static void (*probe_notify_fn)(void); /* backend_probe_notify's */

/* The paths the probe found, one after another, the result's fields
 * pointing into it: five PATH_MAX arrays in the result would be 20 KiB
 * of the server's memory touched for some hundred bytes of text. */
static char probe_paths[5 * PATH_MAX];
static size_t probe_paths_used;

const char *probe_keep_path(const char *path)
{
	size_t n = strlen(path) + 1;
	char *at = probe_paths + probe_paths_used;

	/* Five paths shorter than PATH_MAX each always fit. */
	if (n > sizeof probe_paths - probe_paths_used)
		return "";
	memcpy(at, path, n);
	probe_paths_used += n;
	return at;
}

/* probe_find_on_path, the path found kept in *out ("" when none). */
int probe_find_kept(const char *name, const char *path, const char **out)
{
	char found[PATH_MAX];

	if (probe_find_on_path(name, path, found, sizeof found) != 0)
		return -1;
	*out = probe_keep_path(found);
	return 0;
}

int probe_find_on_path(const char *name, const char *path, char *out, size_t size)
{
	const char *dir = path;

	while (dir != NULL && *dir != '\0') {
		const char *end = strchr(dir, ':');
		struct stat st;
		int n;

		if (end == NULL)
			end = dir + strlen(dir);
		/* An empty entry means the current directory; a probe must
		 * not trust whatever directory the server started in. */
		if (end > dir && dir[0] == '/') {
			n = snprintf(out, size, "%.*s/%s", (int)(end - dir), dir, name);
			if (n > 0 && (size_t)n < size && stat(out, &st) == 0 &&
			    S_ISREG(st.st_mode) && access(out, X_OK) == 0)
				return 0;
		}
		dir = *end ? end + 1 : NULL;
	}
	if (size > 0)
		out[0] = '\0';
	return -1;
}

void probe_platform(const char *sysname, const char *proc_version, char *out, size_t size)
{
	if (strcmp(sysname, "Linux") == 0) {
		bool wsl = proc_version != NULL && strcasestr(proc_version, "microsoft") != NULL;

		snprintf(out, size, "%s", wsl ? "wsl2" : "linux");
		return;
	}
	if (strcmp(sysname, "Darwin") == 0) {
		snprintf(out, size, "macos");
		return;
	}
	snprintf(out, size, "%s", sysname);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static void host_platform(char *out, size_t size)
{
	struct utsname u;
	char version[512] = "";

	if (uname(&u) != 0) {
		snprintf(out, size, "unknown");
		return;
	}
	/* WSL2 tells itself apart only in the kernel's version string. */
#ifdef __linux__
	FILE *f = fopen("/proc/version", "re");

	if (f != NULL) {
		if (fgets(version, sizeof version, f) == NULL)
			version[0] = '\0';
		fclose(f);
	}
#endif
	probe_platform(u.sysname, version, out, size);
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Read the child's output until EOF or the deadline. */
static void read_output(int fd, char *out, size_t size, long timeout_ms)
{
	struct timespec start;
	size_t len = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		long left = timeout_ms - elapsed_ms(&start);
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		n = read(fd, out + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	out[len] = '\0';
}

/* Run argv (argv[0] an absolute path) with stdin from /dev/null and
 * stdout+stderr captured.  Returns its exit status, or -1 when it could
 * not be run, did not finish in time, or died of a signal. */
int probe_run_capture_for(char *const argv[], char *out, size_t size, long timeout_ms)
{
	int pipefd[2], status;
	pid_t pid;

	out[0] = '\0';
	if (os_pipe_cloexec(pipefd, 0) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(pipefd[1], 1) < 0 ||
		    dup2(pipefd[1], 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	read_output(pipefd[0], out, size, timeout_ms);
	close(pipefd[0]);
	/* A hung probe must not hang the server start: kill it (a no-op
	 * when it already exited and is waiting to be reaped). */
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int probe_run_capture(char *const argv[], char *out, size_t size)
{
	return probe_run_capture_for(argv, out, size, PROBE_TIMEOUT_MS);
}

void probe_first_line(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

/* Start find(r, answer) in a child that keeps only its answer's pipe:
 * the server's sockets, logs and its starter's pipe are none of its
 * business, and holding them would keep them open past their owner.
 * The answer goes whole in one write, far below PIPE_BUF. */
int probe_answer_start(const struct probe_result *r,
		       void (*find)(const struct probe_result *, void *), size_t size, pid_t *child,
		       int *fd)
{
	int fds[2];
	pid_t pid;

	if (os_pipe_cloexec(fds, 0) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		unsigned char answer[1024];

		if (size > sizeof answer)
			_exit(1);
		memset(answer, 0, sizeof answer);
		/* Close-on-exec stays: what runs from here must not hold
		 * the answer's pipe open after this child has gone. */
		if (fds[1] != 3 && os_dup_cloexec(fds[1], 3) < 0)
			_exit(1);
		os_close_from(4);
		find(r, answer);
		_exit(write(3, answer, size) == (ssize_t)size ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	*child = pid;
	*fd = fds[0];
	return 0;
}

/* The child's answer into `answer`, once; block: wait for the child,
 * else only take an answer that is already there.  Returns 1 with the
 * answer, 0 when the child ended without one, -1 when there is nothing
 * (yet) to take. */
int probe_answer_take(pid_t *child, int *fd, void *answer, size_t size, bool block)
{
	ssize_t n;
	pid_t done;
	int status;

	if (*child < 0)
		return -1;
	do
		done = waitpid(*child, &status, block ? 0 : WNOHANG);
	while (done < 0 && errno == EINTR);
	if (done == 0)
		return -1;
	/* The child has exited, so its one write is in the pipe or never
	 * happened: this read does not block. */
	do
		n = read(*fd, answer, size);
	while (n < 0 && errno == EINTR);
	close(*fd);
	*fd = -1;
	*child = -1;
	return n == (ssize_t)size;
}

/* Every backend's background part answered; block: wait for it, else
 * take only the answers already there. */
static void probe_settle(bool block)
{
	for (int id = 0; id < SANDBOX_BACKEND_COUNT; id++)
		if (backend_get(id)->probe_settle != NULL)
			backend_get(id)->probe_settle(block);
}

void backend_probe_reap(void)
{
	probe_settle(false);
}

void backend_probe_notify(void (*fn)(void))
{
	probe_notify_fn = fn;
}

void probe_native_complete(void)
{
	if (probe_notify_fn != NULL)
		probe_notify_fn();
}

void backend_probe_microvm_line(const struct probe_result *probe, char *buf, size_t size)
{
	probe_settle(true);
	if (probe->microvm.available)
		snprintf(buf, size, "microvm: available (%s)", probe->microvm.accel);
	else if (probe->microvm.hint[0] != '\0')
		snprintf(buf, size, "microvm: unavailable: %s (install: %s)", probe->microvm.reason,
			 probe->microvm.hint);
	else
		snprintf(buf, size, "microvm: unavailable: %s", probe->microvm.reason);
}

void backend_probe(bool sandbox_off, struct probe_result *out)
{
	/* Filled in place, not built on the stack and copied: every copy
	 * is more of the server's memory touched for good. */
	struct probe_result *r = &probe_saved;

	/* A second probe (only tests make one) ends the first one's checks
	 * and starts from nothing. */
	if (probe_done) {
		probe_settle(true);
		memset(r, 0, sizeof *r);
		probe_paths_used = 0;
	}
	r->sandbox_off = sandbox_off;
	host_platform(r->platform, sizeof r->platform);
	probe_done = true;
	/* Each backend fills its own record (a slow part may answer later:
	 * probe_settle). */
	for (int id = 0; id < SANDBOX_BACKEND_COUNT; id++)
		if (backend_get(id)->probe != NULL)
			backend_get(id)->probe(r);
	if (out != NULL)
		*out = *backend_probe_result();
}

const struct probe_result *backend_probe_result(void)
{
	const struct backend_ops *native = backend_get(SANDBOX_NATIVE);

	/* The native record is read by everyone (the startup line, the
	 * label, every launch's bwrap and socat, microvm's shares): a
	 * bwrap check still running is waited for.  microvm's readers wait
	 * for its answer themselves (its .probe_settle). */
	if (probe_done && native->probe_settle != NULL)
		native->probe_settle(true);
	return probe_done ? &probe_saved : NULL;
}

void backend_probe_line(const struct probe_result *probe, char *buf, size_t size)
{
	if (probe->native.disabled)
		snprintf(buf, size, "sandbox: DISABLED by --sandbox off");
	else if (probe->native.available && strcmp(probe->platform, "macos") == 0)
		snprintf(buf, size,
			 "sandbox: native ON (%s); a writable $HOME is guarded by mandatory "
			 "denies only (no copy-on-write home on macOS)",
			 probe->native.tool);
	else if (probe->native.available && !probe->native.home_layer)
		snprintf(buf, size,
			 "sandbox: native ON (%s), but a profile with a writable $HOME fails: no "
			 "copy-on-write home here (%s)",
			 probe->native.tool, probe->native.home_layer_reason);
	else if (probe->native.available)
		snprintf(buf, size, "sandbox: native ON (%s)", probe->native.tool);
	else if (probe->native.requires_install)
		snprintf(buf, size, "sandbox: no OS-native sandbox on this host (install: %s)",
			 probe->native.hint);
	else
		snprintf(buf, size, "sandbox: no OS-native sandbox on this host (%s)",
			 probe->native.reason);
}

/* Where invariants 4 and 5 meet the probe: a request for a contained
 * backend that this host or this server cannot honour is refused with
 * the reason and the install hint (the backend's .check), and is never
 * answered with a weaker backend. */
int backend_check(enum sandbox_backend id, struct sm_error *err)
{
	const struct probe_result *probe;

	/* The host's own shell needs no probe: it does not wait for one. */
	if (id == SANDBOX_NONE)
		return 0;
	if ((unsigned)id >= SANDBOX_BACKEND_COUNT) {
		sm_error_set(err, SM_ERR_INVALID_BACKEND,
			     "unknown backend: valid backends are none, native, microvm");
		return -1;
	}
	/* Without a probe nothing is known about the host, and guessing
	 * would be a label the host may not honour.  A probe still asking
	 * bwrap is waited for. */
	probe = backend_probe_result();
	if (probe == NULL) {
		sm_error_set(err, SM_ERR_BACKEND_UNAVAILABLE,
			     "%s sandbox unavailable: the host has not been probed",
			     sandbox_backend_name(id));
		return -1;
	}
	return backend_get(id)->check != NULL ? backend_get(id)->check(probe, err) : 0;
}

static bool add_text(cJSON *obj, const char *key, const char *value)
{
	if (value[0] == '\0')
		return cJSON_AddNullToObject(obj, key) != NULL;
	return cJSON_AddStringToObject(obj, key, value) != NULL;
}

cJSON *probe_to_json(const struct probe_result *probe)
{
	cJSON *obj = cJSON_CreateObject();
	cJSON *native, *microvm;

	probe_settle(true);
	if (obj == NULL || !add_text(obj, "platform", probe->platform)) {
		cJSON_Delete(obj);
		return NULL;
	}
	native = cJSON_AddObjectToObject(obj, "native");
	microvm = cJSON_AddObjectToObject(obj, "microvm");
	if (native == NULL || microvm == NULL ||
	    !cJSON_AddBoolToObject(native, "available", probe->native.available) ||
	    !cJSON_AddBoolToObject(native, "requiresInstall", probe->native.requires_install) ||
	    !cJSON_AddBoolToObject(native, "disabled", probe->native.disabled) ||
	    !add_text(native, "tool", probe->native.tool) ||
	    !add_text(native, "hint", probe->native.hint) ||
	    !add_text(native, "reason", probe->native.reason) ||
	    !cJSON_AddBoolToObject(native, "homeLayer", probe->native.home_layer) ||
	    !add_text(native, "homeLayerReason",
		      probe->native.home_layer ? "" : probe->native.home_layer_reason) ||
	    !cJSON_AddBoolToObject(microvm, "available", probe->microvm.available) ||
	    !add_text(microvm, "reason", probe->microvm.available ? "" : probe->microvm.reason) ||
	    !add_text(microvm, "hint", probe->microvm.hint) ||
	    !add_text(microvm, "tool", probe->microvm.tool) ||
	    !add_text(microvm, "accelerator", probe->microvm.accel) ||
	    !add_text(microvm, "kvmReason", probe->microvm.kvm_reason)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}
