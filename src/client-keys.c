/*
 * client-keys: what the client does with keyboard and mouse input.
 *
 * Every key read from ncurses is first given its tmux name
 * (bindings.c), then routed by mode: the help overlay and the status-line
 * prompt consume keys themselves; copy mode has its own keys; otherwise
 * the prefix key arms the binding table and anything else goes to the
 * server as a symbolic key event, so the server can encode it for the
 * pane's modes.  Alt arrives from terminals as ESC followed by the key;
 * an ESC with nothing queued behind it is Escape itself.
 *
 * Mouse: a click focuses the pane under it; pressing on a border and
 * dragging resizes the pane on its left or above it; the wheel scrolls
 * back in the pane under the pointer (copy mode).  A pane whose program
 * asked for mouse reports gets clicks and wheel as mouse requests
 * instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "command.h"
#include "xalloc.h"

#include <ncurses.h>

/* The prompt edits like tmux's (emacs keys): the cursor is a byte offset
 * kept at a UTF-8 character's start; words are runs of non-blanks. */
static size_t prompt_prev_char(const struct prompt *prompt, size_t at)
{
	while (at > 0 && ((unsigned char)prompt->text[--at] & 0xc0) == 0x80)
		;
	return at;
}

static size_t prompt_next_char(const struct prompt *prompt, size_t at)
{
	if (at < prompt->length)
		at++;
	while (at < prompt->length && ((unsigned char)prompt->text[at] & 0xc0) == 0x80)
		at++;
	return at;
}

static size_t prompt_prev_word(const struct prompt *prompt, size_t at)
{
	while (at > 0 && prompt->text[at - 1] == ' ')
		at--;
	while (at > 0 && prompt->text[at - 1] != ' ')
		at--;
	return at;
}

static size_t prompt_next_word(const struct prompt *prompt, size_t at)
{
	while (at < prompt->length && prompt->text[at] == ' ')
		at++;
	while (at < prompt->length && prompt->text[at] != ' ')
		at++;
	return at;
}

/* Delete the bytes [from, to) of the prompt; the cursor goes to from. */
static void prompt_delete(struct prompt *prompt, size_t from, size_t to)
{
	memmove(prompt->text + from, prompt->text + to, prompt->length - to + 1);
	prompt->length -= to - from;
	prompt->cursor = from;
}

static void prompt_insert(struct prompt *prompt, const char *text, size_t len)
{
	if (prompt->length + len >= sizeof prompt->text)
		return;
	memmove(prompt->text + prompt->cursor + len, prompt->text + prompt->cursor,
		prompt->length - prompt->cursor + 1);
	memcpy(prompt->text + prompt->cursor, text, len);
	prompt->length += len;
	prompt->cursor += len;
}

static void prompt_set_text(struct prompt *prompt, const char *text)
{
	snprintf(prompt->text, sizeof prompt->text, "%s", text);
	prompt->length = strlen(prompt->text);
	prompt->cursor = prompt->length;
}

/* Up (-1 is older) and Down through the command history; past the
 * newest line is the line that was being typed. */
static void prompt_history_move(struct client *c, int step)
{
	struct prompt *prompt = &c->prompt;
	int at = prompt->history_at - step;

	if (at < 0 || at > c->prompt_history_len)
		return;
	if (prompt->history_at == 0)
		snprintf(prompt->typed, sizeof prompt->typed, "%s", prompt->text);
	prompt->history_at = at;
	prompt_set_text(prompt, at == 0 ? prompt->typed
					: c->prompt_history[c->prompt_history_len - at]);
}

/* The server's history (prompt-history.c) replaces this client's copy. */
static void on_history_reply(struct client *c, const cJSON *result, const cJSON *error, int arg)
{
	const cJSON *list = cJSON_GetObjectItem(result, "lines"), *line;

	(void)error;
	(void)arg;
	if (!cJSON_IsArray(list))
		return;
	for (int i = 0; i < c->prompt_history_len; i++)
		free(c->prompt_history[i]);
	c->prompt_history_len = 0;
	c->prompt_history = xrealloc(c->prompt_history,
				     (size_t)cJSON_GetArraySize(list) * sizeof *c->prompt_history + 1);
	cJSON_ArrayForEach(line, list)
	if (cJSON_IsString(line))
		c->prompt_history[c->prompt_history_len++] = xstrdup(line->valuestring);
}

