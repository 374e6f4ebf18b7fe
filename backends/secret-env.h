/*
 * secret-env: which environment variables a sandboxed pane does not
 * inherit.
 *
 * A pane's environment is the server's (itself the environment of the
 * shell that first ran sandmux) plus what the request adds.  Exported
 * tokens sit there in plain text, and a sandbox that denies ~/.aws but
 * hands over AWS_SECRET_ACCESS_KEY protects nothing.  So a sandboxed
 * pane inherits only a short allowlist of the server's variables
 * (and what its profile names in "pass_env"), and of the request's own
 * variables none whose name (or value) looks like a credential, unless
 * "pass_env" names it.  The rules are in secret-env.c and, entry by
 * entry, in docs/security.md.
 *
 * Only names are ever reported (ls --json "withheld_env"), never values.
 */
#ifndef SANDMUX_SECRET_ENV_H
#define SANDMUX_SECRET_ENV_H

#include <stdbool.h>

#include "strvec.h"

/* Does the entry "NAME=VALUE" look like a secret? */
bool secret_env_is_secret(const char *entry);

/* Is the entry, given by the request itself (-e), kept from a pane
 * whose profile passes pass_env (fnmatch patterns over names, may be
 * empty)?  Secret and not named there. */
bool secret_env_withheld(const char *entry, const struct strvec *pass_env);

/* Does a pane whose profile passes pass_env inherit the entry from the
 * server's environment?  Named by pass_env; or on the short list of
 * what a shell needs (PATH, HOME, TERM, LANG and LC_*, SHELL, USER,
 * the proxy variables, ...) and not secret by its value. */
bool secret_env_inherited(const char *entry, const struct strvec *pass_env);

/* A pass_env entry: a variable name, "*" and "?" allowed. */
bool secret_env_pattern_ok(const char *pattern);

#endif
