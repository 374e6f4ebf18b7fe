/*
 * keys: tmux-style key names, and encoding keys for the program in a term.
 *
 * A key name is optional modifier prefixes (C-, M-, S-, in any order and
 * case, or ^ for Ctrl) followed by a named key ("Enter", "PageUp",
 * "F1".."F24") or a single UTF-8 character.  Names are a table, so adding
 * one is one line; the first entry for a key is its canonical name.  This
 * is the one parser of key names: the server's send-keys and key events,
 * and the client's config and bindings (src/bindings.c), read them here.
 *
 * Encoding is libvterm's, so it follows the modes the program set
 * (application cursor keys, keypad, bracketed paste, mouse protocol).  The
 * one exception is Ctrl with a character: libvterm 0.1.4 sends CSI-u for
 * anything but Ctrl+a..z, while programs under a multiplexer expect the
 * classic control bytes (C-[ is ESC, C-Space is NUL, C-? is DEL), so those
 * are mapped here first, as tmux does.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <vterm.h>

#include "term.h"

struct key_name {
	const char *name;
	int kind;  /* enum term_key_kind */
	int value; /* VTermKey, or a codepoint for TERM_KEY_CHAR */
	int mods;  /* modifiers the name implies (BTab is Shift-Tab) */
};

static const struct key_name key_names[] = {
    {"Enter", TERM_KEY_NAMED, VTERM_KEY_ENTER, 0},
    {"Tab", TERM_KEY_NAMED, VTERM_KEY_TAB, 0},
    {"BTab", TERM_KEY_NAMED, VTERM_KEY_TAB, TERM_MOD_SHIFT},
    {"BSpace", TERM_KEY_NAMED, VTERM_KEY_BACKSPACE, 0},
    {"Escape", TERM_KEY_NAMED, VTERM_KEY_ESCAPE, 0},
    {"Space", TERM_KEY_CHAR, ' ', 0},
    {"Up", TERM_KEY_NAMED, VTERM_KEY_UP, 0},
    {"Down", TERM_KEY_NAMED, VTERM_KEY_DOWN, 0},
    {"Left", TERM_KEY_NAMED, VTERM_KEY_LEFT, 0},
    {"Right", TERM_KEY_NAMED, VTERM_KEY_RIGHT, 0},
    {"Home", TERM_KEY_NAMED, VTERM_KEY_HOME, 0},
    {"End", TERM_KEY_NAMED, VTERM_KEY_END, 0},
    {"PageUp", TERM_KEY_NAMED, VTERM_KEY_PAGEUP, 0},
    {"PPage", TERM_KEY_NAMED, VTERM_KEY_PAGEUP, 0},
    {"PgUp", TERM_KEY_NAMED, VTERM_KEY_PAGEUP, 0},
    {"PageDown", TERM_KEY_NAMED, VTERM_KEY_PAGEDOWN, 0},
    {"NPage", TERM_KEY_NAMED, VTERM_KEY_PAGEDOWN, 0},
    {"PgDn", TERM_KEY_NAMED, VTERM_KEY_PAGEDOWN, 0},
    {"Insert", TERM_KEY_NAMED, VTERM_KEY_INS, 0},
    {"IC", TERM_KEY_NAMED, VTERM_KEY_INS, 0},
    {"Delete", TERM_KEY_NAMED, VTERM_KEY_DEL, 0},
    {"DC", TERM_KEY_NAMED, VTERM_KEY_DEL, 0},
    {"KP0", TERM_KEY_NAMED, VTERM_KEY_KP_0, 0},
    {"KP1", TERM_KEY_NAMED, VTERM_KEY_KP_1, 0},
    {"KP2", TERM_KEY_NAMED, VTERM_KEY_KP_2, 0},
    {"KP3", TERM_KEY_NAMED, VTERM_KEY_KP_3, 0},
    {"KP4", TERM_KEY_NAMED, VTERM_KEY_KP_4, 0},
    {"KP5", TERM_KEY_NAMED, VTERM_KEY_KP_5, 0},
    {"KP6", TERM_KEY_NAMED, VTERM_KEY_KP_6, 0},
    {"KP7", TERM_KEY_NAMED, VTERM_KEY_KP_7, 0},
    {"KP8", TERM_KEY_NAMED, VTERM_KEY_KP_8, 0},
    {"KP9", TERM_KEY_NAMED, VTERM_KEY_KP_9, 0},
    {"KP*", TERM_KEY_NAMED, VTERM_KEY_KP_MULT, 0},
    {"KP+", TERM_KEY_NAMED, VTERM_KEY_KP_PLUS, 0},
    {"KP,", TERM_KEY_NAMED, VTERM_KEY_KP_COMMA, 0},
    {"KP-", TERM_KEY_NAMED, VTERM_KEY_KP_MINUS, 0},
    {"KP.", TERM_KEY_NAMED, VTERM_KEY_KP_PERIOD, 0},
    {"KP/", TERM_KEY_NAMED, VTERM_KEY_KP_DIVIDE, 0},
    {"KPEnter", TERM_KEY_NAMED, VTERM_KEY_KP_ENTER, 0},
    {"KP=", TERM_KEY_NAMED, VTERM_KEY_KP_EQUAL, 0},
    /* Other spellings people write (after the canonical ones above). */
    {"CR", TERM_KEY_NAMED, VTERM_KEY_ENTER, 0},
    {"Backspace", TERM_KEY_NAMED, VTERM_KEY_BACKSPACE, 0},
    {"Esc", TERM_KEY_NAMED, VTERM_KEY_ESCAPE, 0},
};

