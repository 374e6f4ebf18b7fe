#!/bin/sh
# microvm-image: build the guest image of the microvm backend into OUT
# (make microvm-image): the distribution's own kernel, uncompressed, and
# an initramfs holding the static guest agent as /init, busybox-static
# and the kernel modules the guest needs, in the order they must load.
#
#   sh backends/microvm-image.sh OUT AGENT
#
# The kernel is Debian's linux-image-amd64, fetched with apt-get download
# into OUT/cache and unpacked with dpkg-deb -x; it is never installed on
# the host.  A rerun with the package already in the cache downloads
# nothing.  Nothing comes from anywhere but the package archive.
set -eu
OUT=$1
AGENT=$2
CACHE=$OUT/cache
mkdir -p "$CACHE"
OUT=$(cd "$OUT" && pwd)
CACHE=$OUT/cache

# The metapackage names the versioned image package; ask apt which one
# without downloading anything, then fetch that one once.
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
[ -n "$pkg" ] || { echo "microvm-image: apt-cache knows no linux-image-amd64" >&2; exit 1; }
deb=$(ls "$CACHE"/"$pkg"_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
	echo "microvm-image: downloading $pkg"
	(cd "$CACHE" && apt-get download "$pkg" >/dev/null 2>&1) ||
		{ echo "microvm-image: apt-get download $pkg failed" >&2; exit 1; }
	deb=$(ls "$CACHE"/"$pkg"_*.deb | head -n 1)
fi
version=${pkg#linux-image-}
root=$CACHE/root
if [ ! -d "$root/lib/modules/$version" ]; then
	rm -rf "$root"
	dpkg-deb -x "$deb" "$root"
fi
mods=$root/lib/modules/$version/kernel

# vmlinuz is a bzImage whose payload is xz: the uncompressed ELF boots
# about three times faster under -kernel (qemu skips the decompressor).
# Like the kernel's scripts/extract-vmlinux: find the xz stream's magic,
# decompress from there (xz stops at the end of the stream; what trails
# it is the bzImage's own, and its complaint about it is expected).
if [ ! -s "$OUT/vmlinux" ] || [ "$deb" -nt "$OUT/vmlinux" ]; then
	vmlinuz=$root/boot/vmlinuz-$version
	offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1)
	[ -n "$offset" ] || { echo "microvm-image: no xz stream in $vmlinuz" >&2; exit 1; }
	tail -c +$((offset + 1)) "$vmlinuz" | xz -dc >"$OUT/vmlinux.tmp" 2>/dev/null || true
	[ "$(head -c 4 "$OUT/vmlinux.tmp" | od -An -c | tr -d ' ')" = "177ELF" ] ||
		{ echo "microvm-image: $vmlinuz did not decompress to an ELF" >&2; exit 1; }
	mv "$OUT/vmlinux.tmp" "$OUT/vmlinux"
fi

# The modules this kernel builds as modules that the guest needs: the
# virtio-mmio transport, the console (the pane's PTY and the control
# channel), 9p over the fd transport (the host's root and the work tree,
# through virtio serial ports), virtio
# networking (profiles with network).  Their dependencies come from each
# module's own .modinfo "depends=" (the package ships no modules.dep),
# loaded first.
want="virtio_mmio virtio_console 9pnet_fd 9p virtio_net"
find_module() {
	find "$mods" -name "$1.ko" | head -n 1
}
depends_of() {
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | tr ',' ' '
}
order=""
visit() {
	case " $order " in *" $1 "*) return ;; esac
	file=$(find_module "$1")
	[ -n "$file" ] || file=$(find_module "$(echo "$1" | tr _ -)")
	[ -n "$file" ] || { echo "microvm-image: module $1 not in $pkg" >&2; exit 1; }
	for dep in $(depends_of "$file"); do
		visit "$dep"
	done
	order="$order $1"
}
for m in $want; do
	visit "$m"
done

stage=$OUT/initramfs.d
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/modules" "$stage/dev" "$stage/proc" "$stage/sys" \
	"$stage/newroot" "$stage/tmp"
cp "$AGENT" "$stage/init"
chmod 0755 "$stage/init"
cp /bin/busybox "$stage/bin/busybox"
: >"$stage/modules/order"
for m in $order; do
	file=$(find_module "$m")
	[ -n "$file" ] || file=$(find_module "$(echo "$m" | tr _ -)")
	cp "$file" "$stage/modules/$m.ko"
	echo "$m.ko" >>"$stage/modules/order"
done
echo "$version" >"$stage/version"
(cd "$stage" && find . | LC_ALL=C sort | busybox cpio -o -H newc -R 0:0 2>/dev/null) \
	>"$OUT/initramfs.cpio.tmp"
mv "$OUT/initramfs.cpio.tmp" "$OUT/initramfs.cpio"
rm -rf "$stage"
echo "$version" >"$OUT/kernel-version"
echo "microvm-image: $OUT/vmlinux ($version), $OUT/initramfs.cpio (modules:$order)"
