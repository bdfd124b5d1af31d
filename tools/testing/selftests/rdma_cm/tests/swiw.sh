# SPDX-License-Identifier: GPL-2.0
#
# swiw, the software iWARP provider on our iw_cm's host-integrated
# connections (drivers/infiniband/sw/swiw): `rdma link add swiw0 type
# swiw netdev swiwd0` on a dummy netdev of its own (10.0.2.1/24: a
# second iWARP device on dummy0 would share siw0's GID, the MAC, and
# rdma_cm would bind to whichever it finds first), the port goes ACTIVE,
# then the kernel client's connection cases on it: both ends on swiw,
# private data both ways, an RDMA WRITE and a SEND, disconnect; a
# wildcard listener; reject with private data; a port nobody listens on.  Then swiw with
# stock siw (siw0 on dummy0), each side active once: connect, WRITE,
# SEND, disconnect, and reject with private data.  Last, the device is
# deleted with `rdma link delete` and the module removed.
#
# Runs in the siw pass (rxe has no iWARP stack loaded) and needs our
# iw_cm: swiw uses its iw_host_* exports, which stock iw_cm does not
# have.  With stock iw_cm the test is skipped, not passed.

SWIW_NETDEV=swiwd0
SWIW_ADDR=10.0.2.1
SWIW_DEV=swiw0

swiw_teardown() {
	dev_exists "$SWIW_DEV" && run swiw-delete 60 rdma link delete "$SWIW_DEV"
	dev_exists "$SWIW_DEV" && fail "$SWIW_DEV still exists after rdma link delete"
	mod_present swiw && { run swiw-rmmod 60 rmmod swiw || fail "rmmod swiw failed"; }
	ip link show "$SWIW_NETDEV" > /dev/null 2>&1 && ip link del "$SWIW_NETDEV"
}

# Whether swiw can run here; a skip says why not.
swiw_usable() {
	if [ "$T" != siw ]; then
		skip "swiw is iWARP: it runs in the siw pass"
		return 1
	fi
	if [ -z "$OURS_DIR" ] || [ ! -f "$OURS_DIR/swiw.ko" ]; then
		skip "no swiw.ko"
		return 1
	fi
	if [ "$(mod_origin iw_cm)" != ours ]; then
		skip "swiw needs our iw_cm (iw_host_register); iw_cm here: $(mod_origin iw_cm)"
		return 1
	fi
	return 0
}

# swiw.ko loaded (with ARGS), swiw0 on swiwd0 with SWIW_ADDR, its port
# ACTIVE.
swiw_setup() { # [ARGS...]
	local deadline

	run swiw-insmod 60 insmod "$OURS_DIR/swiw.ko" "$@"
	expect_rc swiw-insmod 0
	failed && return 1
	if ! { run swiw-ip 30 ip link add "$SWIW_NETDEV" type dummy &&
		run swiw-ip 30 ip addr add "$SWIW_ADDR/24" dev "$SWIW_NETDEV" &&
		run swiw-ip 30 ip link set "$SWIW_NETDEV" up; }; then
		fail "cannot set up $SWIW_NETDEV with $SWIW_ADDR/24"
		swiw_teardown
		return 1
	fi
	run swiw-link 60 rdma link add "$SWIW_DEV" type swiw netdev "$SWIW_NETDEV"
	expect_rc swiw-link 0
	# One device per netdev.
	run swiw-link-again 60 rdma link add swiw1 type swiw netdev "$SWIW_NETDEV"
	expect_rc_fail swiw-link-again
	deadline=$((SECONDS + $(tmo 30)))
	until rdma link show "$SWIW_DEV/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			fail "$SWIW_DEV/1 not ACTIVE after $(tmo 30) s"
			break
		fi
		nap 0.5
	done
	if failed; then
		swiw_teardown
		return 1
	fi
	info "$(rdma link show "$SWIW_DEV/1" 2>&1)"
}

