// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: the kernel API of <rdma/iw_cm.h>.
 *
 * Each call checks the id's state under its lock and, while it is in the
 * provider (listen, connect, accept, reject), marks the id busy: the
 * events the provider reports meanwhile wait in the id's queue
 * (iwcm_event.c) until the call returns, and are dropped if it failed.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "iwcm_priv.h"

/**
 * iw_create_cm_id - Create an iWARP CM id.
 * @device: the iWARP device
 * @cm_handler: consumer callback for the id's events
 * @context: consumer context stored in the id
 *
 * The id starts idle, with no provider data.  Its events are delivered
 * to @cm_handler from a workqueue, one at a time and in the order the
 * provider reported them; a non-zero return from @cm_handler destroys
 * the id (for CONNECT_REQUEST: the new passive id, which is rejected).
 *
 * Return: the new id, or ERR_PTR(-ENOMEM).
 */
struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	struct iwcm_id_private *cm;

	cm = iwcm_new_id(device, cm_handler, context);
	if (!cm)
		return ERR_PTR(-ENOMEM);
	return &cm->id;
}
EXPORT_SYMBOL(iw_create_cm_id);

/*
 * End of a downcall: let destroy go on, and deliver what the provider
 * reported meanwhile.  Locked.
 */
static void iwcm_downcall_done(struct iwcm_id_private *cm)
{
	cm->flags &= ~IWCM_F_BUSY;
	wake_up_all(&cm->wait);
	iwcm_schedule(cm);
}

/*
 * End of iw_connect or iw_accept.  On failure the provider reports
 * nothing more: back to IDLE, forget what it reported meanwhile.  Once
 * BUSY is clear, destroy may free the id: the caller touches it no more.
 */
static void iwcm_downcall_end(struct iwcm_id_private *cm, int ret)
{
	struct ib_qp *qp = NULL;

	if (ret) {
		spin_lock_irq(&cm->lock);
		if (cm->state == IWCM_CONN_SENT ||
		    cm->state == IWCM_CONN_ACCEPTED)
			cm->state = IWCM_IDLE;
		cm->flags &= ~(IWCM_F_DISC_PENDING | IWCM_F_DISC_ABRUPT);
		qp = iwcm_take_qp(cm);
		iwcm_purge_events(cm);
		spin_unlock_irq(&cm->lock);
		iwcm_put_qp(cm, qp);
	}
	spin_lock_irq(&cm->lock);
	iwcm_downcall_done(cm);
	spin_unlock_irq(&cm->lock);
}

/**
 * iw_destroy_cm_id - Destroy an iWARP CM id.
 * @cm_id: the id
 *
 * A listener stops listening and its pending requests are rejected; a
 * passive id neither accepted nor rejected is rejected; a connection, or
 * one being set up, is aborted (its QP moves to ERR).  Waits for a
 * running callback of the id, unless called from it.  No event is
 * delivered for @cm_id once this returns.  The memory of the id lives on
 * while the provider holds references to it.
 */
void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	iwcm_destroy(to_iwcm(cm_id));
}
EXPORT_SYMBOL(iw_destroy_cm_id);

static struct iwcm_req_pool *iwcm_alloc_pool(int backlog)
{
	struct iwcm_req_pool *pool;
	int i;

	pool = kvzalloc(struct_size(pool, req, backlog), GFP_KERNEL);
	if (!pool)
		return NULL;
	pool->size = backlog;
	INIT_LIST_HEAD(&pool->free);
	for (i = 0; i < backlog; i++)
		list_add_tail(&pool->req[i].evt.node, &pool->free);
	return pool;
}

/**
 * iw_cm_listen - Listen for connection requests on the id's local address.
 * @cm_id: the id, idle, with local_addr set
 * @backlog: how many connection requests may wait for their
 *	CONNECT_REQUEST callback; 0 or less selects net.iw_cm.default_backlog
 *
 * Memory for @backlog requests is reserved here, so that a provider's
 * upcall never allocates.  A request beyond the backlog is refused
 * (-ENOMEM to the provider, which drops the connection).  The provider
 * owns the port space: its error, for example -EADDRINUSE, is returned.
 *
 * Return: 0 on success or a negative errno.
 */
