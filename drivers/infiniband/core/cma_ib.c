// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The InfiniBand transport of the rdma_cm switch: ib_cm on the wire,
 * paths and multicast groups from the SA.  RoCE speaks ib_cm too, with
 * paths rdma_cm builds from the resolved addresses (cma_roce.c).
 */
#include <linux/if_arp.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"

/* The Q_Key of a UD id, derived from the port space as peers expect. */
int cma_ib_qkey(struct rdma_id_private *id_priv)
{
	struct ib_sa_mcmember_rec rec;
	int ret;

	switch (id_priv->id.ps) {
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
		id_priv->qkey = RDMA_UDP_QKEY;
		return 0;
	case RDMA_PS_IPOIB:
		ib_addr_get_mgid(&id_priv->id.route.addr.dev_addr, &rec.mgid);
		ret = ib_sa_get_mcmember_rec(id_priv->id.device,
					     id_priv->id.port_num, &rec.mgid,
					     &rec);
		if (!ret)
			id_priv->qkey = be32_to_cpu(rec.qkey);
		return ret;
	default:
		return 0;
	}
}

/*
 * QP attributes: from ib_cm once it has an id for a connected QP; before
 * that (and always for UD) the index of @pkey, the port and the Q_Key or
 * access rights of INIT.
 */
int cma_ib_cm_init_qp_attr(struct rdma_id_private *id_priv, u16 pkey,
			   struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_cm_id *id = &id_priv->id;
	int ret;

	if (id_priv->cm_id.ib && id->qp_type != IB_QPT_UD) {
		ret = ib_cm_init_qp_attr(id_priv->cm_id.ib, qp_attr,
					 qp_attr_mask);
		if (ret)
			return ret;
		goto out;
	}

	ret = ib_find_cached_pkey(id->device, id->port_num, pkey,
				  &qp_attr->pkey_index);
	if (ret)
		return ret;
	qp_attr->port_num = id->port_num;
	*qp_attr_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (id->qp_type == IB_QPT_UD) {
		ret = cma_ib_qkey(id_priv);
		if (ret)
			return ret;
		qp_attr->qkey = id_priv->qkey;
		*qp_attr_mask |= IB_QP_QKEY;
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask |= IB_QP_ACCESS_FLAGS;
	}
out:
	/* The receive PSN the REQ or REP announced. */
	if (qp_attr->qp_state == IB_QPS_RTR)
		qp_attr->rq_psn = id_priv->seq_num;
	return 0;
}

/* An IB id's QP is in the partition of its IPoIB address. */
static int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	return cma_ib_cm_init_qp_attr(id_priv, ib_addr_get_pkey(dev_addr),
				      qp_attr, qp_attr_mask);
}

/* An IB port carries IPoIB addresses, whose hardware address has the GID. */
static const struct ib_gid_attr *
cma_ib_src_gid_attr(struct rdma_id_private *id_priv,
		    struct cma_device *cma_dev, u32 port)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	union ib_gid gid;

	if (dev_addr->dev_type != ARPHRD_INFINIBAND)
		return ERR_PTR(-ENODEV);
	rdma_addr_get_sgid(dev_addr, &gid);
	return rdma_find_gid_by_port(cma_dev->device, &gid, IB_GID_TYPE_IB,
				     port, NULL);
}

/* InfiniBand: routes and multicast groups come from the SA. */
const struct cma_transport_ops cma_ib_transport = {
	.name		= "ib_cm",
	.resolve_route	= cma_sa_resolve_route,
	.join		= cma_sa_join,
	.leave		= cma_sa_leave,
	.listen		= cma_ib_listen,
	.connect	= cma_ib_connect,
	.accept		= cma_ib_accept,
	.reject		= cma_ib_reject,
	.disconnect	= cma_ib_disconnect,
	.notify		= cma_ib_notify,
	.init_qp_attr	= cma_ib_init_qp_attr,
	.destroy	= cma_ib_destroy,
	.src_gid_attr	= cma_ib_src_gid_attr,
	.read_gids	= cma_dev_addr_gids,
	.req_netdev	= cma_ib_req_netdev,
	.reject_msg	= ibcm_reject_msg,
	.consumer_reject = cma_ib_consumer_reject,
	.dev_type	= ARPHRD_INFINIBAND,
	.af_ib		= true,
};