test_swiw() {
	local s=$SWIW_ADDR

	swiw_usable || return
	if [ -z "$KCLIENT" ] || [ ! -f "$KCLIENT" ]; then
		skip "no rdma_cm_kclient.ko (RDMACM_KCLIENT)"
		return
	fi
	swiw_setup || return 1

	kclient_case_at swiw-conn conn "$s" port=7450 write=1 read=1 &&
		kclient_case_at swiw-conn-any conn "$s" port=7451 any=1 &&
		kclient_case_at swiw-reject reject "$s" port=7452 &&
		kclient_case_at swiw-refused refused "$s" port=7453 &&
		kclient_case_at swiw-to-siw conn "$s" port=7454 peer="$ADDR" write=1 read=1 &&
		kclient_case_at swiw-to-siw-reject reject "$s" port=7455 peer="$ADDR" &&
		kclient_case_at siw-to-swiw conn "$ADDR" port=7456 peer="$s" write=1 read=1 &&
		kclient_case_at siw-to-swiw-reject reject "$ADDR" port=7457 peer="$s" \
			rejdata="$([ "$(mod_origin rdma_cm)" = stock ] && echo 0 || echo 1)"
	swiw_teardown
	failed && return 1

	# Peer-to-peer mode (RFC 6581): with p2p=1 swiw asks for it as
	# initiator and sends a zero-length WRITE as RTR first; swiw as
	# responder takes it.  The device's counters say the RTR went out
	# and came in.  Not against siw: stock siw's p2p responder takes
	# sk_callback_lock for writing in softirq while its data_ready
	# reads it with softirqs on, and lockdep reports it (6.1).
	swiw_setup p2p=1 || return 1
	kclient_case_at swiw-p2p conn "$s" port=7460 write=1 read=1
	run swiw-stat 30 rdma statistic show link "$SWIW_DEV/1"
	expect_out swiw-stat 'rtr_sent 1( |$)' "swiw sent no RTR as p2p initiator"
	expect_out swiw-stat 'rtr_received 1( |$)' "swiw took no RTR as p2p responder"
	swiw_teardown
	failed && return 1

	# User verbs (user_verbs=1): rdma-core's siw provider, unmodified,
	# drives swiw0.  rping (SEND, RDMA READ and WRITE, a completion
	# channel, data validated) with both ends on swiw and with stock
	# siw either way, then one ucmatose pair of 100 connections on
	# swiw: 400 mapped rings in one process, which siw's mmap keys do
	# not allow (tests/ucmatose.sh).  Then an FPDU right behind the
	# MPA reply, a second process naming the first one's QP; last,
	# destroy and device removal under a process that keeps posting.
	swiw_setup user_verbs=1 || return 1
	rping_pair "$s" 7470 "$s" swiw &&
		rping_pair "$ADDR" 7471 "$s" swiw-to-siw &&
		rping_pair "$s" 7472 "$ADDR" siw-to-swiw &&
		swiw_ucmatose 7473 100 &&
		swiw_early_fpdu 7474 &&
		swiw_mpa_v1 7476 &&
		swiw_term_ird 7479 &&
		swiw_qp_owner 7475 &&
		swiw_flood_cases
	swiw_teardown
}

# swiw_ring_fuzz.c: a hostile process on the rings it maps (its send,
# receive and completion rings, doorbells, state changes, deregistration
# and destroy under requests in flight, children killed with all open)
# for RDMACM_SWIW_FUZZ_SECONDS (default 30; make soak runs 1200) on swiw0
# with user verbs.
# Pass: the fuzzer ends by itself with "0 check failures" (completions
# name requests that were posted, never-connected QPs only flush, no
# byte outside what an STag grants is written, a canary SEND, WRITE and
# READ keep their data) and the harness finds no splat.  The seed is
# the time unless RDMACM_SWIW_FUZZ_SEED says; the log names it, and a
# failure names the round: swiw_ring_fuzz -s SEED -R ROUND -n 1.
test_swiw_ring_fuzz() {
	local seed=${RDMACM_SWIW_FUZZ_SEED:-$(date +%s)}
	local secs=${RDMACM_SWIW_FUZZ_SECONDS:-30}

	swiw_usable || return
	swiw_ring_fuzz_build "$T_DIR" || return
	swiw_setup user_verbs=1 || return 1
	info "swiw_ring_fuzz seed $seed, $secs s"
	swiw_ring_fuzz_run swiw-ringfuzz "$seed" "$secs" 7490
	swiw_teardown
	! failed
}

swiw_ring_fuzz_build() { # DIR
	tool_build swiw_ring_fuzz swiw_ring_fuzz.c "$1" -libverbs -lrdmacm
}

