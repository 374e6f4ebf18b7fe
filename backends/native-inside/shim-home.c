/*
 * shim-home: the copy-on-write home, mounted before bwrap starts.
 *
 *   sandmux-shim --home-layer HOME LAYER WORK [--real PATH]... -- BWRAP ARGS...
 *
 * A profile that makes $HOME writable gives the pane an overlay of it
 * (backends/home-layer.h says why): the pane reads the host's files, and
 * what it writes lands in LAYER/upper, a directory sandmux keeps in its
 * state directory, never in the host's home.  bwrap 0.8.0 has no overlay
 * option and drops every capability before the command runs, so this
 * step runs first, on the host side of bwrap:
 *
 *   1. a mount namespace of its own (and, for a server not run as root,
 *      a user namespace where the user keeps its uid and gid: what an
 *      unprivileged user needs to mount an overlay), with every mount
 *      private, so nothing mounted here is seen by the host;
 *   2. each PATH given with --real (the pane's working directory and the
 *      profile's writable roots inside $HOME, or, when the working
 *      directory is $HOME itself, each entry of it that is not a
 *      dot-entry) is cloned as it is on the host, before the overlay
 *      covers it;
 *   3. the overlay: lower HOME as the host has it, upper LAYER/upper,
 *      work directory WORK (one per mount, made by the server: overlayfs
 *      empties it when it mounts); LAYER is first bound over itself, so
 *      that the kernel's check that no layer lies inside another stops
 *      at it (seen through the overlay, the layer's directories then
 *      fail with ELOOP: the pane cannot reach its own layer's storage);
 *   4. the clones are put back over their own paths inside the overlay:
 *      writes there reach the host at once, as they would without it;
 *   5. bwrap runs in this namespace; its --ro-bind / / and --bind HOME
 *      take the overlay along, and its deny masks go on top of it.
 *
 * Every failure is loud: the step prints why and exits 126, and the
 * server marks the pane FAILED.  A pane never gets the host's own home
 * writable in place of the layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim-home.h"

#define HOME_LAYER_FAILED 126
#define HOME_LAYER_MAX_REAL 4096

static void layer_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("sandmux home layer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(HOME_LAYER_FAILED);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		layer_fail("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/* Threat: the overlay's mounts reaching the host.  A new mount namespace,
 * every mount in it private: what is mounted here propagates nowhere.
 * An unprivileged server needs a user namespace to mount at all; its map
 * is the identity for the one uid and gid, so files the pane creates in
 * real roots still belong to the user, and setgroups is denied as the
 * kernel requires for an unprivileged gid map. */
static void enter_namespace(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (uid == 0) {
		if (unshare(CLONE_NEWNS) != 0)
			layer_fail("cannot make a mount namespace: %s", strerror(errno));
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			layer_fail("cannot make a user and mount namespace: %s", strerror(errno));
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		layer_fail("cannot make the mounts private: %s", strerror(errno));
}

static int clone_tree(const char *path)
{
	return (int)syscall(SYS_open_tree, AT_FDCWD, path,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
}

static void attach_tree(int tree, const char *path)
{
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		layer_fail("cannot mount %s: %s", path, strerror(errno));
	close(tree);
}

/* overlayfs splits its options at ',' and lowerdir at ':', and takes
 * '\\' as an escape: a path holding one is refused, not mangled. */
static bool option_safe(const char *path)
{
	return path[0] == '/' && strpbrk(path, ",:\\") == NULL;
}

/* Threat: the pane changing what the host runs later (shell startup
 * files, tool config, PATH directories, plugins, caches with code):
 * every write under $HOME but the real roots lands in the layer.
 * userxattr: the layer's own marks (opaque directories) are user.*
 * attributes, the kind an unprivileged user may set, so one layer works
 * for a server run as root and as a user alike. */
static void mount_overlay(const char *home, const char *layer, const char *work)
{
	char opts[3 * 4096 + 64];
	int tree = clone_tree(layer);

	if (tree < 0)
		layer_fail("cannot open the layer %s: %s", layer, strerror(errno));
	attach_tree(tree, layer);
	if ((size_t)snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s/upper,workdir=%s,userxattr",
			     home, layer, work) >= sizeof opts)
		layer_fail("the paths of %s and %s are too long", home, layer);
	if (mount("overlay", home, "overlay", MS_NOSUID | MS_NODEV, opts) != 0)
		layer_fail("cannot mount the copy-on-write home over %s: %s", home, strerror(errno));
}

int shim_home_main(int argc, char **argv)
{
	static int trees[HOME_LAYER_MAX_REAL];
	const char *home, *layer, *work;
	int i = 5, nreal = 0;

	if (argc < 7 || strcmp(argv[1], "--home-layer") != 0) {
		fprintf(stderr, "usage: sandmux shim --home-layer HOME LAYER WORK [--real PATH]... -- "
				"COMMAND...\n");
		return 2;
	}
	home = argv[2];
	layer = argv[3];
	work = argv[4];
	if (!option_safe(home) || !option_safe(layer) || !option_safe(work))
		layer_fail("cannot layer %s with %s: a path must be absolute and hold no ',' ':' or '\\'",
			   home, layer);
	enter_namespace();
	for (; i + 1 < argc && strcmp(argv[i], "--real") == 0; i += 2) {
		if (argv[i + 1][0] != '/' || nreal == HOME_LAYER_MAX_REAL)
			layer_fail("bad real root %s", argv[i + 1]);
		trees[nreal] = clone_tree(argv[i + 1]);
		if (trees[nreal] < 0)
			layer_fail("cannot open %s: %s", argv[i + 1], strerror(errno));
		nreal++;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0)
		layer_fail("no command after the layer's arguments");
	mount_overlay(home, layer, work);
	for (int r = 0; r < nreal; r++)
		attach_tree(trees[r], argv[5 + 2 * r + 1]);
	execvp(argv[i + 1], argv + i + 1);
	layer_fail("cannot run %s: %s", argv[i + 1], strerror(errno));
	return HOME_LAYER_FAILED;
}
