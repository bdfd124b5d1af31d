# SPDX-License-Identifier: GPL-2.0
#
# Kernel ULPs on rdma_cm's kernel API (stock-baseline 5): in-kernel QPs,
# ESTABLISHED on the active side, wildcard listens, many ids per
# controller, disconnects driven by the kernel.  Server and client run in
# this guest over the one soft device on ADDR.
#
# nfs_rdma: nfsd exports a tmpfs with an RDMA listener on port 20049
# (rpc.nfsd, then "rdma 20049" into /proc/fs/nfsd/portlist; rpcbind and
# rpc.mountd run in the foreground under bg), the NFS client mounts it
# with proto=rdma, vers=4.2.  v4.2 rather than v3: everything, callbacks
# included (4.1+ runs them on the RDMA connection's backchannel), goes
# over the one RDMA connection, with no MOUNT or NLM over TCP on the side
# (v3 needs those, or nolock).  The export is the NFSv4 root (fsid=0: a
# tmpfs has no UUID and needs an fsid, and no pseudo directories above it
# then need one either), so the client mounts ADDR:/.  The price is the
# NFSv4 grace period after nfsd starts: the first OPEN waits for it, so
# it is cut to the minimum nfsd accepts (-G 10 s).
#
# nvmeof_rdma: nvmet exports a memory-backed null_blk through configfs on
# an rdma port ADDR:4420; nvme-cli connects (1 admin + 2 I/O queues).
#
# Both write NFS_MIB / NVME_MIB of random data with dd, read it back with
# O_DIRECT (over the wire, not from the page cache), compare the sha256
# of what was written, what arrived at the server and what came back,
# and then take everything down again, whatever failed on the way: a
# teardown in the EXIT trap unmounts / disconnects, stops the daemons,
# removes the export / configfs tree and unloads every module loaded
# since the test began (rpcrdma, nfsd, nfs, sunrpc ...; nvme_rdma,
# nvmet_rdma, nvmet, null_blk ...), so that the later tests and
# stack.unload find the stack as before.
# Stock (rxe and siw): both pass (stock-baseline 5.1, 5.2).
#
# rds_rdma: RDS over RDMA (rds_rdma.ko) between ADDR and a second address
# RDS_ADDR2 that the test adds to the same netdev (RDS needs two distinct
# local addresses: its IB transport connects them with one RDMA CM
# connection, RDS's loopback transport is used only for the same
# address).  rds_pump.c binds one AF_RDS socket to each, sends RDS_MSGS
# messages each way (32 bytes to 1 MiB, RDS's largest) and checks that
# each arrives once, in order, intact; then RDMA-writes regions of 4 KiB
# to 1 MiB that the other side maps (RDS_CMSG_RDMA_MAP), with completion
# notifications, and checks the bytes.  No RDMA reads (rds_pump -r):
# RDS (6.1) unpins the pages a read wrote from its receive tasklet with
# unpin_user_pages_dirty_lock(), which may sleep ("BUG: sleeping
# function called from invalid context" from rds_rdma_free_op).  Both
# ends send at once, so the first connects collide and RDS rejects both
# a few times (conn_reset in the counters) before one side wins.  The modules
# unload afterwards, which takes the RDS connections down, and rdma_cm's
# and ib_core's reference counts are back where they were.
# RDS over RDMA in Linux 6.1 is InfiniBand/RoCE only: rds_rdma takes no
# device that is not an IB CA (rds_ib_add_one), an address on one fails
# its bind (rds_ib_laddr_check_cm), and a connect request arriving on
# one is rejected (rds_rdma_cm_event_handler_cmn).  The test skips on siw.
# Stock (rxe): passes, the same rejected connects in its kernel log.

NFS_PORT=20049
NFS_DIR=/run/rdmacm-nfs
NFS_MIB=8
NVME_PORT=4420
NVME_NQN=nqn.2014-08.org.kernel:rdmacm-selftest
NVME_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5e1f7e57-0000-4000-8000-0000000a0001
NVME_HOSTID=5e1f7e57-0000-4000-8000-0000000a0001
NVME_DIR=/run/rdmacm-nvme
NVME_MIB=8
NVMET=/sys/kernel/config/nvmet
RDS_ADDR2=10.0.0.3
RDS_PORT=18700
RDS_MSGS=${RDMACM_RDS_MSGS:-45}

# --- common --------------------------------------------------------------