#define KEY_NAME_COUNT (sizeof key_names / sizeof key_names[0])
#define FUNCTION_KEYS_MAX 24

/* Strip "C-", "M-", "S-" (any case, any order) and "^"; returns the rest. */
static const char *parse_modifiers(const char *name, int *mods)
{
	for (;;) {
		if (name[0] == '^' && name[1] != '\0') {
			*mods |= TERM_MOD_CTRL;
			name++;
			continue;
		}
		if (name[0] == '\0' || name[1] != '-' || name[2] == '\0')
			return name;
		switch (name[0]) {
		case 'C':
		case 'c':
			*mods |= TERM_MOD_CTRL;
			break;
		case 'M':
		case 'm':
			*mods |= TERM_MOD_ALT;
			break;
		case 'S':
		case 's':
			*mods |= TERM_MOD_SHIFT;
			break;
		default:
			return name;
		}
		name += 2;
	}
}

static bool parse_function_key(const char *name, struct term_key *out)
{
	int number, consumed = 0;

	if ((name[0] != 'F' && name[0] != 'f') || sscanf(name + 1, "%d%n", &number, &consumed) != 1)
		return false;
	if (name[1 + consumed] != '\0' || number < 1 || number > FUNCTION_KEYS_MAX ||
	    name[1] == '0' || name[1] == '+')
		return false;
	out->kind = TERM_KEY_NAMED;
	out->named = VTERM_KEY_FUNCTION(number);
	return true;
}

static bool parse_base(const char *name, struct term_key *out)
{
	for (size_t i = 0; i < KEY_NAME_COUNT; i++) {
		if (strcasecmp(name, key_names[i].name) != 0)
			continue;
		out->kind = key_names[i].kind;
		if (out->kind == TERM_KEY_CHAR)
			out->codepoint = (uint32_t)key_names[i].value;
		else
			out->named = key_names[i].value;
		out->mods |= key_names[i].mods;
		return true;
	}
	if (parse_function_key(name, out))
		return true;

	uint32_t cp;
	size_t len = strlen(name);
	if (term_utf8_decode(name, len, &cp) != len || cp < 0x20 || cp == 0x7f)
		return false;
	out->kind = TERM_KEY_CHAR;
	out->codepoint = cp;
	return true;
}

bool term_key_parse(const char *name, struct term_key *out)
{
	struct term_key key = {0};

	if (name == NULL || name[0] == '\0')
		return false;
	const char *base = parse_modifiers(name, &key.mods);
	if (!parse_base(base, &key))
		return false;
	*out = key;
	return true;
}

static const char *canonical_name(const struct term_key *key, int *mods)
{
	/* Shift-Tab has its own name; prefer it to "S-Tab". */
	if (key->kind == TERM_KEY_NAMED && key->named == VTERM_KEY_TAB &&
	    (*mods & TERM_MOD_SHIFT)) {
		*mods &= ~TERM_MOD_SHIFT;
		return "BTab";
	}
	for (size_t i = 0; i < KEY_NAME_COUNT; i++) {
		if (key_names[i].kind != key->kind || key_names[i].mods != 0)
			continue;
		if (key->kind == TERM_KEY_CHAR ? (uint32_t)key_names[i].value == key->codepoint
					       : key_names[i].value == key->named)
			return key_names[i].name;
	}
	return NULL;
}

