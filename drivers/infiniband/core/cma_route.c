// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Route resolution: from a resolved address to the path a connection
 * takes.  The work is the transport's (cma_transport_ops.resolve_route);
 * this file has the core's part and the RoCE path record, which needs
 * no query: it is built from the netdev the address resolved to.
 */
#include "core_priv.h"
#include "cma_priv.h"

/* The packet lifetime of RoCE paths: 4.096 us * 2^18, about 1 s. */
#define CMA_ROCE_PACKET_LIFETIME	18

/* RoCE v2 flow label: the IPv6 one if set, else a hash of the ports. */
static __be32 cma_roce_flow_label(struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	u32 fl = 0;

	if (src->sa_family == AF_INET6)
		fl = be32_to_cpu(((struct sockaddr_in6 *)src)->sin6_flowinfo) &
		     IB_GRH_FLOWLABEL_MASK;
	if (!fl)
		fl = ((u32)cma_addr_port(src) * 31 +
		      cma_addr_port(cma_dst_addr(id_priv))) &
		     IB_GRH_FLOWLABEL_MASK;
	return cpu_to_be32(fl);
}

/* The Ethernet fields of a RoCE path record: type and next hop's MAC. */
static void cma_roce_fill_l2(struct rdma_id_private *id_priv,
			     struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	u32 port = id_priv->id.port_num;
	int def = cma_dev_default_gid_type(id_priv->cma_dev, port);
	enum ib_gid_type gid_type;

	gid_type = cma_roce_route_gid_type(dev_addr->network,
					   roce_gid_type_mask_support(id_priv->id.device,
								      port),
					   def < 0 ? IB_GID_TYPE_IB : def);
	path->rec_type = sa_conv_gid_to_pathrec_type(gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, id_priv->id.route.addr.dev_addr.dst_dev_addr);
}

/**
 * cma_roce_path_l2 - Fill the Ethernet fields of a RoCE path record.
 * @id_priv: the id, with its address resolved on a RoCE port
 * @path: the record
 *
 * Return: 0, or -ENODEV if the id's netdev is gone.
 */
int cma_roce_path_l2(struct rdma_id_private *id_priv, struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net_device *ndev;

	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	dev_put(ndev);
	cma_roce_fill_l2(id_priv, path);
	return 0;
}

/**
 * cma_roce_path - Fill a path record for a RoCE id from its addresses.
 * @id_priv: the id, with its address resolved on a RoCE port
 * @path: the record to fill, zeroed by the caller
 *
 * Return: 0, -ENODEV if the id's netdev is gone, or -EINVAL if its MTU
 * is too small for RoCE.
 */
int cma_roce_path(struct rdma_id_private *id_priv, struct sa_path_rec *path)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev = id_priv->cma_dev;
	u32 port = id_priv->id.port_num;
	struct net_device *ndev;
	int tos;

	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	cma_roce_fill_l2(id_priv, path);

	tos = cma_dev_default_roce_tos(cma_dev, port);
	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->tos_set)
		tos = id_priv->tos;
	path->packet_life_time = id_priv->timeout_set && id_priv->timeout ?
				 id_priv->timeout - 1 :
				 CMA_ROCE_PACKET_LIFETIME;
	mutex_unlock(&id_priv->qp_mutex);

	rdma_ip2gid(cma_src_addr(id_priv), &path->sgid);
	rdma_ip2gid(cma_dst_addr(id_priv), &path->dgid);
	path->hop_limit = cma_dst_addr(id_priv)->sa_family == AF_IB ?
			  1 : dev_addr->hoplimit;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->sl = cma_roce_tos_to_sl(ndev, tos < 0 ? 0 : tos);
	path->traffic_class = tos < 0 ? 0 : tos;
	path->mtu = iboe_get_mtu(ndev->mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	dev_put(ndev);
	if (!path->mtu)
		return -EINVAL;
	if (rdma_protocol_roce_udp_encap(id_priv->id.device, port))
		path->flow_label = cma_roce_flow_label(id_priv);
	return 0;
}

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
