/*
 * test_allowlist: the egress decision as data.  Each table row is a host
 * and the decision and reason expected for it; entries are checked at
 * load the same way; resolved addresses are judged for DNS rebinding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "allowlist.h"
#include "error.h"

enum { ALLOW = 1, DENY = 0 };

struct decision_case {
	const char *host;
	int allowed;
	enum allowlist_reason reason;
};

static const char *const spec_extras[] = {
    "*.example.com",	"Internal.Corp.", "api.*.service.test", "203.0.113.7", "[2001:db8::7]",
    "xn--bcher-kva.example", "metadata-proxy.test", "169.254.169.254",
};

static void run_cases(const struct allowlist *a, const struct decision_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct allowlist_decision d;

		allowlist_decide(a, cases[i].host, &d);
		if (d.allowed != (cases[i].allowed == ALLOW) || d.reason != cases[i].reason)
			fail_msg("host \"%s\": got %s (%s), want %s (%s)",
				 cases[i].host ? cases[i].host : "(null)",
				 d.allowed ? "allow" : "deny", allowlist_reason_text(d.reason),
				 cases[i].allowed ? "allow" : "deny",
				 allowlist_reason_text(cases[i].reason));
	}
}

static struct allowlist *make_list(bool network_enabled)
{
	struct sm_error err = {{0}, {0}};
	struct allowlist *a = allowlist_new(network_enabled, spec_extras,
					    sizeof spec_extras / sizeof spec_extras[0], &err);

	if (a == NULL)
		fail_msg("allowlist_new: %s", err.message);
	return a;
}

/* --- the decision ----------------------------------------------------------- */

