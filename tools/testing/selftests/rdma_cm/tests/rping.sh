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

# One rping server on ADDR:PORT and a client (from address FROM if given),
# checked as above; NAME prefixes their names.  False if any check failed.
# tests/ipv6.sh and tests/swiw.sh use it too.
rping_pair() { # ADDR PORT [FROM [NAME]]
	local s=${4:+$4-}server c=${4:+$4-}client from=()

	[ -n "${3:-}" ] && from=(-I "$3")
	bg "$s" 60 rping -s -a "$1" -p "$2" -C 10 -V
	wait_ready "$s"
	run "$c" 60 rping -c "${from[@]}" -a "$1" -p "$2" -C 10 -V -v
	wait_bg "$s" 30
	expect_rc "$c" 0
	expect_rc "$s" 0
	expect_count "$c" '^ping data: rdma-ping-[0-9]+: ' 10
	expect_no_out "$c" 'data mismatch!|cq completion failed'
	expect_no_out "$s" 'data mismatch!|cq completion failed'
	! failed
}
