#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test guest.  The root filesystem is a read-only virtio-9p
# view of the host's own root, so Debian's userland (rdma-core, pyverbs,
# nfs-kernel-server, nvme-cli) is simply there.  Give it a tmpfs overlay,
# put the test kernel's modules in place, run the job named on the kernel
# command line, save the kernel log and power off.
#
# Kernel command line variables (passed to us as environment):
#   RDMACM_REPO   repository path on the host (same path in the guest)
#   RDMACM_KDIR   test kernel directory (holds modroot/)
#   RDMACM_JOB    guest job script, relative to the selftests directory
#   RDMACM_ARGS   comma-separated arguments for the job
#   RDMACM_OURS   comma-separated list of our modules to load
#   RDMACM_OURSDIR directory of our modules built for this kernel

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

stage=${1:-1}

die() {
	echo "init: $*" >&2
	/bin/busybox poweroff -f
}

if [ "$stage" = 1 ]; then
	mount -t proc proc /proc || die "mount proc"
	mount -t sysfs sysfs /sys
	mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
	mount -t tmpfs -o mode=0755 tmpfs /tmp || die "mount tmpfs"
	mkdir -p /tmp/ov/upper /tmp/ov/work /tmp/ov/root
	mount -t overlay overlay \
		-o lowerdir=/,upperdir=/tmp/ov/upper,workdir=/tmp/ov/work \
		/tmp/ov/root || die "overlay root failed"
	for m in proc sys dev; do
		mount -n --move /$m /tmp/ov/root/$m
	done
	exec chroot /tmp/ov/root "$0" 2
fi

# Stage 2: inside the writable overlay root.  /tmp stays the overlay's
# (host content below, tmpfs above): the repository may live under the
# host's /tmp, as a CI clone does.
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm /run/lock
mount -t devpts devpts /dev/pts
# udev's links: bash's process substitution, <(...), opens /dev/fd/N
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
mkdir -p /results
mount -t 9p -o trans=virtio,version=9p2000.L results /results ||
	die "cannot mount the results share"

# The test kernel's modules are in its cache directory; Debian's own
# kernel (the distro tier, RDMACM_KDIR=none) finds the host's.
kver=$(uname -r)
if [ "${RDMACM_KDIR:-none}" != none ]; then
	rm -rf "/lib/modules/$kver"
	mkdir -p "/lib/modules/$kver"
	mount --bind "$RDMACM_KDIR/modroot/lib/modules/$kver" "/lib/modules/$kver" ||
		die "no modules for $kver under $RDMACM_KDIR"
fi

hostname rdmacm-guest
ip link set lo up
ulimit -l unlimited
ulimit -n 65536
# Reports must reach the console log the host scans.
echo 8 > /proc/sys/kernel/printk

cd "$RDMACM_REPO/tools/testing/selftests/rdma_cm" || die "no repo"
export RDMACM_OURS=${RDMACM_OURS//,/ }
export RDMACM_OURS_DIR=${RDMACM_OURSDIR:-}
export HOME=/root
IFS=, read -r -a args <<< "${RDMACM_ARGS:-}"

echo "init: running $RDMACM_JOB ${args[*]} (ours: ${RDMACM_OURS:-none})"
./"$RDMACM_JOB" "${args[@]}" 2>&1 | tee /results/job.log
echo "${PIPESTATUS[0]}" > /results/job.rc

# A leak report after the run fails it: scan twice, as kmemleak only
# reports objects unreferenced in two consecutive scans.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /results/kmemleak.txt
fi
dmesg > /results/dmesg.txt
sync
echo "init: done"
/bin/busybox poweroff -f
