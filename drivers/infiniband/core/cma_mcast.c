// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast: rdma_join_multicast() and rdma_leave_multicast() keep the
 * id's list of groups and hand each join and leave to the transport.
 * On RoCE a join needs no SA: the group's record is built from the IP
 * group address and the netdev, a RoCE v2 full member also joins the
 * IPv4 group on the netdev (so IGMP tells the switches), and the join
 * is reported from a work item.  IB joins go to the SA (cma_sa.c).
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/ipv6.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"

/**
 * cma_mcast_deliver - Deliver a multicast event, under handler_mutex.
 * @id_priv: the joining id, live
 * @event: the event
 *
 * A non-zero return cannot destroy the id here: destroy (through the
 * leave) waits for the very work or SA callback delivering it.  It is
 * ignored, and the consumer is told in the log.
 */
void cma_mcast_deliver(struct rdma_id_private *id_priv,
		       struct rdma_cm_event *event)
{
	if (cma_deliver(id_priv, event))
		pr_warn_once("rdma_cm: a multicast event handler returned non-zero; ignored\n");
}

/* A RoCE join's work: deliver the event cma_roce_join() prepared. */
static void cma_mcast_work(struct work_struct *work)
{
	struct cma_multicast *mc = container_of(work, struct cma_multicast,
						work);
	struct rdma_id_private *id_priv = mc->id_priv;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_id_live(id_priv))
		cma_mcast_deliver(id_priv, &mc->event);
	mutex_unlock(&id_priv->handler_mutex);
}

/*
 * The RoCE multicast GID of an IP group: an IPv6 group as is; an IPv4
 * one IPv4-mapped for RoCE v2, or in ff0e::ffff:0:0/96 for RoCE v1.
 */
static void cma_roce_mgid(const struct sockaddr *addr, union ib_gid *mgid,
			  enum ib_gid_type gid_type)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

	memset(mgid, 0, sizeof(*mgid));
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw,
		       &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
		return;
	}
	if (gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &sin->sin_addr.s_addr, 4);
}

/* Join or leave the IPv4 group of @mgid on the netdev @ifindex. */
static int cma_igmp(struct net *net, int ifindex, const union ib_gid *mgid,
		    bool join)
{
	struct net_device *ndev;
	struct in_device *in_dev;
	__be32 group;
	int ret = -ENODEV;

	memcpy(&group, &mgid->raw[12], sizeof(group));
	rtnl_lock();
	ndev = __dev_get_by_index(net, ifindex);
	in_dev = ndev ? __in_dev_get_rtnl(ndev) : NULL;
	if (in_dev) {
		if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
		ret = 0;
	}
	rtnl_unlock();
	return ret;
}

/**
 * cma_roce_join - Join an IP multicast group on a RoCE port.
 * @id_priv: a UD id attached to a RoCE port
 * @mc: the group, not yet on the id's list
 *
 * Return: 0 once MULTICAST_JOIN is queued, or a negative errno:
 * -EINVAL for the zero address or a port whose MTU RoCE cannot use,
 * -ENODEV without a netdev, -EOPNOTSUPP for IPv6 groups on RoCE v2.
 */
int cma_roce_join(struct rdma_id_private *id_priv, struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct sockaddr *addr = (struct sockaddr *)&mc->addr;
	struct ib_sa_mcmember_rec rec = {};
	struct rdma_cm_event *event = &mc->event;
	struct net_device *ndev;
	enum ib_gid_type gid_type;
	bool v2;
	int ret;

	if (cma_zero_addr(addr))
		return -EINVAL;
	gid_type = cma_dev_default_gid_type(id_priv->cma_dev,
					    id_priv->id.port_num);
	v2 = gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
	if (v2 && addr->sa_family != AF_INET)
		return -EOPNOTSUPP;
	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;

	cma_roce_mgid(addr, &rec.mgid, gid_type);
	rdma_ip2gid(cma_src_addr(id_priv), &rec.port_gid);
	rec.pkey = cpu_to_be16(0xffff);
	rec.rate = IB_RATE_PORT_CURRENT;
	rec.mtu = iboe_get_mtu(ndev->mtu);
	rec.hop_limit = v2 ? IPV6_DEFAULT_HOPLIMIT : 1;
	ret = rec.mtu ? cma_ib_qkey(id_priv) : -EINVAL;
	if (ret)
		goto out;
	rec.qkey = cpu_to_be32(id_priv->qkey);

	ret = ib_init_ah_from_mcmember(id_priv->id.device,
				       id_priv->id.port_num, &rec, ndev,
				       gid_type, &event->param.ud.ah_attr);
	if (ret)
		goto out;
	if (v2 && mc->join_state != BIT(SENDONLY_FULLMEMBER_JOIN)) {
		ret = cma_igmp(dev_addr->net, ndev->ifindex, &rec.mgid, true);
		if (ret) {
			rdma_destroy_ah_attr(&event->param.ud.ah_attr);
			goto out;
		}
		mc->igmp_joined = 1;
		mc->ifindex = ndev->ifindex;
	}

	event->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	event->param.ud.private_data = mc->context;
	event->param.ud.qp_num = 0xffffff;	/* the multicast QPN */
	event->param.ud.qkey = id_priv->qkey;
	INIT_WORK(&mc->work, cma_mcast_work);
	queue_work(system_unbound_wq, &mc->work);
out:
	dev_put(ndev);
	return ret;
}

