/*
 * bindings: key names and the prefix key table.
 *
 * Keys are named the way tmux names them ("C-b", "M-x", "Enter", "Up",
 * "F5", "%"), because the same names travel in the protocol (the server
 * encodes them for the pane with vterm) and appear in the config file.
 * A name is a base key ("a", "%", "Space", "PageUp") with modifier
 * prefixes; the canonical spelling puts modifiers in the order C-, M-, S-
 * and writes a control letter in lower case ("C-B" reads as "C-b").
 *
 * The binding table maps a key pressed after the prefix to a command
 * string in the same language as the ":" prompt ("split -h",
 * "select-pane -L").  It is data: the defaults are an array, the config
 * overrides entries, and the help overlay is generated from it.
 *
 * Modes have key tables of their own (tmux's `bind -T copy-mode`): a
 * mode table maps a key pressed in that mode to one of the mode's
 * commands, written as tmux writes them, "send-keys -X cursor-up".  The
 * tables are data (key_table_defs in mode-tables.c: a name, the
 * default keys, the mode's command names with a line each for
 * list-keys): copy-mode, choose-mode, prompt, help-mode, display-panes
 * and ask-mode.  A mode only maps a command's name to what it does.  A
 * mode that wants a table adds one entry to key_table_defs and looks its
 * keys up with mode_tables_command().
 *
 * Ownership: a struct binding_table owns its entries once changed
 * (until then they are the program's const defaults); bindings_free()
 * releases them.  A struct mode_tables owns its tables;
 * mode_tables_free() releases them.
 */
#ifndef SANDMUX_BINDINGS_H
#define SANDMUX_BINDINGS_H

#include <stdbool.h>
#include <stddef.h>

struct sm_error;

#define KEY_NAME_MAX 32
#define BINDING_COMMAND_MAX 256

struct binding {
	char key[KEY_NAME_MAX];
	char command[BINDING_COMMAND_MAX]; /* "" in a config entry: unbind */
	bool repeat; /* tmux's bind -r: again without the prefix within repeat_time */
};

/* A table starts as the program's defaults, read in place: every
 * client's table of a name shares that one const array, and the first
 * change (the config's or bind-key's) gives that client a copy of its
 * own.  A binding is 292 bytes and there are seven tables: copied for
 * every client, they would be most of what an attach costs the server. */
struct binding_table {
	const char *name; /* a mode table's name ("copy-mode"); NULL: the prefix table */
	const struct binding *entries; /* the defaults, or owned once changed */
	size_t count;
	struct binding *owned; /* entries once this table has its own copy; else NULL */
	size_t capacity;       /* of owned */
};

/* Parse a key name as a person writes it and write its canonical spelling
 * to out.  Returns false if name is not a key. */
bool key_name_canonical(const char *name, char *out, size_t size);

/* True if a canonical name is plain text to type rather than a key (a
 * single printable character without modifiers). */
bool key_name_is_text(const char *canonical);

/* The prefix table's defaults, shared until changed. */
void bindings_init_defaults(struct binding_table *table);
/* A table that reads defaults (count of them, canonical keys, each
 * once) in place until its first change. */
void bindings_share(struct binding_table *table, const char *name, const struct binding *defaults,
		    size_t count);
/* The opt-in set (config "vi_pane_keys"): h j k l move the focus, as
 * older sandmux had them; l then no longer goes to the last window. */
void bindings_add_vi_pane_keys(struct binding_table *table);
/* Bind key (any spelling) to command; an empty command removes the
 * binding.  Fails with invalid_key for a name that is no key. */
int bindings_set(struct binding_table *table, const char *key, const char *command,
		 struct sm_error *err);
/* The command bound to a canonical key name, or NULL. */
const char *bindings_lookup(const struct binding_table *table, const char *canonical_key);
/* Whether that key's binding repeats (the defaults' arrows and resize
 * keys, as tmux's; a key the config rebinds does not). */
bool bindings_repeats(const struct binding_table *table, const char *canonical_key);
void bindings_free(struct binding_table *table);

/* ---- mode key tables ---- */

#define KEY_TABLE_NAME_MAX 32
#define MODE_COMMAND_PREFIX "send-keys -X "

/* One of a mode's commands, and what it does (list-keys). */
struct mode_command {
	const char *name; /* tmux's: "cursor-up", "copy-selection-and-cancel" */
	const char *summary;
};

/* A mode's table as the program defines it. */
struct key_table_def {
	const char *name;		/* tmux's -T name: "copy-mode" */
	const char *alias;		/* another name for it, or NULL */
	const struct binding *defaults; /* key -> "send-keys -X NAME" */
	size_t ndefaults;
	const struct mode_command *commands; /* the mode's commands */
	size_t ncommands;
};

/* A client's mode tables, one per key_table_def, in that order. */
struct mode_tables {
	struct binding_table *tables;
	size_t count;
};

/* The table called name (or its alias); NULL and err (unknown_table,
 * the known names in the message) if there is none.  "prefix" is not
 * a mode table. */
const struct key_table_def *key_table_def_find(const char *name, struct sm_error *err);
/* What a mode command line ("send-keys -X NAME" or NAME) does; "" if
 * it is none of that table's. */
const char *mode_command_summary(const struct key_table_def *def, const char *command);

/* Every mode table with its default keys. */
void mode_tables_init(struct mode_tables *tables);
void mode_tables_free(struct mode_tables *tables);
/* The table called name, or NULL and err (unknown_table). */
struct binding_table *mode_tables_find(struct mode_tables *tables, const char *name,
				       struct sm_error *err);
/* Bind key (any spelling) in table to command: "send-keys -X NAME" or
 * NAME alone, NAME one of the mode's commands (stored in the first
 * spelling); "" removes the key.  Errors: unknown_table, invalid_key,
 * invalid_command (a command the mode does not have). */
int mode_tables_bind(struct mode_tables *tables, const char *table, const char *key,
		     const char *command, struct sm_error *err);
/* Whether command would bind in table (the config's check); 0 or -1
 * with err as mode_tables_bind's. */
int mode_table_check(const char *table, const char *command, struct sm_error *err);
/* The mode command's name ("cursor-up") a canonical key runs in table,
 * or NULL when the key is not bound there. */
const char *mode_tables_command(const struct mode_tables *tables, const char *table,
				const char *canonical_key);

/* Words back into one command line, quoted where command_split needs
 * it (a blank, a quote, a backslash, an empty word); false if it does
 * not fit in size. */
bool command_join(char *const *words, int n, char *out, size_t size);

/* Split a command string into words: blanks separate, single and double
 * quotes group, backslash escapes the next character.  Words are written
 * into buf (size bytes) and pointed to from argv; returns the word count,
 * or -1 if the line has an unterminated quote or does not fit. */
int command_split(const char *line, char *buf, size_t size, char **argv, int max_args);

#endif
