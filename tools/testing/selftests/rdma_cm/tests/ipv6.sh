# SPDX-License-Identifier: GPL-2.0
#
# ipv6: AF_INET6 end to end.  fd00::1/64 on the dummy netdev (no DAD),
# then rping (10 validated ping-pongs, as tests/rping.sh) and ucmatose
# (10 connections, 10 messages each, listener bound to fd00::1) over it:
# IPv6 through bind, address and route resolution (on rxe the address's
# RoCE v2 GID, which appears asynchronously: waited for), listen, the IB
# CM header's IPv6 form (rxe) and siw's IPv6 connections.  The address is
# removed afterwards.
# Stock (rxe and siw): both pass.

ADDR6=fd00::1

# The GID of fd00::1 on the rxe port, once roce_gid_mgmt added it.
ipv6_gid_ready() {
	grep -qs '^fd00:0000:0000:0000:0000:0000:0000:0001$' \
		/sys/class/infiniband/"$DEV"/ports/1/gids/*
}

test_ipv6() {
	local i port=7211

	run addr6 30 ip -6 addr add "$ADDR6/64" dev "$NETDEV" nodad
	expect_rc addr6 0
	failed && return
	if [ "$T" = rxe ]; then
		for i in $(seq 40); do
			ipv6_gid_ready && break
			sleep 0.5
		done
		ipv6_gid_ready || fail "no RoCE GID for $ADDR6 on $DEV after 20 s"
	fi
	if ! failed; then
		rping_pair "$ADDR6" "$port"
		bg userver 120 ucmatose -b "$ADDR6" -p $((port + 1)) -c 10 -C 10
		wait_ready userver
		run uclient 120 ucmatose -s "$ADDR6" -p $((port + 1)) -c 10 -C 10
		wait_bg userver 30
		ucmatose_pair_ok userver uclient
	fi
	run addr6-del 30 ip -6 addr del "$ADDR6/64" dev "$NETDEV"
	failed || label "rping and 10 ucmatose connections over $ADDR6"
}