# The loadable modules loaded now, one per line, sorted.
ulp_modules() {
	local f m
	for f in /sys/module/*/initstate; do
		[ -e "$f" ] || continue
		m=${f%/initstate}
		echo "${m##*/}"
	done | LC_ALL=C sort
}

# Unload every module loaded since ulp_modules wrote FILE: each round
# removes those nothing uses any more (users first), until none is left;
# references a ULP drops asynchronously (transports, queues) get up to
# TMO seconds.
ulp_unload() { # FILE [TMO]
	local before=$1 deadline left=() m progress why=() first=

	[ -s "$before" ] || { fail "no module list from the start of the test"; return 1; }
	deadline=$((SECONDS + $(tmo "${2:-30}")))
	while :; do
		# (no process substitution: the guest has no /dev/fd)
		ulp_modules | LC_ALL=C comm -13 "$before" - > modules.left ||
			{ fail "cannot list the loaded modules"; return 1; }
		mapfile -t left < modules.left
		[ -n "$first" ] || first=${left[*]:-none}
		if [ ${#left[@]} -eq 0 ]; then
			info "modules unloaded: $first"
			return 0
		fi
		progress=0
		for m in "${left[@]}"; do
			[ "$(cat "/sys/module/$m/refcnt" 2> /dev/null)" = 0 ] || continue
			run rmmod 60 rmmod "$m" && progress=1
		done
		[ $progress = 1 ] && continue
		if [ "$SECONDS" -ge "$deadline" ]; then
			for m in "${left[@]}"; do
				why+=("$m(refcnt $(cat "/sys/module/$m/refcnt" 2> /dev/null))")
			done
			fail "modules loaded by the test still loaded: ${why[*]}"
			return 1
		fi
		nap 1
	done
}

# The sha256 of FILE (or nothing).
ulp_sum() { # FILE
	sha256sum "$1" 2> /dev/null | cut -d' ' -f1
}

# Compare the sums of what was written (SRC) and each later copy.
ulp_compare() { # SRC NAME=FILE...
	local src want got p
	src=$1
	shift
	want=$(ulp_sum "$src")
	[ -n "$want" ] || { fail "no checksum of $src"; return 1; }
	for p in "$@"; do
		got=$(ulp_sum "${p#*=}")
		[ "$got" = "$want" ] ||
			fail "${p%%=*}: sha256 ${got:-missing} differs" \
				"from the data written ($want)"
	done
	failed && return 1
	return 0
}

ulp_modprobe() { # MODULE [PARAMS...]
	run modprobe 120 modprobe "$@" && return 0
	fail "modprobe $*: $(rc_text modprobe)"
	return 1
}

# A module the test needs that this kernel does not have: skip.
ulp_have_modules() { # MODULE...
	local m
	for m in "$@"; do
		if ! modinfo -n "$m" > /dev/null 2>&1 && ! mod_present "${m//-/_}"; then
			skip "this kernel has no $m module"
			return 1
		fi
	done
	return 0
}

ulp_have_tools() { # WHAT TOOL...
	local what=$1 c
	shift
	for c in "$@"; do
		command -v "$c" > /dev/null && continue
		skip "no $c ($what)"
		return 1
	done
	return 0
}

# Write VALUE to the configfs attribute FILE.
cfs_write() { # FILE VALUE
	echo "$1 <- $2" >> configfs.out
	{ printf '%s' "$2" > "$1"; } 2>> configfs.out && return 0
	fail "cannot write '$2' to $1"
	return 1
}

# --- NFS over RDMA -------------------------------------------------------

# Everything nfs_rdma may have set up, in reverse order; always run (EXIT
# trap).  A step's failure is reported and the next step is still tried.
nfs_teardown() {
	local mnt=$NFS_DIR/mnt

	if mountpoint -q "$mnt"; then
		run umount 120 umount "$mnt" || {
			fail "umount $mnt: $(rc_text umount)"
			run umount-force 60 umount -f -l "$mnt"
		}
	fi
	if [ "$(cat /proc/fs/nfsd/threads 2> /dev/null || echo 0)" != 0 ] ||
	   grep -qs . /proc/fs/nfsd/portlist; then
		run nfsd-stop 120 rpc.nfsd 0 || fail "rpc.nfsd 0: $(rc_text nfsd-stop)"
		grep -q . /proc/fs/nfsd/portlist 2> /dev/null &&
			fail "listeners left after rpc.nfsd 0: $(xargs < /proc/fs/nfsd/portlist)"
	fi
	[ -e exportfs.cmd ] && run exportfs-u 60 exportfs -ua
	stop_all
	if mountpoint -q /proc/fs/nfsd; then
		run umount 60 umount /proc/fs/nfsd || fail "umount /proc/fs/nfsd"
	fi
	if mountpoint -q "$NFS_DIR/export"; then
		run umount 60 umount "$NFS_DIR/export" || fail "umount $NFS_DIR/export"
	fi
	mountpoint -q "$mnt" || mountpoint -q "$NFS_DIR/export" || rm -rf "$NFS_DIR"
	ulp_unload modules.before 60
	if ! failed && [ ! -s "$T_DIR/.skip" ]; then
		label "vers=4.2 proto=rdma port $NFS_PORT, $NFS_MIB MiB written and read back," \
			"sha256 equal; $((SECONDS - ${NFS_T0:-0})) s"
	fi
}

test_nfs_rdma() {
	local mnt=$NFS_DIR/mnt exp=$NFS_DIR/export deadline t

	NFS_T0=$SECONDS
	ulp_have_tools "nfs-kernel-server" rpc.nfsd rpc.mountd exportfs || return
	ulp_have_tools "rpcbind" rpcbind rpcinfo || return
	ulp_have_tools "nfs-common" mount.nfs || return
	ulp_have_modules rpcrdma nfsd nfsv4 || return
	if [ "$(cat /proc/fs/nfsd/threads 2> /dev/null || echo 0)" != 0 ] ||
	   pgrep -x rpcbind > /dev/null || pgrep -x rpc.mountd > /dev/null; then
		fail "nfsd, rpcbind or rpc.mountd already running"
		return
	fi
	ulp_modules > modules.before
	trap 'nfs_teardown' EXIT

	ulp_modprobe rpcrdma || return
	ulp_modprobe nfsd || return
	ulp_modprobe nfsv4 || return
	mountpoint -q /proc/fs/nfsd || run mount 30 mount nfsd /proc/fs/nfsd -t nfsd ||
		{ fail "mount -t nfsd: $(rc_text mount)"; return; }
	mkdir -p "$exp" "$mnt" /run/rpcbind /var/lib/nfs/v4recovery
	run mount 30 mount -t tmpfs -o size=$((NFS_MIB * 4))m tmpfs "$exp" ||
		{ fail "mount tmpfs on $exp"; return; }

	# rpc.nfsd registers the TCP listeners (and lockd) with rpcbind.
	bg rpcbind 1800 rpcbind -f -w
	deadline=$((SECONDS + $(tmo 30)))
	until rpcinfo -p > /dev/null 2>&1; do
		if ! proc_running "${PID[rpcbind]}" || [ "$SECONDS" -ge "$deadline" ]; then
			fail "rpcbind does not answer"
			return
		fi
		nap 0.5
	done
	# tmpfs has no UUID: it needs an fsid; 0 makes it the NFSv4 root.
	run exportfs 60 exportfs -o rw,fsid=0,insecure,no_root_squash,no_subtree_check \
		"$ADDR/24:$exp" || { fail "exportfs: $(rc_text exportfs)"; return; }
	bg mountd 1800 rpc.mountd -F
	deadline=$((SECONDS + $(tmo 30)))
	until rpcinfo -p 2> /dev/null | grep -qw mountd; do
		if ! proc_running "${PID[mountd]}" || [ "$SECONDS" -ge "$deadline" ]; then
			fail "rpc.mountd did not register with rpcbind"
			return
		fi
		nap 0.5
	done
	# The first OPEN waits for the end of the grace period: 10 s is the
	# least nfsd takes.
	run nfsd 120 rpc.nfsd -G 10 4 || { fail "rpc.nfsd 4: $(rc_text nfsd)"; return; }
	run portlist 60 sh -c "echo rdma $NFS_PORT > /proc/fs/nfsd/portlist" ||
		{
			fail "echo rdma $NFS_PORT > /proc/fs/nfsd/portlist: $(rc_text portlist)"
			return
		}
	info "nfsd listeners: $(xargs < /proc/fs/nfsd/portlist)"
	grep -q "^rdma $NFS_PORT\$" /proc/fs/nfsd/portlist ||
		{ fail "no 'rdma $NFS_PORT' in /proc/fs/nfsd/portlist"; return; }

	t=$SECONDS
	run mount 180 mount -t nfs -o "rdma,port=$NFS_PORT,vers=4.2" "$ADDR:/" "$mnt" ||
		{ fail "mount -t nfs -o rdma,port=$NFS_PORT,vers=4.2: $(rc_text mount)"; return; }
	grep " $mnt " /proc/mounts >> mount.out
	grep -q " $mnt nfs4 .*proto=rdma" /proc/mounts ||
		{ fail "$mnt is not an NFSv4 mount with proto=rdma"; return; }
	info "mount: $((SECONDS - t)) s"

	run src 60 dd if=/dev/urandom of="$NFS_DIR/src" bs=1M count=$NFS_MIB
	t=$SECONDS
	run dd-write 600 dd if="$NFS_DIR/src" of="$mnt/data" bs=1M conv=fsync ||
		{ fail "dd to $mnt/data: $(rc_text dd-write)"; return; }
	info "write $NFS_MIB MiB (incl. the grace period): $((SECONDS - t)) s"
	t=$SECONDS
	run dd-read 600 dd if="$mnt/data" of="$NFS_DIR/back" bs=1M iflag=direct ||
		{ fail "dd from $mnt/data: $(rc_text dd-read)"; return; }
	info "read $NFS_MIB MiB (O_DIRECT): $((SECONDS - t)) s"
	ulp_compare "$NFS_DIR/src" "server's copy=$exp/data" "read back=$NFS_DIR/back" ||
		return
	run umount 120 umount "$mnt" || fail "umount $mnt: $(rc_text umount)"
}

# --- NVMe-oF over RDMA ---------------------------------------------------

# The controller connected to NVME_NQN over rdma (nvme0 ...), if any.
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2> /dev/null)" = "$NVME_NQN" ] || continue
		[ "$(cat "$c/transport" 2> /dev/null)" = rdma ] || continue
		echo "${c##*/}"
		return 0
	done
	return 1
}

