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
	local pairs=1 per=$CMTIME_CONNS i port=7321

	if [ "$T" = siw ]; then
		pairs=4
		per=$((CMTIME_CONNS / pairs))
	fi
	for ((i = 0; i < pairs; i++)); do
		bg "server$i" 300 cmtime -p $((port + i))
	done
	for ((i = 0; i < pairs; i++)); do
		wait_ready "server$i"
	done
	for ((i = 0; i < pairs; i++)); do
		bg "client$i" 300 cmtime -s "$ADDR" -p $((port + i)) -c "$per"
	done
	for ((i = 0; i < pairs; i++)); do
		wait_bg "client$i" 320
		stop_bg "server$i"
		expect_rc "client$i" 0
		expect_out "client$i" '^step +total ms'
		expect_out "client$i" '^create id'
		expect_out "client$i" '^disconnect'
		expect_no_out "client$i" '[Ee]rror|[Ff]ail'
		expect_no_out "server$i" '[Ee]rror|[Ff]ail'
	done
	label "$pairs x $per connections"
}
