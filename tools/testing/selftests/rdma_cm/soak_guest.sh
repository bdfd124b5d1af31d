#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make soak` guest job: long runs on our modules (PERF_OURS), and a
# differential run against stock, over each of TRANSPORTS.  KTAP output,
# last line "# rdma_cm selftests: N passed, N failed, N skipped".
#
#   T.fuzz          ucma_fuzz, FUZZ_COMMANDS operations from 4 threads in
#                   2 network namespaces on 4 files (seed FUZZ_SEED);
#                   fails unless it gets through all of them within
#                   FUZZ_SECONDS (scaled)
#   T.cmtime        cmtime with CMTIME_RXE connections over rxe, as
#                   pairs of CMTIME_RXE_PER one at a time; CMTIME_SIW over
#                   siw, as pairs of 25 (the siw limit, tests/cmtime.sh),
#                   CMTIME_SIW_PAR pairs at a time
#   T.ucmatose      ucmatose with UCMA_CONNS connections (SEND/RECV on
#                   each), as pairs of 100 over rxe and of 25 over siw
#                   (tests/ucmatose.sh), UCMA_PAR pairs at a time
#   T.diff.stock    ucma_fuzz -t 1 -f 1 -l -s DIFF_SEED -n DIFF_COMMANDS
#   T.diff.ours     on each stack, twice: "strict" without the operations
#                   whose outcome waits on an asynchronous completion, and
#                   "full" with every operation
#   T.diff.strict   the strict logs, compared (see diff_compare)
#   T.diff.full     the full logs, compared
#
# and once:
#
#   mpa.fuzz        iw_cm's MPA frame fuzzer (KUnit suite iw_cm_mpa of
#                   iw_cm_mpa_kunit.ko) over MPA_FUZZ_FRAMES frames, seed
#                   MPA_FUZZ_SEED; make check runs its default 20000
#   swiw_rx.fuzz    swiw's inbound parser fuzzer (KUnit suite swiw_rx of
#                   swiw_rx_kunit.ko) over SWIW_RX_STREAMS streams, seed
#                   SWIW_RX_SEED; make check runs its default 1000
#
# and in the siw pass, on our stack:
#
#   siw.swiw_ring   swiw_ring_fuzz (tests/swiw.sh) on swiw0 with user
#                   verbs for SWIW_RING_SECONDS, seed SWIW_RING_SEED;
#                   make check runs 60 s with the time as the seed
#
# Arguments (comma-separated by init): NAME=VALUE for the names above.
set -u

# shellcheck source=perf_lib.sh
. "$(dirname "$0")/perf_lib.sh"
# shellcheck source=tests/ucma_fuzz.sh
. "$SELFTEST_DIR/tests/ucma_fuzz.sh"
# shellcheck source=tests/ucmatose.sh
. "$SELFTEST_DIR/tests/ucmatose.sh"
# shellcheck source=tests/swiw.sh
. "$SELFTEST_DIR/tests/swiw.sh"

TRANSPORTS="rxe siw"
FUZZ_COMMANDS=1000000 FUZZ_SEED=1 FUZZ_SECONDS=1800
# cmtime connects all of a pair's connections at once.  Past the
# listener's backlog (rdma_ucm's max_backlog, 1024) the stack rejects
# requests, and ib_cm's MADs time out in the debug guest: 3000 in one
# pair over rxe ended in 1348 REJECTED and 716 UNREACHABLE events on the
# stock stack as on ours.
CMTIME_RXE=10000 CMTIME_RXE_PER=1000
CMTIME_SIW=2000 CMTIME_SIW_PAR=8 CMTIME_SECONDS=1200
UCMA_CONNS=1000 UCMA_PAR=8
DIFF_COMMANDS=20000 DIFF_SEED=1
MPA_FUZZ_FRAMES=1000000 MPA_FUZZ_SEED=1
SWIW_RX_STREAMS=20000 SWIW_RX_SEED=1
SWIW_RING_SECONDS=1200 SWIW_RING_SEED=1
perf_args "TRANSPORTS FUZZ_COMMANDS FUZZ_SEED FUZZ_SECONDS CMTIME_RXE
	   CMTIME_RXE_PER CMTIME_SIW CMTIME_SIW_PAR CMTIME_SECONDS UCMA_CONNS UCMA_PAR DIFF_COMMANDS
	   DIFF_SEED MPA_FUZZ_FRAMES MPA_FUZZ_SEED SWIW_RX_STREAMS
	   SWIW_RX_SEED SWIW_RING_SECONDS SWIW_RING_SEED" "$@"
