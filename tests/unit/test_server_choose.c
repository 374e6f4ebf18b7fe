/*
 * test_server_choose: choose mode on the server's path
 * (src/server-choose.c), as data: the server's `list` and
 * `list-buffers` answers in, keys by their names, the lines the list
 * holds, the selection, and the command that runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "server-choose.h"

/* Two sessions: work (attached; window 0 with %1, window 1 "edit" with
 * a native %2 denied twice and %3 active beside it) and other. */
static const char *tree_json =
    "{\"sessions\":["
    "{\"name\":\"work\",\"attached\":1,\"windows\":["
    " {\"index\":0,\"name\":\"sh\",\"active\":false,\"panes\":["
    "  {\"id\":1,\"state\":\"active\",\"backend\":\"none\",\"title\":\"\","
    "   \"current_path\":\"/home\",\"active\":true,\"violations\":0}]},"
    " {\"index\":1,\"name\":\"edit\",\"active\":true,\"zoomed\":false,\"panes\":["
    "  {\"id\":2,\"state\":\"active\",\"backend\":\"native\",\"title\":\"vim\","
    "   \"current_path\":\"/src\",\"active\":false,\"violations\":2},"
    "  {\"id\":3,\"state\":\"active\",\"backend\":\"none\",\"title\":\"\","
    "   \"cwd\":\"/tmp\",\"active\":true,\"violations\":0}]}]},"
    "{\"name\":\"other\",\"attached\":0,\"windows\":["
    " {\"index\":0,\"name\":\"sh\",\"active\":true,\"panes\":["
    "  {\"id\":4,\"state\":\"active\",\"backend\":\"none\",\"active\":true}]}]}]}";

static const struct server_choose_place place = {"work", 1, 3};
/* The mode's key tables with their default keys (bindings.c). */
static struct mode_tables tables;

static cJSON *parse(const char *text)
{
	cJSON *json = cJSON_Parse(text);

	assert_non_null(json);
	return json;
}

static void open_tree(struct server_choose *ch, enum server_choose_start start)
{
	cJSON *json = parse(tree_json);

	memset(ch, 0, sizeof *ch);
	server_choose_open_tree(ch, start, json, &place);
	cJSON_Delete(json);
	assert_true(ch->active);
}

/* The line drawn for an item: the mark, before, label, denials, after
 * (a running pane's label is its backend's name, as its title's). */
static void line_of(const struct server_choose_item *item, char *out, size_t size)
{
	char denied[32] = "";

	if (item->violations >= 0)
		snprintf(denied, sizeof denied, " %d denied", item->violations);
	snprintf(out, size, "%*s%s%s%s%s%s", 2 * item->depth, "",
		 item->expandable ? (item->expanded ? "- " : "+ ") : "  ", item->before,
		 item->violations >= 0 ? item->backend : item->label, denied, item->after);
}

static const char *selected_key(const struct server_choose *ch)
{
	return ch->selected >= 0 ? ch->items[ch->selected].key : "";
}

static void press(struct server_choose *ch, const char *const *keys, struct server_choose_result *r)
{
	for (; *keys != NULL; keys++)
		server_choose_key(ch, &tables, *keys, 5, r);
}

static void test_tree_lines(void **state)
{
	static const char *const want[] = {
	    "- work: 2 windows (attached)",
	    "  - 0: sh (1 pane)",
	    "      %1 none 0 denied  /home (active)",
	    "  - 1: edit* (2 panes)",
	    "      %2 native 2 denied  vim : /src",
	    "      %3 none 0 denied  /tmp (active)",
	    "- other: 1 window",
	    "  - 0: sh* (1 pane)",
	    "      %4 none 0 denied   (active)",
	};
	struct server_choose ch;
	char line[1024];

	(void)state;
	open_tree(&ch, SERVER_CHOOSE_START_PANE);
	assert_int_equal(ch.nitems, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < ch.nitems; i++) {
		line_of(&ch.items[i], line, sizeof line);
		assert_string_equal(line, want[i]);
	}
	assert_string_equal(ch.items[4].backend, "native");
	assert_string_equal(ch.items[0].target, "work:1"); /* a session by its active window */
	assert_string_equal(ch.items[3].target, "work:1");
	assert_string_equal(ch.items[5].target, "%3");
	/* It opens on the active pane. */
	assert_string_equal(selected_key(&ch), "%3");
	server_choose_leave(&ch);
	assert_false(ch.active);
}

