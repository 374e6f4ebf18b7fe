/*
 * shim: the first process inside a native sandbox.  bwrap runs
 *
 *   sandmux-shim --fd N [--nproc LIMIT] [--userns UID:GID]
 *                [--ro PATH | --ro-try PATH | --ro-mount PATH]... -- COMMAND...
 *   sandmux-shim --fd N [--nproc LIMIT] [--userns UID:GID] [--ro PATH | ...]... --wait
 *
 * (the static build/sandmux-shim next to the sandmux binary; `sandmux
 * shim`, the same code, where that is missing) and the shim, before the
 * command ever runs:
 *
 *   1. sets no_new_privs, so nothing exec'd later gains privileges and
 *      the filter may be installed without CAP_SYS_ADMIN;
 *   1b. with --ro (and --ro-try, which skips a path that does not
 *      exist), bind-mounts each PATH read-only over itself, submounts
 *      included; with --ro-mount, makes the mount at PATH (a deny mask's
 *      tmpfs) read-only in place; with --userns (a server not run as
 *      root: bwrap mapped the user to uid 0 so that the shim could
 *      mount), then moves into a new user namespace of its own where the
 *      user is UID:GID again (the mounts made above are locked there:
 *      nothing inside can undo them); then drops every capability bwrap
 *      left it for that (CAP_SYS_ADMIN, CAP_SETPCAP, and CAP_SETFCAP
 *      for the new namespace's map), or the new namespace gave it, from
 *      every set, bounding and
 *      ambient included, and checks that none is left.  These are the
 *      read-only binds bwrap would otherwise make one by one
 *      (backends/bwrap.c, "Read-only binds in the shim"): one
 *      open_tree/mount_setattr/move_mount each here, where bwrap reads
 *      and parses the whole mount table for each;
 *   2. joins a new, empty session keyring (the server's holds the
 *      user's keys), then installs the seccomp filter the server sent
 *      (built there with libseccomp, backends/shim-filter.c): it denies
 *      a few syscalls outright (keyctl among them) and hands the
 *      path-taking calls (open family, mkdir, mknod, symlink, link,
 *      rename, unlink, rmdir, the attribute calls, bind) to a
 *      user-notification listener;
 *   3. sends the listener to the server's supervisor over fd N (a
 *      socketpair end bwrap passed in) with SCM_RIGHTS, and closes its
 *      own copy: nothing inside the sandbox may answer for itself;
 *   4. with --nproc, sets RLIMIT_NPROC (backends/sandbox-limits.h: the
 *      process limit where no pids control group holds the pane);
 *   5. execs the command.
 *
 * Every failure is loud: the shim prints why and exits 126, and the
 * server, which never got a handshake, marks the pane FAILED.  The
 * command never runs unfiltered.
 *
 * Protocol on fd N (a SOCK_SEQPACKET socket).  From the server, queued
 * before bwrap starts: "sandmux-shim 2 filter", a NUL, the BPF program.
 * To the server: "sandmux-shim 2 listener" carrying the listener fd and
 * the read end of the exec watch (a pipe whose write end closes when
 * the command's exec succeeds), or "sandmux-shim 2 failed: REASON" when
 * something went wrong after the socket was usable.  fd N is
 * close-on-exec.
 *
 * --wait is a sandbox prepared ahead (backends/native.c, "the prepared
 * sandbox"): after the filter the shim waits for "sandmux-shim 2 run"
 * with the command and its whole environment (SHIM_RUN_MAX), then goes
 * on as above.  If the server closes the socket instead (it threw the
 * prepared sandbox away), the shim exits 0 without running anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "native-inside.h"
#include "seccomp-compat.h"
#include "shim-filter.h"
#include "shim-home.h"

#define SHIM_EXIT_FAILED 126

static int shim_sock = -1;

/* Tell the user (the pane's PTY) and the server why, then stop.  _exit:
 * once the filter is in, sanitizer exit hooks (LeakSanitizer uses
 * ptrace) would only fail noisily. */
static void shim_fail(const char *fmt, ...)
{
	char reason[512], msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	fprintf(stderr, "sandmux shim: %s\n", reason);
	if (shim_sock >= 0) {
		int n = snprintf(msg, sizeof msg, SHIM_HELLO " failed: %s", reason);
		if (send(shim_sock, msg, (size_t)n, MSG_NOSIGNAL) < 0) {
			/* The server is gone; stderr already said why. */
		}
	}
	_exit(SHIM_EXIT_FAILED);
}

/* The filter, as the server sent it: one message, the hello line and a
 * NUL, then the BPF program (backends/shim-filter.c builds it).  The
 * message was queued before bwrap started, so this never waits. */
