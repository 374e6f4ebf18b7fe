/*
 * probe: what this host can sandbox with, found once at server start.
 *
 * The result is fixed for the server's life (docs/design.md invariant 5): a
 * pane's label is decided against it, and it is printed as one startup
 * line and served as JSON by `sandmux probe`.  Linux native needs bwrap
 * and socat on the server's PATH and a bwrap that can really build the
 * terminal profile's namespaces here; the probe runs it once to know.
 * Programs are run from argv arrays, never through a shell.
 *
 * microvm is probed in two parts so that it never delays the start: what
 * costs nothing (qemu on PATH, the guest image on disk) at once, and what
 * runs programs in a child process afterwards: qemu's version, and which
 * accelerator really boots the guest.  A readable /dev/kvm is not enough
 * (on this project's host a stock kernel dies under KVM with "KVM
 * internal error"), so the check boots the guest image under KVM with
 * the agent's probe mode and waits, bounded, for its "sandmux-probe-ok";
 * anything else means TCG.  Whoever reads the microvm result waits for
 * that child's answer first (backend_probe_microvm_wait).
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
#include "bwrap.h"
#include "error.h"
#include "seatbelt-launch.h"
#include "home-layer.h"
#include "log.h"
#include "microvm.h"
#include "strvec.h"

#define PROBE_TIMEOUT_MS 5000
/* `qemu --version` answers in ~30 ms; a guest under working KVM reaches
 * its init in well under a second. */
#define QEMU_VERSION_TIMEOUT_MS 3000
#define KVM_CHECK_TIMEOUT_MS 4000

static struct probe_result probe_saved;
static bool probe_done;

/* The paths the probe found, one after another, the result's fields
 * pointing into it: five PATH_MAX arrays in the result would be 20 KiB
 * of the server's memory touched for some hundred bytes of text. */
static char probe_paths[5 * PATH_MAX];
static size_t probe_paths_used;

static const char *keep_path(const char *path)
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
static int find_kept(const char *name, const char *path, const char **out)
{
	char found[PATH_MAX];

	if (probe_find_on_path(name, path, found, sizeof found) != 0)
		return -1;
	*out = keep_path(found);
	return 0;
}

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
static int run_capture_for(char *const argv[], char *out, size_t size, long timeout_ms)
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

