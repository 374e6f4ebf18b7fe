/*
 * mode-tables: the modes' key tables (tmux's `bind -T copy-mode`), as
 * data.  Each table is a name, the keys it has by default and the
 * mode's commands with a line each for list-keys (key_table_defs); a
 * client holds its own tables (struct mode_tables), which read the
 * defaults in place until the config's key_tables or bind-key -T
 * change one: that table is then copied for that client alone.  A mode looks a key up
 * with mode_tables_command() and acts on the command's name; what a
 * key bound to nothing does is the mode's own rule (it types itself at
 * the prompt, closes the help, leaves a question waiting).  See
 * bindings.h for the declarations.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "error.h"
#include "xalloc.h"

/* Copy mode's keys, as sandmux has always had them (docs/keys.md): vi's
 * motions and the cursor keys, tmux's names for what they do. */
#define X MODE_COMMAND_PREFIX
static const struct binding copy_mode_defaults[] = {
    {"Up", X "cursor-up", false},
    {"k", X "cursor-up", false},
    {"Down", X "cursor-down", false},
    {"j", X "cursor-down", false},
    {"Left", X "cursor-left", false},
    {"h", X "cursor-left", false},
    {"Right", X "cursor-right", false},
    {"l", X "cursor-right", false},
    {"0", X "start-of-line", false},
    {"Home", X "start-of-line", false},
    {"$", X "end-of-line", false},
    {"End", X "end-of-line", false},
    {"PageUp", X "page-up", false},
    {"C-b", X "page-up", false},
    {"PageDown", X "page-down", false},
    {"C-f", X "page-down", false},
    {"C-u", X "halfpage-up", false},
    {"C-d", X "halfpage-down", false},
    {"g", X "history-top", false},
    {"G", X "history-bottom", false},
    {"/", X "search-forward", false},
    {"?", X "search-backward", false},
    {"n", X "search-again", false},
    {"N", X "search-reverse", false},
    {"{", X "previous-prompt", false},
    {"}", X "next-prompt", false},
    {"Space", X "begin-selection", false},
    {"v", X "begin-selection", false},
    {"Enter", X "copy-selection-and-cancel", false},
    {"y", X "copy-selection-and-cancel", false},
    {"Escape", X "clear-selection-or-cancel", false},
    {"q", X "cancel", false},
    {"C-c", X "cancel", false},
};
#undef X

static const struct mode_command copy_mode_commands[] = {
    {"cursor-up", "the cursor a line up"},
    {"cursor-down", "the cursor a line down"},
    {"cursor-left", "the cursor a column left"},
    {"cursor-right", "the cursor a column right"},
    {"start-of-line", "the cursor to the line's start"},
    {"end-of-line", "the cursor to the line's last character"},
    {"page-up", "a page up"},
    {"page-down", "a page down"},
    {"halfpage-up", "half a page up"},
    {"halfpage-down", "half a page down"},
    {"history-top", "the top of the history"},
    {"history-bottom", "the bottom"},
    {"search-forward", "search down (a prompt opens)"},
    {"search-backward", "search up (a prompt opens)"},
    {"search-again", "the last search again, its way"},
    {"search-reverse", "the last search again, the other way"},
    {"previous-prompt", "the previous prompt marked with OSC 133"},
    {"next-prompt", "the next prompt marked with OSC 133"},
    {"begin-selection", "start a selection at the cursor (or drop it)"},
    {"clear-selection", "drop the selection"},
    {"copy-selection-and-cancel", "copy the selection (or the line) and leave"},
    {"clear-selection-or-cancel", "drop the selection; leave if there is none"},
    {"cancel", "leave copy mode"},
};

/* Choose mode's keys (choose-tree, choose-buffer; server-choose.c),
 * tmux's mode-tree keys. */