static void receive_program(struct sock_fprog *prog)
{
	static const char hello[] = SHIM_HELLO " filter";
	static union {
		char bytes[sizeof hello + BPF_MAXINSNS * sizeof(struct sock_filter)];
		struct sock_filter align;
	} msg;
	ssize_t n = recv(shim_sock, msg.bytes, sizeof msg.bytes, MSG_TRUNC);
	size_t bytes;

	if (n < 0)
		shim_fail("cannot read the filter from the server: %s", strerror(errno));
	if ((size_t)n > sizeof msg.bytes || (size_t)n <= sizeof hello ||
	    memcmp(msg.bytes, hello, sizeof hello) != 0)
		shim_fail("the server sent no usable filter (is the shim from the same build?)");
	bytes = (size_t)n - sizeof hello;
	if (bytes % sizeof(struct sock_filter) != 0)
		shim_fail("the server's filter is not a BPF program");
	/* Copied to an aligned buffer of its own: the kernel reads the
	 * instructions as struct sock_filter. */
	prog->len = (unsigned short)(bytes / sizeof(struct sock_filter));
	prog->filter = malloc(bytes);
	if (prog->filter == NULL)
		shim_fail("out of memory");
	memcpy(prog->filter, msg.bytes + sizeof hello, bytes);
}

/* A prepared sandbox's command and environment, in one message (see the
 * top of the file).  The vectors point into the message, which is kept
 * until the exec. */
static void receive_run(char ***argv_out, char ***envp_out)
{
	static const char hello[] = SHIM_HELLO " run";
	char *msg = malloc(SHIM_RUN_MAX), *p, *end, **vec;
	size_t count = 0, i = 0;
	ssize_t n;

	if (msg == NULL)
		shim_fail("out of memory");
	do
		n = recv(shim_sock, msg, SHIM_RUN_MAX, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		_exit(0); /* thrown away before use: nothing ran */
	if (n < 0)
		shim_fail("cannot read the command from the server: %s", strerror(errno));
	if ((size_t)n > SHIM_RUN_MAX || (size_t)n <= sizeof hello ||
	    memcmp(msg, hello, sizeof hello) != 0 || msg[n - 1] != '\0')
		shim_fail("the server sent no usable command");
	end = msg + n;
	for (p = msg + sizeof hello; p < end; p += strlen(p) + 1)
		count++;
	vec = calloc(count + 2, sizeof *vec);
	if (vec == NULL)
		shim_fail("out of memory");
	/* argv, NULL (the empty string), then the environment, NULL. */
	for (p = msg + sizeof hello; p < end; p += strlen(p) + 1)
		vec[i++] = *p != '\0' ? p : NULL;
	vec[i] = NULL;
	for (i = 0; vec[i] != NULL; i++)
		;
	if (i == 0 || i == count)
		shim_fail("the server sent no usable command");
	*argv_out = vec;
	*envp_out = vec + i + 1;
}

static int load_program(const struct sock_fprog *prog)
{
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	int listener;

	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				flags | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (listener < 0 && errno == EINVAL)
		listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	if (listener < 0)
		shim_fail("cannot install the seccomp filter: %s", strerror(errno));
	return listener;
}

/* Hand the listener and the read end of the exec watch to the server
 * in one message.  The watch's write end stays open here, close-on-exec
 * and never written: the server sees the pipe hang up the moment the
 * command's exec succeeded (or the shim died), so it need not poll
 * /proc to know. */
static void send_listener(int listener)
{
	char data[] = SHIM_HELLO " listener";
	char control[CMSG_SPACE(2 * sizeof(int))] = {0};
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	int watch[2], fds[2];

	if (pipe2(watch, O_CLOEXEC) != 0)
		shim_fail("cannot create the exec watch: %s", strerror(errno));
	fds[0] = listener;
	fds[1] = watch[0];
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
	if (sendmsg(shim_sock, &msg, MSG_NOSIGNAL) < 0)
		shim_fail("cannot hand the seccomp listener to the server: %s", strerror(errno));
	close(watch[0]);
}

/* One read-only bind of path over itself, submounts included (a deny
 * mask below it stays a mask).  1 done, 0 skipped (missing, may_miss),
 * -1 with errno.  The clone is made read-only before it is attached,
 * so the path is never seen writable through it. */
static int bind_read_only(const char *path, bool may_miss)
{
	struct mount_attr attr = {
	    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, path,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
				    AT_SYMLINK_NOFOLLOW);

	if (tree < 0)
		return may_miss && errno == ENOENT ? 0 : -1;
	/* No close on failure: shim_fail ends the process, errno intact. */
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
		    sizeof attr) != 0 ||
	    syscall(SYS_move_mount, tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return -1;
	close(tree);
	return 1;
}

/* The mount at path (bwrap's mask tmpfs) read-only in place. */
static int remount_read_only(const char *path)
{
	struct mount_attr attr = {
	    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};

	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &attr,
			    sizeof attr);
}