static int run_capture(char *const argv[], char *out, size_t size)
{
	return run_capture_for(argv, out, size, PROBE_TIMEOUT_MS);
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

/* Build the namespaces and masks of a launch, with the argv a launch
 * gets (bwrap_build_argv: every namespace, the read-only root, the
 * private /tmp, /dev and /proc, a deny-read directory masked), and run
 * bwrap's own binary inside them: where unprivileged user namespaces are
 * blocked (sysctl, AppArmor), bwrap is installed but cannot sandbox, and
 * the label must not promise what a launch would not deliver. */
static int bwrap_smoke_test(const char *bwrap, char *out, size_t size)
{
	/* A directory every Debian host has (FHS), masked as a profile's
	 * deny-read directory is; one that is missing is left out, as a
	 * launch leaves it out. */
	static const char *const deny_read[] = {"/var/tmp", NULL};
	char *const command[] = {(char *)bwrap, "--version", NULL};
	const struct bwrap_input in = {
	    .bwrap = bwrap,
	    .home = "/",
	    .cwd = "/",
	    .no_home = true,
	    .no_cwd = true,
	    .deny_read = deny_read,
	    .status_fd = -1,
	    .argv = command,
	};
	struct strvec argv = STRVEC_INIT;
	struct sm_error err = {0};
	int rc = -1;

	if (bwrap_build_argv(&in, &argv, &err) != 0)
		snprintf(out, size, "%s", err.message);
	else if ((rc = run_capture(argv.v, out, size)) != 0)
		first_line(out);
	strvec_free(&argv);
	return rc == 0 ? 0 : -1;
}

/* The copy-on-write home's mount, made by the shim's own step
 * (home-layer.h); false with the step's message. */
static bool home_layer_works(char *reason, size_t size)
{
	static const char prefix[] = "sandmux home layer: ";
	struct home_layer_probe p;
	char output[512];
	bool works = false;

	if (home_layer_probe_start(&p, reason, size) == 0) {
		works = run_capture(p.argv.v, output, sizeof output) == 0;
		first_line(output);
		if (!works)
			snprintf(reason, size, "%s",
				 output[0] == '\0' ? "the shim's --home-layer step failed"
				 : strncmp(output, prefix, sizeof prefix - 1) == 0
				     ? output + sizeof prefix - 1
				     : output);
	}
	home_layer_probe_end(&p);
	return works;
}

/* --- native, in the background ------------------------------------------ */

/* What bwrap itself says (its version, whether it can build the terminal
 * profile's namespaces here, whether the copy-on-write home mounts) is
 * asked in a child process, as the microvm check is (see there), so the
 * server answers its first request meanwhile.  Every reader of the
 * result waits for the answer first (backend_probe_result): a native
 * request that arrives before it is decided on the answer, never on a
 * guess, and a pane that runs on the host does not read the result. */
struct native_answer {
	bool available, home_layer;
	char tool[64], reason[160], hint[160], home_layer_reason[200];
};

static pid_t native_child = -1; /* the bwrap check, until its answer is taken */
static int native_answer_fd = -1;
static bool native_sandbox_off;
static void (*native_notify)(void);

/* The slow part, in the child. */
static void native_answer_find(const struct probe_result *r, void *answer)
{
	struct native_answer *a = answer;
	char output[512];

	if (bwrap_version(r->native.bwrap_path, a->tool, sizeof a->tool) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.130s --version failed",
			 r->native.bwrap_path);
		return;
	}
	if (bwrap_smoke_test(r->native.bwrap_path, output, sizeof output) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.40s cannot create a sandbox here: %.80s",
			 a->tool, output[0] ? output : "it failed without a message");
		snprintf(a->hint, sizeof a->hint,
			 "allow unprivileged user namespaces (sysctl "
			 "kernel.unprivileged_userns_clone, "
			 "kernel.apparmor_restrict_unprivileged_userns)");
		return;
	}
	a->available = true;
	a->home_layer = home_layer_works(a->home_layer_reason, sizeof a->home_layer_reason);
}

/* Start find(r, answer) in a child that keeps only its answer's pipe:
 * the server's sockets, logs and its starter's pipe are none of its
 * business, and holding them would keep them open past their owner.
 * The answer goes whole in one write, far below PIPE_BUF. */
