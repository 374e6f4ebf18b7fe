/*
 * config: the user's settings file, $XDG_CONFIG_HOME/sandmux/config.json
 * (fallback ~/.config/sandmux/config.json).
 *
 * One JSON object with a fixed set of keys (see docs/config.md).  Every
 * key is checked for its type and value, and a key the program does not
 * know is an error naming it (config_unknown_key): a misspelt
 * "default_backend" must not silently leave panes on the host.
 *
 * The client reads prefix, bindings, key_tables, theme, status, status_left,
 * status_right, repeat_time and display_panes_time; the server reads
 * scrollback, default_shell, default_backend and profiles.
 *
 * Ownership: struct config owns its bindings, table_bindings and profiles
 * arrays;
 * config_free() releases them (config_take_profiles hands the profiles
 * over).  config_load() leaves *config untouched when it fails.
 */
#ifndef SANDMUX_CONFIG_H
#define SANDMUX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "bindings.h"

struct sm_error;
struct sandbox_profile;

#define CONFIG_SCROLLBACK_MAX 1000000
#define CONFIG_REPEAT_TIME_MAX 10000
#define CONFIG_DISPLAY_PANES_TIME_MAX 60000

/* tmux's bell-action: a bell in any window rings the terminal, none
 * does, or only one in the window on screen. */
enum bell_action { BELL_ANY = 0, BELL_NONE, BELL_CURRENT };
/* tmux's set-clipboard, for a program's OSC 52: never, always, or after
 * a person said yes; DEFAULT is off for host panes, ask for sandboxed. */
enum set_clipboard { CLIPBOARD_DEFAULT = 0, CLIPBOARD_OFF, CLIPBOARD_ON, CLIPBOARD_ASK };
enum window_size { WINDOW_SIZE_LATEST = 0, WINDOW_SIZE_SMALLEST, WINDOW_SIZE_LARGEST };
/* "latest", "smallest", "largest": the value, or -1. */
int window_size_from_name(const char *name);

/* A key in a mode's table (tmux's bind -T copy-mode KEY COMMAND). */
struct table_binding {
	char table[KEY_TABLE_NAME_MAX];
	struct binding binding; /* command "" unbinds the key */
};

struct config {
	char prefix[16];	  /* canonical key name, default "C-b" */
	char theme[256];	  /* theme name or path, default "default" */
	int scrollback;		  /* lines of history per pane */
	bool status;		  /* draw the status line */
	char status_left[256];	  /* formats and strftime, left of the window list */
	char status_right[256];	  /* the same, at the right edge */
	enum bell_action bell_action; /* which bells the client rings (tmux's bell-action) */
	bool vi_pane_keys;	  /* the opt-in binding set: h j k l move the focus */
	bool renumber_windows;	  /* tmux's renumber-windows: no gaps after a kill */
	enum window_size window_size; /* tmux's window-size: which client sizes a session */
	int repeat_time;	  /* ms a repeating key works without the prefix (500) */
	int display_panes_time;	  /* ms display-panes shows the numbers (1000; 0 until a key) */
	bool paste_across_ask;	  /* paste_across_backends: "ask" (default) or "allow" */
	enum set_clipboard set_clipboard; /* set_clipboard: "off", "on", "ask" */
	char default_shell[256];  /* "" means $SHELL, then /bin/sh */
	char default_backend[16]; /* "none" | "native" | "microvm" */
	bool default_backend_set; /* the file names a default backend */
	bool inherit_backend;	  /* splits and windows keep a sandboxed pane's backend */
	struct binding *bindings; /* overrides of the default table;
				     command "" unbinds the key */
	size_t nbindings;
	struct table_binding *table_bindings; /* "key_tables": the modes' keys */
	size_t ntable_bindings;
	struct sandbox_profile *profiles; /* "profiles": the user's own */
	size_t nprofiles;
};

void config_defaults(struct config *config);

/* Load path, or the default path when path is NULL.  A missing default
 * file is not an error (the defaults stand); a missing explicit file is
 * (config_not_found).  Other codes: config_read_error,
 * config_parse_error, config_unknown_key, config_invalid. */
int config_load(const char *path, struct config *config, struct sm_error *err);
void config_free(struct config *config);
/* Move the profiles out of config (the caller frees them, or gives them
 * to profile_registry_set); config keeps none. */
struct sandbox_profile *config_take_profiles(struct config *config, size_t *n);

/* The default path; returns buf. */
const char *config_default_path(char *buf, size_t n);

/* `sandmux --check-config [FILE]`: validate the file (and the theme it
 * names) without starting anything.  Prints one line to stdout on
 * success or to stderr on failure; returns the exit code (0 or 1). */
int config_check_main(const char *path);

#endif