/* Ask for the server's history; with line, add it first. */
static void prompt_history_sync(struct client *c, const char *line)
{
	cJSON *request = cJSON_CreateObject();

	cJSON_AddStringToObject(request, "cmd", "prompt-history");
	if (line != NULL)
		cJSON_AddStringToObject(request, "add", line);
	client_request(c, request, on_history_reply, 0);
}

void client_prompt_open(struct client *c, enum prompt_purpose purpose, const char *label,
			const char *initial)
{
	struct prompt *prompt = &c->prompt;

	prompt->purpose = purpose;
	prompt->return_mode = c->mode == MODE_PROMPT ? MODE_NORMAL : c->mode;
	snprintf(prompt->label, sizeof prompt->label, "%s", label);
	prompt_set_text(prompt, initial ? initial : "");
	prompt->template[0] = 0;
	prompt->candidates[0] = 0;
	prompt->history_at = 0;
	if (purpose == PROMPT_COMMAND)
		prompt_history_sync(c, NULL);
	c->mode = MODE_PROMPT;
	c->message[0] = 0;
	c->dirty = true;
}

static void prompt_finish(struct client *c, bool accepted)
{
	struct prompt *prompt = &c->prompt;
	char text[sizeof prompt->text];

	snprintf(text, sizeof text, "%s", prompt->text);
	c->mode = prompt->return_mode;
	c->dirty = true;
	if (!accepted)
		return;
	switch (prompt->purpose) {
	case PROMPT_COMMAND:
		if (prompt->template[0] != 0) {
			char command[sizeof prompt->template + sizeof text];

			command_fill_template(prompt->template, text, command, sizeof command);
			client_run_command(c, command);
			break;
		}
		if (text[0] != 0)
			prompt_history_sync(c, text);
		if (text[0] != 0)
			client_run_command(c, text);
		break;
	case PROMPT_CONFIRM:
	case PROMPT_ASK:
		break; /* answered by a single key in prompt_key */
	case PROMPT_SEARCH_DOWN:
	case PROMPT_SEARCH_UP:
		if (c->mode == MODE_COPY)
			copy_mode_search(c, text, prompt->purpose == PROMPT_SEARCH_UP);
		break;
	}
}

/* Tab at the prompt, as tmux's: the word before the cursor completed
 * from words (those that start with it).  One match: the match and a
 * blank, ready for what comes next; several: as far as they agree, and
 * the matches listed above the prompt. */
static void prompt_complete_from(struct client *c, size_t start, const char *const *words,
				 size_t nwords)
{
	struct prompt *prompt = &c->prompt;
	size_t typed = prompt->cursor - start, common = 0, matches = 0, used = 0;
	const char *first = NULL;
	char replacement[256];

	prompt->candidates[0] = 0;
	for (size_t i = 0; i < nwords; i++) {
		if (strncmp(words[i], prompt->text + start, typed) != 0)
			continue;
		if (first == NULL) {
			first = words[i];
			common = strlen(first);
		}
		while (common > 0 && strncmp(words[i], first, common) != 0)
			common--;
		if (used + strlen(words[i]) + 3 < sizeof prompt->candidates)
			used += (size_t)snprintf(prompt->candidates + used,
						 sizeof prompt->candidates - used, "%s%s",
						 matches ? "  " : "", words[i]);
		matches++;
	}
	if (matches == 0)
		return;
	if (matches == 1)
		snprintf(replacement, sizeof replacement, "%s ", first);
	else
		snprintf(replacement, sizeof replacement, "%.*s", (int)common, first);
	if (matches == 1)
		prompt->candidates[0] = 0;
	prompt_delete(prompt, start, prompt->cursor);
	prompt_insert(prompt, replacement, strlen(replacement));
}

/* The server's words for the kind asked (cmd-complete.c), unless the
 * line changed since Tab was pressed. */