#define X MODE_COMMAND_PREFIX
static const struct binding choose_mode_defaults[] = {
    {"Up", X "cursor-up", false},
    {"k", X "cursor-up", false},
    {"Down", X "cursor-down", false},
    {"j", X "cursor-down", false},
    {"PageUp", X "page-up", false},
    {"PageDown", X "page-down", false},
    {"Home", X "top", false},
    {"g", X "top", false},
    {"End", X "bottom", false},
    {"G", X "bottom", false},
    {"Left", X "collapse", false},
    {"h", X "collapse", false},
    {"Right", X "expand", false},
    {"l", X "expand", false},
    {"Enter", X "choose", false},
    {"d", X "delete", false},
    {"q", X "cancel", false},
    {"Escape", X "cancel", false},
    {"C-c", X "cancel", false},
};
#undef X

static const struct mode_command choose_mode_commands[] = {
    {"cursor-up", "the item above"},
    {"cursor-down", "the item below"},
    {"page-up", "a page up"},
    {"page-down", "a page down"},
    {"top", "the first item"},
    {"bottom", "the last item"},
    {"collapse", "the tree: close the item, or go to its parent"},
    {"expand", "the tree: open the item"},
    {"choose", "show the item (switch-client) or paste the buffer, and leave"},
    {"delete", "the buffers: delete the buffer"},
    {"cancel", "leave choose mode"},
};

/* The command prompt's keys (`:`, command-prompt's templates, copy
 * mode's search; server-prompt.c): tmux's emacs keys, its commands
 * named as tmux's emacs-edit table named them.  A key bound to nothing
 * here types itself when it is text. */
#define X MODE_COMMAND_PREFIX
static const struct binding prompt_defaults[] = {
    {"Enter", X "enter", false},
    {"Escape", X "cancel", false},
    {"C-c", X "cancel", false},
    {"C-g", X "cancel", false},
    {"BSpace", X "backspace", false},
    {"C-h", X "backspace", false},
    {"Delete", X "delete", false},
    {"C-d", X "delete", false},
    {"C-u", X "delete-line", false},
    {"C-k", X "delete-end-of-line", false},
    {"C-w", X "delete-word", false},
    {"C-a", X "start-of-line", false},
    {"Home", X "start-of-line", false},
    {"C-e", X "end-of-line", false},
    {"End", X "end-of-line", false},
    {"C-b", X "cursor-left", false},
    {"Left", X "cursor-left", false},
    {"C-f", X "cursor-right", false},
    {"Right", X "cursor-right", false},
    {"M-b", X "previous-word", false},
    {"M-f", X "next-word", false},
    {"Up", X "history-up", false},
    {"Down", X "history-down", false},
    {"Tab", X "complete", false},
};
#undef X

static const struct mode_command prompt_commands[] = {
    {"enter", "run the line (or search for it) and close the prompt"},
    {"cancel", "close the prompt, running nothing"},
    {"backspace", "delete the character before the cursor"},
    {"delete", "delete the character under the cursor"},
    {"delete-line", "delete the whole line"},
    {"delete-end-of-line", "delete from the cursor to the end"},
    {"delete-word", "delete the word before the cursor"},
    {"start-of-line", "the cursor to the start"},
    {"end-of-line", "the cursor to the end"},
    {"cursor-left", "the cursor a character left"},
    {"cursor-right", "the cursor a character right"},
    {"previous-word", "the cursor a word left"},
    {"next-word", "the cursor a word right"},
    {"history-up", "the line typed before (the server's history)"},
    {"history-down", "the line typed after it"},
    {"complete", "complete the word before the cursor"},
};

/* The help overlay's keys (list-keys, and a command's output shown in
 * its place).  A key bound to nothing here closes it, as before. */
#define X MODE_COMMAND_PREFIX
static const struct binding help_mode_defaults[] = {
    {"Down", X "scroll-down", false},
    {"j", X "scroll-down", false},
    {"Up", X "scroll-up", false},
    {"k", X "scroll-up", false},
    {"PageDown", X "page-down", false},
    {"Space", X "page-down", false},
    {"C-f", X "page-down", false},
    {"PageUp", X "page-up", false},
    {"C-b", X "page-up", false},
    {"q", X "cancel", false},
    {"Escape", X "cancel", false},
};
#undef X

