# SPDX-License-Identifier: GPL-2.0
#
# udaddy: RDMA_PS_UDP "connection" (SIDR REQ/REP through CONNECT/ACCEPT),
# ESTABLISHED carrying the UD parameters (AH, QPN, QKey), UD SENDs.
# rxe: both sides "return status 0".
# siw: iWARP has no UD; stock fails in the client with "udaddy: unable
# to create QP: Operation not supported" after ROUTE_RESOLVED, and the
# server waits forever (killed here).

test_udaddy() {
	bg server 120 udaddy
	wait_ready server
	run client 120 udaddy -s "$ADDR"
	if [ "$T" = siw ]; then
		stop_bg server
		expect_out client 'udaddy: unable to create QP: Operation not supported'
		expect_rc_fail client
		expect_no_out client '^return status 0$'
		failed ||
			label "fails as stock does:" \
				"udaddy: unable to create QP: Operation not supported"
		return
	fi
	wait_bg server 60
	local n
	for n in server client; do
		expect_rc "$n" 0
		expect_out "$n" '^return status 0$'
		expect_no_out "$n" 'error|fail|unable'
	done
}
