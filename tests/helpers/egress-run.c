/*
 * egress-run: the egress proxies standalone, for the integration tests and
 * the bench.  Starts N independent proxy pairs on its own libuv loop and
 * prints JSON lines on stdout:
 *
 *   {"event":"ready","instance":0,"http":PORT,"socks":PORT}
 *   {"event":"violation","instance":0,"protocol":"http","host":"x","port":80,
 *    "target":"x:80","reason":"not allowlisted","detail":""}
 *
 * until SIGTERM or SIGINT.
 *
 *   egress-run [--allow ENTRY]... [--network-off] [--instances N]
 *              [--unix DIR] [--connect-timeout MS] [--idle-timeout MS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "egress.h"
#include "error.h"

#define MAX_INSTANCES 8

static struct egress *instances[MAX_INSTANCES];
static int ninstances = 1;
static uv_signal_t sigterm, sigint;

static void print_json(cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);

	if (text != NULL) {
		printf("%s\n", text);
		fflush(stdout);
		free(text);
	}
	cJSON_Delete(o);
}

static void on_violation(void *user, const struct egress_violation *v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "event", "violation");
	cJSON_AddNumberToObject(o, "instance", (int)(intptr_t)user);
	cJSON_AddStringToObject(o, "protocol", v->violation.protocol);
	cJSON_AddStringToObject(o, "host", v->host);
	cJSON_AddNumberToObject(o, "port", v->port);
	cJSON_AddStringToObject(o, "target", v->violation.target);
	cJSON_AddStringToObject(o, "reason", v->violation.reason);
	cJSON_AddStringToObject(o, "detail", v->violation.detail != NULL ? v->violation.detail : "");
	cJSON_AddNumberToObject(o, "tag", v->tag);
	print_json(o);
}

static void stop(void)
{
	for (int i = 0; i < ninstances; i++) {
		egress_close(instances[i]);
		instances[i] = NULL;
	}
	uv_close((uv_handle_t *)&sigterm, NULL);
	uv_close((uv_handle_t *)&sigint, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
	stop();
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* the bench holds 1,000 tunnels: two descriptors each here */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	const char *allow[64];
	struct egress_policy policy = {.network_enabled = true, .allowlist = allow};
	const char *unix_dir = NULL;
	uv_loop_t *loop = uv_default_loop();

	for (int i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--network-off") == 0) {
			policy.network_enabled = false;
		} else if (next != NULL && strcmp(argv[i], "--allow") == 0 && policy.nallowlist < 64) {
			allow[policy.nallowlist++] = argv[++i];
		} else if (next != NULL && strcmp(argv[i], "--instances") == 0) {
			ninstances = atoi(argv[++i]);
		} else if (next != NULL && strcmp(argv[i], "--unix") == 0) {
			unix_dir = argv[++i];
		} else if (next != NULL && strcmp(argv[i], "--connect-timeout") == 0) {
			policy.connect_timeout_ms = (unsigned)atoi(argv[++i]);
		} else if (next != NULL && strcmp(argv[i], "--idle-timeout") == 0) {
			policy.idle_timeout_ms = (unsigned)atoi(argv[++i]);
		} else {
			fprintf(stderr, "egress-run: bad argument %s\n", argv[i]);
			return 2;
		}
	}
	if (ninstances < 1 || ninstances > MAX_INSTANCES) {
		fprintf(stderr, "egress-run: --instances 1..%d\n", MAX_INSTANCES);
		return 2;
	}
	raise_fd_limit();
	/* as in the server: a write to a client that has gone must fail
	 * with EPIPE, not kill the process */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < ninstances; i++) {
		struct sm_error err = {{0}, {0}};
		char label[32], http_path[512], socks_path[512];
		cJSON *o;

		snprintf(label, sizeof label, "instance-%d", i);
		policy.label = label;
		instances[i] = egress_start(loop, &policy, on_violation, (void *)(intptr_t)i, &err);
		if (instances[i] == NULL) {
			fprintf(stderr, "egress-run: %s: %s\n", err.code, err.message);
			return 1;
		}
		if (unix_dir != NULL) {
			snprintf(http_path, sizeof http_path, "%s/http-%d.sock", unix_dir, i);
			snprintf(socks_path, sizeof socks_path, "%s/socks-%d.sock", unix_dir, i);
			if (egress_listen_unix(instances[i], http_path, socks_path, 100 + i, &err) != 0) {
				fprintf(stderr, "egress-run: %s\n", err.message);
				return 1;
			}
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "event", "ready");
		cJSON_AddNumberToObject(o, "instance", i);
		cJSON_AddNumberToObject(o, "http", egress_http_port(instances[i]));
		cJSON_AddNumberToObject(o, "socks", egress_socks_port(instances[i]));
		print_json(o);
	}
	uv_signal_init(loop, &sigterm);
	uv_signal_start(&sigterm, on_signal, SIGTERM);
	uv_signal_init(loop, &sigint);
	uv_signal_start(&sigint, on_signal, SIGINT);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	return 0;
}
