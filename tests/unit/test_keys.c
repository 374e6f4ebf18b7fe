/*
 * test_keys: key names and their encodings, as tables.
 *
 * Every name term_key_parse knows appears in name_cases with the key it
 * means and its canonical spelling; encode_cases give the bytes a program
 * receives for a key in normal and in application cursor-key mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <vterm_keycodes.h>

#include "term.h"

#define C TERM_MOD_CTRL
#define M TERM_MOD_ALT
#define S TERM_MOD_SHIFT
#define NAMED TERM_KEY_NAMED
#define CHAR TERM_KEY_CHAR

struct name_case {
	const char *name;
	int kind;
	int value; /* VTermKey or codepoint */
	int mods;
	const char *canonical;
};

static const struct name_case name_cases[] = {
    {"Enter", NAMED, VTERM_KEY_ENTER, 0, "Enter"},
    {"Tab", NAMED, VTERM_KEY_TAB, 0, "Tab"},
    {"BTab", NAMED, VTERM_KEY_TAB, S, "BTab"},
    {"S-Tab", NAMED, VTERM_KEY_TAB, S, "BTab"},
    {"BSpace", NAMED, VTERM_KEY_BACKSPACE, 0, "BSpace"},
    {"Escape", NAMED, VTERM_KEY_ESCAPE, 0, "Escape"},
    {"Esc", NAMED, VTERM_KEY_ESCAPE, 0, "Escape"},
    {"CR", NAMED, VTERM_KEY_ENTER, 0, "Enter"},
    {"Backspace", NAMED, VTERM_KEY_BACKSPACE, 0, "BSpace"},
    {"Space", CHAR, ' ', 0, "Space"},
    {"Up", NAMED, VTERM_KEY_UP, 0, "Up"},
    {"Down", NAMED, VTERM_KEY_DOWN, 0, "Down"},
    {"Left", NAMED, VTERM_KEY_LEFT, 0, "Left"},
    {"Right", NAMED, VTERM_KEY_RIGHT, 0, "Right"},
    {"Home", NAMED, VTERM_KEY_HOME, 0, "Home"},
    {"End", NAMED, VTERM_KEY_END, 0, "End"},
    {"PageUp", NAMED, VTERM_KEY_PAGEUP, 0, "PageUp"},
    {"PPage", NAMED, VTERM_KEY_PAGEUP, 0, "PageUp"},
    {"PgUp", NAMED, VTERM_KEY_PAGEUP, 0, "PageUp"},
    {"PageDown", NAMED, VTERM_KEY_PAGEDOWN, 0, "PageDown"},
    {"NPage", NAMED, VTERM_KEY_PAGEDOWN, 0, "PageDown"},
    {"PgDn", NAMED, VTERM_KEY_PAGEDOWN, 0, "PageDown"},
    {"Insert", NAMED, VTERM_KEY_INS, 0, "Insert"},
    {"IC", NAMED, VTERM_KEY_INS, 0, "Insert"},
    {"Delete", NAMED, VTERM_KEY_DEL, 0, "Delete"},
    {"DC", NAMED, VTERM_KEY_DEL, 0, "Delete"},
    {"F1", NAMED, VTERM_KEY_FUNCTION(1), 0, "F1"},
    {"F5", NAMED, VTERM_KEY_FUNCTION(5), 0, "F5"},
    {"F12", NAMED, VTERM_KEY_FUNCTION(12), 0, "F12"},
    {"KP0", NAMED, VTERM_KEY_KP_0, 0, "KP0"},
    {"KP9", NAMED, VTERM_KEY_KP_9, 0, "KP9"},
    {"KP*", NAMED, VTERM_KEY_KP_MULT, 0, "KP*"},
    {"KP+", NAMED, VTERM_KEY_KP_PLUS, 0, "KP+"},
    {"KP-", NAMED, VTERM_KEY_KP_MINUS, 0, "KP-"},
    {"KP.", NAMED, VTERM_KEY_KP_PERIOD, 0, "KP."},
    {"KP/", NAMED, VTERM_KEY_KP_DIVIDE, 0, "KP/"},
    {"KPEnter", NAMED, VTERM_KEY_KP_ENTER, 0, "KPEnter"},
    {"enter", NAMED, VTERM_KEY_ENTER, 0, "Enter"},
    {"a", CHAR, 'a', 0, "a"},
    {"A", CHAR, 'A', 0, "A"},
    {"-", CHAR, '-', 0, "-"},
    {"\xc3\xa9", CHAR, 0xe9, 0, "\xc3\xa9"},
    {"\xe4\xb8\xad", CHAR, 0x4e2d, 0, "\xe4\xb8\xad"},
    {"C-c", CHAR, 'c', C, "C-c"},
    {"c-c", CHAR, 'c', C, "C-c"},
    {"^c", CHAR, 'c', C, "C-c"},
    {"M-x", CHAR, 'x', M, "M-x"},
    {"C-M-x", CHAR, 'x', C | M, "C-M-x"},
    {"M-C-x", CHAR, 'x', C | M, "C-M-x"},
    {"S-Up", NAMED, VTERM_KEY_UP, S, "S-Up"},
    {"C-S-M-F3", NAMED, VTERM_KEY_FUNCTION(3), C | M | S, "C-M-S-F3"},
    {"C-Space", CHAR, ' ', C, "C-Space"},
    {"C--", CHAR, '-', C, "C--"},
    {"M-Enter", NAMED, VTERM_KEY_ENTER, M, "M-Enter"},
};

