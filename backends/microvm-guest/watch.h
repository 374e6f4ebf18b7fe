/*
 * watch: the guest's own refusals, reported (backends/microvm-guest/
 * watch.c, part of the guest agent).
 *
 * The masks and read-only binds are the guest kernel's refusals, which
 * the host's servers never see (the request stops in the guest).  So
 * that the pane's feed still shows them, the shell runs under a seccomp
 * filter that hands the agent its opens, creates, truncates, mkdirs and
 * unlinks (user notification): one under a root the agent masked, or
 * one writing a path it bound read-only, is answered with the mount's
 * own errno (EACCES, EROFS) and reported as "violation ACTION PATH" on
 * the control port; anything else continues untouched, to be decided by
 * the kernel as before.  The path is the call's, made absolute and
 * normalised without following symlinks: a spelling through a symlink
 * is still refused by the mount, only not reported here.  A second
 * line: a compromised guest kernel can stay silent, the host's servers
 * refuse and report on their own.
 */
#ifndef SANDMUX_MICROVM_WATCH_H
#define SANDMUX_MICROVM_WATCH_H

/* A root the agent masked, a path it bound read-only (kept, not
 * copied: the launch's strings live as long as the agent). */
void watch_masked(const char *path);
void watch_read_only(const char *path);

/* In the shell's child, after no_new_privs: the filter, its listener
 * sent to the agent on sock.  0, or -1 with errno. */
int watch_install(int sock);

/* In the agent: the listener the child sent on sock, or -1. */
int watch_receive(int sock);

/* One notification of listener answered, a refusal reported on ctl. */
void watch_answer(int listener, int ctl);

#endif