# The nvme-subsystem device of NVME_NQN, if any.
nvme_subsys() {
	local s
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2> /dev/null)" = "$NVME_NQN" ] || continue
		readlink -f "$s"
		return 0
	done
	return 1
}

nvme_teardown() {
	local s=$NVMET/subsystems/$NVME_NQN p=$NVMET/ports/1 deadline

	if nvme_ctrl > /dev/null; then
		run disconnect 120 nvme disconnect -n "$NVME_NQN" ||
			fail "nvme disconnect: $(rc_text disconnect)"
		deadline=$((SECONDS + $(tmo 30)))
		while nvme_ctrl > /dev/null && [ "$SECONDS" -lt "$deadline" ]; do
			nap 0.5
		done
		nvme_ctrl > /dev/null && fail "controller $(nvme_ctrl) still there after disconnect"
	fi
	stop_all
	if [ -L "$p/subsystems/$NVME_NQN" ]; then
		rm "$p/subsystems/$NVME_NQN" 2>> configfs.out ||
			fail "cannot unlink $NVME_NQN from port 1"
	fi
	if [ -d "$p" ]; then
		rmdir "$p" 2>> configfs.out || fail "cannot remove nvmet port 1"
	fi
	if [ -d "$s/namespaces/1" ]; then
		cfs_write "$s/namespaces/1/enable" 0
		rmdir "$s/namespaces/1" 2>> configfs.out || fail "cannot remove namespace 1"
	fi
	if [ -d "$s" ]; then
		rmdir "$s" 2>> configfs.out || fail "cannot remove subsystem $NVME_NQN"
	fi
	rm -rf "$NVME_DIR"
	ulp_unload modules.before 60
	if ! failed && [ ! -s "$T_DIR/.skip" ]; then
		label "null_blk on nvmet rdma port $ADDR:$NVME_PORT, $NVME_MIB MiB written and" \
			"read back, sha256 equal; $((SECONDS - ${NVME_T0:-0})) s"
	fi
}

