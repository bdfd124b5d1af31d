#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The table of `make bench` (see bench_guest.sh) from its raw results:
# one line "FIGURE stock|ours VALUE ROUND" per measurement.  Sourced by
# bench_guest.sh, which prints it at the end of its job; run on its own
# it prints the table of a results file, which is how perf.sh still
# shows the finished rounds of a guest that ran out of time.
#
# usage: bench_table.sh RESULTS (STORM_CLIENTS, STORM_CONNS, PERFTEST_SIZE
#        as the job's)

median() { # VALUE... (printed with ${FMT:-%.1f})
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk -v fmt="${FMT:-%.1f}" '{ v[NR] = $1 }
		END { if (NR) printf fmt, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

title() { # FIGURE
	local f=${1#cmtime_}

	case $1 in
	storm_ms) echo "storm wall ms (${STORM_CLIENTS:-10} x ${STORM_CONNS:-3} conns)" ;;
	create_destroy_ns) echo "CREATE_ID+DESTROY_ID ns" ;;
	resolve_event_ns) echo "RESOLVE_ADDR+GET_EVENT ns" ;;
	resolve_batch_ns) echo "RESOLVE_ADDR batch+GET_EVENT+QUERY ns" ;;
	bind_batch_ns) echo "BIND batch (ephemeral port) ns" ;;
	route_batch_ns) echo "RESOLVE_ROUTE batch+GET_EVENT ns" ;;
	hp_rstream_mbps) echo "siw/swiw rstream 1 MiB Mb/s (higher: better)" ;;
	hp_pump_mbps) echo "siw/swiw swiw_pump Mb/s" ;;
	hp_tcp_mbps) echo "TCP/swiw swiw_pump Mb/s" ;;
	hp_tcp_wbw_MBps) echo "TCP pump/swiw ib_write_bw MB/s" ;;
	hp_ib_*_MBps)
		f=${f#hp_}
		echo "siw/swiw ${f%_MBps} $((${PERFTEST_SIZE:-65536} / 1024)) KiB MB/s" ;;
	hp_ib_*_us)
		f=${f#hp_}
		echo "siw/swiw ${f%_us} 64 B typical us" ;;
	hp_*)
		f=${f#hp_cmtime_}
		echo "siw/swiw cmtime ${f%_us} us/conn" | tr _ ' ' ;;
	*)
		f=${f%_us}
		echo "cmtime ${f%%_*} ${f#*_} us/conn" | tr _ ' ' ;;
	esac
}

# ours/stock of FIGURE in each round that has both, one per line.
round_ratios() { # FIGURE
	awk -v f="$1" '$1 == f { v[$4 " " $2] = $3; r[$4] = 1 }
		END { for (i in r) if (v[i " stock"] > 0 && (i " ours") in v)
			printf "%.3f\n", v[i " ours"] / v[i " stock"] }' "$RESULTS"
}

# A distribution-free confidence interval of the median of the
# per-round ratios RATIO... (sorted): the k-th lowest and k-th highest,
# k the largest with P(the median lies between them) >= 95% (binomial,
# p = 1/2).  "-" with fewer than 6 rounds, where no such k exists.
median_ci() { # RATIO...
	echo "$@" | awk '{
		n = NF; c = 1; cdf = 0; k = 0
		for (i = 0; 2 * i < n; i++) {
			cdf += c / 2 ^ n		# P(X <= i), X ~ B(n, 1/2)
			if (1 - 2 * cdf < 0.95)
				break
			k = i + 1
			c = c * (n - i) / (i + 1)
		}
		if (k) printf "%s..%s", $k, $(n + 1 - k); else print "-"
	}'
}

# What the interval LO..HI of ours/stock says of FIGURE: for times
# (lower is better) "<=" when even its upper end is at most 1, ">" when
# even its lower end is above 1, "~" (not resolved) otherwise; rates
# (_mbps, _MBps: higher is better) the other way round.  None for swiw
# against TCP, its limit rather than a rival.
verdict() { # FIGURE LO..HI
	local lo=${2%..*} hi=${2#*..} rate=0

	[ "$2" = - ] && { echo -; return; }
	case $1 in
	hp_tcp_*) echo -; return ;;
	*_mbps|*_MBps) rate=1 ;;
	esac
	awk -v lo="$lo" -v hi="$hi" -v rate="$rate" 'BEGIN {
		if (rate) { t = lo; lo = 1 / hi; hi = 1 / t }
		print (hi <= 1 ? "<=" : (lo > 1 ? ">" : "~"))
	}'
}

table() {
	local f o s x rr m ci fmt figs
	printf '%-40s %10s %10s %8s %8s %13s %13s %s\n' figure stock ours ratio \
		'rd med' 'rd min..max' '95% CI' verdict
	# In order of first appearance, swiw against TCP last.
	figs=$(awk '!seen[$1]++ { print $1 }' "$RESULTS" |
		awk '/^hp_tcp_/ { t[++n] = $0; next } 1
			END { for (i = 1; i <= n; i++) print t[i] }')
	for f in $figs; do
		# siw moves well under 1 MB/s of perftest's messages on a
		# debug kernel: the ratio wants more than one decimal there.
		fmt=%.1f
		[[ $f == *_MBps ]] && fmt=%.2f
		for o in stock ours; do
			# shellcheck disable=SC2046	# one value per word
			x=$(FMT=$fmt median $(awk -v f="$f" -v o="$o" '$1 == f && $2 == o { print $3 }' "$RESULTS"))
			[ "$o" = stock ] && s=$x
		done
		rr=$(round_ratios "$f" | sort -g | xargs)
		# shellcheck disable=SC2086	# one value per word
		m=$(FMT=%.3f median $rr)
		# shellcheck disable=SC2086	# one value per word
		ci=$(median_ci $rr)
		printf '%-40s %10s %10s %8s %8s %13s %13s %s\n' "$(title "$f")" "${s:--}" "${x:--}" \
			"$(awk -v s="$s" -v x="$x" 'BEGIN { if (s > 0 && x != "") printf "%.3f", x / s; else print "-" }')" \
			"${m:--}" \
			"$(echo "$rr" | awk '{ if (NF) printf "%s..%s", $1, $NF; else print "-" }')" \
			"$ci" "$(verdict "$f" "$ci")"
	done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	if [ $# != 1 ] || [ ! -r "$1" ]; then
		echo "usage: bench_table.sh RESULTS" >&2
		exit 2
	fi
	RESULTS=$1
	table
fi