int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	struct iwcm_req_pool *pool;
	struct iwcm_id_private *spare;
	int ret;

	if (!dev->ops.iw_create_listen || !dev->ops.iw_destroy_listen ||
	    !dev->ops.iw_reject)
		return -EOPNOTSUPP;
	if (backlog <= 0)
		backlog = iwcm_default_backlog();
	backlog = min(backlog, IWCM_MAX_BACKLOG);

	pool = iwcm_alloc_pool(backlog);
	spare = iwcm_new_id(dev, NULL, NULL);
	if (!pool || !spare) {
		kvfree(pool);
		if (spare)
			iwcm_put(spare);
		return -ENOMEM;
	}

	spin_lock_irq(&cm->lock);
	if (cm->state != IWCM_IDLE || cm->pool || (cm->flags & IWCM_F_BUSY)) {
		spin_unlock_irq(&cm->lock);
		kvfree(pool);
		iwcm_put(spare);
		return -EINVAL;
	}
	cm->pool = pool;
	cm->spare = spare;
	cm->state = IWCM_LISTEN;
	cm->flags |= IWCM_F_BUSY;
	spin_unlock_irq(&cm->lock);

	ret = iwcm_pm_map(cm, false);
	if (!ret)
		ret = dev->ops.iw_create_listen(cm_id, backlog);
	if (ret)
		iwcm_pm_unmap(cm);

	/* Once BUSY is clear, destroy may free the id: touch it no more. */
	spin_lock_irq(&cm->lock);
	/* Requests that came meanwhile are rejected by the event work. */
	if (ret && cm->state == IWCM_LISTEN)
		cm->state = IWCM_IDLE;
	iwcm_downcall_done(cm);
	spin_unlock_irq(&cm->lock);
	return ret;
}
EXPORT_SYMBOL(iw_cm_listen);

/**
 * iw_cm_reject - Reject a connection request.
 * @cm_id: the passive id of the request, not yet accepted or rejected
 * @private_data: data to send with the reject
 * @private_data_len: length of @private_data
 *
 * The id becomes idle; no event follows.  @private_data may be reused
 * when this returns.
 *
 * Return: the provider's result, or -EINVAL if @cm_id is not a request
 * waiting for an answer.
 */
int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	int ret;

	spin_lock_irq(&cm->lock);
	if (cm->state != IWCM_CONN_RECV || (cm->flags & IWCM_F_ANSWERED) ||
	    (cm->flags & IWCM_F_BUSY)) {
		spin_unlock_irq(&cm->lock);
		return -EINVAL;
	}
	cm->state = IWCM_IDLE;
	cm->flags |= IWCM_F_ANSWERED | IWCM_F_BUSY;
	spin_unlock_irq(&cm->lock);

	ret = cm_id->device->ops.iw_reject(cm_id, private_data,
					   private_data_len);

	spin_lock_irq(&cm->lock);
	iwcm_purge_events(cm);
	iwcm_downcall_done(cm);
	spin_unlock_irq(&cm->lock);
	return ret;
}
EXPORT_SYMBOL(iw_cm_reject);

/*
 * Look up the QP of @qpn and reference it for the id, under the id's
 * spinlock with interrupts off, as providers expect.  Locked.
 */
static int iwcm_get_qp(struct iwcm_id_private *cm, u32 qpn)
{
	struct ib_device *dev = cm->id.device;
	struct ib_qp *qp;

	qp = dev->ops.iw_get_qp(dev, qpn);
	if (!qp)
		return -EINVAL;
	dev->ops.iw_add_ref(qp);
	cm->qp = qp;
	return 0;
}

static bool iwcm_has_qp_ops(struct ib_device *dev)
{
	return dev->ops.iw_get_qp && dev->ops.iw_add_ref &&
	       dev->ops.iw_rem_ref;
}

/*
 * Start of iw_accept or iw_connect, the mirror of iwcm_downcall_end():
 * if the id is @ready (the caller's state check, made under the lock)
 * and no downcall is in the provider, reference the QP of @qpn and move
 * the id to @state, busy, with @flags.  Locked.
 */
static int iwcm_downcall_start(struct iwcm_id_private *cm, bool ready,
			       u32 qpn, enum iwcm_state state,
			       unsigned long flags)
{
	int ret;

	if (!ready || (cm->flags & IWCM_F_BUSY))
		return -EINVAL;
	ret = iwcm_get_qp(cm, qpn);
	if (ret)
		return ret;
	cm->state = state;
	cm->flags |= flags | IWCM_F_BUSY;
	return 0;
}

/**
 * iw_cm_accept - Accept a connection request.
 * @cm_id: the passive id of the request, not yet accepted or rejected
 * @iw_param: QP number, ORD/IRD and private data of the reply
 *
 * ESTABLISHED follows (or CLOSE if the peer goes away first).  Events
 * the provider reports during the call are delivered after it returns,
 * and not at all if it fails.
 *
 * Return: 0 on success, -EINVAL if @cm_id is not a request waiting for
 * an answer or the QP does not exist, or the provider's error.  After a
 * provider error the request counts as answered: the id is idle.
 */
