/*
 * shim: the first process inside a native sandbox.  bwrap runs
 *
 *   sandmux shim --fd N -- COMMAND...
 *
 * and the shim, before the command ever runs:
 *
 *   1. sets no_new_privs, so nothing exec'd later gains privileges and
 *      the filter may be installed without CAP_SYS_ADMIN;
 *   2. installs a seccomp filter that denies a few syscalls outright and
 *      hands the path-taking calls (open family, mkdir, mknod, symlink,
 *      link, rename, unlink) to a user-notification listener;
 *   3. sends the listener to the server's supervisor over fd N (a
 *      socketpair end bwrap passed in) with SCM_RIGHTS, and closes its
 *      own copy: nothing inside the sandbox may answer for itself;
 *   4. execs the command.
 *
 * Every failure is loud: the shim prints why and exits 126, and the
 * server, which never got a handshake, marks the pane FAILED.  The
 * command never runs unfiltered.
 *
 * Protocol on fd N (a SOCK_SEQPACKET socket): one message
 * "sandmux-shim 1 listener" carrying the listener fd, or one message
 * "sandmux-shim 1 failed: REASON" when something went wrong after the
 * socket was usable.  fd N is close-on-exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
/* Linux 5.19: once the supervisor has received a notification, only a
 * fatal signal interrupts the wait, so a signal cannot make the child
 * restart a call whose emulation already happened. */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

#define SHIM_HELLO "sandmux-shim 1"
#define SHIM_EXIT_FAILED 126

int shim_main(int argc, char **argv);

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

/* Outright denials.  Each names the threat it stops. */
static int add_denials(scmp_filter_ctx ctx)
{
	static const int mount_family[] = {
	    SCMP_SYS(mount),	  SCMP_SYS(umount2),	SCMP_SYS(pivot_root),
	    SCMP_SYS(move_mount), SCMP_SYS(open_tree),	SCMP_SYS(fsopen),
	    SCMP_SYS(fsmount),	  SCMP_SYS(fsconfig),	SCMP_SYS(fspick),
	    SCMP_SYS(mount_setattr),
	};
	static const unsigned long new_namespaces[] = {
	    CLONE_NEWUSER, CLONE_NEWNS,	 CLONE_NEWPID,	  CLONE_NEWNET,
	    CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_NEWTIME,
	};
	int rc = 0;

	/* Threat: pushing keystrokes into the terminal's input queue
	 * (TIOCSTI) or the console's (TIOCLINUX subcommands), which the
	 * shell or whatever reads the PTY next would run as typed.  The
	 * kernel compares only the low 32 bits of the request, so must we:
	 * a request with junk in the high bits is the same ioctl. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCLINUX));
	/* Threat: io_uring performs opens, renames and links in kernel
	 * workers that seccomp never sees, bypassing the supervisor.
	 * ENOSYS: programs fall back to ordinary syscalls. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_enter), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_register), 0);
	/* Threat: one sandboxed process rewriting another's memory or
	 * registers between the supervisor's check and the kernel's use of
	 * a path (and reading its secrets). */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(process_vm_readv), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(process_vm_writev), 0);
	/* Threat: opening files by handle skips path lookup, and with it
	 * every mount mask and every supervisor rule. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open_by_handle_at), 0);
	/* Threat: a new user namespace gives back every capability (and a
	 * large kernel attack surface); new mount namespaces could shuffle
	 * the masks.  Each flag is its own rule: rules for one syscall are
	 * OR-ed. */
	for (size_t i = 0; i < sizeof new_namespaces / sizeof new_namespaces[0]; i++) {
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, new_namespaces[i],
					       new_namespaces[i]));
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, new_namespaces[i],
					       new_namespaces[i]));
	}
	/* Threat: joining another namespace by fd. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
	/* Threat: clone3 keeps its flags in memory, where a filter cannot
	 * look.  ENOSYS makes libc fall back to clone, which is checked. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* Threat: remounting or unmounting the masks and read-only binds. */
	for (size_t i = 0; i < sizeof mount_family / sizeof mount_family[0]; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), mount_family[i], 0);
	return rc;
}

