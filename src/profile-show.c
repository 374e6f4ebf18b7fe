/*
 * profile-show: `sandmux profile show NAME [--platform linux|macos]`,
 * the effective rules of a profile (built in, a preset, or the
 * config's) as a pane started in DIR would get them.  On Linux: the
 * bwrap argv and the supervisor's lists and rules (native.c's
 * native_describe); on macOS: the SBPL text seatbelt.c would give
 * sandbox-exec.  One request, "profile-show", for the command line, the
 * prompt and the protocol, answered here by the server; its result is
 * lines of text, which the command line prints (cli-profile-show.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "cmd.h"
#include "error.h"
#include "hostrun.h"
#include "profile.h"
#include "seatbelt.h"
#include "server.h"
#include "strvec.h"

/* The rules shown when no --platform is given: this build's own. */
#ifdef __APPLE__
#define SANDMUX_PLATFORM "macos"
#else
#define SANDMUX_PLATFORM "linux"
#endif

/* The SBPL text, one line per entry of lines. */
static int show_macos(const struct sandbox_profile *prof, const char *home, const char *cwd,
		      cJSON *lines, struct sm_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct strvec host_run = STRVEC_INIT;
	struct seatbelt_input in = {
	    .profile = prof,
	    .home = home,
	    .cwd = cwd,
	    /* The session's temp: TMPDIR, as a launch would set it. */
	    .session_tmp = tmp != NULL && tmp[0] == '/' ? tmp : "/tmp",
	};
	char *text = NULL, *line, *next;
	int rc = -1;

	if (hostrun_paths(home, server.environ, &host_run) != 0) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	in.host_run = (const char *const *)host_run.v;
	if (seatbelt_build_profile(&in, &text, err) != 0)
		goto done;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
	}
	if (prof->proxied_network)
		cJSON_AddItemToArray(lines, cJSON_CreateString("; the session's proxy ports are "
							       "allowed at launch"));
	rc = 0;
done:
	free(text);
	strvec_free(&host_run);
	return rc;
}

int cmd_profile_show(struct conn *c, const cJSON *req, cJSON *result, struct sm_error *err)
{
	const char *name = NULL, *platform = NULL, *cwd = NULL, *home = getenv("HOME");
	const struct sandbox_profile *prof;
	char header[PROFILE_NAME_MAX * 2 + 64], names[512];
	cJSON *lines;

	(void)c;
	if (cmd_get_string(req, "name", true, &name, err) < 0 ||
	    cmd_get_string(req, "platform", false, &platform, err) < 0 ||
	    cmd_get_string(req, "cwd", false, &cwd, err) < 0)
		return -1;
	if (platform == NULL)
		platform = SANDMUX_PLATFORM;
	if (strcmp(platform, "linux") != 0 && strcmp(platform, "macos") != 0) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "unknown platform '%.40s' (valid: linux, macos)", platform);
		return -1;
	}
	if ((prof = profile_find(name)) == NULL) {
		profile_names(names, sizeof names);
		sm_error_set(err, SM_ERR_INVALID_PROFILE, "unknown profile '%.40s' (valid: %s)",
			     name, names);
		return -1;
	}
	if (cwd == NULL)
		cwd = home;
	cJSON_AddStringToObject(result, "profile", prof->name);
	cJSON_AddStringToObject(result, "platform", platform);
	lines = cJSON_AddArrayToObject(result, "lines");
	snprintf(header, sizeof header, "%s profile %s: base %s, mode %s",
		 platform[0] == 'l' ? "#" : ";", prof->name, prof->base,
		 sandbox_mode_name(prof->mode));
	cJSON_AddItemToArray(lines, cJSON_CreateString(header));
	/* Never a rule set for what runs unrestricted. */
	if (prof->not_a_sandbox) {
		cJSON_AddItemToArray(lines, cJSON_CreateString("not a sandbox: a pane asking for "
							       "it runs as backend none, on the "
							       "host, with no rule"));
		return 0;
	}
	if (home == NULL || home[0] != '/' || cwd == NULL || cwd[0] != '/') {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT,
			     "profile show needs an absolute $HOME and working directory (-c DIR)");
		return -1;
	}
	if (strcmp(platform, "macos") == 0)
		return show_macos(prof, home, cwd, lines, err);
#ifndef __linux__
	/* The Linux rules are bubblewrap's argv and the supervisor's,
	 * which only a Linux build has. */
	sm_error_set(
	    err, SM_ERR_INVALID_ARGUMENT,
	    "--platform linux is shown by a Linux build of sandmux; here: --platform macos");
	return -1;
#else
	return native_describe(
	    &(struct launch_request){
		.spec = &(const struct sandbox_spec){.network_enabled = true,
						     .backend = SANDBOX_NATIVE,
						     .profile = (char *)prof->name,
						     .workdir = (char *)cwd,
						     .home = (char *)home,
						     .env = server.environ}},
	    lines, err);
#endif
}
