/*
 * test_config: config.json loading and key names.
 *
 * Config cases are tables of file text and what must come out: the
 * values, or the error code and a word the message must contain (the
 * offending key).  Key-name cases give a name as a person writes it and
 * the canonical spelling that must come out of it.
 */

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bindings.h"
#include "config.h"
#include "error.h"
#include "profile.h"

static char tmpdir[256];

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_config.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	setlocale(LC_ALL, "C.UTF-8");
	return 0;
}

static int teardown(void **state)
{
	char command[300];

	snprintf(command, sizeof command, "rm -rf %s", tmpdir);
	return system(command) == 0 ? 0 : -1;
}

static void test_defaults(void **state)
{
	struct config config;

	config_defaults(&config);
	assert_string_equal(config.prefix, "C-b");
	assert_string_equal(config.theme, "default");
	assert_true(config.status);
	assert_string_equal(config.status_left, "[#{session_name}] ");
	assert_string_equal(config.status_right, " %H:%M %d-%b ");
	assert_true(config.scrollback > 0);
	assert_string_equal(config.default_backend, "none");
	assert_false(config.default_backend_set);
	assert_false(config.inherit_backend);
	assert_int_equal(config.set_clipboard, CLIPBOARD_DEFAULT);
	assert_int_equal(config.nbindings, 0);
	config_free(&config);
}

static void test_good_config(void **state)
{
	const char *path = write_file(
	    "good.json",
	    "{\n"
	    "  \"prefix\": \"c-A\",\n"
	    "  \"theme\": \"light\",\n"
	    "  \"scrollback\": 5000,\n"
	    "  \"status\": false,\n"
	    "  \"status_left\": \"#S:#{pane_backend} \",\n"
	    "  \"status_right\": \"#{pane_current_path}\",\n"
	    "  \"default_shell\": \"/bin/zsh\",\n"
	    "  \"default_backend\": \"native\",\n"
	    "  \"inherit_backend\": true,\n"
	    "  \"set_clipboard\": \"off\",\n"
	    "  \"bindings\": {\"|\": \"split -h\", \"M-x\": \"kill-pane\", \"z\": \"\"},\n"
	    "  \"key_tables\": {\"copy-mode\": {\"c-n\": \"send-keys -X cursor-down\",\n"
	    "                 \"j\": null, \"x\": \"cancel\"}, \"prefix\": {\"Y\": \"zoom\"},\n"
	    "                 \"ask-mode\": {\"y\": \"allow\"}}\n"
	    "}\n");
	struct config config;
	struct sm_error err = {"", ""};

	config_defaults(&config);
	assert_int_equal(config_load(path, &config, &err), 0);
	assert_string_equal(config.prefix, "C-a");
	assert_string_equal(config.theme, "light");
	assert_int_equal(config.set_clipboard, CLIPBOARD_OFF);
	assert_int_equal(config.scrollback, 5000);
	assert_false(config.status);
	assert_string_equal(config.status_left, "#S:#{pane_backend} ");
	assert_string_equal(config.status_right, "#{pane_current_path}");
	assert_string_equal(config.default_shell, "/bin/zsh");
	assert_string_equal(config.default_backend, "native");
	assert_true(config.default_backend_set);
	assert_true(config.inherit_backend);
	assert_string_equal(config.bindings[0].key, "|");
	assert_string_equal(config.bindings[0].command, "split -h");
	assert_string_equal(config.bindings[1].key, "M-x");
	assert_string_equal(config.bindings[2].command, "");
	/* key_tables: the prefix's go with bindings, the modes' apart. */
	assert_int_equal(config.nbindings, 4);
	assert_string_equal(config.bindings[3].key, "Y");
	assert_int_equal(config.ntable_bindings, 4);
	assert_string_equal(config.table_bindings[0].table, "copy-mode");
	assert_string_equal(config.table_bindings[0].binding.key, "C-n");
	assert_string_equal(config.table_bindings[0].binding.command, "send-keys -X cursor-down");
	assert_string_equal(config.table_bindings[1].binding.command, "");
	assert_string_equal(config.table_bindings[2].binding.command, "cancel");
	assert_string_equal(config.table_bindings[3].table, "ask-mode");
	assert_string_equal(config.table_bindings[3].binding.command, "allow");
	config_free(&config);
}

