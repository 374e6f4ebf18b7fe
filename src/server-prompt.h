/*
 * server-prompt: the status line's prompt when the server owns the
 * terminal: a command typed after `:` (command-prompt, with its -I
 * initial text and its template, whose %% the text fills), copy mode's
 * search, a confirm-before question answered with y, or ask mode's
 * question.  Its keys are the "prompt" key table's (ask mode's, the
 * "ask-mode" table's; mode-tables.c).  Pure: keys in, what to do out;
 * server-tty.c draws and runs it.
 */
#ifndef SANDMUX_SERVER_PROMPT_H
#define SANDMUX_SERVER_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

struct mode_tables;

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

/* What a key asks of the prompt's owner. */
enum server_prompt_action {
	SERVER_PROMPT_EDITED,	    /* nothing beyond drawing it again */
	SERVER_PROMPT_RUN,	    /* the prompt ended: run holds what to do */
	SERVER_PROMPT_COMPLETE,	    /* complete the word (server_prompt_complete) */
	SERVER_PROMPT_HISTORY_UP,   /* an older line (server_prompt_history) */
	SERVER_PROMPT_HISTORY_DOWN, /* a newer one */
};

void server_prompt_open(struct server_prompt *p, enum server_prompt_kind kind, const char *label,
			const char *initial, const char *command);
/* A key by its canonical name, through the client's tables.  RUN when
 * the prompt ended with something to do, written to run: the command
 * line, the search text, the confirmed command, or ask mode's command
 * ("allow", "deny", "dismiss"); the prompt is then inactive, as it is
 * after cancel. */
enum server_prompt_action server_prompt_key(struct server_prompt *p,
					    const struct mode_tables *tables, const char *key,
					    char *run, size_t size);
/* One of the prompt table's commands ("cursor-left", "enter", ...), as
 * a key bound to it does; true when the prompt ended with run. */
bool server_prompt_command(struct server_prompt *p, const char *command, char *run, size_t size);
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
