#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make bench` guest job: the same measurements on the stock modules
# and on ours (PERF_OURS), in one boot, swapping the modules in between,
# all over siw (iw_cm is ours there):
#
#   cmtime_connect_us  cmtime's connect step per connection, CMTIME_CONNS
#                      connections as pairs of CMTIME_PER (the siw limit,
#                      tests/cmtime.sh), CMTIME_PAR pairs at a time
#   storm_ms           wall time of STORM_CLIENTS concurrent ucmatose
#                      clients of STORM_CONNS connections each against one
#                      listening ucmatose (at most ~36 connections on one
#                      siw process, tests/ucmatose.sh)
#   create_destroy_ns  ucma_bench: a CREATE_ID+DESTROY_ID pair
#   resolve_event_ns   ucma_bench: RESOLVE_ADDR + blocking GET_EVENT
#
# ROUNDS rounds of stock then ours (every other round ours first); the
# table gives the median of each.  KTAP says what failed to run; no
# figure passes or fails.  The table is left in PERF_RESULTS/bench.txt.
#
# Arguments (comma-separated by init): NAME=VALUE for the names above.
set -u

# shellcheck source=perf_lib.sh
. "$(dirname "$0")/perf_lib.sh"

CMTIME_CONNS=1000 CMTIME_PER=25 CMTIME_PAR=4
STORM_CLIENTS=10 STORM_CONNS=3
UCMA_PAIRS=20000 UCMA_EVENTS=2000
ROUNDS=1
perf_args "CMTIME_CONNS CMTIME_PER CMTIME_PAR STORM_CLIENTS STORM_CONNS
	   UCMA_PAIRS UCMA_EVENTS ROUNDS" "$@"

FIGURES=(cmtime_connect_us storm_ms create_destroy_ns resolve_event_ns)
declare -A TITLE=(
	[cmtime_connect_us]="cmtime connect us/conn ($CMTIME_CONNS conns)"
	[storm_ms]="storm wall ms ($STORM_CLIENTS x $STORM_CONNS conns)"
	[create_destroy_ns]="CREATE_ID+DESTROY_ID ns"
	[resolve_event_ns]="RESOLVE_ADDR+GET_EVENT ns"
)

set_transport siw
perf_start "$PERF_RESULTS/work-bench" $((1 + ROUNDS * 2 * 5))
RESULTS=$WORK/results.txt
: > "$RESULTS"

record() { # FIGURE ORIGIN VALUE
	echo "$1 $2 $3" >> "$RESULTS"
}

bench_cmtime() { # ORIGIN
	cmtime_pairs "$CMTIME_CONNS" "$CMTIME_PER" "$CMTIME_PAR" 600 || return
	record cmtime_connect_us "$1" "$(cmtime_connect_us "$CMTIME_CONNS")"
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
	awk -v o="$1" '$1 == "result" { print $2 "_ns", o, $3 }' ucma_bench.out >> "$RESULTS"
}

median() { # VALUE...
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR) printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

table() {
	local f o s x
	printf '%-40s %12s %12s %10s\n' figure stock ours ours/stock
	for f in "${FIGURES[@]}"; do
		for o in stock ours; do
			# shellcheck disable=SC2046	# one value per word
			x=$(median $(awk -v f="$f" -v o="$o" '$1 == f && $2 == o { print $3 }' "$RESULTS"))
			[ "$o" = stock ] && s=$x
		done
		printf '%-40s %12s %12s %10s\n' "${TITLE[$f]}" "${s:--}" "${x:--}" \
			"$(awk -v s="$s" -v x="$x" 'BEGIN { if (s > 0 && x != "") printf "%.3f", x / s; else print "-" }')"
	done
}

run_case build build_tools ucma_bench
for ((r = 1; r <= ROUNDS; r++)); do
	order="stock ours"
	[ $((r % 2)) = 0 ] && order="ours stock"
	for o in $order; do
		if run_case "r$r.$o.up" stack_up "$o"; then
			run_case "r$r.$o.cmtime" bench_cmtime "$o"
			run_case "r$r.$o.storm" bench_storm "$o"
			run_case "r$r.$o.ucma_bench" bench_ucma "$o"
		else
			for n in cmtime storm ucma_bench; do
				case_not_run "r$r.$o.$n" "r$r.$o.up failed"
			done
		fi
		run_case "r$r.$o.down" stack_down
	done
done
ktap_totals
table > "$PERF_RESULTS/bench.txt"
[ "$N_FAIL" = 0 ]
