/*
 * egress: a session's HTTP and SOCKS5 proxies in the server's libuv loop
 * (see egress.h).  A connection goes through these states:
 *
 *   HEAD / SOCKS_GREETING / SOCKS_REQUEST   read and parse the request
 *   RESOLVING    uv_getaddrinfo of a permitted name (client reads paused)
 *   CONNECTING   uv_tcp_connect, trying each resolved address in turn
 *   TUNNEL       bytes flow both ways until both sides are done
 *   REFUSING     the refusal is written, the client's rest is drained
 *
 * A tunnel has two sides.  Once it is established, both sockets leave
 * their libuv streams for poll handles, and each direction is a tight
 * loop: read up to RELAY_BUF into the direction's one buffer, write it
 * straight to the other socket, read again.  A side is not read while
 * bytes from it are still unwritten: that is the backpressure, so a fast
 * sender cannot make the server buffer more than one buffer per
 * direction, and the large ones are counted across the server.
 * A direction that reads a lot at once is a bulk flow: its socket then
 * wakes the proxy only once RELAY_GATHER bytes wait (SO_RCVLOWAT), until
 * the flow pauses for RELAY_LULL_MS.
 * EOF from one side shuts down writing to the other (half-close);
 * the tunnel ends when both directions are shut down, on any error, or
 * after idle_timeout_ms without a byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <time.h>

#include "egress.h"
#include "error.h"
#include "log.h"
#include "os.h"
#include "xalloc.h"

/* What one direction of a tunnel reads at once, and so holds at most:
 * bytes read from one side, not yet written to the other.  Large,
 * because the cost of a bulk transfer through the proxy is less per byte
 * than per read, write and wakeup, at both ends as well as here: a
 * loopback socket often holds more than 1 MiB when the proxy gets to it,
 * and reading all of it at once (4 MiB reads average about 1 MB, 1 MiB
 * ones about 0.5 MB) cuts the CPU of the whole transfer by about a
 * quarter (see Performance in docs/network.md; 8 MiB did no better). */
#define RELAY_BUF (4 * 1024 * 1024)
/* Threat: a sandbox opening many tunnels to a fast server and reading
 * none of them, so that each direction holds a full buffer (MAX_CONNS
 * tunnels could make the server hold 32 GiB).  At most RELAY_BUFS_MAX buffers of RELAY_BUF
 * exist at once, pooled ones included (64 MiB); past that a direction
 * reads through a RELAY_BUF_SMALL one, slower but still moving. */
#define RELAY_BUFS_MAX 16
#define RELAY_BUF_SMALL (256 * 1024)
/* A direction moves at most this many buffers per wakeup (8 MiB, as
 * before with 8 x 1 MiB), so one busy tunnel cannot starve the rest of
 * the loop for more than a few milliseconds. */
#define RELAY_ROUNDS 2
/* A loopback or LAN sender outruns the proxy's wakeups: woken at the
 * first segment, the proxy would read 64 KiB, send it on (waking the
 * receiver for as little), and be woken again at once: in the bench,
 * two reads in three were under 128 KiB, and a wakeup moved about 1 MB.
 * So once one read returns RELAY_GATHER bytes or more, the socket's
 * receive low-water mark is raised to RELAY_GATHER: a wakeup then moves
 * about 4 MB, and the tunnel's throughput rose by about 15%
 * (docs/network.md, Performance).
 * EOF, errors and a full receive window still wake the proxy at once.
 * What stays below the mark when the flow pauses (the tail of a
 * response) is read when no wakeup came for RELAY_LULL_MS, and the mark
 * goes back to 1 byte: so a bulk flow's tail can wait about a
 * millisecond, and interactive traffic, which never reads that much at
 * once, is not touched. */
#define RELAY_GATHER (256 * 1024)
#define RELAY_LULL_MS 1
#define REFUSE_LINGER_MS 2000
#define OWN_ADDRESSES_TTL_MS 1000
/* Threat: a sandbox opening connections until the server runs out of
 * file descriptors, which would take every other session down with it. */
#define MAX_CONNS 4096
#define SOCKS_HEAD_MAX 600

enum proto { PROTO_HTTP, PROTO_SOCKS };

enum conn_state {
	ST_HEAD,
	ST_SOCKS_GREETING,
	ST_SOCKS_REQUEST,
	ST_RESOLVING,
	ST_CONNECTING,
	ST_TUNNEL,
	ST_REFUSING,
	ST_ASKING, /* held for a person's answer (ask mode), the client unanswered */
};

struct proxy_conn;

struct chunk;

struct side {
	union {
		uv_handle_t handle;
		uv_stream_t stream;
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	} h; /* until the tunnel is established */
	uv_poll_t poll; /* in the tunnel: the readiness of fd */
	struct proxy_conn *conn;
	int fd;		 /* in the tunnel: our duplicate of the socket, else -1 */
	bool open;	 /* h initialised and not yet closed */
	bool polling;	 /* poll initialised and not yet closed */
	int events;	 /* what poll waits for now (UV_READABLE, UV_WRITABLE) */
	bool eof;	 /* the peer will send no more */
	bool shut;	 /* our write side is shut down */
	bool gathering;	 /* in the tunnel: SO_RCVLOWAT is RELAY_GATHER */
	unsigned queued; /* writes to h not yet completed */
	uv_shutdown_t shutdown_req;
	/* bytes read from this side (or the proxy's answer on its behalf),
	 * not yet written to the other */
	struct chunk *buf;
	size_t buf_off, buf_len;
};

/* One client of a proxy and its upstream (named apart from the server's
 * struct conn, a client of the protocol socket). */
struct proxy_conn {
	struct egress *eg;
	enum proto proto;
	enum conn_state state;
	int tag; /* the listener's */
	struct side client, upstream;
	uv_timer_t timer;
	uv_getaddrinfo_t gai;
	uv_connect_t connect_req;
	int refs; /* open handles + a pending getaddrinfo */
	bool closing;
	bool counted_tunnel;
	bool gai_pending;
	bool http_connect; /* answered 200 when the tunnel opens */
	bool relaying;	   /* the sockets are on poll handles */
	char *head; /* the request so far, until the tunnel starts */
	size_t head_len, head_cap;
	struct chunk *pending; /* bytes for upstream once connected */
	size_t npending;
	char host[256];
	uint16_t port;
	char target[300];
	struct addrinfo *addrs, *next_addr;
	struct sockaddr_storage literal;
	bool is_literal, literal_tried;
	struct proxy_conn *prev, *next;
};

