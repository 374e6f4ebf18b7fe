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
 * Ownership: a struct binding_table owns its entries; bindings_free()
 * releases them.
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

struct binding_table {
	struct binding *entries;
	size_t count;
	size_t capacity;
};

/* Parse a key name as a person writes it and write its canonical spelling
 * to out.  Returns false if name is not a key. */
bool key_name_canonical(const char *name, char *out, size_t size);

/* True if a canonical name is plain text to type rather than a key (a
 * single printable character without modifiers). */
bool key_name_is_text(const char *canonical);

void bindings_init_defaults(struct binding_table *table);
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

/* Split a command string into words: blanks separate, single and double
 * quotes group, backslash escapes the next character.  Words are written
 * into buf (size bytes) and pointed to from argv; returns the word count,
 * or -1 if the line has an unterminated quote or does not fit. */
int command_split(const char *line, char *buf, size_t size, char **argv, int max_args);

#endif