static int answer_start(const struct probe_result *r,
			void (*find)(const struct probe_result *, void *), size_t size,
			pid_t *child, int *fd)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		unsigned char answer[1024];

		if (size > sizeof answer)
			_exit(1);
		memset(answer, 0, sizeof answer);
		/* Close-on-exec stays: what runs from here must not hold
		 * the answer's pipe open after this child has gone. */
		if (fds[1] != 3 && dup3(fds[1], 3, O_CLOEXEC) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
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
static int answer_take(pid_t *child, int *fd, void *answer, size_t size, bool block)
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

/* The native result is complete: --sandbox off has its say, and the
 * server hears of it. */
static void native_settle(struct probe_result *r)
{
	if (native_sandbox_off) {
		/* The host may be able to; this server will not. */
		r->native.disabled = true;
		r->native.available = false;
		snprintf(r->native.reason, sizeof r->native.reason, "disabled by --sandbox off");
	}
	log_debug("%s: platform %s, native %s (%s)", __func__, r->platform,
		  r->native.available ? "available" : "unavailable",
		  r->native.available ? r->native.tool : r->native.reason);
	if (native_notify != NULL)
		native_notify();
}

static void native_answer_take(bool block)
{
	struct probe_result *r = &probe_saved;
	struct native_answer a;
	int got = answer_take(&native_child, &native_answer_fd, &a, sizeof a, block);

	if (got < 0)
		return;
	if (got == 0) {
		snprintf(r->native.reason, sizeof r->native.reason,
			 "the bwrap check ended without an answer");
	} else {
		r->native.available = a.available;
		r->native.home_layer = a.home_layer;
		snprintf(r->native.tool, sizeof r->native.tool, "%s", a.tool);
		snprintf(r->native.reason, sizeof r->native.reason, "%s", a.reason);
		snprintf(r->native.hint, sizeof r->native.hint, "%s", a.hint);
		snprintf(r->native.home_layer_reason, sizeof r->native.home_layer_reason, "%s",
			 a.home_layer_reason);
	}
	native_settle(r);
}

/* What costs nothing (bwrap and socat on PATH) now; returns whether the
 * bwrap check was started, whose answer settles the result later. */
static bool probe_native_linux(struct probe_result *out)
{
	bool have_bwrap, have_socat;
	const char *path = getenv("PATH");

	have_bwrap = find_kept("bwrap", path, &out->native.bwrap_path) == 0;
	have_socat = find_kept("socat", path, &out->native.socat_path) == 0;
	if (!have_bwrap || !have_socat) {
		out->native.requires_install = true;
		snprintf(out->native.hint, sizeof out->native.hint, "apt-get install%s%s",
			 have_bwrap ? "" : " bubblewrap", have_socat ? "" : " socat");
		snprintf(out->native.reason, sizeof out->native.reason, "%s not found on PATH",
			 !have_bwrap && !have_socat ? "bwrap and socat"
			 : !have_bwrap		    ? "bwrap (bubblewrap)"
						    : "socat");
		return false;
	}
	if (answer_start(out, native_answer_find, sizeof(struct native_answer), &native_child,
			 &native_answer_fd) != 0) {
		snprintf(out->native.reason, sizeof out->native.reason, "cannot start the bwrap check");
		return false;
	}
	return true;
}

/* macOS: sandbox-exec where Apple puts it (never from PATH: a pane's
 * PATH is not the host's word), and a trivial profile really applied. */
static void probe_native_macos(struct probe_result *out)
{
	char *const argv[] = {SEATBELT_EXEC_PATH, "-p", SEATBELT_PROBE_PROFILE, "/usr/bin/true",
			      NULL};
	char output[512] = "";
	bool exists = access(SEATBELT_EXEC_PATH, X_OK) == 0;
	int rc = exists ? run_capture(argv, output, sizeof output) : -1;

	first_line(output);
	/* run_capture gives an exit code, or -1: as a wait status. */
	seatbelt_probe_decide(exists, rc < 0 ? 0x7f : rc << 8, output, out);
}

/* --- microvm ------------------------------------------------------------ */

/* The slow part runs in a child process, not a thread of the server:
 * what it touches (qemu's output, scanf, a thread's stack and malloc
 * arena, the libc code of all that) is then the child's memory, gone
 * when it exits, and the server keeps only the answer.  The child
 * sends it whole over a pipe (one write, far below PIPE_BUF) and exits;
 * the server takes it at its SIGCHLD (backend_probe_reap) or,
 * when a request needs it first, waits for it.  The server's loop is
 * one thread, and so are the readers of the answer. */
struct microvm_answer {
	bool available;
	char reason[160], hint[160], tool[64], accel[8], kvm_reason[160];
};

static pid_t microvm_child = -1; /* the slow part, until its answer is taken */
static int microvm_answer_fd = -1;

/* Where the guest image is: $SANDMUX_MICROVM_DIR, else microvm/ beside
 * the binary (the build tree), else ../share/sandmux/microvm (make
 * install). */
static void microvm_image_dir(char *out, size_t size)
{
	const char *env = getenv("SANDMUX_MICROVM_DIR");
	char self[4096], probe_path[4200];
	const char *bin_dir;
	ssize_t n;
	struct stat st;

	if (env != NULL && env[0] != '\0') {
		snprintf(out, size, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		snprintf(out, size, "/usr/local/share/sandmux/microvm");
		return;
	}
	self[n] = '\0';
	bin_dir = dirname(self);
	snprintf(out, size, "%s/microvm", bin_dir);
	snprintf(probe_path, sizeof probe_path, "%s/vmlinux", out);
	if (stat(probe_path, &st) != 0) {
		char up[4200];

		snprintf(up, sizeof up, "%s/../share/sandmux/microvm", bin_dir);
		snprintf(probe_path, sizeof probe_path, "%s/vmlinux", up);
		if (stat(probe_path, &st) == 0)
			snprintf(out, size, "%s", up);
	}
}

/* "qemu 7.2.22" from "QEMU emulator version 7.2.22 (Debian ...)". */
static int qemu_version(const char *qemu, char *out, size_t size)
{
	char *const argv[] = {(char *)qemu, "--version", NULL};
	char buf[512], version[64];
	const char *at;

	if (run_capture_for(argv, buf, sizeof buf, QEMU_VERSION_TIMEOUT_MS) != 0)
		return -1;
	at = strstr(buf, "version ");
	if (at == NULL || sscanf(at + 8, "%63s", version) != 1)
		return -1;
	snprintf(out, size, "qemu %s", version);
	return 0;
}

/* Does KVM boot the guest image here?  0 yes; -1 no, why in reason. */
static int kvm_boots(const struct probe_result *r, char *reason, size_t size)
{
	struct strvec argv = STRVEC_INIT;
	char output[4096];
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(reason, size, "/dev/kvm: %s", strerror(errno));
		return -1;
	}
	close(fd);
	if (microvm_probe_argv(r->microvm.qemu_path, r->microvm.dir, &argv) != 0) {
		strvec_free(&argv);
		snprintf(reason, size, "out of memory");
		return -1;
	}
	run_capture_for(argv.v, output, sizeof output, KVM_CHECK_TIMEOUT_MS);
	strvec_free(&argv);
	if (strstr(output, "sandmux-probe-ok") != NULL)
		return 0;
	first_line(output);
	if (output[0] != '\0')
		snprintf(reason, size, "KVM cannot boot the guest here: %.100s", output);
	else
		snprintf(reason, size, "KVM did not boot the guest within %d s",
			 KVM_CHECK_TIMEOUT_MS / 1000);
	return -1;
}

/* The slow part, in the child: qemu's version, then the accelerator. */
static void microvm_answer_find(const struct probe_result *r, void *answer)
{
	struct microvm_answer *a = answer;
	const char *accel = getenv("SANDMUX_MICROVM_ACCEL");
	bool kvm = false;

	if (qemu_version(r->microvm.qemu_path, a->tool, sizeof a->tool) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.120s --version failed",
			 r->microvm.qemu_path);
		snprintf(a->hint, sizeof a->hint, "apt-get install qemu-system-x86");
		return;
	}
	a->available = true;
	if (accel != NULL && strcmp(accel, "tcg") == 0)
		snprintf(a->kvm_reason, sizeof a->kvm_reason, "not tried: SANDMUX_MICROVM_ACCEL=tcg");
	else
		kvm = kvm_boots(r, a->kvm_reason, sizeof a->kvm_reason) == 0;
	snprintf(a->accel, sizeof a->accel, "%s", kvm ? "kvm" : "tcg");
}