static void on_complete_reply(struct client *c, const cJSON *result, const cJSON *error,
			      int edits)
{
	struct prompt *prompt = &c->prompt;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(result, "words"), *word;
	size_t start = prompt->cursor, n = 0;
	const char **words;
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "kind"));
	bool targets = kind != NULL && strcmp(kind, "target") == 0;

	if (result == NULL) {
		client_reply_report_error(c, result, error, edits);
		return;
	}
	if (c->mode != MODE_PROMPT || edits != prompt->edits || !cJSON_IsArray(list))
		return;
	while (start > 0 && prompt->text[start - 1] != ' ')
		start--;
	words = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *words);
	cJSON_ArrayForEach(word, list)
	{
		if (!cJSON_IsString(word))
			continue;
		if (targets && command_target_level(word->valuestring, strlen(word->valuestring)) !=
				   command_target_level(prompt->text + start, prompt->cursor - start))
			continue;
		words[n++] = word->valuestring;
	}
	prompt_complete_from(c, start, words, n);
	free(words);
	c->dirty = true;
}

/* Tab: a command's name when it is the first word, else the value of
 * the option before it: a target after -t, a backend after -b, a
 * profile after -P (whatever the option's spelling, as the command
 * declares it), asked of the server. */
static void prompt_complete(struct client *c)
{
	struct prompt *prompt = &c->prompt;
	size_t start = prompt->cursor, option_end, option_start;
	char line[sizeof prompt->text], option[64], name[64];
	const char *kind;

	while (start > 0 && prompt->text[start - 1] != ' ')
		start--;
	if (strspn(prompt->text, " ") == start) {
		const char *words[128];
		size_t n = 0;

		while (n < 128 && (words[n] = command_complete("", CMD_PROMPT, (int)n)) != NULL)
			n++;
		prompt_complete_from(c, start, words, n);
		return;
	}
	snprintf(line, sizeof line, "%s", prompt->text);
	snprintf(name, sizeof name, "%.*s", (int)strcspn(line + strspn(line, " "), " "),
		 line + strspn(line, " "));
	option_end = start;
	while (option_end > 0 && line[option_end - 1] == ' ')
		option_end--;
	option_start = option_end;
	while (option_start > 0 && line[option_start - 1] != ' ')
		option_start--;
	snprintf(option, sizeof option, "%.*s", (int)(option_end - option_start), line + option_start);
	kind = command_option_value_kind(command_find(name, CMD_PROMPT), option);
	if (kind != NULL) {
		cJSON *request = cJSON_CreateObject();

		cJSON_AddStringToObject(request, "cmd", "complete");
		cJSON_AddStringToObject(request, "kind", kind);
		client_request(c, request, on_complete_reply, prompt->edits);
	}
}

static void prompt_key(struct client *c, const char *name)
{
	struct prompt *prompt = &c->prompt;

	c->dirty = true;
	/* Any key but Tab edits the line: the listed matches go, and a
	 * completion still on its way is for another line. */
	if (strcmp(name, "Tab") != 0) {
		prompt->edits++;
		if (prompt->candidates[0] != 0)
			c->redraw_all = true;
		prompt->candidates[0] = 0;
	}
	if (prompt->purpose == PROMPT_ASK) {
		c->mode = prompt->return_mode;
		client_ask_answer(c, name);
		return;
	}
	if (prompt->purpose == PROMPT_CONFIRM) {
		char command[sizeof prompt->confirm_command];

		snprintf(command, sizeof command, "%s", prompt->confirm_command);
		c->mode = prompt->return_mode;
		if (strcmp(name, "y") == 0 || strcmp(name, "Y") == 0)
			client_run_command(c, command);
		return;
	}
	if (strcmp(name, "Enter") == 0) {
		prompt_finish(c, true);
	} else if (strcmp(name, "Escape") == 0 || strcmp(name, "C-c") == 0 ||
		   strcmp(name, "C-g") == 0) {
		prompt_finish(c, false);
	} else if (strcmp(name, "BSpace") == 0 || strcmp(name, "C-h") == 0) {
		prompt_delete(prompt, prompt_prev_char(prompt, prompt->cursor), prompt->cursor);
	} else if (strcmp(name, "Delete") == 0 || strcmp(name, "C-d") == 0) {
		prompt_delete(prompt, prompt->cursor, prompt_next_char(prompt, prompt->cursor));
	} else if (strcmp(name, "C-u") == 0) {
		prompt_delete(prompt, 0, prompt->length);
	} else if (strcmp(name, "C-k") == 0) {
		prompt_delete(prompt, prompt->cursor, prompt->length);
	} else if (strcmp(name, "C-w") == 0) {
		prompt_delete(prompt, prompt_prev_word(prompt, prompt->cursor), prompt->cursor);
	} else if (strcmp(name, "C-a") == 0 || strcmp(name, "Home") == 0) {
		prompt->cursor = 0;
	} else if (strcmp(name, "C-e") == 0 || strcmp(name, "End") == 0) {
		prompt->cursor = prompt->length;
	} else if (strcmp(name, "C-b") == 0 || strcmp(name, "Left") == 0) {
		prompt->cursor = prompt_prev_char(prompt, prompt->cursor);
	} else if (strcmp(name, "C-f") == 0 || strcmp(name, "Right") == 0) {
		prompt->cursor = prompt_next_char(prompt, prompt->cursor);
	} else if (strcmp(name, "M-b") == 0) {
		prompt->cursor = prompt_prev_word(prompt, prompt->cursor);
	} else if (strcmp(name, "M-f") == 0) {
		prompt->cursor = prompt_next_word(prompt, prompt->cursor);
	} else if ((strcmp(name, "Up") == 0 || strcmp(name, "Down") == 0) &&
		   prompt->purpose == PROMPT_COMMAND && prompt->template[0] == 0) {
		prompt_history_move(c, name[0] == 'U' ? -1 : 1);
	} else if (strcmp(name, "Tab") == 0 && prompt->purpose == PROMPT_COMMAND &&
		   prompt->template[0] == 0) {
		prompt_complete(c);
	} else if (key_name_is_text(name)) {
		const char *text = strcmp(name, "Space") == 0 ? " " : name;

		prompt_insert(prompt, text, strlen(text));
	}
}

