#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check` and `make run`: install what is missing, build and check
# the modules, build or reuse the test kernel, boot QEMU guests, run the
# KUnit suites and the selftests, scan the guest logs, and end with one
# line "N passed, N failed".
#
# `make ulp` (--ulp): the kernel ULPs' full matrix, every ULP test over
# rxe and siw on our modules and on the stock ones, in four boots (NFS
# on its own, see ONLY_BY_NAME in run_tests.sh).  make check runs the
# same tests on ours only.
#
# Environment:
#   STOCK=1     run every selftest on the stock modules only
#   CACHE=DIR   where the test kernel is cached (default /var/cache/rdma-cm-test)
#   TESTS="..." run only these selftests (names as in run_tests.sh)
#   OURS="..."  run the selftests on these of our modules instead of the
#               ones ours.list names (e.g. OURS="iw_cm" while developing)
#   KVM=probe   try KVM with a probe boot first (default: TCG only)
set -uo pipefail

sel=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$sel/../../../.." && pwd)
mode=check
case "${1:-}" in
--run) mode=run ;;
--ulp) mode=ulp ;;
"") ;;
*) echo "usage: check.sh [--run | --ulp]" >&2; exit 2 ;;
esac
# The ULP tests of the ULP boot; nfs_rdma runs in the main guest.
ULP_TESTS="nvmeof_rdma swiw_nvmeof swiw_nvmeof_srq iser_rdma srp_rdma rds_rdma"


CACHE=${CACHE:-/var/cache/rdma-cm-test}
STOCK=${STOCK:-0}
out=$repo/.build/results
# shellcheck source=results.sh
. "$sel/qemu/results.sh"

# Which selftests run on our modules: each issue that implements a module
# adds it here once every selftest passes on it.
ours_for_selftests=${OURS-$(grep -v '^#' "$sel/ours.list" | xargs)}
[ "$STOCK" = 1 ] && ours_for_selftests=

mkdir -p "$out"

# rdma_cm_kclient (tests/kclient.sh) built in DIR against the kernel build
# KOBJ and copied to DEST; its CRCs must be those of the rdma_cm it meets.
kclient_build() { # KOBJ DIR DEST WHAT
	local log=$2.log

	rm -rf "$2"
	cp -r "$sel/kclient" "$2"
	if make -C "$1" M="$2" W=1 modules > "$log" 2>&1; then
		cp "$2/rdma_cm_kclient.ko" "$3/"
	else
		result fail "rdma_cm_kclient builds against $4" "$log"
	fi
}

# --- host: packages, build, static checks --------------------------------
phase_start deps
"$sel/qemu/install-deps.sh" || { result fail "install Debian packages"; finish; }
phase_end

phase_start build
log=$out/build.log
if make -C "$repo" -s W=1 modules > "$log" 2>&1; then
	if grep -q 'warning:' "$log"; then
		result fail "modules build W=1 without warnings" "$log"
	else
		result ok "modules build W=1 without warnings"
	fi
else
	result fail "modules build against Debian headers" "$log"
fi
log=$out/sparse.log
if make -C "$repo" -s sparse > "$log" 2>&1 && ! grep -qE 'warning:|error:' "$log"; then
	result ok "sparse C=2 clean"
else
	result fail "sparse C=2 clean" "$log"
fi
log=$out/checkpatch.log
if make -C "$repo" -s checkpatch > "$log" 2>&1; then
	result ok "checkpatch --strict clean"
else
	result fail "checkpatch --strict clean" "$log"
fi
log=$out/symvers.log
if make -C "$repo" -s symvers-check > "$log" 2>&1; then
	result ok "export CRCs equal Debian's Module.symvers ($(grep -c '^ok' "$log") symbols)"
else
	result fail "export CRCs equal Debian's Module.symvers" "$log"
fi
phase_end

# --- test kernel and our modules built for it ----------------------------
phase_start test-kernel
kdir=$("$sel/qemu/build-kernel.sh" "$CACHE" 2> "$out/kernel.log") ||
	{ result fail "test kernel build" "$out/kernel.log"; finish; }
phase_end

phase_start guest-modules
gb=$out/guest-build
rm -rf "$gb"
mkdir -p "$gb"
(cd "$repo" && git ls-files -z -- Kbuild drivers include |
	xargs -0 cp --parents -t "$gb")
log=$out/guest-build.log
if make -C "$kdir/obj" M="$gb" IBPRIV="$kdir/src/drivers/infiniband/core" \
	W=1 modules > "$log" 2>&1; then
	result ok "modules build against the test kernel"
