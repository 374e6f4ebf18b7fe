/*
 * microvm-warm: the files a prepared microvm copies in ahead, so the
 * next pane's shell starts from copies in the guest instead of fetching
 * them through the root share on the launch's path
 * (backends/microvm-warm.c; the guest side is copy_ahead in
 * backends/microvm-guest/agent.c).
 */
#ifndef SANDMUX_MICROVM_WARM_H
#define SANDMUX_MICROVM_WARM_H

#include "strvec.h"

/* The files the command shell (argv[0] of the last launch, looked up on
 * path when it has no '/') needs to start: its binary, its ELF
 * interpreter and libraries (the libraries' own too), the loader's
 * cache, the user and name-service databases, readline's inputrc, the
 * terminfo entry of term, and the locale files of the locale names
 * given (NULL entries skipped).  Only what exists on the host is
 * listed, each once.  0, or -1 out of memory. */
int microvm_warm_list(const char *shell, const char *path, const char *term,
		      const char *const locales[3], struct strvec *out);

#endif
