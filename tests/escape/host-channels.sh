#!/bin/sh
# Channels to the host that no path list closes (issue 25): a host
# process's Unix socket, and a secret's hard link.
#
# A native pane may connect only to a Unix socket it bound itself (or
# its policy names: an agent pane's egress proxies), whatever the path
# or abstract name; and a hard link of a file under a
# deny-read root, made outside the masked directories before launch, is
# refused like the file (backends/linked-secret.h).  Everyday sockets
# still work: a pane's own listener, path or abstract, and TCP.
#
# For a server run as root and one run as uid 65534, in the terminal and
# agent profiles.  Each attempt is checked on the host: the host's
# listener never saw a connection, the secret's bytes did
# not come out, authorized_keys is unchanged; and each refusal is a
# violation event.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/../native-ctx.sh"
native_start host-channels bwrap setpriv python3
LISTENERS=""
trap 'for l in $LISTENERS; do kill "$l" 2>/dev/null; done; native_cleanup' EXIT

BIN="$W/bin"
mkdir -p "$BIN"
# The host's listener: accepts on a path or an abstract name (@NAME) and
# records every connection in HITS/TAG.
cat >"$BIN/listen.py" <<'EOF'
import os, socket, sys
kind, addr, hits, tag, ready = sys.argv[1:6]
name = "\0" + addr[1:] if addr.startswith("@") else addr
s = socket.socket(socket.AF_UNIX)
s.bind(name)
s.listen(8)
open(ready, "w").close()
while True:
    c, _ = s.accept()
    data = c.recv(4096)
    c.close()
    with open(os.path.join(hits, tag), "ab") as f:
        f.write(b"hit " + data + b"\n")
EOF
# In the pane: each attempt prints OK or the error's name.
cat >"$BIN/try.py" <<'EOF'
import errno, os, socket, sys
what = sys.argv[1]
def name(a):
    return "\0" + a[1:] if a.startswith("@") else a
try:
    if what == "connect":
        s = socket.socket(socket.AF_UNIX)
        s.connect(name(sys.argv[2])); s.send(b"from-pane"); print("OK")
    elif what == "own":
        s = socket.socket(socket.AF_UNIX); s.bind(name(sys.argv[2])); s.listen(1)
        c = socket.socket(socket.AF_UNIX); c.connect(name(sys.argv[2]))
        a, _ = s.accept(); c.send(b"ping"); print("OK" if a.recv(4) == b"ping" else "BAD")
    elif what == "tcp":
        c = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5)
        print("OK" if c.recv(5) == b"hello" else "BAD")
    elif what == "tcp-refused":
        try:
            socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5); print("OK")
        except ConnectionRefusedError:
            print("REFUSED")
    elif what == "read":
        print("OK " + open(sys.argv[2]).read().strip())
    elif what == "append":
        with open(sys.argv[2], "a") as f:
            f.write("ssh-ed25519 AAAA evil\n")
        print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
EOF
chmod -R a+rX "$BIN"

field_is() { [ "$(pane_field "$1" "$2")" = "$3" ]; }
newest_pane() { sm ls --json | sed -n 's/.*"id":[^0-9]*\([0-9]*\).*/\1/p' | sort -n | tail -1; }
pane_in() {
	sm split -t %1 -v -l 6 --backend native --profile "$1" -c "$WORK" -e PS1='$ ' \
		-- /bin/sh >/dev/null 2>&1
	p=$(newest_pane)
	wait_for 10 field_is "$p" state warm
	echo "$p"
}
# attempt TAG ARGS...: try.py ARGS in pane $P; $OUT gets its answer.
n_attempt=0
attempt() {
	n_attempt=$((n_attempt + 1))
	r="$WORK/.r/$NAME-$PROF-$n_attempt"
	rm -f "$r"
	sm send-keys -t "%$P" "/usr/bin/python3 $BIN/try.py $* >$r.tmp 2>&1; mv $r.tmp $r" Enter
	if wait_for 20 test -f "$r"; then OUT=$(cat "$r"); else OUT="(no result within 20 s)"; fi
}
answered() { [ "$OUT" = "$1" ] || { echo "#   answered: $OUT"; return 1; }; }
events() { sm events --json 2>/dev/null | grep '"kind":"violation"' | grep -F "\"pane\":$P,"; }
reported() { events | grep -F "\"action\":\"$1\"" | grep -qF "\"target\":\"$2\""; }
no_hit() { [ ! -e "$HITS/$1" ] || { echo "#   the host's listener saw: $(cat "$HITS/$1")"; return 1; }; }
# listen KIND ADDR TAG: a host listener as the context's user.
listen() {
	rm -f "$D/ready"
	$AS /usr/bin/python3 "$BIN/listen.py" "$1" "$2" "$HITS" "$3" "$D/ready" &
	LISTENERS="$LISTENERS $!"
	wait_for 10 test -f "$D/ready" || not_ok "$NAME: the host's $3 listener starts"
}