else
	result fail "modules build against the test kernel" "$log"
	finish
fi
oursdir=$out/ours
rm -rf "$oursdir"
mkdir -p "$oursdir"
find "$gb" -name '*.ko' -exec cp -t "$oursdir" {} +
# The kernel API selftest client (tests/kclient.sh), next to our modules.
kclient_build "$kdir/obj" "$out/kclient-build" "$oursdir" "the test kernel"
log=$out/guest-symvers.log
if "$sel/symvers-check.sh" "$gb/Module.symvers" "$kdir/obj/Module.symvers" > "$log" 2>&1; then
	result ok "export CRCs equal the test kernel's stock modules"
else
	result fail "export CRCs equal the test kernel's stock modules" "$log"
fi
phase_end

# One set of guests at a time on this machine: they are timing-sensitive
# and TCG takes every core it is given.
exec 9> /tmp/rdmacm-vm.lock
flock 9

accel=()
if [ "${KVM:-}" = probe ]; then
	phase_start kvm-probe
	if "$sel/qemu/run-vm.sh" -K -k "$kdir" -o "$out/kvm-probe" -j probe.sh \
		-t 60 > /dev/null 2>&1; then
		accel=(-K)
		echo "KVM boots: using it"
	else
		echo "KVM probe failed: using TCG"
	fi
	phase_end
fi

if [ $mode = run ]; then
	echo "make run: rping over siw and rxe, ours: ${ours_for_selftests:-none yet (stock)}"
	"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/run" -j demo.sh \
		-m "${ours_for_selftests// /,}" -d "$oursdir" -t 1200
	rc=$?
	cat "$out/run/job.log" 2>/dev/null
	exit $rc
fi

if [ $mode = ulp ]; then
	for who in ours stock; do
		o=${ours_for_selftests// /,}
		st=0
		[ $who = stock ] && { o=; st=1; }
		for set in nfs_rdma "$ULP_TESTS"; do
			name=ulp-$who-${set%% *}
			phase_start "$name"
			"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/$name" \
				-j guest_check.sh -a "stock=$st,tests=${set// /+}" \
				-m "$o" -d "$oursdir" -t 2400 > /dev/null 2>&1
			rc=$?
			# scan_guest prints each not ok with its diagnostics.
			grep -E '^ok |^# ' "$out/$name/job.log" 2>/dev/null |
				grep -vE '^# (ok|not ok)' | sed "s/^/$name: /"
			[ $rc = 0 ] || result fail "$name: job exited cleanly (rc $rc)" \
				"$out/$name/console.log"
			scan_guest "$out/$name" "$name"
			phase_end
		done
	done
	finish
fi

# --- guest: KUnit, module mixes, selftests -------------------------------
phase_start guest
echo "selftests run on ours: ${ours_for_selftests:-none (all stock)}"
[ "$STOCK" = 1 ] && echo "STOCK=1: our modules are not loaded at all"
g=$out/guest
"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$g" -j guest_check.sh \
	-a "stock=$STOCK${TESTS:+,tests=${TESTS// /+}}" \
	-m "${ours_for_selftests// /,}" -d "$oursdir" -t 3000
vmrc=$?
phase_end

phase_start results
# A job that ended and failed a case names it itself (scan_guest); the
# console's tail helps when it did not end or failed outside any case.
gdiag=$g/console.log
[ -f "$g/job.rc" ] && grep -q '^not ok ' "$g/job.log" 2>/dev/null && gdiag=
[ $vmrc = 0 ] || result fail "guest job exited cleanly (rc $vmrc)" "$gdiag"

# KUnit results come through the kernel log.
if [ -f "$g/dmesg.txt" ]; then
	"$sel/qemu/kunit-results.sh" "$g/dmesg.txt" > "$out/kunit.txt"
	cat "$out/kunit.txt"
	count_ktap "$out/kunit.txt" kunit
fi
if [ "$STOCK" != 1 ] && ! [ -s "$out/kunit.txt" ]; then
	result fail "KUnit suites of our modules ran in the guest" "$g/console.log"
fi

scan_guest "$g" "guest"
phase_end

# --- guest: the block and message ULPs (ONLY_BY_NAME in run_tests.sh) ----
if [ -z "${TESTS:-}" ]; then
	phase_start ulp-guest
	"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/ulp" \
		-j guest_check.sh -a "stock=$STOCK,tests=${ULP_TESTS// /+}" \
		-m "${ours_for_selftests// /,}" -d "$oursdir" -t 2400 > /dev/null 2>&1
	rc=$?
	grep -E '^ok ' "$out/ulp/job.log" 2>/dev/null | sed 's/^/ulp guest: /'
	[ $rc = 0 ] || result fail "ulp guest: job exited cleanly (rc $rc)" \
		"$out/ulp/console.log"
	scan_guest "$out/ulp" "ulp guest"
	phase_end
fi

# --- two guests on one wire: ours (a) against stock (b) ------------------
phase_start two-guests
port=$((20000 + RANDOM % 10000))
"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/two-a" -j two_guests.sh \
	-a me=a -m "${ours_for_selftests// /,}" -d "$oursdir" \
	-n "listen:$port" -t 1800 > /dev/null 2>&1 &
apid=$!
sleep 3
"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/two-b" -j two_guests.sh \
	-a me=b -d "$oursdir" -n "connect:$port" -t 1800 > /dev/null 2>&1
brc=$?
wait $apid
arc=$?
for x in a b; do
	rc=$arc
	[ $x = b ] && rc=$brc
	grep -E '^ok ' "$out/two-$x/job.log" 2>/dev/null | sed "s/^/guest $x: /"
	[ "$rc" = 0 ] || result fail "two guests: guest $x job exited cleanly (rc $rc)" \
		"$out/two-$x/console.log"
	scan_guest "$out/two-$x" "two guests: guest $x"
done
phase_end

# --- in-tree: the patch series, applied and built patch by patch --------
# The build (check-series.sh, about two minutes of both cores) runs beside
# the distro guest, Debian's kernel without debug options, whose tests
# wait on the network more than on the CPU.
phase_start in-tree
series_pid=
log=$out/series.log
if make -C "$repo" -s series > "$log" 2>&1; then
	result ok "make series: $(find "$repo/.build/series/patches" -name '0*.patch' |
		grep -vc 0000-cover) patches, each checkpatch --strict clean"
	"$repo/scripts/series/check-series.sh" "$kdir" "$repo/.build/series/patches" \
		"$out/series-check" > "$out/series-check.log" 2>&1 &
	series_pid=$!
