/*
 * jsonl: one JSON object as one line (see jsonl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonl.h"
#include "xalloc.h"

char *jsonl_line(const cJSON *msg, size_t *len)
{
	char *text = cJSON_PrintUnformatted(msg);
	size_t n;

	if (text == NULL)
		text = xstrdup("{}"); /* cJSON fails only on memory, which aborts first */
	n = strlen(text);
	text = xrealloc(text, n + 2);
	text[n] = '\n';
	text[n + 1] = '\0';
	*len = n + 1;
	return text;
}

int jsonl_put(FILE *f, const cJSON *msg)
{
	size_t len;
	char *line = jsonl_line(msg, &len);
	int rc = fwrite(line, 1, len, f) == len ? 0 : -1;

	free(line);
	return rc;
}