void term_key_name(const struct term_key *key, char *buf, size_t size)
{
	int mods = key->mods;
	const char *base = canonical_name(key, &mods);
	char scratch[16];

	if (base == NULL && key->kind == TERM_KEY_NAMED && key->named > VTERM_KEY_FUNCTION_0 &&
	    key->named <= VTERM_KEY_FUNCTION_MAX) {
		snprintf(scratch, sizeof scratch, "F%d", key->named - VTERM_KEY_FUNCTION_0);
		base = scratch;
	} else if (base == NULL && key->kind == TERM_KEY_CHAR) {
		scratch[term_utf8_encode(key->codepoint, scratch)] = '\0';
		base = scratch;
	} else if (base == NULL) {
		base = "None";
	}
	snprintf(buf, size, "%s%s%s%s", mods & TERM_MOD_CTRL ? "C-" : "",
		 mods & TERM_MOD_ALT ? "M-" : "", mods & TERM_MOD_SHIFT ? "S-" : "", base);
}

/* The classic control byte for Ctrl+c, or -1 if there is none. */
static int control_byte(uint32_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return (int)(c & 0x1f);
	switch (c) {
	case ' ':
	case '@':
	case '2':
		return 0x00;
	case '[':
	case '3':
		return 0x1b;
	case '\\':
	case '4':
		return 0x1c;
	case ']':
	case '5':
		return 0x1d;
	case '^':
	case '6':
		return 0x1e;
	case '_':
	case '/':
	case '7':
		return 0x1f;
	case '?':
	case '8':
		return 0x7f;
	default:
		return -1;
	}
}

/* The kitty keyboard protocol's "disambiguate escape codes": Escape,
 * and an ASCII key with Ctrl or Alt, go as CSI CODE ; MODIFIERS u (the
 * key's unshifted code point, 1 + shift 1, alt 2, ctrl 4), so that a
 * program tells Escape from the start of a sequence and Ctrl-I from Tab.
 * Enter, Tab and Backspace stay as they were, as the protocol says (a
 * shell after a program that crashed in this mode still takes `reset`);
 * everything else is libvterm's.  Returns false when the key is not one
 * of these. */
static bool send_kitty_key(struct term *term, const struct term_key *key)
{
	uint32_t code;
	int mods = key->mods & (TERM_MOD_SHIFT | TERM_MOD_ALT | TERM_MOD_CTRL);
	char seq[32];
	int len;

	if (!(term_kitty_flags(term) & TERM_KITTY_DISAMBIGUATE))
		return false;
	if (key->kind == TERM_KEY_NAMED && key->named == VTERM_KEY_ESCAPE) {
		code = 27;
	} else if (key->kind == TERM_KEY_CHAR && key->codepoint >= 0x20 && key->codepoint < 0x7f &&
		   (mods & (TERM_MOD_ALT | TERM_MOD_CTRL))) {
		code = key->codepoint;
		if (code >= 'A' && code <= 'Z') {
			code += 'a' - 'A';
			mods |= TERM_MOD_SHIFT;
		}
	} else {
		return false;
	}
	/* term_key's modifier bits are the protocol's: shift 1, alt 2, ctrl 4. */
	if (mods == 0)
		len = snprintf(seq, sizeof seq, "\033[%uu", (unsigned)code);
	else
		len = snprintf(seq, sizeof seq, "\033[%u;%du", (unsigned)code, mods + 1);
	term_send_raw(term, seq, (size_t)len);
	return true;
}

void term_send_key(struct term *term, const struct term_key *key)
{
	VTerm *vt = term_vterm(term);
	VTermModifier mods = (VTermModifier)(key->mods & VTERM_ALL_MODS_MASK);

	if (send_kitty_key(term, key))
		return;

	if (key->kind == TERM_KEY_NAMED) {
		vterm_keyboard_key(vt, (VTermKey)key->named, mods);
		return;
	}
	int control = (mods & VTERM_MOD_CTRL) ? control_byte(key->codepoint) : -1;
	if (control >= 0) {
		/* libvterm prefixes ESC for Alt and sends a bare byte otherwise. */
		vterm_keyboard_unichar(vt, (uint32_t)control, mods & VTERM_MOD_ALT);
		return;
	}
	vterm_keyboard_unichar(vt, key->codepoint, mods);
}

