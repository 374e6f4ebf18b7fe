/*
 * server-prompt: the status line's prompt when the server owns the
 * terminal: a command typed after `:` (command-prompt, with its -I
 * initial text and its template, whose %% the text fills), or a
 * confirm-before question answered with y.  Pure: keys in, the command
 * to run out; server-tty.c draws and runs it.
 */
#ifndef SANDMUX_SERVER_PROMPT_H
#define SANDMUX_SERVER_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

enum server_prompt_kind {
	SERVER_PROMPT_COMMAND,
	SERVER_PROMPT_CONFIRM,
	SERVER_PROMPT_SEARCH_UP, /* copy mode's ? and /: Enter gives the text */
	SERVER_PROMPT_SEARCH_DOWN,
	SERVER_PROMPT_ASK, /* ask mode's question: any one key answers, given back */
};

struct server_prompt {
	bool active;
	enum server_prompt_kind kind;
	char label[128];
	char text[1024];
	size_t length, cursor; /* bytes */
	char command[256];     /* the template (command) or the confirmed command */
	int history_at;	       /* lines back in the history; 0: the line typed */
	char typed[1024];      /* the line typed, kept while the history is shown */
	char candidates[512];  /* Tab's matches when there were several, else "" */
};

void server_prompt_open(struct server_prompt *p, enum server_prompt_kind kind, const char *label,
			const char *initial, const char *command);
/* A key by its canonical name.  Returns true when the prompt ended with
 * a command to run, written to run; the prompt is then inactive, as it
 * is after Escape. */
bool server_prompt_key(struct server_prompt *p, const char *key, char *run, size_t size);
/* Whether the prompt goes through the command history: a command
 * prompt without a template (a template's text is a name, not a line). */
bool server_prompt_has_history(const struct server_prompt *p);
/* Up (step -1, older) or Down (1) through lines, oldest first; past the
 * newest is the line that was being typed; beyond either end nothing. */
void server_prompt_history(struct server_prompt *p, int step, const char *const *lines, int count);

/* What Tab completes the word before the cursor from: "command" (the
 * first word), or the kind of value the option before it takes
 * ("target", "backend", "profile"); NULL: nothing. */
const char *server_prompt_completion_kind(const struct server_prompt *p);
/* Tab, as tmux's: the word before the cursor completed from words (for
 * targets, only those at the level typed).  One match: it and a blank;
 * several: as far as they agree, and the matches kept in candidates. */
void server_prompt_complete(struct server_prompt *p, const char *const *words, size_t count);

#endif
