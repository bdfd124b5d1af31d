// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_cm's SA client.  On InfiniBand ports the route to a destination is
 * the path record the subnet administrator answers for the source and
 * destination GIDs, the P_Key and the service id; a multicast group is
 * joined through the SA's multicast service, with the MGID an IP group
 * maps to (cma_ib_mgid(), the mapping every rdma_cm member of the group
 * must share).
 *
 * The SA's answer is only copied in its callback; the route
 * changes, together with the id's state, under the id's handler_mutex in
 * the work item that delivers ROUTE_RESOLVED or ROUTE_ERROR, so that a
 * consumer never sees a half-written path record.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_user_sa.h>

#include "cma_priv.h"

static struct ib_sa_client cma_sa_client;

/* A path query in flight: holds a reference on its id. */
struct cma_path_query {
	struct work_struct	work;
	struct rdma_id_private	*id_priv;
	int			status;
	struct sa_path_rec	path;		/* primary (GMP) */
	struct sa_path_rec	inbound;
	struct sa_path_rec	outbound;
	u8			have_path:1;
	u8			have_inbound:1;
	u8			have_outbound:1;
};

/* The SA's answer: only copied here. */
static void cma_sa_path_done(int status, struct sa_path_rec *recs,
			     int num, void *context)
{
	struct cma_path_query *q = context;
	int i;

	for (i = 0; !status && i < num; i++) {
		if (!recs[i].flags || (recs[i].flags & IB_PATH_GMP)) {
			q->path = recs[i];
			q->have_path = 1;
		} else if (recs[i].flags & IB_PATH_INBOUND) {
			q->inbound = recs[i];
			q->have_inbound = 1;
		} else if (recs[i].flags & IB_PATH_OUTBOUND) {
			q->outbound = recs[i];
			q->have_outbound = 1;
		}
	}
	if (!status && !q->have_path)
		status = -EINVAL;
	q->status = status;
	cma_queue_work(&q->work);
}

/* Install the answer as the id's route. */
static int cma_sa_route_set(struct rdma_id_private *id_priv,
			    const struct cma_path_query *q)
{
	struct rdma_route *route = &id_priv->id.route;
	struct sa_path_rec *path, *in = NULL, *out = NULL;

	path = kmemdup(&q->path, sizeof(q->path), GFP_KERNEL);
	if (q->have_inbound)
		in = kmemdup(&q->inbound, sizeof(q->inbound), GFP_KERNEL);
	if (q->have_outbound)
		out = kmemdup(&q->outbound, sizeof(q->outbound), GFP_KERNEL);
	if (!path || (q->have_inbound && !in) ||
	    (q->have_outbound && !out)) {
		kfree(path);
		kfree(in);
		kfree(out);
		return -ENOMEM;
	}
	cma_route_reset(id_priv);
	route->path_rec = path;
	route->path_rec_inbound = in;
	route->path_rec_outbound = out;
	route->num_pri_alt_paths = 1;
	return 0;
}

static void cma_sa_path_work(struct work_struct *work)
{
	struct cma_path_query *q = container_of(work, struct cma_path_query,
						work);
	struct rdma_id_private *id_priv = q->id_priv;
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	int status = q->status;

	mutex_lock(&id_priv->handler_mutex);
	/* Destroyed or removed meanwhile: nobody to tell. */
	if (READ_ONCE(id_priv->state) != RDMA_CM_ROUTE_QUERY)
		goto out;
	id_priv->query = NULL;
	if (!status)
		status = cma_sa_route_set(id_priv, q);
	if (status) {
		pr_debug_ratelimited("rdma_cm: path query failed: %d\n", status);
		event.event = RDMA_CM_EVENT_ROUTE_ERROR;
		event.status = status;
	}
	if (cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
			  status ? RDMA_CM_ADDR_RESOLVED :
				   RDMA_CM_ROUTE_RESOLVED))
		goto out;
	kfree(q);
	cma_deliver_put_unlock(id_priv, &event);
	return;
out:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
	kfree(q);
}

/**
 * cma_sa_resolve_route - Ask the SA for the path of an IB id.
 * @id_priv: the id, in ROUTE_QUERY, its addresses resolved to GIDs
 * @timeout_ms: how long the SA may take
 *
 * Return: 0 once the query is out (ROUTE_RESOLVED or ROUTE_ERROR
 * follows), or a negative errno.
 */
int cma_sa_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct sockaddr *src = cma_src_addr(id_priv);
	struct rdma_cm_id *id = &id_priv->id;
	struct cma_path_query *q;
	struct sa_path_rec rec = {};
	ib_sa_comp_mask mask;
	int ret;

	rec.rec_type = rdma_cap_opa_ah(id->device, id->port_num) ?
		       SA_PATH_REC_TYPE_OPA : SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(dev_addr, &rec.sgid);
	rdma_addr_get_dgid(dev_addr, &rec.dgid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.numb_path = 1;
	rec.reversible = 1;
	rec.service_id = rdma_get_service_id(id, cma_dst_addr(id_priv));
	mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
	       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
	       IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;
	/* The QoS asked for: IPv4 ToS as QoS class, else the traffic class. */
	switch (src->sa_family) {
	case AF_INET:
		rec.qos_class = cpu_to_be16(id_priv->tos);
		mask |= IB_SA_PATH_REC_QOS_CLASS;
		break;
	case AF_INET6:
		rec.traffic_class =
			be32_to_cpu(cma_sin6(src)->sin6_flowinfo) >> 20;
		mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
		break;
	case AF_IB:
		rec.traffic_class = be32_to_cpu(((const struct sockaddr_ib *)
						 src)->sib_flowinfo) >> 20;
		mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
		break;
	}

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	INIT_WORK(&q->work, cma_sa_path_work);
	q->id_priv = id_priv;
	cma_id_get(id_priv);	/* the query's */
	/* The answer may destroy the id before the query id is stored. */
	cma_id_get(id_priv);
	ret = ib_sa_path_rec_get(&cma_sa_client, id->device, id->port_num,
				 &rec, mask, timeout_ms, GFP_KERNEL,
				 cma_sa_path_done, q, &id_priv->query);
	if (ret < 0) {
		id_priv->query = NULL;
		cma_id_put(id_priv);
		kfree(q);
	} else {
		id_priv->query_id = ret;
		ret = 0;
	}
	cma_id_put(id_priv);
	return ret;
}

/**
 * cma_sa_cancel - Cancel the id's path query, if one is in flight.
 * @id_priv: the id, being destroyed or removed from its device
 *
 * The query's callback still runs (with -EINTR) and its work finds the
 * id destroyed or removed; destroy waits for the reference it holds.
 */
void cma_sa_cancel(struct rdma_id_private *id_priv)
{
	if (id_priv->query)
		ib_sa_cancel_query(id_priv->query_id, id_priv->query);
}

void __init cma_sa_init(void)
{
	ib_sa_register_client(&cma_sa_client);
}

void cma_sa_exit(void)
{
	ib_sa_unregister_client(&cma_sa_client);
}

/* MULTICAST_JOIN or MULTICAST_ERROR for the SA's answer. */
static void cma_sa_mc_event(struct rdma_id_private *id_priv, int status,
			    struct ib_sa_multicast *sa_mc,
			    struct cma_multicast *mc,
			    struct rdma_cm_event *event)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	u32 qkey = be32_to_cpu(sa_mc->rec.qkey);
	struct net_device *ndev;

	event->param.ud.private_data = mc->context;
	/* The group's Q_Key must be the id's (or becomes it): one per UD QP. */
	if (!status && (!qkey || (id_priv->qkey && id_priv->qkey != qkey)))
		status = -EINVAL;
	if (status)
		goto error;
	id_priv->qkey = qkey;
	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	status = ib_init_ah_from_mcmember(id_priv->id.device,
					  id_priv->id.port_num, &sa_mc->rec,
					  ndev,
					  cma_dev_default_gid_type(id_priv->cma_dev,
								   id_priv->id.port_num),
					  &event->param.ud.ah_attr);
	dev_put(ndev);
	if (status)
		goto error;
	event->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	event->param.ud.qp_num = 0xffffff;	/* the multicast QPN */
	event->param.ud.qkey = qkey;
	return;