void term_send_text(struct term *term, const char *utf8, size_t len)
{
	VTerm *vt = term_vterm(term);

	while (len > 0) {
		uint32_t cp;
		size_t used = term_utf8_decode(utf8, len, &cp);
		if (used == 0) {
			cp = 0xfffd; /* a stray byte still counts as one typed character */
			used = 1;
		}
		vterm_keyboard_unichar(vt, cp, VTERM_MOD_NONE);
		utf8 += used;
		len -= used;
	}
}

void term_send_paste(struct term *term, const char *utf8, size_t len)
{
	VTerm *vt = term_vterm(term);

	vterm_keyboard_start_paste(vt);
	term_send_text(term, utf8, len);
	vterm_keyboard_end_paste(vt);
}

/* button 0 reports motion only; 1-3 are the buttons, 4 and 5 the wheel. */
bool term_send_mouse(struct term *term, int row, int col, int button, bool pressed, int mods)
{
	struct term_modes modes;
	VTerm *vt = term_vterm(term);
	VTermModifier vmods = (VTermModifier)(mods & VTERM_ALL_MODS_MASK);

	term_get_modes(term, &modes);
	if (modes.mouse == 0)
		return false;
	vterm_mouse_move(vt, row, col, vmods);
	if (button > 0)
		vterm_mouse_button(vt, button, pressed, vmods);
	return true;
}

/* ---- decoding what a terminal sends ---- */

#define CSI_MAX 32 /* a longer "sequence" is not one: its ESC is a key */

/* xterm's modifier parameter: 1 + shift 1, alt 2, ctrl 4 (meta 8 as alt). */
static int xterm_mods(int param)
{
	int bits = param > 1 ? param - 1 : 0, mods = 0;

	if (bits & 1)
		mods |= TERM_MOD_SHIFT;
	if (bits & 10)
		mods |= TERM_MOD_ALT;
	if (bits & 4)
		mods |= TERM_MOD_CTRL;
	return mods;
}

static size_t named(struct term_input *out, int key, int mods, size_t len)
{
	out->kind = TERM_INPUT_KEY;
	out->key.kind = TERM_KEY_NAMED;
	out->key.named = key;
	out->key.mods = mods;
	return len;
}

static size_t character(struct term_input *out, uint32_t cp, int mods, size_t len)
{
	out->kind = TERM_INPUT_KEY;
	out->key.kind = TERM_KEY_CHAR;
	out->key.codepoint = cp;
	out->key.mods = mods;
	return len;
}

/* The final letter of CSI/SS3 A-D, H, F and P-S: cursor keys, Home, End, F1-F4. */
static int letter_key(char c)
{
	switch (c) {
	case 'A':
		return VTERM_KEY_UP;
	case 'B':
		return VTERM_KEY_DOWN;
	case 'C':
		return VTERM_KEY_RIGHT;
	case 'D':
		return VTERM_KEY_LEFT;
	case 'H':
		return VTERM_KEY_HOME;
	case 'F':
		return VTERM_KEY_END;
	case 'P':
	case 'Q':
	case 'R':
	case 'S':
		return VTERM_KEY_FUNCTION(1 + c - 'P');
	default:
		return -1;
	}
}

/* CSI N ~: the editing keypad and F5 up (vt220 numbering, as xterm). */
static int tilde_key(int n)
{
	static const struct {
		int n, key;
	} keys[] = {
	    {1, VTERM_KEY_HOME},	  {2, VTERM_KEY_INS},
	    {3, VTERM_KEY_DEL},		  {4, VTERM_KEY_END},
	    {5, VTERM_KEY_PAGEUP},	  {6, VTERM_KEY_PAGEDOWN},
	    {7, VTERM_KEY_HOME},	  {8, VTERM_KEY_END},
	    {11, VTERM_KEY_FUNCTION(1)},  {12, VTERM_KEY_FUNCTION(2)},
	    {13, VTERM_KEY_FUNCTION(3)},  {14, VTERM_KEY_FUNCTION(4)},
	    {15, VTERM_KEY_FUNCTION(5)},  {17, VTERM_KEY_FUNCTION(6)},
	    {18, VTERM_KEY_FUNCTION(7)},  {19, VTERM_KEY_FUNCTION(8)},
	    {20, VTERM_KEY_FUNCTION(9)},  {21, VTERM_KEY_FUNCTION(10)},
	    {23, VTERM_KEY_FUNCTION(11)}, {24, VTERM_KEY_FUNCTION(12)},
	};

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].n == n)
			return keys[i].key;
	return -1;
}

