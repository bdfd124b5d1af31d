#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make bench` guest job: the same measurements on the stock modules
# and on ours (PERF_OURS), in one boot, swapping the modules in between:
#
#   cmtime_T_STEP_us   every step of cmtime (create id, resolve addr and
#                      route, create qp, connect, disconnect, destroy...)
#                      per connection over transport T (TRANSPORTS, rxe
#                      and siw; none: only the host path below),
#                      CMTIME_CONNS connections as pairs of
#                      CMTIME_PER (siw; the siw limit, tests/cmtime.sh)
#                      or CMTIME_PER_RXE (rxe), CMTIME_PAR pairs at a time
#
# and over siw only:
#
#   storm_ms           wall time of STORM_CLIENTS concurrent ucmatose
#                      clients of STORM_CONNS connections each against one
#                      listening ucmatose (at most ~36 connections on one
#                      siw process, tests/ucmatose.sh)
#   create_destroy_ns  ucma_bench: a CREATE_ID+DESTROY_ID pair
#   resolve_event_ns   ucma_bench: RESOLVE_ADDR + blocking GET_EVENT
#   resolve_batch_ns   ucma_bench: per id, 100 RESOLVE_ADDRs, then their
#                      events with librdmacm's QUERY ADDR after each
#   bind_batch_ns      ucma_bench: per id, 100 BINDs to the wildcard with
#                      port 0 (an ephemeral port each; the implied bind of
#                      RESOLVE_ADDR)
#   route_batch_ns     ucma_bench: per id, 100 RESOLVE_ROUTEs of resolved
#                      ids, then their events
#
# and, with our stack, swiw (iw_cm's host path) against siw (its own
# connection code) in the "stock" (siw) and "ours" (swiw) columns, each
# on the two ends of one veth pair (vA; vB in netns ns1):
#
#   hp_cmtime_STEP_us  cmtime steps as above, CMTIME_CONNS connections
#   hp_rstream_mbps    rstream (rsockets: on iWARP an RDMA WRITE of the
#                      data and an inline SEND per message) of
#                      RSTREAM_COUNT transfers of 1 MiB
#   hp_pump_mbps       swiw_pump.c over rsockets: PUMP_MIB MiB that the
#                      receiver checks byte by byte, its rate in Mb/s
#   hp_ib_write_bw_MBps, hp_ib_read_bw_MBps, hp_ib_send_bw_MBps
#                      perftest over the RDMA CM (-R): PERFTEST_ITERS
#                      messages of PERFTEST_SIZE bytes, the client's
#                      "BW average[MB/sec]" (up to PERFTEST_TRIES runs
#                      when perftest's clock sample fails, see
#                      bench_hp_perftest)
#   hp_ib_write_lat_us perftest's ib_write_lat -R: LAT_ITERS RDMA WRITEs
#                      of 64 bytes, ping-pong, the typical latency
#
# and plain TCP on the same pair, the limit of any iWARP there, measured
# in swiw's turn just before its stream (TCP in the "stock" column of
# the row, swiw's hp_pump_mbps in the "ours" column, the ratio swiw/TCP):
#
#   hp_tcp_mbps        swiw_pump.c over TCP sockets, as hp_pump_mbps
#   hp_tcp_wbw_MBps    that TCP rate in MB/s against swiw's ib_write_bw:
#                      rsockets copies each byte twice more than a TCP
#                      socket does, perftest's RDMA WRITEs do not
#
# (HOSTPATH=0 leaves these out; so does a run without our modules.)
# SWIW_OPTS: options for swiw.ko besides user_verbs=1, joined by + (no
# spaces in job arguments), e.g. SWIW_OPTS=tx_doorbell=0 to compare one
# of swiw's data-path options with another run against the same siw.
#
# PERFTEST_EVENTS=1 runs ib_read_bw and ib_send_bw with -e: the client
# sleeps on its completion channel instead of polling its CQ, which
# otherwise holds one of the guest's CPUs while both ends and their
# kernel work share the rest (perftest takes no -e for its WRITE tests).
#
# WAKEUP_PREEMPT=0 turns the scheduler's wakeup preemption off for the
# whole job (sched/features in debugfs; the bench kernel has it): on one
# CPU a woken worker then waits for the running thread to block, yield
# or use up its slice, as it would run on another CPU instead of
# preempting it (rdma_cm_testing.rst says why cmtime's asynchronous
# steps want that).  START_DEBIT=0 turns START_DEBIT off as well: a new
# thread then starts at the run queue's virtual time instead of one
# slice after it, so the yield loop of cmtime's main thread hands the
# CPU to cmtime's new event thread as soon as it has an event instead
# of spinning that slice off first (rdma_cm_testing.rst, same place).
# The job fails if a feature cannot be set.
#
# ROUNDS rounds of stock then ours (every other round ours first); the
# table gives the median of each side and their ratio, and the median,
# lowest and highest of the per-round ratios (a round's two sides ran
# back to back, so its ratio shares its noise), a 95% confidence
# interval of that median (6 rounds or more) and what it says: "<="
# ours at least as good as stock, ">" ours worse, "~" not resolved.
# KTAP says what failed to run; no figure passes or fails.  The table
# is left in PERF_RESULTS/bench.txt.
#
# Arguments (comma-separated by init): NAME=VALUE for the names above.
set -u

