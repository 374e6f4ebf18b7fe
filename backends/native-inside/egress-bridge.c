/*
 * egress-bridge: the first process of a sandbox whose network goes only
 * through the session's egress proxies.  bwrap runs it inside the
 * sandbox's own, empty network namespace (--unshare-net: a loopback
 * interface and nothing else), where the one way out is the pane's pair
 * of Unix sockets bound in at BWRAP_EGRESS_DIR.  It starts two socat
 * bridges, 127.0.0.1:3128 -> the HTTP proxy and 127.0.0.1:1080 -> the
 * SOCKS5 proxy, sets the proxy environment, waits until both ports
 * answer, and execs the command.
 *
 *   sandmux egress-bridge SOCAT -- CMD...
 *
 * The bridges are double-forked, so the sandbox's init (bwrap) reaps
 * them and the command never sees them as its children; they die with
 * the sandbox.  Every exec takes an argv array.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwrap.h"
#include "native-inside.h"
#include "os.h"

#define BRIDGE_WAIT_MS 3000

static const struct {
	int port;
	const char *socket;
} bridges[] = {
    {BWRAP_EGRESS_HTTP_PORT, BWRAP_EGRESS_DIR "/http.sock"},
    {BWRAP_EGRESS_SOCKS_PORT, BWRAP_EGRESS_DIR "/socks.sock"},
};

static int start_bridge(const char *socat, int port, const char *socket_path)
{
	char listen[96], connect[160];
	pid_t pid;
	int status;

	snprintf(listen, sizeof listen, "TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork", port);
	snprintf(connect, sizeof connect, "UNIX-CONNECT:%s", socket_path);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *const argv[] = {(char *)socat, listen, connect, NULL};
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fork() != 0)
			_exit(0);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(socat, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static bool port_answers(int port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = os_socket_cloexec(AF_INET, SOCK_STREAM, 0);
	bool ok;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int wait_for_bridges(void)
{
	const struct timespec tick = {0, 10 * 1000 * 1000};

	for (int waited = 0; waited < BRIDGE_WAIT_MS; waited += 10) {
		bool all = true;

		for (size_t i = 0; i < sizeof bridges / sizeof bridges[0]; i++)
			all = all && port_answers(bridges[i].port);
		if (all)
			return 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* What tools read to find a proxy.  socks5h: names are resolved by the
 * proxy (the sandbox has no DNS, and the proxy must see the name to
 * judge it).  git over ssh tunnels through the HTTP proxy's CONNECT with
 * socat (socat 1.7 has no SOCKS5 client); the socat path comes from the
 * server's probe and is refused if it would need quoting. */
static void set_proxy_environment(const char *socat)
{
	char http[64], socks[64], git_ssh[512];

	snprintf(http, sizeof http, "http://127.0.0.1:%d", BWRAP_EGRESS_HTTP_PORT);
	snprintf(socks, sizeof socks, "socks5h://127.0.0.1:%d", BWRAP_EGRESS_SOCKS_PORT);
	setenv("HTTP_PROXY", http, 1);
	setenv("HTTPS_PROXY", http, 1);
	setenv("http_proxy", http, 1);
	setenv("https_proxy", http, 1);
	setenv("ALL_PROXY", socks, 1);
	setenv("all_proxy", socks, 1);
	setenv("NO_PROXY", "localhost,127.0.0.1,::1", 1);
	setenv("no_proxy", "localhost,127.0.0.1,::1", 1);
	if (strpbrk(socat, "'\"\\ $`") == NULL) {
		snprintf(git_ssh, sizeof git_ssh,
			 "ssh -o ProxyCommand='%s - PROXY:127.0.0.1:%%h:%%p,proxyport=%d'", socat,
			 BWRAP_EGRESS_HTTP_PORT);
		setenv("GIT_SSH_COMMAND", git_ssh, 1);
	}
}

int verb_egress_bridge(int argc, char **argv)
{
	const char *socat;

	if (argc < 4 || strcmp(argv[2], "--") != 0 || argv[1][0] != '/') {
		fprintf(stderr, "usage: sandmux egress-bridge /path/to/socat -- CMD...\n");
		return 2;
	}
	socat = argv[1];
	for (size_t i = 0; i < sizeof bridges / sizeof bridges[0]; i++)
		if (start_bridge(socat, bridges[i].port, bridges[i].socket) != 0) {
			fprintf(stderr, "sandmux: cannot start the egress bridge: %s\n",
				strerror(errno));
			return 126;
		}
	if (wait_for_bridges() != 0) {
		/* fail closed and loudly: a pane without its proxies would
		 * only see every connection fail without saying why */
		fprintf(stderr, "sandmux: the egress proxies did not come up inside the sandbox\n");
		return 126;
	}
	set_proxy_environment(socat);
	execvp(argv[3], argv + 3);
	fprintf(stderr, "sandmux: cannot run %s: %s\n", argv[3], strerror(errno));
	return 127;
}