/* What a pane's label is drawn from (screen-draw.c, as its title line):
 * the state, the backend, a microvm's accelerator. */
static void test_pane_label_fields(void **state)
{
	cJSON *json = parse("{\"sessions\":[{\"name\":\"vm\",\"windows\":[{\"index\":0,"
			    "\"panes\":[{\"id\":5,\"state\":\"active\",\"backend\":\"microvm\","
			    "\"details\":{\"accelerator\":\"tcg\"}},"
			    "{\"id\":6,\"state\":\"error\",\"backend\":\"native\"}]}]}]}");
	struct server_choose ch = {0};
	struct server_choose_place here = {"vm", 0, 5};

	(void)state;
	server_choose_open_tree(&ch, SERVER_CHOOSE_START_PANE, json, &here);
	cJSON_Delete(json);
	assert_int_equal(ch.nitems, 4);
	assert_string_equal(ch.items[2].backend, "microvm");
	assert_string_equal(ch.items[2].accelerator, "tcg");
	assert_string_equal(ch.items[2].state, "active");
	assert_string_equal(ch.items[3].state, "error");
	assert_string_equal(ch.items[3].accelerator, "");
	assert_string_equal(ch.items[3].label, "");
	server_choose_leave(&ch);
}

static void test_tree_starts(void **state)
{
	struct server_choose ch;

	(void)state;
	open_tree(&ch, SERVER_CHOOSE_START_WINDOWS);
	assert_string_equal(selected_key(&ch), "work:1");
	assert_int_equal(server_choose_item_at(&ch, 8), 8); /* everything open */
	server_choose_leave(&ch);
	/* -s: the sessions collapsed, the attached one selected. */
	open_tree(&ch, SERVER_CHOOSE_START_SESSIONS);
	assert_string_equal(selected_key(&ch), "work");
	assert_int_equal(server_choose_item_at(&ch, 0), 0);
	assert_int_equal(server_choose_item_at(&ch, 1), 6);
	assert_int_equal(server_choose_item_at(&ch, 2), -1);
	server_choose_leave(&ch);
}

struct move_case {
	enum server_choose_start start;
	const char *keys[8];
	const char *selected;
};

static const struct move_case moves[] = {
    {SERVER_CHOOSE_START_PANE, {"Up", NULL}, "%2"},
    {SERVER_CHOOSE_START_PANE, {"k", "k", NULL}, "work:1"},
    {SERVER_CHOOSE_START_PANE, {"Down", "j", NULL}, "other:0"},
    {SERVER_CHOOSE_START_PANE, {"End", NULL}, "%4"},
    {SERVER_CHOOSE_START_PANE, {"G", "Down", NULL}, "%4"},
    {SERVER_CHOOSE_START_PANE, {"g", "Up", NULL}, "work"},
    {SERVER_CHOOSE_START_PANE, {"Home", NULL}, "work"},
    {SERVER_CHOOSE_START_PANE, {"PageUp", NULL}, "work"},
    {SERVER_CHOOSE_START_PANE, {"PageUp", "PageDown", NULL}, "%3"},
    /* Left on a pane goes to its window; Left again collapses it, so
     * Down skips its panes. */
    {SERVER_CHOOSE_START_PANE, {"Left", NULL}, "work:1"},
    {SERVER_CHOOSE_START_PANE, {"Left", "Left", "Down", NULL}, "other"},
    {SERVER_CHOOSE_START_PANE, {"h", "h", "l", "j", NULL}, "%2"},
    /* Sessions collapsed: Down is the next session; Right opens it. */
    {SERVER_CHOOSE_START_SESSIONS, {"Down", NULL}, "other"},
    {SERVER_CHOOSE_START_SESSIONS, {"Right", "Down", NULL}, "work:0"},
    {SERVER_CHOOSE_START_SESSIONS, {"Left", "Down", NULL}, "other"},
    /* Keys that are not the mode's do nothing. */
    {SERVER_CHOOSE_START_PANE, {"x", "d", "C-b", NULL}, "%3"},
};

