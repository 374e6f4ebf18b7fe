/*
 * bwrap-argv: print, one per line, the bwrap argv the native backend
 * would run for the terminal profile, so shell tests can run the real
 * bwrap with exactly that policy.
 *
 *   bwrap-argv [--bwrap PATH] [--home DIR] [--cwd DIR] [--mask FILE]
 *              [--status-fd N] [--writable DIR]... [--deny PATH]... -- CMD...
 *
 * The deny list is the terminal profile's own, followed by any --deny.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwrap.h"
#include "error.h"

static void usage(void)
{
	fprintf(stderr, "usage: bwrap-argv [--bwrap PATH] [--home DIR] [--cwd DIR] "
			"[--mask FILE] [--status-fd N] [--writable DIR]... [--deny PATH]... "
			"-- CMD...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct strvec deny = STRVEC_INIT, writable = STRVEC_INIT, out = STRVEC_INIT;
	char cwd[4096];
	struct bwrap_input in = {
	    .bwrap = "bwrap",
	    .home = getenv("HOME"),
	    .cwd = getcwd(cwd, sizeof cwd),
	    .status_fd = -1,
	};
	struct sm_error err = {{0}, {0}};
	int i;

	for (size_t j = 0; bwrap_deny_read_defaults[j] != NULL; j++)
		strvec_push(&deny, bwrap_deny_read_defaults[j]);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (val == NULL)
			usage();
		if (strcmp(opt, "--bwrap") == 0)
			in.bwrap = val;
		else if (strcmp(opt, "--home") == 0)
			in.home = val;
		else if (strcmp(opt, "--cwd") == 0)
			in.cwd = val;
		else if (strcmp(opt, "--mask") == 0)
			in.mask_file = val;
		else if (strcmp(opt, "--status-fd") == 0)
			in.status_fd = atoi(val);
		else if (strcmp(opt, "--writable") == 0)
			strvec_push(&writable, val);
		else if (strcmp(opt, "--deny") == 0)
			strvec_push(&deny, val);
		else
			usage();
	}
	if (i >= argc - 1)
		usage();
	in.argv = argv + i + 1;
	in.deny_read = (const char *const *)deny.v;
	in.writable = (const char *const *)writable.v;
	if (bwrap_build_argv(&in, &out, &err) != 0) {
		fprintf(stderr, "bwrap-argv: %s: %s\n", err.code, err.message);
		return 1;
	}
	for (size_t j = 0; j < out.n; j++)
		puts(out.v[j]);
	strvec_free(&out);
	strvec_free(&deny);
	strvec_free(&writable);
	return 0;
}
