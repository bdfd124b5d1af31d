#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make a tiny initramfs that lets Debian's own kernel boot the test guest:
# Debian builds virtio, 9p and overlayfs as modules, so load those from the
# host's /lib/modules, mount the host root over 9p and hand over to init.sh.
#
# usage: distro-initramfs.sh KVER OUTPUT.cpio.gz
set -euo pipefail

kver=${1:?usage: distro-initramfs.sh KVER OUTPUT}
output=${2:?usage: distro-initramfs.sh KVER OUTPUT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work"/{bin,dev,proc,sys,newroot,modules}
cp /bin/busybox "$work/bin/busybox"
ln -s busybox "$work/bin/sh"

# Dependency order, as modprobe would load them; each file once.
: > "$work/modules/order"
for m in virtio_pci 9pnet_virtio 9p overlay virtio_rng; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$work/modules/"
	basename "$ko" >> "$work/modules/order"
done

cat > "$work/init" <<'INIT'
#!/bin/sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t devtmpfs devtmpfs /dev
while read -r ko; do
	/bin/busybox insmod "/modules/$ko" || echo "initramfs: insmod $ko failed"
done < /modules/order
# The kernel hands unrecognised name=value words to init as environment.
/bin/busybox mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose \
	/dev/root /newroot || { echo "initramfs: no 9p root"; /bin/busybox poweroff -f; }
/bin/busybox umount /dev /proc
exec /bin/busybox switch_root /newroot "$RDMACM_INIT" 1
INIT
chmod +x "$work/init"
(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$output"