/* A write and its bytes in one allocation. */
struct chunk {
	uv_write_t req;
	size_t cap;
	bool relay_buf; /* of RELAY_BUF: counted and recycled */
	char data[];
};

/* A listening socket: TCP on 127.0.0.1 (tag -1) or a Unix socket with
 * the caller's tag (the pane it was made for). */
struct listener {
	union {
		uv_handle_t handle;
		uv_stream_t stream;
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	} h;
	struct egress *eg;
	enum proto proto;
	int tag;
	bool ask; /* ask mode: an unknown host is held, not refused */
	char path[108];
	struct listener *next;
};

/* A pane's own allowlist entries (its profile's egress_allowlist), by
 * the tag of its Unix listeners: asked only when the session's list says
 * "not allowlisted", so the deny list and a disabled network still win. */
struct tag_allow {
	int tag;
	struct allowlist *allow;
	struct tag_allow *next;
};

struct egress {
	uv_loop_t *loop;
	struct allowlist *allow;
	struct tag_allow *tag_allows;
	egress_violation_fn on_violation;
	egress_violation_fn on_ask;
	void *user;
	char label[64];
	unsigned connect_timeout_ms, idle_timeout_ms;
	struct listener *listeners;
	int http_port, socks_port;
	int refs; /* listener handles still open */
	bool closing;
	struct proxy_conn *conns;
	size_t nconns, ntunnels;
	struct allowlist_addrs own;
	uint64_t own_loaded_ms;
	bool own_loaded;
};

static void conn_close(struct proxy_conn *c);
static void connect_next(struct proxy_conn *c);
static void tunnel_begin(struct proxy_conn *c);
static void tunnel_relay(struct proxy_conn *c);
static bool relay_gathering(const struct proxy_conn *c);
static void relay_lull(struct proxy_conn *c);
static void chunk_free(struct chunk *ch);

/* --- lifetime -------------------------------------------------------------- */

static void egress_maybe_free(struct egress *eg)
{
	if (!eg->closing || eg->refs > 0 || eg->conns != NULL)
		return;
	while (eg->tag_allows != NULL) {
		struct tag_allow *t = eg->tag_allows;

		eg->tag_allows = t->next;
		allowlist_free(t->allow);
		free(t);
	}
	allowlist_free(eg->allow);
	allowlist_addrs_free(&eg->own);
	free(eg);
}

static void conn_unref(struct proxy_conn *c)
{
	struct egress *eg = c->eg;

	if (--c->refs > 0)
		return;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		eg->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	eg->nconns--;
	if (c->counted_tunnel)
		eg->ntunnels--;
	if (c->addrs != NULL)
		uv_freeaddrinfo(c->addrs);
	free(c->head);
	chunk_free(c->pending);
	free(c);
	egress_maybe_free(eg);
}

static void on_handle_closed(uv_handle_t *h)
{
	conn_unref(((struct side *)h->data)->conn);
}

static void on_timer_closed(uv_handle_t *h)
{
	conn_unref(h->data);
}

static void stream_close(struct side *s)
{
	if (!s->open)
		return;
	s->open = false;
	uv_close(&s->h.handle, on_handle_closed);
}

static void side_close(struct side *s)
{
	stream_close(s);
	if (s->polling) {
		s->polling = false;
		/* uv_close has taken fd out of the loop: closing it is safe */
		uv_close((uv_handle_t *)&s->poll, on_handle_closed);
		close(s->fd);
		s->fd = -1;
	}
	chunk_free(s->buf);
	s->buf = NULL;
}

static void conn_close(struct proxy_conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	if (c->gai_pending)
		uv_cancel((uv_req_t *)&c->gai);
	uv_close((uv_handle_t *)&c->timer, on_timer_closed);
	side_close(&c->client);
	side_close(&c->upstream);
}

/* --- writing --------------------------------------------------------------- */

static void on_chunk_written(uv_write_t *req, int status);

/* Relay buffers are recycled: a fresh allocation per read comes back
 * from the kernel as new zeroed pages, which cost more than the copy
 * itself, and a recycled one is still in the cache.  A direction gives
 * its buffer back as soon as it is written out, so idle tunnels hold
 * none.  All egress instances run on the server's one loop thread, so
 * one free list and one count serve them.  The list is short, because
 * each buffer is 4 MiB the server keeps: two serve one busy tunnel in
 * both directions, or two in one. */
#define CHUNK_POOL_MAX 2
static struct chunk *chunk_pool[CHUNK_POOL_MAX];
static size_t chunk_pool_n;
static size_t relay_bufs; /* of RELAY_BUF, in use or pooled */

static struct chunk *chunk_new(size_t cap)
{
	struct chunk *ch = xmalloc(sizeof *ch + cap);

	ch->cap = cap;
	ch->relay_buf = false;
	return ch;
}

/* A buffer for one read of the relay: RELAY_BUF while the count allows,
 * else a small one (see RELAY_BUFS_MAX). */
static struct chunk *relay_buf_new(void)
{
	struct chunk *ch;

	if (chunk_pool_n > 0)
		return chunk_pool[--chunk_pool_n];
	if (relay_bufs >= RELAY_BUFS_MAX)
		return chunk_new(RELAY_BUF_SMALL);
	ch = chunk_new(RELAY_BUF);
	if (ch != NULL) {
		ch->relay_buf = true;
		relay_bufs++;
	}
	return ch;
}

static void chunk_free(struct chunk *ch)
{
	if (ch == NULL)
		return;
	if (ch->relay_buf && chunk_pool_n < CHUNK_POOL_MAX) {
		chunk_pool[chunk_pool_n++] = ch;
		return;
	}
	if (ch->relay_buf)
		relay_bufs--;
	free(ch);
}