# Its -t bounds when the last round starts; a round has 120 s (the
# fuzzer's own alarm), so the timeout leaves room for one.
swiw_ring_fuzz_run() { # NAME SEED SECONDS PORT [BIN]
	run "$1" $(($3 + 300)) "${5:-$T_DIR}/swiw_ring_fuzz" -d "$SWIW_DEV" \
		-a "$SWIW_ADDR" -p "$4" -s "$2" -t "$3"
	expect_rc "$1" 0
	expect_out "$1" ' 0 check failures$'
	label "$(grep -m1 -o '[0-9]* rounds, .*' "$1.out")"
}

# tests/cm_probe.sh's qp_owner with both processes on swiw0: here iw_cm's
# host-integrated connect and accept bind the QP.  Like qp_owner it needs
# our rdma_cm, which refuses the other process's QP.
swiw_qp_owner() { # PORT
	if [ "$(mod_origin rdma_cm)" != ours ]; then
		info "qp_owner on swiw: not run, rdma_cm is stock"
		return 0
	fi
	cm_probe_build || return 1
	qp_owner_case swiw-owner "$SWIW_ADDR" "$1"
}

# A process that re-posts each slot of a QP's mapped rings as soon as
# swiw gives it back, and polls its CQ, for 60 s (swiw_flood.c): moving
# that QP to ERROR and destroying it, and then deleting the device under
# another such QP, must each return long before the process stops.
# swiw's flush went on for as long as the process kept up with it, and
# a device a process had open waited for it to close it (58 s here).
# The destroy half rarely catches the old flush: the process must
# refill each slot before swiw looks at it again, which it seldom does
# on a TCG guest; KUnit's swiw_qp_hostile_test does that part for sure.
# The deleted device's process gets IBV_EVENT_DEVICE_FATAL on its async
# events (swiw_flood stops waiting for it after its 60 s).
# Last: it deletes swiw0.
swiw_flood_cases() {
	local ms t

	tool_build swiw_flood swiw_flood.c "$T_DIR" -libverbs || return 1
	run swiw-flood 120 "$T_DIR/swiw_flood" "$SWIW_DEV" 60 destroy
	expect_rc swiw-flood 0
	ms=$(sed -n 's/^destroy_ms //p' swiw-flood.out)
	info "destroy_qp under a posting process: ${ms:-?} ms"
	if [ -z "$ms" ] || [ "$ms" -gt $((1000 * $(tmo 10))) ]; then
		fail "destroy_qp took ${ms:-?} ms while the process posted"
	fi

	bg swiw-hold 120 "$T_DIR/swiw_flood" "$SWIW_DEV" 60 hold
	t=$((SECONDS + $(tmo 30)))
	until grep -q '^ready' swiw-hold.out 2> /dev/null; do
		if [ "$SECONDS" -ge "$t" ] || ! proc_running "${PID[swiw-hold]}"; then
			fail "swiw_flood hold never got ready"
			break
		fi
		nap 0.2
	done
	nap 2
	t=$SECONDS
	run swiw-flood-delete 90 rdma link delete "$SWIW_DEV"
	t=$((SECONDS - t))
	expect_rc swiw-flood-delete 0
	info "rdma link delete under a posting process: $t s"
	# Unscaled: half the process's 60 s of wall time.  A delete that
	# waits for the process takes about all of them.
	[ "$t" -le 30 ] ||
		fail "rdma link delete took $t s while a process posted"
	wait_bg swiw-hold 90
	expect_rc swiw-hold 0
	expect_out swiw-hold '^device fatal' \
		"the process got no DEVICE_FATAL for the deleted device"
	expect_out swiw-hold '^child done'
	! failed
}

# mpa_peer.py in the background as NAME, with ARGS after swiw's address;
# returns once it listens (fails the case if it never does).
mpa_peer_start() { # NAME ARGS...
	local p=$1 deadline

	shift
	bg "$p" 120 python3 "$SELFTEST_DIR/mpa_peer.py" "$SWIW_ADDR" "$@"
	deadline=$((SECONDS + $(tmo 30)))
	until grep -q '^listening$' "$p.out" 2> /dev/null; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[$p]}"; then
			fail "mpa_peer.py never listened"
			return 1
		fi
		nap 0.2
	done
}

