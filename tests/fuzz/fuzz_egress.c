/*
 * fuzz_egress: the egress proxies' request parsers, which read bytes
 * straight from a sandboxed (untrusted) process.  The first byte picks
 * the parser: HTTP request head (CONNECT / absolute URI, with the
 * rewritten head), SOCKS5 greeting, or SOCKS5 request.  Results are
 * checked for the invariants the proxy relies on: consumed lengths
 * within the input, a NUL-terminated host, a forward head within its
 * buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char forward[EGRESS_HTTP_FORWARD_MAX];
	uint8_t *buf;
	size_t consumed = 0;

	if (size < 1)
		return 0;
	/* An exact-size heap copy: any read past the end is caught. */
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	switch (data[0] % 3) {
	case 0: {
		struct egress_http_request req;
		if (egress_parse_http_request((const char *)buf, size - 1, &req, forward,
					      sizeof forward) == EGRESS_PARSE_OK) {
			check(req.head_len <= size - 1);
			check(memchr(req.host, '\0', sizeof req.host) != NULL);
			check(req.forward_len <= sizeof forward);
		}
		break;
	}
	case 1:
		if (egress_parse_socks_greeting(buf, size - 1, &consumed) == EGRESS_PARSE_OK)
			check(consumed <= size - 1);
		break;
	default: {
		struct egress_socks_request req;
		if (egress_parse_socks_request(buf, size - 1, &req) == EGRESS_PARSE_OK) {
			check(req.consumed <= size - 1);
			check(memchr(req.host, '\0', sizeof req.host) != NULL);
		}
		break;
	}
	}
	free(buf);
	return 0;
}