static void select_pane(struct client *c, const struct pane_view *pane);

/* display-panes: a digit focuses the pane with that number (its index in
 * the window, as drawn); any other key only takes the numbers away, as
 * in tmux. */
static void display_panes_key(struct client *c, const char *name)
{
	c->mode = MODE_NORMAL;
	c->redraw_all = true;
	c->dirty = true;
	if (name[0] >= '0' && name[0] <= '9' && name[1] == 0) {
		size_t index = (size_t)(name[0] - '0');

		if (index < c->npanes && client_pane_visible(c, &c->panes[index]))
			select_pane(c, &c->panes[index]);
	}
}

static void help_key(struct client *c, const char *name)
{
	int page = c->rows > 6 ? c->rows - 6 : 1;

	if (strcmp(name, "j") == 0 || strcmp(name, "Down") == 0)
		c->help_offset++;
	else if (strcmp(name, "k") == 0 || strcmp(name, "Up") == 0)
		c->help_offset--;
	else if (strcmp(name, "PageDown") == 0 || strcmp(name, "Space") == 0 ||
		 strcmp(name, "C-f") == 0)
		c->help_offset += page;
	else if (strcmp(name, "PageUp") == 0 || strcmp(name, "C-b") == 0)
		c->help_offset -= page;
	else {
		c->mode = MODE_NORMAL;
		client_view_close(c);
	}
	c->redraw_all = true;
	c->dirty = true;
}

/* The key after the prefix: the prefix again sends it to the pane. */
static void prefixed_key(struct client *c, const char *name)
{
	const char *command;

	if (strcmp(name, c->config.prefix) == 0) {
		client_send_key(c, name);
		return;
	}
	command = bindings_lookup(&c->bindings, name);
	if (command != NULL) {
		client_flush_text(c);
		client_run_command(c, command);
		if (bindings_repeats(&c->bindings, name))
			c->repeat_until = client_now_ms() + c->config.repeat_time;
	}
}

static void handle_key(struct client *c, const char *name)
{
	switch (c->mode) {
	case MODE_HELP:
		help_key(c, name);
		return;
	case MODE_PROMPT:
		prompt_key(c, name);
		return;
	case MODE_DISPLAY_PANES:
		display_panes_key(c, name);
		return;
	default:
		break;
	}
	if (c->repeat_until != 0) {
		/* Within repeat_time of a repeating binding, another repeating
		 * key needs no prefix (C-b C-Left C-Left); any other key ends
		 * the repeat and goes where it would have. */
		bool again = client_now_ms() < c->repeat_until && bindings_repeats(&c->bindings, name);

		c->repeat_until = 0;
		if (again) {
			prefixed_key(c, name);
			return;
		}
	}
	if (c->prefix_pending) {
		c->prefix_pending = false;
		c->dirty = true;
		prefixed_key(c, name);
		return;
	}
	if (strcmp(name, c->config.prefix) == 0) {
		c->prefix_pending = true;
		c->dirty = true;
		return;
	}
	/* In copy and choose mode the prefix still works, as in tmux's modes. */
	if (c->mode == MODE_COPY)
		copy_mode_key(c, name);
	else if (c->mode == MODE_CHOOSE)
		choose_key(c, name, c->rows > 4 ? c->rows - 3 : 1);
	else
		client_send_key(c, name);
}

