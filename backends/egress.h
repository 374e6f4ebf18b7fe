/*
 * egress: a session's outbound network, as two proxies that run in the
 * server's libuv loop.  The HTTP proxy takes CONNECT tunnels and plain
 * requests in absolute form; the SOCKS5 proxy takes CONNECT with a domain
 * name, IPv4 or IPv6 address and no authentication.  Both listen on
 * 127.0.0.1 at ports the kernel picks, and optionally on Unix sockets
 * (what a sandbox gets bound in).  Every target is judged by the
 * allowlist (allowlist.h); every refusal is answered properly (HTTP 403,
 * SOCKS5 reply 2) and reported through the violation callback.
 *
 * Ownership: egress_start returns an egress the caller owns until it
 * calls egress_close, which closes every listener and tunnel and frees
 * the egress once libuv has let go of its handles; the caller must not
 * touch it after that.  One egress serves one session: never share one.
 *
 * The request parsers are pure functions over a byte buffer, so they can
 * be unit-tested and fuzzed without a loop.
 */
#ifndef SANDMUX_EGRESS_H
#define SANDMUX_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "allowlist.h"
#include "sandbox.h"

struct sm_error;

/* The largest HTTP request head the proxy reads before giving up (431). */
#define EGRESS_HTTP_HEAD_MAX 16384
/* Room for a rewritten plain-HTTP head: the original, a Host and a
 * Connection header. */
#define EGRESS_HTTP_FORWARD_MAX (EGRESS_HTTP_HEAD_MAX + 512)

struct egress_policy {
	bool network_enabled; /* false: every connection is refused */
	const char *const *allowlist; /* the spec's egressAllowlist */
	size_t nallowlist;
	unsigned connect_timeout_ms; /* resolve + connect; 0: 10 s */
	unsigned idle_timeout_ms;    /* no bytes either way; 0: 10 min */
	const char *label;	     /* for the log, e.g. the session name */
};

/* A refused (or, in ask mode, held) connection: the violation as every
 * source reports one (sandbox.h; action network-outbound, source egress,
 * reason, protocol, detail), which the server completes with the pane's
 * fields, and what the proxies know besides. */
struct egress_violation {
	struct sandbox_violation violation;
	const char *host; /* as the client named it */
	uint16_t port;
	enum allowlist_reason reason;
	int tag; /* the Unix listener's tag; -1 on 127.0.0.1 */
};

typedef void (*egress_violation_fn)(void *user, const struct egress_violation *v);

struct egress;

struct egress *egress_start(uv_loop_t *loop, const struct egress_policy *policy,
			    egress_violation_fn on_violation, void *user, struct sm_error *err);
int egress_http_port(const struct egress *eg);
int egress_socks_port(const struct egress *eg);
/* Also listen on a pair of Unix sockets at these paths (created 0600,
 * removed when closed; the caller owns the directory).  Connections
 * through them carry tag into their violations, so a session's proxies
 * can tell which pane asked.  Returns 0 or -1 with err. */
int egress_listen_unix(struct egress *eg, const char *http_path, const char *socks_path, int tag,
		       struct sm_error *err);
/* More allowlist entries for the connections of one tag (a pane's
 * profile's egress_allowlist), asked only when the session's allowlist
 * matches nothing: the deny list and a disabled network still refuse.
 * Each entry is checked (invalid_allowlist_entry); n == 0 does nothing.
 * They go with egress_unlisten_unix of the same tag. */
int egress_tag_allow(struct egress *eg, int tag, const char *const *entries, size_t n,
		     struct sm_error *err);
/* Stop listening on the Unix sockets with this tag (open tunnels stay). */
void egress_unlisten_unix(struct egress *eg, int tag);
/* Allow one more allowlist entry from now on (allowlist_add): the next
 * connection to it is judged with it; nothing refused before is
 * replayed.  Returns 0 or -1 with err. */
int egress_allow(struct egress *eg, const char *entry, struct sm_error *err);

/* Ask mode (a profile's "network": "ask").  A client of a Unix listener
 * marked with egress_ask_unix whose host is merely not on the list is
 * held, unanswered, for up to EGRESS_ASK_MS; on_ask (set once, called
 * with the egress's user) says so.  Only a person's answer makes the
 * proxy reply: egress_allow lets every held client of a host it now
 * allows go on, egress_refuse_held refuses them (returns how many), and
 * the time running out refuses them too.  Deny-listed, invalid and
 * network-disabled hosts are never held. */
#define EGRESS_ASK_MS 30000
void egress_on_ask(struct egress *eg, egress_violation_fn on_ask);
void egress_ask_unix(struct egress *eg, int tag, bool ask);
int egress_refuse_held(struct egress *eg, const char *host);
void egress_close(struct egress *eg);

/* --- parsers ------------------------------------------------------------- */

enum egress_parse {
	EGRESS_PARSE_OK = 0,
	EGRESS_PARSE_INCOMPLETE,  /* read more */
	EGRESS_PARSE_BAD,	  /* malformed: HTTP 400, SOCKS general failure */
	EGRESS_PARSE_TOO_LARGE,	  /* HTTP head over EGRESS_HTTP_HEAD_MAX: 431 */
	EGRESS_PARSE_UNSUPPORTED, /* SOCKS: command or address type; no usable auth method */
};

struct egress_http_request {
	bool connect;	 /* CONNECT host:port; else a plain absolute-URI request */
	char host[256];	 /* without brackets */
	uint16_t port;	 /* 443 is never assumed: CONNECT names it; plain defaults to 80 */
	size_t head_len; /* bytes of buf the head used (through the blank line) */
	/* plain requests: the head to send upstream, in origin form, with
	 * Host set from the URI and Connection: close */
	size_t forward_len;
};

/* Parse an HTTP proxy request head from buf[0..len).  For a plain
 * request the rewritten head goes to forward (EGRESS_HTTP_FORWARD_MAX
 * bytes).  Bytes after head_len belong to the tunnel or the body. */
enum egress_parse egress_parse_http_request(const char *buf, size_t len,
					    struct egress_http_request *out, char *forward,
					    size_t forward_size);

/* SOCKS5 greeting: VER NMETHODS METHODS.  OK when "no authentication"
 * is offered, UNSUPPORTED when it is not (reply 0xff). */
enum egress_parse egress_parse_socks_greeting(const uint8_t *buf, size_t len, size_t *consumed);

/* SOCKS5 request reply codes (RFC 1928). */
enum {
	EGRESS_SOCKS_OK = 0,
	EGRESS_SOCKS_GENERAL_FAILURE = 1,
	EGRESS_SOCKS_NOT_ALLOWED = 2,
	EGRESS_SOCKS_HOST_UNREACHABLE = 4,
	EGRESS_SOCKS_CONNECTION_REFUSED = 5,
	EGRESS_SOCKS_TTL_EXPIRED = 6,
	EGRESS_SOCKS_COMMAND_NOT_SUPPORTED = 7,
	EGRESS_SOCKS_ADDRESS_NOT_SUPPORTED = 8,
};

struct egress_socks_request {
	uint8_t atyp; /* 1 IPv4, 3 domain, 4 IPv6 */
	char host[256];
	uint16_t port;
	size_t consumed;
	uint8_t reply; /* when UNSUPPORTED: the reply code to send */
};

/* SOCKS5 request: VER CMD RSV ATYP DST.ADDR DST.PORT.  Only CONNECT. */
enum egress_parse egress_parse_socks_request(const uint8_t *buf, size_t len,
					     struct egress_socks_request *out);

#endif
