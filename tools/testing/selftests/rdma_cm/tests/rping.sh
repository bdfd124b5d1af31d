# SPDX-License-Identifier: GPL-2.0
#
# rping: one RC connection through the asynchronous API (RESOLVE_ADDR/
# ROUTE, CONNECT, LISTEN, ACCEPT, DISCONNECT) carrying RDMA READ, RDMA
# WRITE and SEND ping-pongs, data validated (-V).
# Stock (rxe and siw): both exit 0, the client prints 10 "ping data:
# rdma-ping-N: ..." lines; no "data mismatch!" or "cq completion failed".
# The server's trailing "server DISCONNECT EVENT..." / "wait for
# RDMA_READ_ADV state 10" lines are normal.

test_rping() {
	rping_pair "$ADDR" 7201
}

# One rping server and client on ADDR:PORT, checked as above (tests/ipv6.sh
# uses it too).
rping_pair() { # ADDR PORT
	bg server 60 rping -s -a "$1" -p "$2" -C 10 -V
	wait_ready server
	run client 60 rping -c -a "$1" -p "$2" -C 10 -V -v
	wait_bg server 30
	expect_rc client 0
	expect_rc server 0
	expect_count client '^ping data: rdma-ping-[0-9]+: ' 10
	expect_no_out client 'data mismatch!|cq completion failed'
	expect_no_out server 'data mismatch!|cq completion failed'
}
