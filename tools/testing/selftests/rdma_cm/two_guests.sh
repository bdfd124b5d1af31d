#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of the two-guest topology: guests a (10.0.5.1) and b
# (10.0.5.2) joined by a QEMU socket netdev on eth0, each with its own
# mix of our and stock modules (RDMACM_OURS), so that our stack talks on
# the wire to a stock one.  Both guests run this script and walk the same
# list of cases; in each case one side serves and the other connects, and
# every case runs in both directions.  Before each case the server side
# announces "ready <case>" on TCP port 9000 (busybox nc) once its server
# listens, and the client waits for exactly that line.
#
# Arguments (comma-separated by init): me=a|b
set -u

SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
# TCG with KASAN runs the tools several times slower than hardware.
export RDMACM_TIMEOUT_SCALE=${RDMACM_TIMEOUT_SCALE:-3}
# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"

me=
for a in "$@"; do
	case $a in
	me=*) me=${a#me=} ;;
	esac
done
case $me in
a) ADDR=10.0.5.1 PEER=10.0.5.2 ;;
b) ADDR=10.0.5.2 PEER=10.0.5.1 ;;
*) echo "two_guests.sh: me=a or me=b" >&2; exit 2 ;;
esac
NETDEV=eth0
NETDEV_KIND=nic

WORK=/results/work
rm -rf "$WORK"
mkdir -p "$WORK"
OURS=${RDMACM_OURS:-}
SYNC_PORT=9000

# Cases: transport, name, server side.  Each name has serve_NAME and
# connect_NAME below.
CASES=()
for t in rxe siw; do
	for c in rping ucmatose; do
		CASES+=("$t $c a" "$t $c b")
	done
done
CASES+=("rxe udaddy a" "rxe udaddy b")

# Server side: tell the peer this case is ready (blocks until it asks).
announce() { # CASE
	echo "ready $1" | timeout "$(tmo 120)" busybox nc -l -p $SYNC_PORT > /dev/null ||
		fail "peer never asked for \"$1\""
}

# Client side: wait until the peer announces CASE.
await() { # CASE
	local deadline line
	deadline=$((SECONDS + $(tmo 120)))
	while [ "$SECONDS" -lt "$deadline" ]; do
		line=$(timeout 5 busybox nc "$PEER" $SYNC_PORT 2> /dev/null)
		[ "$line" = "ready $1" ] && return 0
		sleep 0.5
	done
	fail "peer never announced \"$1\" (last: ${line:-nothing})"
	return 1
}

serve_rping() { # CASE
	bg server 240 rping -s -a "$ADDR" -C 10 -V
	wait_ready server
	announce "$1"
	wait_bg server 240
	expect_rc server 0
	expect_no_out server 'data mismatch!|cq completion failed'
}

connect_rping() { # CASE
	await "$1" || return
	run client 120 rping -c -a "$PEER" -C 10 -V -v
	expect_rc client 0
	expect_count client '^ping data: rdma-ping-[0-9]+: ' 10
	expect_no_out client 'data mismatch!|cq completion failed'
}

serve_ucmatose() { # CASE
	bg server 300 ucmatose -c 20 -C 10
	wait_ready server
	announce "$1"
	wait_bg server 300
	expect_rc server 0
	expect_out server '^return status 0$'
}

connect_ucmatose() { # CASE
	await "$1" || return
	run client 300 ucmatose -s "$PEER" -c 20 -C 10
	expect_rc client 0
	expect_out client '^test complete$'
	expect_out client '^return status 0$'
}

serve_udaddy() { # CASE
	bg server 120 udaddy
	wait_ready server
	announce "$1"
	wait_bg server 120
	expect_rc server 0
	expect_out server '^return status 0$'
}

connect_udaddy() { # CASE
	await "$1" || return
	run client 120 udaddy -s "$PEER"
	expect_rc client 0
	expect_out client '^return status 0$'
}

nic_up() {
	if ! { run ip 30 ip addr add "$ADDR/24" dev "$NETDEV" &&
		run ip 30 ip link set "$NETDEV" up; }; then
		fail "cannot configure $NETDEV"
		return 1
	fi
	# The peer boots at its own pace: wait for it on the wire.
	local deadline=$((SECONDS + $(tmo 300)))
	until busybox ping -c 1 -W 1 "$PEER" > /dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || { fail "$PEER unreachable"; return 1; }
	done
}

# stack.load, nic, each case, a setup and a teardown per change of
# transport, stack.unload.
n=0 prev=
for c in "${CASES[@]}"; do
	[ "${c%% *}" = "$prev" ] || n=$((n + 2))
	prev=${c%% *}
done
ktap_plan $((2 + ${#CASES[@]} + n + 1))
diag "guest $me ($ADDR): ours: ${OURS:-none (all stock)}; peer $PEER"
run_case "$me.stack.load" load_stack "$OURS" || exit 1
run_case "$me.nic" nic_up || exit 1
cur=
for c in "${CASES[@]}" "end"; do
	read -r t name server <<< "$c"
	if [ "$t" != "$cur" ]; then
		[ -n "$cur" ] && run_case "$me.$cur.teardown" teardown_transport "$cur"
		[ "$t" = end ] && break
		set_transport "$t"
		run_case "$me.$t.setup" setup_transport "$t"
		cur=$t
	fi
	id="$t.$name.${server}_serves"
	if [ "$server" = "$me" ]; then
		run_case "$me.$id" "serve_$name" "$id"
	else
		run_case "$me.$id" "connect_$name" "$id"
	fi
done
run_case "$me.stack.unload" unload_stack all
ktap_totals
[ "$N_FAIL" = 0 ]