TRANSPORTS=${TRANSPORTS//+/ }

# The strict differential leaves out what starts or waits on asynchronous
# work: address resolution (whose completion moves an id on, so that
# later commands on it succeed or not by timing), GET_EVENT and poll
# (whether an event is there yet), and the chain (it resolves, sleeps and
# goes on only if the resolution was done).
DIFF_STRICT_X=get_event,poll,chain,resolve_ip,resolve_addr

soak_fuzz() {
	local n
	# shellcheck disable=SC2046	# words on purpose
	run fuzz $((FUZZ_SECONDS + 120)) "$BIN/ucma_fuzz" -s "$FUZZ_SEED" \
		-n "$FUZZ_COMMANDS" -t 4 -f 4 -N 2 -a "$ADDR" \
		-T "$(tmo "$FUZZ_SECONDS")" $(ucma_fuzz_args)
	ucma_fuzz_ok
	# -n counts operations; an operation issues one command, a chain of
	# them, or none (one that answer_own leaves out)
	n=$(sed -n 's/^ucma_fuzz: \([0-9]*\) operations$/\1/p' fuzz.out)
	[ "${n:-0}" -ge "$FUZZ_COMMANDS" ] ||
		fail "fuzz: ${n:-no} operations done of $FUZZ_COMMANDS within $(tmo "$FUZZ_SECONDS") s"
}

soak_cmtime() {
	local n=$CMTIME_RXE per=$CMTIME_RXE_PER par=1

	if [ "$T" = siw ]; then
		n=$CMTIME_SIW per=25 par=$CMTIME_SIW_PAR
	fi
	cmtime_pairs "$n" "$per" "$par" "$CMTIME_SECONDS" || return
	label "$n connections, pairs of $per, $par at a time," \
		"connect $(cmtime_connect_us "$n") us/conn"
}

soak_ucmatose() {
	local per=100

	[ "$T" = siw ] && per=25
	ucmatose_pairs "$UCMA_CONNS" "$per" "$UCMA_PAR" 900 || return
	label "$UCMA_CONNS connections, pairs of $per, $UCMA_PAR at a time"
}

# The differential logs of ORIGIN: WORK/diff-T-ORIGIN-{strict,full}.log,
# the command lines only.
diff_run() { # ORIGIN
	local mode log x=()
	stack_up "$1" || return
	for mode in strict full; do
		x=(-x "answer_own,stock_lax")
		[ $mode = strict ] && x=(-x "answer_own,stock_lax,$DIFF_STRICT_X")
		run "$mode" 600 "$BIN/ucma_fuzz" -s "$DIFF_SEED" -n "$DIFF_COMMANDS" \
			-t 1 -f 1 -l -a "$ADDR" "${x[@]}"
		expect_rc "$mode" 0
		log=$WORK/diff-$T-$1-$mode.log
		grep -E '^[0-9]+ ' "$mode.out" > "$log"
		info "$mode: $(wc -l < "$log") commands logged"
	done
	stack_down
}

# Compare the stock and our logs of MODE, line by line, up to the first
# line that differs.  Timing legitimately decides some results, and once
# one result differs the random sequences part (a result feeds the pool
# of ids the next commands pick from), so nothing after it is compared.
#
# strict: the lines must be equal to the letter (ids included: both
#   allocate them lowest-first from an xarray), except that a GET_EVENT
#   (cmd=12, only from garbage here) may find an event there or not.
# full: ids and event ids and status are dropped (a connection request that
#   came sooner takes an id number); the first difference may be any
#   command whose outcome hangs on an id's state or the event queue,
#   but not one whose outcome depends on its own bytes alone: create_id,
#   garbage other than GET_EVENT, get_option, reopen.
#
# Both modes know the refusals Documentation/infiniband/rdma_ucm.rst
# lists ("Hardening"): where both failed, the sequences
# stay together and the comparison goes on (counted as "deliberate");
# where stock succeeded and we refused, it ends there, and that is no
# failure either.
#   - hdr.in below the command's size: ours EINVAL (stock reads on)
#   - MIGRATE_ID with hdr.out < 4: ours ENOSPC
#   - SET_OPTION: ours checks name and length first: EINVAL or ENOSYS
#     where stock says EFAULT
#   - CREATE_ID in RDMA_PS_IB (319) with a QP type but RC, UC, UD,
#     XRC_INI, XRC_TGT: ours EINVAL
#   - a second join of one address: ours EADDRINUSE where stock joined
diff_compare() { # MODE
	local mode=$1 s=$WORK/diff-$T-stock-$1.log o=$WORK/diff-$T-ours-$1.log res
	if ! [ -s "$s" ] || ! [ -s "$o" ]; then
		fail "no logs of both runs"
		return
	fi
	res=$(awk -v mode="$mode" '
		function norm(l) {
			if (mode == "full") {
				sub(/ id=[0-9]+ status=-?[0-9]+$/, "", l)
				gsub(/ (new|id)=[0-9]+/, "", l)
			}
			return l
		}
		function field(l, name) {
			if (match(l, " " name "=[0-9]+"))
				return substr(l, RSTART + length(name) + 2, RLENGTH - length(name) - 2) + 0
			return -1
		}
		function result(l) {
			sub(/.* -> /, "", l)
			sub(/ (new|event|ps)=.*/, "", l)
			return l
		}
		# 1: a difference both failed on, 2: one stock succeeded on
		function deliberate(a, b,   cmd, rs, ro, ok) {
			cmd = field(a, "cmd")
			if (cmd != field(b, "cmd") || cmd < 0 || cmd > 22)
				return 0
			rs = result(a)
			ro = result(b)
			ok = rs == "ok" ? 2 : 1
			if (field(b, "in") < min_in[cmd] && ro == "Invalid argument")
				return ok
			if (cmd == 18 && field(b, "out") < 4 && ro == "No space left on device")
				return ok
			if (cmd == 14 && rs == "Bad address" &&
			    (ro == "Invalid argument" || ro == "Function not implemented"))
				return 1
			if (cmd == 0 && ro == "Invalid argument" && field(b, "ps") == 319 &&
			    field(b, "qp") !~ /^(2|3|4|9|10)$/)
				return ok
			if ((cmd == 16 || cmd == 22) && rs == "ok" && ro == "Address already in use")
				return 2
			return 0
		}
		BEGIN {
			split("24 16 40 64 8 16 280 8 288 264 4 16 8 0 24 8 48 16 16 16 136 272 152", v, " ")
			for (i = 1; i <= 23; i++)
				min_in[i - 1] = v[i]
		}
		function timing(l) {
			if (l ~ / cmd=12 /)
				return 1
			if (mode == "strict")
				return 0
			split(l, f, " ")
			return f[3] !~ /^(create_id|garbage|get_option|reopen)$/
		}
		NR == FNR { s[FNR] = $0; ns = FNR; next }
		{
			if (FNR > ns) { print "ours longer: " $0; exit }
			if (norm(s[FNR]) == norm($0)) { same++; next }
			d = deliberate(s[FNR], $0)
			if (d == 1) { same++; known++; next }
			if (d == 2) {
				printf "deliberate: stock succeeded, we refused at line %d\n", FNR
				differ = 1
				print "stock: " s[FNR]
				print "ours:  " $0
				exit
			}
			why = timing(s[FNR]) || timing($0) ? "timing: first difference" : "DIFFER"
			printf "%s at line %d\n", why, FNR
			differ = 1
			print "stock: " s[FNR]
			print "ours:  " $0
			exit
		}
		END {
			if (!differ && same < ns)
				print "ours shorter: " same " lines"
			print "equal: " same + 0 " of " ns " stock commands (" known + 0 " deliberate differences)"
		}' "$s" "$o")
	case $res in
	DIFFER*) fail "$mode: stock and ours differ $(echo "$res" | sed -n '1s/^DIFFER //p'), not by timing" ;;
	"ours "*) fail "$mode: ours logged another number of commands" ;;
	esac
	info "$res"
	label "$(echo "$res" | tail -n 1)"
}