static int side_write(struct side *to, struct chunk *ch, size_t len)
{
	uv_buf_t buf = uv_buf_init(ch->data, (unsigned)len);

	ch->req.data = to;
	if (uv_write(&ch->req, &to->h.stream, &buf, 1, on_chunk_written) != 0) {
		chunk_free(ch);
		return -1;
	}
	to->queued++;
	return 0;
}

static int side_write_copy(struct side *to, const void *data, size_t len)
{
	struct chunk *ch = chunk_new(len);

	if (ch == NULL)
		return -1;
	memcpy(ch->data, data, len);
	return side_write(to, ch, len);
}

static struct side *other_side(struct side *s)
{
	return s == &s->conn->client ? &s->conn->upstream : &s->conn->client;
}

static void on_chunk_written(uv_write_t *req, int status)
{
	struct chunk *ch = (struct chunk *)req;
	struct side *to = req->data;
	struct proxy_conn *c = to->conn;

	chunk_free(ch);
	to->queued--;
	if (c->closing)
		return;
	if (status < 0) {
		conn_close(c);
		return;
	}
	/* the SOCKS greeting's answer was still queued when the tunnel was
	 * established: the stream may be given up only now */
	if (c->state == ST_TUNNEL && !c->relaying && to->queued == 0)
		tunnel_relay(c);
}

/* --- timers ---------------------------------------------------------------- */

static void on_timeout(uv_timer_t *t);

static void timer_arm(struct proxy_conn *c, unsigned ms)
{
	uv_timer_start(&c->timer, on_timeout, ms, 0);
}

/* --- refusals and violations ----------------------------------------------- */

/* The violation of a connection refused, or held, for reason. */
static struct egress_violation conn_violation(const struct proxy_conn *c,
					      enum allowlist_reason reason, const char *detail)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (struct egress_violation){
	    .violation =
		{
		    .action = "network-outbound",
		    .target = c->target,
		    .source = "egress",
		    .time = ts.tv_sec + ts.tv_nsec / 1e9,
		    .reason = allowlist_reason_text(reason),
		    .protocol = c->proto == PROTO_HTTP ? "http" : "socks5",
		    .detail = detail != NULL && detail[0] != '\0' ? detail : NULL,
		},
	    .host = c->host,
	    .port = c->port,
	    .reason = reason,
	    .tag = c->tag,
	};
}

static void report(struct proxy_conn *c, enum allowlist_reason reason, const char *detail)
{
	struct egress_violation v = conn_violation(c, reason, detail);

	log_info("egress %s: %s %s refused: %s%s%s", c->eg->label, v.violation.protocol, c->target,
		 v.violation.reason, detail != NULL && detail[0] ? " " : "", detail ? detail : "");
	if (c->eg->on_violation != NULL)
		c->eg->on_violation(c->eg->user, &v);
}

static void on_refuse_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	static char discard[4096];

	*buf = uv_buf_init(discard, sizeof discard);
}

static void on_refuse_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	if (nread < 0)
		conn_close(((struct side *)stream->data)->conn);
}

static void on_refuse_shutdown(uv_shutdown_t *req, int status)
{
	struct proxy_conn *c = ((struct side *)req->data)->conn;

	if (status < 0 && !c->closing)
		conn_close(c);
}

/* Answer and hang up: write the message, shut down our side, then read
 * and drop what the client still sends until it hangs up too, so the
 * kernel does not reset the connection before the answer is read. */
static void refuse(struct proxy_conn *c, const void *msg, size_t len)
{
	struct side *s = &c->client;

	side_close(&c->upstream);
	uv_read_stop(&s->h.stream);
	c->state = ST_REFUSING;
	if (side_write_copy(s, msg, len) != 0) {
		conn_close(c);
		return;
	}
	s->shutdown_req.data = s;
	if (uv_shutdown(&s->shutdown_req, &s->h.stream, on_refuse_shutdown) != 0 ||
	    uv_read_start(&s->h.stream, on_refuse_alloc, on_refuse_read) != 0) {
		conn_close(c);
		return;
	}
	timer_arm(c, REFUSE_LINGER_MS);
}

static void refuse_http(struct proxy_conn *c, int status, const char *title, const char *why)
{
	char body[512], msg[1024];
	int blen, mlen;

	blen = snprintf(body, sizeof body, "sandmux egress: %s%s%s\n", why,
			c->target[0] ? ": " : "", c->target);
	if (blen < 0 || (size_t)blen >= sizeof body)
		blen = (int)strlen(body);
	mlen = snprintf(msg, sizeof msg,
			"HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			"Connection: close\r\nX-Sandmux-Egress: refused\r\n\r\n%s",
			status, title, blen, body);
	if (mlen < 0 || (size_t)mlen >= sizeof msg)
		mlen = (int)strlen(msg);
	refuse(c, msg, (size_t)mlen);
}

static void refuse_socks(struct proxy_conn *c, uint8_t code)
{
	const uint8_t reply[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};

	refuse(c, reply, sizeof reply);
}

/* A denial by policy: reported, and answered 403 / SOCKS5 reply 2. */
static void deny(struct proxy_conn *c, enum allowlist_reason reason, const char *detail)
{
	char why[256];

	report(c, reason, detail);
	if (c->proto == PROTO_SOCKS) {
		refuse_socks(c, EGRESS_SOCKS_NOT_ALLOWED);
		return;
	}
	snprintf(why, sizeof why, "connection refused by sandbox policy (%s)",
		 allowlist_reason_text(reason));
	refuse_http(c, 403, "Forbidden", why);
}

/* Not a policy matter (no such name, nothing listening, too slow). */
static void fail_upstream(struct proxy_conn *c, int http_status, const char *title,
			  uint8_t socks_code, const char *why)
{
	if (c->proto == PROTO_SOCKS)
		refuse_socks(c, socks_code);
	else
		refuse_http(c, http_status, title, why);
}

