/*
 * qemu-net-guard: a preload library for the qemu of a microvm pane,
 * which refuses the guest's way to the host itself through qemu's user
 * network.
 *
 * qemu's user network (slirp) turns each guest connection into a socket
 * of qemu's on the host: a guest's 10.0.2.2 is the host's 127.0.0.1, and
 * any other destination is connected to as the user, so a guest reaches
 * every service the host binds to loopback or to its own addresses, and
 * the private networks around it.  Threat: the guest (its shell, or a
 * compromised guest kernel) talking to a host-only service (a database,
 * a dev server, a cloud metadata endpoint, the Docker API on a TCP port)
 * that trusts loopback or the local network.
 *
 * So connect, sendto and sendmsg of qemu's to an IPv4 or IPv6 address
 * are refused (ECONNREFUSED for connect, EACCES otherwise) when the
 * address is loopback, unspecified, link-local (cloud metadata is
 * 169.254.169.254), private (RFC 1918, unique local, carrier-grade NAT),
 * multicast or reserved, or one of the host's own addresses (read at
 * load).  The one exception is port 53 of the host's resolvers (its
 * /etc/resolv.conf, read at load), where slirp sends the guest's DNS
 * queries to 10.0.2.3.  Unix sockets (the egress proxies' guestfwd,
 * QMP) are not network addresses and pass.  The proxied (agent)
 * network reaches nothing but its guestfwd anyway (restrict=on); this
 * is what keeps the open network of the other profiles off the host.
 *
 * Each refusal is reported as one line "network-outbound<TAB>HOST:PORT"
 * on the file descriptor SANDMUX_GUARD_REPORT_FD (a pipe to the
 * server), which makes it a violation event of the pane (microvm.c).
 * Built as build/sandmux-qemu-net-guard.so, beside the sandmux binary.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_ADDRS 64

struct addr {
	int family;
	uint8_t bytes[16];
};

static struct addr own[MAX_ADDRS], resolvers[MAX_ADDRS];
static int nown, nresolvers;
static int report_fd = -1;

static int to_addr(const struct sockaddr *sa, struct addr *out, uint16_t *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		out->family = AF_INET;
		memcpy(out->bytes, &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

		*port = ntohs(in6->sin6_port);
		/* An IPv4-mapped address is the IPv4 address it maps. */
		if (memcmp(in6->sin6_addr.s6_addr, mapped, 12) == 0) {
			out->family = AF_INET;
			memcpy(out->bytes, in6->sin6_addr.s6_addr + 12, 4);
		} else {
			out->family = AF_INET6;
			memcpy(out->bytes, in6->sin6_addr.s6_addr, 16);
		}
		return 0;
	}
	return -1;
}

static bool same(const struct addr *a, const struct addr *b)
{
	return a->family == b->family &&
	       memcmp(a->bytes, b->bytes, a->family == AF_INET ? 4 : 16) == 0;
}

static bool in_list(const struct addr *a, const struct addr *list, int n)
{
	for (int i = 0; i < n; i++)
		if (same(a, &list[i]))
			return true;
	return false;
}

/* Loopback, unspecified, link-local, private, multicast, reserved. */
static bool local_class(const struct addr *a)
{
	const uint8_t *b = a->bytes;

	if (a->family == AF_INET)
		return b[0] == 0 || b[0] == 127 || b[0] == 10 || (b[0] == 169 && b[1] == 254) ||
		       (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168) ||
		       (b[0] == 100 && (b[1] & 0xc0) == 64) || b[0] >= 224;
	{
		static const uint8_t zero[16];
		bool loopback = memcmp(b, zero, 15) == 0 && (b[15] == 1 || b[15] == 0);

		return loopback || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
		       (b[0] & 0xfe) == 0xfc || b[0] == 0xff;
	}
}

