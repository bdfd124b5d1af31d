# SPDX-License-Identifier: GPL-2.0
#
# cmtime: connection-rate stress, 100 ids in flight through create id,
# resolve addr/route, create qp, connect, disconnect, destroy; the server
# accepts in one thread and disconnects/destroys from another.  The
# client busy-waits for every completion, so a lost event is a hang.
# Pass (stock, both): client exit 0, prints its "step total ms ..."
# table, no error/failure lines.  The server never exits: killed.
#
# siw: one cmtime client cannot hold 100 QPs.  Every siw queue is an mmap
# object of the process and libsiw refuses the key of page 144
# (SIW_INVAL_UOBJ_KEY), so from about the 80th QP on the client prints
# "failure creating qp: Invalid argument" (seen on stock 6.1, not a CM
# matter).  siw runs 4 client/server pairs of 25 connections at once.

CMTIME_CONNS=100

test_cmtime() {
	if [ "$T" = siw ]; then
		cmtime_pairs "$CMTIME_CONNS" 25 4 300 || return
		label "4 x 25 connections"
	else
		cmtime_pairs "$CMTIME_CONNS" "$CMTIME_CONNS" 1 300 || return
		label "1 x $CMTIME_CONNS connections"
	fi
}

# TOTAL cmtime connections over T, as client/server pairs of at most PER
# connections, PAR pairs at a time (siw: one process cannot hold much
# more than 80 QPs, see above); make bench and make soak use it too.
# Leaves clientN.out (N from 0) for cmtime_connect_us (perf_lib.sh).
cmtime_pairs() { # TOTAL PER PAR TMO
	local tmo=$4 port=7400

	pairs_batched "$1" "$2" "$3" cmtime_pair
}

cmtime_pair() { # STEP I N: see pairs_batched
	local re

	case $1 in
	server) bg "server$2" $((tmo + 60)) cmtime -p $((port + $2)) ;;
	client) bg "client$2" "$tmo" cmtime -s "$ADDR" -p $((port + $2)) -c "$3" ;;
	check)
		wait_bg "client$2" $((tmo + 20))
		stop_bg "server$2"
		expect_rc "client$2" 0
		for re in '^step +total ms' '^create id' '^connect +:' '^disconnect'; do
			expect_out "client$2" "$re"
		done
		expect_no_out "client$2" '[Ee]rror|[Ff]ail'
		expect_no_out "server$2" '[Ee]rror|[Ff]ail'
		;;
	esac
}