/* The child's answer into probe_saved, once; block: wait for the child,
 * else only take an answer that is already there.  A child that died
 * without answering leaves microvm unavailable, saying so. */
static void microvm_answer_take(bool block)
{
	struct probe_result *r = &probe_saved;
	struct microvm_answer a;
	int got = answer_take(&microvm_child, &microvm_answer_fd, &a, sizeof a, block);

	if (got < 0)
		return;
	if (got == 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "the qemu check ended without an answer");
	} else if (a.available) {
		snprintf(r->microvm.tool, sizeof r->microvm.tool, "%s", a.tool);
		snprintf(r->microvm.accel, sizeof r->microvm.accel, "%s", a.accel);
		snprintf(r->microvm.kvm_reason, sizeof r->microvm.kvm_reason, "%s", a.kvm_reason);
		r->microvm.available = true;
	} else {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "%s", a.reason);
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "%s", a.hint);
	}
	log_info("microvm: %s%s%s%s", r->microvm.available ? "available, " : "unavailable: ",
		 r->microvm.available ? r->microvm.accel : r->microvm.reason,
		 r->microvm.kvm_reason[0] ? "; kvm: " : "", r->microvm.kvm_reason);
}

static void microvm_answer_start(struct probe_result *r)
{
	if (answer_start(r, microvm_answer_find, sizeof(struct microvm_answer), &microvm_child,
			 &microvm_answer_fd) != 0)
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "cannot start the qemu check");
}