static const struct mode_command help_mode_commands[] = {
    {"scroll-down", "a line down"},
    {"scroll-up", "a line up"},
    {"page-down", "a page down"},
    {"page-up", "a page up"},
    {"cancel", "close it (so does any key bound to nothing)"},
};

/* display-panes' keys: a digit focuses the pane with that number. */
#define X MODE_COMMAND_PREFIX
static const struct binding display_panes_defaults[] = {
    {"0", X "select-pane-0", false},
    {"1", X "select-pane-1", false},
    {"2", X "select-pane-2", false},
    {"3", X "select-pane-3", false},
    {"4", X "select-pane-4", false},
    {"5", X "select-pane-5", false},
    {"6", X "select-pane-6", false},
    {"7", X "select-pane-7", false},
    {"8", X "select-pane-8", false},
    {"9", X "select-pane-9", false},
    {"q", X "cancel", false},
    {"Escape", X "cancel", false},
};
#undef X

static const struct mode_command display_panes_commands[] = {
    {"select-pane-0", "focus pane 0"},
    {"select-pane-1", "focus pane 1"},
    {"select-pane-2", "focus pane 2"},
    {"select-pane-3", "focus pane 3"},
    {"select-pane-4", "focus pane 4"},
    {"select-pane-5", "focus pane 5"},
    {"select-pane-6", "focus pane 6"},
    {"select-pane-7", "focus pane 7"},
    {"select-pane-8", "focus pane 8"},
    {"select-pane-9", "focus pane 9"},
    {"cancel", "take the numbers away (so does any key bound to nothing)"},
};

/* Ask mode's answers (a pane's held connection or clipboard write,
 * asked in the status line).  Threat: an answer that grants what the
 * user did not mean to.  allow is bound to `a` and nothing else unless
 * the user binds it (the config, bind-key at the prompt or in a file
 * the user sources); a key bound to nothing only leaves the question
 * waiting, so unbinding a key can never turn it into an allow. */
#define X MODE_COMMAND_PREFIX
static const struct binding ask_mode_defaults[] = {
    {"a", X "allow", false},
    {"d", X "deny", false},
};
#undef X