struct bad_case {
	const char *text;
	const char *code;
	const char *mentions; /* the message must name this */
};

static const struct bad_case bad_cases[] = {
    {"{\"prefix\":\"C-b\",\"colour\":\"red\"}", "config_unknown_key", "\"colour\""},
    {"{\"set_clipboard\":\"always\"}", "config_invalid", "set_clipboard"},
    {"{\"defualt_backend\":\"native\"}", "config_unknown_key", "defualt_backend"},
    {"{\"scrollback\":\"lots\"}", "config_invalid", "scrollback"},
    {"{\"inherit_backend\":\"yes\"}", "config_invalid", "inherit_backend"},
    {"{\"scrollback\":1.5}", "config_invalid", "scrollback"},
    {"{\"scrollback\":-1}", "config_invalid", "scrollback"},
    {"{\"status\":1}", "config_invalid", "status"},
    {"{\"status_left\":1}", "config_invalid", "status_left"},
    {"{\"status_right\":[\"#S\"]}", "config_invalid", "status_right"},
    {"{\"theme\":42}", "config_invalid", "theme"},
    {"{\"theme\":\"\"}", "config_invalid", "theme"},
    {"{\"prefix\":\"Ctrl-b\"}", "config_invalid", "prefix"},
    {"{\"prefix\":7}", "config_invalid", "prefix"},
    {"{\"default_backend\":\"docker\"}", "config_invalid", "docker"},
    {"{\"default_shell\":\"zsh\"}", "config_invalid", "default_shell"},
    {"{\"bindings\":[\"split\"]}", "config_invalid", "bindings"},
    {"{\"bindings\":{\"x\":3}}", "config_invalid", "\"x\""},
    {"{\"bindings\":{\"NoSuchKey\":\"zoom\"}}", "config_invalid", "NoSuchKey"},
    {"{\"bindings\":{\"x\":\"explode-pane\"}}", "config_invalid", "explode-pane"},
    {"{\"bindings\":{\"x\":\"split -q\"}}", "config_invalid", "-q"},
    {"{\"key_tables\":{\"copy\":{\"x\":\"cancel\"}}}", "config_invalid", "copy-mode"},
    {"{\"key_tables\":{\"copy-mode\":{\"x\":\"zoom\"}}}", "config_invalid", "zoom"},
    {"{\"key_tables\":{\"copy-mode\":{\"Nope\":\"cancel\"}}}", "config_invalid", "Nope"},
    {"{\"key_tables\":{\"copy-mode\":{\"x\":1}}}", "config_invalid", "\"x\""},
    {"{\"key_tables\":{\"copy-mode\":[]}}", "config_invalid", "copy-mode"},
    /* The other modes' tables take their own commands, not another's. */
    {"{\"key_tables\":{\"ask-mode\":{\"y\":\"cursor-up\"}}}", "config_invalid", "ask-mode"},
    {"{\"key_tables\":{\"prompt\":{\"y\":\"allow\"}}}", "config_invalid", "prompt"},
    {"{\"key_tables\":{\"help-mode\":{\"y\":\"zoom\"}}}", "config_invalid", "zoom"},
    {"{\"key_tables\":{\"display-panes\":{\"y\":\"select-pane-10\"}}}", "config_invalid", "select-pane-10"},
    {"{\n\"prefix\": \"C-b\",\n\"status\": tru\n}", "config_parse_error", "line 3"},
    {"[1,2]", "config_parse_error", "object"},
    /* profiles: every field checked, the offending one named */
    {"{\"profiles\":[]}", "config_invalid", "profiles"},
    {"{\"profiles\":{\"p\":1}}", "config_invalid", "object"},
    {"{\"profiles\":{\"p\":{\"colour\":1}}}", "config_unknown_key", "colour"},
    {"{\"profiles\":{\"p\":{\"mode\":\"yolo\"}}}", "config_invalid", "mode"},
    {"{\"profiles\":{\"p\":{\"base\":\"docker\"}}}", "config_invalid", "base"},
    {"{\"profiles\":{\"p\":{\"network\":\"some\"}}}", "config_invalid", "network"},
    {"{\"profiles\":{\"p\":{\"home_writable\":\"yes\"}}}", "config_invalid", "home_writable"},
    {"{\"profiles\":{\"p\":{\"writable\":[\"relative/dir\"]}}}", "config_invalid", "writable"},
    {"{\"profiles\":{\"p\":{\"writable\":\"/one\"}}}", "config_invalid", "writable"},
    {"{\"profiles\":{\"p\":{\"protected_paths\":[7]}}}", "config_invalid", "protected_paths"},
    {"{\"profiles\":{\"p\":{\"deny_create_patterns\":[\"a/b\"]}}}", "config_invalid", "deny_create_patterns"},
    {"{\"profiles\":{\"p\":{\"write_denies\":[\"../up\"]}}}", "config_invalid", "write_denies"},
    {"{\"profiles\":{\"p\":{\"write_denies\":[\"/abs\"]}}}", "config_invalid", "write_denies"},
    {"{\"profiles\":{\"p\":{\"pass_env\":[\"A=B\"]}}}", "config_invalid", "pass_env"},
    {"{\"profiles\":{\"p\":{\"egress_allowlist\":[\"https://x.test/\"]}}}", "config_invalid", "egress_allowlist"},
    {"{\"profiles\":{\"p\":{\"egress_allowlist\":[\"x.test:443\"]}}}", "config_invalid", "egress_allowlist"},
    {"{\"profiles\":{\"p\":{\"egress_allowlist\":\"x.test\"}}}", "config_invalid", "egress_allowlist"},
    {"{\"profiles\":{\"p\":{\"network\":\"asked\"}}}", "config_invalid", "network"},
    {"{\"profiles\":{\"p\":{\"exec_interpreters\":[\"python3\"]}}}", "config_invalid", "exec_interpreters"},
    {"{\"profiles\":{\"p\":{\"exec_interpreters\":[\"/usr/bin/python*\"]}}}", "config_invalid", "exec_interpreters"},
    {"{\"profiles\":{\"p\":{\"exec_interpreters\":\"/usr/bin/python3\"}}}", "config_invalid", "exec_interpreters"},
    {"{\"profiles\":{\"p\":{\"unix_sockets\":[\"agent.sock\"]}}}", "config_invalid", "unix_sockets"},
    {"{\"profiles\":{\"p\":{\"unix_sockets\":[\"/run/?.sock\"]}}}", "config_invalid", "unix_sockets"},
    {"{\"profiles\":{\"p\":{\"pass_env\":\"GH_TOKEN\"}}}", "config_invalid", "pass_env"},
    {"{\"profiles\":{\"p\":{\"pids_max\":-1}}}", "config_invalid", "pids_max"},
    {"{\"profiles\":{\"p\":{\"pids_max\":1.5}}}", "config_invalid", "pids_max"},
    {"{\"profiles\":{\"p\":{\"pids_max\":\"1024\"}}}", "config_invalid", "pids_max"},
    {"{\"profiles\":{\"p\":{\"memory_max\":\"4X\"}}}", "config_invalid", "memory_max"},
    {"{\"profiles\":{\"p\":{\"memory_max\":\"101%\"}}}", "config_invalid", "memory_max"},
    {"{\"profiles\":{\"p\":{\"memory_max\":\"-1G\"}}}", "config_invalid", "memory_max"},
    {"{\"profiles\":{\"p\":{\"memory_max\":true}}}", "config_invalid", "memory_max"},
    {"{\"profiles\":{\"agent\":{}}}", "config_invalid", "built in"},
    {"{\"profiles\":{\"a b\":{}}}", "config_invalid", "profile name"},
    {"{\"profiles\":{\"p\":{},\"p\":{}}}", "config_invalid", "twice"},
};