# swiw as initiator takes an FPDU that comes in with the MPA reply, in
# one segment: mpa_peer.py answers the request with the reply and a SEND
# in one write, and must then get ucmatose's reply SEND.  Stock siw fails
# such a connection (CONNECT_ERROR -EINVAL: "peer sent extra data"), and
# a stock siw initiator thus loses the race against any responder that
# sends first (two_guests.sh, ucmatose100).  With "v1" the peer speaks
# only MPA revision 1 and closes on anything else: net.iw_cm.mpa_version
# 1 makes swiw's requests revision 1.
swiw_early_fpdu() { # PORT [v1]
	local p=swiw-mpapeer${2:+-$2} c=swiw-early${2:+-$2}

	mpa_peer_start "$p" "$@"
	run "$c" 60 ucmatose -s "$SWIW_ADDR" -p "$1" -c 1 -C 1
	wait_bg "$p" 30
	expect_rc "$c" 0
	expect_out "$c" '^return status 0$'
	expect_rc "$p" 0
	expect_out "$p" '^ok$' "swiw sent no SEND after the early FPDU"
	! failed
}

# An MPA reply that accepts with an ORD no IRD of swiw's meets (RFC
# 6581): the connect fails as before, and the responder, which the
# reply put in FPDU mode, gets a TERMINATE "insufficient IRD" first.
swiw_term_ird() { # PORT
	local p=swiw-mpapeer-ird c=swiw-term-ird

	mpa_peer_start "$p" "$1" ird
	run "$c" 60 ucmatose -s "$SWIW_ADDR" -p "$1" -c 1 -C 1
	wait_bg "$p" 30
	expect_rc_fail "$c"
	expect_rc "$p" 0
	expect_out "$p" '^ok$' "no TERMINATE after an unacceptable MPA reply"
	! failed
}

# MPA revision 1 as initiator: against a peer that speaks only
# revision 1, then swiw's own responder (rping: SEND, READ, WRITE) and
# siw's, which answer in kind.  siw as a revision 1 responder refuses the
# RDMA READ its consumer posts (rping's server: "post send error -1"),
# so its leg is ucmatose's SENDs.
swiw_mpa_v1() { # PORT
	local p=$(($1 + 2))

	if ! run swiw-v1 30 sysctl -w net.iw_cm.mpa_version=1; then
		fail "no net.iw_cm.mpa_version"
		return 1
	fi
	if swiw_early_fpdu "$1" v1 &&
	   rping_pair "$SWIW_ADDR" $(($1 + 1)) "$SWIW_ADDR" swiw-v1; then
		bg swiw-v1-userver 120 ucmatose -b "$ADDR" -p "$p" -c 10 -C 10
		wait_ready swiw-v1-userver
		run swiw-v1-uclient 120 \
			ucmatose -s "$ADDR" -b "$SWIW_ADDR" -p "$p" -c 10 -C 10
		wait_bg swiw-v1-userver 60
		ucmatose_pair_ok swiw-v1-userver swiw-v1-uclient
	fi
	run swiw-v2 30 sysctl -w net.iw_cm.mpa_version=2
	! failed
}

# One ucmatose pair of N connections on swiw0, checked as
# tests/ucmatose.sh does.
swiw_ucmatose() { # PORT N
	bg swiw-userver 300 ucmatose -b "$SWIW_ADDR" -p "$1" -c "$2" -C 10
	wait_ready swiw-userver
	run swiw-uclient 300 ucmatose -s "$SWIW_ADDR" -p "$1" -c "$2" -C 10
	wait_bg swiw-userver 60
	ucmatose_pair_ok swiw-userver swiw-uclient
	! failed
}

# NVMe-oF (tests/ulp.sh's nvmeof_rdma) with both ends on swiw0: fast
# registration, READs and WRITEs of a kernel ULP.  Like nvmeof_rdma it
# runs alone, in the NVMe-oF boot.
test_swiw_nvmeof() {
	swiw_usable || return
	swiw_setup || return 1
	ADDR=$SWIW_ADDR
	test_nvmeof_rdma
	# After nvmeof's own teardown, if it set one up: nvmet holds the
	# device until then.
	if [[ $(trap -p EXIT) == *nvme_teardown* ]]; then
		trap 'nvme_teardown; swiw_teardown' EXIT
	else
		trap 'stop_all; swiw_teardown' EXIT
	fi
}