int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	int ret;

	if (!dev->ops.iw_accept || !iwcm_has_qp_ops(dev))
		return -EOPNOTSUPP;

	spin_lock_irq(&cm->lock);
	ret = iwcm_downcall_start(cm, cm->state == IWCM_CONN_RECV &&
				  !(cm->flags & IWCM_F_ANSWERED),
				  iw_param->qpn, IWCM_CONN_ACCEPTED,
				  IWCM_F_ANSWERED);
	spin_unlock_irq(&cm->lock);
	if (ret)
		return ret;

	ret = dev->ops.iw_accept(cm_id, iw_param);
	iwcm_downcall_end(cm, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_accept);

/**
 * iw_cm_connect - Start connecting to the id's remote address.
 * @cm_id: the id, idle, with local_addr and remote_addr set
 * @iw_param: QP number, ORD/IRD and private data of the request
 *
 * CONNECT_REPLY follows, with status 0 when the connection is up or a
 * negative errno (-ECONNRESET or -ECONNREFUSED: rejected, -ETIMEDOUT:
 * unreachable).  Events the provider reports during the call are
 * delivered after it returns, and not at all if it fails.
 *
 * Return: 0 if the connection was started, or a negative errno.
 */
int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	struct ib_device *dev = cm_id->device;
	int ret;

	if (!dev->ops.iw_connect || !iwcm_has_qp_ops(dev))
		return -EOPNOTSUPP;

	spin_lock_irq(&cm->lock);
	ret = iwcm_downcall_start(cm, cm->state == IWCM_IDLE && !cm->pool,
				  iw_param->qpn, IWCM_CONN_SENT, 0);
	spin_unlock_irq(&cm->lock);
	if (ret)
		return ret;

	ret = iwcm_pm_map(cm, true);
	if (!ret)
		ret = dev->ops.iw_connect(cm_id, iw_param);
	if (ret)
		iwcm_pm_unmap(cm);
	iwcm_downcall_end(cm, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_connect);

/**
 * iw_cm_disconnect - Close a connection.
 * @cm_id: the id
 * @abrupt: non-zero to reset the connection rather than close it
 *
 * The id stays connected until CLOSE is delivered.  On a connection
 * still being set up, the disconnect takes effect once it is up (after
 * its CONNECT_REPLY or ESTABLISHED callback); this never blocks.  On an
 * id already closing or idle it does nothing.
 *
 * Return: 0, or -EINVAL on a listener.
 */
int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	bool now = false;
	int ret = 0;

	spin_lock_irq(&cm->lock);
	switch (cm->state) {
	case IWCM_ESTABLISHED:
		now = true;
		break;
	case IWCM_LISTEN:
		ret = -EINVAL;
		break;
	case IWCM_CONN_SENT:
	case IWCM_CONN_ACCEPTED:
		cm->flags |= IWCM_F_DISC_PENDING;
		if (abrupt)
			cm->flags |= IWCM_F_DISC_ABRUPT;
		break;
	default:
		/* Closing already, idle, or a request not yet answered. */
		break;
	}
	spin_unlock_irq(&cm->lock);
	if (now)
		iwcm_disconnect_now(cm, abrupt);
	return ret;
}
EXPORT_SYMBOL(iw_cm_disconnect);

/**
 * iw_cm_init_qp_attr - QP attributes for a state transition of the id's QP.
 * @cm_id: the id
 * @qp_attr: in: the target qp_state; out: the attributes to apply
 * @qp_attr_mask: out: the ib_qp_attr_mask of the filled attributes
 *
 * INIT and RTR get remote read and write access; RTS needs nothing (the
 * provider moves the QP to RTS when the connection is up).
 *
 * Return: 0 on success, -EINVAL for another target state or an id that
 * listens, closes or is being destroyed.
 */
int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct iwcm_id_private *cm = to_iwcm(cm_id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&cm->lock, flags);
	switch (cm->state) {
	case IWCM_IDLE:
	case IWCM_CONN_RECV:
	case IWCM_CONN_ACCEPTED:
	case IWCM_CONN_SENT:
	case IWCM_ESTABLISHED:
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&cm->lock, flags);
	if (ret)
		return ret;

	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_READ;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		return 0;
	case IB_QPS_RTS:
		*qp_attr_mask = 0;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);