static void test_bad_configs(void **state)
{
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const char *path = write_file("bad.json", bad_cases[i].text);
		struct config config;
		struct sm_error err = {"", ""};

		config_defaults(&config);
		assert_int_equal(config_load(path, &config, &err), -1);
		if (strcmp(err.code, bad_cases[i].code) != 0 ||
		    strstr(err.message, bad_cases[i].mentions) == NULL ||
		    strstr(err.message, "bad.json") == NULL)
			fail_msg("case %zu %s: got %s: %s", i, bad_cases[i].text, err.code,
				 err.message);
		/* A failed load leaves the config as it was. */
		assert_string_equal(config.prefix, "C-b");
		assert_int_equal(config.nbindings, 0);
		assert_int_equal(config.nprofiles, 0);
		config_free(&config);
	}
}

/* A profile starts from its base and changes what it names. */
static void test_profiles(void **state)
{
	const char *path = write_file(
	    "profiles.json",
	    "{\"profiles\": {"
	    " \"ci\": {\"writable\": [\"~/cache\", \"/srv/build\"], \"deny_read\": [\"~/.netrc\"],"
	    "  \"deny_create_patterns\": [\"*.secret\"], \"protected_paths\": [\"/srv/build/keep\"],"
	    "  \"pids_max\": 4096, \"memory_max\": \"512M\", \"pass_env\": [\"GH_TOKEN\", \"AWS_*\"],"
	    "  \"exec_interpreters\": [\"~/.venv/bin/python\"], \"unix_sockets\": [\"/run/agent.sock\"]},"
	    " \"reviewer\": {\"base\": \"agent\", \"mode\": \"review\", \"network\": \"open\","
	    "  \"write_denies\": [\".envrc\"], \"state_dirs\": [\"~/.cache/tool\"]},"
	    " \"asker\": {\"base\": \"agent\", \"network\": \"ask\","
	    "  \"egress_allowlist\": [\"api.example.com\", \"*.cdn.example.com\"]}}}");
	struct config config;
	struct sm_error err = {"", ""};
	const struct sandbox_profile *ci, *rv;

	config_defaults(&config);
	if (config_load(path, &config, &err) != 0)
		fail_msg("%s: %s", err.code, err.message);
	assert_int_equal(config.nprofiles, 3);
	/* "ask" is proxied, and asks; the allowlist entries are kept as written. */
	assert_true(config.profiles[2].proxied_network);
	assert_true(config.profiles[2].ask_network);
	assert_int_equal(config.profiles[2].egress_allowlist.n, 2);
	assert_string_equal(config.profiles[2].egress_allowlist.v[1], "*.cdn.example.com");
	ci = &config.profiles[0];
	rv = &config.profiles[1];
	assert_string_equal(ci->name, "ci");
	assert_string_equal(ci->base, "terminal");
	assert_true(ci->home_writable);
	assert_false(ci->proxied_network);
	assert_int_equal(ci->mode, SANDBOX_MODE_CHAT);
	assert_int_equal(ci->writable.n, 2);
	assert_string_equal(ci->writable.v[1], "/srv/build");
	assert_string_equal(ci->deny_read.v[0], "~/.netrc");
	assert_int_equal(ci->deny_create_patterns.n, 1);
	assert_string_equal(ci->deny_create_patterns.v[0], "*.secret");
	assert_int_equal(ci->write_denies.n, 0); /* the terminal base has none */
	assert_string_equal(ci->protected_paths.v[0], "/srv/build/keep");
	assert_int_equal(ci->exec_interpreters.n, 1);
	assert_string_equal(ci->exec_interpreters.v[0], "~/.venv/bin/python");
	assert_int_equal(ci->unix_sockets.n, 1);
	assert_string_equal(ci->unix_sockets.v[0], "/run/agent.sock");

	assert_string_equal(rv->base, "agent");
	assert_int_equal(rv->mode, SANDBOX_MODE_REVIEW);
	assert_false(rv->home_writable);
	assert_false(rv->proxied_network); /* "network": "open" */
	assert_false(rv->ask_network);
	assert_int_equal(rv->egress_allowlist.n, 0);
	/* write_denies named: replaced; deny_create_patterns not: the base's */
	assert_int_equal(rv->write_denies.n, 1);
	assert_string_equal(rv->write_denies.v[0], ".envrc");
	assert_int_equal(rv->deny_create_patterns.n, 5); /* .env *.env .env.* *.key *.pem */
	assert_string_equal(rv->deny_create_patterns.v[1], "*.env");
	assert_string_equal(rv->state_dirs.v[0], "~/.cache/tool");
	/* Limits and pass_env: named, or the base's (1024, half the RAM). */
	assert_int_equal(ci->pids_max, 4096);
	assert_true(ci->memory_max == 512ULL << 20);
	assert_int_equal(ci->memory_percent, 0);
	assert_int_equal(ci->pass_env.n, 2);
	assert_string_equal(ci->pass_env.v[1], "AWS_*");
	assert_int_equal(rv->pids_max, PROFILE_PIDS_MAX_DEFAULT);
	assert_int_equal(rv->memory_percent, PROFILE_MEMORY_PERCENT_DEFAULT);
	assert_int_equal(rv->pass_env.n, 0);
	assert_int_equal(profile_find("terminal")->pids_max, 1024);
	assert_int_equal(profile_find("agent")->memory_percent, 50);

	/* The server's registry: found by name, after the built-ins. */
	profile_registry_set(config_take_profiles(&config, &config.nprofiles), 3);
	assert_int_equal(config.nprofiles, 0);
	assert_non_null(profile_find("reviewer"));
	/* A grant written to the config extends the server's copy in place. */
	{
		const struct sandbox_profile *asker = profile_find("asker");
		struct sm_error e = {"", ""};

		assert_int_equal(profile_registry_append("asker", "egress_allowlist", "b.test", &e), 0);
		assert_int_equal(profile_registry_append("asker", "egress_allowlist", "b.test", &e), 0);
		assert_ptr_equal(profile_find("asker"), asker);
		assert_int_equal(asker->egress_allowlist.n, 3);
		assert_string_equal(asker->egress_allowlist.v[2], "b.test");
		assert_int_equal(profile_registry_append("asker", "writable", "~/cache", &e), 0);
		assert_string_equal(asker->writable.v[0], "~/cache");
		assert_int_equal(profile_registry_append("asker", "egress_allowlist", "a/b", &e), -1);
		assert_string_equal(e.code, "config_invalid");
		assert_int_equal(profile_registry_append("asker", "mode", "x", &e), -1);
		assert_int_equal(profile_registry_append("agent", "writable", "/x", &e), -1);
		assert_string_equal(e.code, "invalid_profile");
	}
	assert_true(profile_find("agent")->proxied_network);
	assert_true(profile_find("terminal")->home_writable);
	assert_null(profile_find("nope"));
	profile_registry_set(NULL, 0);
	assert_null(profile_find("ci"));
	config_free(&config);
}

