# SPDX-License-Identifier: GPL-2.0
#
# srp_rdma: SRP over the RDMA CM (as on RoCE and iWARP fabrics, where
# there is no IB CM service id to log in to), LIO's ib_srpt target and
# the ib_srp initiator, both on rdma_cm's kernel API.  The target listens
# on rdma_cm port SRP_PORT (configfs discovery_auth/rdma_cm_port, a
# wildcard listener) and exports a fileio backstore as LUN 0 of the
# target port named by the device's port GUID, to the initiator's
# address (an RDMA CM login names its session by address).  ib_srp's
# add_target logs in to dest=ADDR:SRP_PORT; the test writes LIO_MIB MiB
# with O_DIRECT, reads them back and compares them with the backstore's
# file.  Then the target disables its port group, which disconnects
# the channel; ib_srp's reconnect (reconnect_delay 2 s) logs in again
# once the group is enabled, and a second round of I/O checks the new
# channel.  The initiator deletes its remote port (logout); a teardown
# in the EXIT trap removes everything and unloads every module the test
# loaded.
#
# iWARP: over siw, ib_srpt refuses the login before it looks at it (the
# initiator gets an MPA reject, REJECTED with -ECONNRESET, and add_target
# fails), on the stock modules as on ours, so the test runs on RoCE
# (rxe) only.

SRP_PORT=5555

# The SRP remote port of ib_srp (port-H:1), if any.
srp_rport() {
	local p

	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p" ] || continue
		echo "$p"
		return 0
	done
	return 1
}

# Wait up to TMO s for the remote port's state to be (or, with !, not to
# be) STATE.
srp_wait_state() { # [!] STATE TMO
	local neg= p s deadline

	[ "$1" = ! ] && { neg=1; shift; }
	deadline=$((SECONDS + $(tmo "$2")))
	while :; do
		p=$(srp_rport) && s=$(cat "$p/state" 2> /dev/null)
		if [ -n "$neg" ]; then
			[ -n "$s" ] && [ "$s" != "$1" ] && return 0
		else
			[ "$s" = "$1" ] && return 0
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			fail "remote port ${p:-none}: state ${s:-none}, waited for ${neg:+not }$1"
			return 1
		fi
		nap 0.5
	done
}

# The target port of the device: its port GUID as ib_srpt names it.
srp_tport_name() {
	local g

	g=$(cat "/sys/class/infiniband/$DEV/ports/1/gids/0" 2> /dev/null) || return 1
	echo "${g#*:*:*:*:}"
}

srp_teardown() {
	local tport tpg p deadline

	if p=$(srp_rport); then
		cfs_write "$p/delete" 1
		deadline=$((SECONDS + $(tmo 60)))
		while srp_rport > /dev/null && [ "$SECONDS" -lt "$deadline" ]; do
			nap 0.5
		done
		srp_rport > /dev/null && fail "remote port $p still there after delete"
	fi
	stop_all
	tport=$LIO/srpt/${SRP_TPORT:-none}
	tpg=$tport/tpgt_1
	if [ -d "$tpg" ]; then
		[ "$(cat "$tpg/enable" 2> /dev/null)" = 1 ] && cfs_write "$tpg/enable" 0
		for p in "$tpg/acls/$ADDR/lun_0/lun0" "$tpg/lun/lun_0/srp0"; do
			[ -L "$p" ] || continue
			rm "$p" 2>> configfs.out || fail "cannot remove $p"
		done
		for p in "$tpg/acls/$ADDR/lun_0" "$tpg/acls/$ADDR" "$tpg/lun/lun_0" "$tpg"; do
			[ -d "$p" ] || continue
			rmdir "$p" 2>> configfs.out || fail "cannot remove $p"
		done
	fi
	if [ -d "$tport" ]; then
		rmdir "$tport" 2>> configfs.out || fail "cannot remove $tport"
	fi
	if [ -d "$LIO/srpt" ]; then
		cfs_write "$LIO/srpt/discovery_auth/rdma_cm_port" 0
		lio_fabric_remove srpt
	fi
	lio_backstore_remove srp0
	ulp_unload modules.before 60
	if ! failed && [ ! -s "$T_DIR/.skip" ]; then
		label "ib_srpt on rdma_cm port $SRP_PORT, ib_srp dest=$ADDR:$SRP_PORT: login," \
			"$LIO_MIB MiB written and read back twice (before and after a" \
			"target-side disconnect and the re-login), sha256 equal, logout;" \
			"$((SECONDS - ${SRP_T0:-0})) s"
	fi
}

# The target: LUN 0 of the device's target port, for the initiator ADDR.
srp_target() {
	local tpg

	ulp_modprobe ib_srpt || return
	ulp_modprobe target_core_file || return
	lio_backstore srp0 || return
	SRP_TPORT=$(srp_tport_name) || { fail "no GID 0 on $DEV port 1"; return 1; }
	tpg=$LIO/srpt/$SRP_TPORT/tpgt_1
	if ! { mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$LIO/core/fileio_0/srp0" "$tpg/lun/lun_0/srp0" &&
		mkdir -p "$tpg/acls/$ADDR/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/$ADDR/lun_0/lun0"; } 2>> configfs.out; then
		fail "cannot set up the SRP target port $SRP_TPORT"
		return 1
	fi
	cfs_write "$LIO/srpt/discovery_auth/rdma_cm_port" "$SRP_PORT" || return
	cfs_write "$tpg/enable" 1
}

test_srp_rdma() {
	local g t p tpg

	SRP_T0=$SECONDS
	if [ "$T" != rxe ]; then
		skip "siw: ib_srpt refuses the login (MPA reject), on stock as on ours"
		return
	fi
	ulp_have_modules target_core_file ib_srpt ib_srp || return
	if srp_rport > /dev/null; then
		fail "an SRP remote port is already there"
		return
	fi
	ulp_modules > modules.before
	trap 'srp_teardown' EXIT

	srp_target || return
	tpg=$LIO/srpt/$SRP_TPORT/tpgt_1
	ulp_modprobe ib_srp || return
	lio_sd || return
	# ib_srpt checks the login's target port id against its service GUID.
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
	g=${g#0x}
	t=$SECONDS
	cfs_write "/sys/class/infiniband_srp/srp-$DEV-1/add_target" \
		"id_ext=$g,ioc_guid=$g,dest=$ADDR:$SRP_PORT" || return
	lio_wait_disk ib_srp 60 || return
	p=$(srp_rport) || { fail "no SRP remote port after add_target"; return; }
	info "login: $((SECONDS - t)) s; $p"
	lio_io srp0 first || return

	# The target drops the channel; ib_srp logs in again by itself.
	cfs_write "$p/reconnect_delay" 2 || return
	t=$SECONDS
	cfs_write "$tpg/enable" 0 || return
	srp_wait_state ! running 60 || return
	info "after the target's disconnect: $(cat "$p/state")"
	cfs_write "$tpg/enable" 1 || return
	srp_wait_state running 120 || return
	info "re-login: $((SECONDS - t)) s"
	lio_io srp0 second || return
	cfs_write "$p/delete" 1
}