static void test_decisions(void **state)
{
	static const struct decision_case cases[] = {
	    /* baseline and GitHub */
	    {"api.anthropic.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"api.openai.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"generativelanguage.googleapis.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"registry.npmjs.org", ALLOW, ALLOWLIST_ALLOWED},
	    {"pypi.org", ALLOW, ALLOWLIST_ALLOWED},
	    {"files.pythonhosted.org", ALLOW, ALLOWLIST_ALLOWED},
	    {"static.crates.io", ALLOW, ALLOWLIST_ALLOWED},
	    {"proxy.golang.org", ALLOW, ALLOWLIST_ALLOWED},
	    {"deb.debian.org", ALLOW, ALLOWLIST_ALLOWED},
	    {"github.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"api.github.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"codeload.github.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"raw.githubusercontent.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"a.b.c.githubusercontent.com", ALLOW, ALLOWLIST_ALLOWED},
	    /* lookalikes */
	    {"malicious-github.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"github.com.evil.net", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"evilgithub.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"githubusercontent.com.evil.net", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"evil-githubusercontent.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"api.anthropic.com.evil.net", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"xapi.anthropic.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"anthropic.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"github.co", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    /* leading wildcard: any depth, never the apex */
	    {"a.example.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"a.b.c.example.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"example.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"notexample.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"example.com.evil.net", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    /* middle wildcard: exactly one label */
	    {"bedrock.us-east-1.amazonaws.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"bedrock-runtime.eu-west-3.amazonaws.com", ALLOW, ALLOWLIST_ALLOWED},
	    {"bedrock.evil.attacker.amazonaws.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"bedrock.amazonaws.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"xbedrock.us-east-1.amazonaws.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"bedrock.us-east-1.amazonaws.com.evil.net", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"api.one.service.test", ALLOW, ALLOWLIST_ALLOWED},
	    {"api.one.two.service.test", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"api..service.test", DENY, ALLOWLIST_INVALID_HOST},
	    /* case and trailing dot */
	    {"GitHub.COM", ALLOW, ALLOWLIST_ALLOWED},
	    {"github.com.", ALLOW, ALLOWLIST_ALLOWED},
	    {"API.GITHUB.COM.", ALLOW, ALLOWLIST_ALLOWED},
	    {"internal.corp", ALLOW, ALLOWLIST_ALLOWED},
	    {"INTERNAL.CORP.", ALLOW, ALLOWLIST_ALLOWED},
	    {"github.com..", DENY, ALLOWLIST_INVALID_HOST},
	    /* punycode is compared as ASCII; raw Unicode is refused */
	    {"xn--bcher-kva.example", ALLOW, ALLOWLIST_ALLOWED},
	    {"XN--BCHER-KVA.EXAMPLE.", ALLOW, ALLOWLIST_ALLOWED},
	    {"b\xc3\xbc" "cher.example", DENY, ALLOWLIST_INVALID_HOST},
	    {"xn--github-6za.com", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"g\xd1\x96thub.com", DENY, ALLOWLIST_INVALID_HOST},
	    /* IP literals: only when listed exactly */
	    {"203.0.113.7", ALLOW, ALLOWLIST_ALLOWED},
	    {"203.0.113.8", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"2001:db8::7", ALLOW, ALLOWLIST_ALLOWED},
	    {"[2001:db8::7]", ALLOW, ALLOWLIST_ALLOWED},
	    {"[2001:DB8:0:0::7]", ALLOW, ALLOWLIST_ALLOWED},
	    {"[2001:db8::8]", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"::ffff:203.0.113.7", ALLOW, ALLOWLIST_ALLOWED},
	    {"140.82.112.3", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"127.0.0.1", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    {"[::1]", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	    /* numeric forms the resolver would turn into addresses */
	    {"127.1", DENY, ALLOWLIST_INVALID_HOST},
	    {"2130706433", DENY, ALLOWLIST_INVALID_HOST},
	    {"0x7f000001", DENY, ALLOWLIST_INVALID_HOST},
	    {"0x7f.0.0.1", DENY, ALLOWLIST_INVALID_HOST},
	    {"203.0.113.007", DENY, ALLOWLIST_INVALID_HOST},
	    /* the deny list beats every allow, the spec's own included */
	    {"169.254.169.254", DENY, ALLOWLIST_DENYLIST},
	    {"[::ffff:169.254.169.254]", DENY, ALLOWLIST_DENYLIST},
	    {"169.254.1.1", DENY, ALLOWLIST_DENYLIST},
	    {"169.254.170.2", DENY, ALLOWLIST_DENYLIST},
	    {"fd00:ec2::254", DENY, ALLOWLIST_DENYLIST},
	    {"[FD00:EC2:0::254]", DENY, ALLOWLIST_DENYLIST},
	    {"[fe80::1]", DENY, ALLOWLIST_DENYLIST},
	    {"100.100.100.200", DENY, ALLOWLIST_DENYLIST},
	    {"168.63.129.16", DENY, ALLOWLIST_DENYLIST},
	    {"metadata.google.internal", DENY, ALLOWLIST_DENYLIST},
	    {"METADATA.google.internal.", DENY, ALLOWLIST_DENYLIST},
	    {"computeMetadata.metadata.google.internal", DENY, ALLOWLIST_DENYLIST},
	    {"metadata", DENY, ALLOWLIST_DENYLIST},
	    {"metadata.azure.com", DENY, ALLOWLIST_DENYLIST},
	    {"statsig.anthropic.com", DENY, ALLOWLIST_DENYLIST},
	    {"o123.ingest.sentry.io", DENY, ALLOWLIST_DENYLIST},
	    {"o123.ingest.us.sentry.io", DENY, ALLOWLIST_DENYLIST},
	    /* a spec entry the deny list does not cover is honoured */
	    {"metadata-proxy.test", ALLOW, ALLOWLIST_ALLOWED},
	    /* garbage */
	    {"", DENY, ALLOWLIST_INVALID_HOST},
	    {NULL, DENY, ALLOWLIST_INVALID_HOST},
	    {".", DENY, ALLOWLIST_INVALID_HOST},
	    {"github.com:443", DENY, ALLOWLIST_INVALID_HOST},
	    {"git hub.com", DENY, ALLOWLIST_INVALID_HOST},
	    {"github.com/x", DENY, ALLOWLIST_INVALID_HOST},
	    {"user@github.com", DENY, ALLOWLIST_INVALID_HOST},
	    {"github%2ecom", DENY, ALLOWLIST_INVALID_HOST},
	    {"github.com\nevil", DENY, ALLOWLIST_INVALID_HOST},
	    {"[fe80::1%eth0]", DENY, ALLOWLIST_INVALID_HOST},
	    {"[203.0.113.7]", DENY, ALLOWLIST_INVALID_HOST},
	    {"a.-.b", DENY, ALLOWLIST_NOT_ALLOWLISTED},
	};
	struct allowlist *a = make_list(true);

	run_cases(a, cases, sizeof cases / sizeof cases[0]);
	allowlist_free(a);
}

static void test_long_names(void **state)
{
	char label64[80], long_name[300];
	struct allowlist_decision d;
	struct allowlist *a = make_list(true);

	memset(label64, 'a', 64);
	strcpy(label64 + 64, ".example.com");
	allowlist_decide(a, label64, &d);
	assert_int_equal(d.reason, ALLOWLIST_INVALID_HOST);
	label64[1] = '.'; /* now labels of 1 and 62 */
	allowlist_decide(a, label64, &d);
	assert_int_equal(d.reason, ALLOWLIST_ALLOWED);

	for (size_t i = 0; i < 250; i += 2)
		memcpy(long_name + i, "a.", 2);
	strcpy(long_name + 250, "example.com");
	allowlist_decide(a, long_name, &d);
	assert_int_equal(d.reason, ALLOWLIST_INVALID_HOST);
	allowlist_free(a);
}

static void test_network_disabled(void **state)
{
	static const struct decision_case cases[] = {
	    {"api.anthropic.com", DENY, ALLOWLIST_NETWORK_DISABLED},
	    {"github.com", DENY, ALLOWLIST_NETWORK_DISABLED},
	    {"a.example.com", DENY, ALLOWLIST_NETWORK_DISABLED},
	    {"203.0.113.7", DENY, ALLOWLIST_NETWORK_DISABLED},
	    /* the deny list still names itself */
	    {"169.254.169.254", DENY, ALLOWLIST_DENYLIST},
	    {"metadata.google.internal", DENY, ALLOWLIST_DENYLIST},
	    {"bad host", DENY, ALLOWLIST_INVALID_HOST},
	};
	struct allowlist *a = make_list(false);

	assert_int_equal(allowlist_count(a), 0);
	run_cases(a, cases, sizeof cases / sizeof cases[0]);
	allowlist_free(a);
	run_cases(NULL, cases, sizeof cases / sizeof cases[0]);
}

static void test_rule_reported(void **state)
{
	struct allowlist_decision d;
	struct allowlist *a = make_list(true);

	allowlist_decide(a, "x.y.example.com", &d);
	assert_string_equal(d.rule, "*.example.com");
	assert_string_equal(d.host, "x.y.example.com");
	allowlist_decide(a, "bedrock.us-west-2.amazonaws.com.", &d);
	assert_string_equal(d.rule, "bedrock.*.amazonaws.com");
	assert_string_equal(d.host, "bedrock.us-west-2.amazonaws.com");
	allowlist_decide(a, "[2001:DB8::7]", &d);
	assert_true(d.is_ip);
	assert_string_equal(d.host, "2001:db8::7");
	allowlist_decide(a, "[::ffff:169.254.169.254]", &d);
	assert_string_equal(d.host, "169.254.169.254");
	assert_string_equal(d.rule, "169.254.0.0/16");
	allowlist_free(a);
}

/* --- entries at load -------------------------------------------------------- */

static void test_entries(void **state)
{
	static const struct {
		const char *entry;
		int ok;
		const char *message; /* part of the error */
	} cases[] = {
	    {"example.com", 1, NULL},
	    {"Example.COM.", 1, NULL},
	    {"*.example.com", 1, NULL},
	    {"bedrock.*.amazonaws.com", 1, NULL},
	    {"a.b.*.example.com", 1, NULL},
	    {"203.0.113.7", 1, NULL},
	    {"2001:db8::1", 1, NULL},
	    {"[2001:db8::1]", 1, NULL},
	    {"xn--bcher-kva.example", 1, NULL},
	    {"*.example.co.za.net", 1, NULL},
	    {"https://example.com", 0, "URL"},
	    {"example.com/path", 0, "path"},
	    {"*", 0, "bare *"},
	    {"*.", 0, "bare *"},
	    {"*.com", 0, "public suffix"},
	    {"*.com.", 0, "public suffix"},
	    {"*.co.uk", 0, "public suffix"},
	    {"*.com.au", 0, "public suffix"},
	    {"*.github.io", 0, "public suffix"},
	    {"api.*.com", 0, "public suffix"},
	    {"*.*.example.com", 0, "more than one"},
	    {"a*.example.com", 0, "whole label"},
	    {"*a.example.com", 0, "whole label"},
	    {"a.*b.example.com", 0, "whole label"},
	    {"example.*", 0, "top-level"},
	    {"github.*", 0, "top-level"},
	    {"..*.example.com", 0, "empty label"},
	    {"a..*.example.com", 0, "empty label"},
	    {"*..example.com", 0, "empty label"},
	    {"example.com:443", 0, "':'"},
	    {"", 0, "empty"},
	    {NULL, 0, "empty"},
	    {"b\xc3\xbc" "cher.example", 0, "punycode"},
	    {"*.b\xc3\xbc" "cher.example", 0, "punycode"},
	    {"exa mple.com", 0, "character"},
	    {"127.1", 0, "numeric"},
	    {"10.*.0.1", 0, "numeric"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sm_error err = {{0}, {0}};
		int rc = allowlist_entry_check(cases[i].entry, &err);

		if ((rc == 0) != cases[i].ok)
			fail_msg("entry \"%s\": rc %d (%s)", cases[i].entry ? cases[i].entry : "(null)",
				 rc, err.message);
		if (cases[i].ok)
			continue;
		assert_string_equal(err.code, "invalid_allowlist_entry");
		if (strstr(err.message, cases[i].message) == NULL)
			fail_msg("entry \"%s\": message \"%s\" lacks \"%s\"",
				 cases[i].entry ? cases[i].entry : "(null)", err.message,
				 cases[i].message);
	}
}

static void test_bad_entry_fails_list(void **state)
{
	static const char *const extras[] = {"ok.example.com", "*.com"};
	struct sm_error err = {{0}, {0}};

	assert_null(allowlist_new(true, extras, 2, &err));
	assert_non_null(strstr(err.message, "\"*.com\""));
	memset(&err, 0, sizeof err);
	assert_null(allowlist_new(false, extras, 2, &err));
	assert_string_equal(err.code, "invalid_allowlist_entry");
}

static void test_builtin_lists_load(void **state)
{
	const char *const *lists[] = {allowlist_baseline, allowlist_github, allowlist_deny_names,
				      allowlist_deny_ips};

	for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
		for (size_t i = 0; lists[l][i] != NULL; i++) {
			struct sm_error err = {{0}, {0}};

			if (allowlist_entry_check(lists[l][i], &err) != 0)
				fail_msg("built-in entry %s: %s", lists[l][i], err.message);
		}
}

/* --- resolved addresses ----------------------------------------------------- */

static void test_addresses(void **state)
{
	static const struct {
		const char *addr;
		const char *why; /* NULL: allowed */
	} cases[] = {
	    {"140.82.112.3", NULL},
	    {"10.1.2.3", NULL},
	    {"192.168.1.10", NULL},
	    {"2606:4700::6810:84e5", NULL},
	    {"fd12:3456::1", NULL},
	    {"127.0.0.1", "loopback"},
	    {"127.255.0.9", "loopback"},
	    {"::1", "loopback"},
	    {"::ffff:127.0.0.1", "loopback"},
	    {"0.0.0.0", "unspecified"},
	    {"0.1.2.3", "unspecified"},
	    {"::", "unspecified"},
	    {"169.254.169.254", "link-local"},
	    {"169.254.3.4", "link-local"},
	    {"fe80::1", "link-local"},
	    {"febf::1", "link-local"},
	    {"fd00:ec2::254", "metadata"},
	    {"100.100.100.200", "metadata"},
	    {"168.63.129.16", "metadata"},
	    {"224.0.0.1", "multicast"},
	    {"239.255.255.250", "multicast"},
	    {"ff02::1", "multicast"},
	    {"255.255.255.255", "reserved"},
	    {"240.0.0.1", "reserved"},
	    {"::a9fe:a9fe", "reserved"},
	    {"64:ff9b::a9fe:a9fe", "link-local"},
	    {"64:ff9b::7f00:1", "loopback"},
	    {"64:ff9b::8c52:7003", NULL},
	    {"198.51.100.20", "own address"},
	    {"2001:db8::20", "own address"},
	    {"::ffff:198.51.100.20", "own address"},
	};
	struct allowlist_ip own_v[2];
	struct allowlist_addrs own = {own_v, 2};

	assert_int_equal(allowlist_ip_parse("198.51.100.20", &own_v[0]), 0);
	assert_int_equal(allowlist_ip_parse("2001:db8::20", &own_v[1]), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct allowlist_ip ip;
		const char *why = "unset";
		bool ok;

		assert_int_equal(allowlist_ip_parse(cases[i].addr, &ip), 0);
		ok = allowlist_address_check(&ip, &own, &why);
		if (ok != (cases[i].why == NULL) ||
		    (cases[i].why != NULL && (why == NULL || strcmp(why, cases[i].why) != 0)))
			fail_msg("address %s: %s (%s), want %s", cases[i].addr,
				 ok ? "allowed" : "forbidden", why ? why : "-",
				 cases[i].why ? cases[i].why : "allowed");
	}
}

static void test_sockaddr_and_host_addresses(void **state)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct allowlist_ip ip;
	struct allowlist_addrs own;
	const char *why;

	inet_pton(AF_INET6, "::ffff:169.254.169.254", &sin6.sin6_addr);
	assert_int_equal(allowlist_ip_from_sockaddr((struct sockaddr *)&sin6, &ip), 0);
	assert_int_equal(ip.family, AF_INET);
	assert_false(allowlist_address_check(&ip, NULL, &why));
	assert_string_equal(why, "link-local");

	/* every address of this host is "own", loopback included */
	assert_int_equal(allowlist_host_addresses(&own), 0);
	for (size_t i = 0; i < own.n; i++)
		assert_false(allowlist_address_check(&own.v[i], &own, &why));
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	assert_int_equal(allowlist_ip_from_sockaddr((struct sockaddr *)&sin, &ip), 0);
	assert_false(allowlist_address_check(&ip, &own, &why));
	allowlist_addrs_free(&own);
	assert_null(own.v);
}

static void test_reason_texts(void **state)
{
	assert_string_equal(allowlist_reason_text(ALLOWLIST_DENYLIST), "denylist");
	assert_string_equal(allowlist_reason_text(ALLOWLIST_NOT_ALLOWLISTED), "not allowlisted");
	assert_string_equal(allowlist_reason_text(ALLOWLIST_FORBIDDEN_ADDRESS),
			    "resolves to a forbidden address");
	assert_string_equal(allowlist_reason_text(ALLOWLIST_NETWORK_DISABLED), "network disabled");
}

/* A grant (allowlist_add) lets the name through from then on, once
 * only however often it is added, never past the deny list, and not at
 * all into a list made with the network off. */
static void test_grants(void **state)
{
	struct allowlist *a = allowlist_new(true, NULL, 0, NULL), *off = allowlist_new(false, NULL, 0, NULL);
	struct allowlist_decision d;
	struct sm_error err = { 0 };
	size_t before = allowlist_count(a);

	(void)state;
	allowlist_decide(a, "grant.test", &d);
	assert_false(d.allowed);
	assert_int_equal(allowlist_add(a, "grant.test", &err), 0);
	allowlist_decide(a, "GRANT.test.", &d);
	assert_true(d.allowed);
	assert_string_equal(d.rule, "grant.test");
	assert_int_equal(allowlist_add(a, "Grant.Test", &err), 0);
	assert_int_equal(allowlist_count(a), before + 1);
	assert_int_equal(allowlist_add(a, "metadata.google.internal", &err), 0);
	allowlist_decide(a, "metadata.google.internal", &d);
	assert_false(d.allowed);
	assert_int_equal(d.reason, ALLOWLIST_DENYLIST);
	assert_int_equal(allowlist_add(a, "http://x.test/", &err), -1);
	assert_string_equal(err.code, "invalid_allowlist_entry");
	assert_int_equal(allowlist_add(off, "grant.test", &err), -1);
	assert_string_equal(err.code, "invalid_state");
	allowlist_decide(off, "grant.test", &d);
	assert_false(d.allowed);
	allowlist_free(a);
	allowlist_free(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decisions),
	    cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_network_disabled),
	    cmocka_unit_test(test_rule_reported),
	    cmocka_unit_test(test_entries),
	    cmocka_unit_test(test_bad_entry_fails_list),
	    cmocka_unit_test(test_builtin_lists_load),
	    cmocka_unit_test(test_addresses),
	    cmocka_unit_test(test_sockaddr_and_host_addresses),
	    cmocka_unit_test(test_reason_texts),
	    cmocka_unit_test(test_grants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
