#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm selftests: rdma-core 44's tools and pyverbs rdmacm tests over
# Soft-RoCE (rxe) and Soft-iWARP (siw), on a mix of our and the stock
# rdma_cm.ko / iw_cm.ko / rdma_ucm.ko.  Output is KTAP; the last line is
# "# rdma_cm selftests: N passed, N failed, N skipped".  Exit status 0
# when nothing failed, 4 (kselftest's skip) when not run as root.
#
# usage: run_tests.sh [--list | --dry-run] [FILTER]
#   FILTER     extended regex on test ids (e.g. 'rping', '^siw\.', 'pyverbs')
#   --list     print the test ids that would run, one per line
#   --dry-run  print the KTAP plan with every test skipped
#
# Run as root in the test guest.  Environment:
#   RDMACM_OURS           our modules, a subset of "iw_cm rdma_cm rdma_ucm"
#                         (empty: all stock)
#   RDMACM_OURS_DIR       directory of our .ko files and *_kunit.ko
#   RDMACM_OURS_INSTALLED 1: our modules are installed in RDMACM_OURS_DIR,
#                         where modprobe finds them (DKMS), and load by name
#   RDMACM_TRANSPORTS     default "rxe siw"
#   RDMACM_TESTS          only these tests: names as in --list without the
#                         transport ("rping", "pyverbs",
#                         "pyverbs.test_rdmacm_async_read", "kunit"), or
#                         full ids ("siw.rping")
#   RDMACM_MIX            auto (default: load and unload every mix of our
#                         and stock modules found in RDMACM_OURS_DIR) or 0
#   RDMACM_KUNIT          auto (default: load RDMACM_OURS_DIR/*_kunit.ko
#                         if there are any) or 0 (never)
#   RDMACM_KUNIT_OURS     our modules loaded under the KUnit modules
#                         (default: each of iw_cm rdma_cm rdma_ucm that
#                         has a .ko in RDMACM_OURS_DIR)
#   RDMACM_KCLIENT        rdma_cm_kclient.ko for the kclient test (default:
#                         RDMACM_OURS_DIR/rdma_cm_kclient.ko)
#   RDMACM_TIMEOUT_SCALE  factor for every timeout (default 1; 2.5 is fine)
#   RDMACM_PYTHON         python with pyverbs (default /usr/bin/python3)
#   RDMACM_WORKDIR        where each test keeps its logs (default: a new
#                         /tmp/rdma_cm_selftests.XXXXXX)
#
# Order: KUnit modules on their own stack (kunit.load, kunit.<module>,
# kunit.unload), then stack.load (RDMACM_OURS), per transport setup, the
# tool tests, the pyverbs tests, device removal under traffic, teardown,
# and stack.unload.

SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"
for f in "$SELFTEST_DIR"/tests/*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done

TRANSPORTS=${RDMACM_TRANSPORTS:-rxe siw}
OURS=${RDMACM_OURS:-}
# The block and message ULPs (nvmeof_rdma, iser_rdma, srp_rdma, rds_rdma) run in a
# boot of their own (qemu/check.sh), without NFS: lockdep
# knows one class for every rdma_cm id's handler_mutex, so the NFS
# client freeing its CQ in a DISCONNECTED handler (handler_mutex, then
# the CQ's work) and nvmet removing its port under nvmet_config_sem
# (config_sem, then the listener's handler_mutex, while CQ work takes
# config_sem) close a cycle in one boot: a stock report on two
# different ids, which also turns lockdep off for the rest of the boot.
ONLY_BY_NAME=(nvmeof_rdma swiw_nvmeof swiw_nvmeof_srq iser_rdma srp_rdma
	      rds_rdma)
ALL_TESTS=(rping ucmatose ucmatose_migrate ucmatose_reject connect_nobody
	   reject_pdata answer_active udaddy mckey mcast_join loopback_stale
	   ephemeral_port listen_again copy_first event_cap event_memcg
	   qp_owner cmtime rdma_server_client riostream veth netns ipv6
	   ipv6_ll pyverbs iwpm ucma_fuzz ucma_fuzz_removal kclient swiw
	   swiw_ring_fuzz swiw_rate swiw_srq trace nfs_rdma removal
	   removal_early_cm)

mode=run
FILTER=
while [ $# -gt 0 ]; do
	case $1 in
	--list) mode=list ;;
	--dry-run) mode=dry ;;
	-h|--help) sed -n 3,39p "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run_tests.sh: unknown option $1" >&2; exit 2 ;;
	*) FILTER=$1 ;;
	esac
	shift
done

# --- the plan -------------------------------------------------------------------

# Is test ID (test name NAME, without the transport) selected?
selected() { # ID NAME
	local w

	if [ -n "$FILTER" ] && ! [[ $1 =~ $FILTER ]]; then
		return 1
	fi
	[ -n "${RDMACM_TESTS:-}" ] || return 0
	for w in $RDMACM_TESTS; do
		[ "$w" = "$2" ] || [ "$w" = "$1" ] || [[ $2 == "$w".* ]] && return 0
	done
	return 1
}

KUNIT_KOS=()
if [ "${RDMACM_KUNIT:-auto}" != 0 ] && [ -n "$OURS_DIR" ]; then
	for f in "$OURS_DIR"/*_kunit.ko; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .ko)
		selected "kunit.$n" "kunit.$n" && KUNIT_KOS+=("$f")
	done
fi
KUNIT_OURS=${RDMACM_KUNIT_OURS-}
if [ -z "${RDMACM_KUNIT_OURS+set}" ]; then
	for m in $STACK_MODS; do
		[ -f "$OURS_DIR/$m.ko" ] && KUNIT_OURS+=" $m"
	done
	KUNIT_OURS=${KUNIT_OURS# }
fi

# Every mix of our and stock iw_cm/rdma_cm/rdma_ucm must load and unload:
# with export CRCs equal to stock, each stock user binds to ours.
MIXES=()
if [ "${RDMACM_MIX:-auto}" != 0 ] && [ -n "$OURS_DIR" ] && selected mix "mix"; then
	for bits in 0 1 2 3 4 5 6 7; do
		mix='' i=0
		for m in $STACK_MODS; do
			[ $(((bits >> i) & 1)) = 1 ] && [ -f "$OURS_DIR/$m.ko" ] && mix+="+$m"
			i=$((i + 1))
		done
		in_list "${mix:-+stock}" "${MIXES[*]}" || MIXES+=("${mix:-+stock}")
	done
fi

PLAN=()
for mix in "${MIXES[@]}"; do
	PLAN+=("mix.ours${mix}")
done
if [ ${#KUNIT_KOS[@]} -gt 0 ]; then
	PLAN+=(kunit.load)
	for f in "${KUNIT_KOS[@]}"; do
		PLAN+=("kunit.$(basename "$f" .ko)")
	done
	PLAN+=(kunit.unload)
fi
PLAN+=(stack.load)
for t in $TRANSPORTS; do
	ids=()
	for name in "${ALL_TESTS[@]}" "${ONLY_BY_NAME[@]}"; do
		if in_list "$name" "${ONLY_BY_NAME[*]}" &&
		   ! in_list "$name" "${RDMACM_TESTS:-}"; then
			continue
		elif [ "$name" = pyverbs ]; then
			for p in "${PYVERBS_TESTS[@]}"; do
				selected "$t.pyverbs.$p" "pyverbs.$p" && ids+=("$t.pyverbs.$p")
			done
		else
			selected "$t.$name" "$name" && ids+=("$t.$name")
		fi
	done
	[ ${#ids[@]} -gt 0 ] && PLAN+=("$t.setup" "${ids[@]}" "$t.teardown")
done
PLAN+=(stack.unload)

if [ $mode = list ]; then
	printf '%s\n' "${PLAN[@]}"
	exit 0
fi

ktap_plan ${#PLAN[@]}
diag "rdma_cm: ours: ${OURS:-none (all stock)}; transports: $TRANSPORTS"
if [ $mode = dry ]; then
	for id in "${PLAN[@]}"; do
		ktap_skip "$id" "dry run"
	done
	ktap_totals
	exit 0
fi

# Not root: every test skipped, and kselftest's "skip" status (4).
if [ "$(id -u)" != 0 ]; then
	for id in "${PLAN[@]}"; do
		ktap_skip "$id" "needs root"
	done
	ktap_totals
	exit 4
fi

if [ -n "${RDMACM_WORKDIR:-}" ]; then
	WORK=$RDMACM_WORKDIR
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d /tmp/rdma_cm_selftests.XXXXXX)
fi
diag "work directory: $WORK"

# --- KUnit ---------------------------------------------------------------------

kunit_suites() {
	local d
	for d in /sys/kernel/debug/kunit/*/; do
		[ -d "$d" ] && basename "$d"
	done
}

# insmod runs the module's suites (their KTAP goes to the kernel log,
# which make check counts case by case); here: the module loads and
# unloads, and no suite of it says "not ok" in debugfs.
kunit_module() { # KO
	local ko=$1 mod s before=() after=()

	mod=$(modinfo -F name "$ko" 2> /dev/null)
	[ -n "$mod" ] || mod=$(basename "$ko" .ko | tr - _)
	mapfile -t before < <(kunit_suites)
	if ! run insmod 600 insmod "$ko"; then
		fail "insmod $ko: $(rc_text insmod)"
		return
	fi
	mapfile -t after < <(kunit_suites)
	for s in "${after[@]}"; do
		in_list "$s" "${before[*]}" && continue
		if grep -q '^[[:space:]]*not ok' "/sys/kernel/debug/kunit/$s/results" \
			2> /dev/null; then
			fail "kunit suite $s reports failures (see the kernel log)"
		else
			info "kunit suite $s: no failures"
		fi
	done
	run rmmod 120 rmmod "$mod" || fail "rmmod $mod: $(rc_text rmmod)"
	mod_present "$mod" && fail "$mod still loaded after rmmod"
}

