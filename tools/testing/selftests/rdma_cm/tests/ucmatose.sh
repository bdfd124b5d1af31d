# SPDX-License-Identifier: GPL-2.0
#
# ucmatose: many RC connections on one event channel (connect, accept and
# disconnect storms, a SEND/RECV exchange per connection), MIGRATE_ID, and
# REJECT of a surplus connection request.  Pass (stock, both transports):
# each side exits 0 with "test complete" and "return status 0"; the server
# prints "disconnected".

UCMA_CONNS=100

# Check one ucmatose server/client pair that should have passed.
ucmatose_pair_ok() { # SERVER CLIENT
	local n
	for n in "$1" "$2"; do
		expect_rc "$n" 0
		expect_out "$n" '^test complete$'
		expect_out "$n" '^return status 0$'
		expect_no_out "$n" 'error|fail|unable'
	done
	expect_out "$1" '^disconnected$'
}

# At least $UCMA_CONNS RC connections up at the same time.
#
# rxe: one pair, `-c 100 -C 10` (the same -c on both sides).
#
# siw: stock `ucmatose -c 100` fails in the client with "cmatose: unable
# to create CQ" (return status -12), a siw/libsiw limit that has nothing
# to do with the CM: every connection mmaps 4 objects (send CQ, recv CQ,
# SQ, RQ; one page each at -C 10) into the process's verbs context; siw
# hands out mmap keys from offset 0 up, and libsiw takes a key equal to
# SIW_INVAL_UOBJ_KEY (0x8FFFF + 1 = page 144) for a failure, so the 145th
# object of a process (connection 37) cannot be created.  So siw runs 4
# concurrent pairs of 25 connections on 4 ports: 100 connections at
# once through the CM, at most 100 mmap objects per process.
test_ucmatose() {
	if [ "$T" = siw ]; then
		ucmatose_pairs "$UCMA_CONNS" 25 4 300
	else
		ucmatose_pairs "$UCMA_CONNS" "$UCMA_CONNS" 1 300
	fi
}

# TOTAL connections as server/client pairs of at most PER connections
# (-C 10), PAR pairs up at a time, each pair checked as above; make soak
# runs 1000 over rxe and siw this way.
ucmatose_pairs() { # TOTAL PER PAR TMO
	local tmo=$4 port=7301

	pairs_batched "$1" "$2" "$3" ucmatose_pair || return
	info "$1 connections as pairs of up to $2 (-C 10), $3 at a time"
}

ucmatose_pair() { # STEP I N: see pairs_batched
	case $1 in
	server) bg "server$2" "$tmo" ucmatose -p $((port + $2)) -c "$3" -C 10 ;;
	client) bg "client$2" "$tmo" ucmatose -s "$ADDR" -p $((port + $2)) -c "$3" -C 10 ;;
	check)
		wait_bg "client$2" $((tmo + 20))
		wait_bg "server$2" 60
		ucmatose_pair_ok "server$2" "client$2"
		;;
	esac
}

# -m: after the data transfers both sides move the listener and every
# connection to a new event channel (MIGRATE_ID) and disconnect there.
test_ucmatose_migrate() {
	local port=7311

	bg server 120 ucmatose -p "$port" -m
	wait_ready server
	run client 120 ucmatose -s "$ADDR" -p "$port" -m
	wait_bg server 60
	ucmatose_pair_ok server client
	expect_out server '^migrating to new event channel$'
	expect_out client '^migrating to new event channel$'
}

# Server -c 1, client -c 2: the server accepts the first request and
# rejects the second ("cmatose: failing connection request", return
# status -12).  The client gets RDMA_CM_EVENT_REJECTED with the IB CM
# reason 28 (consumer reject) on RoCE, -104 (ECONNRESET) on iWARP, and
# returns that status.
#
# That needs request 2 to reach the server before ESTABLISHED of
# connection 1.  It is a race inside ucmatose: the client issues its
# second connect only after setting up the second connection's CQs and
# QP, while the server accepts the first.  Under TCG the client can lose
# it (traced on our iw_cm: every event delivered in provider order, the
# client's iw_cm_connect of connection 2 called 24 ms after the server's
# ESTABLISHED).  Then ucmatose deadlocks by design: the server has its
# one connection and waits for data, never reading request 2; the client
# gets UNREACHABLE for it (siw: -110 when no MPA reply comes within 10 s;
# IB CM: the REQ times out) and waits for the server to disconnect
# connection 1.  Stopping the server ends it: the client must then exit
# by itself with the UNREACHABLE status.
#
# A third order over IB CM: the server rejects request 2 and exits before
# the client answered connection 1's reply (CONNECT_RESPONSE) with its
# RTU.  The server's exit destroys connection 1 in REP_SENT, so ib_cm
# sends a REJ for it and the client's RTU fails: librdmacm reports
# RDMA_CM_EVENT_CONNECT_ERROR (-1) for connection 1 and ucmatose exits
# with -1 before it reads REJECTED for request 2.  Seen once in a CI run
# on our rdma_cm (whose connect step is slower than stock's under TCG,
# see make bench); stock has the same race.  The server's side is
# checked as usual then.
test_ucmatose_reject() {
	local port=7312 status=28 rc=28 deadline

	if [ "$T" = siw ]; then
		status=-104
		rc=152
	fi
	bg server 120 ucmatose -p "$port" -c 1
	wait_ready server
	bg client 120 ucmatose -s "$ADDR" -p "$port" -c 2
	deadline=$((SECONDS + $(tmo 135)))
	while proc_running "${PID[client]}" && [ "$SECONDS" -lt "$deadline" ]; do
		if grep -q 'RDMA_CM_EVENT_UNREACHABLE' client.out &&
		   grep -q '^receiving data transfers$' server.out &&
		   ! grep -q 'failing connection request' server.out; then
			ucmatose_reject_late
			return
		fi
		nap 0.5
	done
	wait_bg client 15
	wait_bg server 60
	if [ "$T" != siw ] &&
	   [ "$(grep -c 'cmatose: event: ' client.out)" = 1 ] &&
	   grep -q '^cmatose: event: RDMA_CM_EVENT_CONNECT_ERROR, error: -1$' client.out; then
		info "the server's exit tore connection 1 down before its RTU:" \
			"client CONNECT_ERROR -1"
		expect_out client '^return status -1$'
		expect_rc client 255
		status=
	fi
	if [ -n "$status" ]; then
		expect_out client "RDMA_CM_EVENT_REJECTED, error: $status\$"
		expect_out client "^return status $status\$"
		expect_rc client "$rc"
	fi
	if [ "${RC[server]}" = 244 ]; then
		expect_out server 'failing connection request'
		expect_out server '^return status -12$'
	else
		fail "server: $(rc_text server), expected 244 (return status -12)"
	fi
}

# Request 2 came after ESTABLISHED of connection 1 (see above).
ucmatose_reject_late() {
	local st

	stop_bg server
	wait_bg client 60
	st=$(sed -n 's/.*RDMA_CM_EVENT_UNREACHABLE, error: \(-\{0,1\}[0-9]\{1,\}\)$/\1/p' \
		client.out)
	if [ -z "$st" ]; then
		fail "client: UNREACHABLE without a status"
		return
	fi
	info "request 2 came after ESTABLISHED of connection 1:" \
		"client UNREACHABLE $st, server stopped"
	expect_out client "^return status $st\$"
	expect_rc client $((st & 255))
	expect_no_out server 'failing connection request'
}
