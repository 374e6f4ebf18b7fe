# A private network with real HTTP origins, for the tests of ask mode
# (tests/integration/allow.sh, tests/tui/ask.sh).  Sourced first, before
# tests/lib.sh: as root, the test re-runs itself under `unshare -m -n`
# (namespace A: the sandmux server, its egress proxies, curl, a private
# /etc/hosts), and a second network namespace B, joined to A by a veth
# pair, holds the origins; each answers with its own name, so a request
# that reached the wrong place says so:
#
#   grant.test   10.203.7.2   origin "grant"  (not on any allowlist)
#   other.test   10.203.7.3   origin "other"  (not on any allowlist)
#   ask.test     10.203.7.4   origin "ask"    (not on any allowlist)
#
# Nothing leaves the two namespaces.  origin_net_start builds them;
# origin_net_stop (the test's EXIT trap calls it) stops the origins.
if [ "$1" != --in-netns ]; then
	for tool in curl socat unshare nsenter ip; do
		if ! command -v $tool >/dev/null 2>&1; then
			echo "not ok - $tool is installed (sh tests/deps.sh)"
			exit 1
		fi
	done
	if [ "$(id -u)" -ne 0 ]; then
		echo "ok - # SKIP ask mode's network test needs root (network namespaces, veth)"
		exit 0
	fi
	exec unshare -m -n --propagation private sh "$0" --in-netns
fi

ORIGIN_PIDS=""
ORIGIN_DIR=$(mktemp -d /tmp/sandmux-origin.XXXXXX)

origin_net_stop() {
	for p in $ORIGIN_PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$ORIGIN_DIR"
}

origin_net_start() {
	ip link set lo up
	unshare -n sleep 3600 &
	ORIGIN_B=$!
	ORIGIN_PIDS="$ORIGIN_PIDS $ORIGIN_B"
	i=0
	while [ "$i" -lt 50 ] && [ "$(readlink /proc/$ORIGIN_B/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do
		sleep 0.02
		i=$((i + 1))
	done
	ip link add og0 type veth peer name og1 netns "$ORIGIN_B" || {
		echo "not ok - a veth pair between two network namespaces"
		exit 1
	}
	ip addr add 10.203.7.1/24 dev og0
	ip link set og0 up
	nsenter -t "$ORIGIN_B" -n ip link set lo up
	nsenter -t "$ORIGIN_B" -n ip addr add 10.203.7.2/24 dev og1
	nsenter -t "$ORIGIN_B" -n ip addr add 10.203.7.3/24 dev og1
	nsenter -t "$ORIGIN_B" -n ip addr add 10.203.7.4/24 dev og1
	nsenter -t "$ORIGIN_B" -n ip link set og1 up
	printf '127.0.0.1 localhost\n10.203.7.2 grant.test\n10.203.7.3 other.test\n10.203.7.4 ask.test\n' >"$ORIGIN_DIR/hosts"
	mount --bind "$ORIGIN_DIR/hosts" /etc/hosts
	cat >"$ORIGIN_DIR/origin.sh" <<'EOS'
#!/bin/sh
read -r line
while read -r h; do [ "$(printf '%s' "$h" | tr -d '\r')" = "" ] && break; done
body="origin $1 got: $(printf '%s' "$line" | tr -d '\r')"
printf 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\n' $((${#body} + 1)) "$body"
EOS
	chmod +x "$ORIGIN_DIR/origin.sh"
	nsenter -t "$ORIGIN_B" -n socat TCP-LISTEN:80,bind=10.203.7.2,reuseaddr,fork EXEC:"$ORIGIN_DIR/origin.sh grant" 2>/dev/null &
	ORIGIN_PIDS="$ORIGIN_PIDS $!"
	nsenter -t "$ORIGIN_B" -n socat TCP-LISTEN:80,bind=10.203.7.3,reuseaddr,fork EXEC:"$ORIGIN_DIR/origin.sh other" 2>/dev/null &
	ORIGIN_PIDS="$ORIGIN_PIDS $!"
	nsenter -t "$ORIGIN_B" -n socat TCP-LISTEN:80,bind=10.203.7.4,reuseaddr,fork EXEC:"$ORIGIN_DIR/origin.sh ask" 2>/dev/null &
	ORIGIN_PIDS="$ORIGIN_PIDS $!"
	i=0
	until curl -s -m 2 --noproxy '*' http://grant.test/ 2>/dev/null | grep -q "origin grant"; do
		i=$((i + 1))
		if [ "$i" -gt 50 ]; then
			echo "not ok - setup: grant.test answers directly"
			exit 1
		fi
		sleep 0.1
	done
}