static void test_tree_moves(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
		struct server_choose ch;
		struct server_choose_result r;

		open_tree(&ch, moves[i].start);
		press(&ch, moves[i].keys, &r);
		if (strcmp(selected_key(&ch), moves[i].selected) != 0)
			fail_msg("case %zu: %s selected, not %s", i, selected_key(&ch),
				 moves[i].selected);
		assert_int_equal(r.action, SERVER_CHOOSE_NONE);
		assert_true(ch.active);
		server_choose_leave(&ch);
	}
}

static void test_tree_enter_and_leave(void **state)
{
	static const char *const enter_window[] = {"Up", "Up", "Enter", NULL};
	static const char *const leaving[] = {"q", "Escape", "C-c"};
	struct server_choose ch;
	struct server_choose_result r;

	(void)state;
	open_tree(&ch, SERVER_CHOOSE_START_PANE);
	press(&ch, enter_window, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_RUN);
	assert_string_equal(r.command, "switch-client -t \"work:1\"");
	assert_false(ch.active);
	for (size_t i = 0; i < sizeof leaving / sizeof leaving[0]; i++) {
		open_tree(&ch, SERVER_CHOOSE_START_PANE);
		server_choose_key(&ch, &tables, leaving[i], 5, &r);
		assert_int_equal(r.action, SERVER_CHOOSE_LEAVE);
		assert_string_equal(r.command, "");
		assert_false(ch.active);
	}
}

/* A name is quoted as the prompt reads it: a quote or a backslash in a
 * session's name cannot end the target. */
static void test_tree_target_quoted(void **state)
{
	cJSON *json = parse("{\"sessions\":[{\"name\":\"a\\\"b\\\\c\",\"windows\":[]}]}");
	struct server_choose ch = {0};
	struct server_choose_place here = {"a\"b\\c", 0, -1};
	struct server_choose_result r;

	(void)state;
	server_choose_open_tree(&ch, SERVER_CHOOSE_START_SESSIONS, json, &here);
	cJSON_Delete(json);
	server_choose_key(&ch, &tables, "Enter", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_RUN);
	assert_string_equal(r.command, "switch-client -t \"a\\\"b\\\\c:0\"");
}

/* A refresh keeps the selection and what was collapsed by key; a
 * selected item that went selects what is now in its place. */
static void test_tree_refresh(void **state)
{
	static const char *const collapse_window_0[] = {"Up",	"Up",	"Up", "Up",
							"Left", "Down", NULL};
	/* %2 gone, window 2 new, other gone. */
	cJSON *again,
	    *fresh = parse("{\"sessions\":[{\"name\":\"work\",\"attached\":1,\"windows\":["
			   "{\"index\":0,\"name\":\"sh\",\"panes\":[{\"id\":1}]},"
			   "{\"index\":1,\"name\":\"edit\",\"active\":true,\"panes\":["
			   " {\"id\":3},{\"id\":5}]},"
			   "{\"index\":2,\"name\":\"new\",\"panes\":[{\"id\":6}]}]}]}");
	struct server_choose ch;
	struct server_choose_result r;

	(void)state;
	open_tree(&ch, SERVER_CHOOSE_START_PANE);
	press(&ch, collapse_window_0, &r);
	assert_false(ch.items[1].expanded);
	assert_string_equal(selected_key(&ch), "work:1");
	server_choose_key(&ch, &tables, "Down", 5, &r);
	assert_string_equal(selected_key(&ch), "%2");
	assert_true(server_choose_refresh(&ch, fresh));
	assert_false(ch.items[1].expanded); /* window 0 stays collapsed */
	assert_string_equal(ch.items[ch.nitems - 2].key, "work:2");
	/* %2 went: the item now at its index, %3. */
	assert_string_equal(selected_key(&ch), "%3");
	server_choose_key(&ch, &tables, "Down", 5, &r);
	assert_string_equal(selected_key(&ch), "%5");
	/* %5 goes, and the item in its place is under a window collapsed
	 * meanwhile (by another refresh's keys): that window. */
	ch.items[3].expanded = false;
	again = parse(tree_json);
	assert_true(server_choose_refresh(&ch, again));
	assert_string_equal(selected_key(&ch), "work:1");
	cJSON_Delete(again);
	cJSON_Delete(fresh);
	server_choose_leave(&ch);
}

