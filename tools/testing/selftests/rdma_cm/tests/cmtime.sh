# SPDX-License-Identifier: GPL-2.0
#
# cmtime: connection-rate stress, 100 ids in flight through create id,
# resolve addr/route, create qp, connect, disconnect, destroy; the server
# accepts in one thread and disconnects/destroys from another.  The
# client busy-waits for every completion, so a lost event is a hang.
# Pass (stock, both): client exit 0, prints its "step total ms ..."
# table, no error/failure lines.  The server never exits: killed.

test_cmtime() {
	local port=7321

	bg server 300 cmtime -p "$port"
	wait_ready server
	run client 300 cmtime -s "$ADDR" -p "$port" -c 100
	stop_bg server
	expect_rc client 0
	expect_out client '^step +total ms'
	expect_out client '^create id'
	expect_out client '^disconnect'
	expect_no_out client '[Ee]rror|[Ff]ail'
	expect_no_out server '[Ee]rror|[Ff]ail'
}
