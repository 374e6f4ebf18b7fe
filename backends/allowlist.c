/*
 * allowlist: the egress decision (see allowlist.h for the order of the
 * rules).  An entry is one of four shapes, each compared against the
 * normalised host:
 *
 *   exact      github.com              that name only
 *   leading    *.github.com            any name below it, at any depth,
 *                                      never github.com itself
 *   middle     bedrock.*.amazonaws.com exactly one label in place of *
 *   IP         140.82.112.3, [::1]     that address only
 *
 * Everything that could make an entry wider than its author meant is
 * refused when the entry is loaded: URLs, paths, ports, a bare `*`, more
 * than one `*`, a `*` that is not a whole label, a `*` in the last label,
 * and a wildcard directly over a public suffix (`*.com`, `*.co.uk`,
 * `*.github.io`), where strangers own the names below.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "allowlist.h"
#include "error.h"
#include "xalloc.h"

enum entry_kind { ENTRY_EXACT, ENTRY_LEADING, ENTRY_MIDDLE, ENTRY_IP };

struct entry {
	enum entry_kind kind;
	/* a 253-character name plus the dot of a wildcard and the NUL */
	char text[ALLOWLIST_HOST_MAX + 2];   /* normalised, for reports */
	char prefix[ALLOWLIST_HOST_MAX + 2]; /* middle: "bedrock." */
	char suffix[ALLOWLIST_HOST_MAX + 2]; /* leading/middle: ".amazonaws.com"; exact: the name */
	struct allowlist_ip ip;
};

struct allowlist {
	bool network_enabled;
	struct entry *entries;
	size_t n;
};

const char *const allowlist_baseline[] = {
    /* LLM providers */
    "api.anthropic.com",
    "api.openai.com",
    "generativelanguage.googleapis.com",
    "aiplatform.googleapis.com",
    "bedrock.*.amazonaws.com",
    "bedrock-runtime.*.amazonaws.com",
    "api.mistral.ai",
    /* Git hosts */
    "gitlab.com",
    "registry.gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    /* package registries */
    "deb.debian.org",
    "security.debian.org",
    "archive.ubuntu.com",
    "security.ubuntu.com",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "pypi.org",
    "files.pythonhosted.org",
    "crates.io",
    "static.crates.io",
    "index.crates.io",
    "proxy.golang.org",
    "sum.golang.org",
    "rubygems.org",
    "repo.maven.apache.org",
    "repo1.maven.org",
    NULL,
};

const char *const allowlist_github[] = {
    "github.com",	     "*.github.com", "*.githubusercontent.com", "githubassets.com",
    "*.githubassets.com", "ghcr.io",	     NULL,
};

/* Threat: a sandboxed process asking the cloud instance-metadata service
 * for the host's credentials (SSRF to IMDS), or shipping data out through
 * a telemetry collector that accepts arbitrary payloads.  These beat every
 * allow, including the user's own entries. */
const char *const allowlist_deny_names[] = {
    /* cloud instance metadata */
    "metadata",
    "metadata.google.internal",
    "*.metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.com",
    "metadata.azure.internal",
    "metadata.tencentyun.com",
    "metadata.platformequinix.com",
    "metadata.packet.net",
    /* telemetry collectors */
    "statsig.anthropic.com",
    "statsigapi.net",
    "*.statsigapi.net",
    "*.ingest.sentry.io",
    "*.ingest.us.sentry.io",
    "*.ingest.de.sentry.io",
    "api.segment.io",
    "browser-intake-datadoghq.com",
    "http-intake.logs.datadoghq.com",
    "api.honeycomb.io",
    "dc.services.visualstudio.com",
    "vortex.data.microsoft.com",
    NULL,
};

/* Metadata services at fixed addresses: AWS/GCP/Azure/OCI/DigitalOcean
 * IMDS, AWS ECS task credentials and IPv6 IMDS, Alibaba, Azure's
 * WireServer, Oracle Cloud Classic. */
const char *const allowlist_deny_ips[] = {
    "169.254.169.254", "169.254.170.2", "fd00:ec2::254", "fd00:ec2::23",
    "100.100.100.200", "168.63.129.16", "192.0.0.192",	 NULL,
};

/* Suffixes under which strangers own the names: a wildcard directly over
 * one of these would allow an attacker's own host.  Country-code second
 * levels (co.uk, com.au, ...) are caught by looks_like_cc_second_level. */