# shellcheck source=perf_lib.sh
. "$(dirname "$0")/perf_lib.sh"
# shellcheck source=bench_table.sh
. "$(dirname "$0")/bench_table.sh"

CMTIME_CONNS=1000 CMTIME_PER=25 CMTIME_PER_RXE=100 CMTIME_PAR=4
RSTREAM_COUNT=200 HOSTPATH=1 PUMP_MIB=64 SWIW_OPTS=
# A round of a perftest figure stays a few seconds on the debug kernel,
# where siw moves 2-4 MB/s.
PERFTEST_SIZE=65536 PERFTEST_ITERS=300 LAT_ITERS=1000 PERFTEST_TRIES=5
PERFTEST_EVENTS=0
TRANSPORTS="rxe siw"
STORM_CLIENTS=10 STORM_CONNS=3
UCMA_PAIRS=20000 UCMA_EVENTS=2000
ROUNDS=1 WAKEUP_PREEMPT=1 START_DEBIT=1
perf_args "CMTIME_CONNS CMTIME_PER CMTIME_PER_RXE CMTIME_PAR STORM_CLIENTS
	   STORM_CONNS UCMA_PAIRS UCMA_EVENTS ROUNDS TRANSPORTS RSTREAM_COUNT
	   HOSTPATH WAKEUP_PREEMPT START_DEBIT PUMP_MIB PERFTEST_SIZE SWIW_OPTS
	   PERFTEST_ITERS LAT_ITERS PERFTEST_TRIES PERFTEST_EVENTS" "$@"
