#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make bench` guest job: the same measurements on the stock modules
# and on ours (PERF_OURS), in one boot, swapping the modules in between:
#
#   cmtime_T_STEP_us   every step of cmtime (create id, resolve addr and
#                      route, create qp, connect, disconnect, destroy...)
#                      per connection over transport T (BENCH_TRANSPORTS,
#                      rxe and siw), CMTIME_CONNS connections as pairs of
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
#
# ROUNDS rounds of stock then ours (every other round ours first); the
# table gives the median of each side and their ratio, and the median,
# lowest and highest of the per-round ratios (a round's two sides ran
# back to back, so its ratio shares its noise).  KTAP says what failed
# to run; no figure passes or fails.  The table is left in
# PERF_RESULTS/bench.txt.
#
# Arguments (comma-separated by init): NAME=VALUE for the names above.
set -u

# shellcheck source=perf_lib.sh
. "$(dirname "$0")/perf_lib.sh"

CMTIME_CONNS=1000 CMTIME_PER=25 CMTIME_PER_RXE=100 CMTIME_PAR=4
TRANSPORTS="rxe siw"
STORM_CLIENTS=10 STORM_CONNS=3
UCMA_PAIRS=20000 UCMA_EVENTS=2000
ROUNDS=1
perf_args "CMTIME_CONNS CMTIME_PER CMTIME_PER_RXE CMTIME_PAR STORM_CLIENTS
	   STORM_CONNS UCMA_PAIRS UCMA_EVENTS ROUNDS TRANSPORTS" "$@"
TRANSPORTS=${TRANSPORTS//+/ }	# rxe+siw: no spaces in job arguments

# Titles of the figures that are not cmtime steps.
declare -A TITLE=(
	[storm_ms]="storm wall ms ($STORM_CLIENTS x $STORM_CONNS conns)"
	[create_destroy_ns]="CREATE_ID+DESTROY_ID ns"
	[resolve_event_ns]="RESOLVE_ADDR+GET_EVENT ns"
)

ntransports=$(echo "$TRANSPORTS" | wc -w)
perf_start "$PERF_RESULTS/work-bench" \
	$((1 + ROUNDS * 2 * (3 * ntransports + 2)))
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

median() { # VALUE... (printed with ${FMT:-%.1f})
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk -v fmt="${FMT:-%.1f}" '{ v[NR] = $1 }
		END { if (NR) printf fmt, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

title() { # FIGURE
	local f=${1#cmtime_}

	if [ -n "${TITLE[$1]:-}" ]; then
		echo "${TITLE[$1]}"
	else
		f=${f%_us}
		echo "cmtime ${f%%_*} ${f#*_} us/conn" | tr _ ' '
	fi
}

# ours/stock of FIGURE in each round that has both, one per line.
round_ratios() { # FIGURE
	awk -v f="$1" '$1 == f { v[$4 " " $2] = $3; r[$4] = 1 }
		END { for (i in r) if (v[i " stock"] > 0 && (i " ours") in v)
			printf "%.3f\n", v[i " ours"] / v[i " stock"] }' "$RESULTS"
}

table() {
	local f o s x rr m
	printf '%-40s %10s %10s %8s %8s %13s\n' figure stock ours ratio \
		'rd med' 'rd min..max'
	awk '!seen[$1]++ { print $1 }' "$RESULTS" | while read -r f; do
		for o in stock ours; do
			# shellcheck disable=SC2046	# one value per word
			x=$(median $(awk -v f="$f" -v o="$o" '$1 == f && $2 == o { print $3 }' "$RESULTS"))
			[ "$o" = stock ] && s=$x
		done
		rr=$(round_ratios "$f" | sort -g | xargs)
		# shellcheck disable=SC2086	# one value per word
		m=$(FMT=%.3f median $rr)
		printf '%-40s %10s %10s %8s %8s %13s\n' "$(title "$f")" "${s:--}" "${x:--}" \
			"$(awk -v s="$s" -v x="$x" 'BEGIN { if (s > 0 && x != "") printf "%.3f", x / s; else print "-" }')" \
			"${m:--}" \
			"$(echo "$rr" | awk '{ if (NF) printf "%s..%s", $1, $NF; else print "-" }')"
	done
}

run_case build build_tools ucma_bench
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
ktap_totals
table > "$PERF_RESULTS/bench.txt"
[ "$N_FAIL" = 0 ]
