/*
 * theme: the colours of everything the client draws itself — borders,
 * the backend label of each pane, titles, the status line, the FAILED
 * banner, copy-mode selection, the help overlay.  Pane contents keep the
 * colours their programs chose.
 *
 * A theme is a JSON file of named slots ("border.active",
 * "label.native"...), each a style: foreground, background and
 * attributes.  Slots a file leaves out keep the built-in default, so a
 * theme can be a handful of lines.  Themes are found by name in
 *   $XDG_CONFIG_HOME/sandmux/themes (fallback ~/.config/sandmux/themes),
 *   $SANDMUX_THEMES or the installed share dir (THEME_SHARE_DIR),
 *   ../themes next to the directory holding the running binary,
 * or given as a path.  A broken file is an error naming the file and the
 * field; the caller then uses the built-in default.
 */
#ifndef SANDMUX_THEME_H
#define SANDMUX_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sm_error;

#ifndef THEME_SHARE_DIR
#define THEME_SHARE_DIR "/usr/local/share/sandmux/themes"
#endif

enum theme_color_kind { THEME_COLOR_DEFAULT = 0, THEME_COLOR_PALETTE, THEME_COLOR_RGB };

struct theme_color {
	uint8_t kind;	 /* enum theme_color_kind */
	uint8_t index;	 /* THEME_COLOR_PALETTE: 0..255 */
	uint8_t r, g, b; /* THEME_COLOR_RGB */
};

/* Attribute bits, the same as the protocol's "a" field of a frame run. */
#define THEME_ATTR_BOLD 0x01
#define THEME_ATTR_ITALIC 0x02
#define THEME_ATTR_UNDERLINE 0x04
#define THEME_ATTR_REVERSE 0x08
#define THEME_ATTR_BLINK 0x10
#define THEME_ATTR_DIM 0x40

struct theme_style {
	struct theme_color fg, bg;
	unsigned attrs;
};

enum theme_slot {
	THEME_BORDER_ACTIVE,
	THEME_BORDER_INACTIVE,
	THEME_LABEL_NONE,
	THEME_LABEL_NATIVE,
	THEME_LABEL_MICROVM,
	THEME_LABEL_PENDING,
	THEME_TITLE_TEXT,
	THEME_TITLE_ACTIVE,
	THEME_TITLE_VIOLATIONS,
	THEME_TITLE_ZOOM,
	THEME_STATUS_BAR,
	THEME_STATUS_SESSION,
	THEME_STATUS_WINDOW,
	THEME_STATUS_CURRENT,
	THEME_STATUS_CLOCK,
	THEME_STATUS_MESSAGE,
	THEME_STATUS_ERROR,
	THEME_STATUS_PROMPT,
	THEME_BANNER_FAILED,
	THEME_BANNER_TEXT,
	THEME_COPY_SELECTION,
	THEME_COPY_POSITION,
	THEME_COPY_MATCH,
	THEME_HELP_TEXT,
	THEME_HELP_KEY,
	THEME_SLOT_COUNT
};

struct theme {
	char name[64];
	char path[4096]; /* file it came from; "" for the built-in default */
	struct theme_style slots[THEME_SLOT_COUNT];
};

/* The dotted name of a slot as written in theme files ("label.native"). */
const char *theme_slot_name(enum theme_slot slot);

void theme_builtin_default(struct theme *theme);

/* Parse a colour: "default", a name ("red", "brightblue"), a palette
 * index ("colour123", "color123" or "123"), or "#rrggbb".  Returns false
 * if spec is none of these. */
bool theme_parse_color(const char *spec, struct theme_color *out);

/* Parse theme JSON; source names the file in error messages. */
int theme_parse(const char *json, const char *source, struct theme *theme, struct sm_error *err);
int theme_load_file(const char *path, struct theme *theme, struct sm_error *err);

/* Find the file for a theme name (or accept a path: anything with a '/'
 * or ending in ".json").  Writes the path; fails with theme_not_found
 * listing the places searched. */
int theme_resolve(const char *name_or_path, char *path, size_t size, struct sm_error *err);

/* Resolve and load.  On failure *theme holds the built-in default and err
 * says what was wrong.  The name "default" falls back to the built-in
 * theme silently when no default.json is installed. */
int theme_load(const char *name_or_path, struct theme *theme, struct sm_error *err);

/* The style the feed and `events --pretty` start an event's line with:
 * one colour per violation action, so a glance tells a secret read from
 * a blocked connection; grants and questions their own; errors and
 * floods red.  kind is the event's, action the violation's (or the
 * grant's); either may be NULL. */
struct theme_style theme_event_style(const char *kind, const char *action);
/* Write to f the SGR sequence that sets exactly st from a reset, as the
 * one SGR builder (term_style_sgr, term.h) makes it: theme styles are
 * the emulator's colours and attribute bits. */
void theme_put_sgr(FILE *f, const struct theme_style *st);

#endif
