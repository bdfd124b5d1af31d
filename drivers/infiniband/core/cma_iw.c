// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The iWARP transport of the rdma_cm switch, over iw_cm.
 */
#include "cma_abi.h"
#include "cma_priv.h"

/* An iWARP connection follows the IP route: nothing to resolve. */
static int cma_iw_resolve_route(struct rdma_id_private *id_priv,
				unsigned long timeout_ms)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };

	return cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
			       RDMA_CM_ROUTE_RESOLVED, &event);
}

/*
 * Before iw_cm has an id for the connection, a new QP gets no remote
 * access; after, iw_cm knows the negotiated rights.
 */
static int cma_iw_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret = 0;

	if (id_priv->cm_id.iw) {
		ret = iw_cm_init_qp_attr(id_priv->cm_id.iw, qp_attr,
					 qp_attr_mask);
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	qp_attr->port_num = id_priv->id.port_num;
	*qp_attr_mask |= IB_QP_PORT;
	return ret;
}

const struct cma_transport_ops cma_iw_transport = {
	.name		= "iw_cm",
	.resolve_route	= cma_iw_resolve_route,
	.init_qp_attr	= cma_iw_init_qp_attr,
};