static const char *const shared_suffixes[] = {
    "github.io",    "gitlab.io",	 "herokuapp.com",    "appspot.com",  "blogspot.com",
    "netlify.app",  "vercel.app",	 "pages.dev",	     "workers.dev",  "web.app",
    "firebaseapp.com", "azurewebsites.net", "cloudfront.net", "s3.amazonaws.com",
    "ngrok.io",	    "ngrok-free.app",	 "glitch.me",	     "fly.dev",	     "onrender.com",
    "r2.dev",	    NULL,
};

const char *allowlist_reason_text(enum allowlist_reason reason)
{
	switch (reason) {
	case ALLOWLIST_ALLOWED:
		return "allowlisted";
	case ALLOWLIST_INVALID_HOST:
		return "invalid host";
	case ALLOWLIST_DENYLIST:
		return "denylist";
	case ALLOWLIST_NETWORK_DISABLED:
		return "network disabled";
	case ALLOWLIST_NOT_ALLOWLISTED:
		return "not allowlisted";
	case ALLOWLIST_FORBIDDEN_ADDRESS:
		return "resolves to a forbidden address";
	}
	return "unknown";
}

/* --- IP literals ---------------------------------------------------------- */

static void ip_from_v4(const void *addr4, struct allowlist_ip *out)
{
	memset(out, 0, sizeof *out);
	out->family = AF_INET;
	memcpy(out->bytes, addr4, 4);
}

/* IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address: the kernel
 * connects it as IPv4, so it must be judged as IPv4 or ::ffff:169.254.169.254
 * would slip past the metadata rule. */
static void ip_from_v6(const struct in6_addr *addr6, struct allowlist_ip *out)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (memcmp(addr6->s6_addr, mapped, sizeof mapped) == 0) {
		ip_from_v4(addr6->s6_addr + 12, out);
		return;
	}
	memset(out, 0, sizeof *out);
	out->family = AF_INET6;
	memcpy(out->bytes, addr6->s6_addr, 16);
}

int allowlist_ip_parse(const char *text, struct allowlist_ip *out)
{
	char buf[INET6_ADDRSTRLEN + 2];
	size_t len;
	struct in_addr a4;
	struct in6_addr a6;

	if (text == NULL)
		return -1;
	len = strlen(text);
	if (len >= 2 && text[0] == '[' && text[len - 1] == ']') {
		if (len - 2 >= sizeof buf)
			return -1;
		memcpy(buf, text + 1, len - 2);
		buf[len - 2] = '\0';
		if (inet_pton(AF_INET6, buf, &a6) != 1)
			return -1;
		ip_from_v6(&a6, out);
		return 0;
	}
	/* inet_pton, unlike inet_aton, takes only the strict dotted quad:
	 * "127.1" or "0x7f000001" are not IP literals here (and are refused
	 * as host names, see name_is_numeric). */
	if (inet_pton(AF_INET, text, &a4) == 1) {
		ip_from_v4(&a4, out);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &a6) == 1) {
		ip_from_v6(&a6, out);
		return 0;
	}
	return -1;
}

int allowlist_ip_from_sockaddr(const struct sockaddr *sa, struct allowlist_ip *out)
{
	if (sa == NULL)
		return -1;
	if (sa->sa_family == AF_INET) {
		ip_from_v4(&((const struct sockaddr_in *)(const void *)sa)->sin_addr, out);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		ip_from_v6(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out);
		return 0;
	}
	return -1;
}

static void ip_format(const struct allowlist_ip *ip, char *out, size_t size)
{
	if (inet_ntop(ip->family, ip->bytes, out, size) == NULL)
		snprintf(out, size, "?");
}

static bool ip_equal(const struct allowlist_ip *a, const struct allowlist_ip *b)
{
	size_t len = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && memcmp(a->bytes, b->bytes, len) == 0;
}

