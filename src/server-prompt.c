/*
 * server-prompt: the status line's prompt, edited as tmux's emacs keys
 * edit it.  Its keys are the "prompt" key table's (mode-tables.c: Enter
 * runs, Escape, C-c, C-g cancel, BSpace, Delete, C-u, C-k, C-w delete,
 * C-a/Home, C-e/End, Left/C-b, Right/C-f, M-b, M-f move, Up and Down
 * ask for the history, Tab for completion); a key bound to nothing
 * types itself when it is text.  A confirm-before question takes one
 * key: y or Y runs its command, anything else drops it.  Ask mode's
 * question takes one key too, through the "ask-mode" table.
 */
#include <stdio.h>
#include <string.h>

#include "bindings.h"
#include "command.h"
#include "server-prompt.h"

void server_prompt_open(struct server_prompt *p, enum server_prompt_kind kind, const char *label,
			const char *initial, const char *command)
{
	memset(p, 0, sizeof *p);
	p->active = true;
	p->kind = kind;
	snprintf(p->label, sizeof p->label, "%s", label);
	snprintf(p->text, sizeof p->text, "%s", initial != NULL ? initial : "");
	p->length = p->cursor = strlen(p->text);
	snprintf(p->command, sizeof p->command, "%s", command != NULL ? command : "");
}

/* UTF-8: a character's bytes never start with 10xxxxxx. */
static size_t prev_char(const struct server_prompt *p, size_t at)
{
	while (at > 0 && ((unsigned char)p->text[--at] & 0xc0) == 0x80)
		;
	return at;
}

static size_t next_char(const struct server_prompt *p, size_t at)
{
	if (at < p->length)
		at++;
	while (at < p->length && ((unsigned char)p->text[at] & 0xc0) == 0x80)
		at++;
	return at;
}

static size_t prev_word(const struct server_prompt *p, size_t at)
{
	while (at > 0 && p->text[at - 1] == ' ')
		at--;
	while (at > 0 && p->text[at - 1] != ' ')
		at--;
	return at;
}

static size_t next_word(const struct server_prompt *p, size_t at)
{
	while (at < p->length && p->text[at] == ' ')
		at++;
	while (at < p->length && p->text[at] != ' ')
		at++;
	return at;
}

static void delete_range(struct server_prompt *p, size_t from, size_t to)
{
	memmove(p->text + from, p->text + to, p->length - to + 1);
	p->length -= to - from;
	p->cursor = from;
}

static void insert(struct server_prompt *p, const char *text)
{
	size_t n = strlen(text);

	if (p->length + n >= sizeof p->text)
		return;
	memmove(p->text + p->cursor + n, p->text + p->cursor, p->length - p->cursor + 1);
	memcpy(p->text + p->cursor, text, n);
	p->length += n;
	p->cursor += n;
}

static bool finish(struct server_prompt *p, char *run, size_t size)
{
	p->active = false;
	if (p->command[0] != '\0')
		command_fill_template(p->command, p->text, run, size);
	else
		snprintf(run, size, "%s", p->text);
	return run[0] != '\0';
}

/* The prompt's commands, each what its key does to the line. */
enum edit_op {
	EDIT_ENTER,
	EDIT_CANCEL,
	EDIT_BACKSPACE,
	EDIT_DELETE,
	EDIT_DELETE_LINE,
	EDIT_DELETE_END,
	EDIT_DELETE_WORD,
	EDIT_START,
	EDIT_END,
	EDIT_LEFT,
	EDIT_RIGHT,
	EDIT_WORD_LEFT,
	EDIT_WORD_RIGHT,
};

static const struct {
	const char *name;
	enum edit_op op;
} edit_ops[] = {
    {"enter", EDIT_ENTER},
    {"cancel", EDIT_CANCEL},
    {"backspace", EDIT_BACKSPACE},
    {"delete", EDIT_DELETE},
    {"delete-line", EDIT_DELETE_LINE},
    {"delete-end-of-line", EDIT_DELETE_END},
    {"delete-word", EDIT_DELETE_WORD},
    {"start-of-line", EDIT_START},
    {"end-of-line", EDIT_END},
    {"cursor-left", EDIT_LEFT},
    {"cursor-right", EDIT_RIGHT},
    {"previous-word", EDIT_WORD_LEFT},
    {"next-word", EDIT_WORD_RIGHT},
};

static bool edit(struct server_prompt *p, enum edit_op op, char *run, size_t size)
{
	switch (op) {
	case EDIT_ENTER:
		return finish(p, run, size);
	case EDIT_CANCEL:
		p->active = false;
		break;
	case EDIT_BACKSPACE:
		delete_range(p, prev_char(p, p->cursor), p->cursor);
		break;
	case EDIT_DELETE:
		delete_range(p, p->cursor, next_char(p, p->cursor));
		break;
	case EDIT_DELETE_LINE:
		delete_range(p, 0, p->length);
		break;
	case EDIT_DELETE_END:
		delete_range(p, p->cursor, p->length);
		break;
	case EDIT_DELETE_WORD:
		delete_range(p, prev_word(p, p->cursor), p->cursor);
		break;
	case EDIT_START:
		p->cursor = 0;
		break;
	case EDIT_END:
		p->cursor = p->length;
		break;
	case EDIT_LEFT:
		p->cursor = prev_char(p, p->cursor);
		break;
	case EDIT_RIGHT:
		p->cursor = next_char(p, p->cursor);
		break;
	case EDIT_WORD_LEFT:
		p->cursor = prev_word(p, p->cursor);
		break;
	case EDIT_WORD_RIGHT:
		p->cursor = next_word(p, p->cursor);
		break;
	}
	return false;
}