TRANSPORTS=${TRANSPORTS//+/ }	# rxe+siw: no spaces in job arguments
[ "$TRANSPORTS" = none ] && TRANSPORTS=	# the host path only

ntransports=$(echo "$TRANSPORTS" | wc -w)
# swiw needs our iw_cm, and user_verbs takes siw's driver id: with a
# stock run there is nothing to compare.
if [ -z "$PERF_OURS" ] || [ ! -f "${OURS_DIR:-}/swiw.ko" ]; then
	HOSTPATH=0
fi
# The scheduler features to turn off (sched_off below), one case if any.
sched=()
[ "$WAKEUP_PREEMPT" = 0 ] && sched+=(WAKEUP_PREEMPTION)
[ "$START_DEBIT" = 0 ] && sched+=(START_DEBIT)
# The host path's cases of each provider between its up and down; in
# swiw's turn TCP comes just before swiw's own stream.
HP_CASES="cmtime rstream pump ib_write_bw ib_read_bw ib_send_bw ib_write_lat"
nhp=$(echo "$HP_CASES" | wc -w)
perf_start "$PERF_RESULTS/work-bench" \
	$((1 + (${#sched[@]} > 0) +
	   ROUNDS * 2 * (3 * ntransports + 2) +
	   HOSTPATH * (2 + ROUNDS * (2 * (nhp + 2) + 1))))
RESULTS=$WORK/results.txt
: > "$RESULTS"

record() { # FIGURE ORIGIN VALUE (of round $r)
	echo "$1 $2 $3 $r" >> "$RESULTS"
}

# Every cmtime step, per connection: cmtime_T_STEP_us (spaces as _).
bench_cmtime() { # ORIGIN
	local per=$CMTIME_PER

	[ "$T" = rxe ] && per=$CMTIME_PER_RXE
	cmtime_pairs "$CMTIME_CONNS" "$per" "$CMTIME_PAR" 600 || return
	failed && return
	cmtime_steps_us "$CMTIME_CONNS" |
		awk -v t="$T" -v o="$1" -v r="$r" '{ print "cmtime_" t "_" $1 "_us", o, $2, r }' >> "$RESULTS"
}

bench_storm() { # ORIGIN
	local i t0 t1 n port=7500

	bg server 600 ucmatose -p $port -c $((STORM_CLIENTS * STORM_CONNS)) -C 1
	wait_ready server
	t0=$(now_ms)
	for ((i = 0; i < STORM_CLIENTS; i++)); do
		bg "client$i" 600 ucmatose -s "$ADDR" -p $port -c "$STORM_CONNS" -C 1
	done
	for ((i = 0; i < STORM_CLIENTS; i++)); do
		wait_bg "client$i" 620
	done
	wait_bg server 60
	t1=$(now_ms)
	for n in server $(seq -f 'client%.0f' 0 $((STORM_CLIENTS - 1))); do
		expect_rc "$n" 0
		expect_out "$n" '^test complete$'
	done
	failed || record storm_ms "$1" $((t1 - t0))
}

bench_ucma() { # ORIGIN
	run ucma_bench 900 "$BIN/ucma_bench" -n "$UCMA_PAIRS" -e "$UCMA_EVENTS" -a "$ADDR"
	expect_rc ucma_bench 0
	failed && return
	awk -v o="$1" -v r="$r" '$1 == "result" { print $2 "_ns", o, $3, r }' ucma_bench.out >> "$RESULTS"
}

# One soft iWARP device of KIND (siw, or swiw with user verbs) on each
# end of the veth pair vA 10.0.4.1 -- vB 10.0.4.2 (in ns1).
hp_up() { # KIND
	local k=$1

	if ! { run ip 30 ip netns add ns1 &&
		run ip 30 ip link add vA type veth peer name vB netns ns1 &&
		run ip 30 ip netns exec ns1 ip link set lo up &&
		run ip 30 ip addr add 10.0.4.1/24 dev vA &&
		run ip 30 ip link set vA up &&
		run ip 30 ip netns exec ns1 ip addr add 10.0.4.2/24 dev vB &&
		run ip 30 ip netns exec ns1 ip link set vB up; }; then
		fail "cannot set up the veth pair"
		return 1
	fi
	if [ "$k" = swiw ]; then
		# shellcheck disable=SC2086 # one word per option
		run insmod 60 insmod "$OURS_DIR/swiw.ko" user_verbs=1 ${SWIW_OPTS//+/ } ||
			{ fail "insmod swiw.ko user_verbs=1"; return 1; }
	fi
	if ! { run rdma 60 rdma link add "${k}A" type "$k" netdev vA &&
		run rdma 60 ip netns exec ns1 rdma link add "${k}B" type "$k" netdev vB; }; then
		fail "rdma link add ${k}A/${k}B"
		return 1
	fi
}

hp_down() { # KIND
	rdma link delete "${1}A" > /dev/null 2>&1
	rdma link delete "${1}B" > /dev/null 2>&1
	ip link del vA > /dev/null 2>&1
	ip netns del ns1 > /dev/null 2>&1
	if [ "$1" = swiw ] && mod_present swiw; then
		run rmmod 60 rmmod swiw || fail "rmmod swiw"
	fi
	! failed
}

hp_pair() { # STEP I N: see pairs_batched
	case $1 in
	server) bg "server$2" 660 ip netns exec ns1 cmtime -b 10.0.4.2 -p $((7400 + $2)) ;;
	client) bg "client$2" 600 cmtime -b 10.0.4.1 -s 10.0.4.2 -p $((7400 + $2)) -c "$3" ;;
	check)
		wait_bg "client$2" 620
		stop_bg "server$2"
		expect_rc "client$2" 0
		expect_out "client$2" '^connect +:'
		expect_no_out "client$2" '[Ee]rror|[Ff]ail'
		;;
	esac
}

bench_hp_cmtime() { # ORIGIN
	pairs_batched "$CMTIME_CONNS" "$CMTIME_PER" "$CMTIME_PAR" hp_pair || return
	failed && return
	cmtime_steps_us "$CMTIME_CONNS" |
		awk -v o="$1" -v r="$r" '{ print "hp_cmtime_" $1 "_us", o, $2, r }' >> "$RESULTS"
}

bench_hp_rstream() { # ORIGIN
	bg server 300 ip netns exec ns1 rstream -b 10.0.4.2 -p 7600 -S 1048576 -C "$RSTREAM_COUNT"
	wait_ready server
	run client 300 rstream -b 10.0.4.1 -s 10.0.4.2 -p 7600 -S 1048576 -C "$RSTREAM_COUNT"
	wait_bg server 60
	expect_rc client 0
	expect_rc server 0
	failed && return
	awk -v o="$1" -v r="$r" '$1 != "name" && NF >= 7 { print "hp_rstream_mbps", o, $7 * 1000, r }' \
		client.out >> "$RESULTS"
}

# swiw_pump.c from vA to vB: over rsockets with -r, else over TCP.
# Records the receiver's rate (from its first byte to its last, every
# byte checked) in Mb/s as FIGURE.
hp_pump() { # FIGURE ORIGIN PORT [-r]
	local deadline v

	bg pump-srv 300 ip netns exec ns1 "$BIN/swiw_pump" ${4:+"$4"} \
		-l 10.0.4.2 -p "$3" -m "$PUMP_MIB"
	deadline=$((SECONDS + $(tmo 30)))
	until grep -q '^listening$' pump-srv.out 2> /dev/null; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[pump-srv]}"; then
			fail "swiw_pump's server never listened"
			return 1
		fi
		nap 0.2
	done
	run pump 300 "$BIN/swiw_pump" ${4:+"$4"} -b 10.0.4.1 -s 10.0.4.2 \
		-p "$3" -m "$PUMP_MIB"
	wait_bg pump-srv 60
	expect_rc pump 0
	expect_rc pump-srv 0
	expect_out pump-srv "^ok $((PUMP_MIB << 20)) bytes" \
		"the stream did not arrive unchanged"
	failed && return 1
	v=$(awk '$1 == "ok" && $5 == "MB/s" { printf "%.1f", $4 * 8 }' pump-srv.out)
	[ -n "$v" ] || { fail "no rate in swiw_pump's report"; return 1; }
	record "$1" "$2" "$v"
	HP_RATE=$v
}

