/*
 * session-egress: per-session egress proxies for network-restricted
 * panes (see session-egress.c).  The registry owns every proxy pair.
 */
#ifndef SANDMUX_SESSION_EGRESS_H
#define SANDMUX_SESSION_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct sandbox_spec;
struct sm_error;

/* Does this profile send the network through the proxies? */
bool session_egress_wanted(const char *profile);
/* Make sure the session of spec (session_id) runs its proxies (started
 * with the spec's networkEnabled and egressAllowlist when it does not
 * yet) and give pane its own pair of Unix sockets (http.sock,
 * socks.sock) in a directory written to dir; connections through them
 * may also reach the spec's profile's egress_allowlist.  Returns 0, or
 * -1 with err: the pane must not start then. */
int session_egress_attach(const struct sandbox_spec *spec, int pane, char *dir, size_t size,
			  struct sm_error *err);
/* The session's proxies' ports on 127.0.0.1 (HTTP, then SOCKS5), for a
 * pane that reaches them over loopback (macOS native: Seatbelt has no
 * network namespace).  Their connections carry no pane's tag, so a
 * profile's own egress_allowlist does not apply through them.  0, or -1
 * when the session's proxies do not run. */
int session_egress_ports(const char *session, int ports[2]);
/* Is the session's egress running (a proxied pane was started in it)? */
bool session_egress_running(const char *session);
/* A grant: the session's proxies allow entry from the next connection
 * on, until the session ends.  0, or -1 with err. */
int session_egress_allow(const char *session, const char *entry, struct sm_error *err);
/* Ask mode: refuse the session's held connections to host now.
 * Returns how many there were. */
int session_egress_refuse(const char *session, const char *host);
/* The pane is gone: close its sockets. */
void session_egress_detach(const char *session, int pane);
/* The session ended: stop its proxies and every tunnel. */
void session_egress_close(const char *session);

#endif