else
	result fail "make series" "$log"
fi
phase_end

# --- distro tier: Debian's own kernel with ours from the DKMS package ----
phase_start distro
dkver=$(make -C "$repo" -s -f Makefile print-kver 2>/dev/null)
d=$out/distro
rm -rf "$d"
mkdir -p "$d"
upd=/lib/modules/$dkver/updates/dkms
kmods="iw_cm rdma_cm rdma_ucm swiw"
# A package an interrupted run left installed would stand in for stock.
if dpkg-query -W -f='${Status}' rdma-cm-dkms 2>/dev/null | grep -q ' installed$'; then
	dpkg -r rdma-cm-dkms > "$d/dpkg-r-stale.log" 2>&1
fi
deb=$(make -C "$repo" -s deb 2> "$d/deb.log" | tail -n 1)
installed=0
if [ -f "$deb" ]; then
	result ok "make deb: $(basename "$deb")"
	lintian --pedantic -I "$deb" > "$d/lintian.log" 2>&1
	if grep -qE '^[EWIPX]:' "$d/lintian.log"; then
		result fail "lintian --pedantic: no tags" "$d/lintian.log"
	else
		result ok "lintian --pedantic: no tags"
	fi
	if dpkg -i "$deb" > "$d/dpkg-i.log" 2>&1; then
		bad=
		for m in $kmods; do
			[ "$(modinfo -k "$dkver" -n "$m" 2>/dev/null)" = "$upd/$m.ko" ] || bad+=" $m"
		done
		if [ -z "$bad" ]; then
			result ok "dpkg -i: DKMS installed $kmods for $dkver where modprobe finds them"
			installed=1
		else
			result fail "dpkg -i: DKMS installed $kmods for $dkver (not:$bad)" "$d/dpkg-i.log"
		fi
	else
		result fail "dpkg -i $(basename "$deb")" "$d/dpkg-i.log"
	fi
else
	result fail "make deb" "$d/deb.log"
