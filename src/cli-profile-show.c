/*
 * cli-profile-show: `sandmux profile show NAME [OPTIONS]` on the command
 * line: the verb's words made the "profile-show" request (profile-show.c
 * answers it in the server), and its lines printed through the one
 * sanitiser (config text and paths are not sandmux's to trust on a
 * terminal).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "command.h"
#include "sanitise.h"
#include "xalloc.h"

void cli_print_profile_show(struct command_parsed *parsed, const cJSON *result, FILE *out)
{
	const cJSON *line;

	(void)parsed;
	cJSON_ArrayForEach(line, cJSON_GetObjectItem(result, "lines"))
	{
		sanitise_fputs(cJSON_GetStringValue(line), out);
		fputc('\n', out);
	}
}

/* `sandmux profile show NAME [OPTIONS]` is `sandmux profile-show
 * [OPTIONS] NAME` (options first, as the command parser reads them),
 * with the caller's directory as the work tree unless -c names one. */
int verb_profile_show(int argc, char **argv)
{
	char cwd[PATH_MAX], **args = xcalloc((size_t)argc + 4, sizeof *args);
	char **words = xcalloc((size_t)argc + 1, sizeof *words);
	bool has_cwd = false;
	int n = 0, nwords = 0, rc = 1;

	args[n++] = "profile-show";
	for (int i = 1; i < argc; i++) {
		bool takes_value = strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--cwd") == 0 ||
				   strcmp(argv[i], "--platform") == 0;

		has_cwd |= strcmp(argv[i], "-c") == 0 || strncmp(argv[i], "--cwd", 5) == 0;
		if (argv[i][0] != '-') {
			words[nwords++] = argv[i];
			continue;
		}
		args[n++] = argv[i];
		if (takes_value && i + 1 < argc)
			args[n++] = argv[++i];
	}
	if (!has_cwd && getcwd(cwd, sizeof cwd) != NULL) {
		args[n++] = "-c";
		args[n++] = cwd;
	}
	for (int i = 0; i < nwords; i++)
		args[n++] = words[i];
	rc = cli_run(command_find("profile-show", CMD_CLI), n, args);
	free(args);
	free(words);
	return rc;
}
