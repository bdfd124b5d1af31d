#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build rdma-cm-dkms_VERSION_all.deb: the module sources under
# /usr/src/rdma-cm-VERSION with their dkms.conf, and maintainer scripts
# that hand them to DKMS, which builds them for every installed 6.1
# kernel (and for each one installed later, from its postinst hook) into
# /lib/modules/KVER/updates/dkms, where modprobe prefers them to the
# kernel's own.
#
# usage: mkdeb.sh OUTDIR [VERSION]
# VERSION defaults to 0.<commits>+g<hash> of the git tree: it grows with
# every commit on one branch, as dpkg's upgrade order needs.
set -euo pipefail

out=${1:?usage: mkdeb.sh OUTDIR [VERSION]}
top=$(cd "$(dirname "$0")/../.." && pwd)
ver=${2:-$(cd "$top" && git log -1 > /dev/null 2>&1 &&
	echo "0.$(git rev-list --count HEAD)+g$(git rev-parse --short=7 HEAD)")}
[ -n "$ver" ] || { echo "mkdeb.sh: no git history: give a VERSION" >&2; exit 2; }
here=$top/scripts/dkms
name=rdma-cm
pkg=rdma-cm-dkms

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
src=$stage/root/usr/src/$name-$ver
doc=$stage/root/usr/share/doc/$pkg
mkdir -p "$src" "$doc" "$stage/root/DEBIAN"

# The module sources: what `make modules` reads, nothing of the tests.
cd "$top"
if git rev-parse --git-dir > /dev/null 2>&1; then
	files=$(git ls-files -- Makefile Kbuild drivers include)
else
	files=$(find Makefile Kbuild drivers include -type f)
fi
# shellcheck disable=SC2086
cp --parents -t "$src" $files
sed "s/@VERSION@/$ver/" "$here/dkms.conf.in" > "$src/dkms.conf"
find "$src" -type d -exec chmod 0755 {} +
find "$src" -type f -exec chmod 0644 {} +

# The modules have the kernel's own names and, like them, no
# MODULE_VERSION: DKMS would see equal versions and keep the kernel's.
# This is DKMS's switch for packages that replace in-kernel modules.
force=$stage/root/usr/share/dkms/modules_to_force_install
mkdir -p "$force"
echo "${name}_version-override" > "$force/$name"
chmod 0644 "$force/$name"

cp "$here/copyright" "$doc/copyright"
# Debian's changelog for the package itself; the tree's history is in git.
date=$(git log -1 --format=%cD 2> /dev/null || date -R)
{
	echo "$pkg ($ver) unstable; urgency=medium"
	echo
	echo "  * Built from the rdma_cm tree$(git log -1 --format=' at %h' 2> /dev/null || true)."
	echo
	echo " -- $(sed -n 's/^Maintainer: //p' "$here/control.in")  $date"
} | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc"/*

for s in postinst prerm; do
	sed "s/@VERSION@/$ver/" "$here/$s.in" > "$stage/root/DEBIAN/$s"
	chmod 0755 "$stage/root/DEBIAN/$s"
done
size=$(du -sk --exclude=DEBIAN "$stage/root" | cut -f1)
sed -e "s/@VERSION@/$ver/" -e "s/@SIZE@/$size/" "$here/control.in" > \
	"$stage/root/DEBIAN/control"
(cd "$stage/root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > \
	"$stage/root/DEBIAN/md5sums"
chmod 0644 "$stage/root/DEBIAN/control" "$stage/root/DEBIAN/md5sums"

# Reproducible: every file dated as the commit it comes from.
epoch=$(git log -1 --format=%ct 2> /dev/null || date +%s)
find "$stage/root" -exec touch -h -d "@$epoch" {} +
mkdir -p "$out"
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$stage/root" \
	"$out/${pkg}_${ver}_all.deb" > /dev/null
echo "$out/${pkg}_${ver}_all.deb"