# A KUnit fuzzer: the suite's module loaded with a long run; every case
# of the suite must pass (its results file in debugfs).
soak_kunit_fuzz() { # MODULE SUITE ITERS SEED WHAT
	local m=$1 suite=$2 iters=$3 seed=$4 what=$5
	local ko=$OURS_DIR/$m.ko res=/sys/kernel/debug/kunit/$2/results

	if ! [ -f "$ko" ]; then
		fail "no $ko"
		return
	fi
	if ! run "$suite" 3600 insmod "$ko" fuzz_iters="$iters" \
		fuzz_seed="$seed"; then
		fail "insmod $ko: $(rc_text "$suite")"
		return
	fi
	grep -E '^[[:space:]]*(not )?ok ' "$res" > "$suite.ktap" 2>&1
	grep -q '^[[:space:]]*not ok' "$suite.ktap" &&
		fail "$suite: $(grep 'not ok' "$suite.ktap" | xargs)"
	grep -qE "^ok [0-9]+ (- )?$suite\$" "$suite.ktap" || fail "$suite: no suite result"
	run rmmod 120 rmmod "$m" || fail "rmmod $m"
	label "$iters $what, seed $seed"
}

soak_mpa_fuzz() {
	soak_kunit_fuzz iw_cm_mpa_kunit iw_cm_mpa "$MPA_FUZZ_FRAMES" \
		"$MPA_FUZZ_SEED" "MPA frames"
}