static void probe_microvm(struct probe_result *r, bool sandbox_off)
{
	char dir[PATH_MAX], kernel[4200], initrd[4200];
	struct stat st;

	r->microvm.available = false;
	microvm_image_dir(dir, sizeof dir);
	r->microvm.dir = keep_path(dir);
	if (sandbox_off) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "disabled by --sandbox off");
		return;
	}
	if (find_kept("qemu-system-x86_64", getenv("PATH"), &r->microvm.qemu_path) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "qemu-system-x86_64 not found on PATH");
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "apt-get install qemu-system-x86");
		return;
	}
	/* diod serves the guest its files (microvm.c says why not qemu's
	 * own 9p); Debian puts it in /usr/sbin, which a user's PATH lacks. */
	if (find_kept("diod", getenv("PATH"), &r->microvm.diod_path) != 0 &&
	    find_kept("diod", "/usr/sbin:/sbin", &r->microvm.diod_path) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "diod (the guest's file server) not found");
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "apt-get install diod");
		return;
	}
	snprintf(kernel, sizeof kernel, "%s/vmlinux", r->microvm.dir);
	snprintf(initrd, sizeof initrd, "%s/initramfs.cpio", r->microvm.dir);
	if (stat(kernel, &st) != 0 || stat(initrd, &st) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "guest image missing: %.120s",
			 stat(kernel, &st) != 0 ? kernel : initrd);
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "make microvm-image");
		return;
	}
	snprintf(r->microvm.reason, sizeof r->microvm.reason, "qemu not checked");
	microvm_answer_start(r);
}

void backend_probe_microvm_wait(void)
{
	microvm_answer_take(true);
}

void backend_probe_reap(void)
{
	native_answer_take(false);
	microvm_answer_take(false);
}

void backend_probe_notify(void (*fn)(void))
{
	native_notify = fn;
}

void backend_probe_microvm_line(const struct probe_result *probe, char *buf, size_t size)
{
	backend_probe_microvm_wait();
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
	bool checking = false;

	/* A second probe (only tests make one) ends the first one's checks
	 * and starts from nothing. */
	if (probe_done) {
		native_answer_take(true);
		microvm_answer_take(true);
		memset(r, 0, sizeof *r);
		probe_paths_used = 0;
	}
	native_sandbox_off = sandbox_off;
	r->sandbox_off = sandbox_off;
	r->native.bwrap_path = r->native.socat_path = "";
	r->microvm.qemu_path = r->microvm.diod_path = r->microvm.dir = "";
	host_platform(r->platform, sizeof r->platform);
	if (strcmp(r->platform, "linux") == 0 || strcmp(r->platform, "wsl2") == 0)
		checking = probe_native_linux(r);
	else if (strcmp(r->platform, "macos") == 0)
		probe_native_macos(r);
	else
		snprintf(r->native.reason, sizeof r->native.reason,
			 "native sandbox is not offered on this platform");
	probe_done = true;
	/* The children's answers fill the rest later. */
	probe_microvm(r, sandbox_off);
	if (!checking)
		native_settle(r);
	if (out != NULL)
		*out = *backend_probe_result();
}

const struct probe_result *backend_probe_result(void)
{
	native_answer_take(true);
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

	backend_probe_microvm_wait();
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
