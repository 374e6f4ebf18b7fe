/*
 * theme: loading theme files and the built-in default.  See theme.h.
 *
 * Slots are declared once, in theme_slots[], with their dotted name and
 * their default style; parsing, error messages and the built-in theme all
 * read that table, so a new slot is one line.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "os.h"
#include "term.h"
#include "theme.h"
#include "xalloc.h"

#define THEME_FILE_MAX (256 * 1024)

/* Shorthands for the defaults table. */
/* clang-format off */
#define DEF {THEME_COLOR_DEFAULT, 0, 0, 0, 0}
#define PAL(n) {THEME_COLOR_PALETTE, (n), 0, 0, 0}
/* clang-format on */

static const struct {
	const char *name;
	struct theme_style fallback;
} theme_slots[THEME_SLOT_COUNT] = {
    [THEME_BORDER_ACTIVE] = {"border.active", {PAL(2), DEF, 0}},
    [THEME_BORDER_INACTIVE] = {"border.inactive", {PAL(244), DEF, 0}},
    [THEME_LABEL_NONE] = {"label.none", {PAL(0), PAL(250), THEME_ATTR_BOLD}},
    [THEME_LABEL_NATIVE] = {"label.native", {PAL(0), PAL(2), THEME_ATTR_BOLD}},
    [THEME_LABEL_MICROVM] = {"label.microvm", {PAL(15), PAL(4), THEME_ATTR_BOLD}},
    [THEME_LABEL_PENDING] = {"label.pending", {PAL(0), PAL(244), 0}},
    [THEME_TITLE_TEXT] = {"title.text", {DEF, DEF, 0}},
    [THEME_TITLE_ACTIVE] = {"title.active", {DEF, DEF, THEME_ATTR_BOLD}},
    [THEME_TITLE_VIOLATIONS] = {"title.violations", {PAL(1), DEF, THEME_ATTR_BOLD}},
    [THEME_TITLE_ZOOM] = {"title.zoom", {PAL(3), DEF, THEME_ATTR_BOLD}},
    [THEME_STATUS_BAR] = {"status.bar", {PAL(0), PAL(2), 0}},
    [THEME_STATUS_SESSION] = {"status.session", {PAL(0), PAL(2), THEME_ATTR_BOLD}},
    [THEME_STATUS_WINDOW] = {"status.window", {PAL(0), PAL(2), 0}},
    [THEME_STATUS_CURRENT] = {"status.current",
			      {PAL(0), PAL(2), THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE}},
    [THEME_STATUS_CLOCK] = {"status.clock", {PAL(0), PAL(2), 0}},
    [THEME_STATUS_MESSAGE] = {"status.message", {PAL(0), PAL(3), 0}},
    [THEME_STATUS_ERROR] = {"status.error", {PAL(15), PAL(1), THEME_ATTR_BOLD}},
    [THEME_STATUS_PROMPT] = {"status.prompt", {PAL(0), PAL(3), 0}},
    [THEME_BANNER_FAILED] = {"banner.failed", {PAL(15), PAL(1), THEME_ATTR_BOLD}},
    [THEME_BANNER_TEXT] = {"banner.text", {PAL(15), PAL(1), 0}},
    [THEME_COPY_SELECTION] = {"copy.selection", {PAL(0), PAL(3), 0}},
    [THEME_COPY_POSITION] = {"copy.position", {PAL(0), PAL(3), 0}},
    [THEME_COPY_MATCH] = {"copy.match", {PAL(0), PAL(6), 0}},
    [THEME_HELP_TEXT] = {"help.text", {PAL(15), PAL(236), 0}},
    [THEME_HELP_KEY] = {"help.key", {PAL(11), PAL(236), THEME_ATTR_BOLD}},
};

const char *theme_slot_name(enum theme_slot slot)
{
	return slot < THEME_SLOT_COUNT ? theme_slots[slot].name : "?";
}

void theme_builtin_default(struct theme *theme)
{
	memset(theme, 0, sizeof *theme);
	snprintf(theme->name, sizeof theme->name, "default");
	for (int i = 0; i < THEME_SLOT_COUNT; i++)
		theme->slots[i] = theme_slots[i].fallback;
}

