#!/bin/sh
# The egress proxies with real curl and real sockets.
#
# The test builds its own network: it re-runs itself under `unshare -m -n`
# (namespace A: the proxies, curl, a private /etc/hosts) and makes a second
# network namespace B joined to A by a veth pair.  The origins live in B,
# each answering with its own name, so a request that reached the wrong
# place says so:
#
#   allowed.test        10.203.0.2     origin "allowed"
#   denied.test         10.203.0.3     origin "denied"   (not allowlisted)
#   metadata-alias.test 169.254.169.254 origin "metadata" (allowlisted name!)
#   rebind.test         127.0.0.1      origin "loopback" in A
#   own.test            10.203.0.1     origin "own" in A (A's own address)
#   blackhole.test      10.203.0.9     nothing answers (connect timeout)
#
# The helper build/helpers/egress-run runs the proxies on its own loop and
# prints the ports and every violation as JSON lines.  Nothing here
# leaves the two namespaces.  Prints "ok - ..." / "not ok - ...".
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${SANDMUX_BUILD:-$ROOT/build}
HELPER=$BUILD_DIR/helpers/egress-run
FAILED=0

ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	FAILED=1
}
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# wait_for SECONDS COMMAND...: retry until it succeeds (tests/lib.sh's;
# this test has its own helpers, as it re-runs itself in namespaces)
wait_for() {
	limit=$1
	shift
	i=0
	while [ "$i" -lt $((limit * 20)) ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

if [ "$1" != --inner ]; then
	for tool in curl socat unshare nsenter ip; do
		if ! command -v $tool >/dev/null 2>&1; then
			not_ok "$tool is installed (sh tests/deps.sh)"
			exit 1
		fi
	done
	if [ ! -x "$HELPER" ]; then
		not_ok "helper $HELPER is built (make build-tests)"
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "ok - # SKIP egress network test needs root (network namespaces, veth)"
		exit 0
	fi
	exec unshare -m -n --propagation private sh "$0" --inner
fi

T=$(mktemp -d /tmp/sandmux-egress.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
# Background processes are started directly (never through a function or
# subshell) so that $! is the process itself and cleanup can kill it.
bg() { PIDS="$PIDS $!"; }

# --- the network -----------------------------------------------------------
ip link set lo up
unshare -n sleep 600 &
BPID=$!
bg
inb() { nsenter -t "$BPID" -n "$@"; }
# own_netns: the sleeper is in its network namespace (unshare has run)
own_netns() { [ "$(readlink "/proc/$BPID/ns/net")" != "$(readlink /proc/self/ns/net)" ]; }
# listening NETNS-PID ADDR:PORT...: each is a listening TCP socket there
listening() {
	ns=$1
	shift
	for a in "$@"; do
		nsenter -t "$ns" -n ss -Hltn | awk '{ print $4 }' | grep -qxF "$a" || return 1
	done
}
wait_for 5 own_netns
ip link add eg0 type veth peer name eg1 netns "$BPID" || {
	not_ok "veth pair between two network namespaces"
	exit 1
}
ip addr add 10.203.0.1/24 dev eg0
ip link set eg0 up
inb ip link set lo up
inb ip addr add 10.203.0.2/24 dev eg1
inb ip addr add 10.203.0.3/24 dev eg1
inb ip addr add 169.254.169.254/32 dev eg1
inb ip link set eg1 up
ip route add 169.254.169.254/32 via 10.203.0.2

cat >"$T/hosts" <<EOF
127.0.0.1 localhost
10.203.0.2 allowed.test
10.203.0.3 denied.test
169.254.169.254 metadata-alias.test
127.0.0.1 rebind.test
10.203.0.1 own.test
10.203.0.9 blackhole.test
10.203.0.2 idle.test
EOF
mount --bind "$T/hosts" /etc/hosts

cat >"$T/origin.sh" <<'EOF'
#!/bin/sh
read -r line
while read -r h; do [ "$(printf '%s' "$h" | tr -d '\r')" = "" ] && break; done
body="origin $1 got: $(printf '%s' "$line" | tr -d '\r')"
printf 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\n' $((${#body} + 1)) "$body"
EOF
chmod +x "$T/origin.sh"
head -c 8000000 /dev/urandom >"$T/blob"

origin() { # ADDR PORT NAME: an HTTP origin in B
	nsenter -t "$BPID" -n socat TCP-LISTEN:"$2",bind="$1",reuseaddr,fork EXEC:"$T/origin.sh $3" 2>/dev/null &
	bg
}
origin 10.203.0.2 80 allowed
origin 10.203.0.3 80 denied
origin 169.254.169.254 80 metadata
socat TCP-LISTEN:80,bind=127.0.0.1,reuseaddr,fork EXEC:"$T/origin.sh loopback" 2>/dev/null &
bg
socat TCP-LISTEN:80,bind=10.203.0.1,reuseaddr,fork EXEC:"$T/origin.sh own" 2>/dev/null &
bg
# byte counter (answers after the client's EOF: half-close), bulk data,
# and a silent origin (idle timeout)
nsenter -t "$BPID" -n socat TCP-LISTEN:7,bind=10.203.0.2,reuseaddr,fork EXEC:"wc -c" 2>/dev/null &
bg
# (backlog: socat's default of 5 drops some of the 32 stalled downloads'
# handshakes below, and a tunnel whose origin never accepted waits forever)
nsenter -t "$BPID" -n socat TCP-LISTEN:9,bind=10.203.0.2,reuseaddr,fork,backlog=64 EXEC:"cat $T/blob" 2>/dev/null &
bg
nsenter -t "$BPID" -n socat TCP-LISTEN:81,bind=10.203.0.2,reuseaddr,fork EXEC:"sleep 30" 2>/dev/null &
bg
# bulk data, then after a pause a short tail on the still open connection
printf 'cat "%s/blob"; sleep 0.5; printf TAIL; sleep 30\n' "$T" >"$T/burst.sh"
nsenter -t "$BPID" -n socat TCP-LISTEN:10,bind=10.203.0.2,reuseaddr,fork EXEC:"sh $T/burst.sh" 2>/dev/null &
bg
wait_for 5 listening "$BPID" 10.203.0.2:9 10.203.0.2:81 10.203.0.2:10

# The origins answer directly, so every refusal below is the proxy's doing.
direct() { curl -sS -m 5 --noproxy '*' "$@" 2>&1; }
case "$(direct http://allowed.test/)" in *"origin allowed"*) ok "setup: allowed.test answers directly" ;; *) not_ok "setup: allowed.test answers directly" ;; esac
case "$(direct http://denied.test/)" in *"origin denied"*) ok "setup: denied.test answers directly" ;; *) not_ok "setup: denied.test answers directly" ;; esac
case "$(direct http://metadata-alias.test/)" in *"origin metadata"*) ok "setup: the metadata address answers directly" ;; *) not_ok "setup: the metadata address answers directly" ;; esac
case "$(direct http://rebind.test/)" in *"origin loopback"*) ok "setup: rebind.test (127.0.0.1) answers directly" ;; *) not_ok "setup: rebind.test answers directly" ;; esac

