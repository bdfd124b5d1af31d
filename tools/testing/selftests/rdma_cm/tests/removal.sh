# SPDX-License-Identifier: GPL-2.0
#
# Device removal under traffic: an endless rping runs between server and
# client when `rdma link delete` removes the device.  DEVICE_REMOVAL must
# reach both rping processes ("cma detected device removal!!!!"), they
# exit and close their verbs files, and the delete completes (stock: in
# about 1 s with ib_uverbs loaded before rdma_cm, stock-baseline 4.5).
# Runs last on a transport: the device is gone afterwards.

test_removal() {
	local port=7202 deadline n

	bg server 300 rping -s -a "$ADDR" -p "$port" -V
	wait_ready server
	bg client 300 rping -c -a "$ADDR" -p "$port" -V -v
	deadline=$((SECONDS + $(tmo 60)))
	until [ "$(grep -c '^ping data: ' client.out)" -ge 3 ]; do
		if [ "$SECONDS" -ge "$deadline" ] || ! proc_running "${PID[client]}"; then
			fail "rping traffic did not start"
			return
		fi
		nap 0.2
	done
	run delete 60 rdma link delete "$DEV"
	expect_rc delete 0
	dev_exists "$DEV" && fail "$DEV still exists after rdma link delete"
	for n in server client; do
		wait_bg "$n" 30
		case ${RC[$n]} in
		124) fail "$n rping still running $(tmo 30) s after the removal" ;;
		esac
		expect_out "$n" 'cma detected device removal!!!!'
	done
	info "rdma link delete $DEV under rping traffic: $(rc_text delete)"
}
