/* jsonl-check FILE: exit 0 when every line of FILE is a JSON object and
 * the file ends with a newline; otherwise print the first bad line's
 * number and text and exit 1.  Used on the durable event log after
 * crashes and a full disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0, bad = 0;

	if (f == NULL) {
		perror("jsonl-check");
		return 2;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *json;
		lineno++;
		if (line[n - 1] != '\n') {
			printf("line %ld: no newline at the end of the file: %.200s\n", lineno, line);
			bad++;
			break;
		}
		line[n - 1] = '\0';
		json = cJSON_Parse(line);
		if (!cJSON_IsObject(json)) {
			printf("line %ld: not a JSON object: %.200s\n", lineno, line);
			bad++;
		}
		cJSON_Delete(json);
	}
	printf("%ld lines, %ld bad\n", lineno, bad);
	free(line);
	fclose(f);
	return bad == 0 ? 0 : 1;
}
