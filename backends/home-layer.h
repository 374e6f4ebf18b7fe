/*
 * home-layer: the copy-on-write home of a profile that makes $HOME
 * writable.
 *
 * Why it exists: what the host runs later lives in $HOME (shell startup
 * files, tool and editor config, plugins, PATH directories, caches that
 * hold code), and no list of those names ever ends.  So a pane never
 * writes the host's $HOME in place: it sees the host's files through an
 * overlay whose upper layer is kept in sandmux's state directory, one per
 * profile (STATE/home-layer/PROFILE/{upper,work}), shared by that
 * profile's panes and kept after they end.  The working directory and
 * the profile's writable roots stay real (written in place); when the
 * working directory is $HOME itself, every entry of $HOME but the
 * dot-entries does.  The host gets a file from the layer only when the
 * user keeps it (`sandmux changes`, `sandmux keep`).
 *
 * The mount itself is made by the shim's --home-layer step before bwrap
 * (backends/native-inside/shim-home.c); this module decides the layout, builds that step's
 * argv, and reads a layer against the host for the CLI.
 */
#ifndef SANDMUX_HOME_LAYER_H
#define SANDMUX_HOME_LAYER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "strvec.h"

struct sm_error;

/* Where the layers live (STATE/home-layer); set once by the server or
 * the CLI.  Until it is set, a layer cannot be had. */
void home_layer_set_root(const char *dir);

/* The layer directory of a profile (ROOT/PROFILE), made with its upper
 * directory (mode 0700) when mkdirs.  0, or -1 with err
 * (launch_failed: no root, a profile name that is not a plain name, or
 * the directories cannot be made). */
int home_layer_dir(const char *profile, bool mkdirs, char *out, size_t size,
		   struct sm_error *err);

/* The real roots inside home (resolved): cwd when it lies inside home,
 * each writable root inside home, and, when cwd is home itself, each
 * entry of home that is not a dot-entry and not a symlink.  Pushed onto
 * out.  0, or -1 out of memory. */
int home_layer_real_roots(const char *home, const char *cwd, const struct strvec *writable,
			  struct strvec *out);

/* Does path (absolute, resolved) lie in the layer: inside home and in
 * none of the real roots? */
bool home_layer_holds(const char *home, const struct strvec *real, const char *path);

/* A work directory of its own for one mount (LAYER/work.PID.XXXXXX),
 * removing those of servers that are gone; *out is the caller's to
 * free.  0, or -1 with err.  Removed again with home_layer_work_remove
 * once the sandbox is gone. */
int home_layer_work_new(const char *layer, char **out, struct sm_error *err);
void home_layer_work_remove(const char *work);

/* Can the copy-on-write home be mounted here?  The probe (probe.c)
 * runs the shim's real --home-layer step (the launch's own code) over a
 * scratch home and layer under the layer root, with /bin/true as its
 * command: a kernel without overlayfs, a state directory whose file
 * system cannot be an upper layer, or user namespaces that allow no
 * mount all show there, once, at the server's start.  start makes the
 * scratch directories and the argv (0, or -1 with the reason); end
 * removes them, whatever start returned. */
struct home_layer_probe {
	char dir[PATH_MAX];
	char *work;
	struct strvec argv;
};
int home_layer_probe_start(struct home_layer_probe *p, char *reason, size_t size);
void home_layer_probe_end(struct home_layer_probe *p);

/* How many sandboxes of a live server may have the layer mounted
 * (home_layer_discard asks; exported for tests). */
int home_layer_in_use(const char *layer);

/* How many files, links and deletions the profile's layer got since
 * `since` (their ctime): what a pane of the profile changed in its home
 * while it ran (panes of the profile side by side count together).
 * The walk runs on the server's loop when a pane ends, so it looks at
 * HOME_LAYER_COUNT_MAX entries at most; *more is then true and the
 * count a lower bound.  -1 when the layer cannot be read. */
#define HOME_LAYER_COUNT_MAX 20000
int home_layer_changed_since(const char *profile, time_t since, bool *more);

/* out = prefix + [--home-layer, home, layer, work, --real R..., --] + command.
 * 0, or -1 out of memory. */
int home_layer_argv(const char *const *prefix, size_t nprefix, const char *home,
		    const char *layer, const char *work, const struct strvec *real,
		    char *const *command, struct strvec *out);

/* What a layer holds against the host. */
enum home_change_kind { HOME_ADDED, HOME_CHANGED, HOME_DELETED };

struct home_change {
	char *path; /* relative to home */
	enum home_change_kind kind;
	bool is_dir;
	bool host_run; /* the host runs or reads it as config (hostrun.h) */
};

struct home_changes {
	struct home_change *v;
	size_t n, cap;
};

/* Walk layer/upper against home, in path order.  0, or -1 with err. */
int home_layer_changes(const char *layer, const char *home, struct home_changes *out,
		       struct sm_error *err);
void home_changes_free(struct home_changes *c);

const char *home_change_kind_name(enum home_change_kind kind);

/* Copy rel (relative to home) from the layer to the host: a file or
 * symlink replaces the host's (through a temporary file and rename), a
 * deletion removes the host's, a directory is made.  0, or -1 with err
 * (not_in_layer when the layer holds nothing there). */
int home_layer_keep(const char *layer, const char *home, const char *rel, struct sm_error *err);

/* Empty the layer's upper directory.  0, or -1 with err (invalid_state
 * while a sandbox may have it mounted). */
int home_layer_discard(const char *layer, struct sm_error *err);

#endif
