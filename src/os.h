/*
 * os: the calls Linux and macOS spell differently, each in one place.
 * On Linux every function is the one call it always was (pipe2,
 * SOCK_CLOEXEC, SO_PEERCRED, /proc/self/exe); on macOS it is the
 * equivalent there.  The rest of the tree calls these and stays free of
 * #ifdefs; `make macos-check` (tests/macos/poison.h) is what keeps the
 * Linux-only spellings out of the macOS build.  Part of the base every
 * layer may use, with xalloc.h and error.h.
 */
#ifndef SANDMUX_OS_H
#define SANDMUX_OS_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

/* send(2)'s flag that turns a write to a closed peer into EPIPE instead
 * of SIGPIPE.  macOS has no such flag: there the server ignores SIGPIPE
 * (server_main), which has the same effect for every send. */
#ifdef __linux__
#define OS_SEND_NOSIGNAL MSG_NOSIGNAL
#else
#define OS_SEND_NOSIGNAL 0
#endif

/* open(2)'s flag for a handle on a directory that is only a place
 * (openat, fstat, os_fd_path), not for reading it: macOS has no O_PATH,
 * and there the handle needs the directory to be readable. */
#ifdef __linux__
#define OS_O_PATH O_PATH
#else
#define OS_O_PATH O_RDONLY
#endif

/* A pipe, both ends close-on-exec; flags may add O_NONBLOCK.  0, or -1
 * with errno. */
int os_pipe_cloexec(int fds[2], int flags);
/* socket(2), close-on-exec: an fd, or -1 with errno. */
int os_socket_cloexec(int domain, int type, int protocol);
/* The uid and pid of the process at the other end of a connected Unix
 * socket (either may be NULL).  0, or -1 with errno. */
int os_peer_credentials(int fd, uid_t *uid, pid_t *pid);
/* dup2(fd, to), the copy close-on-exec: to, or -1 with errno. */
int os_dup_cloexec(int fd, int to);
/* Close every fd from lowest up (in a child before it runs something
 * that must inherit nothing else). */
void os_close_from(int lowest);
/* The absolute path of the running program, symlinks resolved.  0, or
 * -1 when it cannot be told (or does not fit). */
int os_self_exe(char *out, size_t size);
/* The path an open fd names, as it resolves now.  0, or -1. */
int os_fd_path(int fd, char *out, size_t size);

/* Another process's working directory, as the kernel names it in that
 * process's own view (Linux: the text of /proc/PID/cwd, nothing
 * followed; macOS: proc_pidinfo's vnode path).  0, or -1. */
int os_process_cwd(pid_t pid, char *out, size_t size);
/* The directory object itself (device, inode): Linux stats
 * /proc/PID/cwd, which the kernel resolves without walking a path;
 * macOS, with no mount namespaces, stats the path os_process_cwd gives.
 * 0, or -1. */
int os_process_cwd_stat(pid_t pid, struct stat *st);
/* A process's name as the kernel keeps it (Linux: comm, at most 15
 * bytes; macOS: proc_name), "" when gone.  0, or -1. */
int os_process_name(pid_t pid, char *out, size_t size);

#endif