static void send_mouse(struct client *c, const struct pane_view *pane, int x, int y, int button,
		       bool pressed)
{
	cJSON *request = cJSON_CreateObject();

	client_flush_text(c);
	cJSON_AddStringToObject(request, "cmd", "mouse");
	cJSON_AddNumberToObject(request, "pane", pane->id);
	cJSON_AddNumberToObject(request, "row", y - pane->y);
	cJSON_AddNumberToObject(request, "col", x - pane->x);
	cJSON_AddNumberToObject(request, "button", button);
	cJSON_AddBoolToObject(request, "pressed", pressed);
	client_request(c, request, client_reply_report_error, 0);
}

static void select_pane(struct client *c, const struct pane_view *pane)
{
	cJSON *request;

	if (pane->active)
		return;
	if (c->mode == MODE_COPY)
		copy_mode_leave(c);
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "select-pane");
	cJSON_AddNumberToObject(request, "pane", pane->id);
	client_request(c, request, client_reply_report_error, 0);
}

/* A press on a border starts a drag.  The pane that moves is the one on
 * the border's left (a column) or above it (a title line, which is the
 * divider between stacked panes): its right or bottom edge follows. */
static bool start_border_drag(struct client *c, int x, int y)
{
	for (size_t i = 0; i < c->npanes; i++) {
		struct pane_view *p = &c->panes[i];

		if (!client_pane_visible(c, p))
			continue;
		if (x == p->x + p->cols && y >= p->y - 1 && y < p->y + p->rows) {
			c->drag = (struct drag){true, p->id, true, x, y, x, y, -1};
			return true;
		}
		/* A title row just below p's last row is p's bottom edge. */
		if (y == p->y + p->rows && x >= p->x && x < p->x + p->cols &&
		    client_pane_at(c, x, y) != NULL) {
			c->drag = (struct drag){true, p->id, false, x,
						y,    x,     y,	    client_pane_at(c, x, y)->id};
			return true;
		}
	}
	return false;
}

static void drag_to(struct client *c, int x, int y)
{
	int delta = c->drag.vertical_border ? x - c->drag.last_x : y - c->drag.last_y;
	cJSON *request;

	if (delta == 0)
		return;
	request = cJSON_CreateObject();
	cJSON_AddStringToObject(request, "cmd", "resize-pane");
	cJSON_AddNumberToObject(request, "pane", c->drag.pane);
	cJSON_AddStringToObject(request, "dir",
				c->drag.vertical_border ? (delta > 0 ? "right" : "left")
							: (delta > 0 ? "down" : "up"));
	cJSON_AddNumberToObject(request, "amount", abs(delta));
	client_request(c, request, client_reply_report_error, 0);
	c->drag.last_x = x;
	c->drag.last_y = y;
}

static void wheel(struct client *c, struct pane_view *pane, int x, int y, bool up)
{
	if (pane->mouse && !(c->mode == MODE_COPY && c->copy.pane == pane->id)) {
		send_mouse(c, pane, x, y, up ? 4 : 5, true);
		return;
	}
	if (c->mode != MODE_COPY || c->copy.pane != pane->id) {
		if (!up)
			return;
		if (c->mode == MODE_COPY)
			copy_mode_leave(c);
		copy_mode_enter(c, pane->id, false);
		c->copy.exit_at_bottom = true;
	}
	copy_mode_scroll(c, up ? -3 : 3);
	/* As tmux's copy mode entered by the wheel: back at the bottom, the
	 * pane is live again. */
	if (!up && c->copy.exit_at_bottom && copy_mode_at_bottom(c))
		copy_mode_leave(c);
}

static void press(struct client *c, struct pane_view *pane, int x, int y, int button)
{
	if (button == 1 && start_border_drag(c, x, y))
		return;
	if (pane == NULL)
		return;
	select_pane(c, pane);
	/* Title-line clicks only focus; content clicks reach programs that
	 * asked for the mouse. */
	if (pane->mouse && y >= pane->y && c->mode != MODE_COPY)
		send_mouse(c, pane, x, y, button, true);
}

