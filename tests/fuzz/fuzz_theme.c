/*
 * fuzz_theme: theme_parse (the JSON theme loader) and theme_parse_color
 * on arbitrary bytes.  A theme file is user-supplied and may be
 * downloaded; it must be refused with an error, never crash the client.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = malloc(size + 1);
	struct theme theme;
	struct theme_color color;
	struct sm_error err = { 0 };

	memcpy(json, data, size);
	json[size] = '\0';
	theme_builtin_default(&theme);
	theme_parse(json, "fuzz.json", &theme, &err);
	theme_parse_color(json, &color);
	free(json);
	return 0;
}