static void on_timeout(uv_timer_t *t)
{
	struct proxy_conn *c = t->data;

	switch (c->state) {
	case ST_RESOLVING:
	case ST_CONNECTING:
		fail_upstream(c, 504, "Gateway Timeout", EGRESS_SOCKS_TTL_EXPIRED,
			      "connect timed out");
		break;
	case ST_ASKING:
		/* No answer in time: the refusal a person did not overrule. */
		deny(c, ALLOWLIST_NOT_ALLOWLISTED, "no answer in time (ask mode)");
		break;
	case ST_TUNNEL:
		if (c->relaying && relay_gathering(c)) {
			relay_lull(c);
			break;
		}
		conn_close(c);
		break;
	default:
		conn_close(c);
		break;
	}
}

/* --- the tunnel ------------------------------------------------------------ */

static bool side_holds(const struct side *s)
{
	return s->buf != NULL;
}

/* Write what was read from `from` to `to`: 1 when all of it is written,
 * 0 when `to` would block, -1 on an error. */
static int relay_flush(struct side *from, struct side *to)
{
	while (from->buf != NULL) {
		ssize_t n = send(to->fd, from->buf->data + from->buf_off,
				 from->buf_len - from->buf_off, OS_SEND_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		from->buf_off += (size_t)n;
		if (from->buf_off == from->buf_len) {
			chunk_free(from->buf);
			from->buf = NULL;
		}
	}
	return 1;
}

/* Raise or lower the receive low-water mark of a side's socket (see
 * RELAY_GATHER).  0, or -1 on an error. */
static int relay_gather(struct side *s, bool on)
{
	int mark = on ? RELAY_GATHER : 1;

	if (s->gathering == on)
		return 0;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &mark, sizeof mark) != 0)
		return -1;
	s->gathering = on;
	return 0;
}

/* Read from `from` into what it holds: 1 when bytes came (or EOF, which
 * sets eof), 0 when it would block, -1 on an error. */
static int relay_fill(struct side *from)
{
	struct chunk *ch = relay_buf_new();
	ssize_t n;

	if (ch == NULL)
		return -1;
	n = recv(from->fd, ch->data, ch->cap, 0);
	if (n > 0) {
		/* a failure only leaves the mark where it was */
		if (n >= RELAY_GATHER)
			relay_gather(from, true);
		from->buf = ch;
		from->buf_off = 0;
		from->buf_len = (size_t)n;
		return 1;
	}
	chunk_free(ch);
	if (n == 0) {
		from->eof = true;
		return 1;
	}
	return errno == EAGAIN || errno == EINTR ? 0 : -1;
}

/* Move bytes from one side to the other until one of them would block
 * or the sender is at EOF.  0, or -1 on an error. */
static int relay_pump(struct side *from, struct side *to)
{
	for (int round = 0; round < RELAY_ROUNDS && !from->eof; round++) {
		int rc = relay_flush(from, to);

		if (rc > 0)
			rc = relay_fill(from);
		if (rc <= 0)
			return rc;
	}
	return relay_flush(from, to) < 0 ? -1 : 0;
}

static void on_relay_poll(uv_poll_t *p, int status, int events);

/* Wait for what side s can do next: be read while it holds nothing,
 * be written while the other side holds bytes for it. */
static int relay_watch(struct side *s)
{
	int events = 0;

	if (!s->eof && !side_holds(s))
		events |= UV_READABLE;
	if (side_holds(other_side(s)))
		events |= UV_WRITABLE;
	if (events == s->events)
		return 0;
	s->events = events;
	if (events == 0)
		return uv_poll_stop(&s->poll);
	return uv_poll_start(&s->poll, events, on_relay_poll);
}

/* The sender is at EOF and everything it sent is written: shut the
 * receiver's write side (half-close).  0, or -1 on an error. */
static int relay_half_close(struct side *from)
{
	struct side *to = other_side(from);

	if (!from->eof || side_holds(from) || to->shut)
		return 0;
	to->shut = true;
	return shutdown(to->fd, SHUT_WR);
}

static void relay_update(struct proxy_conn *c)
{
	if (relay_half_close(&c->client) != 0 || relay_half_close(&c->upstream) != 0) {
		conn_close(c);
		return;
	}
	/* both directions are done */
	if (c->client.shut && c->upstream.shut) {
		conn_close(c);
		return;
	}
	if (relay_watch(&c->client) != 0 || relay_watch(&c->upstream) != 0)
		conn_close(c);
}

static bool relay_gathering(const struct proxy_conn *c)
{
	return c->client.gathering || c->upstream.gathering;
}

/* No wakeup for RELAY_LULL_MS while a side gathers: the flow paused.
 * Lowering the mark makes what waits below it readable, and the idle
 * timeout takes over the timer again. */
static void relay_lull(struct proxy_conn *c)
{
	if (relay_gather(&c->client, false) != 0 || relay_gather(&c->upstream, false) != 0) {
		conn_close(c);
		return;
	}
	timer_arm(c, c->eg->idle_timeout_ms);
}

static void on_relay_poll(uv_poll_t *p, int status, int events)
{
	struct side *s = p->data, *o = other_side(s);
	struct proxy_conn *c = s->conn;

	if (status < 0 || ((events & UV_READABLE) && relay_pump(s, o) != 0) ||
	    ((events & UV_WRITABLE) && relay_pump(o, s) != 0)) {
		conn_close(c);
		return;
	}
	timer_arm(c, relay_gathering(c) ? RELAY_LULL_MS : c->eg->idle_timeout_ms);
	relay_update(c);
}

/* Take the socket out of its libuv stream onto a poll handle.  libuv
 * cannot hand a socket back, so the poll handle gets a duplicate and the
 * stream is closed (its descriptor only). */
static int side_detach(struct side *s)
{
	uv_os_fd_t fd;

	if (uv_fileno(&s->h.handle, &fd) != 0)
		return -1;
	s->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (s->fd < 0)
		return -1;
	if (uv_poll_init_socket(s->conn->eg->loop, &s->poll, s->fd) != 0) {
		close(s->fd);
		s->fd = -1;
		return -1;
	}
	s->poll.data = s;
	s->polling = true;
	s->conn->refs++;
	stream_close(s);
	return 0;
}

/* The tunnel's bytes start to flow: the answer to the client and the
 * bytes the client sent early are what the two sides hold first. */
