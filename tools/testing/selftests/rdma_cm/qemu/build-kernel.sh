#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a test kernel from Debian's linux-source-6.1:
#
#   debug  (default) config-base + config-debug: KASAN, lockdep,
#          kmemleak, KUnit; what make check and make soak boot
#   bench  config-base + config-bench: the same drivers without the
#          debug options, so that make bench times our code and not
#          the instrumentation around every access and lock
#
# The result lives outside the repository, in $CACHE/kernel-<key> (debug)
# or $CACHE/kernel-bench-<key>, where <key> hashes the source package
# version and the config fragments, so a warm run reuses it.  Prints the
# kernel directory on stdout.
#
# usage: build-kernel.sh CACHE_DIR [debug|bench]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: build-kernel.sh CACHE_DIR [debug|bench]}
variant=${2:-debug}
case $variant in
debug) prefix=kernel- ;;
bench) prefix=kernel-bench- ;;
*) echo "build-kernel: unknown variant $variant" >&2; exit 2 ;;
esac
fragments=("$here/config-base" "$here/config-$variant")
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${JOBS:-$(nproc)}

log() { echo "build-kernel: $*" >&2; }

[ -r "$tarball" ] || { log "missing $tarball (apt-get install linux-source-6.1)"; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# Bump recipe when a change below alters what gets built.
recipe=1
patches=("$here"/patches/*.patch)
[ -e "${patches[0]}" ] || patches=()
phash=$(cat /dev/null "${patches[@]}" | sha256sum | cut -c1-8)
key=$( (echo "$srcver $recipe $phash"; cat "${fragments[@]}") |
	sha256sum | cut -c1-16)
kdir=$cache/$prefix$key
srcdir=$cache/src-$srcver-$phash
src=$srcdir/linux-source-6.1

if [ -f "$kdir/.done" ]; then
	log "reusing $kdir"
	echo "$kdir"
	exit 0
fi

mkdir -p "$cache"
if [ ! -f "$srcdir/.done" ]; then
	log "unpacking linux-source $srcver"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	tar -C "$srcdir" -xf "$tarball"
	# Fixes to the test kernel itself (not to what we test), each
	# explained in its patch.
	for p in "${patches[@]}"; do
		log "applying $(basename "$p")"
		patch -s -p1 -d "$src" < "$p"
	done
	touch "$srcdir/.done"
fi

rm -rf "$kdir"
mkdir -p "$kdir/obj"
log "configuring in $kdir/obj"
make -s -C "$src" O="$kdir/obj" allnoconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$kdir/obj" "$kdir/obj/.config" \
	"${fragments[@]}" >&2
make -s -C "$src" O="$kdir/obj" olddefconfig >&2

# A fragment line that did not survive olddefconfig is a broken fragment:
# say which, rather than test a kernel that lacks what we asked for.
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=" "$kdir/obj/.config"; then
			log "fragment wants $line, got $(grep "^$opt=" "$kdir/obj/.config")"
			bad=1
		fi ;;
	CONFIG_*) if ! grep -qxF "$line" "$kdir/obj/.config"; then
			log "fragment wants $line, got: $(grep "^${line%%=*}=" "$kdir/obj/.config" || echo unset)"
			bad=1
		fi ;;
	esac
done < <(cat "${fragments[@]}")
[ $bad = 0 ] || exit 1

log "building with $jobs jobs (this takes a while on a fresh machine)"
make -s -C "$src" O="$kdir/obj" -j"$jobs" bzImage modules >&2
make -s -C "$src" O="$kdir/obj" INSTALL_MOD_PATH="$kdir/modroot" \
	INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install >&2
cp "$kdir/obj/arch/x86/boot/bzImage" "$kdir/bzImage"
make -s -C "$src" O="$kdir/obj" kernelrelease > "$kdir/kernelrelease"
ln -sfn "$src" "$kdir/src"
touch "$kdir/.done"
# Older builds of this variant are dead weight once this one exists (the
# other variant's stay; an old source tree goes with its kernels).
if [ "$variant" = debug ]; then
	old=(-name 'kernel-*' ! -name 'kernel-bench-*' ! -name "kernel-$key")
else
	old=(-name 'kernel-bench-*' ! -name "kernel-bench-$key")
fi
find "$cache" -mindepth 1 -maxdepth 1 \
	\( \( "${old[@]}" \) -o \
	   \( -name 'src-*' ! -name "src-$srcver-$phash" \) \) -exec rm -rf {} +
log "done: $kdir ($(cat "$kdir/kernelrelease"))"
echo "$kdir"
