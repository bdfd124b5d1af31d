# SPDX-License-Identifier: GPL-2.0
#
# The rdma_cm kernel API from a kernel client (kclient/rdma_cm_kclient.c,
# RDMACM_KCLIENT), and rdma_cm's configfs: bind to the device's address
# and its conflicts, address resolution (own address, loopback, nobody's
# address, an AF_IB GID and the AF_IB loopback, which never resolves to
# an iWARP port: -ENODEV on siw, where ours took siw0 before the fix),
# requests for another QP type than the listener's (RoCE: a UD or UC
# request to an RC listener, an RC one to a UD listener; refused as ib_cm
# refuses a handler's error, and the listener's consumer sees none,
# where ours delivered them before the fix), connections of the device
# to itself (private data both ways, a SEND, disconnect; a specific and a
# wildcard listener; reject with private data, which
# rdma_consumer_reject_data() returns; a port nobody listens on), the
# neighbour watch of a RoCE route (UNREACHABLE when the peer's hardware address changes), bonding
# failover (ADDR_CHANGE to an id bound to the bond), device removal of
# an id in ADDR_QUERY (its address request ends with it), and an
# id that `rdma link delete` removes: `rdma res show cm_id` lists it,
# DEVICE_REMOVAL reaches it, the delete completes.  The device is set up
# again afterwards.
#
# The cases run on the loaded rdma_cm, then, when RDMACM_OURS_DIR has our
# rdma_cm.ko and the stack does not use it (OURS without rdma_cm), once
# more with it loaded under the same iw_cm and rdma_ucm.

KCLIENT=${RDMACM_KCLIENT:-${OURS_DIR:+$OURS_DIR/rdma_cm_kclient.ko}}

kclient_case() { # NAME TEST [ARGS...]
	kclient_case_at "$1" "$2" "$ADDR" "${@:3}"
}

kclient_case_at() { # NAME TEST ADDR [ARGS...]
	local name=$1 t=$2 a=$3
	shift 3
	run "$name" 60 insmod "$KCLIENT" test="$t" addr="$a" "$@"
	if [ "${RC[$name]}" != 0 ]; then
		fail "$name: case $t on $a failed: $(rc_text "$name")"
		dmesg | grep 'rdma_cm_kclient: .*FAIL' | tail -5 >> "$name.out"
		diag_tail "$name.out" 5 "$name"
		return 1
	fi
	run "$name-rmmod" 30 rmmod rdma_cm_kclient
}

# configfs rdma_cm/<dev>/ports/1: the RoCE defaults, stock layout and
# rules (RoCE v2 on rxe, IB/RoCE v1 on siw; TOS 0..255), -ENODEV for a
# device nobody has.
kclient_configfs() { # LABEL
	local l=$1 cfs=/sys/kernel/config/rdma_cm d p mode other

	if ! grep -qs "^configfs /sys/kernel/config " /proc/mounts; then
		run "$l-mount" 30 mount -t configfs none /sys/kernel/config
	fi
	[ -d "$cfs" ] || { fail "$l: no $cfs"; return 1; }
	d=$cfs/$DEV
	p=$d/ports/1
	if mkdir "$cfs/nosuchdev0" 2> /dev/null; then
		rmdir "$cfs/nosuchdev0"
		fail "$l: mkdir of an unknown device worked"
	fi
	mkdir "$d" || { fail "$l: mkdir $d failed"; return 1; }
	mode="RoCE v2"
	[ "$T" = siw ] && mode="IB/RoCE v1"
	[ "$(cat "$p/default_roce_mode")" = "$mode" ] ||
		fail "$l: default_roce_mode is '$(cat "$p/default_roce_mode")', expected '$mode'"
	[ "$(cat "$p/default_roce_tos")" = 0 ] || fail "$l: default_roce_tos is not 0"
	echo 32 > "$p/default_roce_tos" || fail "$l: cannot set default_roce_tos 32"
	[ "$(cat "$p/default_roce_tos")" = 32 ] || fail "$l: default_roce_tos 32 did not stick"
	echo 256 > "$p/default_roce_tos" 2> /dev/null && fail "$l: default_roce_tos took 256"
	echo bogus > "$p/default_roce_mode" 2> /dev/null &&
		fail "$l: default_roce_mode took 'bogus'"
	# 6.1's rxe is RoCE v2 only, siw has IB GIDs only: each port takes
	# its one mode and refuses the other.
	other="IB/RoCE v1"
	[ "$T" = siw ] && other="RoCE v2"
	echo "$mode" > "$p/default_roce_mode" || fail "$l: default_roce_mode refused '$mode'"
	echo "$other" > "$p/default_roce_mode" 2> /dev/null &&
		fail "$l: $T took default_roce_mode '$other'"
	[ "$(cat "$p/default_roce_mode")" = "$mode" ] ||
		fail "$l: default_roce_mode changed to '$(cat "$p/default_roce_mode")'"
	echo 0 > "$p/default_roce_tos"
	rmdir "$d" || fail "$l: rmdir $d failed"
	failed && return 1
	return 0
}