# Loads no swiw.ko: the suite has the parser built in.
soak_swiw_rx_fuzz() {
	soak_kunit_fuzz swiw_rx_kunit swiw_rx "$SWIW_RX_STREAMS" \
		"$SWIW_RX_SEED" "FPDU streams"
}

# The ring fuzzer on swiw0, next to the transport's device.
soak_swiw_ring() {
	swiw_usable || return
	swiw_ring_fuzz_build "$BIN" || return
	swiw_setup user_verbs=1 || return 1
	swiw_ring_fuzz_run swiw-ringfuzz "$SWIW_RING_SEED" \
		"$SWIW_RING_SECONDS" 7490 "$BIN"
	swiw_teardown
	! failed
}

PLAN=(build mpa.fuzz swiw_rx.fuzz)
for t in $TRANSPORTS; do
	PLAN+=("$t.up" "$t.fuzz" "$t.cmtime" "$t.ucmatose")
	[ "$t" = siw ] && PLAN+=("$t.swiw_ring")
	PLAN+=("$t.down" "$t.diff.stock" "$t.diff.ours" "$t.diff.strict"
	       "$t.diff.full")
done
PLAN+=(stack.unload)
perf_start "$PERF_RESULTS/work-soak" ${#PLAN[@]}

BUILD_OK=0
run_case build build_tools ucma_fuzz && BUILD_OK=1
run_case mpa.fuzz soak_mpa_fuzz
run_case swiw_rx.fuzz soak_swiw_rx_fuzz
for t in $TRANSPORTS; do
	set_transport "$t"
	if [ $BUILD_OK = 1 ] && run_case "$t.up" stack_up ours; then
		run_case "$t.fuzz" soak_fuzz
		run_case "$t.cmtime" soak_cmtime
		run_case "$t.ucmatose" soak_ucmatose
		[ "$t" = siw ] && run_case "$t.swiw_ring" soak_swiw_ring
	else
		[ $BUILD_OK = 1 ] || case_not_run "$t.up" "build failed"
		case_not_run "$t.fuzz" "$t.up failed"
		case_not_run "$t.cmtime" "$t.up failed"
		case_not_run "$t.ucmatose" "$t.up failed"
		[ "$t" = siw ] && case_not_run "$t.swiw_ring" "$t.up failed"
	fi
	run_case "$t.down" stack_down
	for o in stock ours; do
		if [ $BUILD_OK = 1 ]; then
			run_case "$t.diff.$o" diff_run "$o"
		else
			case_not_run "$t.diff.$o" "build failed"
		fi
	done
	run_case "$t.diff.strict" diff_compare strict
	run_case "$t.diff.full" diff_compare full
done
run_case stack.unload unload_stack all
ktap_totals
[ "$N_FAIL" = 0 ]
