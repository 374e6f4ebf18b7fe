/*
 * paths: where sandmux keeps its socket, log and state.
 *
 * The socket lives in $XDG_RUNTIME_DIR/sandmux/ (or /tmp/sandmux-UID/):
 * the directory is 0700 and must be owned by us, so another local user
 * cannot plant a socket we would then talk to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof buf)
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int paths_check_private_dir(const char *dir, struct sm_error *err)
{
	struct stat st;

	if (mkdir_p(dir, 0700) < 0 || stat(dir, &st) < 0) {
		sm_error_set(err, SM_ERR_SOCKET_DIR, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != getuid()) {
		sm_error_set(err, SM_ERR_SOCKET_DIR, "%s is owned by uid %u, not by us", dir,
			     (unsigned)st.st_uid);
		return -1;
	}
	if ((st.st_mode & 077) != 0 && chmod(dir, 0700) < 0) {
		sm_error_set(err, SM_ERR_SOCKET_DIR, "%s is not private and cannot be fixed", dir);
		return -1;
	}
	return 0;
}

int paths_socket(const char *name, char *out, size_t size, struct sm_error *err)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char dir[PATH_MAX];

	if (strchr(name, '/') != NULL) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "server name must not contain '/'");
		return -1;
	}
	if (runtime != NULL && runtime[0] == '/')
		snprintf(dir, sizeof dir, "%s/sandmux", runtime);
	else
		snprintf(dir, sizeof dir, "/tmp/sandmux-%u", (unsigned)getuid());
	if (paths_check_private_dir(dir, err) < 0)
		return -1;
	if ((size_t)snprintf(out, size, "%s/%s", dir, name) >= size ||
	    strlen(out) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		sm_error_set(err, SM_ERR_SOCKET_PATH, "socket path too long: %s/%s", dir, name);
		return -1;
	}
	return 0;
}

int paths_state_dir(char *out, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (state != NULL && state[0] == '/')
		snprintf(out, size, "%s/sandmux", state);
	else
		snprintf(out, size, "%s/.local/state/sandmux", home ? home : "/tmp");
	return mkdir_p(out, 0700);
}

int paths_home_layer_root(char *out, size_t size)
{
	char state[PATH_MAX];
	int rc = paths_state_dir(state, sizeof state);

	snprintf(out, size, "%s/home-layer", state);
	return rc;
}
