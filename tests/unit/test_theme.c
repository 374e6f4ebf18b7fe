/*
 * test_theme: theme colours, theme files and where themes are found.
 *
 * Colour cases are spellings and the colour they mean; bad-theme cases
 * are file text and the field the error must name, together with the
 * file.  Every theme shipped in themes/ must load cleanly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "theme.h"

static char tmpdir[256];

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_theme.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char command[300];

	snprintf(command, sizeof command, "rm -rf %s", tmpdir);
	return system(command) == 0 ? 0 : -1;
}

struct color_case {
	const char *spec;
	int kind;
	int index;
	unsigned rgb;
};

static const struct color_case color_cases[] = {
    {"default", THEME_COLOR_DEFAULT, 0, 0},	  {"black", THEME_COLOR_PALETTE, 0, 0},
    {"red", THEME_COLOR_PALETTE, 1, 0},		  {"White", THEME_COLOR_PALETTE, 7, 0},
    {"brightred", THEME_COLOR_PALETTE, 9, 0},	  {"bright-blue", THEME_COLOR_PALETTE, 12, 0},
    {"Bright_White", THEME_COLOR_PALETTE, 15, 0}, {"colour123", THEME_COLOR_PALETTE, 123, 0},
    {"color0", THEME_COLOR_PALETTE, 0, 0},	  {"255", THEME_COLOR_PALETTE, 255, 0},
    {"#ff8000", THEME_COLOR_RGB, 0, 0xff8000},	  {"#0A0b0C", THEME_COLOR_RGB, 0, 0x0a0b0c},
};

static const char *const bad_colors[] = {"",	    "grren",	"colour256", "256",   "#ff800",
					 "#gg0000", "#ff80000", "-1",	     "colour"};

static void test_colors(void **state)
{
	struct theme_color color;

	for (size_t i = 0; i < sizeof color_cases / sizeof color_cases[0]; i++) {
		const struct color_case *c = &color_cases[i];

		if (!theme_parse_color(c->spec, &color))
			fail_msg("\"%s\" did not parse", c->spec);
		assert_int_equal(color.kind, c->kind);
		if (c->kind == THEME_COLOR_PALETTE)
			assert_int_equal(color.index, c->index);
		if (c->kind == THEME_COLOR_RGB)
			assert_int_equal((unsigned)(color.r << 16 | color.g << 8 | color.b),
					 c->rgb);
	}
	for (size_t i = 0; i < sizeof bad_colors / sizeof bad_colors[0]; i++)
		if (theme_parse_color(bad_colors[i], &color))
			fail_msg("\"%s\" parsed but is no colour", bad_colors[i]);
}

static void test_partial_theme(void **state)
{
	struct theme theme, builtin;
	struct sm_error err = {"", ""};

	theme_builtin_default(&builtin);
	assert_int_equal(
	    theme_parse("{\"name\":\"mine\",\"label\":{\"native\":{\"fg\":\"#00ff00\","
			"\"bg\":17,\"bold\":true}},\"border\":{\"active\":\"yellow\"}}",
			"mine.json", &theme, &err),
	    0);
	assert_string_equal(theme.name, "mine");
	assert_int_equal(theme.slots[THEME_LABEL_NATIVE].fg.kind, THEME_COLOR_RGB);
	assert_int_equal(theme.slots[THEME_LABEL_NATIVE].fg.g, 0xff);
	assert_int_equal(theme.slots[THEME_LABEL_NATIVE].bg.index, 17);
	assert_int_equal(theme.slots[THEME_LABEL_NATIVE].attrs, THEME_ATTR_BOLD);
	/* A bare colour is the foreground. */
	assert_int_equal(theme.slots[THEME_BORDER_ACTIVE].fg.index, 3);
	assert_int_equal(theme.slots[THEME_BORDER_ACTIVE].attrs, 0);
	/* Untouched slots keep the built-in style. */
	assert_memory_equal(&theme.slots[THEME_BANNER_FAILED], &builtin.slots[THEME_BANNER_FAILED],
			    sizeof builtin.slots[0]);
	assert_string_equal(theme_slot_name(THEME_LABEL_MICROVM), "label.microvm");
}

struct bad_theme {
	const char *text;
	const char *code;
	const char *field;
};

static const struct bad_theme bad_themes[] = {
    {"{\"borders\":{}}", "theme_invalid", "borders"},
    {"{\"border\":{\"activ\":\"red\"}}", "theme_invalid", "border.activ"},
    {"{\"label\":{\"native\":{\"fg\":\"grren\"}}}", "theme_invalid", "label.native.fg"},
    {"{\"label\":{\"microvm\":{\"bg\":300}}}", "theme_invalid", "label.microvm.bg"},
    {"{\"status\":{\"bar\":{\"bold\":\"yes\"}}}", "theme_invalid", "status.bar.bold"},
    {"{\"status\":{\"bar\":{\"colour\":\"red\"}}}", "theme_invalid", "status.bar.colour"},
    {"{\"banner\":[1]}", "theme_invalid", "banner"},
    {"{\"copy\":{\"selection\":true}}", "theme_invalid", "copy.selection"},
    {"{\"name\":5}", "theme_invalid", "name"},
    {"{\n\"border\": {\n\"active\": \"red\",\n}\n}", "theme_parse_error", "line 4"},
};

