/*
 * bindings: key names (tmux's spelling) and the table that maps a key
 * pressed after the prefix to a command string.  See bindings.h.
 *
 * People write names in the config, which are checked and canonicalised
 * here (key_name_canonical); keys the server decodes from a terminal
 * (term_input_decode) are named by the same parser, term/keys.c.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <vterm_keycodes.h>

#include "bindings.h"
#include "error.h"
#include "term.h"
#include "xalloc.h"

/* Names are read by term/keys.c, the one parser of key names (the
 * server encodes the same names for panes); this file only spells the
 * result the way the config and the binding table write keys: Shift-Tab
 * as S-Tab, and a control letter in lower case, since terminals cannot
 * tell C-B from C-b (both send 0x02). */
bool key_name_canonical(const char *name, char *out, size_t size)
{
	struct term_key key;

	if (name == NULL || !term_key_parse(name, &key))
		return false;
	if ((key.mods & TERM_MOD_CTRL) && key.kind == TERM_KEY_CHAR && key.codepoint < 0x80)
		key.codepoint = (uint32_t)tolower((int)key.codepoint);
	if (key.kind == TERM_KEY_NAMED && key.named == VTERM_KEY_TAB && (key.mods & TERM_MOD_SHIFT)) {
		snprintf(out, size, "%s%sS-Tab", (key.mods & TERM_MOD_CTRL) ? "C-" : "",
			 (key.mods & TERM_MOD_ALT) ? "M-" : "");
		return true;
	}
	term_key_name(&key, out, size);
	return true;
}

bool key_name_is_text(const char *canonical)
{
	struct term_key key;

	return term_key_parse(canonical, &key) && key.kind == TERM_KEY_CHAR && key.mods == 0;
}

/* The defaults.  tmux users will recognise every key; those marked
 * true repeat, as tmux binds them with -r. */
static const struct binding default_bindings[] = {
    {"%", "split -h", false},
    {"\"", "split -v", false},
    {"Left", "select-pane -L", true},
    {"Right", "select-pane -R", true},
    {"Up", "select-pane -U", true},
    {"Down", "select-pane -D", true},
    {"l", "last-window", false},
    {";", "last-pane", false},
    {"{", "swap-pane -U", false},
    {"}", "swap-pane -D", false},
    {"!", "break-pane", false},
    {",", "command-prompt -I \"#W\" \"rename-window -- \\\"%%\\\"\"", false},
    {"&", "confirm-before -p \"kill window? (y/n)\" kill-window", false},
    {"M-1", "select-layout even-horizontal", false},
    {"M-2", "select-layout even-vertical", false},
    {"M-3", "select-layout main-horizontal", false},
    {"M-4", "select-layout main-vertical", false},
    {"M-5", "select-layout tiled", false},
    {"Space", "next-layout", false},
    {"C-Left", "resize-pane -L 5", true},
    {"C-Right", "resize-pane -R 5", true},
    {"C-Up", "resize-pane -U 5", true},
    {"C-Down", "resize-pane -D 5", true},
    {"x", "confirm-before -p \"kill pane? (y/n)\" kill-pane", false},
    {"z", "zoom", false},
    {"c", "new-window", false},
    {"n", "next-window", false},
    {"p", "previous-window", false},
    {"0", "select-window -t 0", false},
    {"1", "select-window -t 1", false},
    {"2", "select-window -t 2", false},
    {"3", "select-window -t 3", false},
    {"4", "select-window -t 4", false},
    {"5", "select-window -t 5", false},
    {"6", "select-window -t 6", false},
    {"7", "select-window -t 7", false},
    {"8", "select-window -t 8", false},
    {"9", "select-window -t 9", false},
    {"d", "detach", false},
    {"[", "copy-mode", false},
    {"PageUp", "copy-mode -u", false},
    {"]", "paste-buffer", false},
    {"=", "choose-buffer", false},
    {"s", "choose-tree -s", false},
    {"w", "choose-tree -w", false},
    {"q", "display-panes", false},
    {":", "command-prompt", false},
    {"?", "list-keys", false},
    {"o", "select-pane -n", false},
    {"P", "display-popup", false},
    /* zellij's toggle of floating panes; tmux 3.7 has no default key. */
    {"W", "toggle-floating", false},
    /* sandmux's own: the violation feed and sandboxed splits (the
     * active pane's profile or the default; docs/keys.md). */
    {"v", "feed --toggle", false},
    {"S", "split -h -b native", false},
    {"V", "split -v -b native", false},
    {"M-S", "split -h -b microvm", false},
    {"M-V", "split -v -b microvm", false},
};

/* Opt-in (config "vi_pane_keys"): tmux has none of these by default,
 * and its l is last-window. */
static const struct binding vi_pane_bindings[] = {
    {"h", "select-pane -L", false},
    {"j", "select-pane -D", false},
    {"k", "select-pane -U", false},
    {"l", "select-pane -R", false},
};