static void test_missing_files(void **state)
{
	struct config config;
	struct sm_error err = {"", ""};
	char path[512];

	config_defaults(&config);
	snprintf(path, sizeof path, "%s/absent.json", tmpdir);
	assert_int_equal(config_load(path, &config, &err), -1);
	assert_string_equal(err.code, "config_not_found");

	/* The default path may be absent: the defaults stand. */
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	assert_int_equal(config_load(NULL, &config, &err), 0);
	assert_string_equal(config.prefix, "C-b");
	config_free(&config);
}

static void test_default_path(void **state)
{
	char buf[512];

	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	assert_string_equal(config_default_path(buf, sizeof buf), "/x/conf/sandmux/config.json");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	assert_string_equal(config_default_path(buf, sizeof buf),
			    "/home/u/.config/sandmux/config.json");
	unsetenv("XDG_CONFIG_HOME");
	assert_string_equal(config_default_path(buf, sizeof buf),
			    "/home/u/.config/sandmux/config.json");
}

static void test_check_config(void **state)
{
	const char *good = write_file("check-good.json", "{\"prefix\":\"C-a\"}");

	unsetenv("SANDMUX_THEMES");
	assert_int_equal(config_check_main(good), 0);
	assert_int_equal(config_check_main(write_file("check-bad.json", "{\"nope\":1}")), 1);
	assert_int_equal(
	    config_check_main(write_file("check-theme.json", "{\"theme\":\"no-such-theme\"}")), 1);
}