static void tunnel_relay(struct proxy_conn *c)
{
	if (side_detach(&c->upstream) != 0 || side_detach(&c->client) != 0) {
		log_warn("egress %s: %s: cannot relay: %s", c->eg->label, c->target,
			 strerror(errno));
		fail_upstream(c, 502, "Bad Gateway", EGRESS_SOCKS_GENERAL_FAILURE,
			      "cannot open the tunnel");
		return;
	}
	c->relaying = true;
	if (relay_flush(&c->upstream, &c->client) < 0 ||
	    relay_flush(&c->client, &c->upstream) < 0) {
		conn_close(c);
		return;
	}
	relay_update(c);
}

static struct chunk *chunk_of(const void *data, size_t len)
{
	struct chunk *ch = chunk_new(len);

	if (ch != NULL)
		memcpy(ch->data, data, len);
	return ch;
}

static void tunnel_begin(struct proxy_conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	uint8_t socks_ok[10] = {5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	struct sockaddr_storage local;
	int namelen = sizeof local;
	struct chunk *answer = NULL;

	c->state = ST_TUNNEL;
	c->counted_tunnel = true;
	c->eg->ntunnels++;
	if (c->client.h.handle.type == UV_TCP)
		uv_tcp_nodelay(&c->client.h.tcp, 1);
	uv_tcp_nodelay(&c->upstream.h.tcp, 1);
	if (c->proto == PROTO_SOCKS) {
		/* BND.ADDR/PORT: the address the proxy connected from */
		if (uv_tcp_getsockname(&c->upstream.h.tcp, (struct sockaddr *)&local, &namelen) ==
			0 &&
		    local.ss_family == AF_INET) {
			const struct sockaddr_in *in = (const struct sockaddr_in *)&local;

			memcpy(socks_ok + 4, &in->sin_addr, 4);
			memcpy(socks_ok + 8, &in->sin_port, 2);
		}
		answer = chunk_of(socks_ok, sizeof socks_ok);
		if (answer == NULL)
			goto fail;
		c->upstream.buf_len = sizeof socks_ok;
	} else if (c->http_connect) {
		/* a plain request sends its rewritten head upstream instead */
		answer = chunk_of(established, sizeof established - 1);
		if (answer == NULL)
			goto fail;
		c->upstream.buf_len = sizeof established - 1;
	}
	/* bytes for the client are held as if read from upstream, and the
	 * other way round, so they go first and in order */
	c->upstream.buf = answer;
	if (c->npending > 0) {
		c->client.buf = c->pending;
		c->client.buf_len = c->npending;
		c->pending = NULL;
		c->npending = 0;
	}
	free(c->head);
	c->head = NULL;
	timer_arm(c, c->eg->idle_timeout_ms);
	if (c->client.queued == 0)
		tunnel_relay(c);
	return;
fail:
	conn_close(c);
}

/* --- connecting ------------------------------------------------------------ */

static void on_upstream_retry_closed(uv_handle_t *h)
{
	struct proxy_conn *c = ((struct side *)h->data)->conn;

	if (c->closing || c->state != ST_CONNECTING) {
		conn_unref(c);
		return;
	}
	c->refs--; /* not the last: the client and the timer are open */
	connect_next(c);
}

static void on_connected(uv_connect_t *req, int status)
{
	struct proxy_conn *c = req->data;

	/* closed or refused (timeout) meanwhile: the handle is closing */
	if (c->closing || c->state != ST_CONNECTING)
		return;
	if (status < 0) {
		/* try the next address on a fresh handle */
		c->upstream.open = false;
		uv_close(&c->upstream.h.handle, on_upstream_retry_closed);
		return;
	}
	tunnel_begin(c);
}

static const struct sockaddr *next_address(struct proxy_conn *c)
{
	if (c->is_literal) {
		if (c->literal_tried)
			return NULL;
		c->literal_tried = true;
		return (const struct sockaddr *)&c->literal;
	}
	while (c->next_addr != NULL) {
		struct addrinfo *ai = c->next_addr;

		c->next_addr = ai->ai_next;
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			return ai->ai_addr;
	}
	return NULL;
}

static void connect_next(struct proxy_conn *c)
{
	const struct sockaddr *sa = next_address(c);
	struct sockaddr_storage addr;

	if (sa == NULL) {
		fail_upstream(c, 502, "Bad Gateway", EGRESS_SOCKS_CONNECTION_REFUSED,
			      "cannot connect");
		return;
	}
	memset(&addr, 0, sizeof addr);
	memcpy(&addr, sa, sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						   : sizeof(struct sockaddr_in6));
	if (addr.ss_family == AF_INET)
		((struct sockaddr_in *)&addr)->sin_port = htons(c->port);
	else
		((struct sockaddr_in6 *)&addr)->sin6_port = htons(c->port);
	c->state = ST_CONNECTING;
	if (uv_tcp_init(c->eg->loop, &c->upstream.h.tcp) != 0) {
		conn_close(c);
		return;
	}
	c->upstream.h.handle.data = &c->upstream;
	c->upstream.open = true;
	c->refs++;
	c->connect_req.data = c;
	if (uv_tcp_connect(&c->connect_req, &c->upstream.h.tcp, (const struct sockaddr *)&addr,
			   on_connected) != 0) {
		c->upstream.open = false;
		uv_close(&c->upstream.h.handle, on_upstream_retry_closed);
	}
}

static const struct allowlist_addrs *own_addresses(struct egress *eg)
{
	uint64_t now = uv_now(eg->loop);

	if (!eg->own_loaded || now - eg->own_loaded_ms > OWN_ADDRESSES_TTL_MS) {
		struct allowlist_addrs fresh;

		if (allowlist_host_addresses(&fresh) == 0) {
			allowlist_addrs_free(&eg->own);
			eg->own = fresh;
			eg->own_loaded = true;
			eg->own_loaded_ms = now;
		}
	}
	return &eg->own;
}

/* Threat: DNS rebinding.  A permitted name may answer with any address;
 * every one of them must be acceptable, or the connection is refused
 * (a mixed answer is an attack, not a fallback list). */
static int check_resolved(struct proxy_conn *c, char *detail, size_t size)
{
	const struct allowlist_addrs *own = own_addresses(c->eg);

	for (struct addrinfo *ai = c->addrs; ai != NULL; ai = ai->ai_next) {
		struct allowlist_ip ip;
		const char *why;
		char text[INET6_ADDRSTRLEN];

		if (allowlist_ip_from_sockaddr(ai->ai_addr, &ip) != 0)
			continue;
		if (allowlist_address_check(&ip, own, &why))
			continue;
		if (inet_ntop(ip.family, ip.bytes, text, sizeof text) == NULL)
			snprintf(text, sizeof text, "?");
		snprintf(detail, size, "%s %s", why, text);
		return -1;
	}
	return 0;
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct proxy_conn *c = req->data;
	char detail[128];

	c->addrs = res;
	c->gai_pending = false;
	if (c->closing) {
		conn_unref(c);
		return;
	}
	c->refs--; /* not the last: the client and the timer are open */
	if (c->state != ST_RESOLVING)
		return; /* refused meanwhile (connect timeout) */
	if (status < 0 || res == NULL) {
		fail_upstream(c, 502, "Bad Gateway", EGRESS_SOCKS_HOST_UNREACHABLE,
			      "cannot resolve the host name");
		return;
	}
	if (check_resolved(c, detail, sizeof detail) != 0) {
		deny(c, ALLOWLIST_FORBIDDEN_ADDRESS, detail);
		return;
	}
	c->next_addr = res;
	connect_next(c);
}

static void format_target(struct proxy_conn *c)
{
	if (strchr(c->host, ':') != NULL)
		snprintf(c->target, sizeof c->target, "[%s]:%u", c->host, c->port);
	else
		snprintf(c->target, sizeof c->target, "%s:%u", c->host, c->port);
}

static void literal_sockaddr(struct proxy_conn *c, const struct allowlist_ip *ip)
{
	memset(&c->literal, 0, sizeof c->literal);
	if (ip->family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&c->literal;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, ip->bytes, 4);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&c->literal;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, ip->bytes, 16);
	}
	c->is_literal = true;
}