static const char *buffers_json =
    "{\"buffers\":["
    "{\"name\":\"beta\",\"size\":14,\"label\":\"none\",\"sample\":\"BETA\\tTWO\\nLINES\"},"
    "{\"name\":\"alpha\",\"size\":10,\"label\":\"\",\"sample\":\"ALPHA-TEXT\"}]}";

static void test_buffers(void **state)
{
	cJSON *json = parse(buffers_json), *none = parse("{\"buffers\":[]}");
	cJSON *rest = parse("{\"buffers\":[{\"name\":\"alpha\",\"size\":10,\"label\":\"\","
			    "\"sample\":\"ALPHA-TEXT\"}]}");
	struct server_choose ch = {0};
	struct server_choose_result r;
	char line[1024];

	(void)state;
	assert_false(server_choose_open_buffers(&ch, none));
	assert_false(ch.active);
	assert_true(server_choose_open_buffers(&ch, json));
	assert_int_equal(ch.nitems, 2);
	line_of(&ch.items[0], line, sizeof line);
	assert_string_equal(line, "  beta: 14 bytes none \"BETA\\tTWO\\nLINES\"");
	line_of(&ch.items[1], line, sizeof line);
	assert_string_equal(line, "  alpha: 10 bytes \"ALPHA-TEXT\"");
	assert_string_equal(selected_key(&ch), "beta");
	/* The tree's keys do nothing here. */
	server_choose_key(&ch, &tables, "Left", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_NONE);
	/* d deletes the selected one and the list stays. */
	server_choose_key(&ch, &tables, "d", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_RUN_REFRESH);
	assert_string_equal(r.command, "delete-buffer -b \"beta\"");
	assert_true(ch.active);
	assert_true(server_choose_refresh(&ch, rest));
	assert_string_equal(selected_key(&ch), "alpha");
	/* The last one gone: the list closes. */
	assert_false(server_choose_refresh(&ch, none));
	assert_false(ch.active);
	/* Enter pastes the chosen one. */
	assert_true(server_choose_open_buffers(&ch, json));
	server_choose_key(&ch, &tables, "Down", 5, &r);
	server_choose_key(&ch, &tables, "Enter", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_RUN);
	assert_string_equal(r.command, "paste-buffer -b \"alpha\"");
	assert_false(ch.active);
	cJSON_Delete(json);
	cJSON_Delete(none);
	cJSON_Delete(rest);
}

/* The rows shown follow the selection. */
static void test_scroll(void **state)
{
	struct server_choose ch;
	struct server_choose_result r;

	(void)state;
	open_tree(&ch, SERVER_CHOOSE_START_PANE); /* %3: row 5 */
	server_choose_scroll(&ch, 3);
	assert_int_equal(ch.top, 3);
	assert_int_equal(server_choose_item_at(&ch, 2), 5);
	assert_int_equal(server_choose_item_at(&ch, 6), -1);
	server_choose_key(&ch, &tables, "Home", 5, &r);
	server_choose_scroll(&ch, 3);
	assert_int_equal(ch.top, 0);
	server_choose_key(&ch, &tables, "End", 5, &r);
	server_choose_scroll(&ch, 3);
	assert_int_equal(ch.top, 6);
	assert_int_equal(server_choose_item_at(&ch, 2), 8);
	server_choose_leave(&ch);
}