# test_swiw_nvmeof with nvmet-rdma's use_srq=1: nvmet gives every queue
# on swiw0 its command capsules from one SRQ (one per completion
# vector; swiw has one), which it does only on a device that reports
# max_srq and max_srq_wr, and otherwise falls back to a receive queue
# per QP with nothing but a log line.  So while the host is connected,
# `rdma resource show srq` must show nvmet's SRQ on swiw0 with QPs on
# it.  The option comes from a modprobe.d file in /run for as long as
# the test runs; nvmeof's teardown unloads nvmet_rdma, and the next
# load gets the default again.  In the NVMe-oF boot, as swiw_nvmeof.
SWIW_SRQ_CONF=/run/modprobe.d/rdmacm-swiw-srq.conf

test_swiw_nvmeof_srq() {
	swiw_usable || return
	if mod_present nvmet_rdma; then
		fail "nvmet_rdma is already loaded: use_srq would not apply"
		return
	fi
	mkdir -p "${SWIW_SRQ_CONF%/*}"
	echo "options nvmet_rdma use_srq=1" > "$SWIW_SRQ_CONF"
	NVME_CONNECTED_CHECK=swiw_nvmeof_srq_check
	test_swiw_nvmeof
	NVME_CONNECTED_CHECK=
	rm -f "$SWIW_SRQ_CONF"
}

swiw_nvmeof_srq_check() {
	local p=/sys/module/nvmet_rdma/parameters/use_srq

	# Read when nvmet_rdma loaded: not needed any more.
	rm -f "$SWIW_SRQ_CONF"
	if [ "$(cat "$p" 2> /dev/null)" != Y ]; then
		fail "nvmet_rdma loaded without use_srq ($p: $(cat "$p" 2>&1))"
		return 1
	fi
	run srq-res 30 rdma resource show srq dev "$SWIW_DEV"
	expect_rc srq-res 0
	info "$(cat srq-res.out)"
	expect_out srq-res "srqn [0-9]+ .*lqpn [0-9]" \
		"nvmet_rdma made no SRQ with QPs on $SWIW_DEV"
	! failed
}

# srq_share.c on the veth pair of swiw_rate (below): the server, with
# one SRQ behind 4 QPs, in ns1 on vB (10.0.4.2), the client on vA, 100
# messages of 512 bytes on each QP; every message must arrive intact in
# an SRQ buffer with its QP's number, in order per QP, and the SRQ's
# limit event must come once.  siw serves siw first (siw has SRQs: it
# is the reference for the test itself, and that is all that runs with
# stock iw_cm, which swiw needs); then with swiw.ko (user_verbs=1) swiw
# serves swiw, and each serves the other.
test_swiw_srq() {
	local port=7800 k pairs=(siw:siw)

	if [ "$T" != siw ]; then
		skip "iWARP user SRQs: they run in the siw pass"
		return
	fi
	tool_build srq_share srq_share.c "$T_DIR" -libverbs -lrdmacm || return 1
	if [ -z "$OURS_DIR" ] || [ ! -f "$OURS_DIR/swiw.ko" ] ||
	   [ "$(mod_origin iw_cm)" != ours ]; then
		info "swiw cases not run: swiw needs swiw.ko and our iw_cm" \
			"(iw_cm here: $(mod_origin iw_cm))"
	else
		run srq-insmod 60 insmod "$OURS_DIR/swiw.ko" user_verbs=1
		expect_rc srq-insmod 0
		failed && return 1
		pairs+=(swiw:swiw swiw:siw siw:swiw)
	fi
	swiw_veth_up || return 1
	for k in "${pairs[@]}"; do
		swiw_srq_pair "${k%:*}" "${k#*:}" $((port++)) || break
	done
	swiw_rate_down
	! failed
}