/* Ask mode: does the listener this client came through hold unknown
 * hosts?  Only a host that merely matched nothing is held; the deny
 * list, a disabled network and invalid names are refused as always. */
static bool conn_asks(const struct proxy_conn *c)
{
	for (const struct listener *l = c->eg->listeners; l != NULL; l = l->next)
		if (l->tag == c->tag && l->ask)
			return c->eg->on_ask != NULL;
	return false;
}

/* Hold the client unanswered until egress_allow (let through), egress_
 * refuse_held (refused) or EGRESS_ASK_MS (refused), and say so. */
static void conn_hold(struct proxy_conn *c)
{
	struct egress_violation v = conn_violation(c, ALLOWLIST_NOT_ALLOWLISTED, NULL);

	c->state = ST_ASKING;
	timer_arm(c, EGRESS_ASK_MS);
	log_info("egress %s: %s %s held for an answer", c->eg->label, v.violation.protocol,
		 c->target);
	c->eg->on_ask(c->eg->user, &v);
}

/* The request is parsed: judge the target, then resolve or connect. */
static void conn_target(struct proxy_conn *c)
{
	struct allowlist_decision d;
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};

	format_target(c);
	uv_read_stop(&c->client.h.stream);
	allowlist_decide(c->eg->allow, c->host, &d);
	if (!d.allowed && d.reason == ALLOWLIST_NOT_ALLOWLISTED)
		for (const struct tag_allow *t = c->eg->tag_allows; t != NULL; t = t->next)
			if (t->tag == c->tag && c->tag >= 0) {
				allowlist_decide(t->allow, c->host, &d);
				break;
			}
	if (!d.allowed && d.reason == ALLOWLIST_NOT_ALLOWLISTED && conn_asks(c)) {
		conn_hold(c);
		return;
	}
	if (!d.allowed) {
		deny(c, d.reason, d.rule);
		return;
	}
	timer_arm(c, c->eg->connect_timeout_ms);
	if (d.is_ip) {
		/* an address listed exactly: no DNS, nothing to rebind */
		literal_sockaddr(c, &d.ip);
		connect_next(c);
		return;
	}
	c->state = ST_RESOLVING;
	c->gai.data = c;
	if (uv_getaddrinfo(c->eg->loop, &c->gai, on_resolved, d.host, NULL, &hints) != 0) {
		fail_upstream(c, 502, "Bad Gateway", EGRESS_SOCKS_HOST_UNREACHABLE,
			      "cannot resolve the host name");
		return;
	}
	c->gai_pending = true;
	c->refs++;
}

static int keep_pending(struct proxy_conn *c, const char *a, size_t alen, const char *b,
			size_t blen)
{
	if (alen + blen == 0)
		return 0;
	c->pending = chunk_new(alen + blen);
	if (c->pending == NULL)
		return -1;
	memcpy(c->pending->data, a, alen);
	memcpy(c->pending->data + alen, b, blen);
	c->npending = alen + blen;
	return 0;
}

/* --- requests -------------------------------------------------------------- */

static void http_request(struct proxy_conn *c)
{
	static char forward[EGRESS_HTTP_FORWARD_MAX];
	struct egress_http_request req;

	switch (egress_parse_http_request(c->head, c->head_len, &req, forward, sizeof forward)) {
	case EGRESS_PARSE_INCOMPLETE:
		return;
	case EGRESS_PARSE_TOO_LARGE:
		refuse_http(c, 431, "Request Header Fields Too Large", "request head too large");
		return;
	case EGRESS_PARSE_OK:
		break;
	default:
		refuse_http(c, 400, "Bad Request", "malformed proxy request");
		return;
	}
	snprintf(c->host, sizeof c->host, "%s", req.host);
	c->port = req.port;
	if (keep_pending(c, req.connect ? "" : forward, req.connect ? 0 : req.forward_len,
			 c->head + req.head_len, c->head_len - req.head_len) != 0) {
		conn_close(c);
		return;
	}
	c->http_connect = req.connect;
	conn_target(c);
}

static void head_consume(struct proxy_conn *c, size_t n)
{
	memmove(c->head, c->head + n, c->head_len - n);
	c->head_len -= n;
}

