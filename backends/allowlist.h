/*
 * allowlist: the egress decision.  Given the host a sandboxed process asks
 * a proxy to reach, say whether it may, and why.
 *
 * The order is fixed: an invalid host is refused; the deny list (cloud
 * metadata endpoints, telemetry collectors) beats every allow; with the
 * network disabled everything else is refused; otherwise the host must
 * match the allowlist (curated baseline + GitHub + the spec's
 * egressAllowlist).  After a permitted name is resolved, every address it
 * resolved to is checked again (allowlist_address_check) so a name cannot
 * smuggle a connection to loopback, link-local, metadata or this host's
 * own addresses (DNS rebinding).
 *
 * Everything here is pure except allowlist_host_addresses, which reads
 * the host's interface addresses for that last check.
 *
 * Host names are compared in their ASCII form: non-ASCII input is refused
 * (IDNA names must arrive as punycode, "xn--..."), so no Unicode mapping
 * happens here and a homograph cannot match an entry by normalisation.
 */
#ifndef SANDMUX_ALLOWLIST_H
#define SANDMUX_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr;
struct sm_error;

#define ALLOWLIST_HOST_MAX 254 /* 253 characters + NUL */

enum allowlist_reason {
	ALLOWLIST_ALLOWED = 0,	    /* matched an allowlist entry */
	ALLOWLIST_INVALID_HOST,	    /* not a host name or IP literal we accept */
	ALLOWLIST_DENYLIST,	    /* on the fixed deny list */
	ALLOWLIST_NETWORK_DISABLED, /* networkEnabled false */
	ALLOWLIST_NOT_ALLOWLISTED,  /* matched nothing */
	ALLOWLIST_FORBIDDEN_ADDRESS /* resolved to a forbidden address */
};

/* An IP address in a canonical form: IPv4 (also when it arrived as an
 * IPv4-mapped IPv6 address) in 4 bytes, IPv6 in 16. */
struct allowlist_ip {
	int family; /* AF_INET or AF_INET6 */
	uint8_t bytes[16];
};

struct allowlist_decision {
	bool allowed;
	enum allowlist_reason reason;
	/* The entry or deny rule that decided, "" when none did. */
	char rule[ALLOWLIST_HOST_MAX];
	/* The normalised host: lower case, no trailing dot, IPv6 without
	 * brackets in canonical text.  "" when invalid. */
	char host[ALLOWLIST_HOST_MAX];
	bool is_ip;
	struct allowlist_ip ip; /* when is_ip */
};

/* The host's own addresses (for allowlist_address_check). */
struct allowlist_addrs {
	struct allowlist_ip *v;
	size_t n;
};

struct allowlist;

/* Built-in lists, NULL-terminated, exposed for docs and tests. */
extern const char *const allowlist_baseline[]; /* LLM providers, Git hosts, registries */
extern const char *const allowlist_github[];
extern const char *const allowlist_deny_names[]; /* metadata and telemetry names */
extern const char *const allowlist_deny_ips[];	 /* metadata addresses */

/* Check one allowlist entry as written in a config or spec.  Returns 0,
 * or -1 with err (code invalid_allowlist_entry) saying what is wrong. */
int allowlist_entry_check(const char *entry, struct sm_error *err);

/* A session's allowlist: baseline + GitHub + extra (the spec's
 * egressAllowlist), or nothing at all when network_enabled is false.
 * Every extra entry is checked; the first bad one fails the whole list
 * (NULL, err set).  The caller owns the result. */
struct allowlist *allowlist_new(bool network_enabled, const char *const *extra, size_t nextra,
				struct sm_error *err);
/* One more entry on a live list (a grant from the feed or `sandmux
 * allow`), checked like a config entry.  The deny list still comes
 * first in every decision, so no entry can open a deny-listed host.
 * Returns 0, or -1 with err (invalid_allowlist_entry; invalid_state
 * when the list was made with the network disabled). */
int allowlist_add(struct allowlist *a, const char *entry, struct sm_error *err);
void allowlist_free(struct allowlist *a);
size_t allowlist_count(const struct allowlist *a);

/* The decision for host (a name, an IPv4 literal, or an IPv6 literal with
 * or without brackets; no port). */
void allowlist_decide(const struct allowlist *a, const char *host, struct allowlist_decision *out);

/* Parse an IP literal (IPv6 brackets allowed) into canonical form.
 * Returns 0, or -1 when text is not a strict IP literal. */
int allowlist_ip_parse(const char *text, struct allowlist_ip *out);
/* Canonical form of a socket address (AF_INET / AF_INET6); -1 otherwise. */
int allowlist_ip_from_sockaddr(const struct sockaddr *sa, struct allowlist_ip *out);

/* May a permitted name connect to this resolved address?  Returns true,
 * or false with *why naming the class ("loopback", "link-local",
 * "metadata", "unspecified", "multicast", "reserved", "own address"). */
bool allowlist_address_check(const struct allowlist_ip *ip, const struct allowlist_addrs *own,
			     const char **why);

/* The host's interface addresses (getifaddrs).  Returns 0 or -1. */
int allowlist_host_addresses(struct allowlist_addrs *out);
void allowlist_addrs_free(struct allowlist_addrs *addrs);

/* "denylist", "not allowlisted", ... as reported in violations. */
const char *allowlist_reason_text(enum allowlist_reason reason);

#endif
