/*
 * test_egress_parse: the proxies' request parsers as data.  HTTP heads
 * (CONNECT and absolute-URI requests, their rewrite to origin form, and
 * everything malformed), SOCKS5 greetings and requests byte by byte,
 * every prefix of a valid request being INCOMPLETE.  Random bytes are
 * tests/fuzz/fuzz_egress.c's (with invariants, not only "no crash").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"

static char forward[EGRESS_HTTP_FORWARD_MAX];

static enum egress_parse parse_http(const char *text, struct egress_http_request *req)
{
	return egress_parse_http_request(text, strlen(text), req, forward, sizeof forward);
}

/* --- HTTP ------------------------------------------------------------------ */

static void test_http_targets(void **state)
{
	static const struct {
		const char *head;
		bool connect;
		const char *host;
		uint16_t port;
	} cases[] = {
	    {"CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n", true,
	     "github.com", 443},
	    {"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n", true, "2001:db8::1", 8443},
	    {"CONNECT 10.0.0.1:22 HTTP/1.0\r\n\r\n", true, "10.0.0.1", 22},
	    {"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", false,
	     "example.com", 80},
	    {"GET HTTP://Example.COM:8080/a?b HTTP/1.1\r\n\r\n", false, "Example.COM", 8080},
	    {"GET http://[::1]:81/ HTTP/1.1\r\n\r\n", false, "::1", 81},
	    {"POST http://example.com HTTP/1.1\r\nContent-Length: 3\r\n\r\n", false,
	     "example.com", 80},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct egress_http_request req;

		if (parse_http(cases[i].head, &req) != EGRESS_PARSE_OK)
			fail_msg("case %zu not OK: %s", i, cases[i].head);
		assert_int_equal(req.connect, cases[i].connect);
		assert_string_equal(req.host, cases[i].host);
		assert_int_equal(req.port, cases[i].port);
		assert_int_equal(req.head_len, strlen(cases[i].head));
	}
}

