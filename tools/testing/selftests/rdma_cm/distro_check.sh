#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Distro tier guest job, on Debian's own linux-image-amd64 kernel: our
# modules, built against linux-headers-amd64, load in place of the stock
# ones, and so does every stock module that depends on rdma_cm.  With
# MODVERSIONS a module whose imports disagree with our export CRCs is
# refused ("disagrees about version of symbol"), so each load is a CRC
# check against Debian's binaries.  Then real traffic over rxe on the
# same kernel: rdma-core's tools, pyverbs' rdmacm tests and NVMe-oF with
# its data compared (run_tests.sh, on the modules as loaded here).
#
# With RDMACM_OURS_INSTALLED=1 ours are the ones DKMS installed for this
# kernel (RDMACM_OURS_DIR is its updates/dkms), loaded by modprobe.
set -u

[ "${1:-}" = installed ] && export RDMACM_OURS_INSTALLED=1
SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"

# Debian's kernel has rxe but not siw.
TRAFFIC="rping ucmatose cmtime pyverbs nvmeof_rdma"
ULPS=(rpcrdma nvme-rdma nvmet-rdma ib_iser ib_isert ib_srp ib_srpt rds_rdma 9pnet_rdma)
# Modules of ours that are complete (ours.list): their users must work.
COMPLETE=$(grep -v '^#' "$SELFTEST_DIR/ours.list" | xargs)
WORK=/results/work
rm -rf "$WORK"
mkdir -p "$WORK"

# Load a stock ULP on top of ours; it must bind to our rdma_cm.
ulp_loads() { # MODULE
	local m=${1//-/_} want origin

	if ! run modprobe 120 modprobe "$1"; then
		# Symbol versions are checked before the module's init runs.
		if dmesg | grep -qE "$m: (disagrees about version|Unknown symbol)"; then
			fail "$1: its symbols do not resolve against the loaded rdma_cm"
		elif [ "$(mod_origin rdma_cm)" = ours ] && ! in_list rdma_cm "$COMPLETE" &&
			grep -q 'Operation not supported' modprobe.out; then
			# rds_rdma's init creates an id to probe for RDMA.
			skip "$1 links against our rdma_cm, but its init needs an rdma_cm that is more than a skeleton"
		else
			fail "modprobe $1: $(rc_text modprobe)"
		fi
		return 1
	fi
	mod_present "$m" || { fail "$m is not loaded"; return 1; }
	[ -e "/sys/module/rdma_cm/holders/$m" ] ||
		fail "$m does not use rdma_cm (holders: $(echo /sys/module/rdma_cm/holders/*))"
	want=stock
	in_list rdma_cm "${RDMACM_OURS:-}" && want=ours
	origin=$(mod_origin rdma_cm)
	[ "$origin" = "$want" ] || fail "rdma_cm is $origin now, expected $want"
	dmesg | grep -q "disagrees about version of symbol" &&
		fail "the kernel reports a symbol version mismatch"
	label "$(modinfo -F depends "$1" | tr , ' ')"
}

ulp_unloads() {
	local m
	for m in "${ULPS[@]}"; do
		m=${m//-/_}
		mod_present "$m" || continue
		run rmmod 60 modprobe -r "$m" || fail "modprobe -r $m: $(rc_text rmmod)"
	done
	failed && return 1
	return 0
}

ktap_plan $((1 + ${#ULPS[@]} + 2))
diag "kernel $(uname -r), ours: ${RDMACM_OURS:-none}"
ok=0
run_case stack.load load_stack "${RDMACM_OURS:-}" && ok=1
for u in "${ULPS[@]}"; do
	if [ $ok = 1 ]; then
		run_case "ulp.$u" ulp_loads "$u"
	else
		case_not_run "ulp.$u" "stack.load failed"
	fi
done
run_case ulp.unload ulp_unloads
run_case stack.unload unload_stack all
ktap_totals
rc=0
[ "$N_FAIL" = 0 ] || rc=1

# Traffic, a KTAP document of its own after this one.
RDMACM_TRANSPORTS=rxe RDMACM_MIX=0 RDMACM_KUNIT=0 RDMACM_WORKDIR=$WORK/traffic \
	RDMACM_TESTS="$TRAFFIC" "$SELFTEST_DIR/run_tests.sh" || rc=1
exit $rc