/* Threat: the command keeping the mount capability the binds needed,
 * and with it unmounting a deny mask or a read-only bind.  Every
 * capability goes from the bounding set (CAP_SETPCAP last: it is what
 * allows the others), the ambient set and the process's own sets, and
 * the result is checked: any capability left fails the launch.  (No
 * ambient capability can outlive an empty permitted or inheritable
 * set: the kernel clears it with them.) */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct head = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	int cap, rc;

	/* Up to the kernel's last capability: past it the drop says EINVAL. */
	for (cap = 0;; cap++)
		if (cap != CAP_SETPCAP && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
			break;
	if (errno != EINVAL || cap <= CAP_SETPCAP)
		shim_fail("cannot drop capability %d: %s", cap, strerror(errno));
	if (prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0) != 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 ||
	    syscall(SYS_capset, &head, data) != 0)
		shim_fail("cannot drop the mount capabilities: %s", strerror(errno));
	if (syscall(SYS_capget, &head, data) != 0)
		shim_fail("cannot read the capabilities back: %s", strerror(errno));
	for (int i = 0; i < 2; i++)
		if (data[i].effective != 0 || data[i].permitted != 0 || data[i].inheritable != 0)
			shim_fail("capabilities left after dropping them");
	for (cap = 0; (rc = prctl(PR_CAPBSET_READ, cap, 0, 0, 0)) >= 0; cap++)
		if (rc != 0)
			shim_fail("capability %d left in the bounding set after dropping it", cap);
}