# --- the proxies -------------------------------------------------------------
start_proxies() { # NAME ARGS...: egress-run with its JSON lines in $T/NAME.out
	name=$1
	shift
	"$HELPER" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	bg
	i=0
	while [ "$i" -lt 100 ] && ! grep -q '"event":"ready"' "$T/$name.out" 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
}
port_of() { # NAME INSTANCE http|socks
	grep "\"ready\",\"instance\":$2," "$T/$1.out" | sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
violation() { # NAME PATTERN...: a violation line matching every pattern
	f="$T/$1.out"
	shift
	i=0
	while [ "$i" -lt 40 ]; do
		lines=$(grep '"event":"violation"' "$f")
		for pat in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -- "$pat"); done
		[ -n "$lines" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

start_proxies main --instances 2 --unix "$T" --allow allowed.test --allow metadata-alias.test \
	--allow rebind.test --allow own.test --allow blackhole.test --allow idle.test \
	--connect-timeout 700 --idle-timeout 1000
HP=$(port_of main 0 http)
SP=$(port_of main 0 socks)
HP1=$(port_of main 1 http)
SP1=$(port_of main 1 socks)
if [ -z "$HP" ] || [ -z "$SP" ]; then
	not_ok "egress-run started: $(cat "$T/main.err")"
	exit 1
fi
ok "egress-run started (http $HP socks $SP; second instance http $HP1 socks $SP1)"

got=$(curl -sS -m 5 -p -x "http://127.0.0.1:$HP" http://allowed.test/connect 2>&1)
check "CONNECT tunnel reaches an allowed name ($got)" test "$got" = "origin allowed got: GET /connect HTTP/1.1"
got=$(curl -sS -m 5 -x "http://127.0.0.1:$HP" "http://allowed.test/plain?q=1" 2>&1)
check "plain HTTP request is rewritten to origin form ($got)" test "$got" = "origin allowed got: GET /plain?q=1 HTTP/1.1"
got=$(curl -sS -m 5 --socks5-hostname "127.0.0.1:$SP" http://allowed.test/socks 2>&1)
check "SOCKS5 (domain name) reaches an allowed name ($got)" test "$got" = "origin allowed got: GET /socks HTTP/1.1"
got=$(curl -sS -m 5 -x "http://127.0.0.1:$HP" http://ALLOWED.TEST./case 2>&1)
check "names match case-insensitively, trailing dot ignored ($got)" test "$got" = "origin allowed got: GET /case HTTP/1.1"

# denied: refused, nothing from the origin, violation reported
out=$(curl -sS -m 5 -p -x "http://127.0.0.1:$HP" http://denied.test/ 2>&1)
rc=$?
check "CONNECT to a denied name is refused (curl rc $rc)" sh -c '[ "$2" -ne 0 ] && ! printf "%s" "$1" | grep -q origin' _ "$out" "$rc"
check "... with a network-outbound violation (not allowlisted)" violation main '"protocol":"http"' '"target":"denied.test:80"' '"reason":"not allowlisted"'
out=$(curl -sS -m 5 -i -x "http://127.0.0.1:$HP" http://denied.test/plain 2>&1)
check "plain HTTP to a denied name gets 403 naming sandmux" sh -c 'printf "%s" "$1" | grep -q "^HTTP/1.1 403" && printf "%s" "$1" | grep -q "sandmux egress" && ! printf "%s" "$1" | grep -q "origin denied"' _ "$out"
curl -sS -m 5 --socks5-hostname "127.0.0.1:$SP" http://denied.test/ >"$T/socks-denied" 2>&1
rc=$?
check "SOCKS5 to a denied name is refused (curl rc $rc: 97 = not allowed)" sh -c "[ $rc -eq 97 ] && ! grep -q origin '$T/socks-denied'"
check "... with a violation from the SOCKS5 proxy" violation main '"protocol":"socks5"' '"target":"denied.test:80"' '"reason":"not allowlisted"'
curl -sS -m 5 --socks5 "127.0.0.1:$SP" http://denied.test/ >/dev/null 2>&1
check "SOCKS5 with an IPv4 address (10.203.0.3) is refused: IP literals only when listed" violation main '"target":"10.203.0.3:80"' '"reason":"not allowlisted"'

# metadata: the literal is on the deny list; an allowlisted name for it
# is caught after resolution
out=$(curl -sS -m 5 -i -x "http://127.0.0.1:$HP" http://169.254.169.254/latest/meta-data/ 2>&1)
check "the metadata address is refused (403)" sh -c 'printf "%s" "$1" | grep -q "^HTTP/1.1 403" && ! printf "%s" "$1" | grep -q "origin metadata"' _ "$out"
check "... reported as denylist" violation main '"target":"169.254.169.254:80"' '"reason":"denylist"'
out=$(curl -sS -m 5 -i -x "http://127.0.0.1:$HP" http://metadata-alias.test/ 2>&1)
check "an allowlisted name resolving to 169.254.169.254 is refused" sh -c 'printf "%s" "$1" | grep -q "^HTTP/1.1 403" && ! printf "%s" "$1" | grep -q "origin metadata"' _ "$out"
check "... reported as resolving to a forbidden address" violation main '"target":"metadata-alias.test:80"' '"reason":"resolves to a forbidden address"' '169.254.169.254'
curl -sS -m 5 --socks5-hostname "127.0.0.1:$SP" http://metadata-alias.test/ >"$T/socks-md" 2>&1
check "... through SOCKS5 as well" sh -c "! grep -q origin '$T/socks-md'"
check "... with its violation" violation main '"protocol":"socks5"' '"target":"metadata-alias.test:80"' '"reason":"resolves to a forbidden address"'
out=$(curl -sS -m 5 -p -x "http://127.0.0.1:$HP" http://rebind.test/ 2>&1)
check "an allowlisted name resolving to loopback is refused" sh -c '! printf "%s" "$1" | grep -q origin' _ "$out"
check "... reported with the address class" violation main '"target":"rebind.test:80"' 'loopback 127.0.0.1'
out=$(curl -sS -m 5 -p -x "http://127.0.0.1:$HP" http://own.test/ 2>&1)
check "an allowlisted name resolving to this host's own address is refused" sh -c '! printf "%s" "$1" | grep -q origin' _ "$out"
check "... reported as own address" violation main '"target":"own.test:80"' 'own address 10.203.0.1'

# robustness and the tunnel itself
got=$(printf 'GARBAGE\r\n\r\n' | socat -t 2 - TCP:127.0.0.1:"$HP" 2>&1 | head -1 | tr -d '\r')
check "a malformed request gets 400 ($got)" test "$got" = "HTTP/1.1 400 Bad Request"
got=$(printf 'hello, half-closed world' | socat -t 5 - PROXY:127.0.0.1:allowed.test:7,proxyport="$HP" 2>&1)
check "half-close: the origin answers after the client's EOF ($got)" test "$got" = "24"
want=$(sha256sum <"$T/blob" | cut -d' ' -f1)
got=$(socat -u PROXY:127.0.0.1:allowed.test:9,proxyport="$HP" - 2>/dev/null | sha256sum | cut -d' ' -f1)
check "8 MB through a CONNECT tunnel arrive intact" test "$got" = "$want"
# the other direction, then EOF: every byte is relayed before the
# half-close reaches the origin
size=$(wc -c <"$T/blob")
got=$(socat -t 10 - PROXY:127.0.0.1:allowed.test:7,proxyport="$HP" <"$T/blob" 2>&1)
check "8 MB uploaded through a CONNECT tunnel, then EOF, all counted ($got)" test "$got" = "$size"
# more stalled downloads at once than the proxy keeps large buffers for
# (RELAY_BUFS_MAX, 16): the rest go through small ones, and every byte of
# every one arrives once the readers catch up.  Its own proxy, with the
# default idle timeout, so the stall is not taken for idleness.
start_proxies stall --allow allowed.test
STP=$(port_of stall 0 http)
pids=""
for i in $(seq 32); do
	# A reader that stalls (the stall is what is tested), then reads all.
	timeout 60 socat -u PROXY:127.0.0.1:allowed.test:9,proxyport="$STP" - 2>/dev/null |
		{ sleep 2; sha256sum; } | cut -d' ' -f1 >"$T/stalled-$i" &
	pids="$pids $!"
done
wait $pids
check "32 stalled downloads of 8 MB at once all arrive intact" \
	test "$(cat "$T"/stalled-* | grep -c "^$want\$")" -eq 32
# A download that stalls and then resumes: the proxy's reads of the
# backed-up data are large, so it gathers (RELAY_GATHER: woken only once
# 256 KiB wait).  The tail that follows the origin's pause stays below
# that mark and must still come through in a moment (RELAY_LULL_MS),
# not when the tunnel closes (the origin then sleeps 30 s).
start=$(date +%s%N)
got=$(timeout 4 socat -u PROXY:127.0.0.1:allowed.test:10,proxyport="$STP" - 2>/dev/null |
	{ sleep 0.5; head -c 8000000 >/dev/null; head -c 4; date +%s%N >"$T/tail-at"; })
ms=$((($(cat "$T/tail-at") - start) / 1000000))
check "a short tail after a bulk burst comes through at once (${ms} ms: $got)" \
	sh -c '[ "$1" = TAIL ] && [ "$2" -lt 3000 ]' _ "$got" "$ms"
start=$(date +%s%N)
out=$(curl -sS -m 5 -i -x "http://127.0.0.1:$HP" http://blackhole.test/ 2>&1)
ms=$((($(date +%s%N) - start) / 1000000))
check "connect timeout answers 504 (${ms} ms)" sh -c 'printf "%s" "$1" | grep -q "^HTTP/1.1 504" && [ "$2" -lt 3000 ]' _ "$out" "$ms"
start=$(date +%s%N)
timeout 8 socat -u PROXY:127.0.0.1:idle.test:81,proxyport="$HP" - >/dev/null 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "an idle tunnel is closed by the idle timeout (${ms} ms, rc $rc)" sh -c "[ $rc -ne 124 ] && [ $ms -ge 900 ] && [ $ms -lt 6000 ]"

# Unix sockets (what a sandbox is given), bridged to TCP the way a
# sandbox's socat does
socat TCP-LISTEN:3128,bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:"$T/http-0.sock" 2>/dev/null &
bg
socat TCP-LISTEN:1080,bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:"$T/socks-0.sock" 2>/dev/null &
bg
wait_for 5 listening $$ 127.0.0.1:3128 127.0.0.1:1080
check "Unix socket listeners are 0600" test "$(stat -c %a "$T/http-0.sock")" = 600
got=$(curl -sS -m 5 -x http://127.0.0.1:3128 http://allowed.test/unix 2>&1)
check "the HTTP proxy answers on its Unix socket ($got)" test "$got" = "origin allowed got: GET /unix HTTP/1.1"
got=$(curl -sS -m 5 -x socks5h://127.0.0.1:1080 http://allowed.test/unixsocks 2>&1)
check "the SOCKS5 proxy answers on its Unix socket ($got)" test "$got" = "origin allowed got: GET /unixsocks HTTP/1.1"
got=$(socat -u PROXY:127.0.0.1:allowed.test:9,proxyport=3128 - 2>/dev/null | sha256sum | cut -d' ' -f1)
check "8 MB through a tunnel on the Unix socket arrive intact" test "$got" = "$want"
curl -sS -m 5 -x http://127.0.0.1:3128 http://denied.test/unix >/dev/null 2>&1
check "a refusal through a Unix socket carries that socket's tag (the pane)" violation main '"target":"denied.test:80"' '"tag":100'

# two instances: separate ports, each reports for itself
check "two instances have four distinct ports" test "$(printf '%s\n' "$HP" "$SP" "$HP1" "$SP1" | sort -u | wc -l)" -eq 4
got=$(curl -sS -m 5 -p -x "http://127.0.0.1:$HP1" http://allowed.test/second 2>&1)
check "the second instance tunnels on its own ($got)" test "$got" = "origin allowed got: GET /second HTTP/1.1"
curl -sS -m 5 -p -x "http://127.0.0.1:$HP1" http://denied.test/second >/dev/null 2>&1
check "... and reports its own violations" violation main '"instance":1' '"target":"denied.test:80"'

# networkEnabled false: everything refused and reported
start_proxies off --network-off --allow allowed.test
OHP=$(port_of off 0 http)
OSP=$(port_of off 0 socks)
out=$(curl -sS -m 5 -i -x "http://127.0.0.1:$OHP" http://allowed.test/ 2>&1)
check "network disabled: an allowlisted name gets 403" sh -c 'printf "%s" "$1" | grep -q "^HTTP/1.1 403" && ! printf "%s" "$1" | grep -q origin' _ "$out"
check "... reported as network disabled" violation off '"target":"allowed.test:80"' '"reason":"network disabled"'
curl -sS -m 5 --socks5-hostname "127.0.0.1:$OSP" http://api.github.com/ >/dev/null 2>&1
check "network disabled: the baseline is refused too (SOCKS5)" violation off '"target":"api.github.com:80"' '"reason":"network disabled"'

# --- a restricted native pane (the agent profile) --------------------------
if ! command -v bwrap >/dev/null 2>&1 || [ ! -x "$BUILD_DIR/sandmux" ]; then
	not_ok "bwrap and build/sandmux for the agent-pane checks"
	exit 1
fi
export XDG_RUNTIME_DIR="$T/run" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config"
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME" "$T/work"
chmod 700 "$XDG_RUNTIME_DIR"
export SHELL=/bin/sh
SM_NAME="egress$$"
sm() { "$BUILD_DIR/sandmux" -L "$SM_NAME" "$@"; }
sm_cleanup() {
	sm kill-server >/dev/null 2>&1
	cleanup
}
trap sm_cleanup EXIT INT TERM
# The pane's command: each step prints a marker line.
cat >"$T/work/agent.sh" <<'EOS'
echo "env http_proxy=$http_proxy all_proxy=$ALL_PROXY no_proxy=$NO_PROXY"
echo "git_ssh=$GIT_SSH_COMMAND"
printf 'plain: '; curl -sS -m 5 http://allowed.test/pane-plain 2>&1
printf 'connect: '; curl -sS -m 5 -p http://allowed.test/pane-connect 2>&1
printf 'socks: '; curl -sS -m 5 -x "$ALL_PROXY" http://allowed.test/pane-socks 2>&1
printf 'denied: '; curl -sS -m 5 -o /dev/null -w '%{http_code}\n' http://denied.test/pane 2>&1
printf 'metadata: '; curl -sS -m 5 -o /dev/null -w '%{http_code}\n' http://metadata-alias.test/ 2>&1
printf 'direct: '; curl -sS -m 3 --noproxy '*' http://10.203.0.2/direct >/dev/null 2>&1; echo "rc=$?"
printf 'direct-md: '; curl -sS -m 3 --noproxy '*' http://169.254.169.254/ >/dev/null 2>&1; echo "rc=$?"
printf 'links: '; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' '; echo
echo PANE-DONE
sleep 60
EOS
export SANDMUX_EGRESS_ALLOW="allowed.test, metadata-alias.test"
sm new -d -s agent -x 200 -y 50 -c "$T/work" --backend native --profile agent -- sh "$T/work/agent.sh" >"$T/new.out" 2>&1
i=0
while [ "$i" -lt 300 ] && ! sm capture -t agent -S - 2>/dev/null | grep -q PANE-DONE; do
	sleep 0.05
	i=$((i + 1))
done
sm capture -t agent -S - >"$T/pane.txt" 2>&1
pane_has() { grep -qF -- "$1" "$T/pane.txt"; }
if ! pane_has PANE-DONE; then
	not_ok "the agent pane ran its script: $(cat "$T/new.out") $(tail -5 "$T/pane.txt" | tr '\n' '|')"
	exit 1
fi
check "agent pane: proxy environment (HTTP, socks5h, NO_PROXY)" pane_has "env http_proxy=http://127.0.0.1:3128 all_proxy=socks5h://127.0.0.1:1080 no_proxy=localhost,127.0.0.1,::1"
check "agent pane: GIT_SSH_COMMAND goes through the proxy" pane_has "PROXY:127.0.0.1:%h:%p,proxyport=3128"
check "agent pane: plain HTTP through the proxy reaches an allowed name" pane_has "plain: origin allowed got: GET /pane-plain HTTP/1.1"
check "agent pane: a CONNECT tunnel reaches an allowed name" pane_has "connect: origin allowed got: GET /pane-connect HTTP/1.1"
check "agent pane: SOCKS5 reaches an allowed name" pane_has "socks: origin allowed got: GET /pane-socks HTTP/1.1"
check "agent pane: a denied name gets 403" pane_has "denied: 403"
check "agent pane: a name resolving to the metadata address gets 403" pane_has "metadata: 403"
check "agent pane: no direct connection to the origin" grep -q "^direct: rc=[1-9]" "$T/pane.txt"
check "agent pane: no direct connection to the metadata address" grep -q "^direct-md: rc=[1-9]" "$T/pane.txt"
check "agent pane: the only network interface is lo" grep -q "^links: lo *$" "$T/pane.txt"
[ -n "$EGRESS_DEBUG" ] && cat "$T/pane.txt" >&2
sm events --json >"$T/events.json" 2>&1
[ -n "$EGRESS_DEBUG" ] && cat "$T/events.json" >&2
violation_event() { # PATTERN...: one event line matching all
	lines=$(grep '"kind":"violation"' "$T/events.json")
	for pat in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -- "$pat"); done
	[ -n "$lines" ]
}
check "agent pane: the refusal is a network-outbound violation in sandmux events" violation_event '"action":"network-outbound"' '"target":"denied.test:80"' '"reason":"not allowlisted"' '"session":"agent"' '"pane":'
check "agent pane: the metadata refusal is reported with its reason" violation_event '"target":"metadata-alias.test:80"' '"reason":"resolves to a forbidden address"'
check "agent pane: the label is native" sh -c "sm() { \"$BUILD_DIR/sandmux\" -L \"$SM_NAME\" \"\$@\"; }; sm ls | grep -q native"

exit "$FAILED"
