# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the `make bench` and `make soak` guest jobs (bench_guest.sh,
# soak_guest.sh), on top of lib.sh: job arguments, building the C tools
# in the guest, cmtime's connect figure, and the swap between stock and
# our modules.
#
# shellcheck disable=SC2034	# variables used by the files sourcing this

SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/sbin:/usr/bin:/sbin:/bin
# TCG with KASAN runs the tools several times slower than hardware.
export RDMACM_TIMEOUT_SCALE=${RDMACM_TIMEOUT_SCALE:-3}
# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"
# shellcheck source=tests/cmtime.sh
. "$SELFTEST_DIR/tests/cmtime.sh"

# Our modules of the runs on "ours": the host's -m (RDMACM_OURS, which
# perf.sh takes from ours.list unless PERF_OURS says otherwise).
PERF_OURS=${RDMACM_OURS:-iw_cm rdma_cm rdma_ucm}
# The results share of the guest (qemu/init.sh); another directory when
# a job runs by hand.
PERF_RESULTS=${PERF_RESULTS:-/results}
# Where the tools built in the guest go.
BIN=

# Job arguments NAME=VALUE (comma-separated on the host): set those of
# the names given, ignore others.
perf_args() { # "NAME..." ARG...
	local names=${1//[$'\n\t']/ } a
	shift
	for a in "$@"; do
		in_list "${a%%=*}" "$names" && printf -v "${a%%=*}" '%s' "${a#*=}"
	done
}

# Start of a job: its work directory and KTAP plan.
perf_start() { # WORKDIR PLAN-LENGTH
	WORK=$1
	BIN=$WORK/bin
	rm -rf "$WORK"
	mkdir -p "$BIN"
	ktap_plan "$2"
	diag "ours: $PERF_OURS; work directory: $WORK"
}

# Build the selftests' C programs NAME.c into BIN, as tests/ucma_fuzz.sh
# does for the fuzzer.
build_tools() { # NAME...
	local n
	command -v gcc > /dev/null || { fail "no gcc in the guest"; return 1; }
	for n in "$@"; do
		# -lrdmacm for swiw_pump's rsockets (linked as needed)
		run "gcc-$n" 120 gcc -O2 -Wall -pthread -o "$BIN/$n" "$SELFTEST_DIR/$n.c" -lrdmacm ||
			fail "cannot build $n: $(rc_text "gcc-$n")"
	done
	failed && return 1
	return 0
}

# The stack of ORIGIN (stock or ours) on transport T: load, device up.
stack_up() { # ORIGIN
	local mods=
	[ "$1" = ours ] && mods=$PERF_OURS
	load_stack "$mods" && setup_transport "$T"
}

# And down again, leaving the soft driver and ib_core loaded.
stack_down() {
	teardown_transport "$T"
	unload_stack cm
}

# cmtime's connect step per connection, in us: the clients' "connect"
# totals (first connect issued to last one established, per client)
# summed, over all their connections.
cmtime_connect_us() { # TOTAL
	cmtime_steps_us "$1" | awk '$1 == "connect" { print $2 }'
}

# Every step of cmtime the same way, one "STEP US" line each (spaces in
# the step's name as _), in cmtime's order.
cmtime_steps_us() { # TOTAL
	awk -v n="$1" -F: '/^[a-z][a-z ]*[a-z] *:/ {
			step = $1; sub(/ +$/, "", step); gsub(/ /, "_", step)
			split($2, v, " ")
			if (!(step in ms)) order[++k] = step
			ms[step] += v[1]
		}
		END { for (i = 1; i <= k; i++)
			printf "%s %.1f\n", order[i], ms[order[i]] * 1000 / n }' client*.out
}

now_ms() {
	local s
	s=$(date +%s%N)
	echo $((s / 1000000))
}