# SERVER-KIND's device on vB, CLIENT-KIND's on vA (one iWARP device per
# netdev: rdma_cm finds it by the MAC), srq_share between them.
swiw_srq_pair() { # SERVER-KIND CLIENT-KIND PORT
	local s=$1 c=$2 n=srq-$1-$2 deadline

	run "$n-link" 60 ip netns exec ns1 rdma link add "${s}B" type "$s" netdev vB &&
		run "$n-link" 60 rdma link add "${c}A" type "$c" netdev vA
	expect_rc "$n-link" 0
	deadline=$((SECONDS + $(tmo 30)))
	until rdma link show "${s}B/1" 2> /dev/null | grep -q 'state ACTIVE' &&
	      rdma link show "${c}A/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		[ "$SECONDS" -ge "$deadline" ] && { fail "$n: links not ACTIVE"; break; }
		nap 0.5
	done
	if ! failed; then
		bg "$n-srv" 120 ip netns exec ns1 "$T_DIR/srq_share" \
			-l 10.0.4.2 -p "$3" -n 4 -m 100
		deadline=$((SECONDS + $(tmo 30)))
		until grep -q '^listening$' "$n-srv.out" 2> /dev/null; do
			if [ "$SECONDS" -ge "$deadline" ] ||
			   ! proc_running "${PID[$n-srv]}"; then
				fail "$n: srq_share server never listened"
				break
			fi
			nap 0.2
		done
		run "$n-cli" 120 "$T_DIR/srq_share" -b 10.0.4.1 -s 10.0.4.2 \
			-p "$3" -n 4 -m 100
		wait_bg "$n-srv" 60
		expect_rc "$n-cli" 0
		expect_rc "$n-srv" 0
		expect_out "$n-srv" '^ok 400 messages on 4 QPs, 1 limit event$' \
			"$n: the messages or the limit event did not arrive as sent"
		info "$s serves $c: $(tail -n 1 "$n-srv.out")"
	fi
	rdma link delete "${c}A" > /dev/null 2>&1
	rdma link delete "${s}B" > /dev/null 2>&1
	! failed
}