/* SS3 with the keypad in application mode (smkx). */
static size_t ss3(const char *bytes, struct term_input *out)
{
	char c = bytes[2];
	int key = letter_key(c);

	if (key >= 0)
		return named(out, key, 0, 3);
	if (c == 'M')
		return named(out, VTERM_KEY_KP_ENTER, 0, 3);
	if (c >= 'p' && c <= 'y')
		return named(out, VTERM_KEY_KP_0 + (c - 'p'), 0, 3);
	switch (c) {
	case 'j':
		return named(out, VTERM_KEY_KP_MULT, 0, 3);
	case 'k':
		return named(out, VTERM_KEY_KP_PLUS, 0, 3);
	case 'l':
		return named(out, VTERM_KEY_KP_COMMA, 0, 3);
	case 'm':
		return named(out, VTERM_KEY_KP_MINUS, 0, 3);
	case 'n':
		return named(out, VTERM_KEY_KP_PERIOD, 0, 3);
	case 'o':
		return named(out, VTERM_KEY_KP_DIVIDE, 0, 3);
	case 'X':
		return named(out, VTERM_KEY_KP_EQUAL, 0, 3);
	default:
		out->kind = TERM_INPUT_OTHER;
		return 3;
	}
}

/* ESC [ < b ; x ; y M|m: an SGR mouse report. */
static size_t sgr_mouse(const int *params, int nparams, char final, size_t len,
			struct term_input *out)
{
	int b = params[0];

	if (nparams != 3 || params[1] < 1 || params[2] < 1) {
		out->kind = TERM_INPUT_OTHER;
		return len;
	}
	out->kind = TERM_INPUT_MOUSE;
	out->col = params[1] - 1;
	out->row = params[2] - 1;
	out->pressed = final == 'M';
	out->mods = (b & 4 ? TERM_MOD_SHIFT : 0) | (b & 8 ? TERM_MOD_ALT : 0) |
		    (b & 16 ? TERM_MOD_CTRL : 0);
	if (b & 64)
		out->button = 4 + (b & 1);
	else if ((b & 32) && (b & 3) == 3)
		out->button = 0;
	else
		out->button = 1 + (b & 3);
	return len;
}

/* ESC [ M b x y: a mouse report in the old encoding (X10 and normal
 * tracking without 1006), each byte 32 more than its value. */
static size_t x10_mouse(const char *bytes, size_t len, struct term_input *out)
{
	int b, x, y;

	if (len < 6)
		return 0;
	b = (unsigned char)bytes[3] - 32;
	x = (unsigned char)bytes[4] - 33;
	y = (unsigned char)bytes[5] - 33;
	if (b < 0 || x < 0 || y < 0) {
		out->kind = TERM_INPUT_OTHER;
		return 6;
	}
	out->kind = TERM_INPUT_MOUSE;
	out->col = x;
	out->row = y;
	out->mods = (b & 4 ? TERM_MOD_SHIFT : 0) | (b & 8 ? TERM_MOD_ALT : 0) |
		    (b & 16 ? TERM_MOD_CTRL : 0);
	out->pressed = true;
	if (b & 64) {
		out->button = 4 + (b & 1);
	} else if ((b & 3) == 3) {
		/* A release says no button: the first one's, as tmux takes it. */
		out->button = b & 32 ? 0 : 1;
		out->pressed = false;
	} else {
		out->button = 1 + (b & 3);
	}
	return 6;
}