# nvme-cli connects to the target at ADDR (1 admin + 2 I/O queues);
# NVME_BLK is its namespace's block device once the controller is live.
nvme_host_connect() { # ADDR
	local c blk deadline t=$SECONDS

	run connect 120 nvme connect -t rdma -a "$1" -s "$NVME_PORT" -n "$NVME_NQN" \
		-q "$NVME_HOSTNQN" -I "$NVME_HOSTID" -i 2 ||
		{ fail "nvme connect: $(rc_text connect)"; return 1; }
	deadline=$((SECONDS + $(tmo 60)))
	while :; do
		c=$(nvme_ctrl)
		if [ -n "$c" ] && [ "$(cat "/sys/class/nvme/$c/state" 2> /dev/null)" = live ]; then
			# With native multipath (Debian's kernel) the disk is
			# the head, nvmeXnY, a child of the nvme-subsystem
			# device; under the controller is only the hidden path
			# device nvmeXcZnY.
			for blk in "/sys/class/nvme/$c/$c"n* \
				   "$(nvme_subsys)"/nvme*n*; do
				[[ ${blk##*/} == nvme*c*n* ]] && { blk=; continue; }
				[ -e "$blk" ] && [ -b "/dev/${blk##*/}" ] && break
				blk=
			done
			[ -n "$blk" ] && break
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
			{
				fail "no live controller with a namespace" \
					"for $NVME_NQN (${c:-none})"
				return 1
			}
		nap 0.5
	done
	NVME_BLK=/dev/${blk##*/}
	info "connect: $c ($(cat "/sys/class/nvme/$c/address" 2> /dev/null)), $NVME_BLK;" \
		"$((SECONDS - t)) s"
}

# NVME_MIB random MiB (NVME_DIR/src) written to NVME_BLK and read back
# with O_DIRECT (NVME_DIR/back): over the wire, not from the page cache.
nvme_host_io() {
	local t

	mkdir -p "$NVME_DIR"
	run src 60 dd if=/dev/urandom of="$NVME_DIR/src" bs=1M count="$NVME_MIB"
	t=$SECONDS
	run dd-write 600 dd if="$NVME_DIR/src" of="$NVME_BLK" bs=1M oflag=direct ||
		{ fail "dd to $NVME_BLK: $(rc_text dd-write)"; return 1; }
	run dd-read 600 dd if="$NVME_BLK" of="$NVME_DIR/back" bs=1M count="$NVME_MIB" \
		iflag=direct || { fail "dd from $NVME_BLK: $(rc_text dd-read)"; return 1; }
	info "write + read $NVME_MIB MiB (O_DIRECT): $((SECONDS - t)) s"
}

# The target side: a memory-backed null_blk (loaded here) as namespace 1
# of NVME_NQN on nvmet rdma port 1, ADDR:NVME_PORT, any host allowed.
# nvme_teardown removes it.  two_guests.sh serves NVMe-oF with it too.
nvmet_export() { # ADDR
	local s=$NVMET/subsystems/$NVME_NQN p=$NVMET/ports/1

	# memory_backed: without it null_blk drops what is written.
	ulp_modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || return
	ulp_modprobe nvmet-rdma || return
	[ -b /dev/nullb0 ] || { fail "no /dev/nullb0 after modprobe null_blk"; return 1; }
	if [ ! -d "$NVMET" ]; then
		mountpoint -q /sys/kernel/config ||
			run mount 30 mount configfs /sys/kernel/config -t configfs
		[ -d "$NVMET" ] || { fail "no $NVMET"; return 1; }
	fi
	if [ -e "$s" ] || [ -e "$p" ]; then
		fail "nvmet subsystem $NVME_NQN or port 1 already exists"
		return 1
	fi
	# Linking the subsystem enables the port: nvmet_rdma listens.
	if ! { mkdir "$s" && cfs_write "$s/attr_allow_any_host" 1 &&
		mkdir "$s/namespaces/1" &&
		cfs_write "$s/namespaces/1/device_path" /dev/nullb0 &&
		cfs_write "$s/namespaces/1/enable" 1 && mkdir "$p" &&
		cfs_write "$p/addr_trtype" rdma && cfs_write "$p/addr_adrfam" ipv4 &&
		cfs_write "$p/addr_traddr" "$1" &&
		cfs_write "$p/addr_trsvcid" "$NVME_PORT" &&
		ln -s "$s" "$p/subsystems/$NVME_NQN"; } 2>> configfs.out; then
		fail "cannot set up nvmet rdma port $1:$NVME_PORT"
		return 1
	fi
}

test_nvmeof_rdma() {
	NVME_T0=$SECONDS
	ulp_have_tools "nvme-cli" nvme || return
	ulp_have_modules null_blk nvmet nvmet-rdma nvme-rdma || return
	if mod_present null_blk; then
		fail "null_blk is already loaded"
		return
	fi
	ulp_modules > modules.before
	trap 'nvme_teardown' EXIT

	nvmet_export "$ADDR" || return
	ulp_modprobe nvme-rdma || return

	nvme_host_connect "$ADDR" && nvme_host_io || return
	# A caller's check of the target while the host is connected.
	[ -z "${NVME_CONNECTED_CHECK:-}" ] || "$NVME_CONNECTED_CHECK" || return
	run dd-target 60 dd if=/dev/nullb0 of="$NVME_DIR/target" bs=1M count=$NVME_MIB \
		iflag=direct
	ulp_compare "$NVME_DIR/src" "target's null_blk=$NVME_DIR/target" \
		"read back=$NVME_DIR/back" || return
	run disconnect 120 nvme disconnect -n "$NVME_NQN"
	expect_rc disconnect 0
	expect_out disconnect 'disconnected 1 controller'
}

# --- RDS over RDMA --------------------------------------------------------

# The GID sysfs shows for IPv4 address ADDR (an IPv4-mapped IPv6 address).
rds_gid() { # ADDR
	local a b c d
	IFS=. read -r a b c d <<< "$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

# Whether DEV's port 1 has the GID of ADDR.
rds_has_gid() { # ADDR
	grep -qsx "$(rds_gid "$1")" "/sys/class/infiniband/$DEV/ports/1/gids/"*
}

rds_teardown() {
	local m

	stop_all
	ulp_unload modules.before 60
	for m in rdma_cm ib_core; do
		[ -s "refcnt.$m" ] || continue
		[ "$(cat "/sys/module/$m/refcnt" 2> /dev/null)" = "$(cat "refcnt.$m")" ] ||
			fail "$m: refcnt $(cat "/sys/module/$m/refcnt" 2> /dev/null) after" \
				"the RDS modules went, $(cat "refcnt.$m") before"
	done
	if [ -e addr2.added ]; then
		run ip 30 ip addr del "$RDS_ADDR2/24" dev "$NETDEV" ||
			fail "ip addr del $RDS_ADDR2/24 dev $NETDEV: $(rc_text ip)"
	fi
	if ! failed && [ ! -s "$T_DIR/.skip" ]; then
		label "$ADDR <-> $RDS_ADDR2 on RDS/IB: $(grep -m1 -o '^summary: .*;' rds.out |
			sed 's/^summary: //; s/;$//'); modules unloaded;" \
			"$((SECONDS - ${RDS_T0:-0})) s"
	fi
}

test_rds_rdma() {
	local m deadline

	RDS_T0=$SECONDS
	if [ "$T" = siw ]; then
		skip "RDS over RDMA in Linux 6.1 is InfiniBand/RoCE only" \
			"(rds_rdma refuses iWARP devices)"
		return
	fi
	ulp_have_tools "gcc, to build rds_pump" gcc || return
	ulp_have_modules rds rds_rdma || return
	for m in rds rds_rdma rds_tcp; do
		mod_present "$m" && { fail "$m is already loaded"; return; }
	done
	if ip -4 addr show dev "$NETDEV" | grep -qw "$RDS_ADDR2"; then
		fail "$RDS_ADDR2 is already on $NETDEV"
		return
	fi
	tool_build rds_pump rds_pump.c "$T_DIR" -pthread || return
	ulp_modules > modules.before
	for m in rdma_cm ib_core; do
		cat "/sys/module/$m/refcnt" > "refcnt.$m" 2> /dev/null
	done
	trap 'rds_teardown' EXIT

	ulp_modprobe rds_rdma || return
	run ip 30 ip addr add "$RDS_ADDR2/24" dev "$NETDEV" ||
		{ fail "ip addr add $RDS_ADDR2/24 dev $NETDEV: $(rc_text ip)"; return; }
	: > addr2.added
	# RDS binds through rdma_cm, which finds the device by the GID of
	# the address: ib_core adds it when the address appears.
	deadline=$((SECONDS + $(tmo 20)))
	until rds_has_gid "$RDS_ADDR2"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			{ fail "no GID for $RDS_ADDR2 on $DEV after $(tmo 20) s"; return; }
		nap 0.5
	done

	run rds 300 "$T_DIR/rds_pump" -a "$ADDR" -b "$RDS_ADDR2" -p "$RDS_PORT" \
		-n "$RDS_MSGS" -t "$(tmo 280)"
	expect_rc rds 0
	expect_out rds ' 0 check failures$'
	grep -v '^FAIL' rds.out | sed 's/^/rds_pump: /' >> "$T_DIR/.info"
}
