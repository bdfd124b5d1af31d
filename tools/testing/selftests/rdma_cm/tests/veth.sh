# SPDX-License-Identifier: GPL-2.0
#
# veth: two soft devices of the same kind on the two ends of a veth pair,
# rping from one to the other, so the connection crosses devices rather
# than looping back on one.
#
# siw: vB and its siwB live in network namespace ns1, which also gives
# the per-netns side of the CM (port spaces, routing, the netns captured
# at CREATE_ID) some traffic.
# rxe: both ends stay in init_net: 6.1's rxe opens its UDP tunnel socket
# and routes in init_net only, so rxe across namespaces never connects
# (stock-baseline 4.2).  Two local interfaces need accept_local,
# arp_ignore=2 and rp_filter=0 to ARP for each other.

VETH_SYSCTLS="net.ipv4.conf.all.accept_local net.ipv4.conf.all.arp_ignore
	net.ipv4.conf.all.rp_filter net.ipv4.conf.default.rp_filter"

veth_cleanup() {
	local k
	rdma link delete "${T}A" > /dev/null 2>&1
	ip netns exec ns1 rdma link delete "${T}B" > /dev/null 2>&1
	rdma link delete "${T}B" > /dev/null 2>&1
	ip link del vA > /dev/null 2>&1
	ip netns del ns1 > /dev/null 2>&1
	for k in $VETH_SYSCTLS; do
		[ -f "sysctl.$k" ] && sysctl -qw "$k=$(cat "sysctl.$k")"
	done
}

test_veth() {
	local port=7231 ns=() k

	trap 'stop_all; veth_cleanup' EXIT
	if [ "$T" = siw ]; then
		ns=(ip netns exec ns1)
		run ip 30 ip netns add ns1 || { fail "ip netns add ns1"; return; }
		run ip 30 ip link add vA type veth peer name vB netns ns1 ||
			{ fail "ip link add veth"; return; }
		run ip 30 ip netns exec ns1 ip link set lo up
	else
		for k in $VETH_SYSCTLS; do
			sysctl -n "$k" > "sysctl.$k"
		done
		run ip 30 ip link add vA type veth peer name vB ||
			{ fail "ip link add veth"; return; }
		run sysctl 30 sysctl -qw net.ipv4.conf.all.accept_local=1 \
			net.ipv4.conf.all.arp_ignore=2 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.vA.rp_filter=0 \
			net.ipv4.conf.vB.rp_filter=0
	fi
	if ! { run ip 30 ip addr add 10.0.4.1/24 dev vA &&
		run ip 30 ip link set vA up &&
		run ip 30 "${ns[@]}" ip addr add 10.0.4.2/24 dev vB &&
		run ip 30 "${ns[@]}" ip link set vB up &&
		run rdma 60 rdma link add "${T}A" type "$T" netdev vA &&
		run rdma 60 "${ns[@]}" rdma link add "${T}B" type "$T" netdev vB; }; then
		fail "cannot set up the veth pair with ${T}A and ${T}B"
		return
	fi
	bg server 60 "${ns[@]}" rping -s -a 10.0.4.2 -p "$port" -C 10 -V
	wait_ready server
	run client 60 rping -c -I 10.0.4.1 -a 10.0.4.2 -p "$port" -C 10 -V -v
	wait_bg server 30
	expect_rc client 0
	expect_rc server 0
	expect_count client '^ping data: rdma-ping-[0-9]+: ' 10
	label "${T}A on vA 10.0.4.1 -> ${T}B on vB 10.0.4.2${ns:+ (in ns1)}"
}
