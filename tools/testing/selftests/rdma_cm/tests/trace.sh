# SPDX-License-Identifier: GPL-2.0
#
# trace: rdma_cm's tracepoints, system rdma_cma, as perf, trace-cmd and
# bpftrace scripts written for stock Linux 6.1 use them.
#  - the system has exactly stock's 19 events, made of stock's event
#    classes: BPF programs name an event's record by its class (struct
#    trace_event_raw_<class> in the module's BTF); the names are read
#    from /proc/kallsyms, as the class's trace_raw_output_<class>.  Ours
#    named three of them cma_step, cma_qp_step and cma_device before.
#  - on our rdma_cm, every event's format file (fields, types, offsets,
#    print format; not the event's number) equals stock rdma_cm's, read
#    after loading the stock module in its place;
#  - with the events on, kclient's conn and reject cases (and ud on rxe)
#    and an `rdma link delete` with the device set up again leave the
#    events a connection produces: attach with the device name, QP
#    create/destroy, CONNECT_REQUEST and ESTABLISHED with the consumer's
#    return, destroy, device remove/add; over IB CM (rxe) also REQ, REQ
#    handler, REP, RTU, DREQ, DREP, REJ and the SIDR REQ/REP; none of
#    those over iWARP (siw).
# Stock (rxe and siw): as above (the format comparison needs our rdma_cm
# and so does not run).

TRACE_EVENTS="cm_add_one cm_disconnect cm_event_done cm_event_handler
cm_id_attach cm_id_destroy cm_qp_create cm_qp_destroy cm_remove_one
cm_req_handler cm_send_mra cm_send_rej cm_send_rep cm_send_req cm_send_rtu
cm_send_sidr_rep cm_send_sidr_req cm_sent_drep cm_sent_dreq"
TRACE_CLASSES="cm_event_done cm_event_handler cm_id_attach cm_qp_create
cm_req_handler cma_client_class cma_fsm_class cma_qp_class"
TRACE_FS=/sys/kernel/tracing

# The event classes of the loaded rdma_cm, by their output functions.
trace_classes() {
	sed -n 's/^[0-9a-f]* [tT] trace_raw_output_\([a-z0-9_]*\)\t\[rdma_cm\]$/\1/p' \
		/proc/kallsyms | sort | xargs
}

# Every rdma_cma event's format, without its number.
trace_formats() {
	local e

	for e in "$TRACE_FS"/events/rdma_cma/cm_*; do
		echo "== ${e##*/}"
		grep -v '^ID: ' "$e/format"
	done
}

# The stock rdma_cm's formats, with our iw_cm and rdma_ucm kept.
trace_stock_formats() {
	local m stock=

	for m in $OURS; do
		[ "$m" = rdma_cm ] || stock+=" $m"
	done
	load_stack "$stock" || return
	trace_formats > formats.stock
	load_stack "$OURS"
}