void bindings_add_vi_pane_keys(struct binding_table *table)
{
	for (size_t i = 0; i < sizeof vi_pane_bindings / sizeof vi_pane_bindings[0]; i++)
		bindings_set(table, vi_pane_bindings[i].key, vi_pane_bindings[i].command, NULL);
}

static const struct binding *bindings_find(const struct binding_table *table, const char *key)
{
	for (size_t i = 0; i < table->count; i++)
		if (strcmp(table->entries[i].key, key) == 0)
			return &table->entries[i];
	return NULL;
}

/* The table's own copy of its entries, made at its first change, with
 * room for a few more: the defaults it read until then stay shared. */
static void bindings_own(struct binding_table *table)
{
	if (table->owned != NULL)
		return;
	table->capacity = table->count + 8;
	table->owned = xmalloc(table->capacity * sizeof *table->owned);
	if (table->count > 0)
		memcpy(table->owned, table->entries, table->count * sizeof *table->owned);
	table->entries = table->owned;
}

/* table reads defaults in place until its first change; they must be
 * canonical and each key once (test_binding_table, test_every_table). */
void bindings_share(struct binding_table *table, const char *name, const struct binding *defaults,
		    size_t count)
{
	*table = (struct binding_table){.name = name, .entries = defaults, .count = count};
}

int bindings_set(struct binding_table *table, const char *key, const char *command,
		 struct sm_error *err)
{
	char canonical[KEY_NAME_MAX];
	const struct binding *found;
	struct binding *entry = NULL;
	size_t index;

	if (!key_name_canonical(key, canonical, sizeof canonical)) {
		sm_error_set(err, SM_ERR_INVALID_KEY, "\"%s\" is not a key name", key);
		return -1;
	}
	if (strlen(command) >= BINDING_COMMAND_MAX) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "the command bound to %s is too long",
			     canonical);
		return -1;
	}
	found = bindings_find(table, canonical);
	if (found == NULL && command[0] == 0)
		return 0;
	index = found != NULL ? (size_t)(found - table->entries) : table->count;
	bindings_own(table);
	if (found != NULL)
		entry = &table->owned[index];
	if (command[0] == 0) {
		memmove(entry, entry + 1, (table->count - index - 1) * sizeof *entry);
		table->count--;
		return 0;
	}
	if (entry == NULL) {
		if (table->count == table->capacity) {
			table->capacity *= 2;
			table->owned = xrealloc(table->owned, table->capacity * sizeof *table->owned);
			table->entries = table->owned;
		}
		entry = &table->owned[table->count++];
		snprintf(entry->key, sizeof entry->key, "%s", canonical);
	}
	snprintf(entry->command, sizeof entry->command, "%s", command);
	entry->repeat = false;
	return 0;
}

void bindings_init_defaults(struct binding_table *table)
{
	bindings_share(table, NULL, default_bindings,
		       sizeof default_bindings / sizeof default_bindings[0]);
}

bool bindings_repeats(const struct binding_table *table, const char *canonical_key)
{
	const struct binding *entry = bindings_find(table, canonical_key);

	return entry != NULL && entry->repeat;
}

const char *bindings_lookup(const struct binding_table *table, const char *canonical_key)
{
	const struct binding *entry = bindings_find(table, canonical_key);

	return entry ? entry->command : NULL;
}

void bindings_free(struct binding_table *table)
{
	free(table->owned);
	memset(table, 0, sizeof *table);
}

static void join_put(char *out, size_t size, size_t *used, char c)
{
	if (*used + 1 < size)
		out[*used] = c;
	(*used)++;
}

bool command_join(char *const *words, int n, char *out, size_t size)
{
	size_t used = 0;

	for (int i = 0; i < n; i++) {
		bool quote = words[i][0] == 0 || strpbrk(words[i], " \t\"'\\") != NULL;

		if (i > 0)
			join_put(out, size, &used, ' ');
		if (quote)
			join_put(out, size, &used, '"');
		for (const char *c = words[i]; *c != 0; c++) {
			if (*c == '"' || *c == '\\')
				join_put(out, size, &used, '\\');
			join_put(out, size, &used, *c);
		}
		if (quote)
			join_put(out, size, &used, '"');
	}
	if (size > 0)
		out[used < size ? used : size - 1] = 0;
	return used < size;
}

int command_split(const char *line, char *buf, size_t size, char **argv, int max_args)
{
	size_t used = 0;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == 0)
			return argc;
		if (argc == max_args)
			return -1;
		argv[argc++] = buf + used;
		while (*line != 0 && (quote != 0 || (*line != ' ' && *line != '\t'))) {
			char c = *line++;

			if (quote == 0 && (c == '"' || c == '\'')) {
				quote = c;
				continue;
			}
			if (c == quote) {
				quote = 0;
				continue;
			}
			if (c == '\\' && quote != '\'' && *line != 0)
				c = *line++;
			if (used + 1 >= size)
				return -1;
			buf[used++] = c;
		}
		if (quote != 0)
			return -1;
		if (used + 1 >= size)
			return -1;
		buf[used++] = 0;
	}
}
