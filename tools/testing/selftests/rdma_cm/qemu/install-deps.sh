#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages the build and the test guest need.
# The guest runs on a read-only view of this host's root filesystem, so
# everything it uses (rdma-core tools, pyverbs, NFS and NVMe userland) is
# installed here.
set -euo pipefail

pkgs=(
	# module build and static checks
	build-essential linux-headers-amd64 linux-source-6.1 sparse
	# make deb, and the distro tier's DKMS build of it
	dkms lintian
	# test kernel build
	bc bison flex libelf-dev libssl-dev cpio xz-utils zstd kmod patch
	# guest, and the distro-tier kernel
	qemu-system-x86 linux-image-amd64 busybox-static
	# guest userland
	iproute2 rdma-core rdmacm-utils ibverbs-utils ibverbs-providers
	python3 python3-pyverbs librdmacm-dev nfs-kernel-server nfs-common rpcbind nvme-cli
	open-iscsi
	# make bench's RDMA data-path figures
	perftest
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: need root to install packages" >&2
	exit 1
fi
# Package scripts must not start daemons on the host (nfs, rpcbind).
policy=/usr/sbin/policy-rc.d
created=0
if [ ! -e $policy ]; then
	printf '#!/bin/sh\nexit 101\n' > $policy
	chmod +x $policy
	created=1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
[ $created = 0 ] || rm -f $policy
