/*
 * server-prompt: the status line's prompt, edited as tmux's emacs keys
 * edit it: text goes in at the cursor; BSpace, Delete, C-u, C-k, C-w
 * delete; C-a/Home, C-e/End, Left/C-b, Right/C-f, M-b, M-f move; Up and
 * Down go through the history (server_prompt_history), Tab completes
 * (server_prompt_complete); Enter runs;
 * Escape, C-c, C-g cancel.  A confirm-before question takes one key:
 * y or Y runs its command, anything else drops it.
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

bool server_prompt_key(struct server_prompt *p, const char *key, char *run, size_t size)
{
	if (!p->active)
		return false;
	if (p->kind == SERVER_PROMPT_ASK) {
		p->active = false;
		snprintf(run, size, "%s", key);
		return true;
	}
	if (p->kind == SERVER_PROMPT_CONFIRM) {
		p->active = false;
		if (strcmp(key, "y") != 0 && strcmp(key, "Y") != 0)
			return false;
		snprintf(run, size, "%s", p->command);
		return true;
	}
	/* Any key edits the line: Tab's matches go. */
	p->candidates[0] = '\0';
	if (strcmp(key, "Enter") == 0)
		return finish(p, run, size);
	if (strcmp(key, "Escape") == 0 || strcmp(key, "C-c") == 0 || strcmp(key, "C-g") == 0)
		p->active = false;
	else if (strcmp(key, "BSpace") == 0 || strcmp(key, "C-h") == 0)
		delete_range(p, prev_char(p, p->cursor), p->cursor);
	else if (strcmp(key, "Delete") == 0 || strcmp(key, "C-d") == 0)
		delete_range(p, p->cursor, next_char(p, p->cursor));
	else if (strcmp(key, "C-u") == 0)
		delete_range(p, 0, p->length);
	else if (strcmp(key, "C-k") == 0)
		delete_range(p, p->cursor, p->length);
	else if (strcmp(key, "C-w") == 0)
		delete_range(p, prev_word(p, p->cursor), p->cursor);
	else if (strcmp(key, "C-a") == 0 || strcmp(key, "Home") == 0)
		p->cursor = 0;
	else if (strcmp(key, "C-e") == 0 || strcmp(key, "End") == 0)
		p->cursor = p->length;
	else if (strcmp(key, "C-b") == 0 || strcmp(key, "Left") == 0)
		p->cursor = prev_char(p, p->cursor);
	else if (strcmp(key, "C-f") == 0 || strcmp(key, "Right") == 0)
		p->cursor = next_char(p, p->cursor);
	else if (strcmp(key, "M-b") == 0)
		p->cursor = prev_word(p, p->cursor);
	else if (strcmp(key, "M-f") == 0)
		p->cursor = next_word(p, p->cursor);
	else if (key_name_is_text(key))
		insert(p, strcmp(key, "Space") == 0 ? " " : key);
	return false;
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