static void release(struct client *c, struct pane_view *pane, int x, int y, int button)
{
	if (c->drag.active && button == 1) {
		bool moved = x != c->drag.start_x || y != c->drag.start_y;
		struct pane_view *clicked = client_pane(c, c->drag.press_pane);

		drag_to(c, x, y);
		c->drag.active = false;
		if (!moved && clicked != NULL)
			select_pane(c, clicked);
		return;
	}
	if (pane != NULL && pane->mouse && y >= pane->y && c->mode != MODE_COPY)
		send_mouse(c, pane, x, y, button, false);
}

/* ncurses reports a press and release that arrive together as one
 * click, and motion with a button held (any-motion tracking) as another
 * press of that button. */
static const struct {
	mmask_t pressed, released, clicked;
	int button;
} mouse_buttons[] = {
    {BUTTON1_PRESSED, BUTTON1_RELEASED,
     BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_TRIPLE_CLICKED, 1},
    {BUTTON2_PRESSED, BUTTON2_RELEASED,
     BUTTON2_CLICKED | BUTTON2_DOUBLE_CLICKED | BUTTON2_TRIPLE_CLICKED, 2},
    {BUTTON3_PRESSED, BUTTON3_RELEASED,
     BUTTON3_CLICKED | BUTTON3_DOUBLE_CLICKED | BUTTON3_TRIPLE_CLICKED, 3},
};

static void mouse_button_event(struct client *c, struct pane_view *pane, const MEVENT *event,
			       int index)
{
	int button = mouse_buttons[index].button;

	if (event->bstate & mouse_buttons[index].clicked) {
		press(c, pane, event->x, event->y, button);
		release(c, pane, event->x, event->y, button);
	}
	if (event->bstate & mouse_buttons[index].pressed) {
		if (button == 1 && c->drag.active)
			drag_to(c, event->x, event->y);
		else
			press(c, pane, event->x, event->y, button);
	}
	if (event->bstate & mouse_buttons[index].released)
		release(c, pane, event->x, event->y, button);
}

static void handle_mouse(struct client *c)
{
	MEVENT event;
	struct pane_view *pane;

	if (getmouse(&event) != OK)
		return;
	pane = client_pane_at(c, event.x, event.y);
	if (c->mode == MODE_HELP || c->mode == MODE_PROMPT || c->mode == MODE_CHOOSE ||
	    c->mode == MODE_DISPLAY_PANES)
		return;
	if (event.bstate & BUTTON4_PRESSED) {
		if (pane != NULL)
			wheel(c, pane, event.x, event.y, true);
		return;
	}
	if (event.bstate & BUTTON5_PRESSED) {
		if (pane != NULL)
			wheel(c, pane, event.x, event.y, false);
		return;
	}
	for (size_t i = 0; i < sizeof mouse_buttons / sizeof mouse_buttons[0]; i++)
		mouse_button_event(c, pane, &event, (int)i);
	if ((event.bstate & REPORT_MOUSE_POSITION) && c->drag.active)
		drag_to(c, event.x, event.y);
}

/* After a lone ESC, a key already queued behind it is that key with Alt. */
static bool read_meta_key(wint_t *ch, int *kind)
{
	wint_t next;
	int r = get_wch(&next);

	if (r == ERR)
		return false;
	*ch = next;
	*kind = r;
	return true;
}

void client_read_input(struct client *c)
{
	wint_t ch;
	int kind;
	char name[KEY_NAME_MAX];

	while (!c->exiting && (kind = get_wch(&ch)) != ERR) {
		bool meta = false;

		if (kind == KEY_CODE_YES && ch == KEY_MOUSE) {
			handle_mouse(c);
			continue;
		}
		if (kind == KEY_CODE_YES && ch == KEY_RESIZE)
			continue; /* handled through the SIGWINCH pipe */
		if (kind == OK && ch == 0x1b && read_meta_key(&ch, &kind))
			meta = true;
		if (key_name_from_ncurses((unsigned)ch, kind == KEY_CODE_YES, meta, name,
					  sizeof name))
			handle_key(c, name);
	}
	client_flush_text(c);
}