# The events of the held id, once there are any, or none after 10 s.
kclient_held_events() {
	local i ev=

	for i in $(seq 20); do
		ev=$(cat /sys/module/rdma_cm_kclient/parameters/events)
		[ -n "$ev" ] && break
		nap 0.5
	done
	echo "$ev"
}

# The neighbour watch: an id with a route to KC_NEIGH (nobody, on the
# dummy's subnet, which resolves without ARP) gets UNREACHABLE when the
# neighbour entry changes to another hardware address, on RoCE; an
# iWARP id is not watched and gets nothing.
KC_NEIGH=10.0.0.2

kclient_neigh() { # LABEL
	local l=$1 ev want=

	run "$l-holdroute" 60 insmod "$KCLIENT" test=holdroute addr="$ADDR" \
		dst="$KC_NEIGH" port=7370
	expect_rc "$l-holdroute" 0
	failed && return 1
	run "$l-neigh" 30 ip neigh replace "$KC_NEIGH" lladdr 02:00:00:00:00:99 \
		dev "$NETDEV" nud permanent
	expect_rc "$l-neigh" 0
	[ "$T" = siw ] || want="unreachable;"
	# On siw the whole 10 s pass: no event may come.
	ev=$(kclient_held_events)
	[ "$ev" = "$want" ] ||
		fail "$l: the id routed to $KC_NEIGH got '$ev' when the neighbour changed," \
			"expected '$want'"
	# Told once: a second change adds nothing.  Stock reports every
	# change, so a neighbour flapping between two addresses queues
	# events without bound (a bug our rdma_cm fixes).
	if [ -n "$want" ] && [ "$l" = ours ]; then
		run "$l-neigh2" 30 ip neigh replace "$KC_NEIGH" \
			lladdr 02:00:00:00:00:98 dev "$NETDEV" nud permanent
		expect_rc "$l-neigh2" 0
		nap 2
		ev=$(cat /sys/module/rdma_cm_kclient/parameters/events)
		[ "$ev" = "$want" ] ||
			fail "$l: a second neighbour change gave '$ev', expected '$want'"
	fi
	run "$l-rmmod-route" 30 rmmod rdma_cm_kclient
	expect_rc "$l-rmmod-route" 0
	run "$l-neigh-del" 30 ip neigh del "$KC_NEIGH" dev "$NETDEV"
	failed && return 1
	return 0
}

kclient_mra() { # LABEL
	local l=$1 c before after

	c=/sys/class/infiniband/$DEV/ports/1/cm_tx_msgs/mra
	[ -r "$c" ] || { fail "$l: no ib_cm counter $c"; return 1; }
	before=$(cat "$c")
	kclient_case "$l-slow" conn port=7357 slow=7 || return
	after=$(cat "$c")
	[ "$after" -gt "$before" ] ||
		fail "$l: no MRA for a request accepted after 7 s ($c: $before -> $after)"
	failed && return 1
	return 0
}

# Bonding failover: an id bound to an address of an active-backup bond
# (fail_over_mac=active, so the bond takes the new active slave's
# hardware address) gets exactly ADDR_CHANGE when the bond fails over.
# Its own device (KC_BOND_DEV on kcbond, two dummy slaves), removed after.
KC_BOND_ADDR=10.0.5.1
KC_BOND_DEV=${T:-rxe}b0

kclient_bond_down() {
	mod_present rdma_cm_kclient && rmmod rdma_cm_kclient
	dev_exists "$KC_BOND_DEV" && rdma link delete "$KC_BOND_DEV"
	ip link del kcbond 2> /dev/null
	ip link del kcslave1 2> /dev/null
	ip link del kcslave2 2> /dev/null
}