static const char *const canonical_cases[][2] = {
    {"C-b", "C-b"},	{"c-B", "C-b"},	       {"M-C-x", "C-M-x"}, {"s-m-c-Up", "C-M-S-Up"},
    {"PgUp", "PageUp"}, {"npage", "PageDown"}, {"BTab", "S-Tab"},  {"C--", "C--"},
    {"%", "%"},		{"\"", "\""},	       {" ", "Space"},	   {"f5", "F5"},
    {"Esc", "Escape"},	{"DC", "Delete"},
    /* One parser with the server's (term/keys.c): its F13..F24 and aliases. */
    {"F13", "F13"},	{"C-F24", "C-F24"},	{"CR", "Enter"},	{"Backspace", "BSpace"},
};

static void test_key_name_canonical(void **state)
{
	char out[KEY_NAME_MAX];

	for (size_t i = 0; i < sizeof canonical_cases / sizeof canonical_cases[0]; i++) {
		assert_true(key_name_canonical(canonical_cases[i][0], out, sizeof out));
		assert_string_equal(out, canonical_cases[i][1]);
	}
	assert_false(key_name_canonical("", out, sizeof out));
	assert_false(key_name_canonical("ab", out, sizeof out));
	assert_false(key_name_canonical("X-a", out, sizeof out));
	assert_false(key_name_canonical("F25", out, sizeof out));
	assert_false(key_name_canonical("\x01", out, sizeof out));
	assert_true(key_name_is_text("a"));
	assert_true(key_name_is_text("Space"));
	assert_false(key_name_is_text("C-a"));
	assert_false(key_name_is_text("Enter"));
}

