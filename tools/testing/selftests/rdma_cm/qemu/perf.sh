#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, `make soak` and `make profile`: build our modules for
# the test kernel from the working tree, boot one guest with
# bench_guest.sh, soak_guest.sh or profile_guest.sh, scan its kernel log
# as `make check` does, and end with "N passed, N failed".  bench also
# prints the table of stock, ours and ours/stock (of the finished rounds,
# from bench_table.sh, if the guest was cut short); it passes whenever
# every measurement ran (no thresholds).  profile runs the bench kernel
# under -icount with QEMU's gdb server and prints insn-profile.sh's
# instruction counts (PROFILE_CMD, PROFILE_SKIP, PROFILE_FUNCS there).
#
# usage: perf.sh bench|soak|profile
#
# Environment:
#   CACHE=DIR        where the test kernels are cached (default
#                    /var/cache/rdma-cm-test); built if missing
#   BENCH_KERNEL     bench's kernel: bench (default; no debug options,
#                    build-kernel.sh) or debug (make check's kernel)
#   BENCH_MODES      bench's guests, one boot and one table each, in
#                    this order (default "smp icount"):
#                    smp     two CPUs, as make check's guest: closer to
#                            how the stacks run, with cross-CPU wakeups,
#                            and as noisy as the host is busy
#                    icount  one CPU whose clock counts instructions
#                            (run-vm.sh -I): figures that do not depend on
#                            how busy the host is (see rdma_cm_testing.rst
#                            for what repeats); it implies
#                            BENCH_CMTIME_PAR=1 (one cmtime pair at a
#                            time: on one CPU concurrent pairs time each
#                            other's work), BENCH_WAKEUP_PREEMPT=0 and
#                            BENCH_START_DEBIT=0 (bench_guest.sh) unless
#                            given
#   BENCH_ICOUNT=1   BENCH_MODES=icount (=0: BENCH_MODES=smp)
#   PERF_OURS="..."  our modules on the "ours" side (default: the
#                    ones ours.list names)
#   PERF_VM_TIMEOUT  wall-clock limit of the guest in seconds (default
#                    bench 600 per round (BENCH_ROUNDS), at least 5400;
#                    soak 21600)
#   BENCH_NAME=VALUE, SOAK_NAME=VALUE, PROFILE_NAME=VALUE: the job's
#                    NAME=VALUE (see bench_guest.sh, soak_guest.sh,
#                    profile_guest.sh), e.g. BENCH_CMTIME_CONNS=100
#                    SOAK_FUZZ_COMMANDS=20000; no spaces or commas
#                    (SOAK_TRANSPORTS=rxe+siw); PROFILE_CMD, PROFILE_SKIP
#                    and PROFILE_FUNCS are insn-profile.sh's, not the job's
set -uo pipefail

sel=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$sel/../../../.." && pwd)
mode=${1:-}
case $mode in
bench)
	# A round took 270 s without the host path on a slow 2-core host:
	# 20 rounds ran out of a flat 5400 s.
	vm_tmo=$((${BENCH_ROUNDS:-1} * 600))
	[ "$vm_tmo" -ge 5400 ] || vm_tmo=5400
	vm_tmo=${PERF_VM_TIMEOUT:-$vm_tmo} variant=${BENCH_KERNEL:-bench} ;;
soak) vm_tmo=${PERF_VM_TIMEOUT:-21600} variant=debug ;;
profile) vm_tmo=${PERF_VM_TIMEOUT:-3600} variant=bench ;;
*) echo "usage: perf.sh bench|soak|profile" >&2; exit 2 ;;
esac

CACHE=${CACHE:-/var/cache/rdma-cm-test}
PERF_OURS=${PERF_OURS:-$(grep -v '^#' "$sel/ours.list" | xargs)}
out=$repo/.build/$mode
# shellcheck source=results.sh
. "$sel/qemu/results.sh"

# Our modules built for the test kernel KDIR into DIR/ours, from the
# working tree as it is: tracked files and new ones git does not ignore.
build_ours() { # KDIR DIR
	local kdir=$1 gb=$2/guest-build log=$2/guest-build.log

	rm -rf "$gb" "$2/ours"
	mkdir -p "$gb" "$2/ours"
	(cd "$repo" && git ls-files -z --cached --others --exclude-standard -- \
		Kbuild drivers include | while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done | xargs -0 cp --parents -t "$gb")
	if ! make -C "$kdir/obj" M="$gb" IBPRIV="$kdir/src/drivers/infiniband/core" \
		W=1 modules > "$log" 2>&1; then
		result fail "modules build against the test kernel" "$log"
		return 1
	fi
	find "$gb" -name '*.ko' -exec cp -t "$2/ours" {} +
	result ok "modules build against the test kernel"
}