bool server_prompt_command(struct server_prompt *p, const char *command, char *run, size_t size)
{
	if (!p->active || p->kind == SERVER_PROMPT_ASK || p->kind == SERVER_PROMPT_CONFIRM)
		return false;
	/* Any command edits the line: Tab's matches go. */
	p->candidates[0] = '\0';
	for (size_t i = 0; i < sizeof edit_ops / sizeof edit_ops[0]; i++)
		if (strcmp(command, edit_ops[i].name) == 0)
			return edit(p, edit_ops[i].op, run, size);
	return false;
}

enum server_prompt_action server_prompt_key(struct server_prompt *p,
					    const struct mode_tables *tables, const char *key,
					    char *run, size_t size)
{
	const char *command;

	if (!p->active)
		return SERVER_PROMPT_EDITED;
	if (p->kind == SERVER_PROMPT_ASK) {
		/* Only a key the ask-mode table binds answers; any other
		 * leaves the question waiting. */
		command = mode_tables_command(tables, "ask-mode", key);
		p->active = false;
		snprintf(run, size, "%s", command != NULL ? command : "dismiss");
		return SERVER_PROMPT_RUN;
	}
	if (p->kind == SERVER_PROMPT_CONFIRM) {
		p->active = false;
		if (strcmp(key, "y") != 0 && strcmp(key, "Y") != 0)
			return SERVER_PROMPT_EDITED;
		snprintf(run, size, "%s", p->command);
		return SERVER_PROMPT_RUN;
	}
	command = mode_tables_command(tables, "prompt", key);
	if (command == NULL) {
		p->candidates[0] = '\0';
		if (key_name_is_text(key))
			insert(p, strcmp(key, "Space") == 0 ? " " : key);
		return SERVER_PROMPT_EDITED;
	}
	if (strcmp(command, "complete") == 0)
		return SERVER_PROMPT_COMPLETE;
	if (strcmp(command, "history-up") == 0)
		return SERVER_PROMPT_HISTORY_UP;
	if (strcmp(command, "history-down") == 0)
		return SERVER_PROMPT_HISTORY_DOWN;
	return server_prompt_command(p, command, run, size) ? SERVER_PROMPT_RUN
							    : SERVER_PROMPT_EDITED;
}

bool server_prompt_has_history(const struct server_prompt *p)
{
	return p->active && p->kind == SERVER_PROMPT_COMMAND && p->command[0] == '\0';
}

void server_prompt_history(struct server_prompt *p, int step, const char *const *lines, int count)
{
	int at = p->history_at - step;

	if (!server_prompt_has_history(p) || at < 0 || at > count)
		return;
	if (p->history_at == 0)
		snprintf(p->typed, sizeof p->typed, "%s", p->text);
	p->history_at = at;
	snprintf(p->text, sizeof p->text, "%s", at == 0 ? p->typed : lines[count - at]);
	p->length = p->cursor = strlen(p->text);
}

static size_t word_start(const struct server_prompt *p)
{
	size_t start = p->cursor;

	while (start > 0 && p->text[start - 1] != ' ')
		start--;
	return start;
}

const char *server_prompt_completion_kind(const struct server_prompt *p)
{
	size_t start = word_start(p), option_end = start, option_start;
	char name[64], option[64];
	size_t skip = strspn(p->text, " ");

	if (!server_prompt_has_history(p))
		return NULL;
	if (skip == start)
		return "command";
	snprintf(name, sizeof name, "%.*s", (int)strcspn(p->text + skip, " "), p->text + skip);
	while (option_end > 0 && p->text[option_end - 1] == ' ')
		option_end--;
	option_start = option_end;
	while (option_start > 0 && p->text[option_start - 1] != ' ')
		option_start--;
	snprintf(option, sizeof option, "%.*s", (int)(option_end - option_start),
		 p->text + option_start);
	return command_option_value_kind(command_find(name, CMD_PROMPT), option);
}

void server_prompt_complete(struct server_prompt *p, const char *const *words, size_t count)
{
	size_t start = word_start(p), typed = p->cursor - start, common = 0, matches = 0, used = 0;
	int level = command_target_level(p->text + start, typed);
	const char *kind = server_prompt_completion_kind(p);
	bool targets = kind != NULL && strcmp(kind, "target") == 0;
	const char *first = NULL;
	char replacement[256];

	p->candidates[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		if (strncmp(words[i], p->text + start, typed) != 0 ||
		    (targets && command_target_level(words[i], strlen(words[i])) != level))
			continue;
		if (first == NULL) {
			first = words[i];
			common = strlen(first);
		}
		while (common > 0 && strncmp(words[i], first, common) != 0)
			common--;
		if (used + strlen(words[i]) + 3 < sizeof p->candidates)
			used += (size_t)snprintf(p->candidates + used, sizeof p->candidates - used,
						 "%s%s", matches ? "  " : "", words[i]);
		matches++;
	}
	if (matches == 0)
		return;
	if (matches == 1) {
		snprintf(replacement, sizeof replacement, "%s ", first);
		p->candidates[0] = '\0';
	} else {
		snprintf(replacement, sizeof replacement, "%.*s", (int)common, first);
	}
	delete_range(p, start, p->cursor);
	insert(p, replacement);
}
