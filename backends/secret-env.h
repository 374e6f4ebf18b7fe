/*
 * secret-env: which environment variables a sandboxed pane does not
 * inherit.
 *
 * A pane's environment is the server's (itself the environment of the
 * shell that first ran sandmux) plus what the request adds.  Exported
 * tokens sit there in plain text, and a sandbox that denies ~/.aws but
 * hands over AWS_SECRET_ACCESS_KEY protects nothing.  So a native pane
 * starts without every variable whose name (or value) looks like a
 * credential, unless its profile names it in "pass_env".  The rules are
 * in secret-env.c and, entry by entry, in docs/security.md.
 *
 * Only names are ever reported (ls --json "withheld_env"), never values.
 */
#ifndef SANDMUX_SECRET_ENV_H
#define SANDMUX_SECRET_ENV_H

#include <stdbool.h>

#include "strvec.h"

/* Does the entry "NAME=VALUE" look like a secret? */
bool secret_env_is_secret(const char *entry);

/* Is the entry kept from a pane whose profile passes pass_env (fnmatch
 * patterns over names, may be empty)?  Secret and not named there. */
bool secret_env_withheld(const char *entry, const struct strvec *pass_env);

/* A pass_env entry: a variable name, "*" and "?" allowed. */
bool secret_env_pattern_ok(const char *pattern);

#endif
