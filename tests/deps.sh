#!/bin/sh
# Install whatever sandmux needs from Debian's packages.  Idempotent and
# quick when everything is present: dpkg is asked first, apt-get only
# runs for what is missing.  `sh tests/deps.sh --list` prints the list.
set -e
PKGS="build-essential pkg-config clang libvterm-dev libncurses-dev libuv1-dev libcjson-dev
libseccomp-dev libcmocka-dev musl-tools libclang-rt-14-dev bubblewrap socat tmux curl iproute2 util-linux bc gdb
qemu-system-x86 busybox-static xz-utils diod
git vim cargo python3-venv python3-pip asciinema"
# What the tests call that a minimal Debian (debootstrap --variant=minbase)
# lacks: ps and pgrep (procps), python3 (the TUI and protocol tests' JSON).
# tests/integration/fresh-machine.sh fails when a test uses a command that
# is in neither tests/minbase-packages.txt nor what this list installs.
PKGS="$PKGS procps python3"
# npm is asked for apart (below): any npm on PATH will do.
[ "$1" = "--list" ] && { echo $PKGS npm | tr ' ' '\n'; exit 0; }
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# tests/integration/common-work.sh runs npm in a native pane.  Debian's
# npm package conflicts with a nodejs from elsewhere (NodeSource ships
# npm inside its nodejs): any npm on PATH will do.
command -v npm >/dev/null 2>&1 ||
	dpkg-query -W -f='${Status}' npm 2>/dev/null | grep -q "install ok installed" ||
	missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