static const char *const color_names[16] = {
    "black",	  "red",	   "green",	  "yellow",	 "blue",	"magenta",
    "cyan",	  "white",	   "brightblack", "brightred",	 "brightgreen", "brightyellow",
    "brightblue", "brightmagenta", "brightcyan",  "brightwhite",
};

static bool parse_palette_index(const char *digits, struct theme_color *out)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)digits[0]))
		return false;
	errno = 0;
	n = strtol(digits, &end, 10);
	if (*end != 0 || errno != 0 || n < 0 || n > 255)
		return false;
	out->kind = THEME_COLOR_PALETTE;
	out->index = (uint8_t)n;
	return true;
}

static bool parse_hex_color(const char *spec, struct theme_color *out)
{
	unsigned value = 0;

	if (strlen(spec) != 7)
		return false;
	for (int i = 1; i < 7; i++) {
		if (!isxdigit((unsigned char)spec[i]))
			return false;
		value = value * 16 + (unsigned)(isdigit((unsigned char)spec[i])
						    ? spec[i] - '0'
						    : tolower((unsigned char)spec[i]) - 'a' + 10);
	}
	out->kind = THEME_COLOR_RGB;
	out->r = (uint8_t)(value >> 16);
	out->g = (uint8_t)(value >> 8);
	out->b = (uint8_t)value;
	return true;
}

bool theme_parse_color(const char *spec, struct theme_color *out)
{
	char folded[32];
	size_t n = 0;

	memset(out, 0, sizeof *out);
	if (spec[0] == '#')
		return parse_hex_color(spec, out);
	if (!isalpha((unsigned char)spec[0]))
		return parse_palette_index(spec, out);
	/* Names are matched ignoring case and the separators people use
	 * ("bright-red", "Bright_Red"). */
	for (const char *p = spec; *p != 0; p++) {
		if (*p == '-' || *p == '_' || *p == ' ')
			continue;
		if (n + 1 >= sizeof folded)
			return false;
		folded[n++] = (char)tolower((unsigned char)*p);
	}
	folded[n] = 0;
	if (strcmp(folded, "default") == 0) {
		out->kind = THEME_COLOR_DEFAULT;
		return true;
	}
	for (int i = 0; i < 16; i++) {
		if (strcmp(folded, color_names[i]) == 0) {
			out->kind = THEME_COLOR_PALETTE;
			out->index = (uint8_t)i;
			return true;
		}
	}
	if (strncmp(folded, "colour", 6) == 0)
		return parse_palette_index(folded + 6, out);
	if (strncmp(folded, "color", 5) == 0)
		return parse_palette_index(folded + 5, out);
	return parse_palette_index(folded, out);
}

static int find_slot(const char *dotted)
{
	for (int i = 0; i < THEME_SLOT_COUNT; i++)
		if (strcmp(theme_slots[i].name, dotted) == 0)
			return i;
	return -1;
}

static bool slot_group_exists(const char *group)
{
	size_t len = strlen(group);

	for (int i = 0; i < THEME_SLOT_COUNT; i++)
		if (strncmp(theme_slots[i].name, group, len) == 0 &&
		    theme_slots[i].name[len] == '.')
			return true;
	return false;
}

static int parse_color_field(const cJSON *item, const char *source, const char *field,
			     struct theme_color *out, struct sm_error *err)
{
	char digits[8];

