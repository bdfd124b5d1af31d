# SPDX-License-Identifier: GPL-2.0
#
# mckey: multicast.  RESOLVE_ADDR to a multicast address, JOIN_MCAST,
# MULTICAST_JOIN carrying AH/QPN/QKey, UD SENDs to QPN 0xFFFFFF, LEAVE.
# The receiver starts first; the sender sleeps 3 s after joining.
# rxe: both print "mckey: joined dgid: ::ffff:239.1.1.1 ..." and
# "return status 0" (needs the 224.0.0.0/4 route setup_transport adds).
# siw: no multicast (max_mcast_grp 0) and no UD: after ADDR_RESOLVED the
# UD QP cannot be created ("mckey: unable to create QP: Operation not
# supported"); neither side joins and both fail.

MCAST_ADDR=239.1.1.1

test_mckey() {
	local n

	bg receiver 120 mckey -m "$MCAST_ADDR" -b "$ADDR"
	wait_ready receiver
	run sender 120 mckey -m "$MCAST_ADDR" -b "$ADDR" -s
	wait_bg receiver 60
	if [ "$T" = siw ]; then
		for n in receiver sender; do
			expect_rc_fail "$n"
			expect_no_out "$n" 'joined dgid'
			expect_out "$n" 'unable to create QP: Operation not supported'
		done
		failed ||
			label "fails as stock does:" \
				"mckey: unable to create QP: Operation not supported"
		return
	fi
	for n in receiver sender; do
		expect_rc "$n" 0
		expect_out "$n" "^mckey: joined dgid: ::ffff:$MCAST_ADDR "
		expect_out "$n" '^return status 0$'
		expect_no_out "$n" 'error|fail|unable'
	done
}
