/*
 * test_sandbox: the sandbox model (names, strict and lenient backend
 * names, JSON round-trips, deny-path spellings), the probe (its lines,
 * JSON, PATH search, platform names) and the backend check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "error.h"
#include "sandbox.h"
#include "strvec.h"

/* --- names -------------------------------------------------------------- */

static void test_names(void **state)
{
	assert_string_equal(sandbox_backend_name(SANDBOX_NONE), "none");
	assert_string_equal(sandbox_backend_name(SANDBOX_NATIVE), "native");
	assert_string_equal(sandbox_backend_name(SANDBOX_MICROVM), "microvm");
	assert_string_equal(sandbox_state_name(SANDBOX_SUSPENDED), "suspended");
	assert_string_equal(sandbox_state_name(SANDBOX_ERROR), "error");
	assert_string_equal(sandbox_mode_name(SANDBOX_MODE_ORCHESTRATE), "orchestrate");
}

static void test_strict_parse(void **state)
{
	static const struct {
		const char *name;
		int rc;
		enum sandbox_backend want;
	} cases[] = {
	    {"none", 0, SANDBOX_NONE},
	    {"native", 0, SANDBOX_NATIVE},
	    {"microvm", 0, SANDBOX_MICROVM},
	    {"docker", -1, 0},
	    {"Native", -1, 0},
	    {"", -1, 0},
	    {NULL, -1, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sm_error err = {{0}, {0}};
		enum sandbox_backend got = SANDBOX_BACKEND_COUNT;

		assert_int_equal(sandbox_backend_parse(cases[i].name, &got, &err), cases[i].rc);
		if (cases[i].rc == 0) {
			assert_int_equal(got, cases[i].want);
			continue;
		}
		assert_string_equal(err.code, "invalid_backend");
		assert_non_null(strstr(err.message, "none, native, microvm"));
	}
}

static void test_lenient_names(void **state)
{
	assert_int_equal(backend_from_name(NULL), SANDBOX_NONE);
	assert_int_equal(backend_from_name("bogus"), SANDBOX_NONE);
	assert_int_equal(backend_from_name("docker"), SANDBOX_NATIVE);
	assert_int_equal(backend_from_name("native"), SANDBOX_NATIVE);
	assert_int_equal(backend_from_name("microvm"), SANDBOX_MICROVM);
	assert_int_equal(backend_from_name("none"), SANDBOX_NONE);
}

/* --- JSON round-trips --------------------------------------------------- */

static cJSON *parse(const char *text)
{
	cJSON *json = cJSON_Parse(text);

	assert_non_null(json);
	return json;
}

/* from_json, to_json, and compare with the canonical text. */
static void assert_spec_round_trip(const char *in, const char *canonical)
{
	struct sandbox_spec spec;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse(in), *back;
	char *text;

	assert_int_equal(sandbox_spec_from_json(json, &spec, &err), 0);
	back = sandbox_spec_to_json(&spec);
	text = cJSON_PrintUnformatted(back);
	assert_string_equal(text, canonical);
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(json);
	sandbox_spec_free(&spec);
}

static void test_spec_round_trip(void **state)
{
	static const char full[] =
	    "{\"sessionId\":\"s1\",\"workspaceId\":\"w1\",\"agentId\":\"a1\","
	    "\"bindMounts\":[{\"hostPath\":\"/src\",\"guestPath\":\"/work\",\"readOnly\":true},"
	    "{\"hostPath\":\"/cache\",\"guestPath\":\"/cache\",\"readOnly\":false}],"
	    "\"networkEnabled\":false,\"egressAllowlist\":[\"github.com\",\"*.npmjs.org\"],"
	    "\"guestWorkdir\":\"/work\",\"mode\":\"review\",\"protectedPaths\":[\"/work/.git\"],"
	    "\"runnerStateDirs\":[\"/state\"],\"execGrantRoots\":[\"/opt/tools\"]}";
	static const char minimal_in[] =
	    "{\"sessionId\":\"s\",\"workspaceId\":\"w\","
	    "\"bindMounts\":[{\"hostPath\":\"/a\",\"guestPath\":\"/b\"}]}";
	static const char minimal_out[] =
	    "{\"sessionId\":\"s\",\"workspaceId\":\"w\","
	    "\"bindMounts\":[{\"hostPath\":\"/a\",\"guestPath\":\"/b\",\"readOnly\":false}],"
	    "\"networkEnabled\":true,\"egressAllowlist\":[],\"mode\":\"chat\","
	    "\"protectedPaths\":[],\"runnerStateDirs\":[],\"execGrantRoots\":[]}";

	assert_spec_round_trip(full, full);
	assert_spec_round_trip(minimal_in, minimal_out);
}

static void test_spec_fields(void **state)
{
	struct sandbox_spec spec;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse("{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"mode\":\"plan\","
			    "\"egressAllowlist\":[\"a\",\"b\"]}");

	assert_int_equal(sandbox_spec_from_json(json, &spec, &err), 0);
	assert_string_equal(spec.session_id, "s");
	assert_null(spec.agent_id);
	assert_true(spec.network_enabled);
	assert_int_equal(spec.mode, SANDBOX_MODE_PLAN);
	assert_int_equal(spec.negress_allowlist, 2);
	assert_string_equal(spec.egress_allowlist[1], "b");
	sandbox_spec_free(&spec);
	cJSON_Delete(json);
}

static void test_spec_errors(void **state)
{
	static const struct {
		const char *json, *code;
	} cases[] = {
	    {"[]", "invalid_argument"},
	    {"{\"workspaceId\":\"w\"}", "missing_field"},
	    {"{\"sessionId\":\"s\"}", "missing_field"},
	    {"{\"sessionId\":1,\"workspaceId\":\"w\"}", "invalid_argument"},
	    {"{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"mode\":\"yolo\"}", "invalid_argument"},
	    {"{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"networkEnabled\":\"yes\"}",
	     "invalid_argument"},
	    {"{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"egressAllowlist\":[1]}",
	     "invalid_argument"},
	    {"{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"bindMounts\":[{\"hostPath\":\"/a\"}]}",
	     "missing_field"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sandbox_spec spec;
		struct sm_error err = {{0}, {0}};
		cJSON *json = parse(cases[i].json);

		assert_int_equal(sandbox_spec_from_json(json, &spec, &err), -1);
		assert_string_equal(err.code, cases[i].code);
		cJSON_Delete(json);
	}
}

static void test_handle_round_trip(void **state)
{
	static const char full[] =
	    "{\"sessionId\":\"s1\",\"backend\":\"native\",\"state\":\"error\","
	    "\"error\":\"bwrap failed\",\"details\":{\"tool\":\"bubblewrap\"}}";
	static const char minimal[] =
	    "{\"sessionId\":\"s2\",\"backend\":\"none\",\"state\":\"warm\"}";
	struct sandbox_handle h;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse(full), *back;
	char *text;

	assert_int_equal(sandbox_handle_from_json(json, &h, &err), 0);
	assert_int_equal(h.backend, SANDBOX_NATIVE);
	assert_int_equal(h.state, SANDBOX_ERROR);
	back = sandbox_handle_to_json(&h);
	text = cJSON_PrintUnformatted(back);
	assert_string_equal(text, full);
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(json);
	sandbox_handle_free(&h);

	json = parse(minimal);
	assert_int_equal(sandbox_handle_from_json(json, &h, &err), 0);
	back = sandbox_handle_to_json(&h);
	text = cJSON_PrintUnformatted(back);
	assert_string_equal(text, "{\"sessionId\":\"s2\",\"backend\":\"none\",\"state\":\"warm\","
				  "\"details\":{}}");
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(json);
	sandbox_handle_free(&h);
}

static void test_handle_errors(void **state)
{
	struct sandbox_handle h;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse("{\"sessionId\":\"s\",\"backend\":\"docker\",\"state\":\"warm\"}");

	/* A handle is what really wraps a process: read strictly. */
	assert_int_equal(sandbox_handle_from_json(json, &h, &err), -1);
	assert_string_equal(err.code, "invalid_backend");
	cJSON_Delete(json);
	json = parse("{\"sessionId\":\"s\",\"backend\":\"none\",\"state\":\"sleeping\"}");
	assert_int_equal(sandbox_handle_from_json(json, &h, &err), -1);
	assert_string_equal(err.code, "invalid_argument");
	cJSON_Delete(json);
}

static void test_violation_round_trip(void **state)
{
	static const char full[] =
	    "{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":\"file-read*\","
	    "\"target\":\"/home/u/.ssh/id\",\"raw\":\"openat(\\\"/home/u/.ssh/id\\\") = -EACCES "
	    "(deny-read)\",\"pane\":3,\"session\":\"s\",\"profile\":\"agent\",\"backend\":\"native\","
	    "\"pid\":42,\"syscall\":\"openat\",\"time\":1700000000.5,\"source\":\"supervisor\"}";
	struct sandbox_violation v;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse(full), *back;
	char *text;

	(void)state;
	assert_int_equal(sandbox_violation_from_json(json, &v, &err), 0);
	assert_string_equal(v.action, "file-read*");
	assert_string_equal(v.source, "supervisor");
	assert_string_equal(v.profile, "agent");
	assert_int_equal(v.pane, 3);
	assert_int_equal(v.pid, 42);
	back = sandbox_violation_to_json(&v);
	text = cJSON_PrintUnformatted(back);
	assert_string_equal(text, full);
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(json);

	json = parse("{\"action\":\"launch-missiles\",\"target\":\"x\"}");
	assert_int_equal(sandbox_violation_from_json(json, &v, &err), -1);
	assert_string_equal(err.code, "invalid_argument");
	cJSON_Delete(json);
	json = parse("{\"action\":\"network-outbound\"}");
	assert_int_equal(sandbox_violation_from_json(json, &v, &err), -1);
	assert_string_equal(err.code, "missing_field");
	cJSON_Delete(json);
	json = parse("{\"action\":\"network-outbound\",\"target\":\"a:1\",\"source\":7}");
	assert_int_equal(sandbox_violation_from_json(json, &v, &err), -1);
	assert_string_equal(err.code, "invalid_argument");
	cJSON_Delete(json);
}

/* Every source's violation is the one event shape: an egress refusal
 * (reason, protocol, detail) and a microvm guard's (source) through the
 * same writer, the pane's fields in the same places. */
static void test_violation_sources(void **state)
{
	struct sandbox_violation egress = {
	    .action = "network-outbound", .target = "evil.test:443", .source = "egress",
	    .time = 1.5, .pane = 4, .session = "s", .profile = "agent", .backend = "native",
	    .reason = "not allowlisted", .protocol = "http",
	};
	struct sandbox_violation guest = {
	    .action = "file-write*", .target = "/etc/x", .source = "guest", .time = 2,
	    .pane = 5, .session = "s", .profile = "agent", .backend = "microvm (tcg)",
	};
	cJSON *json;
	char *text;

	(void)state;
	json = sandbox_violation_to_json(&egress);
	text = cJSON_PrintUnformatted(json);
	assert_string_equal(text, "{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":"
				  "\"network-outbound\",\"target\":\"evil.test:443\",\"pane\":4,"
				  "\"session\":\"s\",\"profile\":\"agent\",\"backend\":\"native\","
				  "\"time\":1.5,\"source\":\"egress\",\"reason\":\"not allowlisted\","
				  "\"protocol\":\"http\"}");
	free(text);
	cJSON_Delete(json);
	json = sandbox_violation_to_json(&guest);
	text = cJSON_PrintUnformatted(json);
	assert_string_equal(text, "{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":"
				  "\"file-write*\",\"target\":\"/etc/x\",\"pane\":5,\"session\":\"s\","
				  "\"profile\":\"agent\",\"backend\":\"microvm (tcg)\",\"time\":2,"
				  "\"source\":\"guest\"}");
	free(text);
	cJSON_Delete(json);
}

/* A line of an earlier version (the supervisor's before violations
 * carried profile and source) still reads. */
static void test_violation_old_line(void **state)
{
	struct sandbox_violation v;
	struct sm_error err = {{0}, {0}};
	cJSON *json = parse("{\"event\":\"sandbox\",\"kind\":\"violation\",\"action\":\"file-write*\","
			    "\"target\":\"/d/out\",\"raw\":\"openat(\\\"/d/out\\\") = -EROFS\","
			    "\"pane\":3,\"session\":\"learn\",\"backend\":\"native\",\"pid\":41,"
			    "\"syscall\":\"openat\",\"time\":1795900001.0,\"count\":12}");

	(void)state;
	assert_int_equal(sandbox_violation_from_json(json, &v, &err), 0);
	assert_null(v.profile);
	assert_null(v.source);
	assert_string_equal(v.syscall, "openat");
	assert_int_equal(v.count, 12);
	cJSON_Delete(json);
}

/* --- deny spellings ----------------------------------------------------- */

static void test_expand_home(void **state)
{
	static const struct {
		const char *path, *home, *want;
	} cases[] = {
	    {"~/.ssh", "/home/u", "/home/u/.ssh"},
	    {"~/.ssh", "/home/u/", "/home/u/.ssh"},
	    {"~", "/home/u", "/home/u"},
	    {"~other/.ssh", "/home/u", "~other/.ssh"},
	    {"/etc/passwd", "/home/u", "/etc/passwd"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = sandbox_expand_home(cases[i].path, cases[i].home);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

static void test_deny_spellings(void **state)
{
	char dir[] = "/tmp/sandmux-spell-XXXXXX", real[PATH_MAX], path[PATH_MAX * 2];
	char want[PATH_MAX * 2];
	struct strvec out = STRVEC_INIT;

	assert_non_null(mkdtemp(dir));
	assert_non_null(realpath(dir, real));
	snprintf(path, sizeof path, "%s/keys", real);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/.ssh", dir);
	assert_int_equal(symlink("keys", path), 0);
	snprintf(path, sizeof path, "%s/dangling", dir);
	assert_int_equal(symlink("/nonexistent/sandmux", path), 0);

	/* A symlink: as written, then resolved. */
	snprintf(path, sizeof path, "%s/.ssh", dir);
	assert_int_equal(sandbox_deny_spellings(path, &out), 0);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], path);
	snprintf(want, sizeof want, "%s/keys", real);
	assert_string_equal(out.v[1], want);
	/* Spellings already present are not repeated. */
	assert_int_equal(sandbox_deny_spellings(want, &out), 0);
	assert_int_equal(out.n, 2);
	strvec_free(&out);

	/* Globs, dangling links and missing paths stay as written. */
	snprintf(path, sizeof path, "%s/*.key", dir);
	assert_int_equal(sandbox_deny_spellings(path, &out), 0);
	snprintf(path, sizeof path, "%s/id_?sa", dir);
	assert_int_equal(sandbox_deny_spellings(path, &out), 0);
	snprintf(path, sizeof path, "%s/dangling", dir);
	assert_int_equal(sandbox_deny_spellings(path, &out), 0);
	snprintf(path, sizeof path, "%s/missing", dir);
	assert_int_equal(sandbox_deny_spellings(path, &out), 0);
	assert_int_equal(out.n, 4);
	snprintf(want, sizeof want, "%s/*.key", dir);
	assert_string_equal(out.v[0], want);
	snprintf(want, sizeof want, "%s/id_?sa", dir);
	assert_string_equal(out.v[1], want);
	snprintf(want, sizeof want, "%s/dangling", dir);
	assert_string_equal(out.v[2], want);
	snprintf(want, sizeof want, "%s/missing", dir);
	assert_string_equal(out.v[3], want);
	strvec_free(&out);

	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* --- probe -------------------------------------------------------------- */

static void test_probe_lines(void **state)
{
	struct probe_result on = {.native.available = true, .native.home_layer = true};
	struct probe_result nolayer = {.native.available = true};
	struct probe_result missing = {.native.requires_install = true};
	struct probe_result off = {.native.disabled = true};
	struct probe_result blocked = {.native.available = false};
	char line[512];

	snprintf(on.native.tool, sizeof on.native.tool, "bubblewrap 0.8.0");
	snprintf(nolayer.native.tool, sizeof nolayer.native.tool, "bubblewrap 0.8.0");
	snprintf(nolayer.native.home_layer_reason, sizeof nolayer.native.home_layer_reason,
		 "cannot mount the copy-on-write home over /s/home: Invalid argument");
	snprintf(missing.native.hint, sizeof missing.native.hint,
		 "apt-get install bubblewrap socat");
	snprintf(blocked.native.reason, sizeof blocked.native.reason,
		 "native sandbox is not offered on this platform");

	backend_probe_line(&on, line, sizeof line);
	assert_string_equal(line, "sandbox: native ON (bubblewrap 0.8.0)");
	backend_probe_line(&nolayer, line, sizeof line);
	assert_string_equal(line, "sandbox: native ON (bubblewrap 0.8.0), but a profile with a "
				  "writable $HOME fails: no copy-on-write home here (cannot mount "
				  "the copy-on-write home over /s/home: Invalid argument)");
	backend_probe_line(&missing, line, sizeof line);
	assert_string_equal(line, "sandbox: no OS-native sandbox on this host "
				  "(install: apt-get install bubblewrap socat)");
	backend_probe_line(&off, line, sizeof line);
	assert_string_equal(line, "sandbox: DISABLED by --sandbox off");
	backend_probe_line(&blocked, line, sizeof line);
	assert_string_equal(line, "sandbox: no OS-native sandbox on this host "
				  "(native sandbox is not offered on this platform)");
}

static void test_probe_json(void **state)
{
	struct probe_result r = {.native.available = true, .native.home_layer = true};
	cJSON *json;
	char *text;

	snprintf(r.platform, sizeof r.platform, "linux");
	snprintf(r.native.tool, sizeof r.native.tool, "bubblewrap 0.8.0");
	snprintf(r.microvm.reason, sizeof r.microvm.reason, "qemu-system-x86_64 not found on PATH");
	snprintf(r.microvm.hint, sizeof r.microvm.hint, "apt-get install qemu-system-x86");
	json = probe_to_json(&r);
	text = cJSON_PrintUnformatted(json);
	assert_string_equal(text, "{\"platform\":\"linux\",\"native\":{\"available\":true,"
				  "\"requiresInstall\":false,\"disabled\":false,"
				  "\"tool\":\"bubblewrap 0.8.0\",\"hint\":null,\"reason\":null,"
				  "\"homeLayer\":true,\"homeLayerReason\":null},"
				  "\"microvm\":{\"available\":false,"
				  "\"reason\":\"qemu-system-x86_64 not found on PATH\","
				  "\"hint\":\"apt-get install qemu-system-x86\",\"tool\":null,"
				  "\"accelerator\":null,\"kvmReason\":null}}");
	free(text);
	cJSON_Delete(json);
	/* Available: the accelerator is named, the reason is not. */
	r.microvm.available = true;
	r.microvm.hint[0] = '\0';
	snprintf(r.microvm.tool, sizeof r.microvm.tool, "qemu 7.2.22");
	snprintf(r.microvm.accel, sizeof r.microvm.accel, "tcg");
	json = probe_to_json(&r);
	text = cJSON_PrintUnformatted(json);
	assert_non_null(strstr(text, "\"microvm\":{\"available\":true,\"reason\":null,"
				     "\"hint\":null,\"tool\":\"qemu 7.2.22\",\"accelerator\":\"tcg\""));
	free(text);
	cJSON_Delete(json);
	/* No copy-on-write home: said, with the step's reason. */
	r.native.home_layer = false;
	snprintf(r.native.home_layer_reason, sizeof r.native.home_layer_reason, "no overlayfs");
	json = probe_to_json(&r);
	text = cJSON_PrintUnformatted(json);
	assert_non_null(strstr(text, "\"homeLayer\":false,\"homeLayerReason\":\"no overlayfs\"}"));
	free(text);
	cJSON_Delete(json);
}

static void test_probe_platform(void **state)
{
	static const struct {
		const char *sysname, *version, *want;
	} cases[] = {
	    {"Linux", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)", "linux"},
	    {"Linux", "Linux version 5.15.133.1-microsoft-standard-WSL2 (root@1c602f52c2e4)",
	     "wsl2"},
	    {"Linux", NULL, "linux"},
	    {"Darwin", NULL, "macos"},
	    {"FreeBSD", NULL, "freebsd"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char got[32];

		probe_platform(cases[i].sysname, cases[i].version, got, sizeof got);
		assert_string_equal(got, cases[i].want);
	}
}

/* A directory holding an executable named name (a symlink to target). */
static void make_bin_dir(char *dir, const char *name, const char *target)
{
	char path[PATH_MAX];

	assert_non_null(mkdtemp(dir));
	if (name == NULL)
		return;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(symlink(target, path), 0);
}

static void remove_dir(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_probe_find_on_path(void **state)
{
	char dir[] = "/tmp/sandmux-path-XXXXXX", path[PATH_MAX * 2], found[PATH_MAX],
	     want[PATH_MAX];

	make_bin_dir(dir, "sandmux-tool", "/bin/sh");
	snprintf(want, sizeof want, "%s/sandmux-tool", dir);
	snprintf(path, sizeof path, "/nonexistent::relative/dir:%s", dir);
	assert_int_equal(probe_find_on_path("sandmux-tool", path, found, sizeof found), 0);
	assert_string_equal(found, want);
	assert_int_equal(probe_find_on_path("sandmux-nothing", path, found, sizeof found), -1);
	assert_int_equal(probe_find_on_path("sandmux-tool", "", found, sizeof found), -1);
	assert_int_equal(probe_find_on_path("sandmux-tool", NULL, found, sizeof found), -1);
	remove_dir(dir);
}

/* backend_probe with PATH as given; restores PATH after. */
static void probe_with_path(const char *path, bool off, struct probe_result *r)
{
	char *saved = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");

	setenv("PATH", path, 1);
	backend_probe(off, r);
	setenv("PATH", saved, 1);
	free(saved);
}

static void test_probe_missing_tools(void **state)
{
	char empty[] = "/tmp/sandmux-empty-XXXXXX", only_bwrap[] = "/tmp/sandmux-bw-XXXXXX";
	char bwrap[PATH_MAX], line[256];
	struct probe_result r;
	struct sm_error err = {{0}, {0}};

	make_bin_dir(empty, NULL, NULL);
	probe_with_path(empty, false, &r);
	assert_false(r.native.available);
	assert_true(r.native.requires_install);
	assert_string_equal(r.native.hint, "apt-get install bubblewrap socat");
	backend_probe_line(&r, line, sizeof line);
	assert_string_equal(line, "sandbox: no OS-native sandbox on this host "
				  "(install: apt-get install bubblewrap socat)");
	assert_false(r.microvm.available);
	assert_string_equal(r.microvm.reason, "qemu-system-x86_64 not found on PATH");
	assert_string_equal(r.microvm.hint, "apt-get install qemu-system-x86");
	backend_probe_microvm_line(&r, line, sizeof line);
	assert_string_equal(line, "microvm: unavailable: qemu-system-x86_64 not found on PATH "
				  "(install: apt-get install qemu-system-x86)");
	assert_ptr_not_equal(backend_probe_result(), NULL);

	/* Asking for native now is refused with the reason and the hint. */
	assert_int_equal(backend_check(SANDBOX_NATIVE, &err), -1);
	assert_string_equal(err.code, "backend_unavailable");
	assert_non_null(strstr(err.message, "apt-get install bubblewrap socat"));
	assert_int_equal(backend_check(SANDBOX_NONE, &err), 0);

	if (probe_find_on_path("bwrap", getenv("PATH"), bwrap, sizeof bwrap) == 0) {
		make_bin_dir(only_bwrap, "bwrap", bwrap);
		probe_with_path(only_bwrap, false, &r);
		assert_false(r.native.available);
		assert_string_equal(r.native.hint, "apt-get install socat");
		remove_dir(only_bwrap);
	}
	remove_dir(empty);
}

static void test_probe_off(void **state)
{
	struct probe_result r;
	struct sm_error err = {{0}, {0}};
	char line[256];

	backend_probe(true, &r);
	assert_true(r.native.disabled);
	assert_false(r.native.available);
	backend_probe_line(&r, line, sizeof line);
	assert_string_equal(line, "sandbox: DISABLED by --sandbox off");
	assert_int_equal(backend_check(SANDBOX_NATIVE, &err), -1);
	assert_string_equal(err.code, "backend_unavailable");
	assert_non_null(strstr(err.message, "disabled by --sandbox off"));
	assert_int_equal(backend_check(SANDBOX_MICROVM, &err), -1);
	assert_non_null(strstr(err.message, "disabled by --sandbox off"));
	assert_int_equal(backend_check(SANDBOX_NONE, &err), 0);
}

static void test_probe_host(void **state)
{
	struct probe_result r;
	char line[256], bwrap[PATH_MAX], socat[PATH_MAX];
	const char *path = getenv("PATH");

	backend_probe(false, &r);
	if (probe_find_on_path("bwrap", path, bwrap, sizeof bwrap) != 0 ||
	    probe_find_on_path("socat", path, socat, sizeof socat) != 0)
		skip();
	/* This host has both; unprivileged user namespaces work here. */
	assert_true(r.native.available);
	assert_string_equal(r.native.bwrap_path, bwrap);
	backend_probe_line(&r, line, sizeof line);
	assert_true(strncmp(line, "sandbox: native ON (bubblewrap ", 31) == 0);
}

/* --- the table ---------------------------------------------------------- */

static void test_backend_table(void **state)
{
	struct sm_error err = {{0}, {0}};
	struct launch_result res;
	char *argv[] = {"/bin/sh", NULL};
	struct sandbox_spec spec = {.backend = SANDBOX_MICROVM, .command = argv, .workdir = "/"};
	struct launch_request req = {.spec = &spec, .rows = 24, .cols = 80};

	for (int id = 0; id < SANDBOX_BACKEND_COUNT; id++) {
		assert_non_null(backend_get(id));
		assert_int_equal(backend_get(id)->id, id);
		assert_string_equal(backend_get(id)->name, sandbox_backend_name(id));
	}
	assert_null(backend_get(SANDBOX_BACKEND_COUNT));
	/* Whatever the probe found, a launch the probe did not offer is
	 * refused rather than attempted. */
	if (backend_probe_result() == NULL || !backend_probe_result()->microvm.available) {
		assert_int_equal(backend_get(SANDBOX_MICROVM)->launch(&req, &res, &err), -1);
		assert_string_equal(err.code, "backend_unavailable");
		assert_int_equal(res.pid, 0);
	}
}

/* A backend runs what the spec asks: its command, in its working
 * directory, with its environment and nothing of the caller's. */
static void test_launch_reads_spec(void **state)
{
	/* It waits for a line, so its output is read before its terminal
	 * hangs up (a read after that may get EIO first). */
	char *command[] = {"/bin/sh", "-c", "echo \"[$ASKED:$HOME:$(pwd)]\"; read line", NULL};
	char *env[] = {"ASKED=from-the-spec", "PATH=/usr/bin:/bin", NULL};
	struct sandbox_spec spec = {.backend = SANDBOX_NONE, .profile = "terminal",
				    .workdir = "/tmp", .command = command, .env = env};
	struct launch_request req = {.spec = &spec, .rows = 24, .cols = 80};
	struct sm_error err = {{0}, {0}};
	struct launch_result res;
	char out[512] = "";
	size_t len = 0;
	ssize_t n;
	int status;

	(void)state;
	setenv("HOME", "/the/caller's", 1);
	assert_int_equal(backend_get(SANDBOX_NONE)->launch(&req, &res, &err), 0);
	assert_true(res.confirmed);
	/* The master is non-blocking: wait for each piece. */
	while (len + 1 < sizeof out && strchr(out, ']') == NULL &&
	       poll(&(struct pollfd){.fd = res.master, .events = POLLIN}, 1, 10000) == 1 &&
	       (n = read(res.master, out + len, sizeof out - 1 - len)) > 0) {
		len += (size_t)n;
		out[len] = '\0';
	}
	assert_non_null(strstr(out, "[from-the-spec::/tmp]"));
	assert_int_equal(write(res.master, "\n", 1), 1);
	assert_int_equal(waitpid(res.pid, &status, 0), res.pid);
	close(res.master);
}

/* Threat: a process inside a sandbox naming itself so that its
 * /proc/PID/stat line reads like other fields ("x) Z 1 ..."), to look
 * gone, stopped or a child of someone else to the server.  The name is
 * the only field that can hold ')' and spaces; the parser reads after
 * the last ')'. */
static void test_proc_stat_hostile_name(void **state)
{
	struct proc_stat st[2];
	int ready[2], status, rc[2];
	char byte;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		/* Never outlives a failed check, nor holds the runner's
		 * output open. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		/* 15 bytes at most: the kernel keeps that much of a name. */
		prctl(PR_SET_NAME, ") Z 1 1 1 0 1 (", 0, 0, 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	close(ready[0]);
	usleep(20000);
	/* Read first, checked after the child is gone: a failed check
	 * leaves the test at once. */
	rc[0] = proc_stat_read(pid, &st[0]);
	kill(pid, SIGSTOP);
	waitpid(pid, &status, WUNTRACED);
	rc[1] = proc_stat_read(pid, &st[1]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_int_equal(rc[0], 0);
	assert_true(st[0].state == 'S' || st[0].state == 'R');
	assert_int_equal(st[0].ppid, getpid());
	assert_int_equal(st[0].pgrp, getpgrp());
	assert_int_equal(st[0].session, getsid(0));
	assert_int_equal(rc[1], 0);
	assert_true(st[1].state == 'T' || st[1].state == 't');
	assert_int_equal(proc_stat_read(pid, &st[0]), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_strict_parse),
	    cmocka_unit_test(test_lenient_names),
	    cmocka_unit_test(test_spec_round_trip),
	    cmocka_unit_test(test_spec_fields),
	    cmocka_unit_test(test_spec_errors),
	    cmocka_unit_test(test_handle_round_trip),
	    cmocka_unit_test(test_handle_errors),
	    cmocka_unit_test(test_violation_round_trip),
	    cmocka_unit_test(test_launch_reads_spec),
	    cmocka_unit_test(test_violation_sources),
	    cmocka_unit_test(test_violation_old_line),
	    cmocka_unit_test(test_expand_home),
	    cmocka_unit_test(test_deny_spellings),
	    cmocka_unit_test(test_probe_lines),
	    cmocka_unit_test(test_probe_json),
	    cmocka_unit_test(test_probe_platform),
	    cmocka_unit_test(test_probe_find_on_path),
	    cmocka_unit_test(test_probe_missing_tools),
	    cmocka_unit_test(test_probe_off),
	    cmocka_unit_test(test_probe_host),
	    cmocka_unit_test(test_backend_table),
	    cmocka_unit_test(test_proc_stat_hostile_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
