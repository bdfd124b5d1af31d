#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make profile`'s guest job: one ucma_bench figure on the stock stack,
# then on ours, each started only once the host's debugger has set its
# breakpoints (qemu/insn-profile.sh counts the instructions of what it
# traces).  The job publishes each stack's /proc/kallsyms, where its
# modules were loaded, as kallsyms.ORIGIN in the results directory and
# waits for the host to create go.ORIGIN there.
#
# Arguments NAME=VALUE (comma-separated, from make profile's
# PROFILE_NAME):
#   FIGURE     ucma_bench figure (-f), default route_batch
#   EVENTS     its ids or events (-e), default 400
#   TRANSPORT  rxe or siw, default siw
set -u
# shellcheck source=perf_lib.sh
. "$(dirname "$0")/perf_lib.sh"

FIGURE=route_batch EVENTS=400 TRANSPORT=siw
perf_args "FIGURE EVENTS TRANSPORT" "$@"
perf_start "$PERF_RESULTS/work-profile" 7

# Under -icount an idle guest's clock jumps to its next timer, so a
# guest second of this wait passes in a few host milliseconds: the
# bound is in polls, generous for a host that attaches in seconds.
HOLD_POLLS=100000

held_figure() { # ORIGIN
	local i
	cp /proc/kallsyms "$PERF_RESULTS/kallsyms.$1" || return 1
	for ((i = 0; i < HOLD_POLLS; i++)); do
		[ -e "$PERF_RESULTS/go.$1" ] && break
		sleep 1
	done
	[ -e "$PERF_RESULTS/go.$1" ] || { fail "the host never said go"; return 1; }
	run ucma_bench 900 "$BIN/ucma_bench" -f "$FIGURE" -e "$EVENTS" -a "$ADDR"
	expect_rc ucma_bench 0
	! failed
}

run_case build build_tools ucma_bench
set_transport "$TRANSPORT"
for o in stock ours; do
	if run_case "$o.up" stack_up "$o"; then
		run_case "$o.figure" held_figure "$o"
	else
		case_not_run "$o.figure" "stack did not come up"
	fi
	run_case "$o.down" stack_down
done
ktap_totals
