/*
 * seccomp-compat: the seccomp user-notification names newer than the
 * kernel headers Debian 12 installs (6.1), for the shim, the supervisor
 * and the test helpers.  Each is used only after the kernel accepted it
 * or with a fallback where it refuses (EINVAL).
 */
#ifndef SANDMUX_SECCOMP_COMPAT_H
#define SANDMUX_SECCOMP_COMPAT_H

#include <linux/seccomp.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
/* Linux 5.19: once the supervisor has received a notification, only a
 * fatal signal interrupts the wait, so a signal cannot make the child
 * restart a call whose emulation already happened. */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
/* Linux 6.6: wake the supervisor, then the child, on the CPU that is
 * already running, instead of waiting for another CPU to schedule it. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#endif
