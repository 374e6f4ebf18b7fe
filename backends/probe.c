/*
 * probe: what this host can sandbox with, found once at server start.
 *
 * The result is fixed for the server's life (docs/design.md invariant 5): a
 * pane's label is decided against it, and it is printed as one startup
 * line and served as JSON by `sandmux probe`.  Linux native needs bwrap
 * and socat on the server's PATH and a bwrap that can really build the
 * terminal profile's namespaces here; the probe runs it once to know.
 * Programs are run from argv arrays, never through a shell.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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
#include "log.h"

#define PROBE_TIMEOUT_MS 5000

static struct probe_result probe_saved;
static bool probe_done;

int probe_find_on_path(const char *name, const char *path, char *out, size_t size)
{
	const char *dir = path;

	while (dir != NULL && *dir != '\0') {
		const char *end = strchrnul(dir, ':');
		struct stat st;
		int n;

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
	FILE *f;

	if (uname(&u) != 0) {
		snprintf(out, size, "unknown");
		return;
	}
	f = fopen("/proc/version", "re");
	if (f != NULL) {
		if (fgets(version, sizeof version, f) == NULL)
			version[0] = '\0';
		fclose(f);
	}
	probe_platform(u.sysname, version, out, size);
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Read the child's output until EOF or the deadline. */
static void read_output(int fd, char *out, size_t size)
{
	struct timespec start;
	size_t len = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		long left = PROBE_TIMEOUT_MS - elapsed_ms(&start);
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
static int run_capture(char *const argv[], char *out, size_t size)
{
	int pipefd[2], status;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0)
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
	read_output(pipefd[0], out, size);
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

static void first_line(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

/* "bubblewrap 0.8.0" from `bwrap --version`. */
static int bwrap_version(const char *bwrap, char *out, size_t size)
{
	char *const argv[] = {(char *)bwrap, "--version", NULL};
	char buf[256];

	if (run_capture(argv, buf, sizeof buf) != 0)
		return -1;
	first_line(buf);
	if (buf[0] == '\0')
		return -1;
	snprintf(out, size, "%s", buf);
	return 0;
}

/* Build the namespaces and masks the terminal profile uses and run bwrap's
 * own binary inside them: where unprivileged user namespaces are blocked
 * (sysctl, AppArmor), bwrap is installed but cannot sandbox, and the
 * label must not promise what a launch would not deliver. */
static int bwrap_smoke_test(const char *bwrap, char *out, size_t size)
{
	char *const argv[] = {
	    (char *)bwrap,
	    "--die-with-parent",
	    "--unshare-user",
	    "--unshare-pid",
	    "--unshare-ipc",
	    "--unshare-uts",
	    "--unshare-cgroup-try",
	    "--cap-drop",
	    "ALL",
	    "--ro-bind",
	    "/",
	    "/",
	    "--tmpfs",
	    "/tmp",
	    "--dev",
	    "/dev",
	    "--proc",
	    "/proc",
	    "--perms",
	    "0000",
	    "--tmpfs",
	    "/tmp/mask",
	    "--remount-ro",
	    "/tmp/mask",
	    "--",
	    (char *)bwrap,
	    "--version",
	    NULL,
	};

	if (run_capture(argv, out, size) == 0)
		return 0;
	first_line(out);
	return -1;
}

static void probe_native_linux(struct probe_result *out)
{
	bool have_bwrap, have_socat;
	const char *path = getenv("PATH");
	char output[512];

	have_bwrap = probe_find_on_path("bwrap", path, out->native_bwrap_path,
					sizeof out->native_bwrap_path) == 0;
	have_socat = probe_find_on_path("socat", path, out->native_socat_path,
					sizeof out->native_socat_path) == 0;
	if (!have_bwrap || !have_socat) {
		out->native_requires_install = true;
		snprintf(out->native_hint, sizeof out->native_hint, "apt-get install%s%s",
			 have_bwrap ? "" : " bubblewrap", have_socat ? "" : " socat");
		snprintf(out->native_reason, sizeof out->native_reason, "%s not found on PATH",
			 !have_bwrap && !have_socat ? "bwrap and socat"
			 : !have_bwrap		    ? "bwrap (bubblewrap)"
						    : "socat");
		return;
	}
	if (bwrap_version(out->native_bwrap_path, out->native_tool, sizeof out->native_tool) != 0) {
		snprintf(out->native_reason, sizeof out->native_reason, "%.130s --version failed",
			 out->native_bwrap_path);
		return;
	}
	if (bwrap_smoke_test(out->native_bwrap_path, output, sizeof output) != 0) {
		snprintf(out->native_reason, sizeof out->native_reason,
			 "%.40s cannot create a sandbox here: %.80s", out->native_tool,
			 output[0] ? output : "it failed without a message");
		snprintf(out->native_hint, sizeof out->native_hint,
			 "allow unprivileged user namespaces (sysctl "
			 "kernel.unprivileged_userns_clone, "
			 "kernel.apparmor_restrict_unprivileged_userns)");
		return;
	}
	out->native_available = true;
}

void backend_probe(bool sandbox_off, struct probe_result *out)
{
	struct probe_result r;

	memset(&r, 0, sizeof r);
	host_platform(r.platform, sizeof r.platform);
	if (strcmp(r.platform, "linux") == 0 || strcmp(r.platform, "wsl2") == 0)
		probe_native_linux(&r);
	else
		snprintf(r.native_reason, sizeof r.native_reason,
			 "native sandbox is not offered on this platform");
	if (sandbox_off) {
		/* The host may be able to; this server will not. */
		r.native_disabled = true;
		r.native_available = false;
		snprintf(r.native_reason, sizeof r.native_reason, "disabled by --sandbox off");
	}
	r.microvm_available = false;
	snprintf(r.microvm_reason, sizeof r.microvm_reason, "microvm backend not built yet");
	log_debug("%s: platform %s, native %s (%s), microvm %s", __func__, r.platform,
		  r.native_available ? "available" : "unavailable",
		  r.native_available ? r.native_tool : r.native_reason,
		  r.microvm_available ? "available" : r.microvm_reason);
	probe_saved = r;
	probe_done = true;
	if (out != NULL)
		*out = r;
}

const struct probe_result *backend_probe_result(void)
{
	return probe_done ? &probe_saved : NULL;
}

void backend_probe_line(const struct probe_result *probe, char *buf, size_t size)
{
	if (probe->native_disabled)
		snprintf(buf, size, "sandbox: DISABLED by --sandbox off");
	else if (probe->native_available)
		snprintf(buf, size, "sandbox: native ON (%s)", probe->native_tool);
	else if (probe->native_requires_install)
		snprintf(buf, size, "sandbox: no OS-native sandbox on this host (install: %s)",
			 probe->native_hint);
	else
		snprintf(buf, size, "sandbox: no OS-native sandbox on this host (%s)",
			 probe->native_reason);
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

	if (obj == NULL || !add_text(obj, "platform", probe->platform)) {
		cJSON_Delete(obj);
		return NULL;
	}
	native = cJSON_AddObjectToObject(obj, "native");
	microvm = cJSON_AddObjectToObject(obj, "microvm");
	if (native == NULL || microvm == NULL ||
	    !cJSON_AddBoolToObject(native, "available", probe->native_available) ||
	    !cJSON_AddBoolToObject(native, "requiresInstall", probe->native_requires_install) ||
	    !cJSON_AddBoolToObject(native, "disabled", probe->native_disabled) ||
	    !add_text(native, "tool", probe->native_tool) ||
	    !add_text(native, "hint", probe->native_hint) ||
	    !add_text(native, "reason", probe->native_reason) ||
	    !cJSON_AddBoolToObject(microvm, "available", probe->microvm_available) ||
	    !add_text(microvm, "reason", probe->microvm_reason)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}