static void test_parse_names(void **state)
{
	for (size_t i = 0; i < sizeof name_cases / sizeof name_cases[0]; i++) {
		const struct name_case *c = &name_cases[i];
		struct term_key key;
		char name[32];

		if (!term_key_parse(c->name, &key))
			fail_msg("%s: not parsed", c->name);
		int value = key.kind == CHAR ? (int)key.codepoint : key.named;
		if (key.kind != c->kind || value != c->value || key.mods != c->mods)
			fail_msg("%s: kind %d value %d mods %d", c->name, key.kind, value,
				 key.mods);
		term_key_name(&key, name, sizeof name);
		if (strcmp(name, c->canonical) != 0)
			fail_msg("%s: canonical %s, expected %s", c->name, name, c->canonical);

		struct term_key again; /* the canonical name means the same key */
		assert_true(term_key_parse(name, &again));
		assert_memory_equal(&again, &key, sizeof key);
	}
}

static const char *const bad_names[] = {
    "", "Foo", "F0", "F25", "F1x", "C-", "X-a", "ab", "C-Foo", "\xc3", "\x01", "Up ",
};

static void test_reject_names(void **state)
{
	for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
		struct term_key key;
		if (term_key_parse(bad_names[i], &key))
			fail_msg("'%s' parsed as a key", bad_names[i]);
	}
	struct term_key key;
	assert_false(term_key_parse(NULL, &key));
}

struct encode_case {
	const char *name;
	const char *normal;
	const char *app_cursor; /* with DECCKM set */
};

static const struct encode_case encode_cases[] = {
    {"Enter", "\r", "\r"},
    {"Tab", "\t", "\t"},
    {"BTab", "\033[Z", "\033[Z"},
    {"BSpace", "\x7f", "\x7f"},
    {"Escape", "\033", "\033"},
    {"Space", " ", " "},
    {"Up", "\033[A", "\033OA"},
    {"Down", "\033[B", "\033OB"},
    {"Right", "\033[C", "\033OC"},
    {"Left", "\033[D", "\033OD"},
    {"Home", "\033[H", "\033OH"},
    {"End", "\033[F", "\033OF"},
    {"PageUp", "\033[5~", "\033[5~"},
    {"PageDown", "\033[6~", "\033[6~"},
    {"Insert", "\033[2~", "\033[2~"},
    {"Delete", "\033[3~", "\033[3~"},
    {"F1", "\033OP", "\033OP"},
    {"F5", "\033[15~", "\033[15~"},
    {"F12", "\033[24~", "\033[24~"},
    {"C-Up", "\033[1;5A", "\033[1;5A"},
    {"S-Right", "\033[1;2C", "\033[1;2C"},
    {"a", "a", "a"},
    {"\xc3\xa9", "\xc3\xa9", "\xc3\xa9"},
    {"C-c", "\x03", "\x03"},
    {"C-C", "\x03", "\x03"},
    {"M-x", "\033x", "\033x"},
    {"C-M-x", "\033\x18", "\033\x18"},
    {"C-[", "\033", "\033"},
    {"C-?", "\x7f", "\x7f"},
    {"C-_", "\x1f", "\x1f"},
    {"C-\\", "\x1c", "\x1c"},
};

struct output {
	char bytes[64];
	size_t len;
};

static void on_output(const char *bytes, size_t len, void *user)
{
	struct output *out = user;
	memcpy(out->bytes + out->len, bytes, len);
	out->len += len;
}

static void check_encoding(struct term *term, struct output *out, const char *name,
			   const char *expected)
{
	struct term_key key;

	assert_true(term_key_parse(name, &key));
	out->len = 0;
	term_send_key(term, &key);
	if (out->len != strlen(expected) || memcmp(out->bytes, expected, out->len) != 0)
		fail_msg("%s: got %zu bytes \\x%02x...", name, out->len,
			 out->len ? (unsigned char)out->bytes[0] : 0);
}