/* One line into /proc/self/FILE. */
static void write_proc_self(const char *file, const char *line)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		shim_fail("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/* A user namespace of the shim's own, where the user is uid:gid again
 * (bwrap made it uid 0 in its namespace, so that the shim could mount).
 * The one id mapped is the shim's own euid and egid outside (0), which
 * needs no privilege but the CAP_SETFCAP bwrap left for it (mapping an
 * outer root: Linux 5.12's check).  The new namespace does not own the
 * sandbox's mount namespace: the binds just made are locked, and no
 * capability it holds reaches them.  Threat: the command running as
 * root of the namespace that owns its mounts. */
static void nest_user_namespace(const char *ids)
{
	char line[64];
	unsigned long uid = 0, gid = 0;
	char *end;

	uid = strtoul(ids, &end, 10);
	if (*end == ':')
		gid = strtoul(end + 1, &end, 10);
	if (*end != '\0' || end == ids)
		shim_fail("bad --userns %s", ids);
	if (unshare(CLONE_NEWUSER) != 0)
		shim_fail("cannot make the user namespace: %s", strerror(errno));
	write_proc_self("setgroups", "deny");
	snprintf(line, sizeof line, "%lu 0 1\n", uid);
	write_proc_self("uid_map", line);
	snprintf(line, sizeof line, "%lu 0 1\n", gid);
	write_proc_self("gid_map", line);
	if (getuid() != (uid_t)uid || getgid() != (gid_t)gid)
		shim_fail("the user namespace does not map %s", ids);
}

/* The --ro, --ro-try and --ro-mount paths between first and sep, in
 * order, then --userns (wherever it was given). */
static void make_read_only_binds(char **argv, int first, int sep)
{
	const char *userns = NULL;

	if (first == sep)
		return;
	for (int i = first; i < sep; i += 2)
		if (strcmp(argv[i], "--userns") == 0)
			userns = argv[i + 1];
		else if (strcmp(argv[i], "--ro-mount") == 0 ? remount_read_only(argv[i + 1]) != 0
			 : bind_read_only(argv[i + 1], strcmp(argv[i], "--ro-try") == 0) < 0)
			shim_fail("cannot make %s read-only: %s", argv[i + 1], strerror(errno));
	if (userns != NULL)
		nest_user_namespace(userns);
	drop_capabilities();
}

/* argv: --fd N [--nproc LIMIT] [--ro PATH | --ro-try PATH | --ro-mount PATH]...
 * (-- COMMAND... | --wait).  Returns the index of the separator, or -1;
 * *binds is the index of the first --ro argument (sep when none). */
static int parse_args(int argc, char **argv, int *fd, long *nproc, int *binds)
{
	char *end;
	int sep = 3;

	if (argc < 4 || strcmp(argv[1], "--fd") != 0)
		return -1;
	*fd = (int)strtol(argv[2], &end, 10);
	if (*end != '\0' || *fd <= 2)
		return -1;
	*nproc = 0;
	if (argc >= 6 && strcmp(argv[3], "--nproc") == 0) {
		*nproc = strtol(argv[4], &end, 10);
		if (*end != '\0' || *nproc <= 0)
			return -1;
		sep = 5;
	}
	*binds = sep;
	while (sep + 1 < argc &&
	       (((strcmp(argv[sep], "--ro") == 0 || strcmp(argv[sep], "--ro-try") == 0 ||
		  strcmp(argv[sep], "--ro-mount") == 0) &&
		 argv[sep + 1][0] == '/') ||
		(strcmp(argv[sep], "--userns") == 0 && argv[sep + 1][0] >= '0' &&
		 argv[sep + 1][0] <= '9')))
		sep += 2;
	if (argc == sep + 1 && strcmp(argv[sep], "--wait") == 0)
		return sep;
	if (argc >= sep + 2 && strcmp(argv[sep], "--") == 0)
		return sep;
	return -1;
}

/* Threat: a fork bomb where no pids group holds the pane.  Set here,
 * inside the user namespace bwrap made, the limit counts this pane's
 * processes alone (the kernel counts RLIMIT_NPROC per user namespace);
 * the namespace's own bound on the user's processes outside stays what
 * the server had.  The hard limit too: nothing inside may raise it
 * again (that needs CAP_SYS_RESOURCE, dropped).  It does not hold a
 * server running as root: the kernel exempts uid 0. */
static void set_nproc(long nproc)
{
	struct rlimit rl = {(rlim_t)nproc, (rlim_t)nproc};

	if (nproc > 0 && setrlimit(RLIMIT_NPROC, &rl) != 0)
		shim_fail("cannot set the process limit: %s", strerror(errno));
}

/* Threat: the server's session keyring (inherited through bwrap) holds
 * what the user's login or tools put there (tokens, Kerberos tickets,
 * ecryptfs keys); a process that possesses it may read them.  A new,
 * empty anonymous session keyring replaces it before the command runs,
 * and the filter refuses keyctl, add_key and request_key from then on.
 * A kernel without keyrings (ENOSYS) has nothing to hide. */
static void join_new_session_keyring(void)
{
	if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0 && errno != ENOSYS)
		shim_fail("cannot join a new session keyring: %s", strerror(errno));
}

int shim_main(int argc, char **argv)
{
	struct sock_fprog prog;
	char **command;
	long nproc;
	int binds, listener, sep;

	/* The copy-on-write home is mounted before bwrap, by the same
	 * binary (shim-home.c). */
	if (argc > 1 && strcmp(argv[1], "--home-layer") == 0)
		return shim_home_main(argc, argv);
	sep = parse_args(argc, argv, &shim_sock, &nproc, &binds);
	if (sep < 0) {
		fprintf(stderr, "usage: sandmux shim --fd N [--nproc LIMIT] [--userns UID:GID] "
				"[--ro PATH | --ro-try PATH | --ro-mount PATH]... (-- COMMAND... | "
				"--wait)\n");
		return 2;
	}
	command = argv + sep + 1;
	if (fcntl(shim_sock, F_SETFD, FD_CLOEXEC) != 0) {
		shim_sock = -1;
		shim_fail("no handshake socket on fd %s", argv[2]);
	}
	/* Threat: a setuid binary exec'd inside regaining privileges; also
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		shim_fail("cannot set no_new_privs: %s", strerror(errno));
	/* Before the wait of a prepared sandbox: it holds no capability
	 * either. */
	make_read_only_binds(argv, binds, sep);
	receive_program(&prog);
	if (strcmp(argv[sep], "--wait") == 0)
		receive_run(&command, &environ);
	set_nproc(nproc);
	join_new_session_keyring();
	listener = load_program(&prog);
	free(prog.filter);
	send_listener(listener);
	/* Threat: a process inside holding the listener could answer its
	 * own notifications.  From here on only the server holds it; if
	 * the server's copy goes, supervised calls fail with ENOSYS. */
	close(listener);
	execvp(command[0], command);
	shim_fail("cannot run %s: %s", command[0], strerror(errno));
	return SHIM_EXIT_FAILED;
}

#ifdef SHIM_STANDALONE
/* The standalone shim (build/sandmux-shim): static, nothing but libc,
 * so exec'ing it inside every new sandbox costs little.  `sandmux shim`
 * runs the same code from the main binary when it is absent.  Being
 * built without libsandmux, the shim checks its own allocations and
 * fails loudly (shim_fail) instead of using xalloc.h. */
int main(int argc, char **argv)
{
	return shim_main(argc, argv);
}
#endif
