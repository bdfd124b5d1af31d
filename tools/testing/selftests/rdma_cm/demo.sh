#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: load the stack (our modules named in RDMACM_OURS, stock for
# the rest) and run rping over siw (iWARP) and rxe (RoCE) with librdmacm's
# debug output, so every CM event shows up as it happens.
set -u

SELFTEST_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$SELFTEST_DIR/lib.sh"

WORK=$(mktemp -d /tmp/rdma_cm_demo.XXXXXX)
OURS=${RDMACM_OURS:-}

# Print a server and a client rping, each line tagged, as they run.
rping_live() {
	local srv rc

	stdbuf -oL -eL timeout 120 rping -s -a "$ADDR" -C 5 -v -d 2>&1 |
		sed -u 's/^/  server| /' &
	srv=$!
	sleep 2
	stdbuf -oL -eL timeout 120 rping -c -a "$ADDR" -C 5 -v -d 2>&1 |
		sed -u 's/^/  client| /'
	rc=${PIPESTATUS[0]}
	wait "$srv"
	[ "$rc" = 0 ] || fail "rping client exit code $rc"
}

ktap_plan 8
diag "stack: ours: ${OURS:-none (all stock)}"
run_case stack.load load_stack "$OURS"
for t in siw rxe; do
	set_transport "$t"
	run_case "$t.setup" setup_transport "$t"
	echo "# === rping over $DEV ($t) on $NETDEV $ADDR"
	# Live output: not through run_case, which keeps output in files.
	T_DIR=$WORK/$t.rping
	mkdir -p "$T_DIR"
	rping_live
	case_report "$t.rping" "$T_DIR"
	run_case "$t.teardown" teardown_transport "$t"
done
run_case stack.unload unload_stack all
ktap_totals
[ "$N_FAIL" = 0 ]
