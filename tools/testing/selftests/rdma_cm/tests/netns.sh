# SPDX-License-Identifier: GPL-2.0
#
# netns: an id of one network namespace neither listens on nor connects
# from the ports of another.  An iWARP connection is a TCP connection
# of its device's netdev, so the device's port space is its netdev's
# namespace (init_net here, for siw0 and swiw0).  From namespace
# rdmans2, which has only lo:
#
#   listen    rping -s on 0.0.0.0:7790 in rdmans2.  init_net shows no
#             TCP listener on port 7790, and a connect (cm_probe) from
#             init_net to siw0's address (and swiw0's) on that port is
#             not established.
#   loopback  a TCP listener of init_net on 127.0.0.1:7791; a connect to
#             127.0.0.1:7791 from rdmans2 is not established and the
#             listener sees no connection.  With swiw0 there this runs twice: with siw0
#             (the device a loopback id takes first), then with siw0
#             deleted, so that only swiw0 is left to take it.
#
# siw opens its sockets in the caller's namespace, so with siw alone
# this holds on every stack.  swiw's sockets are iw_cm's (the host
# model), in the device's namespace: before rdma_cm gave iWARP devices
# only ids of their netdev's namespace, the rdmans2 listener listened in
# init_net on swiwd0 and took init_net's connection, and the loopback
# connect reached init_net's 127.0.0.1.  swiw needs our iw_cm: on stock
# modules the swiw parts do not run (the case says so in its label).

NETNS_NS=rdmans2

netns_cleanup() {
	stop_all
	ip netns del "$NETNS_NS" > /dev/null 2>&1
	swiw_teardown
	if ! dev_exists "$DEV"; then
		rdma link add "$DEV" type "$T" netdev "$NETDEV" > /dev/null 2>&1
	fi
}

# Whether anything in init_net listens on TCP port PORT.
netns_tcp_listener() { # PORT
	[ -n "$(ss -Hltn "sport = :$1" 2> /dev/null)" ]
}

# A connect from rdmans2 to 127.0.0.1:PORT is not established, and
# init_net's TCP listener on that port (tcp.out) has seen no connection.
netns_loopback_case() { # NAME PORT WHAT
	run "$1-client" 60 ip netns exec "$NETNS_NS" "$T_DIR/cm_probe" \
		-s 127.0.0.1 -p "$2" -d hello
	# 1: rdma_resolve_addr() itself refused (no device for rdmans2)
	case ${RC[$1-client]} in
	0|1) info "$3: $(tail -n 1 "$1-client.out")" ;;
	*) fail "$1-client: $(rc_text "$1-client"), expected it to end by itself" ;;
	esac
	expect_no_out "$1-client" 'RDMA_CM_EVENT_ESTABLISHED'
	if grep -q '^accepted' tcp.out; then
		fail "$3: a loopback connect from $NETNS_NS reached init_net's 127.0.0.1"
	fi
}

# Wait until DEV's port 1 is ACTIVE.
netns_wait_active() { # DEV
	local deadline=$((SECONDS + $(tmo 30)))

	until rdma link show "$1/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			fail "$1/1 not ACTIVE after $(tmo 30) s"
			return 1
		fi
		nap 0.5
	done
}

test_netns() {
	local port=7790 lport=7791 swiw=0 addrs=("$ADDR") a deadline

	if [ "$T" != siw ]; then
		skip "the iWARP port space: runs in the siw pass"
		return
	fi
	cm_probe_build || return
	trap 'netns_cleanup' EXIT
	if [ -n "$OURS_DIR" ] && [ -f "$OURS_DIR/swiw.ko" ] &&
	   [ "$(mod_origin iw_cm)" = ours ]; then
		swiw_setup user_verbs=1 || return 1
		swiw=1
		addrs+=("$SWIW_ADDR")
	fi
	run ns 30 ip netns add "$NETNS_NS" || { fail "ip netns add $NETNS_NS"; return; }
	run ns 30 ip -n "$NETNS_NS" link set lo up || { fail "lo up in $NETNS_NS"; return; }

	# listen
	bg listener 120 ip netns exec "$NETNS_NS" rping -s -a 0.0.0.0 -p "$port" -C 1 -v
	wait_ready listener
	proc_running "${PID[listener]}" ||
		{ fail "rping -s in $NETNS_NS exited: $(tail -n 3 listener.out)"; return; }
	if netns_tcp_listener "$port"; then
		fail "a listener of $NETNS_NS listens in init_net: $(ss -Hltn "sport = :$port")"
	fi
	for a in "${addrs[@]}"; do
		# rping -c does not exit when siw refuses inside rdma_connect()
		run "conn-$a" 60 "$T_DIR/cm_probe" -s "$a" -p "$port" -d hello
		expect_rc "conn-$a" 0
		expect_no_out "conn-$a" 'RDMA_CM_EVENT_ESTABLISHED'
		failed && info "init_net's connect to $a:$port reached $NETNS_NS's listener"
	done
	stop_bg listener
	failed && return 1

	# loopback
	bg tcp 300 python3 -c '
import select, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
print("listening", flush=True)
while True:
    select.select([s], [], [])
    c, a = s.accept()
    print("accepted", a, flush=True)
    c.close()
' "$lport"
	deadline=$((SECONDS + $(tmo 30)))
	until grep -q '^listening' tcp.out 2> /dev/null; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[tcp]}"; then
			fail "the TCP listener on 127.0.0.1:$lport never listened"
			return 1
		fi
		nap 0.2
	done
	netns_loopback_case "lo-$DEV" "$lport" "with $DEV"
	if [ $swiw = 1 ] && ! failed; then
		run del 60 rdma link delete "$DEV" || { fail "rdma link delete $DEV"; return 1; }
		netns_loopback_case lo-swiw "$lport" "with $SWIW_DEV alone"
		run add 60 rdma link add "$DEV" type "$T" netdev "$NETDEV" ||
			fail "rdma link add $DEV again"
		netns_wait_active "$DEV"
	fi
	stop_bg tcp
	if [ $swiw = 1 ]; then
		label "$DEV and $SWIW_DEV, ids of $NETNS_NS"
	else
		label "$DEV only (swiw needs our iw_cm), ids of $NETNS_NS"
	fi
	! failed
}