static void socks_request(struct proxy_conn *c)
{
	struct egress_socks_request req;
	size_t used;

	if (c->state == ST_SOCKS_GREETING) {
		static const uint8_t no_auth[2] = {5, 0}, no_method[2] = {5, 0xff};

		switch (egress_parse_socks_greeting((uint8_t *)c->head, c->head_len, &used)) {
		case EGRESS_PARSE_INCOMPLETE:
			return;
		case EGRESS_PARSE_OK:
			break;
		case EGRESS_PARSE_UNSUPPORTED:
			refuse(c, no_method, sizeof no_method);
			return;
		default:
			conn_close(c);
			return;
		}
		if (side_write_copy(&c->client, no_auth, sizeof no_auth) != 0) {
			conn_close(c);
			return;
		}
		head_consume(c, used);
		c->state = ST_SOCKS_REQUEST;
	}
	switch (egress_parse_socks_request((uint8_t *)c->head, c->head_len, &req)) {
	case EGRESS_PARSE_INCOMPLETE:
		return;
	case EGRESS_PARSE_OK:
		break;
	case EGRESS_PARSE_UNSUPPORTED:
		refuse_socks(c, req.reply);
		return;
	default:
		refuse_socks(c, EGRESS_SOCKS_GENERAL_FAILURE);
		return;
	}
	snprintf(c->host, sizeof c->host, "%s", req.host);
	c->port = req.port;
	if (keep_pending(c, "", 0, c->head + req.consumed, c->head_len - req.consumed) != 0) {
		conn_close(c);
		return;
	}
	conn_target(c);
}

static void on_head_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct proxy_conn *c = ((struct side *)h->data)->conn;

	*buf = uv_buf_init(c->head + c->head_len, (unsigned)(c->head_cap - c->head_len));
}

static void on_head_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct proxy_conn *c = ((struct side *)stream->data)->conn;

	if (nread < 0) {
		conn_close(c);
		return;
	}
	c->head_len += (size_t)nread;
	if (c->proto == PROTO_HTTP) {
		http_request(c);
		return;
	}
	socks_request(c);
	if (c->state == ST_SOCKS_REQUEST && c->head_len == c->head_cap)
		refuse_socks(c, EGRESS_SOCKS_GENERAL_FAILURE);
}

/* --- accepting ------------------------------------------------------------- */

static void on_connection(uv_stream_t *server, int status)
{
	struct listener *l = server->data;
	struct egress *eg = l->eg;
	enum proto proto = l->proto;
	struct proxy_conn *c;
	int rc;

	if (status < 0 || eg->closing)
		return;
	c = xcalloc(1, sizeof *c);
	c->eg = eg;
	c->tag = l->tag;
	c->proto = proto;
	c->state = proto == PROTO_HTTP ? ST_HEAD : ST_SOCKS_GREETING;
	c->head_cap = proto == PROTO_HTTP ? EGRESS_HTTP_HEAD_MAX : SOCKS_HEAD_MAX;
	c->head = xmalloc(c->head_cap);
	rc = server->type == UV_TCP ? uv_tcp_init(eg->loop, &c->client.h.tcp)
				    : uv_pipe_init(eg->loop, &c->client.h.pipe, 0);
	if (rc != 0) {
		free(c->head);
		free(c);
		return;
	}
	c->client.conn = c->upstream.conn = c;
	c->client.fd = c->upstream.fd = -1;
	c->client.h.handle.data = &c->client;
	c->client.open = true;
	uv_timer_init(eg->loop, &c->timer);
	c->timer.data = c;
	c->refs = 2;
	c->next = eg->conns;
	if (eg->conns != NULL)
		eg->conns->prev = c;
	eg->conns = c;
	eg->nconns++;
	if (uv_accept(server, &c->client.h.stream) != 0 || eg->nconns > MAX_CONNS) {
		conn_close(c);
		return;
	}
	/* a client that never finishes its request is dropped (slowloris) */
	timer_arm(c, eg->connect_timeout_ms);
	if (uv_read_start(&c->client.h.stream, on_head_alloc, on_head_read) != 0)
		conn_close(c);
}

