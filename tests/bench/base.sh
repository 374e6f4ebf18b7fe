# Sourced by run.sh and native.sh: the base build a bench compares with.
# base_sandmux BASE DIR: prints the sandmux of BASE, a build directory
# holding one or a commit of this repository built into DIR/base (make's
# output in DIR/base.log); prints nothing, and says why on stderr, when
# BASE is empty or cannot be built.
base_sandmux() {
	if [ -n "$1" ] && [ -x "$1/sandmux" ]; then
		echo "$(cd "$1" && pwd)/sandmux"
	elif [ -n "$1" ] && git -C "$ROOT" cat-file -e "$1^{commit}" 2>/dev/null; then
		mkdir -p "$2/base"
		if git -C "$ROOT" archive "$1" | tar -x -C "$2/base" &&
			make -C "$2/base" -j2 all >"$2/base.log" 2>&1; then
			echo "$2/base/build/sandmux"
		else
			echo "bench: cannot build the base $1 (see $2/base.log), comparing nothing" >&2
		fi
	fi
}
