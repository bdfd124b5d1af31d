# SPDX-License-Identifier: GPL-2.0
#
# What the SCSI ULP tests (iser.sh, srp.sh) share: a LIO fileio backstore
# on a tmpfs file for the target, the disk the initiator gets for it, and
# the data check.  The target and the initiator run in this guest, over
# the one soft device on ADDR, as for NVMe-oF (ulp.sh).

LIO=/sys/kernel/config/target
LIO_DIR=/run/rdmacm-lio
LIO_MIB=8

# A fileio backstore NAME of LIO_MIB MiB on LIO_DIR/NAME.img, enabled.
lio_backstore() { # NAME
	local d=$LIO/core/fileio_0/$1 f=$LIO_DIR/$1.img

	mkdir -p "$LIO_DIR"
	run truncate 30 truncate -s "${LIO_MIB}M" "$f" ||
		{ fail "cannot make $f"; return 1; }
	if ! { mkdir -p "$d" &&
		cfs_write "$d/control" "fd_dev_name=$f,fd_dev_size=$((LIO_MIB << 20))" &&
		cfs_write "$d/enable" 1; } 2>> configfs.out; then
		fail "cannot set up the fileio backstore $1"
		return 1
	fi
}

# Remove what lio_backstore NAME made, if it is there.
lio_backstore_remove() { # NAME
	local h=$LIO/core/fileio_0

	if [ -d "$h/$1" ]; then
		rmdir "$h/$1" 2>> configfs.out || fail "cannot remove backstore $1"
	fi
	if [ -d "$h" ]; then
		rmdir "$h" 2>> configfs.out || fail "cannot remove $h"
	fi
	rm -f "$LIO_DIR/$1.img"
	rmdir "$LIO_DIR" 2> /dev/null
	return 0
}

# Remove a fabric's configfs directory (it holds its module).
lio_fabric_remove() { # FABRIC
	if [ -d "$LIO/$1" ]; then
		rmdir "$LIO/$1" 2>> configfs.out || fail "cannot remove $LIO/$1"
	fi
	return 0
}

# The disk of the SCSI host of driver PROC_NAME (/dev/sdX), if any.
scsi_disk_of() { # PROC_NAME
	local b hctl

	for b in /sys/block/sd*; do
		[ -e "$b/device" ] || continue
		hctl=$(readlink -f "$b/device")
		hctl=${hctl##*/}
		[ "$(cat "/sys/class/scsi_host/host${hctl%%:*}/proc_name" 2> /dev/null)" = "$1" ] ||
			continue
		[ -b "/dev/${b##*/}" ] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}

# The initiator's disks need sd; the guest has no udev to load it.
lio_sd() {
	ulp_modprobe sd_mod
}

# Wait up to TMO s for the disk of PROC_NAME; LIO_DISK is set.
lio_wait_disk() { # PROC_NAME TMO
	local deadline

	deadline=$((SECONDS + $(tmo "$2")))
	until LIO_DISK=$(scsi_disk_of "$1"); do
		if [ "$SECONDS" -ge "$deadline" ]; then
			fail "no SCSI disk on a $1 host after $2 s"
			return 1
		fi
		nap 0.5
	done
	info "disk: $LIO_DISK ($(cat "/sys/block/${LIO_DISK#/dev/}/device/vendor" \
		2> /dev/null | xargs) $(cat "/sys/block/${LIO_DISK#/dev/}/device/model" \
		2> /dev/null | xargs))"
}

# LIO_MIB random MiB written to LIO_DISK and read back with O_DIRECT (over
# the wire, not from the page cache); the backstore NAME's file holds the
# same bytes.  TAG names the round in the files and messages.
lio_io() { # NAME TAG
	local t=$SECONDS src=$LIO_DIR/src.$2 back=$LIO_DIR/back.$2

	run "src-$2" 60 dd if=/dev/urandom of="$src" bs=1M count="$LIO_MIB"
	run "dd-write-$2" 600 dd if="$src" of="$LIO_DISK" bs=1M oflag=direct ||
		{ fail "$2: dd to $LIO_DISK: $(rc_text "dd-write-$2")"; return 1; }
	run "dd-read-$2" 600 dd if="$LIO_DISK" of="$back" bs=1M \
		count="$LIO_MIB" iflag=direct ||
		{ fail "$2: dd from $LIO_DISK: $(rc_text "dd-read-$2")"; return 1; }
	info "$2: write + read $LIO_MIB MiB (O_DIRECT): $((SECONDS - t)) s"
	ulp_compare "$src" "$2: target's file=$LIO_DIR/$1.img" "$2: read back=$back"
}
