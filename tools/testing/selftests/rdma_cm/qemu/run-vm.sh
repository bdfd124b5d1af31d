#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one test guest and run a job in it.
#
# usage: run-vm.sh -k KDIR -o OUTDIR -j JOB [-a ARGS] [-m OURS] [-d OURSDIR]
#                  [-t TIMEOUT] [-n NETSPEC] [-K | -I] [-g PORT]
#                  [-b BZIMAGE -i INITRD]
#   -k  test kernel directory (from build-kernel.sh)
#   -b  boot this kernel image instead (Debian's own: -k none)
#   -i  initramfs that mounts the 9p root (distro-initramfs.sh)
#   -o  results directory (shared read-write with the guest)
#   -j  job script, relative to tools/testing/selftests/rdma_cm
#   -a  comma-separated job arguments
#   -m  comma-separated list of our modules to load instead of stock
#   -d  directory of our modules built for the test kernel
#   -t  wall-clock limit in seconds (default 2400)
#   -n  "listen:PORT" or "connect:PORT": a virtio-net NIC on a QEMU
#       socket netdev, for the two-guest topology
#   -K  use KVM (only where a probe boot showed it works)
#   -I  count instructions: single-threaded TCG with -icount, so that
#       the guest's clock advances by one nanosecond per instruction
#       executed and jumps over idle time; a guest's timings then count
#       the work done, not how busy the host is (make bench)
#   -g  QEMU's gdb server on 127.0.0.1:PORT (make profile)
#
# The console goes to OUTDIR/console.log; the job's own output and the
# kernel log land in OUTDIR as well.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../../../../.." && pwd)
kdir='' out='' job='' args='' ours='' oursdir='' image='' initrd='' gdb=()
tmo=2400 net='' accel=tcg smp=2
# the console of a sane run stays far below this (MiB)
CONSOLE_MAX_MB=${CONSOLE_MAX_MB:-64}
while getopts k:o:j:a:m:d:t:n:KIg:b:i: opt; do
	case $opt in
	k) kdir=$OPTARG ;; o) out=$OPTARG ;; j) job=$OPTARG ;;
	a) args=$OPTARG ;; m) ours=$OPTARG ;; d) oursdir=$OPTARG ;;
	t) tmo=$OPTARG ;; n) net=$OPTARG ;; K) accel=kvm ;; I) accel=icount ;;
	g) gdb=(-gdb "tcp:127.0.0.1:$OPTARG") ;;
	b) image=$OPTARG ;; i) initrd=$OPTARG ;;
	*) exit 2 ;;
	esac
done
if [ -z "$kdir" ] || [ -z "$out" ] || [ -z "$job" ]; then
	sed -n 4,24p "$0"
	exit 2
fi

mkdir -p "$out"
rm -f "$out"/job.rc "$out"/job.log "$out"/dmesg.txt "$out"/kmemleak.txt

init=$repo/tools/testing/selftests/rdma_cm/qemu/init.sh
# Every KASAN report, not only the first: a report from the test kernel
# itself must not hide one from our modules.
append="console=ttyS0 panic=-1 loglevel=7 kasan_multi_shot"
boot=()
if [ -n "$initrd" ]; then
	boot=(-kernel "$image" -initrd "$initrd")
	append+=" rdinit=/init RDMACM_INIT=$init"
else
	boot=(-kernel "${image:-$kdir/bzImage}")
	append+=" root=/dev/root rootfstype=9p ro init=$init"
	append+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
fi
append+=" RDMACM_REPO=$repo RDMACM_KDIR=$kdir RDMACM_JOB=$job"
append+=" RDMACM_ARGS=$args RDMACM_OURS=$ours RDMACM_OURSDIR=$oursdir"
# Leak scans are run by init at the end; the boot-time scanner is off.
append+=" kmemleak=on"

netargs=()
case "$net" in
"") ;;
listen:*|connect:*)
	mac=52:54:00:12:34:$([ "${net%%:*}" = listen ] && echo 01 || echo 02)
	netargs=(-netdev "socket,id=n0,${net%%:*}=127.0.0.1:${net#*:}"
		 -device "virtio-net-pci,netdev=n0,mac=$mac") ;;
*) echo "run-vm: bad -n $net" >&2; exit 2 ;;
esac

if [ "$accel" = kvm ]; then
	cpu=(-accel kvm -cpu "${KVM_CPU:-kvm64}")
elif [ "$accel" = icount ]; then
	# one CPU: the secondary's bring-up never completes under icount
	cpu=(-accel "tcg,thread=single" -icount "shift=0,sleep=off,align=off"
	     -cpu "max,la57=off")
	smp=1
else
	# QEMU 7.2's TCG "max" has LA57: the KASAN test kernel then faults
	# on its own 5-level direct map from the first interrupt on.
	cpu=(-accel "tcg,thread=multi" -cpu max,la57=off)
fi

set +e
timeout --foreground -k 10 "$tmo" qemu-system-x86_64 \
	-machine q35 "${cpu[@]}" -smp "$smp" -m 4G "${gdb[@]}" \
	-nodefaults -nographic -no-reboot \
	-serial "file:$out/console.log" -monitor none \
	"${boot[@]}" -append "$append" \
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-fsdev "local,id=res,path=$out,security_model=none,multidevs=remap" \
	-device virtio-9p-pci,fsdev=res,mount_tag=results \
	-device virtio-rng-pci \
	"${netargs[@]}" </dev/null &
vm=$!
# A report storm (say KASAN on every interrupt) would otherwise run the
# guest into its wall-clock limit: stop it once the console is absurd.
(
	while kill -0 "$vm" 2>/dev/null; do
		if [ "$(stat -c %s "$out/console.log" 2>/dev/null || echo 0)" -gt \
		     $((CONSOLE_MAX_MB << 20)) ]; then
			echo "run-vm: console over ${CONSOLE_MAX_MB} MiB, stopping the guest" |
				tee -a "$out/console.log" >&2
			kill "$vm"
			break
		fi
		sleep 5
	done
) &
guard=$!
wait "$vm"
rc=$?
kill "$guard" 2>/dev/null
wait "$guard" 2>/dev/null
set -e
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "run-vm: guest timed out after ${tmo}s" >&2
	echo "run-vm: guest timed out after ${tmo}s" >> "$out/console.log"
fi
# How busy the host's cores were: whether another guest would fit beside.
times > "$out/.times"
cpu_s=$(tail -n 1 "$out/.times" | awk '{ t = 0
	for (i = 1; i <= NF; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
	printf "%d", t }')
echo "run-vm: ${SECONDS} s wall, ${cpu_s} s of host CPU" > "$out/vm-time.txt"
[ -f "$out/job.rc" ] || { echo "run-vm: job did not finish" >&2; exit 1; }
exit "$(cat "$out/job.rc")"