static void test_binding_table(void **state)
{
	struct binding_table table, other;
	struct sm_error err = {"", ""};

	bindings_init_defaults(&table);
	/* The defaults are read in place: canonical keys, each once. */
	for (size_t i = 0; i < table.count; i++) {
		char canonical[KEY_NAME_MAX];

		assert_true(key_name_canonical(table.entries[i].key, canonical, sizeof canonical));
		assert_string_equal(canonical, table.entries[i].key);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(table.entries[j].key, table.entries[i].key);
	}
	assert_true(bindings_repeats(&table, "Left"));
	assert_false(bindings_repeats(&table, "d"));
	bindings_init_defaults(&other);
	assert_string_equal(bindings_lookup(&table, "%"), "split -h");
	assert_string_equal(bindings_lookup(&table, "\""), "split -v");
	assert_string_equal(bindings_lookup(&table, "d"), "detach");
	assert_string_equal(bindings_lookup(&table, "?"), "list-keys");
	assert_non_null(bindings_lookup(&table, "x"));
	assert_int_equal(bindings_set(&table, "c-x", "zoom", &err), 0);
	assert_string_equal(bindings_lookup(&table, "C-x"), "zoom");
	assert_int_equal(bindings_set(&table, "z", "", &err), 0);
	assert_null(bindings_lookup(&table, "z"));
	assert_int_equal(bindings_set(&table, "Nope", "zoom", &err), -1);
	assert_string_equal(err.code, "invalid_key");
	/* Another client's table: still the defaults. */
	assert_string_equal(bindings_lookup(&other, "z"), "zoom");
	assert_null(bindings_lookup(&other, "C-x"));
	assert_null(other.owned);
	/* A default key rebound no longer repeats. */
	assert_int_equal(bindings_set(&table, "Left", "select-pane -L", &err), 0);
	assert_false(bindings_repeats(&table, "Left"));
	assert_true(bindings_repeats(&other, "Left"));
	bindings_free(&table);
	bindings_free(&other);
}

/* A mode's key table: the defaults in order, a key bound (in either
 * spelling of the command), rebound in place, unbound; a table or a
 * command the program does not have refused with a code. */