static void on_listener_closed(uv_handle_t *h)
{
	struct listener *l = h->data, **pp;
	struct egress *eg = l->eg;

	for (pp = &eg->listeners; *pp != NULL; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	free(l);
	eg->refs--;
	egress_maybe_free(eg);
}

static struct listener *listener_new(struct egress *eg, enum proto proto, int tag)
{
	struct listener *l = xcalloc(1, sizeof *l);

	l->eg = eg;
	l->proto = proto;
	l->tag = tag;
	l->next = eg->listeners;
	eg->listeners = l;
	return l;
}

static void listener_close(struct listener *l)
{
	if (l->path[0] != '\0')
		unlink(l->path);
	if (l->h.handle.loop != NULL && !uv_is_closing(&l->h.handle))
		uv_close(&l->h.handle, on_listener_closed);
}

static int listen_tcp(struct egress *eg, enum proto proto, int *port, struct sm_error *err)
{
	struct listener *l = listener_new(eg, proto, -1);
	struct sockaddr_in addr;
	struct sockaddr_storage bound;
	int len = sizeof bound, rc;

	if (l == NULL) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	uv_tcp_init(eg->loop, &l->h.tcp);
	l->h.handle.data = l;
	eg->refs++;
	uv_ip4_addr("127.0.0.1", 0, &addr);
	rc = uv_tcp_bind(&l->h.tcp, (const struct sockaddr *)&addr, 0);
	if (rc == 0)
		rc = uv_listen(&l->h.stream, 1024, on_connection);
	if (rc == 0)
		rc = uv_tcp_getsockname(&l->h.tcp, (struct sockaddr *)&bound, &len);
	if (rc != 0) {
		sm_error_set(err, SM_ERR_EGRESS_FAILED, "cannot listen on 127.0.0.1: %s",
			     uv_strerror(rc));
		return -1;
	}
	*port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
	return 0;
}

struct egress *egress_start(uv_loop_t *loop, const struct egress_policy *policy,
			    egress_violation_fn on_violation, void *user, struct sm_error *err)
{
	struct egress *eg = xcalloc(1, sizeof *eg);

	eg->loop = loop;
	eg->on_violation = on_violation;
	eg->user = user;
	snprintf(eg->label, sizeof eg->label, "%s", policy->label ? policy->label : "-");
	eg->connect_timeout_ms = policy->connect_timeout_ms ? policy->connect_timeout_ms : 10000;
	eg->idle_timeout_ms = policy->idle_timeout_ms ? policy->idle_timeout_ms : 600000;
	/* network disabled: the proxies still run, with nothing allowed, so
	 * every attempt is answered and reported rather than timing out */
	eg->allow = allowlist_new(policy->network_enabled, policy->allowlist, policy->nallowlist,
				  err);
	if (eg->allow == NULL) {
		free(eg);
		return NULL;
	}
	if (listen_tcp(eg, PROTO_HTTP, &eg->http_port, err) != 0 ||
	    listen_tcp(eg, PROTO_SOCKS, &eg->socks_port, err) != 0) {
		egress_close(eg);
		return NULL;
	}
	log_info("egress %s: http 127.0.0.1:%d socks5 127.0.0.1:%d, %zu allowlist entries%s",
		 eg->label, eg->http_port, eg->socks_port, allowlist_count(eg->allow),
		 policy->network_enabled ? "" : " (network disabled)");
	return eg;
}

static int listen_pipe(struct egress *eg, enum proto proto, const char *path, int tag,
		       struct sm_error *err)
{
	struct listener *l;
	int rc;

	if (strlen(path) >= sizeof l->path) {
		sm_error_set(err, SM_ERR_EGRESS_FAILED, "socket path too long: %s", path);
		return -1;
	}
	l = listener_new(eg, proto, tag);
	if (l == NULL) {
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	uv_pipe_init(eg->loop, &l->h.pipe, 0);
	l->h.handle.data = l;
	eg->refs++;
	unlink(path);
	rc = uv_pipe_bind(&l->h.pipe, path);
	if (rc == 0) {
		snprintf(l->path, sizeof l->path, "%s", path);
		if (chmod(path, 0600) != 0)
			rc = UV_EPERM;
	}
	if (rc == 0)
		rc = uv_listen(&l->h.stream, 1024, on_connection);
	if (rc != 0) {
		sm_error_set(err, SM_ERR_EGRESS_FAILED, "cannot listen on %s: %s", path,
			     uv_strerror(rc));
		return -1;
	}
	return 0;
}

int egress_listen_unix(struct egress *eg, const char *http_path, const char *socks_path, int tag,
		       struct sm_error *err)
{
	if (listen_pipe(eg, PROTO_HTTP, http_path, tag, err) != 0 ||
	    listen_pipe(eg, PROTO_SOCKS, socks_path, tag, err) != 0) {
		egress_unlisten_unix(eg, tag);
		return -1;
	}
	return 0;
}

int egress_tag_allow(struct egress *eg, int tag, const char *const *entries, size_t n,
		     struct sm_error *err)
{
	struct tag_allow *t;

	if (n == 0)
		return 0;
	t = xcalloc(1, sizeof *t);
	t->allow = allowlist_new(true, entries, n, err);
	if (t->allow == NULL) {
		free(t);
		return -1;
	}
	t->tag = tag;
	t->next = eg->tag_allows;
	eg->tag_allows = t;
	return 0;
}

void egress_unlisten_unix(struct egress *eg, int tag)
{
	for (struct tag_allow **tp = &eg->tag_allows; *tp != NULL;)
		if ((*tp)->tag == tag) {
			struct tag_allow *t = *tp;

			*tp = t->next;
			allowlist_free(t->allow);
			free(t);
		} else {
			tp = &(*tp)->next;
		}
	for (struct listener *l = eg->listeners; l != NULL; l = l->next)
		if (l->tag == tag && l->path[0] != '\0')
			listener_close(l);
}

int egress_http_port(const struct egress *eg)
{
	return eg->http_port;
}

int egress_socks_port(const struct egress *eg)
{
	return eg->socks_port;
}

/* Held clients whose host the list allows now go on; the others wait on. */
static void release_held(struct egress *eg)
{
	struct proxy_conn *next;

	for (struct proxy_conn *c = eg->conns; c != NULL; c = next) {
		struct allowlist_decision d;

		next = c->next; /* a closed conn leaves the list only later */
		if (c->state != ST_ASKING || c->closing)
			continue;
		allowlist_decide(eg->allow, c->host, &d);
		if (d.allowed)
			conn_target(c);
	}
}

int egress_allow(struct egress *eg, const char *entry, struct sm_error *err)
{
	if (allowlist_add(eg->allow, entry, err) != 0)
		return -1;
	log_info("egress %s: %s allowed from now on", eg->label, entry);
	release_held(eg);
	return 0;
}

int egress_refuse_held(struct egress *eg, const char *host)
{
	struct allowlist_decision want;
	struct proxy_conn *next;
	int n = 0;

	allowlist_decide(NULL, host, &want);
	for (struct proxy_conn *c = eg->conns; c != NULL; c = next) {
		struct allowlist_decision d;

		next = c->next;
		if (c->state != ST_ASKING || c->closing)
			continue;
		allowlist_decide(NULL, c->host, &d);
		if (strcmp(d.host, want.host) == 0) {
			deny(c, ALLOWLIST_NOT_ALLOWLISTED, "refused by the user (ask mode)");
			n++;
		}
	}
	return n;
}

void egress_on_ask(struct egress *eg, egress_violation_fn on_ask)
{
	eg->on_ask = on_ask;
}

void egress_ask_unix(struct egress *eg, int tag, bool ask)
{
	for (struct listener *l = eg->listeners; l != NULL; l = l->next)
		if (l->tag == tag)
			l->ask = ask;
}

void egress_close(struct egress *eg)
{
	if (eg == NULL || eg->closing)
		return;
	eg->closing = true;
	for (struct listener *l = eg->listeners; l != NULL; l = l->next)
		listener_close(l);
	for (struct proxy_conn *c = eg->conns; c != NULL; c = c->next)
		conn_close(c);
	egress_maybe_free(eg);
}