static void test_http_rewrite(void **state)
{
	static const struct {
		const char *head;
		const char *forward;
	} cases[] = {
	    {"GET http://example.com/a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n"
	     "Proxy-Connection: Keep-Alive\r\nUser-Agent: t\r\n\r\n",
	     "GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nUser-Agent: t\r\n"
	     "Connection: close\r\n\r\n"},
	    /* no path: "/"; a query alone gets the slash in front */
	    {"GET http://example.com HTTP/1.0\r\n\r\n",
	     "GET / HTTP/1.0\r\nHost: example.com\r\nConnection: close\r\n\r\n"},
	    {"GET http://example.com?q HTTP/1.1\r\n\r\n",
	     "GET /?q HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"},
	    /* the Host header is the URI's, never the client's own */
	    {"GET http://allowed.test:8080/ HTTP/1.1\r\nHost: evil.test\r\nhost: evil2.test\r\n"
	     "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\n\r\n",
	     "GET / HTTP/1.1\r\nHost: allowed.test:8080\r\nConnection: close\r\n\r\n"},
	    /* headers that merely start like a dropped one are kept */
	    {"PUT http://e.test/x HTTP/1.1\r\nHostile: 1\r\nConnection-Id: 2\r\nContent-Length: 0\r\n\r\n",
	     "PUT /x HTTP/1.1\r\nHost: e.test\r\nHostile: 1\r\nConnection-Id: 2\r\n"
	     "Content-Length: 0\r\nConnection: close\r\n\r\n"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct egress_http_request req;

		assert_int_equal(parse_http(cases[i].head, &req), EGRESS_PARSE_OK);
		assert_false(req.connect);
		assert_int_equal(req.forward_len, strlen(cases[i].forward));
		if (memcmp(forward, cases[i].forward, req.forward_len) != 0)
			fail_msg("case %zu forwarded:\n%.*s", i, (int)req.forward_len, forward);
	}
}

static void test_http_malformed(void **state)
{
	static const struct {
		const char *head;
		enum egress_parse want;
	} cases[] = {
	    {"", EGRESS_PARSE_INCOMPLETE},
	    {"CONNECT github.com:443 HTTP/1.1\r\n", EGRESS_PARSE_INCOMPLETE},
	    {"CONNECT github.com:443 HTTP/1.1\r\n\r", EGRESS_PARSE_INCOMPLETE},
	    {"CONNECT github.com HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},    /* no port */
	    {"CONNECT github.com:0 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},  /* port 0 */
	    {"CONNECT github.com:65536 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT github.com:+443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT github.com:443x HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT 2001:db8::1:443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD}, /* unbracketed */
	    {"CONNECT [2001:db8::1 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT [github.com]:443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT [::1]x:443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT :443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"CONNECT user@github.com:443 HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://allowed.test@evil.test/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET https://example.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET /relative HTTP/1.1\r\nHost: example.com\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET ftp://example.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http:// HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http:///x HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/2.0\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1 \r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET  http://example.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/\r\n\r\n", EGRESS_PARSE_BAD},
	    {"G(T http://example.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"\r\n\r\n", EGRESS_PARSE_BAD},
	    /* smuggling shapes */
	    {"GET http://example.com/ HTTP/1.1\nHost: x\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\nHost : x\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\nNoColon\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\n: empty\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\nX: a\rb\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://exa\x01mple.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://example.com/ HTTP/1.1\r\nX: \x7f\r\n\r\n", EGRESS_PARSE_BAD},
	    {"GET http://ex\\ample.com/ HTTP/1.1\r\n\r\n", EGRESS_PARSE_BAD},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct egress_http_request req;
		enum egress_parse got = parse_http(cases[i].head, &req);

		if (got != cases[i].want)
			fail_msg("case %zu: got %d want %d: %s", i, got, cases[i].want,
				 cases[i].head);
	}
}

static void test_http_nul_and_sizes(void **state)
{
	static const char nul[] = "GET http://a.test/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
	struct egress_http_request req;
	char *big = malloc(EGRESS_HTTP_HEAD_MAX + 64);
	size_t n;

	assert_int_equal(egress_parse_http_request(nul, sizeof nul - 1, &req, forward,
						   sizeof forward),
			 EGRESS_PARSE_BAD);

	/* a head that never ends: INCOMPLETE until the limit, then TOO_LARGE */
	n = (size_t)snprintf(big, EGRESS_HTTP_HEAD_MAX, "GET http://a.test/ HTTP/1.1\r\n");
	memset(big + n, 'x', EGRESS_HTTP_HEAD_MAX + 64 - n);
	assert_int_equal(egress_parse_http_request(big, EGRESS_HTTP_HEAD_MAX - 1, &req, forward,
						   sizeof forward),
			 EGRESS_PARSE_INCOMPLETE);
	assert_int_equal(egress_parse_http_request(big, EGRESS_HTTP_HEAD_MAX, &req, forward,
						   sizeof forward),
			 EGRESS_PARSE_TOO_LARGE);
	/* a blank line just past the limit does not count */
	memcpy(big + EGRESS_HTTP_HEAD_MAX - 2, "\r\n\r\n", 4);
	assert_int_equal(egress_parse_http_request(big, EGRESS_HTTP_HEAD_MAX + 2, &req, forward,
						   sizeof forward),
			 EGRESS_PARSE_TOO_LARGE);

	/* the rewrite must fit the caller's buffer */
	assert_int_equal(egress_parse_http_request("GET http://a.test/ HTTP/1.1\r\n\r\n", 31,
						   &req, forward, 20),
			 EGRESS_PARSE_TOO_LARGE);
	free(big);
}

static void test_http_body_after_head(void **state)
{
	static const char text[] = "CONNECT a.test:443 HTTP/1.1\r\n\r\n\x16\x03\x01 tls";
	struct egress_http_request req;

	assert_int_equal(egress_parse_http_request(text, sizeof text - 1, &req, forward,
						   sizeof forward),
			 EGRESS_PARSE_OK);
	assert_int_equal(req.head_len, strlen("CONNECT a.test:443 HTTP/1.1\r\n\r\n"));
}

static void test_http_every_prefix_incomplete(void **state)
{
	static const char text[] = "GET http://example.com:8080/p HTTP/1.1\r\nA: b\r\n\r\n";
	struct egress_http_request req;

	for (size_t n = 0; n < sizeof text - 1; n++)
		if (egress_parse_http_request(text, n, &req, forward, sizeof forward) !=
		    EGRESS_PARSE_INCOMPLETE)
			fail_msg("prefix of %zu bytes not INCOMPLETE", n);
}

/* --- SOCKS5 ---------------------------------------------------------------- */

static void test_socks_greeting(void **state)
{
	static const struct {
		uint8_t bytes[8];
		size_t len;
		enum egress_parse want;
		size_t consumed;
	} cases[] = {
	    {{5, 1, 0}, 3, EGRESS_PARSE_OK, 3},
	    {{5, 2, 2, 0}, 4, EGRESS_PARSE_OK, 4},
	    {{5, 2, 0, 2, 0xaa}, 5, EGRESS_PARSE_OK, 4},
	    {{5, 1, 2}, 3, EGRESS_PARSE_UNSUPPORTED, 3}, /* only user/password */
	    {{5, 0}, 2, EGRESS_PARSE_BAD, 0},
	    {{4, 1, 0}, 3, EGRESS_PARSE_BAD, 0}, /* SOCKS4 */
	    {{'G', 'E', 'T'}, 3, EGRESS_PARSE_BAD, 0},
	    {{5}, 1, EGRESS_PARSE_INCOMPLETE, 0},
	    {{5, 3, 0}, 3, EGRESS_PARSE_INCOMPLETE, 0},
	    {{0}, 0, EGRESS_PARSE_INCOMPLETE, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t used = 99;

		assert_int_equal(egress_parse_socks_greeting(cases[i].bytes, cases[i].len, &used),
				 cases[i].want);
		if (cases[i].want == EGRESS_PARSE_OK || cases[i].want == EGRESS_PARSE_UNSUPPORTED)
			assert_int_equal(used, cases[i].consumed);
	}
}

static void test_socks_requests(void **state)
{
	static const struct {
		uint8_t bytes[40];
		size_t len;
		enum egress_parse want;
		const char *host;
		uint16_t port;
		uint8_t reply;
	} cases[] = {
	    {{5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90}, 10, EGRESS_PARSE_OK, "127.0.0.1", 8080, 0},
	    {{5, 1, 0, 3, 10, 'g', 'i', 't', 'h', 'u', 'b', '.', 'c', 'o', 'm', 1, 187},
	     17,
	     EGRESS_PARSE_OK,
	     "github.com",
	     443,
	     0},
	    {{5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80},
	     22,
	     EGRESS_PARSE_OK,
	     "2001:0db8:0000:0000:0000:0000:0000:0001",
	     80,
	     0},
	    {{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, 10, EGRESS_PARSE_UNSUPPORTED, "", 0, 7}, /* BIND */
	    {{5, 3, 0, 1, 1, 2, 3, 4, 0, 80}, 10, EGRESS_PARSE_UNSUPPORTED, "", 0, 7}, /* UDP */
	    {{5, 1, 0, 9, 1, 2, 3, 4, 0, 80}, 10, EGRESS_PARSE_UNSUPPORTED, "", 0, 8},
	    {{5, 1, 1, 1, 1, 2, 3, 4, 0, 80}, 10, EGRESS_PARSE_BAD, "", 0, 0}, /* RSV */
	    {{4, 1, 0, 1, 1, 2, 3, 4, 0, 80}, 10, EGRESS_PARSE_BAD, "", 0, 0},
	    {{5, 1, 0, 1, 1, 2, 3, 4, 0, 0}, 10, EGRESS_PARSE_BAD, "", 0, 0}, /* port 0 */
	    {{5, 1, 0, 3, 0, 0, 80}, 7, EGRESS_PARSE_BAD, "", 0, 0},	      /* empty name */
	    {{5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80}, 10, EGRESS_PARSE_BAD, "", 0, 0}, /* NUL */
	    {{5, 1, 0, 3, 10, 'g', 'i', 't'}, 8, EGRESS_PARSE_INCOMPLETE, "", 0, 0},
	    {{5, 1, 0, 1, 1, 2, 3, 4, 0}, 9, EGRESS_PARSE_INCOMPLETE, "", 0, 0},
	    {{5, 1, 0, 4, 0}, 5, EGRESS_PARSE_INCOMPLETE, "", 0, 0},
	    {{5, 1}, 2, EGRESS_PARSE_INCOMPLETE, "", 0, 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct egress_socks_request req;
		enum egress_parse got = egress_parse_socks_request(cases[i].bytes, cases[i].len, &req);

		if (got != cases[i].want)
			fail_msg("case %zu: got %d want %d", i, got, cases[i].want);
		if (got == EGRESS_PARSE_OK) {
			assert_string_equal(req.host, cases[i].host);
			assert_int_equal(req.port, cases[i].port);
			assert_int_equal(req.consumed, cases[i].len);
		}
		if (got == EGRESS_PARSE_UNSUPPORTED)
			assert_int_equal(req.reply, cases[i].reply);
	}
}

static void test_socks_long_name(void **state)
{
	uint8_t buf[5 + 255 + 2 + 4];
	struct egress_socks_request req;

	buf[0] = 5, buf[1] = 1, buf[2] = 0, buf[3] = 3, buf[4] = 255;
	memset(buf + 5, 'a', 255);
	buf[260] = 0, buf[261] = 80;
	memcpy(buf + 262, "tail", 4);
	assert_int_equal(egress_parse_socks_request(buf, sizeof buf, &req), EGRESS_PARSE_OK);
	assert_int_equal(strlen(req.host), 255);
	assert_int_equal(req.consumed, 262);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_http_targets),
	    cmocka_unit_test(test_http_rewrite),
	    cmocka_unit_test(test_http_malformed),
	    cmocka_unit_test(test_http_nul_and_sizes),
	    cmocka_unit_test(test_http_body_after_head),
	    cmocka_unit_test(test_http_every_prefix_incomplete),
	    cmocka_unit_test(test_socks_greeting),
	    cmocka_unit_test(test_socks_requests),
	    cmocka_unit_test(test_socks_long_name),
		};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