static void test_mode_tables(void **state)
{
	struct mode_tables tables;
	struct binding_table *copy;
	struct sm_error err = {"", ""};

	mode_tables_init(&tables);
	assert_true(tables.count >= 1);
	copy = mode_tables_find(&tables, "copy-mode", &err);
	assert_non_null(copy);
	assert_string_equal(copy->name, "copy-mode");
	/* the list's order: the defaults' */
	assert_string_equal(copy->entries[0].key, "Up");
	assert_string_equal(copy->entries[0].command, "send-keys -X cursor-up");
	assert_string_equal(copy->entries[copy->count - 1].key, "C-c");
	assert_string_equal(mode_tables_command(&tables, "copy-mode", "k"), "cursor-up");
	assert_string_equal(mode_tables_command(&tables, "copy-mode", "q"), "cancel");
	assert_null(mode_tables_command(&tables, "copy-mode", "C-n"));
	assert_null(mode_tables_command(&tables, "no-mode", "q"));

	/* bound: a new key goes last; both spellings store tmux's */
	size_t before = copy->count;
	assert_int_equal(mode_tables_bind(&tables, "copy-mode", "c-N", "cursor-down", &err), 0);
	assert_int_equal(copy->count, before + 1);
	assert_string_equal(copy->entries[before].key, "C-n");
	assert_string_equal(copy->entries[before].command, "send-keys -X cursor-down");
	assert_int_equal(
	    mode_tables_bind(&tables, "copy-mode", "q", "send-keys -X history-top", &err), 0);
	assert_string_equal(mode_tables_command(&tables, "copy-mode", "q"), "history-top");
	assert_int_equal(copy->count, before + 1); /* rebound in place */
	/* unbound */
	assert_int_equal(mode_tables_bind(&tables, "copy-mode", "k", "", &err), 0);
	assert_null(mode_tables_command(&tables, "copy-mode", "k"));
	assert_int_equal(copy->count, before);
	assert_string_equal(mode_tables_command(&tables, "copy-mode", "Up"), "cursor-up");
	/* tmux's vi table is another name for it */
	assert_int_equal(mode_tables_bind(&tables, "copy-mode-vi", "C-y", "cursor-up", &err), 0);
	assert_string_equal(mode_tables_command(&tables, "copy-mode", "C-y"), "cursor-up");
	assert_string_equal(mode_tables_command(&tables, "copy-mode-vi", "q"), "history-top");
	assert_ptr_equal(mode_tables_find(&tables, "copy-mode-vi", &err), copy);
	assert_int_equal(mode_tables_bind(&tables, "copy-mode", "C-y", "", &err), 0);

	/* refused, each with its code */
	assert_int_equal(mode_tables_bind(&tables, "copy", "q", "cancel", &err), -1);
	assert_string_equal(err.code, "unknown_table");
	assert_non_null(strstr(err.message, "\"copy\""));
	assert_non_null(strstr(err.message, "copy-mode"));
	assert_null(mode_tables_find(&tables, "prefix", &err));
	assert_string_equal(err.code, "unknown_table");
	assert_int_equal(mode_tables_bind(&tables, "copy-mode", "q", "kill-pane", &err), -1);
	assert_string_equal(err.code, "invalid_command");
	assert_non_null(strstr(err.message, "kill-pane"));
	assert_int_equal(mode_tables_bind(&tables, "copy-mode", "Nope", "cancel", &err), -1);
	assert_string_equal(err.code, "invalid_key");
	assert_string_equal(mode_command_summary(key_table_def_find("copy-mode", NULL),
						 "send-keys -X cancel"),
			    "leave copy mode");
	mode_tables_free(&tables);
	assert_int_equal(tables.count, 0);
}

static void test_command_split(void **state)
{
	char buf[256], *argv[8];

	assert_int_equal(
	    command_split("split -h  -c '/a b' \"x \\\"y\\\"\"", buf, sizeof buf, argv, 8), 5);
	assert_string_equal(argv[0], "split");
	assert_string_equal(argv[3], "/a b");
	assert_string_equal(argv[4], "x \"y\"");
	assert_int_equal(command_split("   ", buf, sizeof buf, argv, 8), 0);
	assert_int_equal(command_split("echo 'open", buf, sizeof buf, argv, 8), -1);
	assert_int_equal(command_split("a b c", buf, sizeof buf, argv, 2), -1);
}

/* command_join is command_split's inverse: words with blanks, quotes,
 * backslashes or nothing in them come back as they were. */
static void test_command_join(void **state)
{
	char *words[] = {"command-prompt", "-p", "a \"b\"", "", "x\\y", "it's"};
	char line[256], small[8], buf[256], *argv[8];

	assert_true(command_join(words, 6, line, sizeof line));
	assert_int_equal(command_split(line, buf, sizeof buf, argv, 8), 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(argv[i], words[i]);
	assert_true(command_join(words, 2, line, sizeof line));
	assert_string_equal(line, "command-prompt -p");
	assert_false(command_join(words, 2, small, sizeof small));
	assert_string_equal(small, "command");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_good_config),
	    cmocka_unit_test(test_bad_configs),
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_missing_files),
	    cmocka_unit_test(test_default_path),
	    cmocka_unit_test(test_check_config),
	    cmocka_unit_test(test_key_name_canonical),
	    cmocka_unit_test(test_binding_table),
	    cmocka_unit_test(test_mode_tables),
	    cmocka_unit_test(test_command_split),
	    cmocka_unit_test(test_command_join),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