static void test_encodings(void **state)
{
	struct term *term = term_new(4, 10, 0);
	struct output out = {0};
	size_t count = sizeof encode_cases / sizeof encode_cases[0];

	term_set_output(term, on_output, &out);
	for (size_t i = 0; i < count; i++)
		check_encoding(term, &out, encode_cases[i].name, encode_cases[i].normal);
	term_write(term, "\033[?1h", 5);
	for (size_t i = 0; i < count; i++)
		check_encoding(term, &out, encode_cases[i].name, encode_cases[i].app_cursor);
	term_free(term);
}

static void test_ctrl_space_is_nul(void **state)
{
	struct term *term = term_new(4, 10, 0);
	struct output out = {0};
	struct term_key key;

	term_set_output(term, on_output, &out);
	assert_true(term_key_parse("C-Space", &key));
	term_send_key(term, &key);
	assert_int_equal(out.len, 1);
	assert_int_equal(out.bytes[0], 0);
	term_free(term);
}

static void test_send_text(void **state)
{
	struct term *term = term_new(4, 10, 0);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	term_send_text(term, "h\xc3\xa9\n", 4);
	assert_int_equal(out.len, 4);
	assert_memory_equal(out.bytes, "h\xc3\xa9\n", 4);
	term_free(term);
}

static void test_key_name_small_buffer(void **state)
{
	struct term_key key;
	char name[4];

	assert_true(term_key_parse("C-M-PageDown", &key));
	term_key_name(&key, name, sizeof name);
	assert_string_equal(name, "C-M");
}

/* ---- decoding what a terminal sends ---- */

struct decode_case {
	const char *bytes;
	bool final;	  /* the escape timeout passed */
	size_t used;	  /* 0: wait for more */
	const char *name; /* the key's canonical name; "mouse", "other" */
};

static const struct decode_case decode_cases[] = {
    {"a", false, 1, "a"},
    {"\xc3\xa9x", false, 2, "\xc3\xa9"},
    {"\xc3", false, 0, NULL},
    {"\xc3", true, 1, "\xef\xbf\xbd"},
    {"\xff", false, 1, "\xef\xbf\xbd"},
    {"\r", false, 1, "Enter"},
    {"\t", false, 1, "Tab"},
    {"\x7f", false, 1, "BSpace"},
    {"\x02", false, 1, "C-b"},
    {"\x00", false, 1, "C-Space"},
    {"\x1f", false, 1, "C-_"},
    {"\033", false, 0, NULL},
    {"\033", true, 1, "Escape"},
    {"\033[", false, 0, NULL},
    {"\033[", true, 1, "Escape"},
    {"\033[1;5", false, 0, NULL},
    {"\033[A", false, 3, "Up"},
    {"\033OA", false, 3, "Up"},
    {"\033[1;5A", false, 6, "C-Up"},
    {"\033[1;3D", false, 6, "M-Left"},
    {"\033[1;2C", false, 6, "S-Right"},
    {"\033[5~", false, 4, "PageUp"},
    {"\033[6;5~", false, 6, "C-PageDown"},
    {"\033[3~x", false, 4, "Delete"},
    {"\033[15~", false, 5, "F5"},
    {"\033[24~", false, 5, "F12"},
    {"\033OP", false, 3, "F1"},
    {"\033[Z", false, 3, "BTab"},
    {"\033OM", false, 3, "KPEnter"},
    {"\033Oq", false, 3, "KP1"},
    {"\033x", false, 2, "M-x"},
    {"\033\x18", false, 2, "C-M-x"},
    {"\033\r", false, 2, "M-Enter"},
    {"\033\033[A", false, 4, "M-Up"},
    {"\033O", false, 0, NULL},
    {"\033O", true, 2, "M-O"},
    {"\033[<0;5;3M", false, 9, "mouse"},
    {"\033[<0;5;3", false, 0, NULL},
    {"\033[?1;2c", false, 7, "other"},
    {"\033[99~", false, 5, "other"},
    {"\033[1234567890123456789012345678901234", false, 1, "Escape"},
};

static void test_decode_cases(void **state)
{
	for (size_t i = 0; i < sizeof decode_cases / sizeof decode_cases[0]; i++) {
		const struct decode_case *c = &decode_cases[i];
		size_t len = c->bytes[0] == 0 ? 1 : strlen(c->bytes);
		struct term_input in;
		size_t used = term_input_decode(c->bytes, len, c->final, &in);
		char name[32] = "";

		if (used > 0 && in.kind == TERM_INPUT_KEY)
			term_key_name(&in.key, name, sizeof name);
		else if (used > 0)
			snprintf(name, sizeof name, "%s",
				 in.kind == TERM_INPUT_MOUSE ? "mouse" : "other");
		if (used != c->used || (used > 0 && strcmp(name, c->name) != 0))
			fail_msg("case %zu: used %zu, wanted %zu; key %s, wanted %s", i, used,
				 c->used, name, c->name ? c->name : "(none)");
	}
}