kclient_bond() { # LABEL
	local l=$1 ev

	KC_BOND_DEV=${T}b0
	run "$l-bond" 30 sh -ec "
		ip link add kcbond type bond mode active-backup miimon 100 fail_over_mac active
		ip link add kcslave1 type dummy
		ip link add kcslave2 type dummy
		ip link set kcslave1 master kcbond
		ip link set kcslave2 master kcbond
		ip link set kcbond up
		ip addr add $KC_BOND_ADDR/24 dev kcbond
		echo kcslave1 > /sys/class/net/kcbond/bonding/active_slave
		rdma link add $KC_BOND_DEV type $T netdev kcbond"
	expect_rc "$l-bond" 0
	failed && { kclient_bond_down; return 1; }
	run "$l-holdbond" 60 insmod "$KCLIENT" test=hold addr="$KC_BOND_ADDR" port=7390
	expect_rc "$l-holdbond" 0
	failed && { kclient_bond_down; return 1; }
	run "$l-failover" 30 sh -c 'echo kcslave2 > /sys/class/net/kcbond/bonding/active_slave'
	expect_rc "$l-failover" 0
	ev=$(kclient_held_events)
	[ "$ev" = "address change;" ] ||
		fail "$l: the id on the bond got '$ev' at failover, expected 'address change;'"
	kclient_bond_down
	failed && return 1
	return 0
}

# Device removal in ADDR_QUERY: an id on its own device (${T}q0 on a
# veth, kcq0, whose peer answers no ARP) resolves KC_Q_DST with a minute
# to go, and its handler keeps it at DEVICE_REMOVAL (the delete then
# waits for the id's destroy).  Once the id has its DEVICE_REMOVAL, the
# neighbour entry becomes valid: the address request must be gone, so
# nothing writes the hardware address into the removed id and no
# further event comes; removing the module destroys the id and the
# delete completes.
KC_Q_ADDR=10.0.6.1
KC_Q_DST=10.0.6.2
KC_Q_HW=02:00:00:00:00:77

kclient_query_down() {
	mod_present rdma_cm_kclient && rmmod rdma_cm_kclient
	[ -n "${PID[$1-delete]}" ] && wait_bg "$1-delete" 30
	dev_exists "${T}q0" && rdma link delete "${T}q0"
	ip link del kcq0 2> /dev/null
}

kclient_query() { # LABEL
	local l=$1 ev hw i

	run "$l-qveth" 30 sh -ec "
		ip link add kcq0 type veth peer name kcq1
		ip addr add $KC_Q_ADDR/24 dev kcq0
		ip link set kcq0 up
		ip link set kcq1 up
		rdma link add ${T}q0 type $T netdev kcq0"
	expect_rc "$l-qveth" 0
	failed && { kclient_query_down "$l"; return 1; }
	for i in $(seq 20); do
		rdma link show "${T}q0/1" 2> /dev/null | grep -q 'state ACTIVE' && break
		nap 0.5
	done
	run "$l-holdquery" 60 insmod "$KCLIENT" test=holdquery addr="$KC_Q_ADDR" \
		dst="$KC_Q_DST" port=7395 keep=1
	expect_rc "$l-holdquery" 0
	failed && { kclient_query_down "$l"; return 1; }
	bg "$l-delete" 60 rdma link delete "${T}q0"
	ev=$(kclient_held_events)
	[ "$ev" = "device removal;" ] ||
		fail "$l: the resolving id got '$ev' at device removal, expected 'device removal;'"
	run "$l-qneigh" 30 ip neigh replace "$KC_Q_DST" lladdr "$KC_Q_HW" \
		dev kcq0 nud permanent
	expect_rc "$l-qneigh" 0
	nap 2
	hw=$(cat /sys/module/rdma_cm_kclient/parameters/dsthw)
	[ "$hw" = 00:00:00:00:00:00 ] ||
		fail "$l: the removed id's address request ran on: it got hardware address $hw"
	ev=$(cat /sys/module/rdma_cm_kclient/parameters/events)
	[ "$ev" = "device removal;" ] ||
		fail "$l: the removed id got '$ev', expected only DEVICE_REMOVAL"
	run "$l-rmmod-query" 30 rmmod rdma_cm_kclient
	expect_rc "$l-rmmod-query" 0
	wait_bg "$l-delete" 60
	expect_rc "$l-delete" 0
	kclient_query_down "$l"
	failed && return 1
	return 0
}

