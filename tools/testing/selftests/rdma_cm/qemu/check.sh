#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check` and `make run`: install what is missing, build and check
# the modules, build or reuse the test kernel, boot QEMU guests, run the
# KUnit suites and the selftests, scan the guest logs, and end with one
# line "N passed, N failed".
#
# Environment:
#   STOCK=1     run every selftest on the stock modules only
#   CACHE=DIR   where the test kernel is cached (default /var/cache/rdma-cm-test)
#   TESTS="..." run only these selftests (names as in run_tests.sh)
#   KVM=probe   try KVM with a probe boot first (default: TCG only)
set -uo pipefail

sel=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$sel/../../../.." && pwd)
mode=check
case "${1:-}" in
--run) mode=run ;;
"") ;;
*) echo "usage: check.sh [--run]" >&2; exit 2 ;;
esac

CACHE=${CACHE:-/var/cache/rdma-cm-test}
STOCK=${STOCK:-0}
out=$repo/.build/results
pass=0 fail=0 skip=0
timings=()

phase_start() { phase=$1; t0=$(date +%s); echo "=== $phase"; }
phase_end() { timings+=("$(printf '%-22s %5ss' "$phase" $(( $(date +%s) - t0 )))"); }

result() { # result ok|fail|skip NAME [diagnostic file]
	case $1 in
	ok) pass=$((pass + 1)); echo "ok - $2" ;;
	skip) skip=$((skip + 1)); echo "ok - $2 # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok - $2"
	   [ -n "${3:-}" ] && [ -s "$3" ] && tail -n 40 "$3" | sed 's/^/#   /' ;;
	esac
}

count_ktap() { # add the ok / not ok lines of a KTAP file to the totals
	local line
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) fail=$((fail + 1)) ;;
		"ok "*"# SKIP"*) skip=$((skip + 1)) ;;
		"ok "*) pass=$((pass + 1)) ;;
		esac
	done < <(sed -n 's/^[[:space:]]*\(\(not \)\{0,1\}ok [0-9-].*\)/\1/p' "$1")
}

finish() {
	echo
	echo "=== timings"
	printf '  %s\n' "${timings[@]}"
	[ $skip = 0 ] || echo "($skip skipped, not counted as passed)"
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit $?
}

# Which selftests run on our modules: each issue that implements a module
# adds it here once every selftest passes on it.
ours_for_selftests=$(grep -v '^#' "$sel/ours.list" | xargs)
[ "$STOCK" = 1 ] && ours_for_selftests=

mkdir -p "$out"

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
log=$out/guest-symvers.log
if "$sel/symvers-check.sh" "$gb/Module.symvers" "$kdir/obj/Module.symvers" > "$log" 2>&1; then
	result ok "export CRCs equal the test kernel's stock modules"
else
	result fail "export CRCs equal the test kernel's stock modules" "$log"
fi
phase_end

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
# Guest job KTAP: every ok / not ok line is one test.
[ -f "$g/job.log" ] && count_ktap "$g/job.log"
[ $vmrc = 0 ] || result fail "guest job exited cleanly (rc $vmrc)" "$g/console.log"

# KUnit results come through the kernel log.
if [ -f "$g/dmesg.txt" ]; then
	"$sel/qemu/kunit-results.sh" "$g/dmesg.txt" > "$out/kunit.txt"
	cat "$out/kunit.txt"
	count_ktap "$out/kunit.txt"
fi
if [ "$STOCK" != 1 ] && ! [ -s "$out/kunit.txt" ]; then
	result fail "KUnit suites of our modules ran in the guest" "$g/console.log"
fi

# Any splat fails the run, whatever the tests printed.
splats=$out/splats.txt
# The kernel log alone: the console also carries the tools' own output.
klog=$g/dmesg.txt
[ -f "$klog" ] || klog=$g/console.log
grep -E 'BUG:|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|Kernel panic|general protection fault|Oops|blocked for more than|INFO: lockdep|DEBUG_LOCKS_WARN|kmemleak: .* new suspected' \
	"$klog" > "$splats" 2>/dev/null
if [ -s "$g/kmemleak.txt" ]; then
	echo "kmemleak:" >> "$splats"
	head -n 60 "$g/kmemleak.txt" >> "$splats"
fi
if [ -s "$splats" ]; then
	result fail "guest log free of KASAN/lockdep/WARN/BUG/kmemleak reports" "$splats"
else
	result ok "guest log free of KASAN/lockdep/WARN/BUG/kmemleak reports"
fi
phase_end
finish