error:
	pr_debug_ratelimited("rdma_cm: multicast join failed: %d\n", status);
	event->event = RDMA_CM_EVENT_MULTICAST_ERROR;
	event->status = status;
}

/*
 * The SA's callback: the join's result, or later an error for a joined
 * group.  It must return 0 (non-zero makes ib_sa free the member, which
 * the leave does); a leave waits for it.
 */
static int cma_sa_mc_done(int status, struct ib_sa_multicast *sa_mc)
{
	struct cma_multicast *mc = sa_mc->context;
	struct rdma_id_private *id_priv = mc->id_priv;
	struct rdma_cm_event event = {};

	mutex_lock(&id_priv->handler_mutex);
	if (cma_id_live(id_priv)) {
		cma_sa_mc_event(id_priv, status, sa_mc, mc, &event);
		cma_mcast_deliver(id_priv, &event);
		rdma_destroy_ah_attr(&event.param.ud.ah_attr);
	}
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/**
 * cma_sa_join - Join a multicast group through the SA.
 * @id_priv: a UD id on an InfiniBand port
 * @mc: the group, not yet on the id's list
 *
 * The member record starts from the port's IPoIB broadcast group (rate,
 * MTU, SL, flow label, traffic class, hop limit): the parameters the
 * subnet manager gave the partition.
 *
 * Return: 0 once the join is sent (MULTICAST_JOIN or MULTICAST_ERROR
 * follows), or a negative errno.
 */
int cma_sa_join(struct rdma_id_private *id_priv, struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	int ret;

	ib_addr_get_mgid(dev_addr, &rec.mgid);
	ret = ib_sa_get_mcmember_rec(id_priv->id.device, id_priv->id.port_num,
				     &rec.mgid, &rec);
	if (ret)
		return ret;
	if (!id_priv->qkey) {
		ret = cma_ib_qkey(id_priv);
		if (ret)
			return ret;
	}
	cma_ib_mgid((struct sockaddr *)&mc->addr, dev_addr->broadcast,
		    id_priv->id.ps == RDMA_PS_UDP, &rec.mgid);
	rec.qkey = cpu_to_be32(id_priv->qkey);
	rdma_addr_get_sgid(dev_addr, &rec.port_gid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.join_state = mc->join_state;
	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
	       IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
	if (id_priv->id.ps == RDMA_PS_IPOIB)
		mask |= IB_SA_MCMEMBER_REC_RATE |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU | IB_SA_MCMEMBER_REC_HOP_LIMIT;

	mc->sa_mc = ib_sa_join_multicast(&cma_sa_client, id_priv->id.device,
					 id_priv->id.port_num, &rec, mask,
					 GFP_KERNEL, cma_sa_mc_done, mc);
	if (IS_ERR(mc->sa_mc)) {
		ret = PTR_ERR(mc->sa_mc);
		mc->sa_mc = NULL;
		return ret;
	}
	return 0;
}

/**
 * cma_sa_leave - Leave a group joined by cma_sa_join().
 * @id_priv: the id
 * @mc: the group, off the id's list
 *
 * Waits for the SA's callback if it is running.
 */
void cma_sa_leave(struct rdma_id_private *id_priv, struct cma_multicast *mc)
{
	if (mc->sa_mc)
		ib_sa_free_multicast(mc->sa_mc);
}