/* The `choose-mode` key table: every key is a key name, every command
 * one of the mode's in tmux's spelling, with a line for list-keys, and
 * it acts (a move changes the selection, the others end the mode or
 * give a command; collapse and expand only in the tree, delete only in
 * the buffers). */
static void test_key_table(void **state)
{
	const struct key_table_def *def = key_table_def_find("choose-mode", NULL);
	struct binding_table *table = mode_tables_find(&tables, "choose-mode", NULL);

	(void)state;
	assert_non_null(def);
	assert_non_null(table);
	assert_true(table->count > 0);
	for (size_t i = 0; i < table->count; i++) {
		const struct binding *b = &table->entries[i];
		const char *name = b->command + strlen(MODE_COMMAND_PREFIX);
		bool tree_only = strcmp(name, "collapse") == 0 || strcmp(name, "expand") == 0;
		struct server_choose ch;
		struct server_choose_result r;

		assert_memory_equal(b->command, MODE_COMMAND_PREFIX, strlen(MODE_COMMAND_PREFIX));
		assert_string_not_equal(mode_command_summary(def, b->command), "");
		if (tree_only || strcmp(name, "delete") == 0) {
			cJSON *json = parse(buffers_json);

			memset(&ch, 0, sizeof ch);
			assert_true(server_choose_open_buffers(&ch, json));
			cJSON_Delete(json);
			server_choose_key(&ch, &tables, b->key, 5, &r);
			assert_int_equal(r.action, tree_only ? SERVER_CHOOSE_NONE
							     : SERVER_CHOOSE_RUN_REFRESH);
			server_choose_leave(&ch);
			continue;
		}
		open_tree(&ch, SERVER_CHOOSE_START_SESSIONS);
		server_choose_key(&ch, &tables, "Right", 5, &r);
		server_choose_key(&ch, &tables, "Down", 5, &r);
		server_choose_key(&ch, &tables, b->key, 5, &r);
		if (r.action == SERVER_CHOOSE_NONE && strcmp(selected_key(&ch), "work:0") == 0)
			fail_msg("%s (%s) did nothing", b->key, b->command);
		server_choose_leave(&ch);
	}
}

/* A key rebound in the client's table is what the mode obeys. */
static void test_rebound(void **state)
{
	struct mode_tables mine;
	struct server_choose ch;
	struct server_choose_result r;

	(void)state;
	mode_tables_init(&mine);
	assert_int_equal(mode_tables_bind(&mine, "choose-mode", "x", "send-keys -X cancel", NULL),
			 0);
	assert_int_equal(mode_tables_bind(&mine, "choose-mode", "q", "", NULL), 0);
	open_tree(&ch, SERVER_CHOOSE_START_PANE);
	server_choose_key(&ch, &mine, "q", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_NONE);
	assert_true(ch.active);
	server_choose_key(&ch, &mine, "x", 5, &r);
	assert_int_equal(r.action, SERVER_CHOOSE_LEAVE);
	assert_false(ch.active);
	assert_int_not_equal(mode_tables_bind(&mine, "choose-mode", "y", "no-such-command", NULL),
			     0);
	mode_tables_free(&mine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_lines),
	    cmocka_unit_test(test_pane_label_fields),
	    cmocka_unit_test(test_tree_starts),
	    cmocka_unit_test(test_tree_moves),
	    cmocka_unit_test(test_tree_enter_and_leave),
	    cmocka_unit_test(test_tree_target_quoted),
	    cmocka_unit_test(test_tree_refresh),
	    cmocka_unit_test(test_buffers),
	    cmocka_unit_test(test_scroll),
	    cmocka_unit_test(test_key_table),
	    cmocka_unit_test(test_rebound),
	};
	int failed;

	mode_tables_init(&tables);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	mode_tables_free(&tables);
	return failed;
}