test_trace() {
	local a=${ADDR//./\\.} ev id re

	if [ -z "$KCLIENT" ] || [ ! -f "$KCLIENT" ]; then
		skip "no rdma_cm_kclient.ko (RDMACM_KCLIENT)"
		return
	fi
	if [ ! -d "$TRACE_FS/events" ]; then
		run mount 30 mount -t tracefs nodev "$TRACE_FS"
		[ -d "$TRACE_FS/events" ] || { skip "no tracefs"; return; }
	fi
	if [ ! -d "$TRACE_FS/events/rdma_cma" ]; then
		fail "no rdma_cma events in $TRACE_FS/events"
		return
	fi
	ev=$(find "$TRACE_FS/events/rdma_cma" -mindepth 1 -maxdepth 1 -type d \
		-printf '%f\n' | sort | xargs)
	[ "$ev" = "$(echo $TRACE_EVENTS)" ] ||
		fail "rdma_cma events: '$ev', expected '$(echo $TRACE_EVENTS)'"
	ev=$(trace_classes)
	if [ -z "$ev" ]; then
		info "no trace_raw_output_* of rdma_cm in /proc/kallsyms: classes not checked"
	elif [ "$ev" != "$(echo $TRACE_CLASSES)" ]; then
		fail "rdma_cma event classes: '$ev', expected '$(echo $TRACE_CLASSES)'"
	fi

	# The formats do not depend on the transport: compare them once a run
	# (a stock reload and back costs 20 s in the debug guest).
	if [ -e "$WORK/.trace-formats" ]; then
		info "formats compared in $(cat "$WORK/.trace-formats") of this run"
	elif [ "$(mod_origin rdma_cm)" = ours ]; then
		echo "$T.trace" > "$WORK/.trace-formats"
		trace_formats > formats.ours
		trace_stock_formats || return
		diff -u formats.stock formats.ours > formats.diff ||
			{
				fail "event formats differ from stock rdma_cm's"
				diag_tail formats.diff 20
			}
	fi

	echo > "$TRACE_FS/trace"
	echo 1 > "$TRACE_FS/events/rdma_cma/enable"
	kclient_case trace-conn conn port=7380 &&
	kclient_case trace-reject reject port=7381 &&
	if [ "$T" != siw ]; then
		kclient_case trace-ud ud port=7382
	fi
	run delete 60 rdma link delete "$DEV"
	expect_rc delete 0
	echo 0 > "$TRACE_FS/events/rdma_cma/enable"
	cp "$TRACE_FS/trace" trace.out
	echo > "$TRACE_FS/trace"
	setup_transport "$T" || fail "cannot create $DEV again"
	failed && return

	id='cm\.id=[0-9]+'
	expect_out trace " cm_id_attach: $id src=$a:7380 dst=.* device=$DEV\$"
	re=" cm_qp_create: $id src=$a:[0-9]+ dst=$a:7380 tos=0 pd\.id=[0-9]+ qp_type=RC"
	re+=" send_wr=[1-9][0-9]* recv_wr=[1-9][0-9]* qp_num=[1-9][0-9]* rc=0\$"
	expect_out trace "$re"
	expect_out trace \
		" cm_event_handler: $id src=$a:7380 dst=$a:[0-9]+ tos=0 CONNECT_REQUEST \\(4/0\\)\$"
	re=" cm_event_done: $id src=$a:[0-9]+ dst=$a:7380 tos=0 ESTABLISHED"
	expect_out trace "$re consumer returns 0\$"
	expect_out trace " cm_event_handler: $id src=$a:[0-9]+ dst=$a:7381 tos=0 REJECTED "
	expect_out trace " cm_qp_destroy: $id src=$a:[0-9]+ dst=$a:7380 tos=0 qp_num=[1-9][0-9]*\$"
	expect_out trace " cm_id_destroy: $id src=$a:7380 "
	expect_out trace " cm_remove_one: device name=$DEV\$"
	if [ "$T" = siw ]; then
		expect_no_out trace " cm_(send|sent|req_handler|disconnect)"
		label "events and formats as stock; no IB CM steps"
		return
	fi
	expect_out trace " cm_send_req: $id src=$a:[0-9]+ dst=$a:7380 tos=0 qp_num=[1-9][0-9]*\$"
	expect_out trace " cm_req_handler: $id src=$a:7380 dst=.* tos=0 REQ_RECEIVED \\([0-9]+\\)\$"
	expect_out trace " cm_send_rep: $id src=$a:7380 dst=$a:[0-9]+ tos=0 qp_num=[1-9][0-9]*\$"
	expect_out trace " cm_send_rtu: $id src=$a:[0-9]+ dst=$a:7380 tos=0\$"
	expect_out trace " cm_disconnect: $id src=$a:[0-9]+ dst=$a:7380 "
	expect_out trace " cm_sent_dreq: $id src=$a:[0-9]+ dst=$a:7380 "
	expect_out trace " cm_sent_drep: $id src=$a:7380 dst=$a:[0-9]+ "
	expect_out trace " cm_send_rej: $id src=$a:7381 dst=$a:[0-9]+ "
	expect_out trace " cm_send_sidr_req: $id src=$a:[0-9]+ dst=$a:7382 "
	expect_out trace " cm_send_sidr_rep: $id src=$a:7382 dst=$a:[0-9]+ "
	label "events and formats as stock"
}