static void test_decode_mouse(void **state)
{
	struct term_input in;

	assert_int_equal(term_input_decode("\033[<0;5;3M", 9, false, &in), 9);
	assert_int_equal(in.kind, TERM_INPUT_MOUSE);
	assert_int_equal(in.button, 1);
	assert_int_equal(in.col, 4);
	assert_int_equal(in.row, 2);
	assert_true(in.pressed);
	assert_int_equal(term_input_decode("\033[<2;1;1m", 9, false, &in), 9);
	assert_int_equal(in.button, 3);
	assert_false(in.pressed);
	assert_int_equal(term_input_decode("\033[<65;10;20M", 12, false, &in), 12);
	assert_int_equal(in.button, 5);
	assert_int_equal(term_input_decode("\033[<20;10;20M", 12, false, &in), 12);
	assert_int_equal(in.button, 1);
	assert_int_equal(in.mods, TERM_MOD_CTRL | TERM_MOD_SHIFT);
	/* The older encoding, ESC [ M and three bytes of value + 32. */
	assert_int_equal(term_input_decode("\033[M \046$", 6, false, &in), 6);
	assert_int_equal(in.kind, TERM_INPUT_MOUSE);
	assert_int_equal(in.button, 1);
	assert_int_equal(in.col, 5);
	assert_int_equal(in.row, 3);
	assert_true(in.pressed);
	assert_int_equal(term_input_decode("\033[M#\046$", 6, false, &in), 6);
	assert_false(in.pressed);
	assert_int_equal(term_input_decode("\033[M`\046$", 6, false, &in), 6);
	assert_int_equal(in.button, 4);
	assert_int_equal(term_input_decode("\033[M`\046", 5, false, &in), 0);
}

/* Focus in and out (DECSET 1004's reports); with parameters they are
 * no report. */
static void test_decode_focus(void **state)
{
	struct term_input in;

	assert_int_equal(term_input_decode("\033[I", 3, false, &in), 3);
	assert_int_equal(in.kind, TERM_INPUT_FOCUS);
	assert_true(in.pressed);
	assert_int_equal(term_input_decode("\033[Oa", 4, false, &in), 3);
	assert_int_equal(in.kind, TERM_INPUT_FOCUS);
	assert_false(in.pressed);
	assert_int_equal(term_input_decode("\033[1I", 4, false, &in), 4);
	assert_int_equal(in.kind, TERM_INPUT_OTHER);
	/* SS3 O is no focus report: ESC O P is F1. */
	assert_int_equal(term_input_decode("\033OP", 3, false, &in), 3);
	assert_int_equal(in.kind, TERM_INPUT_KEY);
}

/* Every key the encoder writes for a program reads back as itself (as
 * far as the bytes can tell: C-[ is Escape, C-? is BSpace, C-C is C-c). */
static void test_decode_reads_encodings(void **state)
{
	struct term *term = term_new(4, 10, 0);
	struct output out = {0};

	term_set_output(term, on_output, &out);
	for (int app = 0; app < 2; app++) {
		if (app)
			term_write(term, "\033[?1h", 5);
		for (size_t i = 0; i < sizeof encode_cases / sizeof encode_cases[0]; i++) {
			struct term_key key;
			struct term_input in;
			char wanted[32], got[32];

			assert_true(term_key_parse(encode_cases[i].name, &key));
			out.len = 0;
			term_send_key(term, &key);
			assert_int_equal(term_input_decode(out.bytes, out.len, true, &in), out.len);
			assert_int_equal(in.kind, TERM_INPUT_KEY);
			term_key_name(&key, wanted, sizeof wanted);
			term_key_name(&in.key, got, sizeof got);
			if (strcmp(encode_cases[i].name, "C-[") == 0)
				snprintf(wanted, sizeof wanted, "Escape");
			if (strcmp(encode_cases[i].name, "C-?") == 0)
				snprintf(wanted, sizeof wanted, "BSpace");
			if (strcmp(encode_cases[i].name, "C-C") == 0)
				snprintf(wanted, sizeof wanted, "C-c");
			if (strcmp(wanted, got) != 0)
				fail_msg("%s: read back as %s", wanted, got);
		}
	}
	term_free(term);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_names),
	    cmocka_unit_test(test_reject_names),
	    cmocka_unit_test(test_encodings),
	    cmocka_unit_test(test_ctrl_space_is_nul),
	    cmocka_unit_test(test_send_text),
	    cmocka_unit_test(test_key_name_small_buffer),
	    cmocka_unit_test(test_decode_cases),
	    cmocka_unit_test(test_decode_mouse),
	    cmocka_unit_test(test_decode_focus),
	    cmocka_unit_test(test_decode_reads_encodings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
