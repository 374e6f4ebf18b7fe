/*
 * egress-parse: the proxies' request parsers, pure functions over the
 * bytes read so far (declared in egress.h).  They run on input from a
 * sandboxed process, so they are strict: anything two HTTP parsers could
 * read differently (bare LF, obs-fold, whitespace before a colon, control
 * characters, userinfo in the URI) is malformed, sizes are bounded, and
 * nothing is ever read past len.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "egress.h"

/* --- HTTP ------------------------------------------------------------------ */

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Where the head ends ("\r\n\r\n" included), or 0 when it does not end
 * within the first limit bytes. */
static size_t head_end(const char *buf, size_t len, size_t limit)
{
	size_t n = len < limit ? len : limit;

	for (size_t i = 0; i + 3 < n; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n')
			return i + 4;
	return 0;
}

/* Threat: request smuggling and header injection.  Only CRLF line ends,
 * no NUL or other control characters except HTAB. */
static bool head_bytes_ok(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 >= len || buf[i + 1] != '\n')
				return false;
		} else if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return false;
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			return false;
		}
	}
	return true;
}

static int parse_port(const char *s, size_t len, uint16_t *out)
{
	unsigned long v = 0;

	if (len == 0 || len > 5)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

/* "host:port", "[v6]:port", or (when default_port) "host" / "[v6]".
 * The host is copied without brackets; the allowlist judges it. */
static int parse_authority(const char *s, size_t len, uint16_t default_port, char *host,
			   size_t host_size, uint16_t *port)
{
	const char *host_start = s, *colon;
	size_t host_len;

	if (len == 0 || memchr(s, '@', len) != NULL)
		return -1; /* userinfo: "allowed.test@evil.test" reads two ways */
	if (s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (close == NULL)
			return -1;
		host_start = s + 1;
		host_len = (size_t)(close - host_start);
		if (memchr(host_start, ':', host_len) == NULL)
			return -1; /* brackets are for IPv6 only */
		colon = close + 1 < s + len ? close + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return -1;
	} else {
		colon = memchr(s, ':', len);
		host_len = colon != NULL ? (size_t)(colon - s) : len;
		if (colon != NULL && memchr(colon + 1, ':', len - (size_t)(colon + 1 - s)) != NULL)
			return -1; /* an unbracketed IPv6 address */
	}
	if (host_len == 0 || host_len >= host_size)
		return -1;
	for (size_t i = 0; i < host_len; i++)
		if (host_start[i] == ' ' || host_start[i] == '/' || host_start[i] == '\\')
			return -1;
	memcpy(host, host_start, host_len);
	host[host_len] = '\0';
	if (colon == NULL) {
		if (default_port == 0)
			return -1;
		*port = default_port;
		return 0;
	}
	return parse_port(colon + 1, len - (size_t)(colon + 1 - s), port);
}

struct line {
	const char *p;
	size_t len;
};

/* The next CRLF-terminated line at *pos (the head is known to be CRLF
 * clean and to end with an empty line). */
static struct line next_line(const char *buf, size_t *pos)
{
	struct line l = {buf + *pos, 0};

	while (buf[*pos + l.len] != '\r')
		l.len++;
	*pos += l.len + 2;
	return l;
}

static bool header_is(struct line l, const char *name)
{
	size_t n = strlen(name);

	return l.len > n && l.p[n] == ':' && strncasecmp(l.p, name, n) == 0;
}

/* Hop-by-hop and proxy headers are not forwarded; Host is replaced by
 * the URI's authority so the origin sees the host that was judged
 * (threat: a Host header naming another site on a shared front end). */
static bool header_dropped(struct line l)
{
	static const char *const dropped[] = {"host",	    "connection",	 "proxy-connection",
					      "keep-alive", "proxy-authorization", "te",
					      "upgrade",    NULL};

	for (size_t i = 0; dropped[i] != NULL; i++)
		if (header_is(l, dropped[i]))
			return true;
	return false;
}

static bool header_line_ok(struct line l)
{
	size_t i = 0;

	while (i < l.len && is_tchar((unsigned char)l.p[i]))
		i++;
	/* a name, then the colon at once: "Host : x" and folded lines are
	 * read differently by different servers */
	return i > 0 && i < l.len && l.p[i] == ':';
}

struct out_buf {
	char *p;
	size_t size, len;
	bool overflow;
};

static void out_put(struct out_buf *o, const char *s, size_t n)
{
	if (o->len + n > o->size) {
		o->overflow = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void out_str(struct out_buf *o, const char *s)
{
	out_put(o, s, strlen(s));
}

/* The request line: METHOD SP TARGET SP HTTP/1.x */
static int parse_request_line(struct line l, struct line *method, struct line *target,
			      struct line *version)
{
	const char *sp1 = memchr(l.p, ' ', l.len), *sp2;

	if (sp1 == NULL)
		return -1;
	sp2 = memchr(sp1 + 1, ' ', l.len - (size_t)(sp1 + 1 - l.p));
	if (sp2 == NULL)
		return -1;
	*method = (struct line){l.p, (size_t)(sp1 - l.p)};
	*target = (struct line){sp1 + 1, (size_t)(sp2 - sp1 - 1)};
	*version = (struct line){sp2 + 1, l.len - (size_t)(sp2 + 1 - l.p)};
	if (method->len == 0 || method->len > 32 || target->len == 0 ||
	    memchr(target->p, ' ', target->len) != NULL)
		return -1;
	for (size_t i = 0; i < method->len; i++)
		if (!is_tchar((unsigned char)method->p[i]))
			return -1;
	if (version->len != 8 ||
	    (memcmp(version->p, "HTTP/1.1", 8) != 0 && memcmp(version->p, "HTTP/1.0", 8) != 0))
		return -1;
	return 0;
}

static enum egress_parse rewrite_plain(const char *buf, size_t pos, struct line method,
				       struct line target, struct line version,
				       struct egress_http_request *out, char *forward,
				       size_t forward_size)
{
	static const char scheme[] = "http://";
	const size_t slen = sizeof scheme - 1;
	struct out_buf o = {forward, forward_size, 0, false};
	const char *auth, *path;
	size_t alen, plen;

	/* only http: an https URI in a plain request would have us speak TLS
	 * for the client, and clients use CONNECT for that */
	if (target.len <= slen || strncasecmp(target.p, scheme, slen) != 0)
		return EGRESS_PARSE_BAD;
	auth = target.p + slen;
	alen = 0;
	while (alen < target.len - slen && strchr("/?#", auth[alen]) == NULL)
		alen++;
	if (parse_authority(auth, alen, 80, out->host, sizeof out->host, &out->port) != 0)
		return EGRESS_PARSE_BAD;
	path = auth + alen;
	plen = target.len - slen - alen;
	out_put(&o, method.p, method.len);
	out_str(&o, " ");
	if (plen == 0 || path[0] != '/')
		out_str(&o, "/");
	out_put(&o, path, plen);
	out_str(&o, " ");
	out_put(&o, version.p, version.len);
	out_str(&o, "\r\nHost: ");
	out_put(&o, auth, alen);
	out_str(&o, "\r\n");
	for (;;) {
		struct line l = next_line(buf, &pos);

		if (l.len == 0)
			break;
		if (header_dropped(l))
			continue;
		out_put(&o, l.p, l.len);
		out_str(&o, "\r\n");
	}
	out_str(&o, "Connection: close\r\n\r\n");
	if (o.overflow)
		return EGRESS_PARSE_TOO_LARGE;
	out->forward_len = o.len;
	return EGRESS_PARSE_OK;
}

enum egress_parse egress_parse_http_request(const char *buf, size_t len,
					    struct egress_http_request *out, char *forward,
					    size_t forward_size)
{
	struct line method, target, version, l;
	size_t end, pos = 0;

	memset(out, 0, sizeof *out);
	end = head_end(buf, len, EGRESS_HTTP_HEAD_MAX);
	if (end == 0)
		return len >= EGRESS_HTTP_HEAD_MAX ? EGRESS_PARSE_TOO_LARGE : EGRESS_PARSE_INCOMPLETE;
	if (!head_bytes_ok(buf, end))
		return EGRESS_PARSE_BAD;
	out->head_len = end;
	l = next_line(buf, &pos);
	if (parse_request_line(l, &method, &target, &version) != 0)
		return EGRESS_PARSE_BAD;
	/* every header line must be well formed, forwarded or not */
	for (size_t p = pos;;) {
		struct line h = next_line(buf, &p);

		if (h.len == 0)
			break;
		if (!header_line_ok(h))
			return EGRESS_PARSE_BAD;
	}
	if (method.len == 7 && memcmp(method.p, "CONNECT", 7) == 0) {
		out->connect = true;
		if (parse_authority(target.p, target.len, 0, out->host, sizeof out->host,
				    &out->port) != 0)
			return EGRESS_PARSE_BAD;
		return EGRESS_PARSE_OK;
	}
	return rewrite_plain(buf, pos, method, target, version, out, forward, forward_size);
}

/* --- SOCKS5 ---------------------------------------------------------------- */

enum egress_parse egress_parse_socks_greeting(const uint8_t *buf, size_t len, size_t *consumed)
{
	size_t n;

	*consumed = 0;
	if (len == 0)
		return EGRESS_PARSE_INCOMPLETE;
	if (buf[0] != 5)
		return EGRESS_PARSE_BAD;
	if (len < 2)
		return EGRESS_PARSE_INCOMPLETE;
	n = buf[1];
	if (n == 0)
		return EGRESS_PARSE_BAD;
	if (len < 2 + n)
		return EGRESS_PARSE_INCOMPLETE;
	*consumed = 2 + n;
	return memchr(buf + 2, 0x00, n) != NULL ? EGRESS_PARSE_OK : EGRESS_PARSE_UNSUPPORTED;
}

static enum egress_parse socks_unsupported(struct egress_socks_request *out, uint8_t reply)
{
	out->reply = reply;
	return EGRESS_PARSE_UNSUPPORTED;
}

enum egress_parse egress_parse_socks_request(const uint8_t *buf, size_t len,
					     struct egress_socks_request *out)
{
	size_t need;

	memset(out, 0, sizeof *out);
	if (len >= 1 && buf[0] != 5)
		return EGRESS_PARSE_BAD;
	if (len >= 2 && buf[1] != 1)
		return socks_unsupported(out, EGRESS_SOCKS_COMMAND_NOT_SUPPORTED);
	if (len >= 3 && buf[2] != 0)
		return EGRESS_PARSE_BAD;
	if (len < 5)
		return EGRESS_PARSE_INCOMPLETE;
	out->atyp = buf[3];
	switch (buf[3]) {
	case 1:
		need = 4 + 4 + 2;
		break;
	case 3:
		if (buf[4] == 0)
			return EGRESS_PARSE_BAD;
		need = 5 + buf[4] + 2;
		break;
	case 4:
		need = 4 + 16 + 2;
		break;
	default:
		return socks_unsupported(out, EGRESS_SOCKS_ADDRESS_NOT_SUPPORTED);
	}
	if (len < need)
		return EGRESS_PARSE_INCOMPLETE;
	if (buf[3] == 1) {
		snprintf(out->host, sizeof out->host, "%u.%u.%u.%u", buf[4], buf[5], buf[6], buf[7]);
	} else if (buf[3] == 4) {
		static const char hex[] = "0123456789abcdef";
		char *p = out->host;

		/* full form; the allowlist canonicalises it */
		for (int i = 0; i < 16; i += 2) {
			if (i > 0)
				*p++ = ':';
			*p++ = hex[buf[4 + i] >> 4];
			*p++ = hex[buf[4 + i] & 15];
			*p++ = hex[buf[5 + i] >> 4];
			*p++ = hex[buf[5 + i] & 15];
		}
		*p = '\0';
	} else {
		/* a NUL would cut the name short of what the client meant */
		if (memchr(buf + 5, '\0', buf[4]) != NULL)
			return EGRESS_PARSE_BAD;
		memcpy(out->host, buf + 5, buf[4]);
		out->host[buf[4]] = '\0';
	}
	out->port = (uint16_t)(buf[need - 2] << 8 | buf[need - 1]);
	if (out->port == 0)
		return EGRESS_PARSE_BAD;
	out->consumed = need;
	return EGRESS_PARSE_OK;
}