static const struct mode_command ask_mode_commands[] = {
    {"allow", "allow the host for the session, or write the clipboard"},
    {"deny", "refuse the held connections now, or drop the clipboard write"},
    {"dismiss", "leave it to the feed or the timeout (so does any key bound to nothing)"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct key_table_def key_table_defs[] = {
    /* One copy mode, its keys vi's and the cursor keys: tmux's vi table
     * (copy-mode-vi) is its other name, so tmux lines bind either. */
    {"copy-mode", "copy-mode-vi", copy_mode_defaults, COUNT(copy_mode_defaults),
     copy_mode_commands, COUNT(copy_mode_commands)},
    /* Choose mode (choose-tree, choose-buffer): tmux has its keys fixed. */
    {"choose-mode", NULL, choose_mode_defaults, COUNT(choose_mode_defaults),
     choose_mode_commands, COUNT(choose_mode_commands)},
    /* tmux's prompt keys were the emacs-edit table until 2.4; now fixed. */
    {"prompt", NULL, prompt_defaults, COUNT(prompt_defaults), prompt_commands,
     COUNT(prompt_commands)},
    /* The rest tmux has fixed, or has not. */
    {"help-mode", NULL, help_mode_defaults, COUNT(help_mode_defaults), help_mode_commands,
     COUNT(help_mode_commands)},
    {"display-panes", NULL, display_panes_defaults, COUNT(display_panes_defaults),
     display_panes_commands, COUNT(display_panes_commands)},
    {"ask-mode", NULL, ask_mode_defaults, COUNT(ask_mode_defaults), ask_mode_commands,
     COUNT(ask_mode_commands)},
};

static ptrdiff_t key_table_index(const char *name, struct sm_error *err)
{
	char known[256] = "";

	for (size_t i = 0; i < COUNT(key_table_defs); i++) {
		const struct key_table_def *def = &key_table_defs[i];

		if (name != NULL && (strcmp(name, def->name) == 0 ||
				     (def->alias != NULL && strcmp(name, def->alias) == 0)))
			return (ptrdiff_t)i;
		snprintf(known + strlen(known), sizeof known - strlen(known), ", %s",
			 key_table_defs[i].name);
	}
	sm_error_set(err, SM_ERR_UNKNOWN_TABLE, "no key table \"%s\" (prefix%s)",
		     name ? name : "", known);
	return -1;
}

const struct key_table_def *key_table_def_find(const char *name, struct sm_error *err)
{
	ptrdiff_t i = key_table_index(name, err);

	return i < 0 ? NULL : &key_table_defs[i];
}

/* The command's name in "send-keys -X NAME" or NAME, if the mode has it. */
static const struct mode_command *mode_command_find(const struct key_table_def *def,
						    const char *command)
{
	size_t skip = strlen(MODE_COMMAND_PREFIX);

	if (strncmp(command, MODE_COMMAND_PREFIX, skip) == 0)
		command += skip;
	for (size_t i = 0; i < def->ncommands; i++)
		if (strcmp(command, def->commands[i].name) == 0)
			return &def->commands[i];
	return NULL;
}

const char *mode_command_summary(const struct key_table_def *def, const char *command)
{
	const struct mode_command *found = mode_command_find(def, command);

	return found ? found->summary : "";
}

int mode_table_check(const char *table, const char *command, struct sm_error *err)
{
	const struct key_table_def *def = key_table_def_find(table, err);

	if (def == NULL)
		return -1;
	if (command[0] != 0 && mode_command_find(def, command) == NULL) {
		sm_error_set(err, SM_ERR_INVALID_COMMAND,
			     "\"%s\" is no %s command (send-keys -X %s, %s, ...: "
			     "docs/keys.md)",
			     command, def->name, def->commands[0].name, def->commands[1].name);
		return -1;
	}
	return 0;
}

void mode_tables_init(struct mode_tables *tables)
{
	tables->count = COUNT(key_table_defs);
	tables->tables = xcalloc(tables->count, sizeof *tables->tables);
	for (size_t i = 0; i < tables->count; i++)
		bindings_share(&tables->tables[i], key_table_defs[i].name,
			       key_table_defs[i].defaults, key_table_defs[i].ndefaults);
}

void mode_tables_free(struct mode_tables *tables)
{
	for (size_t i = 0; i < tables->count; i++)
		bindings_free(&tables->tables[i]);
	free(tables->tables);
	memset(tables, 0, sizeof *tables);
}

struct binding_table *mode_tables_find(struct mode_tables *tables, const char *name,
				       struct sm_error *err)
{
	ptrdiff_t i = key_table_index(name, err);

	return i < 0 || (size_t)i >= tables->count ? NULL : &tables->tables[i];
}

int mode_tables_bind(struct mode_tables *tables, const char *table, const char *key,
		     const char *command, struct sm_error *err)
{
	struct binding_table *found = mode_tables_find(tables, table, err);
	const struct mode_command *mode_command;
	char spelled[BINDING_COMMAND_MAX];

	if (found == NULL || mode_table_check(table, command, err) < 0)
		return -1;
	if (command[0] == 0)
		return bindings_set(found, key, "", err);
	mode_command = mode_command_find(&key_table_defs[found - tables->tables], command);
	snprintf(spelled, sizeof spelled, MODE_COMMAND_PREFIX "%s", mode_command->name);
	return bindings_set(found, key, spelled, err);
}

const char *mode_tables_command(const struct mode_tables *tables, const char *table,
				const char *canonical_key)
{
	ptrdiff_t i = key_table_index(table, NULL);
	const char *command;

	if (i < 0 || (size_t)i >= tables->count)
		return NULL;
	command = bindings_lookup(&tables->tables[i], canonical_key);
	return command ? command + strlen(MODE_COMMAND_PREFIX) : NULL;
}