	if (cJSON_IsNumber(item)) {
		snprintf(digits, sizeof digits, "%d", item->valueint);
		if (item->valuedouble == (double)item->valueint && parse_palette_index(digits, out))
			return 0;
		sm_error_set(err, SM_ERR_THEME_INVALID, "%s: field %s: palette index must be 0..255",
			     source, field);
		return -1;
	}
	if (!cJSON_IsString(item)) {
		sm_error_set(err, SM_ERR_THEME_INVALID,
			     "%s: field %s: a colour must be a string or a number", source, field);
		return -1;
	}
	if (!theme_parse_color(item->valuestring, out)) {
		sm_error_set(err, SM_ERR_THEME_INVALID,
			     "%s: field %s: unknown colour \"%s\" (use a name, colourN or #rrggbb)",
			     source, field, item->valuestring);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned bit;
} style_attrs[] = {
    {"bold", THEME_ATTR_BOLD},	     {"dim", THEME_ATTR_DIM},
    {"italic", THEME_ATTR_ITALIC},   {"underline", THEME_ATTR_UNDERLINE},
    {"reverse", THEME_ATTR_REVERSE}, {"blink", THEME_ATTR_BLINK},
};

static int parse_style_member(const cJSON *member, const char *source, const char *slot_name,
			      struct theme_style *style, struct sm_error *err)
{
	char field[128];

	if (snprintf(field, sizeof field, "%s.%s", slot_name, member->string) >= (int)sizeof field)
		field[sizeof field - 1] = 0; /* a name that long is reported cut short */
	if (strcmp(member->string, "fg") == 0)
		return parse_color_field(member, source, field, &style->fg, err);
	if (strcmp(member->string, "bg") == 0)
		return parse_color_field(member, source, field, &style->bg, err);
	for (size_t i = 0; i < sizeof style_attrs / sizeof style_attrs[0]; i++) {
		if (strcmp(member->string, style_attrs[i].name) != 0)
			continue;
		if (!cJSON_IsBool(member)) {
			sm_error_set(err, SM_ERR_THEME_INVALID, "%s: field %s: must be true or false",
				     source, field);
			return -1;
		}
		if (cJSON_IsTrue(member))
			style->attrs |= style_attrs[i].bit;
		else
			style->attrs &= ~style_attrs[i].bit;
		return 0;
	}
	sm_error_set(err, SM_ERR_THEME_INVALID,
		     "%s: unknown field %s (a style has fg, bg, bold, dim, italic, underline, "
		     "reverse, blink)",
		     source, field);
	return -1;
}

/* A style is an object, or a bare colour as shorthand for its foreground.
 * An object replaces the whole default style, so a theme states exactly
 * what it wants rather than inheriting stray attributes. */
static int parse_style(const cJSON *item, const char *source, const char *slot_name,
		       struct theme_style *style, struct sm_error *err)
{
	const cJSON *member;
	struct theme_style parsed = {{0}, {0}, 0};

	if (cJSON_IsString(item) || cJSON_IsNumber(item)) {
		if (parse_color_field(item, source, slot_name, &parsed.fg, err) != 0)
			return -1;
		*style = parsed;
		return 0;
	}
	if (!cJSON_IsObject(item)) {
		sm_error_set(err, SM_ERR_THEME_INVALID,
			     "%s: field %s: a style must be an object or a colour", source,
			     slot_name);
		return -1;
	}
	cJSON_ArrayForEach(member, item)
	{
		if (parse_style_member(member, source, slot_name, &parsed, err) != 0)
			return -1;
	}
	*style = parsed;
	return 0;
}

static int parse_group(const cJSON *group, const char *source, struct theme *theme,
		       struct sm_error *err)
{
	const cJSON *member;
	char dotted[128];
	int slot;

	if (!cJSON_IsObject(group)) {
		sm_error_set(err, SM_ERR_THEME_INVALID, "%s: field %s: must be an object of styles",
			     source, group->string);
		return -1;
	}
	cJSON_ArrayForEach(member, group)
	{
		snprintf(dotted, sizeof dotted, "%s.%s", group->string, member->string);
		if ((slot = find_slot(dotted)) < 0) {
			sm_error_set(err, SM_ERR_THEME_INVALID, "%s: unknown field %s", source, dotted);
			return -1;
		}
		if (parse_style(member, source, dotted, &theme->slots[slot], err) != 0)
			return -1;
	}
	return 0;
}

/* Line number of a byte offset, for parse errors people can find. */
static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at && *p != 0; p++)
		if (*p == '\n')
			line++;
	return line;
}