static void test_bad_themes(void **state)
{
	for (size_t i = 0; i < sizeof bad_themes / sizeof bad_themes[0]; i++) {
		const char *path = write_file("broken.json", bad_themes[i].text);
		struct theme theme, builtin;
		struct sm_error err = {"", ""};

		theme_builtin_default(&builtin);
		assert_int_equal(theme_load_file(path, &theme, &err), -1);
		if (strcmp(err.code, bad_themes[i].code) != 0 ||
		    strstr(err.message, bad_themes[i].field) == NULL ||
		    strstr(err.message, "broken.json") == NULL)
			fail_msg("case %zu: got %s: %s", i, err.code, err.message);
		/* theme_load falls back to the built-in theme. */
		assert_int_equal(theme_load(path, &theme, &err), -1);
		assert_memory_equal(theme.slots, builtin.slots, sizeof builtin.slots);
	}
}

static void test_shipped_themes(void **state)
{
	static const char *const names[] = {"default", "light", "high-contrast", "solarized-dark"};
	const char *root = getenv("SANDMUX_ROOT");
	struct theme builtin, theme;

	theme_builtin_default(&builtin);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[1024];
		struct sm_error err = {"", ""};

		snprintf(path, sizeof path, "%s/themes/%s.json", root ? root : ".", names[i]);
		if (theme_load_file(path, &theme, &err) != 0)
			fail_msg("%s: %s", path, err.message);
		assert_string_equal(theme.name, names[i]);
	}
	/* default.json spells out the built-in theme. */
	{
		char path[1024];
		struct sm_error err = {"", ""};

		snprintf(path, sizeof path, "%s/themes/default.json", root ? root : ".");
		assert_int_equal(theme_load_file(path, &theme, &err), 0);
		assert_memory_equal(theme.slots, builtin.slots, sizeof builtin.slots);
	}
}

static void test_search_order(void **state)
{
	char config_dir[512], share_dir[512], path[1024];
	struct sm_error err = {"", ""};

	snprintf(config_dir, sizeof config_dir, "%s/config", tmpdir);
	snprintf(share_dir, sizeof share_dir, "%s/share", tmpdir);
	mkdir(config_dir, 0700);
	snprintf(path, sizeof path, "%s/sandmux", config_dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/sandmux/themes", config_dir);
	mkdir(path, 0700);
	mkdir(share_dir, 0700);
	write_file("config/sandmux/themes/both.json", "{}");
	write_file("share/both.json", "{}");
	write_file("share/shared.json", "{}");
	setenv("XDG_CONFIG_HOME", config_dir, 1);
	setenv("SANDMUX_THEMES", share_dir, 1);

	assert_int_equal(theme_resolve("both", path, sizeof path, &err), 0);
	assert_non_null(strstr(path, "/config/sandmux/themes/both.json"));
	assert_int_equal(theme_resolve("shared", path, sizeof path, &err), 0);
	assert_non_null(strstr(path, "/share/shared.json"));
	assert_int_equal(theme_resolve("nowhere", path, sizeof path, &err), -1);
	assert_string_equal(err.code, "theme_not_found");
	assert_non_null(strstr(err.message, "nowhere"));
	assert_non_null(strstr(err.message, share_dir));
	/* Paths are taken as they are. */
	assert_int_equal(theme_resolve(write_file("direct.json", "{}"), path, sizeof path, &err),
			 0);
	assert_int_equal(theme_resolve("/no/such/theme.json", path, sizeof path, &err), -1);
}

/* The one table of event colours, as the feed and `events --pretty`
 * both read it: by action for a violation, by kind for the rest; its
 * SGR is the one builder's (term_style_sgr). */
static void test_event_colours(void **state)
{
	static const struct {
		const char *kind, *action, *sgr;
	} cases[] = {
	    {"violation", "file-read*", "\033[0;1;31m"},
	    {"violation", "file-write*", "\033[0;1;33m"},
	    {"violation", "file-write-create", "\033[0;1;35m"},
	    {"violation", "network-outbound", "\033[0;1;36m"},
	    {"violation", "process-exec", "\033[0;1;34m"},
	    {"policy-grant", "network-outbound", "\033[0;1;32m"},
	    {"policy-ask", "network-outbound", "\033[0;1;7;33m"},
	    {"error", NULL, "\033[0;97;41m"},
	    {"flood", NULL, "\033[0;97;41m"},
	    {"ready", NULL, "\033[0;2m"},
	    {NULL, "something-new", "\033[0;2m"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct theme_style style = theme_event_style(cases[i].kind, cases[i].action);
		char *sgr = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&sgr, &len);

		assert_non_null(f);
		theme_put_sgr(f, &style);
		fclose(f);
		assert_string_equal(sgr, cases[i].sgr);
		free(sgr);
	}
}

static void test_default_without_files(void **state)
{
	struct theme theme, builtin;
	struct sm_error err = {"", ""};

	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	setenv("SANDMUX_THEMES", "/nonexistent", 1);
	theme_builtin_default(&builtin);
	assert_int_equal(theme_load("default", &theme, &err), 0);
	assert_memory_equal(theme.slots, builtin.slots, sizeof builtin.slots);
	assert_int_equal(theme_load("missing-theme", &theme, &err), -1);
	assert_string_equal(err.code, "theme_not_found");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_colors),	 cmocka_unit_test(test_partial_theme),
	    cmocka_unit_test(test_bad_themes),	 cmocka_unit_test(test_shipped_themes),
	    cmocka_unit_test(test_search_order), cmocka_unit_test(test_default_without_files),
	    cmocka_unit_test(test_event_colours),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
