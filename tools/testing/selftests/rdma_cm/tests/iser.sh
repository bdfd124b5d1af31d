# SPDX-License-Identifier: GPL-2.0
#
# iser_rdma: iSCSI over RDMA, LIO's ib_isert target and open-iscsi's
# initiator (iscsid, iscsiadm with its built-in "iser" iface, ib_iser),
# both on rdma_cm's kernel API.  The target exports a fileio backstore
# as LUN 0 of ISER_IQN on an iSCSI portal ADDR:ISER_PORT with iSER
# enabled (demo mode: any initiator, no CHAP).  The initiator discovers
# the target over iSER (SendTargets), logs in, writes LIO_MIB MiB with
# O_DIRECT, reads them back, compares the sha256 of what it wrote, what
# the backstore's file holds and what came back, and logs out.  A
# teardown in the EXIT trap logs out, stops iscsid, removes the
# configfs tree and unloads every module the test loaded.
#
# iWARP: the portal's iSCSI/TCP listener and the iSER one share ADDR:port,
# and an iWARP listener is a TCP listener of the same port space, so
# ib_isert's rdma_listen() fails with EADDRINUSE and enabling iSER on the
# portal fails ("isert: isert_setup_id: rdma_listen() failed: -98" on
# siw, with the stock modules as with ours).  The test tries, and skips
# with that reason when it happens.

ISER_IQN=iqn.2003-01.org.linux-iscsi.rdmacm:selftest
ISER_PORT=3260

iser_session_count() {
	local n=0 s

	for s in /sys/class/iscsi_session/session*; do
		[ -e "$s" ] && n=$((n + 1))
	done
	echo $n
}

iser_teardown() {
	local tpg=$LIO/iscsi/$ISER_IQN/tpgt_1 deadline

	if [ "$(iser_session_count)" != 0 ]; then
		run logout 120 iscsiadm -m node -T "$ISER_IQN" -p "$ADDR:$ISER_PORT" \
			-I iser --logout || fail "iscsiadm --logout: $(rc_text logout)"
		deadline=$((SECONDS + $(tmo 30)))
		while [ "$(iser_session_count)" != 0 ] && [ "$SECONDS" -lt "$deadline" ]; do
			nap 0.5
		done
		[ "$(iser_session_count)" = 0 ] || fail "iSCSI sessions left after logout"
	fi
	if [ -e iscsid.cmd ]; then
		run node-delete 60 iscsiadm -m node -o delete -T "$ISER_IQN"
		run disc-delete 60 iscsiadm -m discoverydb -t st -p "$ADDR:$ISER_PORT" \
			-I iser -o delete
	fi
	stop_all
	if [ -d "$tpg" ]; then
		[ "$(cat "$tpg/enable" 2> /dev/null)" = 1 ] && cfs_write "$tpg/enable" 0
		if [ -d "$tpg/np/$ADDR:$ISER_PORT" ]; then
			rmdir "$tpg/np/$ADDR:$ISER_PORT" 2>> configfs.out ||
				fail "cannot remove the portal"
		fi
		if [ -L "$tpg/lun/lun_0/iser0" ]; then
			rm "$tpg/lun/lun_0/iser0" 2>> configfs.out || fail "cannot unlink LUN 0"
		fi
		if [ -d "$tpg/lun/lun_0" ]; then
			rmdir "$tpg/lun/lun_0" 2>> configfs.out || fail "cannot remove LUN 0"
		fi
		rmdir "$tpg" 2>> configfs.out || fail "cannot remove $tpg"
	fi
	if [ -d "$LIO/iscsi/$ISER_IQN" ]; then
		rmdir "$LIO/iscsi/$ISER_IQN" 2>> configfs.out || fail "cannot remove $ISER_IQN"
	fi
	lio_fabric_remove iscsi
	lio_backstore_remove iser0
	ulp_unload modules.before 60
	if ! failed && [ ! -s "$T_DIR/.skip" ]; then
		label "LIO iSER portal $ADDR:$ISER_PORT, open-iscsi iser iface: discovery," \
			"login, $LIO_MIB MiB written and read back, sha256 equal, logout;" \
			"$((SECONDS - ${ISER_T0:-0})) s"
	fi
}

# The target: LUN 0 of ISER_IQN on ADDR:ISER_PORT, iSER enabled.
iser_target() {
	local tpg=$LIO/iscsi/$ISER_IQN/tpgt_1

	ulp_modprobe iscsi_target_mod || return
	ulp_modprobe target_core_file || return
	lio_backstore iser0 || return
	if ! { mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$LIO/core/fileio_0/iser0" "$tpg/lun/lun_0/iser0" &&
		cfs_write "$tpg/attrib/authentication" 0 &&
		cfs_write "$tpg/attrib/generate_node_acls" 1 &&
		cfs_write "$tpg/attrib/demo_mode_write_protect" 0 &&
		mkdir "$tpg/np/$ADDR:$ISER_PORT"; } 2>> configfs.out; then
		fail "cannot set up the iSCSI target $ISER_IQN"
		return 1
	fi
	# Loads ib_isert and listens on rdma_cm.
	if [ "$T" != rxe ]; then
		echo "$tpg/np/$ADDR:$ISER_PORT/iser <- 1" >> configfs.out
		if ! { printf 1 > "$tpg/np/$ADDR:$ISER_PORT/iser"; } 2> iser-enable.err; then
			cat iser-enable.err >> configfs.out
			if grep -q 'Address already in use' iser-enable.err; then
				skip "iWARP: rdma_listen() on the TCP portal's" \
					"$ADDR:$ISER_PORT is EADDRINUSE"
			else
				fail "cannot enable iSER on the portal: $(cat iser-enable.err)"
			fi
			return 1
		fi
	else
		cfs_write "$tpg/np/$ADDR:$ISER_PORT/iser" 1 || return
	fi
	cfs_write "$tpg/enable" 1
}

test_iser_rdma() {
	local t

	ISER_T0=$SECONDS
	ulp_have_tools "open-iscsi" iscsid iscsiadm || return
	ulp_have_modules target_core_file iscsi_target_mod ib_isert ib_iser || return
	if pgrep -x iscsid > /dev/null || [ "$(iser_session_count)" != 0 ]; then
		fail "iscsid or an iSCSI session is already there"
		return
	fi
	ulp_modules > modules.before
	trap 'iser_teardown' EXIT

	iser_target || return
	ulp_modprobe ib_iser || return
	lio_sd || return
	bg iscsid 1800 iscsid -f
	t=$SECONDS
	run discovery 120 iscsiadm -m discovery -t st -p "$ADDR:$ISER_PORT" -I iser ||
		{ fail "iscsiadm discovery over iser: $(rc_text discovery)"; return; }
	expect_out discovery "^$ADDR:$ISER_PORT,1 $ISER_IQN\$"
	failed && return
	run login 180 iscsiadm -m node -T "$ISER_IQN" -p "$ADDR:$ISER_PORT" -I iser --login ||
		{ fail "iscsiadm --login: $(rc_text login)"; return; }
	lio_wait_disk iscsi_iser 60 || return
	info "discovery + login: $((SECONDS - t)) s"
	lio_io iser0 iser || return
	run logout 120 iscsiadm -m node -T "$ISER_IQN" -p "$ADDR:$ISER_PORT" -I iser --logout
	expect_rc logout 0
}
