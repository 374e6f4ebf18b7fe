/*
 * config-edit: sandmux writing into the user's config file, which it
 * otherwise only reads: a profile set whole (`profile suggest --apply`)
 * or one entry appended to a profile's list (a grant in a profile:
 * `sandmux allow --persist`, `a` then `p` in the feed).  The change is
 * shown as a diff and happens only after a yes (or --yes); the new file
 * is checked exactly as `--check-config` would before it replaces the old
 * one, by a rename, so a failed or refused edit leaves the file as it
 * was.
 *
 * The file is rewritten from its parsed form: keys keep their order and
 * values their meaning, but the layout becomes cJSON's (tabs, one value a
 * line).  A profile set whole is diffed between the two parsed forms; an
 * appended entry between the file's own text and the new text, so what
 * is confirmed is exactly what is written.
 */
#ifndef SANDMUX_CONFIG_EDIT_H
#define SANDMUX_CONFIG_EDIT_H

#include <stdbool.h>

struct cJSON;
struct sm_error;

/* The config file's text: "" when it does not exist; NULL with err
 * (config_read_error) when it cannot be read or is over 1 MiB. */
char *config_edit_read_text(const char *path, struct sm_error *err);
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
/* Pure: old_text (NULL or "" for no file) with entry appended to the
 * list "profiles" -> profile -> field (made when absent).  Returns 0
 * with *new_text (the caller frees), or -1 with err: config_parse_error,
 * config_invalid (no such profile, the field is no list) or
 * invalid_argument (the entry is there already). */
int config_edit_add_entry(const char *old_text, const char *profile, const char *field,
			  const char *entry, char **new_text, struct sm_error *err);
/* Pure: the lines that differ, "- " old and "+ " new, with three lines
 * of context and "  ..." where lines are left out (a huge file: all old,
 * then all new).  The caller frees. */
char *config_edit_diff(const char *before, const char *after);
/* text as path's new content: a new 0600 file beside it, checked as
 * --check-config would, renamed onto path.  0, or -1 with err (the file
 * left as it was). */
int config_edit_replace(const char *path, const char *text, struct sm_error *err);

#endif