bench_hp_tcp() { # ORIGIN
	hp_pump hp_tcp_mbps stock 7620 || return
	# In perftest's MB (2^20 bytes), from 10^6 bits.
	record hp_tcp_wbw_MBps stock \
		"$(awk -v v="$HP_RATE" 'BEGIN { printf "%.2f", v * 1e6 / 8 / 1048576 }')"
}

# Over rsockets; swiw's figure is also the "ours" side of hp_tcp_mbps.
bench_hp_pump() { # ORIGIN KIND
	hp_pump hp_pump_mbps "$1" 7621 -r || return
	[ "$2" = swiw ] && record hp_tcp_mbps ours "$HP_RATE"
}

# perftest's TEST over the RDMA CM (-R): its server in ns1 on KIND's
# device of vB, its client on vA's to vB's address.  Bandwidth tests
# record the client's "BW average[MB/sec]", ib_write_lat its
# "t_typical[usec]"; a report without a positive figure fails.
#
# perftest turns TSC cycles into time with a frequency it samples when
# it reports, and gives up on a sample whose fit to the clock is poor
# ("Correlation coefficient r^2: ... < 0.9", then 0 MB/s): in a busy
# TCG guest that happens to a run now and then.  And -R makes two
# connections to one port, the server listening for the second only
# after the first is up: a client that gets there first is refused
# (REJECTED, -111), and perftest's retry then uses ids it has destroyed
# and crashes, leaving its server waiting.  Either run is repeated
# (PERFTEST_TRIES in all, on another port each time); any other failure
# stands.
bench_hp_perftest() { # ORIGIN KIND TEST PORT
	local t=$3 size=$PERFTEST_SIZE n=$PERFTEST_ITERS col=4 f v='' i port ev=()

	f=hp_${t}_MBps
	case $t in
	*_lat) size=64 n=$LAT_ITERS col=5 f=hp_${t}_us ;;
	ib_read_bw | ib_send_bw) [ "$PERFTEST_EVENTS" = 1 ] && ev=(-e) ;;
	esac
	command -v "$t" > /dev/null || { fail "no $t in the guest (perftest)"; return; }
	for ((i = 1; i <= PERFTEST_TRIES; i++)); do
		port=$(($4 + (i - 1) * 20))
		bg "server$i" 300 ip netns exec ns1 "$t" -R -F -d "${2}B" -p "$port" \
			-s "$size" -n "$n" "${ev[@]}"
		wait_ready "server$i"
		run "client$i" 300 "$t" -R -F -d "${2}A" -p "$port" -s "$size" \
			-n "$n" "${ev[@]}" 10.0.4.2
		if [ "${RC[client$i]}" != 0 ] &&
		   grep -q 'REJECTED; error: -111' "client$i.out"; then
			stop_bg "server$i"
			info "$t: its client came before its server's listen (run $i)"
			continue
		fi
		wait_bg "server$i" 60
		expect_rc "client$i" 0
		expect_rc "server$i" 0
		failed && return
		v=$(awk -v s="$size" -v c="$col" '$1 == s && NF > c { print $c; exit }' \
			"client$i.out")
		[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $v =~ [1-9] ]] && break
		grep -q '^Correlation coefficient' "client$i.out" || break
		info "$t: perftest's clock sample failed its fit (run $i): ${v:-no figure}"
	done
	if ! [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! [[ $v =~ [1-9] ]]; then
		fail "$t: no positive figure in its report (${v:-none})"
		return
	fi
	record "$f" "$1" "$v"
	# The same bytes as TCP's pump with no user copy on either end.
	[ "$2" = swiw ] && [ "$t" = ib_write_bw ] && record hp_tcp_wbw_MBps ours "$v"
	return 0
}

