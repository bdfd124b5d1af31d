// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast: rdma_join_multicast() and rdma_leave_multicast() keep the
 * id's list of groups and hand each join and leave to the transport:
 * the SA on InfiniBand (cma_sa.c), IP groups on RoCE (cma_roce.c).
 */
#include <linux/slab.h>

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