int theme_parse(const char *json, const char *source, struct theme *theme, struct sm_error *err)
{
	struct theme parsed;
	const char *error_at = NULL;
	cJSON *root = cJSON_ParseWithOpts(json, &error_at, true);
	const cJSON *member;
	int rc = 0;

	theme_builtin_default(&parsed);
	if (root == NULL || !cJSON_IsObject(root)) {
		sm_error_set(err, SM_ERR_THEME_PARSE_ERROR, "%s: line %d: not a JSON object", source,
			     error_at ? line_of(json, error_at) : 1);
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(member, root)
	{
		if (strcmp(member->string, "name") == 0 ||
		    strcmp(member->string, "description") == 0) {
			if (!cJSON_IsString(member)) {
				sm_error_set(err, SM_ERR_THEME_INVALID, "%s: field %s: must be a string",
					     source, member->string);
				rc = -1;
				break;
			}
			if (strcmp(member->string, "name") == 0)
				snprintf(parsed.name, sizeof parsed.name, "%s",
					 member->valuestring);
			continue;
		}
		if (!slot_group_exists(member->string)) {
			sm_error_set(err, SM_ERR_THEME_INVALID,
				     "%s: unknown field %s (groups: border, label, title, status, "
				     "banner, copy, help)",
				     source, member->string);
			rc = -1;
			break;
		}
		if ((rc = parse_group(member, source, &parsed, err)) != 0)
			break;
	}
	cJSON_Delete(root);
	if (rc == 0)
		*theme = parsed;
	return rc;
}

/* Read a whole small file; NULL with err set on failure. */
static char *read_small_file(const char *path, const char *what, struct sm_error *err)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t len;

	if (f == NULL) {
		sm_error_set(err, errno == ENOENT ? SM_ERR_THEME_NOT_FOUND : SM_ERR_THEME_READ_ERROR,
			     "%s: %s: %s", what, path, strerror(errno));
		return NULL;
	}
	text = xmalloc(THEME_FILE_MAX + 1);
	len = fread(text, 1, THEME_FILE_MAX + 1, f);
	fclose(f);
	if (len > THEME_FILE_MAX) {
		free(text);
		sm_error_set(err, SM_ERR_THEME_READ_ERROR, "%s: %s: larger than %d bytes", what, path,
			     THEME_FILE_MAX);
		return NULL;
	}
	text[len] = 0;
	return text;
}

int theme_load_file(const char *path, struct theme *theme, struct sm_error *err)
{
	char *text = read_small_file(path, "theme", err);
	int rc;

	if (text == NULL)
		return -1;
	rc = theme_parse(text, path, theme, err);
	free(text);
	if (rc == 0)
		snprintf(theme->path, sizeof theme->path, "%s", path);
	return rc;
}

static bool is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The three directories searched for a theme name, in order. */
static int theme_search_dirs(char dirs[3][PATH_MAX])
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	const char *share = getenv("SANDMUX_THEMES");
	char exe[PATH_MAX];
	int n = 0;

	if (xdg != NULL && xdg[0] == '/')
		snprintf(dirs[n++], PATH_MAX, "%s/sandmux/themes", xdg);
	else if (home != NULL && home[0] != 0)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/sandmux/themes", home);
	snprintf(dirs[n++], PATH_MAX, "%s",
		 share != NULL && share[0] != 0 ? share : THEME_SHARE_DIR);
	/* Running from a build tree: build/sandmux finds ../themes. */
	if (os_self_exe(exe, sizeof exe) == 0) {
		char *slash;

		for (int up = 0; up < 2 && (slash = strrchr(exe, '/')) != NULL; up++)
			*slash = 0;
		if (snprintf(dirs[n], PATH_MAX, "%s/themes", exe[0] ? exe : "") < PATH_MAX)
			n++;
	}
	return n;
}

static bool theme_name_is_path(const char *name)
{
	size_t len = strlen(name);

	return strchr(name, '/') != NULL || (len > 5 && strcmp(name + len - 5, ".json") == 0);
}

