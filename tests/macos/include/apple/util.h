/* Stub of macOS's <util.h> for make macos-check (tests/macos/poison.h):
 * openpty and forkpty, declared there instead of Linux's <pty.h>. */
#ifndef STUB_UTIL_H
#define STUB_UTIL_H
#include <sys/ioctl.h>
#include <termios.h>
int openpty(int *amaster, int *aslave, char *name, struct termios *termp, struct winsize *winp);
int forkpty(int *amaster, char *name, struct termios *termp, struct winsize *winp);
#endif
