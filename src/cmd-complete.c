/*
 * cmd-complete: the words the command prompt's Tab completes from, by
 * kind, from the server, which is the one that knows them: targets (every
 * session, "SESSION:W", "SESSION:W.P", the attached session's ":W" and
 * every pane's "%ID"), backends, and profiles (the built-in ones and the
 * config's, as the server read it).  The prompt picks the words that
 * start with what was typed (server-tty.c's Tab).
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "profile.h"

static void add_word(cJSON *words, const char *format, const char *name, int a, int b)
{
	char word[128];

	snprintf(word, sizeof word, format, name, a, b);
	cJSON_AddItemToArray(words, cJSON_CreateString(word));
}

static void target_words(struct conn *c, cJSON *words)
{
	for (struct session *s = server.sessions; s != NULL; s = s->next) {
		add_word(words, "%s", s->name, 0, 0);
		for (struct window *w = s->windows; w != NULL; w = w->next) {
			int index = 0;

			add_word(words, "%s:%d", s->name, w->index, 0);
			if (s == c->attached)
				add_word(words, "%s:%d", "", w->index, 0);
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				add_word(words, "%s:%d.%d", s->name, w->index, index++);
		}
	}
	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next)
				add_word(words, "%s%d", "%", p->id, 0);
}

CMD_HANDLER(cmd_complete)
{
	const char *kind = NULL;
	cJSON *words;

	if (cmd_get_string(req, "kind", true, &kind, err) < 0)
		return -1;
	if (strcmp(kind, "target") != 0 && strcmp(kind, "backend") != 0 &&
	    strcmp(kind, "profile") != 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "kind must be target, backend or profile");
		return -1;
	}
	cJSON_AddStringToObject(result, "kind", kind);
	words = cJSON_AddArrayToObject(result, "words");
	if (strcmp(kind, "target") == 0) {
		target_words(c, words);
	} else if (strcmp(kind, "backend") == 0) {
		for (int b = 0; b < SANDBOX_BACKEND_COUNT; b++)
			cJSON_AddItemToArray(words,
					     cJSON_CreateString(sandbox_backend_name((enum sandbox_backend)b)));
	} else {
		const char *name;

		for (size_t i = 0; (name = profile_name_at(i)) != NULL; i++)
			cJSON_AddItemToArray(words, cJSON_CreateString(name));
	}
	return 0;
}
