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
#
# ipv6_ll: the same over the link-local fe80::7:1%dummy0, the ucmatose
# listener bound to it (scope id and all): a request's link-local
# address is matched with the interface it arrived on.  Stock passes
# both; ours before this test refused the rxe request (the IB CM header
# carries no scope id, and a bound link-local listener never matched).

ADDR6=fd00::1
ADDR6_LL=fe80::7:1

# Whether the rxe port has the RoCE GID of IPv6 address $1 (full form,
# as sysfs prints it), once roce_gid_mgmt added it.
ipv6_gid_ready() { # GID
	grep -qs "^$1\$" /sys/class/infiniband/"$DEV"/ports/1/gids/*
}

# rping and 10 ucmatose connections over ADDR (as the tools take it) on
# PORT and PORT+1, with CIDR added to $NETDEV for the time of the test.
ipv6_pair() { # CIDR GID ADDR PORT
	local i

	run addr6 30 ip -6 addr add "$1" dev "$NETDEV" nodad
	expect_rc addr6 0
	failed && return
	if [ "$T" = rxe ]; then
		for i in $(seq 40); do
			ipv6_gid_ready "$2" && break
			nap 0.5
		done
		ipv6_gid_ready "$2" || fail "no RoCE GID $2 on $DEV after 20 s"
	fi
	if ! failed; then
		rping_pair "$3" "$4"
		bg userver 120 ucmatose -b "$3" -p $(($4 + 1)) -c 10 -C 10
		wait_ready userver
		run uclient 120 ucmatose -s "$3" -p $(($4 + 1)) -c 10 -C 10
		wait_bg userver 30
		ucmatose_pair_ok userver uclient
	fi
	run addr6-del 30 ip -6 addr del "$1" dev "$NETDEV"
	failed || label "rping and 10 ucmatose connections over $3"
}

test_ipv6() {
	ipv6_pair "$ADDR6/64" fd00:0000:0000:0000:0000:0000:0000:0001 \
		"$ADDR6" 7211
}

test_ipv6_ll() {
	ipv6_pair "$ADDR6_LL/64" fe80:0000:0000:0000:0000:0000:0007:0001 \
		"$ADDR6_LL%$NETDEV" 7215
}
