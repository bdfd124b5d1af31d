# SPDX-License-Identifier: GPL-2.0
#
# Device removal under traffic: an endless rping runs between server and
# client when `rdma link delete` removes the device.  DEVICE_REMOVAL must
# reach both rping processes ("cma detected device removal!!!!"), they
# exit and close their verbs files, and the delete completes (stock: in
# about 1 s with ib_uverbs loaded before rdma_cm, stock-baseline 4.5).
# Runs last on a transport: the device is gone afterwards.

# Once the rping client moves data, delete DEV; each rping NAME must see
# DEVICE_REMOVAL and exit within 30 s.  False if the traffic never began.
removal_delete_under() { # NAME...
	local deadline n

	deadline=$((SECONDS + $(tmo 60)))
	until [ "$(grep -c '^ping data: ' client.out)" -ge 3 ]; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[client]}"; then
			fail "rping traffic did not start"
			return 1
		fi
		nap 0.2
	done
	run delete 60 rdma link delete "$DEV"
	expect_rc delete 0
	dev_exists "$DEV" && fail "$DEV still exists after rdma link delete"
	for n in "$@"; do
		wait_bg "$n" 30
		case ${RC[$n]} in
		124) fail "$n rping still running $(tmo 30) s after the removal" ;;
		esac
		expect_out "$n" 'cma detected device removal!!!!'
	done
}

test_removal() {
	local port=7202

	bg server 300 rping -s -a "$ADDR" -p "$port" -V
	wait_ready server
	bg client 300 rping -c -a "$ADDR" -p "$port" -V -v
	removal_delete_under server client || return
	info "rdma link delete $DEV under rping traffic: $(rc_text delete)"
}

# removal_early_cm: the same with rdma_cm loaded before ib_uverbs, as a
# boot that starts NVMe-oF or NFS/RDMA early has it, and with two more
# listeners: one bound to the device's address, one to the wildcard.
# ib_core removes a device's clients in the reverse order of their
# registration; ib_uverbs' remove waits for user space to close its
# verbs files (rxe and siw cannot disassociate them), which rping does
# on DEVICE_REMOVAL.  Our rdma_ucm reports that event from its own
# client, removed before ib_uverbs'; stock rdma_ucm leaves it to
# rdma_cm, removed after ib_uverbs' here, and the delete never returns
# (nor does anything that needs the device list afterwards): so the case
# runs on our rdma_ucm and skips on stock.  The bound listener must see
# DEVICE_REMOVAL and exit, the wildcard one has no device and keeps
# running.  The stack is loaded in the usual order again at the end.
# The device is gone afterwards.

# Unload the CM modules, every user of ib_uverbs (the soft drivers: no
# device is left) and ib_uverbs, and load the stack again; "uverbs_late"
# loads ib_uverbs after rdma_cm.
removal_reload() { # [uverbs_late]
	local h m

	unload_stack cm || return 1
	for h in /sys/module/ib_uverbs/holders/*; do
		[ -e "$h" ] || continue
		m=${h##*/}
		run "rmmod-$m" 60 rmmod "$m" ||
			{ fail "rmmod $m: $(rc_text "rmmod-$m")"; return 1; }
	done
	if mod_present ib_uverbs; then
		run rmmod-ib_uverbs 60 rmmod ib_uverbs ||
			{ fail "rmmod ib_uverbs: $(rc_text rmmod-ib_uverbs)"; return 1; }
	fi
	load_stack "$OURS" "${1:-}"
}

test_removal_early_cm() {
	local port=7204 n

	if [ "$(mod_origin rdma_ucm)" != ours ]; then
		skip "stock rdma_ucm: rdma link delete hangs with rdma_cm loaded before ib_uverbs"
		return
	fi
	if dev_exists "$DEV"; then
		run predelete 60 rdma link delete "$DEV" ||
			{ fail "rdma link delete $DEV: $(rc_text predelete)"; return; }
	fi
	removal_reload uverbs_late || return
	setup_transport "$T" || return

	bg server 300 rping -s -a "$ADDR" -p "$port" -V
	bg listener 300 rping -s -a "$ADDR" -p "$((port + 1))"
	bg wildcard 300 rping -s -a 0.0.0.0 -p "$((port + 2))"
	for n in server listener wildcard; do
		wait_ready "$n"
	done
	bg client 300 rping -c -a "$ADDR" -p "$port" -V -v
	removal_delete_under server client listener || return
	proc_running "${PID[wildcard]}" ||
		fail "the wildcard listener exited: $(tail -n 1 wildcard.out)"
	stop_bg wildcard
	expect_no_out wildcard 'device removal'
	info "rdma link delete $DEV, ib_uverbs loaded after rdma_cm: $(rc_text delete)"

	# an unregistration stuck in the kernel would block the reload too
	if grep -qs '^delete ' "$WORK/stuck"; then
		fail "rdma link delete is stuck: the stack stays as it is"
		return
	fi
	removal_reload
}
