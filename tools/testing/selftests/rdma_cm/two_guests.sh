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
# Arguments (comma-separated by init): me=a|b, and for chasing a flaky
# case only=GLOB (cases whose TRANSPORT.NAME matches, say
# "swiw.ucmatose*") and rounds=N (the list N times over).
set -u

SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
# TCG with KASAN runs the tools several times slower than hardware.
export RDMACM_TIMEOUT_SCALE=${RDMACM_TIMEOUT_SCALE:-3}
# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"
# shellcheck source=tests/ulp.sh
. "$SELFTEST_DIR/tests/ulp.sh"

me='' only='*' rounds=1
for a in "$@"; do
	case $a in
	me=*) me=${a#me=} ;;
	only=*) only=${a#only=} ;;
	rounds=*) rounds=${a#rounds=} ;;
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
# connect_NAME below.  Transport swiw is our swiw (user_verbs=1) on the
# guest with our iw_cm and stock siw on the other: rdma-core's tools on
# our provider against stock siw's own connection code.
CASES=()
for t in rxe siw; do
	for c in rping ucmatose; do
		CASES+=("$t $c a" "$t $c b")
	done
done
CASES+=("rxe udaddy a" "rxe udaddy b")
CASES+=("swiw rping a" "swiw rping b" "swiw ucmatose100 a" "swiw ucmatose100 b"
	"swiw kcreject a" "swiw kcreject b" "swiw nvmeof a" "swiw nvmeof b")
ALL=("${CASES[@]}")
CASES=()
for ((r = 1; r <= rounds; r++)); do
	for c in "${ALL[@]}"; do
		t=${c%% *} name=${c#* }
		# shellcheck disable=SC2053 # only is a glob
		[[ $t.${name% *} == $only ]] || continue
		if [ "$rounds" = 1 ]; then
			CASES+=("$c")
		else
			CASES+=("$c r$r")
		fi
	done
done

# Server side: tell the peer this case is ready (blocks until it asks).
announce() { # CASE
	echo "ready $1" | timeout "$(tmo 120)" busybox nc -l -p $SYNC_PORT > /dev/null ||
		fail "peer never asked for \"$1\""
}

# Client side: wait until the peer announces a line that begins with
# "ready PREFIX"; print the rest of it.
await_line() { # PREFIX [TMO]
	local deadline line
	deadline=$((SECONDS + $(tmo "${2:-120}")))
	while [ "$SECONDS" -lt "$deadline" ]; do
		line=$(timeout 5 busybox nc "$PEER" $SYNC_PORT 2> /dev/null)
		if [ "${line#"ready $1"}" != "$line" ]; then
			echo "${line#"ready $1"}"
			return 0
		fi
		nap 0.5
	done
	fail "peer never announced \"$1\" (last: ${line:-nothing})"
	return 1
}

# Client side: wait until the peer announces exactly CASE.
await() { # CASE
	local rest
	rest=$(await_line "$1") || return 1
	[ -z "$rest" ] || { fail "peer announced \"$1$rest\""; return 1; }
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

# 100 connections at once as 4 ucmatose pairs of 25 on ports 7301-7304:
# stock siw fails a process's 37th connection (tests/ucmatose.sh).
# ucmatose's server sends first, which RFC 5044 (7.1.2) forbids an MPA
# responder outside peer-to-peer mode: a stock siw initiator fails a
# connection (CONNECT_ERROR -EINVAL) whose first FPDU comes in before it
# has read the MPA reply, whoever the responder is.  So data flows only
# when b serves and a, with swiw, connects: swiw takes an FPDU right
# behind the reply.  When a serves, the connections carry none.
ucmatose100_msgs() { # CASE
	case $1 in
	*.a_serves*) echo 0 ;;
	*) echo 10 ;;
	esac
}

serve_ucmatose100() { # CASE
	local i msgs

	msgs=$(ucmatose100_msgs "$1")
	for i in 1 2 3 4; do
		bg "server$i" 120 ucmatose -p $((7300 + i)) -c 25 -C "$msgs"
	done
	for i in 1 2 3 4; do
		wait_ready "server$i"
	done
	announce "$1"
	for i in 1 2 3 4; do
		wait_bg "server$i" 120
		expect_rc "server$i" 0
		expect_out "server$i" '^return status 0$'
	done
}

connect_ucmatose100() { # CASE
	local i msgs

	await "$1" || return
	msgs=$(ucmatose100_msgs "$1")
	for i in 1 2 3 4; do
		bg "client$i" 120 ucmatose -s "$PEER" -p $((7300 + i)) -c 25 -C "$msgs"
	done
	for i in 1 2 3 4; do
		wait_bg "client$i" 120
		expect_rc "client$i" 0
		expect_out "client$i" '^test complete$'
		expect_out "client$i" '^return status 0$'
	done
}

# Reject with private data, kernel to kernel: the kernel client
# (tests/kclient.sh) listens here and rejects with "kc-rej"; the peer's
# connects with "kc-req" and must see REJECTED with "kc-rej".
KCLIENT=${RDMACM_KCLIENT:-${OURS_DIR:+$OURS_DIR/rdma_cm_kclient.ko}}

serve_kcreject() { # CASE
	local deadline
	bg server 200 insmod "$KCLIENT" test=reject role=listen addr="$ADDR" port=7350
	deadline=$((SECONDS + $(tmo 60)))
	until dmesg | grep -q "rdma_cm_kclient: listening on $ADDR:7350"; do
		[ "$SECONDS" -lt "$deadline" ] || { fail "the kernel client never listened"; break; }
		nap 0.5
	done
	announce "$1"
	wait_bg server 200
	expect_rc server 0
	mod_present rdma_cm_kclient && run rmmod 60 rmmod rdma_cm_kclient
}

# A stock rdma_cm over stock siw returns no reject data from
# rdma_consumer_reject_data(): siw reports an MPA reject as -ECONNRESET
# (tests/kclient.sh checks the same way).
connect_kcreject() { # CASE
	local rejdata=1

	await "$1" || return
	! use_swiw && [ "$(mod_origin rdma_cm)" = stock ] && rejdata=0
	run client 120 insmod "$KCLIENT" test=reject role=connect addr="$ADDR" \
		peer="$PEER" port=7350 rejdata=$rejdata
	expect_rc client 0
	mod_present rdma_cm_kclient && run rmmod 60 rmmod rdma_cm_kclient
}

# NVMe-oF (tests/ulp.sh's nvmeof_rdma across the wire): the serving
# guest exports a memory-backed null_blk on an nvmet rdma port, the
# other connects with nvme-cli (1 admin + 2 I/O queues), writes
# NVME_MIB random MiB, reads them back with O_DIRECT, disconnects, and
# announces "CASE-done SHA" (the sha256 of what it wrote: what the
# target's null_blk must hold), whatever happened.
serve_nvmeof() { # CASE
	local sha got

	NVME_T0=$SECONDS
	ulp_have_modules null_blk nvmet nvmet-rdma || return
	ulp_modules > modules.before
	trap 'nvme_teardown' EXIT
	nvmet_export "$ADDR" || return
	announce "$1"
	sha=$(await_line "$1-done " 300) || return
	got=$(dd if=/dev/nullb0 bs=1M count="$NVME_MIB" iflag=direct 2> /dev/null |
		sha256sum | cut -d' ' -f1)
	[ "$sha" = "$got" ] ||
		fail "the target's null_blk has sha256 $got, the host wrote ${sha:-nothing}"
}

connect_nvmeof() { # CASE
	await "$1" || return
	NVME_T0=$SECONDS
	NV_DONE="$1-done" NV_SHA=none
	ADDR=$PEER	# the target's, in nvme_teardown's summary (a subshell)
	ulp_modules > modules.before
	trap 'nvme_teardown; announce "$NV_DONE $NV_SHA"' EXIT
	ulp_modprobe nvme-rdma || return
	nvme_host_connect "$PEER" && nvme_host_io || return
	ulp_compare "$NVME_DIR/src" "read back=$NVME_DIR/back" || return
	NV_SHA=$(sha256sum < "$NVME_DIR/src" | cut -d' ' -f1)
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

# Whether this guest runs swiw for transport swiw (else stock siw).
use_swiw() {
	[ "$(mod_origin iw_cm)" = ours ] && [ -n "$OURS_DIR" ] &&
		[ -f "$OURS_DIR/swiw.ko" ]
}

# Set up T (run_case runs it in a subshell: T is chosen before).
setup_case_transport() {
	local deadline

	if [ "$T" != swiw ]; then
		setup_transport "$T"
		return
	fi
	run swiw-insmod 60 insmod "$OURS_DIR/swiw.ko" user_verbs=1 ||
		{ fail "insmod swiw.ko user_verbs=1: $(rc_text swiw-insmod)"; return 1; }
	run rdma 60 rdma link add "$DEV" type swiw netdev "$NETDEV" ||
		{ fail "rdma link add $DEV type swiw netdev $NETDEV: $(rc_text rdma)"; return 1; }
	deadline=$((SECONDS + $(tmo 30)))
	until rdma link show "$DEV/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		[ "$SECONDS" -lt "$deadline" ] || { fail "$DEV/1 not ACTIVE"; return 1; }
		nap 0.5
	done
	info "$(rdma link show "$DEV/1" 2>&1)"
}

teardown_case_transport() {
	teardown_transport "$T" || return 1
	if [ "$T" = swiw ]; then
		run swiw-rmmod 60 rmmod swiw || fail "rmmod swiw: $(rc_text swiw-rmmod)"
	fi
	! failed
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
	read -r t name server round <<< "$c"
	if [ "$t" != "$cur" ]; then
		[ -n "$cur" ] && run_case "$me.$cur.teardown" teardown_case_transport
		[ "$t" = end ] && break
		set_transport "$t"
		if [ "$t" = swiw ] && ! use_swiw; then
			set_transport siw
		fi
		run_case "$me.$t.setup" setup_case_transport
		cur=$t
	fi
	id="$t.$name.${server}_serves${round:+.$round}"
	if [ "$server" = "$me" ]; then
		run_case "$me.$id" "serve_$name" "$id"
	else
		run_case "$me.$id" "connect_$name" "$id"
	fi
done
run_case "$me.stack.unload" unload_stack all
ktap_totals
[ "$N_FAIL" = 0 ]
