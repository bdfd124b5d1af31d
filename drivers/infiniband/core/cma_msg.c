// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Human-readable strings for RDMA CM events and reject reasons.
 */
#include <linux/export.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include "cma_priv.h"

/**
 * rdma_event_msg - Name an RDMA CM event for log messages.
 * @event: the event type
 *
 * Return: a static string describing @event, or "unrecognized event" for
 * a value outside enum rdma_cm_event_type.
 */
const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	/* No default: -Wswitch then flags an event added without a name. */
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		return "address resolved";
	case RDMA_CM_EVENT_ADDR_ERROR:
		return "address error";
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return "route resolved";
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return "route error";
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return "connect request";
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		return "connect response";
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return "connect error";
	case RDMA_CM_EVENT_UNREACHABLE:
		return "unreachable";
	case RDMA_CM_EVENT_REJECTED:
		return "rejected";
	case RDMA_CM_EVENT_ESTABLISHED:
		return "established";
	case RDMA_CM_EVENT_DISCONNECTED:
		return "disconnected";
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return "device removal";
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		return "multicast join";
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return "multicast error";
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return "address change";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return "timewait exit";
	}
	return "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

/**
 * rdma_reject_msg - Describe the reason of a rejected connection.
 * @id: the id that received RDMA_CM_EVENT_REJECTED
 * @reason: the event's status field
 *
 * IB and RoCE report an IB CM reject reason, iWARP a negative errno, so
 * the meaning of @reason depends on the transport of @id's port.
 *
 * Return: a static string; "unrecognized transport" when @id is not bound
 * to an IB, RoCE or iWARP port.
 */
const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	const struct cma_transport_ops *xprt;

	xprt = id->device ? cma_transport_of(id->device, id->port_num) : NULL;
	return xprt ? xprt->reject_msg(reason) : "unrecognized transport";
}
EXPORT_SYMBOL(rdma_reject_msg);

/* Whether a REJECTED event carries the remote consumer's reject. */
static bool cma_is_consumer_reject(struct rdma_cm_id *id,
				   const struct rdma_cm_event *ev)
{
	const struct cma_transport_ops *xprt;

	xprt = id->device ? cma_transport_of(id->device, id->port_num) : NULL;
	return xprt && xprt->consumer_reject(ev);
}

/**
 * rdma_consumer_reject_data - Private data carried by a consumer reject.
 * @id: the id that received @ev
 * @ev: an RDMA_CM_EVENT_REJECTED event
 * @data_len: set to the length of the returned data, 0 when there is none
 *
 * A reject chosen by the remote consumer carries its private data: on IB
 * and RoCE the REJ with reason IB_CM_REJ_CONSUMER_DEFINED, on iWARP the
 * MPA reply with the reject flag (status -ECONNREFUSED, or -ECONNRESET
 * from siw).  Other rejects carry none.  ULPs read their reject status
 * from it (nvme-rdma does).
 *
 * Return: the private data of @ev, or NULL.
 */
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	if (cma_is_consumer_reject(id, ev)) {
		*data_len = ev->param.conn.private_data_len;
		return ev->param.conn.private_data;
	}

	*data_len = 0;
	return NULL;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);