/* Calls the supervisor decides: everything that names a path to open,
 * create, link, rename or remove. */
static int add_notifications(scmp_filter_ctx ctx)
{
	static const int supervised[] = {
	    SCMP_SYS(open),	SCMP_SYS(openat),    SCMP_SYS(openat2),	 SCMP_SYS(creat),
	    SCMP_SYS(mkdir),	SCMP_SYS(mkdirat),   SCMP_SYS(mknod),	 SCMP_SYS(mknodat),
	    SCMP_SYS(symlink),	SCMP_SYS(symlinkat), SCMP_SYS(link),	 SCMP_SYS(linkat),
	    SCMP_SYS(rename),	SCMP_SYS(renameat),  SCMP_SYS(renameat2), SCMP_SYS(unlink),
	    SCMP_SYS(unlinkat),
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof supervised / sizeof supervised[0]; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, supervised[i], 0);
	return rc;
}

/* Build the filter with libseccomp and export its BPF: loading it
 * ourselves lets us ask for WAIT_KILLABLE_RECV, which libseccomp 2.5
 * cannot. */
static void build_program(struct sock_fprog *prog)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int memfd;
	off_t size;

	if (ctx == NULL)
		shim_fail("cannot create a seccomp filter");
	/* Threat: the same syscall numbers mean other calls on another ABI
	 * (i386 via int 0x80); libseccomp's x86_64 filter also rejects
	 * x32 numbers under this action.  Kill rather than guess. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0)
		shim_fail("cannot set the filter's attributes");
	if (add_denials(ctx) != 0 || add_notifications(ctx) != 0)
		shim_fail("cannot add the filter's rules (seccomp user notification needs "
			  "Linux 5.0 and libseccomp 2.5)");
	memfd = memfd_create("sandmux-shim-bpf", MFD_CLOEXEC);
	if (memfd < 0 || seccomp_export_bpf(ctx, memfd) != 0)
		shim_fail("cannot export the seccomp filter");
	seccomp_release(ctx);
	size = lseek(memfd, 0, SEEK_END);
	prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	prog->filter = malloc((size_t)size);
	if (size <= 0 || prog->filter == NULL ||
	    pread(memfd, prog->filter, (size_t)size, 0) != (ssize_t)size)
		shim_fail("cannot read the exported seccomp filter");
	close(memfd);
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

static void send_listener(int listener)
{
	char data[] = SHIM_HELLO " listener";
	char control[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &listener, sizeof(int));
	if (sendmsg(shim_sock, &msg, MSG_NOSIGNAL) < 0)
		shim_fail("cannot hand the seccomp listener to the server: %s", strerror(errno));
}

static int parse_args(int argc, char **argv, int *fd)
{
	char *end;

	if (argc < 5 || strcmp(argv[1], "--fd") != 0 || strcmp(argv[3], "--") != 0)
		return -1;
	*fd = (int)strtol(argv[2], &end, 10);
	return *end == '\0' && *fd > 2 ? 0 : -1;
}

int shim_main(int argc, char **argv)
{
	struct sock_fprog prog;
	int listener;

	if (parse_args(argc, argv, &shim_sock) != 0) {
		fprintf(stderr, "usage: sandmux shim --fd N -- COMMAND...\n");
		return 2;
	}
	if (fcntl(shim_sock, F_SETFD, FD_CLOEXEC) != 0) {
		shim_sock = -1;
		shim_fail("no handshake socket on fd %s", argv[2]);
	}
	/* Threat: a setuid binary exec'd inside regaining privileges; also
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		shim_fail("cannot set no_new_privs: %s", strerror(errno));
	build_program(&prog);
	listener = load_program(&prog);
	free(prog.filter);
	send_listener(listener);
	/* Threat: a process inside holding the listener could answer its
	 * own notifications.  From here on only the server holds it; if
	 * the server's copy goes, supervised calls fail with ENOSYS. */
	close(listener);
	execvp(argv[4], argv + 4);
	shim_fail("cannot run %s: %s", argv[4], strerror(errno));
	return SHIM_EXIT_FAILED;
}