# Load the stack with the modules of MIX ours, then unload it.
mix_case() { # MIX ("+iw_cm+rdma_cm", or "+stock")
	local ours=${1//+/ }

	[ "$ours" = " stock" ] && ours=
	load_stack "$ours" || return 1
	unload_stack cm
}

# --- per-transport pyverbs group --------------------------------------------------

declare -A PV_VERDICT PV_TEXT PV_DONE PV_REPORTED

# Run every planned pyverbs test of transport T in one run_tests.py.
pyverbs_group() { # T
	local t=$1 names=() id dir verdict name text t0=$SECONDS

	for id in "${PLAN[@]}"; do
		[[ $id == "$t".pyverbs.* ]] && names+=("${id#"$t".pyverbs.}")
	done
	dir=$WORK/$t.pyverbs
	rm -rf "$dir"
	mkdir -p "$dir"
	(
		T_DIR=$dir
		cd "$dir" || exit 1
		trap 'stop_all' EXIT
		pyverbs_run "${names[@]}"
	) > "$dir/.trace" 2>&1 < /dev/null
	diag "$t.pyverbs (${#names[@]} tests) took $((SECONDS - t0)) s"
	[ -s "$dir/.info" ] && sed 's/^/# /' "$dir/.info"
	if [ -s "$dir/.fail" ]; then
		PV_DONE[$t]=fail
		return
	fi
	while IFS=$'\t' read -r verdict name text; do
		PV_VERDICT[$t.$name]=$verdict
		PV_TEXT[$t.$name]=$text
	done < "$dir/results.tsv"
	PV_DONE[$t]=ok
}

pyverbs_report() { # ID
	local id=$1 t=${1%%.*} name=${1##*.} dir

	dir=$WORK/$t.pyverbs
	[ -n "${PV_DONE[$t]:-}" ] || pyverbs_group "$t"
	if [ "${PV_DONE[$t]}" = fail ]; then
		# the whole run failed: its diagnostics once, then the reason
		if [ -z "${PV_REPORTED[$t]:-}" ]; then
			PV_REPORTED[$t]=1
			case_report "$id" "$dir"
		else
			ktap_fail "$id" "$(head -n 1 "$dir/.fail")"
		fi
		return
	fi
	case ${PV_VERDICT[$t.$name]:-} in
	ok)
		ktap_ok "$id" "${PV_TEXT[$t.$name]}"
		;;
	skip)
		ktap_skip "$id" "${PV_TEXT[$t.$name]}"
		;;
	*)
		diag "$id: ${PV_TEXT[$t.$name]:-no verdict from parse.py}"
		diag_tail "$dir/results/$name.log" 30 "test output"
		ktap_fail "$id" "${PV_TEXT[$t.$name]:-no verdict}"
		;;
	esac
}

# --- dispatch --------------------------------------------------------------------

STACK_OK=0
KUNIT_OK=0
declare -A SETUP_OK

for id in "${PLAN[@]}"; do
	t=${id%%.*}
	name=${id#*.}
	case $id in
	mix.ours*)
		run_case "$id" mix_case "${id#mix.ours}"
		;;
	kunit.load)
		run_case "$id" load_stack "$KUNIT_OURS" && KUNIT_OK=1
		;;
	kunit.unload)
		run_case "$id" unload_stack
		;;
	kunit.*)
		if [ $KUNIT_OK = 1 ]; then
			run_case "$id" kunit_module "$OURS_DIR/$name.ko"
		else
			case_not_run "$id" "kunit.load failed"
		fi
		;;
	stack.load)
		run_case "$id" load_stack "$OURS" && STACK_OK=1
		;;
	stack.unload)
		[ -s "$WORK/stuck" ] &&
			diag "processes stuck in the kernel: $(xargs < "$WORK/stuck")"
		run_case "$id" unload_stack all
		;;
	*.setup)
		set_transport "$t"
		if [ $STACK_OK = 1 ]; then
			run_case "$id" setup_transport "$t" && SETUP_OK[$t]=1
		else
			case_not_run "$id" "stack.load failed"
		fi
		;;
	*.teardown)
		run_case "$id" teardown_transport "$t"
		;;
	*)
		set_transport "$t"
		if [ $STACK_OK != 1 ]; then
			case_not_run "$id" "stack.load failed"
		elif [ "${SETUP_OK[$t]:-0}" != 1 ]; then
			case_not_run "$id" "$t.setup failed"
		elif [[ $name == pyverbs.* ]]; then
			pyverbs_report "$id"
		else
			run_case "$id" "test_$name"
		fi
		;;
	esac
done

ktap_totals
[ "$N_FAIL" = 0 ]