int theme_resolve(const char *name_or_path, char *path, size_t size, struct sm_error *err)
{
	char dirs[3][PATH_MAX];
	char searched[3 * PATH_MAX + 16] = "";
	int ndirs;

	if (name_or_path == NULL || name_or_path[0] == 0) {
		sm_error_set(err, SM_ERR_THEME_NOT_FOUND, "theme: empty theme name");
		return -1;
	}
	if (theme_name_is_path(name_or_path)) {
		if (!is_regular_file(name_or_path)) {
			sm_error_set(err, SM_ERR_THEME_NOT_FOUND, "theme: %s: no such file",
				     name_or_path);
			return -1;
		}
		snprintf(path, size, "%s", name_or_path);
		return 0;
	}
	ndirs = theme_search_dirs(dirs);
	for (int i = 0; i < ndirs; i++) {
		char candidate[PATH_MAX + 300];

		if (snprintf(candidate, sizeof candidate, "%s/%s.json", dirs[i], name_or_path) >=
		    (int)sizeof candidate)
			continue;
		if (is_regular_file(candidate)) {
			snprintf(path, size, "%s", candidate);
			return 0;
		}
		if (i > 0)
			strcat(searched, ", ");
		strcat(searched, dirs[i]);
	}
	sm_error_set(err, SM_ERR_THEME_NOT_FOUND, "theme \"%s\" not found (searched %s)", name_or_path,
		     searched);
	return -1;
}

int theme_load(const char *name_or_path, struct theme *theme, struct sm_error *err)
{
	char path[PATH_MAX];

	theme_builtin_default(theme);
	if (name_or_path == NULL || name_or_path[0] == 0)
		return 0;
	if (theme_resolve(name_or_path, path, sizeof path, err) != 0)
		return strcmp(name_or_path, "default") == 0 ? 0 : -1;
	if (theme_load_file(path, theme, err) != 0) {
		theme_builtin_default(theme);
		return -1;
	}
	return 0;
}

#define PALETTE(i) {THEME_COLOR_PALETTE, (i), 0, 0, 0}

struct theme_style theme_event_style(const char *kind, const char *action)
{
	static const struct {
		const char *name;
		struct theme_style style;
	} by_kind[] = {
	    {"error", {PALETTE(15), PALETTE(1), 0}},
	    {"flood", {PALETTE(15), PALETTE(1), 0}},
	    {"policy-grant", {PALETTE(2), {0}, THEME_ATTR_BOLD}},
	    {"policy-ask", {PALETTE(3), {0}, THEME_ATTR_BOLD | THEME_ATTR_REVERSE}},
	},
	  by_action[] = {
	      {"file-read*", {PALETTE(1), {0}, THEME_ATTR_BOLD}},
	      {"file-write*", {PALETTE(3), {0}, THEME_ATTR_BOLD}},
	      {"file-write-create", {PALETTE(5), {0}, THEME_ATTR_BOLD}},
	      {"network-outbound", {PALETTE(6), {0}, THEME_ATTR_BOLD}},
	      {"process-exec", {PALETTE(4), {0}, THEME_ATTR_BOLD}},
	  };

	for (size_t i = 0; kind != NULL && i < sizeof by_kind / sizeof by_kind[0]; i++)
		if (strcmp(by_kind[i].name, kind) == 0)
			return by_kind[i].style;
	for (size_t i = 0; action != NULL && i < sizeof by_action / sizeof by_action[0]; i++)
		if (strcmp(by_action[i].name, action) == 0)
			return by_action[i].style;
	return (struct theme_style){.attrs = THEME_ATTR_DIM};
}

static size_t theme_style_sgr(const struct theme_style *st, char *out, size_t size)
{
	struct term_style style = {
	    .fg = {st->fg.kind, st->fg.index, st->fg.r, st->fg.g, st->fg.b},
	    .bg = {st->bg.kind, st->bg.index, st->bg.r, st->bg.g, st->bg.b},
	    .attrs = (uint8_t)st->attrs,
	};

	return term_style_sgr(&style, out, size);
}

void theme_put_sgr(FILE *f, const struct theme_style *st)
{
	char sgr[TERM_SGR_MAX];

	fwrite(sgr, 1, theme_style_sgr(st, sgr, sizeof sgr), f);
}