kclient_cases() { # LABEL: the loaded rdma_cm's origin (mod_origin)
	local l=$1 ev rejdata

	kclient_configfs "$l" || return
	kclient_case "$l-bind" bind || return
	# Stock rdma_cm fails a loopback destination on siw with -EINVAL; an
	# iWARP port takes no AF_IB destination.
	kclient_case "$l-resolve" resolve port=7310 \
		loopback="$([ "$T" = siw ] && echo 0 || echo 1)" \
		afib="$([ "$T" = siw ] && echo 0 || echo 1)" || return
	kclient_case "$l-route" route port=7330 || return
	# siw has no UD QPs, and its query_qp leaves the state out.
	if [ "$T" = siw ]; then
		kclient_case "$l-qp" qp port=7340 ud=0 qpstate=0 || return
	else
		kclient_case "$l-qp" qp port=7340 || return
	fi

	kclient_case "$l-conn" conn port=7350 || return
	kclient_case "$l-conn-any" conn port=7351 any=1 || return
	# siw reports an MPA reject as -ECONNRESET, where stock rdma_cm
	# looks for -ECONNREFUSED: stock's rdma_consumer_reject_data()
	# returns nothing on siw.
	rejdata=1
	[ "$T" = siw ] && [ "$l" = stock ] && rejdata=0
	kclient_case "$l-reject" reject port=7352 rejdata="$rejdata" || return
	kclient_case "$l-refused" refused port=7353 || return
	# A consumer that accepts 7 s after CONNECT_REQUEST: the requester
	# repeats its REQ after ~4.6 s, which ib_cm answers with an MRA.
	if [ "$T" != siw ]; then
		kclient_mra "$l" || return
		# TOS, ACK timeout, minimum RNR timer, and ECE both ways: the
		# active QP's attributes, the ECE each side got (siw's QP query
		# reports none of them).
		kclient_case "$l-opts" conn port=7358 opts=1 || return
	fi
	# UD ids connect through SIDR and join RoCE groups; siw has no UD.
	if [ "$T" != siw ]; then
		kclient_case "$l-ud" ud port=7354 || return
		kclient_case "$l-mcast" mcast port=7355 || return
		# Requests for another QP type than the listener's: refused
		# (SIDR REP reject, REJ), the listener's consumer sees none.
		kclient_case "$l-qptype" qptype port=7365 || return
	fi

	kclient_neigh "$l" || return
	kclient_bond "$l" || return
	kclient_query "$l" || return

	run "$l-hold" 60 insmod "$KCLIENT" test=hold addr="$ADDR" port=7320
	expect_rc "$l-hold" 0
	failed && return 1
	run "$l-res" 30 rdma res show cm_id
	expect_out "$l-res" \
		'state ADDR_BOUND .*comm \[rdma_cm_kclient\] src-addr '"${ADDR//./\\.}"':7320' \
		"rdma res show cm_id does not list the held id"
	run "$l-delete" 60 rdma link delete "$DEV"
	expect_rc "$l-delete" 0
	ev=$(cat /sys/module/rdma_cm_kclient/parameters/events 2> /dev/null)
	[ "$ev" = "device removal;" ] ||
		fail "$l: the held id got '$ev', expected only DEVICE_REMOVAL"
	run "$l-rmmod" 30 rmmod rdma_cm_kclient
	expect_rc "$l-rmmod" 0
	setup_transport "$T" || return
	failed && return 1

	# The same with a connection up: the listener and both ends get
	# one DEVICE_REMOVAL each, and release their QPs in time.
	run "$l-holdconn" 60 insmod "$KCLIENT" test=holdconn addr="$ADDR" port=7360
	expect_rc "$l-holdconn" 0
	failed && return 1
	run "$l-delete-conn" 60 rdma link delete "$DEV"
	expect_rc "$l-delete-conn" 0
	ev=$(tr ';' '\n' < /sys/module/rdma_cm_kclient/parameters/events |
		sed '/^$/d' | sort | tr '\n' ' ')
	[ "$ev" = "A:device removal L:device removal P:device removal " ] ||
		fail "$l: the connection's ids got '$ev', expected one DEVICE_REMOVAL each"
	run "$l-rmmod-conn" 30 rmmod rdma_cm_kclient
	expect_rc "$l-rmmod-conn" 0
	setup_transport "$T" || return
	failed && return 1
	return 0
}

test_kclient() {
	if [ -z "$KCLIENT" ] || [ ! -f "$KCLIENT" ]; then
		skip "no rdma_cm_kclient.ko (RDMACM_KCLIENT)"
		return
	fi
	kclient_cases "$(mod_origin rdma_cm)" || return
	if [ -n "$OURS_DIR" ] && [ -f "$OURS_DIR/rdma_cm.ko" ] &&
	   ! in_list rdma_cm "$OURS"; then
		load_stack "$OURS rdma_cm" || return
		kclient_cases ours
		# Back to the stack the other tests run on, failed or not.
		load_stack "$OURS"
	fi
}
