/*
 * poison.h: forced first into every source of the macOS build by `make
 * macos-check` (the Makefile), which compiles them on Linux with
 * -U__linux__ -D__APPLE__ -D__MACH__ and -fsyntax-only.  No Mac runs
 * here, so this is how an unguarded Linux-only call is caught: each
 * identifier below exists on Linux and not on macOS (or exists there
 * with another meaning), and once poisoned any use of it outside an
 * `#ifdef __linux__` block is a compile error.  Linux-only headers are
 * refused by the stubs in tests/macos/include/linux-only/ (#error),
 * and the few macOS APIs the __APPLE__ branches call are declared by
 * the stubs beside it (tests/macos/include/).
 *
 * The portable headers come first, so that glibc's own declarations of
 * these names (pipe2 in <unistd.h> under _GNU_SOURCE, ...) are read
 * before the poison; their include guards keep the sources' later
 * #includes from reading them again.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <glob.h>
#include <grp.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <langinfo.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* Event and process handles that are Linux file descriptors. */
#pragma GCC poison epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait
#pragma GCC poison signalfd timerfd_create timerfd_settime eventfd eventfd_read eventfd_write
#pragma GCC poison inotify_init inotify_init1 inotify_add_watch inotify_rm_watch fanotify_init
#pragma GCC poison pidfd_open pidfd_send_signal pidfd_getfd memfd_create
/* Sockets and descriptors: macOS has accept, pipe, dup2 and fcntl. */
#pragma GCC poison accept4 pipe2 dup3 ppoll splice tee vmsplice copy_file_range
#undef SOCK_CLOEXEC
#undef SOCK_NONBLOCK
#undef MSG_NOSIGNAL
#undef SO_PEERCRED
#undef O_PATH
#undef O_TMPFILE
#undef AT_EMPTY_PATH
#undef CLOCK_BOOTTIME
#pragma GCC poison SOCK_CLOEXEC SOCK_NONBLOCK MSG_NOSIGNAL SO_PEERCRED O_PATH O_TMPFILE AT_EMPTY_PATH CLOCK_BOOTTIME
/* Process attributes, namespaces and the kernel's sandboxes. */
#pragma GCC poison prctl unshare setns clone clone3 pivot_root umount2 personality
#pragma GCC poison landlock_create_ruleset landlock_add_rule landlock_restrict_self
#pragma GCC poison seccomp seccomp_init seccomp_rule_add seccomp_load seccomp_notify_receive
#pragma GCC poison setresuid setresgid getresuid getresgid setfsuid setfsgid prlimit
#pragma GCC poison sched_getaffinity sched_setaffinity
/* Calls whose names macOS lacks, or has with other arguments. */
#pragma GCC poison sigtimedwait sigwaitinfo clearenv execvpe secure_getenv
#pragma GCC poison mempcpy memrchr strchrnul get_current_dir_name getrandom
#pragma GCC poison renameat2 statx openat2 name_to_handle_at posix_fallocate fallocate
#pragma GCC poison qsort_r program_invocation_name program_invocation_short_name
#pragma GCC poison lgetxattr lsetxattr llistxattr lremovexattr close_range
#include "apple-extras.h"