static size_t csi(const char *bytes, size_t len, struct term_input *out)
{
	int params[8] = {0}, nparams = 0, key;
	bool mouse = false, unknown = false;
	size_t i = 2;

	if (i < len && bytes[i] == 'M')
		return x10_mouse(bytes, len, out);
	if (i < len && bytes[i] == '<') {
		mouse = true;
		i++;
	}
	for (; i < len && i < CSI_MAX; i++) {
		char c = bytes[i];

		if (c >= '0' && c <= '9') {
			if (nparams == 0)
				nparams = 1;
			if (params[nparams - 1] < 10000)
				params[nparams - 1] = params[nparams - 1] * 10 + (c - '0');
			continue;
		}
		if (c == ';') {
			if (nparams == 0)
				nparams = 1;
			if (nparams < 8)
				nparams++;
			continue;
		}
		if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x40) {
			/* Private markers and intermediates: a report (DA, DSR), no key. */
			unknown = true;
			continue;
		}
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) {
			out->kind = TERM_INPUT_OTHER;
			return i;
		}
		if (unknown) {
			out->kind = TERM_INPUT_OTHER;
			return i + 1;
		}
		if (mouse)
			return sgr_mouse(params, nparams, c, i + 1, out);
		if (c == 'Z')
			return named(out, VTERM_KEY_TAB, TERM_MOD_SHIFT, i + 1);
		if ((c == 'I' || c == 'O') && nparams == 0) {
			/* Focus in or out, from a terminal asked for them (1004). */
			out->kind = TERM_INPUT_FOCUS;
			out->pressed = c == 'I';
			return i + 1;
		}
		if (c == '~' && (key = tilde_key(params[0])) >= 0)
			return named(out, key, nparams > 1 ? xterm_mods(params[1]) : 0, i + 1);
		if ((key = letter_key(c)) >= 0)
			return named(out, key, nparams > 1 ? xterm_mods(params[1]) : 0, i + 1);
		out->kind = TERM_INPUT_OTHER;
		return i + 1;
	}
	return i >= CSI_MAX ? (size_t)-1 : 0;
}

/* A control byte as the key a user pressed for it. */
static size_t control_key(unsigned char byte, int mods, size_t len, struct term_input *out)
{
	switch (byte) {
	case '\r':
		return named(out, VTERM_KEY_ENTER, mods, len);
	case '\t':
		return named(out, VTERM_KEY_TAB, mods, len);
	case 0x7f:
	case 0x08:
		return named(out, VTERM_KEY_BACKSPACE, mods, len);
	case 0x00:
		return character(out, ' ', mods | TERM_MOD_CTRL, len);
	case 0x1b:
		return named(out, VTERM_KEY_ESCAPE, mods, len);
	default:
		if (byte >= 0x1c && byte <= 0x1f)
			return character(out, (uint32_t)("\\]^_"[byte - 0x1c]),
					 mods | TERM_MOD_CTRL, len);
		return character(out, (uint32_t)(byte + 'a' - 1), mods | TERM_MOD_CTRL, len);
	}
}

/* One character or control byte, with mods (Alt when an ESC came first). */
static size_t plain(const char *bytes, size_t len, bool final, int mods, size_t before,
		    struct term_input *out)
{
	unsigned char byte = (unsigned char)bytes[0];
	uint32_t cp;
	size_t used;

	if (byte < 0x20 || byte == 0x7f)
		return control_key(byte, mods, before + 1, out);
	used = term_utf8_decode(bytes, len, &cp);
	if (used > 0)
		return character(out, cp, mods, before + used);
	/* A character cut by the read: wait for its end, unless nothing more
	 * came or it cannot be one. */
	if (!final && byte >= 0xc2 && byte <= 0xf4 && len < 4) {
		bool may_continue = true;

		for (size_t i = 1; i < len; i++)
			may_continue &= ((unsigned char)bytes[i] & 0xc0) == 0x80;
		if (may_continue)
			return 0;
	}
	return character(out, 0xfffd, mods, before + 1);
}

size_t term_input_decode(const char *bytes, size_t len, bool final, struct term_input *out)
{
	size_t n;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	if (bytes[0] != 0x1b)
		return plain(bytes, len, final, 0, 0, out);
	if (len == 1)
		return final ? named(out, VTERM_KEY_ESCAPE, 0, 1) : 0;
	if (bytes[1] == '[') {
		n = csi(bytes, len, out);
		if (n == (size_t)-1 || (n == 0 && final))
			return named(out, VTERM_KEY_ESCAPE, 0, 1);
		return n;
	}
	if (bytes[1] == 'O') {
		if (len == 2)
			return final ? character(out, 'O', TERM_MOD_ALT, 2) : 0;
		return ss3(bytes, out);
	}
	/* ESC then a key: that key with Alt (Meta), as xterm sends it. */
	if (bytes[1] == 0x1b && len > 2 && (bytes[2] == '[' || bytes[2] == 'O')) {
		n = term_input_decode(bytes + 1, len - 1, final, out);
		if (n == 0 || out->kind != TERM_INPUT_KEY)
			return n == 0 ? 0 : n + 1;
		out->key.mods |= TERM_MOD_ALT;
		return n + 1;
	}
	return plain(bytes + 1, len - 1, final, TERM_MOD_ALT, 1, out);
}