# A checked one-way stream over a veth pair (vA 10.0.4.1, vB 10.0.4.2 in
# ns1): plain TCP, then rsockets on siw, on swiw, and on swiw with each
# of its data-path options off (where swiw.ko has it), swiw_pump.c
# sending RDMACM_RATE_MIB (default 16) MiB of a pattern that the
# receiver checks byte by byte (a quarter of it with an option off,
# still thousands of FPDUs), and rstream on siw and swiw.  Pass: every
# stream arrives whole and unchanged.  The rate, veth packets and TCP
# segments per MiB are printed as information only: speed is make
# bench's business.
test_swiw_rate() {
	local mib=${RDMACM_RATE_MIB:-16} k n opt port=7700 ok=1

	swiw_usable || return
	tool_build swiw_pump swiw_pump.c "$T_DIR" -lrdmacm || return 1
	swiw_veth_up || return 1
	swiw_rate_one tcp "$mib" $((port++)) || ok=0
	for k in siw swiw swiw+tx_large=0 swiw+tx_coalesce=0 swiw+rx_batch=0 \
		 swiw+tx_doorbell=0 swiw+rx_direct=0; do
		opt=${k#*+}
		[ "$opt" = "$k" ] && opt=
		if [ -n "$opt" ] &&
		   ! modinfo -p "$OURS_DIR/swiw.ko" | grep -q "^${opt%%=*}:"; then
			info "swiw.ko has no ${opt%%=*}"
			continue
		fi
		n=${k//[+=]/_}
		swiw_rate_link "${k%%+*}" "$opt" || { ok=0; break; }
		if [ -n "$opt" ]; then
			swiw_rate_one "$n" $(((mib + 3) / 4)) $((port++)) -r || ok=0
			[ "$opt" = tx_large=0 ] && swiw_rate_large "$n" 0
			swiw_rate_unlink "${k%%+*}"
			continue
		fi
		swiw_rate_one "$n" "$mib" $((port++)) -r || ok=0
		[ "$k" = swiw ] && swiw_rate_large "$n" 1
		bg "$n-rstream-srv" 300 ip netns exec ns1 rstream -b 10.0.4.2 \
			-p $((port)) -S 1048576 -C 8
		wait_ready "$n-rstream-srv"
		run "$n-rstream" 300 rstream -b 10.0.4.1 -s 10.0.4.2 \
			-p $((port++)) -S 1048576 -C 8
		wait_bg "$n-rstream-srv" 60
		expect_rc "$n-rstream" 0
		info "$n rstream: $(tail -n 1 "$n-rstream.out")"
		swiw_rate_unlink "${k%%+*}"
	done
	swiw_rate_down
	[ $ok = 1 ] && ! failed
}

# vA 10.0.4.1 here, vB 10.0.4.2 in ns1; swiw_rate_down takes it down.
swiw_veth_up() {
	if ! { run rate-ip 30 ip netns add ns1 &&
		run rate-ip 30 ip link add vA type veth peer name vB netns ns1 &&
		run rate-ip 30 ip netns exec ns1 ip link set lo up &&
		run rate-ip 30 ip addr add 10.0.4.1/24 dev vA &&
		run rate-ip 30 ip link set vA up &&
		run rate-ip 30 ip netns exec ns1 ip addr add 10.0.4.2/24 dev vB &&
		run rate-ip 30 ip netns exec ns1 ip link set vB up; }; then
		fail "cannot set up the veth pair"
		swiw_rate_down
		return 1
	fi
}

swiw_rate_down() {
	ip link del vA > /dev/null 2>&1
	ip netns del ns1 > /dev/null 2>&1
	mod_present swiw && rmmod swiw
}

# siwA/siwB or swiwA/swiwB on the pair; swiw.ko loaded with OPTION
# (name=value) if one is given.
swiw_rate_link() { # KIND [OPTION]
	local k=$1 deadline

	if [ "$k" = swiw ]; then
		run rate-insmod 60 insmod "$OURS_DIR/swiw.ko" user_verbs=1 ${2:+"$2"}
		expect_rc rate-insmod 0
	fi
	run rate-link 60 rdma link add "${k}A" type "$k" netdev vA &&
		run rate-link 60 ip netns exec ns1 rdma link add "${k}B" type "$k" netdev vB
	expect_rc rate-link 0
	deadline=$((SECONDS + $(tmo 30)))
	until rdma link show "${k}B/1" 2> /dev/null | grep -q 'state ACTIVE'; do
		[ "$SECONDS" -ge "$deadline" ] && { fail "${k}B not ACTIVE"; break; }
		nap 0.5
	done
	! failed
}

swiw_rate_unlink() { # KIND
	local k=$1

	rdma link delete "${k}A" > /dev/null 2>&1
	rdma link delete "${k}B" > /dev/null 2>&1
	if [ "$k" = swiw ]; then
		run rate-rmmod 60 rmmod swiw || fail "rmmod swiw"
	fi
}

# Whether swiwA sent its stream in FPDUs past the MSS (both ends swiw
# say they take them in MPA; tx_large=0 keeps swiw from sending them).
swiw_rate_large() { # NAME 1|0
	run "$1-stat" 30 rdma statistic show link swiwA/1
	if [ "$2" = 1 ]; then
		expect_out "$1-stat" 'large_fpdu_streams [1-9]' \
			"$1: no stream in large FPDUs between two swiw ends"
	else
		expect_out "$1-stat" 'large_fpdu_streams 0( |$)' \
			"$1: large FPDUs sent with tx_large=0"
	fi
}

swiw_rate_segs() { # init netns's TCP OutSegs
	awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $12 }' /proc/net/snmp
}

swiw_rate_one() { # KIND MiB PORT [-r]
	local k=$1 mib=$2 port=$3 rs=${4:-} deadline p0 s0 p1 s1

	bg "$k-pump-srv" 600 ip netns exec ns1 "$T_DIR/swiw_pump" ${rs:+"$rs"} \
		-l 10.0.4.2 -p "$port" -m "$mib"
	deadline=$((SECONDS + $(tmo 30)))
	until grep -q '^listening$' "$k-pump-srv.out" 2> /dev/null; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[$k-pump-srv]}"; then
			fail "$k: swiw_pump server never listened"
			return 1
		fi
		nap 0.2
	done
	p0=$(cat /sys/class/net/vA/statistics/tx_packets)
	s0=$(swiw_rate_segs)
	run "$k-pump" 600 "$T_DIR/swiw_pump" ${rs:+"$rs"} -b 10.0.4.1 -s 10.0.4.2 \
		-p "$port" -m "$mib"
	p1=$(cat /sys/class/net/vA/statistics/tx_packets)
	s1=$(swiw_rate_segs)
	wait_bg "$k-pump-srv" 60
	expect_rc "$k-pump" 0
	expect_rc "$k-pump-srv" 0
	expect_out "$k-pump-srv" "^ok $((mib << 20)) bytes" \
		"$k: the stream did not arrive unchanged"
	info "$k: $(sed -n 's/^ok //p' "$k-pump-srv.out")," \
		"vA tx packets/MiB $(((p1 - p0) / mib)), TcpOutSegs/MiB $(((s1 - s0) / mib))"
	! failed
}