for who in root nobody; do
	ctx "hc-$who" "$who"
	H="$D/home"
	WORK="$D/work"
	HITS="$D/hits"
	OUTSIDE="$D/outside"
	mkdir -p "$WORK/.r" "$H/.ssh" "$H/backup" "$HITS" "$OUTSIDE"
	echo "SECRET-KEY-$$" >"$H/.ssh/id_k"
	echo "ssh-ed25519 AAAA host" >"$H/.ssh/authorized_keys"
	chmod 600 "$H/.ssh/id_k"
	# Hard links made before launch, outside the masked directory: in
	# the real work tree, in the layered part of $HOME, outside $HOME.
	ln "$H/.ssh/id_k" "$WORK/k"
	ln "$H/.ssh/id_k" "$H/backup/k"
	ln "$H/.ssh/id_k" "$OUTSIDE/k"
	ln "$H/.ssh/authorized_keys" "$WORK/ak"
	[ "$WHO" = nobody ] && chown -R 65534:65534 "$D"
	chmod 755 "$D" "$OUTSIDE"
	chmod 777 "$WORK/.r"
	AK=$(cksum <"$H/.ssh/authorized_keys")
	# The host's listeners: a daemon's socket in the work tree, one
	# outside $HOME, an abstract one (an X server's kind); and a symlink
	# to the first.
	listen stream "$WORK/daemon.sock" work
	listen stream "$OUTSIDE/daemon.sock" outside
	listen stream "@sandmux-hc-$$-$who" abstract
	ln -s "$WORK/daemon.sock" "$WORK/link.sock"
	# TCP on the host's loopback, for the terminal profile (open network).
	PORT=$((20000 + $$ % 20000))
	[ "$who" = nobody ] && PORT=$((PORT + 1))
	/usr/bin/python3 -c "
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $PORT)); s.listen(8); open('$W/tcp-ready', 'w').close()
while True:
    c, _ = s.accept(); c.send(b'hello'); c.close()" &
	LISTENERS="$LISTENERS $!"
	wait_for 10 test -f "$W/tcp-ready"
	sm new -d -s hc -x 200 -y 60 -c "$WORK" -- /bin/sh >/dev/null
	for PROF in terminal agent; do
		rm -f "$HITS"/*
		P=$(pane_in "$PROF")
		TAG="$NAME/$PROF"
		if ! field_is "$P" backend native; then
			not_ok "$TAG: a native pane starts ($(pane_field "$P" reason))"
			continue
		fi
		attempt connect "$WORK/daemon.sock"
		check "$TAG: connect to a host daemon's socket in the work tree is refused" answered EACCES
		check "$TAG: ... and the host's listener saw nothing" no_hit work
		check "$TAG: ... reported network-outbound" \
			wait_for 3 reported network-outbound "$WORK/daemon.sock"
		attempt connect "$WORK/link.sock"
		check "$TAG: through a symlink in the work tree, refused" answered EACCES
		attempt connect "$OUTSIDE/daemon.sock"
		check "$TAG: connect to a host socket outside \$HOME is refused" answered EACCES
		check "$TAG: ... and the host's listener saw nothing" no_hit outside
		attempt connect "@sandmux-hc-$$-$who"
		check "$TAG: connect to a host abstract socket is refused" answered EACCES
		check "$TAG: ... reported network-outbound" \
			wait_for 3 reported network-outbound "@sandmux-hc-$$-$who"
		check "$TAG: ... and the host's listener saw nothing" no_hit abstract
		attempt own "$WORK/own-$PROF.sock"
		check "$TAG: the pane's own socket in the work tree still works" answered OK
		attempt own "/tmp/own.sock"
		check "$TAG: the pane's own socket in /tmp still works" answered OK
		attempt own "@own-$PROF-$who-$$"
		check "$TAG: the pane's own abstract socket still works" answered OK
		if [ "$PROF" = terminal ]; then
			attempt tcp "$PORT"
			check "$TAG: TCP to the host's loopback still works (open network)" answered OK
			attempt tcp-refused 1
			check "$TAG: a TCP connect with no listener is refused as usual" answered REFUSED
		fi
		for link in "$WORK/k" "$H/backup/k" "$OUTSIDE/k"; do
			attempt read "$link"
			check "$TAG: reading the key's hard link $link is refused" answered EACCES
		done
		check "$TAG: ... reported file-read*" wait_for 3 reported "file-read*" "$WORK/k"
		attempt append "$WORK/ak"
		check "$TAG: appending to authorized_keys through its hard link is refused" \
			answered EACCES
		check "$TAG: ... and the host's authorized_keys is unchanged" \
			[ "$(cksum <"$H/.ssh/authorized_keys")" = "$AK" ]
		echo "plain" >"$WORK/plain"
		ln "$WORK/plain" "$WORK/plain2"
		[ "$WHO" = nobody ] && chown 65534:65534 "$WORK/plain" 2>/dev/null
		attempt read "$WORK/plain2"
		check "$TAG: an ordinary hard link still reads" answered "OK plain"
		rm -f "$WORK/plain" "$WORK/plain2"
	done
	sm kill-server >/dev/null 2>&1
	for l in $LISTENERS; do kill "$l" 2>/dev/null; done
	LISTENERS=""
	rm -f "$W/tcp-ready"
done
finish
