/*
 * main: global options (-L NAME, -v) and the verb, looked up in the one
 * command table (command.h).  With no verb, sandmux attaches to the
 * default session, starting the server and a session when none exists,
 * as tmux does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "error.h"
#include "command.h"
#include "xalloc.h"

static void main_usage(FILE *out)
{
	fprintf(out, "usage: sandmux [-L NAME] [-v] [VERB [ARGS...]]\n\nverbs:\n");
	command_print_list(out, false, CMD_CLI);
	fprintf(out, "\nsandmux VERB --help shows a verb's options; sandmux list-commands also\n"
		     "lists the commands of the : prompt and key bindings.\n");
}

int main(int argc, char **argv)
{
	const struct command_entry *verb;
	int i = 1;

	/* cJSON's allocations fail the way every other one does (xalloc.h). */
	cJSON_InitHooks(&(cJSON_Hooks){ .malloc_fn = xmalloc, .free_fn = free });

	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "-L") == 0 && i + 1 < argc) {
			snprintf(cli_server_name, sizeof cli_server_name, "%s", argv[i + 1]);
			cli_server_named = true;
			i += 2;
		} else if (strcmp(argv[i], "-v") == 0) {
			cli_verbose++;
			i++;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			main_usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--check-config") == 0) {
			break;
		} else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
			printf("sandmux 0.1\n");
			return 0;
		} else {
			fprintf(stderr, "sandmux: unknown option %s\n", argv[i]);
			main_usage(stderr);
			return 2;
		}
	}
	if (i == argc) {
		cli_attach_may_create = true;
		return cli_run(cli_find_verb("attach"), 1, (char *[]){ "attach", NULL });
	}
	verb = cli_find_verb(argv[i]);
	if (verb == NULL) {
		/* One line, as tmux's "unknown command", not the whole usage. */
		fprintf(stderr, "sandmux: unknown command: %s (%s); sandmux --help lists them\n",
			argv[i], SM_ERR_UNKNOWN_COMMAND);
		return 2;
	}
	return cli_run(verb, argc - i, argv + i);
}