# The job's NAME=VALUE arguments from BENCH_NAME / SOAK_NAME.
job_args() {
	local v prefix=${mode^^}_ list=()
	for v in $(compgen -v "$prefix"); do
		case $v in
		BENCH_KERNEL|BENCH_ICOUNT|BENCH_MODES) continue ;;
		PROFILE_CMD|PROFILE_SKIP|PROFILE_FUNCS) continue ;;	# host's
		esac
		list+=("${v#"$prefix"}=${!v}")
	done
	local IFS=,
	echo "${list[*]}"
}

# A mode's job arguments: icount's defaults, unless given, only there.
mode_args() { # smp|icount|-
	if [ "$1" = icount ]; then
		local BENCH_CMTIME_PAR=${BENCH_CMTIME_PAR:-1}
		local BENCH_WAKEUP_PREEMPT=${BENCH_WAKEUP_PREEMPT:-0}
		local BENCH_START_DEBIT=${BENCH_START_DEBIT:-0}
	fi
	job_args
}

# One guest per mode for bench; soak and profile have theirs.
modes=(-)
if [ "$mode" = bench ]; then
	case ${BENCH_ICOUNT:-} in
	1) modes=(icount) ;;
	0) modes=(smp) ;;
	*) read -ra modes <<< "${BENCH_MODES:-smp icount}" ;;
	esac
	for m in "${modes[@]}"; do
		case $m in
		smp|icount) ;;
		*) echo "perf.sh: BENCH_MODES: unknown mode $m" >&2; exit 2 ;;
		esac
	done
fi

mkdir -p "$out"

phase_start test-kernel
kdir=$("$sel/qemu/build-kernel.sh" "$CACHE" "$variant" 2> "$out/kernel.log") ||
	{ result fail "test kernel build ($variant)" "$out/kernel.log"; finish; }
phase_end

phase_start guest-modules
build_ours "$kdir" "$out" || finish
phase_end

# One set of guests at a time on this machine, as for make check.
exec 9> /tmp/rdmacm-vm.lock
flock 9 || { result fail "take /tmp/rdmacm-vm.lock"; finish; }

# The table of a bench guest, or what its finished rounds measured.
bench_report() { # GUEST_DIR MODE
	echo
	echo "=== bench ($2): median of each figure, stock and ours in the same boot"
	cat "$1/bench.txt" 2> /dev/null && return
	result fail "bench table written ($2)" "$1/console.log"
	# What the rounds that finished measured is still worth a look.
	if [ -s "$1/work-bench/results.txt" ]; then
		echo "=== partial: the rounds the guest finished"
		STORM_CLIENTS=${BENCH_STORM_CLIENTS:-10} \
		STORM_CONNS=${BENCH_STORM_CONNS:-3} \
		PERFTEST_SIZE=${BENCH_PERFTEST_SIZE:-65536} \
			"$sel/bench_table.sh" "$1/work-bench/results.txt"
	fi
}

for m in "${modes[@]}"; do
	# bench's guests are guest-smp and guest-icount.
	tag=
	[ "$m" = - ] || tag=-$m
	g=$out/guest$tag
	phase_start "guest$tag"
	jargs=$(mode_args "$m")
	vmflags=()
	[ "$m" = icount ] && vmflags=(-I)
	if [ "$mode" = profile ]; then
		port=$((20000 + $$ % 20000))
		vmflags=(-I -g "$port")
		rm -rf "$g"
		mkdir -p "$g"
		"$sel/qemu/insn-profile.sh" "$g" "$port" "$vm_tmo" > "$out/profile.txt" &
		tracer=$!
	fi
	echo "$mode$tag: $variant kernel; ours = $PERF_OURS${jargs:+; $jargs}"
	"$sel/qemu/run-vm.sh" -k "$kdir" -o "$g" -j "${mode}_guest.sh" -a "$jargs" \
		-m "${PERF_OURS// /,}" -d "$out/ours" -t "$vm_tmo" "${vmflags[@]}"
	vmrc=$?
	phase_end
	if [ "$mode" = profile ]; then
		# With the guest gone, gdb has returned; a tracer still waiting
		# for a stack the guest never brought up waits for nothing.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$tracer" 2> /dev/null || break
			sleep 1
		done
		kill "$tracer" 2> /dev/null
		if wait "$tracer"; then
			result ok "instruction traces of stock and ours"
		else
			result fail "instruction traces of stock and ours" "$out/profile.txt"
		fi
		cat "$out/profile.txt"
	fi

	phase_start "results$tag"
	[ $vmrc = 0 ] || result fail "guest job exited cleanly (rc $vmrc)" "$g/console.log"
	grep -E '^(not )?ok |^# ' "$g/job.log" 2> /dev/null | grep -v '^# *$'
	scan_guest "$g" "$mode$tag guest"
	[ "$mode" = bench ] && bench_report "$g" "$m"
	phase_end
done
finish
