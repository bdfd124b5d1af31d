// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Route resolution: from a resolved address to the path a connection
 * takes.  The work is the transport's (cma_transport_ops.resolve_route);
 * this file has the core's part.
 */
#include "core_priv.h"
#include "cma_priv.h"

/**
 * cma_route_reset - Forget the id's path records.
 * @id_priv: the id
 */
void cma_route_reset(struct rdma_id_private *id_priv)
{
	struct rdma_route *route = &id_priv->id.route;

	kfree(route->path_rec);
	kfree(route->path_rec_inbound);
	kfree(route->path_rec_outbound);
	route->path_rec = NULL;
	route->path_rec_inbound = NULL;
	route->path_rec_outbound = NULL;
	route->num_pri_alt_paths = 0;
}

/**
 * rdma_resolve_route - Resolve the route to an already resolved address.
 * @id: the id, in ADDR_RESOLVED
 * @timeout_ms: time allowed for the resolution (IB path query)
 *
 * May be called from the id's ADDR_RESOLVED handler.  Completion is
 * reported by RDMA_CM_EVENT_ROUTE_RESOLVED or RDMA_CM_EVENT_ROUTE_ERROR.
 *
 * Return: 0 if the resolution was started, or a negative errno: -EINVAL
 * for a zero timeout or another state, -EOPNOTSUPP where the id's
 * transport cannot resolve routes yet, the transport's error otherwise.
 */
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;
	int ret;

	if (!timeout_ms)
		return -EINVAL;
	ret = cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			    RDMA_CM_ROUTE_QUERY);
	if (ret)
		return ret;

	/*
	 * Once the transport succeeds its result may have been delivered,
	 * and the id destroyed by its handler's return: do not touch the id
	 * then.  A transport that fails has delivered nothing.
	 */
	if (xprt && xprt->resolve_route)
		ret = xprt->resolve_route(id_priv, timeout_ms);
	else
		ret = -EOPNOTSUPP;
	if (ret)
		cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
			      RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_route);

/**
 * rdma_set_ib_path - Supply the path record instead of resolving a route.
 * @id: the id, in ADDR_RESOLVED
 * @path_rec: the path record to use; copied
 *
 * The id moves to ROUTE_RESOLVED at once, without an event.  On a RoCE
 * port the record's Ethernet fields are filled from the resolved
 * address.
 *
 * Return: 0, -EINVAL in another state, -ENOMEM, or the transport's
 * error (-ENODEV when a RoCE id's netdev is gone).
 */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;
	struct sa_path_rec *path;
	int ret;

	ret = cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			    RDMA_CM_ROUTE_RESOLVED);
	if (ret)
		return ret;

	path = kmemdup(path_rec, sizeof(*path_rec), GFP_KERNEL);
	if (!path) {
		ret = -ENOMEM;
		goto err;
	}
	if (xprt && xprt->set_path) {
		ret = xprt->set_path(id_priv, path);
		if (ret) {
			kfree(path);
			goto err;
		}
	}
	cma_route_reset(id_priv);
	id->route.path_rec = path;
	id->route.num_pri_alt_paths = 1;
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_set_ib_path);
