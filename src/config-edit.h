/*
 * config-edit: changes sandmux makes to the config file itself, as pure
 * text transformations, and the diff shown before one is written (see
 * config-edit.c).
 */
#ifndef SANDMUX_CONFIG_EDIT_H
#define SANDMUX_CONFIG_EDIT_H

struct sm_error;

/* Beyond this many lines a side, the diff shows both texts whole. */
#define CONFIG_EDIT_DIFF_LINES 4000

/* old_text (NULL or "" for no file) with entry appended to the list
 * "profiles" -> profile -> field (made when absent).  Returns 0 with
 * *new_text (the caller frees), or -1 with err: config_parse_error,
 * config_invalid (no such profile, the field is no list) or
 * invalid_argument (the entry is there already). */
int config_edit_add_entry(const char *old_text, const char *profile, const char *field,
			  const char *entry, char **new_text, struct sm_error *err);

/* The lines that differ, "-" old and "+" new, with three lines of
 * context and "..." for what is left out, under a "--- name" / "+++
 * name (new)" head.  The caller frees. */
char *config_edit_diff(const char *old_text, const char *new_text, const char *name);

#endif