fi
# Remove the package: modprobe must find the kernel's own modules again.
deb_remove() {
	local m bad=

	if dpkg -r rdma-cm-dkms > "$d/dpkg-r.log" 2>&1; then
		for m in iw_cm rdma_cm rdma_ucm; do
			case $(modinfo -k "$dkver" -n "$m" 2>/dev/null) in
			/lib/modules/"$dkver"/kernel/*) ;;
			*) bad+=" $m" ;;
			esac
		done
		[ -e "$upd/swiw.ko" ] && bad+=" swiw"
	else
		bad=" (dpkg -r failed)"
	fi
	if [ -z "$bad" ]; then
		result ok "dpkg -r: modprobe finds the kernel's own modules again"
	else
		result fail "dpkg -r: modprobe finds the kernel's own modules again (not:$bad)" \
			"$d/dpkg-r.log"
	fi
}

# The guest's root is this host's: with the package installed, Debian's
# kernel finds DKMS's modules the way a boot does.  Without it (STOCK=1,
# or a failed install), the modules make built are loaded by path.
distro_args=
if [ "$STOCK" = 1 ]; then
	distro_ours=
	[ $installed = 1 ] && deb_remove
elif [ $installed = 1 ]; then
	distro_ours=iw_cm,rdma_cm,rdma_ucm distro_dir=$upd distro_args=installed
else
	distro_ours=iw_cm,rdma_cm,rdma_ucm distro_dir=$out/distro-ours
	rm -rf "$distro_dir"
	mkdir -p "$distro_dir"
	cp "$repo"/drivers/infiniband/core/{iw_cm,rdma_cm,rdma_ucm}.ko "$distro_dir/"
fi
if "$sel/qemu/distro-initramfs.sh" "$dkver" "$out/distro-initrd.gz" 2> "$d/initramfs.log"; then
	"$sel/qemu/run-vm.sh" "${accel[@]}" -k none -b "/boot/vmlinuz-$dkver" \
		-i "$out/distro-initrd.gz" -o "$d" -j distro_check.sh -a "$distro_args" \
		-m "$distro_ours" -d "${distro_dir:-}" -t 1200 > /dev/null 2>&1
	rc=$?
	grep -E '^ok ' "$d/job.log" 2>/dev/null | sed "s/^/distro: /"
	[ $rc = 0 ] || result fail "distro tier: job exited cleanly (rc $rc)" "$d/console.log"
	scan_guest "$d" "distro tier ($dkver)"
else
	result fail "distro tier: initramfs for $dkver" "$d/initramfs.log"
fi
[ $installed = 1 ] && [ "$STOCK" != 1 ] && deb_remove
phase_end

if [ -n "$series_pid" ]; then
	phase_start in-tree-wait
	wait "$series_pid"
	rc=$?
	grep -E '^(not )?ok |^check-series:' "$out/series-check.log" | sed 's/^/in-tree: /'
	count_ktap "$out/series-check.log" in-tree
	[ $rc = 0 ] || grep -q '^not ok' "$out/series-check.log" ||
		result fail "in-tree: the series applies and builds patch by patch" \
			"$out/series-check.log"
	phase_end

	# The in-tree build booted: its iw_cm, rdma_cm, rdma_ucm, swiw and
	# KUnit modules on the test kernel, a short subset of the selftests.
	# In-tree, rdma_cm's export CRCs are the tree's own, so the kernel
	# API client is built against the patched tree; the kernel's ULP
	# modules were built against the unpatched one and are left out.
	if [ $rc = 0 ] && [ "$STOCK" != 1 ]; then
		phase_start in-tree-guest
		sobj=$out/series-check/obj
		it=$out/in-tree-ours
		rm -rf "$it"
		mkdir -p "$it"
		for m in $(cat "$sobj/drivers/infiniband/core/modules.order" \
			   "$sobj/drivers/infiniband/sw/swiw/modules.order"); do
			case $(basename "$m") in
			iw_cm*|rdma_cm*|rdma_ucm*|swiw*) cp "$sobj/$m" "$it/" ;;
			esac
		done
		kclient_build "$sobj" "$out/in-tree-kclient" "$it" "the patched tree"
		"$sel/qemu/run-vm.sh" "${accel[@]}" -k "$kdir" -o "$out/in-tree-guest" \
			-j guest_check.sh -a "stock=0,tests=kunit+rping+ucmatose+rxe.kclient" \
			-m "${ours_for_selftests// /,}" -d "$it" -t 1200 > /dev/null 2>&1
		rc=$?
		grep -E '^ok ' "$out/in-tree-guest/job.log" 2>/dev/null |
			sed 's/^/in-tree guest: /'
		[ $rc = 0 ] || result fail "in-tree guest: job exited cleanly (rc $rc)" \
			"$out/in-tree-guest/console.log"
		scan_guest "$out/in-tree-guest" "in-tree guest"
		phase_end
	fi
	rm -rf "$out/series-check/obj" "$out/series-check/src"
fi
finish