/**
 * cma_roce_leave - Leave a RoCE group joined by cma_roce_join().
 * @id_priv: the id
 * @mc: the group, off the id's list
 *
 * Waits for the join's event if it is being delivered.
 */
void cma_roce_leave(struct rdma_id_private *id_priv, struct cma_multicast *mc)
{
	union ib_gid mgid;

	cancel_work_sync(&mc->work);
	if (mc->igmp_joined) {
		cma_roce_mgid((struct sockaddr *)&mc->addr, &mgid,
			      IB_GID_TYPE_ROCE_UDP_ENCAP);
		cma_igmp(cma_id_net(id_priv), mc->ifindex, &mgid, false);
	}
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
}

static void cma_mcast_free(struct rdma_id_private *id_priv,
			   struct cma_multicast *mc)
{
	if (id_priv->xprt && id_priv->xprt->leave)
		id_priv->xprt->leave(id_priv, mc);
	kfree(mc);
}

/*
 * What a join on a transport without multicast returns, and so what
 * librdmacm reports: "function not implemented".  checkpatch keeps
 * that name for bad syscall numbers, hence the paste.
 */
#define CMA_ENOTIMPL	(-__PASTE(ENO, SYS))

/**
 * rdma_join_multicast - Join a multicast group.
 * @id: a UD id without a kernel QP, with its address bound to a device
 *	or resolved
 * @addr: the group address
 * @join_state: IB multicast join state (a bit of FULLMEMBER_JOIN,
 *	SENDONLY_FULLMEMBER_JOIN, ...); a RoCE v2 send-only member does not
 *	join the IP group
 * @context: consumer context, returned as the join event's private data
 *
 * Completion is reported by RDMA_CM_EVENT_MULTICAST_JOIN, with the
 * group's address handle attributes, QP number 0xffffff and Q_Key, or
 * RDMA_CM_EVENT_MULTICAST_ERROR.  The consumer attaches its QP.
 *
 * Return: 0 if the join was started, or a negative errno: -EINVAL for an
 * id with a kernel QP, without a device, in another state, of another
 * QP type, or a bad join state; -ENOSYS where the transport has no
 * multicast (iWARP); -ENOMEM; or the transport's error.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	const struct cma_transport_ops *xprt = id_priv->xprt;
	enum rdma_cm_state state = READ_ONCE(id_priv->state);
	struct cma_multicast *mc;
	unsigned long flags;
	int ret;

	/* The consumer attaches its QP itself: no join with a kernel QP. */
	if (id->qp || !id->device || id->qp_type != IB_QPT_UD ||
	    (state != RDMA_CM_ADDR_BOUND && state != RDMA_CM_ADDR_RESOLVED))
		return -EINVAL;
	if (!join_state || join_state > 0xf)	/* the SA's 4 bits */
		return -EINVAL;
	if (!cma_family_supported(addr))
		return -EAFNOSUPPORT;
	if (WARN_ON_ONCE(!xprt))
		return -EINVAL;
	if (!xprt->join)
		return CMA_ENOTIMPL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	mc->context = context;
	mc->id_priv = id_priv;
	mc->join_state = join_state;
	INIT_WORK(&mc->work, cma_mcast_work);

	ret = xprt->join(id_priv, mc);
	if (ret) {
		kfree(mc);
		return ret;
	}
	spin_lock_irqsave(&id_priv->lock, flags);
	list_add_tail(&mc->list, &id_priv->mc_list);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return 0;
}
EXPORT_SYMBOL(rdma_join_multicast);

/**
 * rdma_leave_multicast - Leave a multicast group joined by the id.
 * @id: the id
 * @addr: the group address given to rdma_join_multicast()
 *
 * A join event not yet delivered is not delivered.  Leaving a group the
 * id has not joined does nothing.
 *
 * Context: process context; must not be called from @id's own handler
 * while a join of @id may still be pending.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	struct cma_multicast *mc, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	list_for_each_entry(mc, &id_priv->mc_list, list) {
		if (rdma_addr_size(addr) == rdma_addr_size((struct sockaddr *)&mc->addr) &&
		    !memcmp(&mc->addr, addr, rdma_addr_size(addr))) {
			list_del(&mc->list);
			found = mc;
			break;
		}
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	if (found)
		cma_mcast_free(id_priv, found);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * cma_mcast_leave_all - Leave every group of an id being torn down.
 * @id_priv: the id, in DESTROYING, without handler_mutex
 */
void cma_mcast_leave_all(struct rdma_id_private *id_priv)
{
	struct cma_multicast *mc;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&id_priv->lock, flags);
		mc = list_first_entry_or_null(&id_priv->mc_list,
					      struct cma_multicast, list);
		if (mc)
			list_del(&mc->list);
		spin_unlock_irqrestore(&id_priv->lock, flags);
		if (!mc)
			return;
		cma_mcast_free(id_priv, mc);
	}
}
