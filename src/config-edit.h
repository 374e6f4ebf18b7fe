/*
 * config-edit: sandmux writing a profile into the user's config file,
 * which it otherwise only reads.  The change is shown as a diff and
 * happens only after a yes (or --yes); the new file is checked exactly as
 * `--check-config` would before it replaces the old one, by a rename, so
 * a failed or refused edit leaves the file as it was.
 *
 * The file is rewritten from its parsed form: keys keep their order and
 * values their meaning, but the layout becomes cJSON's (tabs, one value a
 * line).
 */
#ifndef SANDMUX_CONFIG_EDIT_H
#define SANDMUX_CONFIG_EDIT_H

#include <stdbool.h>

struct cJSON;
struct sm_error;

/* The config at path as JSON: {} when the file does not exist; NULL
 * with err when it cannot be read or is not a JSON object. */
struct cJSON *config_edit_read(const char *path, struct sm_error *err);
/* May name be written as a profile?  1 to 32 letters, digits, - and _,
 * not "terminal" or "agent".  0, or -1 with err (config_invalid). */
int config_edit_name_check(const char *name, struct sm_error *err);
/* Set "profiles": {name: profile} in the default config: print the diff
 * to stderr, ask (a "y" line on stdin) unless yes, check the new file,
 * rename it into place.  0 when written, -1 with err (refused: code
 * failed; the new file invalid: its config_* code). */
int config_edit_set_profile(const char *name, const struct cJSON *profile, bool yes,
			    struct sm_error *err);

#endif