static bool ip_in_prefix(const struct allowlist_ip *ip, int family, const uint8_t *net, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (ip->family != family || memcmp(ip->bytes, net, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((ip->bytes[whole] ^ net[whole]) & (0xff << (8 - rest))) == 0;
}

static bool ip_is_denied(const struct allowlist_ip *ip)
{
	for (size_t i = 0; allowlist_deny_ips[i] != NULL; i++) {
		struct allowlist_ip deny;

		if (allowlist_ip_parse(allowlist_deny_ips[i], &deny) == 0 && ip_equal(ip, &deny))
			return true;
	}
	return false;
}

/* --- host names ----------------------------------------------------------- */

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* A last label that inet_aton would read as a number ("127.1",
 * "2130706433", "0x7f.1", "0x7f000001").  Threat: the resolver turns such
 * a "name" into an address without any DNS, so it would let a name that
 * no one can register stand for an arbitrary IP. */
static bool name_is_numeric(const char *name)
{
	const char *last = strrchr(name, '.');
	const char *p;

	last = last != NULL ? last + 1 : name;
	if (last[0] == '0' && last[1] == 'x') {
		for (p = last + 2; *p != '\0'; p++)
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
				return false;
		return true;
	}
	for (p = last; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* Lower-case ASCII, one trailing dot dropped, labels 1..63 characters of
 * [a-z0-9_-], at most 253 in all.  Returns 0, or -1 with *why. */
static int name_normalise(const char *in, char *out, size_t size, const char **why)
{
	size_t len = strlen(in), label = 0;

	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0) {
		*why = "empty host name";
		return -1;
	}
	if (len > 253 || len >= size) {
		*why = "host name longer than 253 characters";
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c >= 0x80) {
			*why = "non-ASCII host name (write it in punycode, xn--...)";
			return -1;
		}
		if (c >= 'A' && c <= 'Z')
			c = c - 'A' + 'a';
		if (c == '.') {
			if (label == 0) {
				*why = "empty label in host name";
				return -1;
			}
			label = 0;
		} else if (!name_char_ok((char)c)) {
			*why = c == ':' ? "host name contains ':' (no ports)"
					: "host name contains a character not allowed in DNS names";
			return -1;
		} else if (++label > 63) {
			*why = "label longer than 63 characters";
			return -1;
		}
		out[i] = (char)c;
	}
	out[len] = '\0';
	if (label == 0) {
		*why = "empty label in host name";
		return -1;
	}
	if (name_is_numeric(out)) {
		*why = "numeric last label (not a DNS name; write IP addresses in dotted form)";
		return -1;
	}
	return 0;
}

static size_t label_count(const char *name)
{
	size_t n = 1;

	for (; *name != '\0'; name++)
		n += *name == '.';
	return n;
}

/* "co.uk", "com.au", "ac.jp": a generic second level under a two-letter
 * country code, where the registry sells the names below. */
static bool looks_like_cc_second_level(const char *suffix)
{
	static const char *const generic[] = {"co", "com", "net", "org", "ac", "gov", "edu",
					      "or", "ne", "go", "ltd", "plc", "me", NULL};
	const char *dot = strchr(suffix, '.');

	if (dot == NULL || strchr(dot + 1, '.') != NULL || strlen(dot + 1) != 2)
		return false;
	for (size_t i = 0; generic[i] != NULL; i++)
		if ((size_t)(dot - suffix) == strlen(generic[i]) &&
		    strncmp(suffix, generic[i], dot - suffix) == 0)
			return true;
	return false;
}

static bool is_public_suffix(const char *suffix)
{
	if (label_count(suffix) < 2 || looks_like_cc_second_level(suffix))
		return true;
	for (size_t i = 0; shared_suffixes[i] != NULL; i++)
		if (strcmp(suffix, shared_suffixes[i]) == 0)
			return true;
	return false;
}

/* --- entries -------------------------------------------------------------- */

static int entry_fail(struct sm_error *err, const char *entry, const char *why)
{
	sm_error_set(err, SM_ERR_INVALID_ALLOWLIST_ENTRY, "egress allowlist entry \"%s\": %s",
		     entry != NULL ? entry : "(null)", why);
	return -1;
}

/* The part after a wildcard label: a valid name, and not a public suffix. */
static int wildcard_suffix(const char *entry, const char *rest, struct entry *out,
			   struct sm_error *err)
{
	const char *why;
	char name[ALLOWLIST_HOST_MAX];

	if (name_normalise(rest, name, sizeof name, &why) != 0)
		return entry_fail(err, entry, why);
	if (is_public_suffix(name))
		return entry_fail(err, entry,
				  "a wildcard directly over a public suffix would allow names "
				  "anyone can register");
	snprintf(out->suffix, sizeof out->suffix, ".%s", name);
	return 0;
}

static int entry_parse_wildcard(const char *entry, const char *star, struct entry *out,
				struct sm_error *err)
{
	const char *why;
	size_t plen = (size_t)(star - entry);
	char prefix[ALLOWLIST_HOST_MAX];

	if (star[1] == '\0' || (star[1] == '.' && star[2] == '\0'))
		return entry_fail(err, entry,
				  plen == 0 ? "a bare * would allow everything"
					    : "a * in the last label would match any top-level "
					      "domain");
	if (star[1] != '.' || (plen > 0 && entry[plen - 1] != '.'))
		return entry_fail(err, entry, "the * must stand for a whole label (*.example.com)");
	if (plen == 0) {
		out->kind = ENTRY_LEADING;
		return wildcard_suffix(entry, star + 2, out, err);
	}
	if (plen >= sizeof prefix)
		return entry_fail(err, entry, "entry too long");
	memcpy(prefix, entry, plen - 1);
	prefix[plen - 1] = '\0';
	if (plen < 2 || prefix[plen - 2] == '.')
		return entry_fail(err, entry, "empty label in host name");
	if (name_normalise(prefix, out->prefix, sizeof out->prefix - 1, &why) != 0)
		return entry_fail(err, entry, why);
	strcat(out->prefix, ".");
	out->kind = ENTRY_MIDDLE;
	return wildcard_suffix(entry, star + 2, out, err);
}

static int entry_parse(const char *entry, struct entry *out, struct sm_error *err)
{
	const char *star, *why;

	memset(out, 0, sizeof *out);
	if (entry == NULL || entry[0] == '\0')
		return entry_fail(err, entry, "empty entry");
	if (strstr(entry, "://") != NULL)
		return entry_fail(err, entry, "a URL; write the host name only (example.com)");
	if (strchr(entry, '/') != NULL)
		return entry_fail(err, entry, "contains a path; write the host name only");
	star = strchr(entry, '*');
	if (star != NULL && strchr(star + 1, '*') != NULL)
		return entry_fail(err, entry, "more than one *");
	if (allowlist_ip_parse(entry, &out->ip) == 0) {
		out->kind = ENTRY_IP;
		ip_format(&out->ip, out->text, sizeof out->text);
		return 0;
	}
	if (star != NULL) {
		if (entry_parse_wildcard(entry, star, out, err) != 0)
			return -1;
		snprintf(out->text, sizeof out->text, "%s*%s", out->prefix, out->suffix);
		return 0;
	}
	if (strchr(entry, ':') != NULL)
		return entry_fail(err, entry, "contains ':' (no ports; IPv6 must be a valid address)");
	if (name_normalise(entry, out->suffix, sizeof out->suffix, &why) != 0)
		return entry_fail(err, entry, why);
	out->kind = ENTRY_EXACT;
	snprintf(out->text, sizeof out->text, "%s", out->suffix);
	return 0;
}

int allowlist_entry_check(const char *entry, struct sm_error *err)
{
	struct entry parsed;

	return entry_parse(entry, &parsed, err);
}

static bool ends_with(const char *s, size_t slen, const char *suffix)
{
	size_t n = strlen(suffix);

	return slen >= n && memcmp(s + slen - n, suffix, n) == 0;
}

static bool entry_match(const struct entry *e, const struct allowlist_decision *d)
{
	size_t hlen, plen, slen;
	const char *middle;

	if (e->kind == ENTRY_IP)
		return d->is_ip && ip_equal(&e->ip, &d->ip);
	if (d->is_ip)
		return false;
	hlen = strlen(d->host);
	switch (e->kind) {
	case ENTRY_EXACT:
		return strcmp(d->host, e->suffix) == 0;
	case ENTRY_LEADING:
		/* suffix starts with '.', so "example.com" itself never matches
		 * and "evilexample.com" cannot; labels are never empty. */
		return hlen > strlen(e->suffix) && ends_with(d->host, hlen, e->suffix);
	case ENTRY_MIDDLE:
		plen = strlen(e->prefix);
		slen = strlen(e->suffix);
		if (hlen <= plen + slen || strncmp(d->host, e->prefix, plen) != 0 ||
		    !ends_with(d->host, hlen, e->suffix))
			return false;
		/* exactly one label between: no dot in what * stands for */
		middle = d->host + plen;
		return memchr(middle, '.', hlen - plen - slen) == NULL;
	case ENTRY_IP:
		break;
	}
	return false;
}

/* --- the list ------------------------------------------------------------- */

static int list_add(struct allowlist *a, const char *const *entries, size_t n,
		    struct sm_error *err)
{
	struct entry *grown;

	if (n == 0)
		return 0;
	grown = xrealloc(a->entries, (a->n + n) * sizeof *grown);
	a->entries = grown;
	for (size_t i = 0; i < n; i++)
		if (entry_parse(entries[i], &a->entries[a->n + i], err) != 0)
			return -1;
	a->n += n;
	return 0;
}

static size_t count_null_terminated(const char *const *v)
{
	size_t n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

struct allowlist *allowlist_new(bool network_enabled, const char *const *extra, size_t nextra,
				struct sm_error *err)
{
	struct allowlist *a = xcalloc(1, sizeof *a);

	a->network_enabled = network_enabled;
	/* extra entries are checked even when the network is off, so a bad
	 * config is reported the same way either way */
	for (size_t i = 0; i < nextra; i++)
		if (allowlist_entry_check(extra[i], err) != 0)
			goto fail;
	if (!network_enabled)
		return a;
	if (list_add(a, allowlist_baseline, count_null_terminated(allowlist_baseline), err) != 0 ||
	    list_add(a, allowlist_github, count_null_terminated(allowlist_github), err) != 0 ||
	    list_add(a, extra, nextra, err) != 0)
		goto fail;
	return a;
fail:
	allowlist_free(a);
	return NULL;
}

int allowlist_add(struct allowlist *a, const char *entry, struct sm_error *err)
{
	struct entry parsed;

	/* A session without network stays without it: a grant cannot turn
	 * networkEnabled false into a hole. */
	if (!a->network_enabled) {
		sm_error_set(err, SM_ERR_INVALID_STATE,
			     "the network is disabled for this session: nothing can be allowed");
		return -1;
	}
	if (entry_parse(entry, &parsed, err) != 0)
		return -1;
	/* The same entry twice would only lengthen every later decision. */
	for (size_t i = 0; i < a->n; i++)
		if (a->entries[i].kind == parsed.kind && strcmp(a->entries[i].text, parsed.text) == 0)
			return 0;
	return list_add(a, &entry, 1, err);
}

void allowlist_free(struct allowlist *a)
{
	if (a == NULL)
		return;
	free(a->entries);
	free(a);
}

size_t allowlist_count(const struct allowlist *a)
{
	return a != NULL ? a->n : 0;
}

/* --- the decision --------------------------------------------------------- */

static void decide(struct allowlist_decision *out, bool allowed, enum allowlist_reason reason,
		   const char *rule)
{
	out->allowed = allowed;
	out->reason = reason;
	snprintf(out->rule, sizeof out->rule, "%s", rule != NULL ? rule : "");
}

static const char *deny_rule(const struct allowlist_decision *d)
{
	static const uint8_t ll4[4] = {169, 254, 0, 0};
	static const uint8_t ll6[16] = {0xfe, 0x80};

	if (d->is_ip) {
		/* Threat: metadata services live in link-local space on every
		 * cloud; a literal anywhere in it is refused outright. */
		if (ip_in_prefix(&d->ip, AF_INET, ll4, 16))
			return "169.254.0.0/16";
		if (ip_in_prefix(&d->ip, AF_INET6, ll6, 10))
			return "fe80::/10";
		return ip_is_denied(&d->ip) ? d->host : NULL;
	}
	for (size_t i = 0; allowlist_deny_names[i] != NULL; i++) {
		struct entry e;

		if (entry_parse(allowlist_deny_names[i], &e, NULL) == 0 && entry_match(&e, d))
			return allowlist_deny_names[i];
	}
	return NULL;
}

static int host_normalise(const char *host, struct allowlist_decision *out)
{
	const char *why;

	if (host == NULL)
		return -1;
	if (allowlist_ip_parse(host, &out->ip) == 0) {
		out->is_ip = true;
		ip_format(&out->ip, out->host, sizeof out->host);
		return 0;
	}
	if (name_normalise(host, out->host, sizeof out->host, &why) != 0) {
		out->host[0] = '\0';
		return -1;
	}
	return 0;
}

void allowlist_decide(const struct allowlist *a, const char *host, struct allowlist_decision *out)
{
	const char *rule;

	memset(out, 0, sizeof *out);
	if (host_normalise(host, out) != 0) {
		decide(out, false, ALLOWLIST_INVALID_HOST, NULL);
		return;
	}
	rule = deny_rule(out);
	if (rule != NULL) {
		decide(out, false, ALLOWLIST_DENYLIST, rule);
		return;
	}
	if (a == NULL || !a->network_enabled) {
		decide(out, false, ALLOWLIST_NETWORK_DISABLED, NULL);
		return;
	}
	for (size_t i = 0; i < a->n; i++)
		if (entry_match(&a->entries[i], out)) {
			decide(out, true, ALLOWLIST_ALLOWED, a->entries[i].text);
			return;
		}
	decide(out, false, ALLOWLIST_NOT_ALLOWLISTED, NULL);
}

/* --- resolved addresses (DNS rebinding) ----------------------------------- */

static const char *v4_forbidden(const struct allowlist_ip *ip)
{
	const uint8_t *b = ip->bytes;

	/* 0.0.0.0/8: connecting to 0.0.0.0 reaches this host on Linux */
	if (b[0] == 0)
		return "unspecified";
	if (b[0] == 127)
		return "loopback";
	if (b[0] == 169 && b[1] == 254)
		return "link-local";
	if (ip_is_denied(ip))
		return "metadata";
	if (b[0] >= 224 && b[0] <= 239)
		return "multicast";
	/* 240/4 and the broadcast address: nothing legitimate lives there */
	if (b[0] >= 240)
		return "reserved";
	return NULL;
}

static const char *v6_forbidden(const struct allowlist_ip *ip)
{
	static const uint8_t zero[12] = {0};
	static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b};
	static const uint8_t ll[16] = {0xfe, 0x80};
	const uint8_t *b = ip->bytes;

	if (memcmp(b, zero, 12) == 0) {
		static const uint8_t one[4] = {0, 0, 0, 1};
		static const uint8_t none[4] = {0, 0, 0, 0};

		if (memcmp(b + 12, none, 4) == 0)
			return "unspecified";
		if (memcmp(b + 12, one, 4) == 0)
			return "loopback";
		return "reserved"; /* deprecated IPv4-compatible addresses */
	}
	/* Threat: a NAT64 gateway would translate 64:ff9b::a9fe:a9fe to the
	 * metadata service; judge the embedded IPv4 address. */
	if (memcmp(b, nat64, 12) == 0) {
		struct allowlist_ip inner;

		ip_from_v4(b + 12, &inner);
		return v4_forbidden(&inner);
	}
	if (ip_in_prefix(ip, AF_INET6, ll, 10))
		return "link-local";
	if (b[0] == 0xff)
		return "multicast";
	if (ip_is_denied(ip))
		return "metadata";
	return NULL;
}

bool allowlist_address_check(const struct allowlist_ip *ip, const struct allowlist_addrs *own,
			     const char **why)
{
	const char *bad = ip->family == AF_INET ? v4_forbidden(ip) : v6_forbidden(ip);

	/* Threat: a permitted name whose DNS answer points at this host
	 * (services bound to its other interfaces, the proxy itself). */
	for (size_t i = 0; bad == NULL && own != NULL && i < own->n; i++)
		if (ip_equal(ip, &own->v[i]))
			bad = "own address";
	if (why != NULL)
		*why = bad;
	return bad == NULL;
}

int allowlist_host_addresses(struct allowlist_addrs *out)
{
	struct ifaddrs *list, *ifa;
	size_t n = 0;

	out->v = NULL;
	out->n = 0;
	if (getifaddrs(&list) != 0)
		return -1;
	for (ifa = list; ifa != NULL; ifa = ifa->ifa_next)
		n += ifa->ifa_addr != NULL &&
		     (ifa->ifa_addr->sa_family == AF_INET || ifa->ifa_addr->sa_family == AF_INET6);
	out->v = xcalloc(n > 0 ? n : 1, sizeof *out->v);
	for (ifa = list; ifa != NULL; ifa = ifa->ifa_next)
		if (allowlist_ip_from_sockaddr(ifa->ifa_addr, &out->v[out->n]) == 0)
			out->n++;
	freeifaddrs(list);
	return 0;
}

void allowlist_addrs_free(struct allowlist_addrs *addrs)
{
	free(addrs->v);
	addrs->v = NULL;
	addrs->n = 0;
}