static void report(const struct addr *a, uint16_t port)
{
	char host[INET6_ADDRSTRLEN], line[INET6_ADDRSTRLEN + 40];
	int n;

	if (report_fd < 0 || inet_ntop(a->family, a->bytes, host, sizeof host) == NULL)
		return;
	n = snprintf(line, sizeof line,
		     a->family == AF_INET6 ? "network-outbound\t[%s]:%u\n"
					   : "network-outbound\t%s:%u\n",
		     host, port);
	if (n > 0 && write(report_fd, line, (size_t)n) < 0)
		errno = 0;
}

/* The loopback addresses qemu itself listens on: libslirp joins a
 * guestfwd command to the guest through a TCP pair it makes on
 * 127.0.0.1 (socketpair with out-of-band data), and that connect is
 * qemu's own, not the guest's. */
static struct {
	struct addr a;
	uint16_t port;
} listening[MAX_ADDRS];
static int nlistening;

int listen(int fd, int backlog)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	int rc = (int)syscall(SYS_listen, fd, backlog);
	int n = __atomic_load_n(&nlistening, __ATOMIC_ACQUIRE);

	if (rc == 0 && n < MAX_ADDRS && getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    to_addr((struct sockaddr *)&ss, &listening[n].a, &listening[n].port) == 0)
		__atomic_store_n(&nlistening, n + 1, __ATOMIC_RELEASE);
	return rc;
}

static bool own_listener(const struct addr *a, uint16_t port)
{
	int n = __atomic_load_n(&nlistening, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (listening[i].port == port && same(a, &listening[i].a))
			return true;
	return false;
}

/* May qemu send to sa?  Anything but an IP address passes. */
static bool allowed(const struct sockaddr *sa, socklen_t len)
{
	struct addr a;
	uint16_t port;

	if (sa == NULL || len < sizeof(sa_family_t) || to_addr(sa, &a, &port) != 0)
		return true;
	if (port == 53 && in_list(&a, resolvers, nresolvers))
		return true;
	if (own_listener(&a, port))
		return true;
	if (!local_class(&a) && !in_list(&a, own, nown))
		return true;
	report(&a, port);
	return false;
}

__attribute__((constructor)) static void guard_load(void)
{
	const char *fd = getenv("SANDMUX_GUARD_REPORT_FD");
	struct ifaddrs *ifs = NULL;
	FILE *f;
	char line[256];

	report_fd = fd != NULL ? atoi(fd) : -1;
	if (getifaddrs(&ifs) == 0) {
		for (struct ifaddrs *i = ifs; i != NULL && nown < MAX_ADDRS; i = i->ifa_next) {
			uint16_t port;

			if (i->ifa_addr != NULL && to_addr(i->ifa_addr, &own[nown], &port) == 0)
				nown++;
		}
		freeifaddrs(ifs);
	}
	f = fopen("/etc/resolv.conf", "re");
	while (f != NULL && fgets(line, sizeof line, f) != NULL && nresolvers < MAX_ADDRS) {
		char ip[128];
		struct addr *r = &resolvers[nresolvers];

		if (sscanf(line, "nameserver %127s", ip) != 1)
			continue;
		if (inet_pton(AF_INET, ip, r->bytes) == 1)
			r->family = AF_INET, nresolvers++;
		else if (inet_pton(AF_INET6, ip, r->bytes) == 1)
			r->family = AF_INET6, nresolvers++;
	}
	if (f != NULL)
		fclose(f);
	/* The variables are qemu's alone, not the children it starts
	 * (guestfwd's socat connects only to Unix sockets anyway). */
	unsetenv("LD_PRELOAD");
	unsetenv("SANDMUX_GUARD_REPORT_FD");
}

/* The system calls themselves: the preload must not depend on finding
 * the next definition. */
int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (!allowed(sa, len)) {
		errno = ECONNREFUSED;
		return -1;
	}
	return (int)syscall(SYS_connect, fd, sa, len);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *sa,
	       socklen_t len)
{
	if (!allowed(sa, len)) {
		errno = EACCES;
		return -1;
	}
	return syscall(SYS_sendto, fd, buf, n, flags, sa, len);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (msg != NULL && !allowed(msg->msg_name, msg->msg_namelen)) {
		errno = EACCES;
		return -1;
	}
	return syscall(SYS_sendmsg, fd, msg, flags);
}