# Case N of the host path (HP_CASES, or tcp) on KIND for ORIGIN.
hp_case() { # N ORIGIN KIND
	case $1 in
	ib_write_bw) bench_hp_perftest "$2" "$3" "$1" 7610 ;;
	ib_read_bw) bench_hp_perftest "$2" "$3" "$1" 7611 ;;
	ib_send_bw) bench_hp_perftest "$2" "$3" "$1" 7612 ;;
	ib_write_lat)
		# Both ends poll without sleeping: on one CPU each waits for
		# the scheduler's tick to run the other (4 ms under -icount).
		if [ "$(nproc)" = 1 ]; then
			skip "one CPU: a ping-pong of two polling processes times the tick"
			return
		fi
		bench_hp_perftest "$2" "$3" "$1" 7613 ;;
	*) "bench_hp_$1" "$2" "$3" ;;
	esac
}

# Turn the scheduler features NAME... off (NO_NAME in sched/features).
sched_off() { # NAME...
	local f=/sys/kernel/debug/sched/features n

	if ! mountpoint -q /sys/kernel/debug; then
		run debugfs 30 mount -t debugfs none /sys/kernel/debug ||
			{ fail "cannot mount debugfs: $(rc_text debugfs)"; return 1; }
	fi
	for n in "$@"; do
		{ echo "NO_$n" > "$f"; } 2> /dev/null
		grep -qw "NO_$n" "$f" 2> /dev/null ||
			{ fail "cannot turn $n off in $f"; return 1; }
		diag "scheduler: NO_$n"
	done
}

# Figures measured with the scheduler other than asked would mislead.
if [ ${#sched[@]} -gt 0 ] && ! run_case sched sched_off "${sched[@]}"; then
	ktap_totals
	exit 1
fi
tools=ucma_bench
[ "$HOSTPATH" = 1 ] && tools+=" swiw_pump"
# shellcheck disable=SC2086	# one name per word
run_case build build_tools $tools
for ((r = 1; r <= ROUNDS; r++)); do
	order="stock ours"
	[ $((r % 2)) = 0 ] && order="ours stock"
	for o in $order; do
		for t in $TRANSPORTS; do
			set_transport "$t"
			cases=cmtime
			[ "$t" = siw ] && cases="cmtime storm ucma_bench"
			if run_case "r$r.$t.$o.up" stack_up "$o"; then
				for n in $cases; do
					run_case "r$r.$t.$o.$n" "bench_${n%_bench}" "$o"
				done
			else
				for n in $cases; do
					case_not_run "r$r.$t.$o.$n" "r$r.$t.$o.up failed"
				done
			fi
			run_case "r$r.$t.$o.down" stack_down
		done
	done
done
# The host path: our stack up once, then siw and swiw on the veth pair.
if [ "$HOSTPATH" = 1 ]; then
	set_transport siw
	run_case hp.up load_stack "$PERF_OURS"
	for ((r = 1; r <= ROUNDS; r++)); do
		order="siw swiw"
		[ $((r % 2)) = 0 ] && order="swiw siw"
		for k in $order; do
			o=stock cases=$HP_CASES
			[ "$k" = swiw ] && o=ours cases=${HP_CASES/pump/tcp pump}
			if run_case "r$r.hp.$k.up" hp_up "$k"; then
				for n in $cases; do
					run_case "r$r.hp.$k.$n" hp_case "$n" "$o" "$k"
				done
			else
				for n in $cases; do
					case_not_run "r$r.hp.$k.$n" "r$r.hp.$k.up failed"
				done
			fi
			run_case "r$r.hp.$k.down" hp_down "$k"
		done
	done
	run_case hp.down unload_stack cm
fi
ktap_totals
table > "$PERF_RESULTS/bench.txt"
[ "$N_FAIL" = 0 ]
