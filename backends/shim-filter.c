/*
 * shim-filter: the seccomp filter of every native pane (shim-filter.h).
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim-filter.h"
#include "xalloc.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
/* Calls newer than libseccomp 2.5 knows, by the number every
 * architecture shares since 424 (the unified table). */
#define SYS_fchmodat2_nr 452
#define SYS_setxattrat_nr 463
#define SYS_removexattrat_nr 466
#define SYS_file_setattr_nr 469

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
	/* Threat: the *at forms of the xattr calls (Linux 6.13) and
	 * file_setattr (6.17) change a file's attributes by a path the
	 * supervisor would not see.  ENOSYS: libc and tools fall back to
	 * setxattr, removexattr and the ioctl, which are judged. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_setxattrat_nr, 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_removexattrat_nr, 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_file_setattr_nr, 0);
	/* Threat: the pane reading or changing the keys of the session
	 * keyring it was started in (the server's: tokens, Kerberos and
	 * ecryptfs keys), or of the user's keyring.  The shim joins a new,
	 * empty session keyring before the filter; nothing inside needs
	 * another. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(keyctl), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(add_key), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(request_key), 0);
	/* Threat: remounting or unmounting the masks and read-only binds. */
	for (size_t i = 0; i < sizeof mount_family / sizeof mount_family[0]; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), mount_family[i], 0);
	return rc;
}

/* Calls the supervisor decides: everything that names a path to open,
 * create, link, rename or remove, or whose attributes to change (mode,
 * owner, times, extended attributes, size), bind (a Unix socket's
 * name) and connect (which socket it reaches); the fd forms of the attribute calls, which need no write
 * access to the fd (fchmod on a read-only fd disarms a hook); and umask,
 * chdir and fchdir, which it only notes.  ftruncate and fallocate are
 * not here: they need an fd opened for writing, and that open was
 * judged. */
static int add_notifications(scmp_filter_ctx ctx)
{
	static const int supervised[] = {
	    SCMP_SYS(open),	SCMP_SYS(openat),    SCMP_SYS(openat2),	 SCMP_SYS(creat),
	    SCMP_SYS(mkdir),	SCMP_SYS(mkdirat),   SCMP_SYS(mknod),	 SCMP_SYS(mknodat),
	    SCMP_SYS(symlink),	SCMP_SYS(symlinkat), SCMP_SYS(link),	 SCMP_SYS(linkat),
	    SCMP_SYS(rename),	SCMP_SYS(renameat),  SCMP_SYS(renameat2), SCMP_SYS(unlink),
	    SCMP_SYS(unlinkat), SCMP_SYS(rmdir),     SCMP_SYS(truncate), SCMP_SYS(chmod),
	    SCMP_SYS(fchmod),	SCMP_SYS(fchmodat),  SYS_fchmodat2_nr, SCMP_SYS(chown),
	    SCMP_SYS(lchown),	SCMP_SYS(fchown),    SCMP_SYS(fchownat), SCMP_SYS(utime),
	    SCMP_SYS(utimes),	SCMP_SYS(futimesat), SCMP_SYS(utimensat), SCMP_SYS(setxattr),
	    SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr), SCMP_SYS(removexattr),
	    SCMP_SYS(lremovexattr), SCMP_SYS(fremovexattr), SCMP_SYS(bind),
	    SCMP_SYS(connect),
	};
	/* Not decided: the supervisor keeps each thread's umask and cwd
	 * (supervisor-path.c, "the child's fs_struct") and must hear of every
	 * change.  It lets them through unchanged. */
	static const int noted[] = {SCMP_SYS(umask), SCMP_SYS(chdir), SCMP_SYS(fchdir)};
	int rc = 0;

	for (size_t i = 0; i < sizeof supervised / sizeof supervised[0]; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, supervised[i], 0);
	for (size_t i = 0; i < sizeof noted / sizeof noted[0]; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, noted[i], 0);
	return rc;
}

/* Build the filter with libseccomp and export its BPF.  The shim loads
 * it itself, which lets it ask for WAIT_KILLABLE_RECV (libseccomp 2.5
 * cannot). */
static int build_program(struct sock_fprog *prog, char *err, size_t size)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int memfd = -1, rc = -1;
	off_t bytes;

	if (ctx == NULL) {
		snprintf(err, size, "cannot create a seccomp filter");
		return -1;
	}
	/* Threat: the same syscall numbers mean other calls on another ABI
	 * (i386 via int 0x80); libseccomp's x86_64 filter also rejects
	 * x32 numbers under this action.  Kill rather than guess. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0) {
		snprintf(err, size, "cannot set the filter's attributes");
		goto done;
	}
	if (add_denials(ctx) != 0 || add_notifications(ctx) != 0) {
		snprintf(err, size, "cannot add the filter's rules (seccomp user notification needs "
				    "Linux 5.0 and libseccomp 2.5)");
		goto done;
	}
	memfd = memfd_create("sandmux-shim-bpf", MFD_CLOEXEC);
	if (memfd < 0 || seccomp_export_bpf(ctx, memfd) != 0) {
		snprintf(err, size, "cannot export the seccomp filter");
		goto done;
	}
	bytes = lseek(memfd, 0, SEEK_END);
	prog->len = (unsigned short)(bytes / (off_t)sizeof(struct sock_filter));
	prog->filter = xmalloc(bytes > 0 ? (size_t)bytes : 1);
	if (bytes <= 0 || bytes % (off_t)sizeof(struct sock_filter) != 0 ||
	    bytes > BPF_MAXINSNS * (off_t)sizeof(struct sock_filter) ||
	    pread(memfd, prog->filter, (size_t)bytes, 0) != (ssize_t)bytes) {
		snprintf(err, size, "cannot read the exported seccomp filter");
		free(prog->filter);
		prog->filter = NULL;
		goto done;
	}
	rc = 0;
done:
	if (memfd >= 0)
		close(memfd);
	seccomp_release(ctx);
	return rc;
}

const struct sock_fprog *shim_filter_program(char *err, size_t size)
{
	static struct sock_fprog prog;

	if (prog.filter == NULL && build_program(&prog, err, size) != 0)
		return NULL;
	return &prog;
}
