// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: the provider upcall and the per-id event work.
 *
 * The upcall may come in any context, atomic included.  It copies the
 * event and its private data into storage reserved beforehand (the id's
 * slot for that event type, or a listener's backlog slot), queues it on
 * the id and schedules the id's work item.  The work delivers the id's
 * events one at a time, in order, to the consumer.  Ids do not wait for
 * each other: there is no global ordering.
 *
 * Delivery pauses while a downcall of the id runs in the provider (its
 * events come after it returns, or never if it fails) and, for a new
 * passive id, until its CONNECT_REQUEST callback has returned.
 *
 * The end of an id is here too, since it ends its event stream: destroy
 * (on iw_destroy_cm_id(), or when a callback returns non-zero) drains
 * the queue, and a disconnect asked for during the setup runs once the
 * connection is up.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "iwcm_priv.h"

/* Queue the id's work if it has something to deliver.  Locked. */
void iwcm_schedule(struct iwcm_id_private *cm)
{
	if (list_empty(&cm->evq) ||
	    (cm->flags & (IWCM_F_BUSY | IWCM_F_HOLD | IWCM_F_SCHEDULED)))
		return;
	cm->flags |= IWCM_F_SCHEDULED;
	refcount_inc(&cm->refcount);
	queue_work(iwcm_wq, &cm->event_work);
}

/*
 * Forget the queued connection events: a downcall failed, so none of
 * them may reach the consumer.  Connection requests stay queued (only a
 * listener has them, and each needs its answer).  Locked.
 */
void iwcm_purge_events(struct iwcm_id_private *cm)
{
	struct iwcm_evt *evt, *next;

	list_for_each_entry_safe(evt, next, &cm->evq, node) {
		if (evt->ev.event == IW_CM_EVENT_CONNECT_REQUEST)
			continue;
		list_del_init(&evt->node);
		if (evt->owns_pdata) {
			evt->owns_pdata = false;
			cm->pdata_busy = false;
		}
	}
}

static int iwcm_queue_request(struct iwcm_id_private *cm,
			      struct iw_cm_event *ev)
{
	struct iwcm_req_pool *pool;
	struct iwcm_req *req;
	unsigned long flags;
	int size = 0;

	if (ev->status) {
		iwcm_log_unexpected(cm, "connection request with a status",
				    ev->event, ev->status);
		return -EINVAL;
	}

	spin_lock_irqsave(&cm->lock, flags);
	pool = cm->pool;
	if (cm->state != IWCM_LISTEN || !pool) {
		spin_unlock_irqrestore(&cm->lock, flags);
		return -ECONNREFUSED;
	}
	if (list_empty(&pool->free)) {
		size = pool->size;
	} else {
		req = list_first_entry(&pool->free, struct iwcm_req, evt.node);
		list_del_init(&req->evt.node);
		pool->in_use++;
		req->evt.ev = *ev;
		req->evt.owns_pdata = false;
		if (ev->private_data_len && ev->private_data) {
			memcpy(req->pdata, ev->private_data,
			       ev->private_data_len);
			req->evt.ev.private_data = req->pdata;
		} else {
			req->evt.ev.private_data = NULL;
			req->evt.ev.private_data_len = 0;
		}
		list_add_tail(&req->evt.node, &cm->evq);
		atomic64_inc(&cm->req_queued);
		iwcm_schedule(cm);
	}
	spin_unlock_irqrestore(&cm->lock, flags);

	if (size) {
		pr_warn_ratelimited("iw_cm: %s: listener %pISpc: backlog of %d connection requests full, refusing one\n",
				    dev_name(&cm->id.device->dev),
				    &cm->id.local_addr, size);
		return -ENOMEM;
	}
	return 0;
}

/**
 * iwcm_upcall - The provider reports an event of an id.
 * @id: the id (a listener for CONNECT_REQUEST)
 * @ev: the event; its private data is copied, the provider keeps @ev
 *
 * Callable in any context.  Installed as iw_cm_id.event_handler.
 *
 * Return: 0 when the event was taken; for CONNECT_REQUEST, -ECONNREFUSED
 * when @id does not listen and -ENOMEM when its backlog is full: the
 * provider then drops the connection itself.  -EINVAL for an unknown
 * event.
 */
static int iwcm_upcall(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct iwcm_id_private *cm = to_iwcm(id);
	bool dup = false, lost_pdata = false;
	struct iwcm_evt *evt;
	unsigned long flags;

	if (ev->event == IW_CM_EVENT_CONNECT_REQUEST)
		return iwcm_queue_request(cm, ev);
	if (ev->event < IW_CM_EVENT_CONNECT_REPLY ||
	    ev->event > IW_CM_EVENT_CLOSE) {
		iwcm_log_unexpected(cm, "unknown event", ev->event, ev->status);
		return -EINVAL;
	}

	spin_lock_irqsave(&cm->lock, flags);
	if (cm->state == IWCM_DESTROYING) {
		/* Nobody to tell: the provider's cleanup is its own. */
		spin_unlock_irqrestore(&cm->lock, flags);
		return 0;
	}
	evt = &cm->conn_evt[ev->event - IW_CM_EVENT_CONNECT_REPLY];
	if (!list_empty(&evt->node)) {
		/* The same event is still queued: it says it all. */
		dup = true;
		goto out;
	}
	evt->ev = *ev;
	evt->owns_pdata = false;
	evt->ticket = cm->listener ?
		      atomic64_read(&cm->listener->req_queued) : 0;
	evt->ev.private_data = NULL;
	evt->ev.private_data_len = 0;
	if (ev->private_data_len && ev->private_data) {
		if (!cm->pdata_busy) {
			memcpy(cm->pdata, ev->private_data,
			       ev->private_data_len);
			cm->pdata_busy = true;
			evt->owns_pdata = true;
			evt->ev.private_data = cm->pdata;
			evt->ev.private_data_len = ev->private_data_len;
		} else {
			lost_pdata = true;
		}
	}
	list_add_tail(&evt->node, &cm->evq);
	iwcm_schedule(cm);
	/*
	 * A passive id's events may wait behind its listener's requests
	 * (iwcm_park()), while the consumer, in that listener's handler,
	 * waits for this connection's QP to be destroyed, which a provider
	 * may finish only once every reference is back: give it back now.
	 */
	if (ev->event == IW_CM_EVENT_CLOSE && cm->listener && cm->qp) {
		refcount_inc(&cm->refcount);
		if (!queue_work(iwcm_wq, &cm->close_work))
			refcount_dec(&cm->refcount);	/* the queued one holds one */
	}
out:
	spin_unlock_irqrestore(&cm->lock, flags);
	if (dup)
		iwcm_log_unexpected(cm, "event reported twice", ev->event,
				    ev->status);
	if (lost_pdata)
		iwcm_log_unexpected(cm, "second event with private data (data dropped)",
				    ev->event, ev->status);
	return 0;
}

/*
 * Call the consumer, unless the id is being destroyed.  Destroy waits
 * for cb_task to clear.
 */
static int iwcm_deliver(struct iwcm_id_private *cm, struct iw_cm_event *ev)
{
	iw_cm_handler handler;
	int ret;

	spin_lock_irq(&cm->lock);
	handler = cm->id.cm_handler;
	if (cm->state == IWCM_DESTROYING || !handler) {
		spin_unlock_irq(&cm->lock);
		return 0;
	}
	cm->cb_task = current;
	spin_unlock_irq(&cm->lock);

	ret = handler(&cm->id, ev);

	spin_lock_irq(&cm->lock);
	cm->cb_task = NULL;
	wake_up_all(&cm->wait);
	spin_unlock_irq(&cm->lock);
	return ret;
}

/* A disconnect asked for during the setup: do it now.  */
static void iwcm_pending_disconnect(struct iwcm_id_private *cm)
{
	bool go, abrupt;

	spin_lock_irq(&cm->lock);
	go = cm->flags & IWCM_F_DISC_PENDING;
	abrupt = cm->flags & IWCM_F_DISC_ABRUPT;
	cm->flags &= ~(IWCM_F_DISC_PENDING | IWCM_F_DISC_ABRUPT);
	spin_unlock_irq(&cm->lock);
	if (go)
		iwcm_disconnect_now(cm, abrupt);
}

/* Locked: the connection is over, the caller drops the QP. */
static struct ib_qp *iwcm_to_idle(struct iwcm_id_private *cm)
{
	struct ib_qp *qp = iwcm_take_qp(cm);

	cm->state = IWCM_IDLE;
	cm->flags &= ~(IWCM_F_DISC_PENDING | IWCM_F_DISC_ABRUPT);
	return qp;
}

static void iwcm_replenish_spare(struct iwcm_id_private *lcm)
{
	struct iwcm_id_private *spare;

	spare = iwcm_new_id(lcm->id.device, NULL, NULL);
	if (!spare)
		return;
	spin_lock_irq(&lcm->lock);
	if (!lcm->spare) {
		lcm->spare = spare;
		spare = NULL;
	}
	spin_unlock_irq(&lcm->lock);
	if (spare)
		iwcm_put(spare);
}

/*
 * CONNECT_REQUEST on listener @lcm: a new passive id, born in CONN_RECV,
 * gets the event through the listener's handler (the consumer usually
 * installs its own handler and context on it there).  When the listener
 * no longer listens, or the handler returns non-zero, the new id is
 * rejected and destroyed: every request taken gets exactly one answer.
 */
static void iwcm_conn_request(struct iwcm_id_private *lcm,
			      struct iw_cm_event *ev)
{
	struct iwcm_id_private *child;
	bool listening, used_spare = false;
	int ret;

	child = iwcm_new_id(lcm->id.device, lcm->id.cm_handler,
			    lcm->id.context);
	if (!child) {
		spin_lock_irq(&lcm->lock);
		child = lcm->spare;
		lcm->spare = NULL;
		spin_unlock_irq(&lcm->lock);
		if (!child) {
			pr_err_ratelimited("iw_cm: %s: no memory to answer a connection request; the provider keeps it\n",
					   dev_name(&lcm->id.device->dev));
			return;
		}
		child->id.cm_handler = lcm->id.cm_handler;
		child->id.context = lcm->id.context;
		used_spare = true;
	}

	child->id.provider_data = ev->provider_data;
	child->id.m_local_addr = ev->local_addr;
	child->id.m_remote_addr = ev->remote_addr;
	child->id.local_addr = lcm->id.local_addr;
	child->id.remote_addr = ev->remote_addr;
	iwcm_pm_passive_addrs(lcm, child, ev);
	child->state = IWCM_CONN_RECV;
	child->flags |= IWCM_F_HOLD;
	refcount_inc(&lcm->refcount);
	child->listener = lcm;

	spin_lock_irq(&lcm->lock);
	listening = lcm->state == IWCM_LISTEN && lcm->id.cm_handler;
	if (listening)
		lcm->cb_task = current;
	spin_unlock_irq(&lcm->lock);

	/* A consumer destroying the id meanwhile must not free it yet. */
	refcount_inc(&child->refcount);
	if (listening) {
		ret = iwcm_deliver(child, ev);

		spin_lock_irq(&lcm->lock);
		lcm->cb_task = NULL;
		wake_up_all(&lcm->wait);
		spin_unlock_irq(&lcm->lock);
	} else {
		ret = -ECONNREFUSED;
	}

	if (ret) {
		/* Rejects the request unless the consumer answered it. */
		iwcm_destroy(child);
	} else {
		spin_lock_irq(&child->lock);
		child->flags &= ~IWCM_F_HOLD;
		iwcm_schedule(child);
		spin_unlock_irq(&child->lock);
	}
	iwcm_put(child);

	if (used_spare)
		iwcm_replenish_spare(lcm);
}

/* Active side: the outcome of iw_cm_connect(). */
static int iwcm_conn_reply(struct iwcm_id_private *cm, struct iw_cm_event *ev)
{
	struct ib_qp *qp = NULL;
	enum iwcm_state state;
	int ret;

	spin_lock_irq(&cm->lock);
	state = cm->state;
	if (state == IWCM_CONN_SENT) {
		if (!ev->status) {
			cm->id.m_local_addr = ev->local_addr;
			cm->id.m_remote_addr = ev->remote_addr;
			ev->local_addr = cm->id.local_addr;
			ev->remote_addr = cm->id.remote_addr;
			cm->state = IWCM_ESTABLISHED;
		} else {
			qp = iwcm_to_idle(cm);
		}
	}
	spin_unlock_irq(&cm->lock);

	if (state != IWCM_CONN_SENT) {
		if (state != IWCM_DESTROYING)
			iwcm_log_unexpected(cm, "CONNECT_REPLY", ev->event,
					    ev->status);
		return 0;
	}
	iwcm_put_qp(cm, qp);
	ret = iwcm_deliver(cm, ev);
	if (!ret && !ev->status)
		iwcm_pending_disconnect(cm);
	return ret;
}

/* Passive side: the accepted connection is up. */
static int iwcm_established(struct iwcm_id_private *cm, struct iw_cm_event *ev)
{
	enum iwcm_state state;
	int ret;

	spin_lock_irq(&cm->lock);
	state = cm->state;
	if (state == IWCM_CONN_ACCEPTED)
		cm->state = IWCM_ESTABLISHED;
	spin_unlock_irq(&cm->lock);

	if (state != IWCM_CONN_ACCEPTED) {
		if (state != IWCM_DESTROYING)
			iwcm_log_unexpected(cm, "ESTABLISHED", ev->event,
					    ev->status);
		return 0;
	}
	ret = iwcm_deliver(cm, ev);
	if (!ret)
		iwcm_pending_disconnect(cm);
	return ret;
}

/* The peer closes: CLOSE follows.  Not delivered. */
static void iwcm_peer_disconnect(struct iwcm_id_private *cm,
				 struct iw_cm_event *ev)
{
	enum iwcm_state state;

	spin_lock_irq(&cm->lock);
	state = cm->state;
	if (state == IWCM_ESTABLISHED || state == IWCM_CONN_ACCEPTED)
		cm->state = IWCM_CLOSING;
	spin_unlock_irq(&cm->lock);

	switch (state) {
	case IWCM_ESTABLISHED:
	case IWCM_CONN_ACCEPTED:
	case IWCM_CLOSING:
	case IWCM_IDLE:
	case IWCM_DESTROYING:
		break;
	default:
		iwcm_log_unexpected(cm, "DISCONNECT", ev->event, ev->status);
		break;
	}
}

/*
 * The connection is closed and the provider is done with the QP.  Also
 * ends an accepted connection that never reached ESTABLISHED.  CLOSE on
 * an id still waiting for CONNECT_REPLY breaks the provider contract: the
 * consumer gets CONNECT_REPLY(-ECONNRESET) rather than wait forever.
 */
static int iwcm_close(struct iwcm_id_private *cm, struct iw_cm_event *ev)
{
	struct ib_qp *qp = NULL;
	enum iwcm_state state;

	spin_lock_irq(&cm->lock);
	state = cm->state;
	switch (state) {
	case IWCM_ESTABLISHED:
	case IWCM_CLOSING:
	case IWCM_CONN_ACCEPTED:
	case IWCM_CONN_SENT:
		qp = iwcm_to_idle(cm);
		break;
	default:
		break;
	}
	spin_unlock_irq(&cm->lock);

	switch (state) {
	case IWCM_ESTABLISHED:
	case IWCM_CLOSING:
	case IWCM_CONN_ACCEPTED:
		break;
	case IWCM_CONN_SENT:
		iwcm_log_unexpected(cm, "CLOSE before CONNECT_REPLY",
				    ev->event, ev->status);
		ev->event = IW_CM_EVENT_CONNECT_REPLY;
		ev->status = -ECONNRESET;
		break;
	case IWCM_IDLE:
	case IWCM_DESTROYING:
		return 0;
	default:
		iwcm_log_unexpected(cm, "CLOSE", ev->event, ev->status);
		return 0;
	}
	iwcm_put_qp(cm, qp);
	return iwcm_deliver(cm, ev);
}

static void iwcm_process(struct iwcm_id_private *cm, struct iw_cm_event *ev)
{
	int ret = 0;

	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		iwcm_conn_request(cm, ev);
		return;
	case IW_CM_EVENT_CONNECT_REPLY:
		ret = iwcm_conn_reply(cm, ev);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		ret = iwcm_established(cm, ev);
		break;
	case IW_CM_EVENT_DISCONNECT:
		iwcm_peer_disconnect(cm, ev);
		break;
	case IW_CM_EVENT_CLOSE:
		ret = iwcm_close(cm, ev);
		break;
	}
	/* The consumer gave the id up: its reference is ours to drop. */
	if (ret)
		iwcm_destroy(cm);
}

/**
 * iwcm_close_work - Drop a closed passive connection's QP reference.
 * @work: the id's close_work, queued with a reference on the id
 *
 * The provider reported CLOSE: it is done with the QP, and iw_cm no
 * longer touches it.  CLOSE itself is delivered in order, later.
 */
static void iwcm_close_work(struct work_struct *work)
{
	struct iwcm_id_private *cm =
		container_of(work, struct iwcm_id_private, close_work);
	struct iwcm_evt *close =
		&cm->conn_evt[IW_CM_EVENT_CLOSE - IW_CM_EVENT_CONNECT_REPLY];
	struct ib_qp *qp = NULL;

	spin_lock_irq(&cm->lock);
	/* Delivered already: iwcm_process() dropped it with the event. */
	if (!list_empty(&close->node))
		qp = iwcm_take_qp(cm);
	spin_unlock_irq(&cm->lock);
	iwcm_put_qp(cm, qp);
	iwcm_put(cm);
}

/*
 * A passive id's next event waits until its listener has delivered the
 * connection requests the provider reported before it, so that a
 * listener and its connections see their events in provider order (a
 * consumer reading them from one channel relies on it).  Park the id on
 * the listener, which requeues it after each request.  The id keeps
 * IWCM_F_SCHEDULED, and its reference, while parked.  Called unlocked.
 */
static bool iwcm_park(struct iwcm_id_private *cm, s64 ticket)
{
	struct iwcm_id_private *lcm = cm->listener;
	bool park;

	spin_lock_irq(&lcm->lock);
	/* Destroy unparks under this lock after setting DESTROYING. */
	park = atomic64_read(&lcm->req_done) < ticket &&
	       READ_ONCE(cm->state) != IWCM_DESTROYING;
	if (park && list_empty(&cm->park_node))
		list_add_tail(&cm->park_node, &lcm->parked);
	spin_unlock_irq(&lcm->lock);
	return park;
}

/* Destroy: a parked id drains now, its events are dropped anyway. */
static void iwcm_unpark(struct iwcm_id_private *cm)
{
	struct iwcm_id_private *lcm = cm->listener;

	if (!lcm)
		return;
	spin_lock_irq(&lcm->lock);
	if (!list_empty(&cm->park_node)) {
		list_del_init(&cm->park_node);
		queue_work(iwcm_wq, &cm->event_work);
	}
	spin_unlock_irq(&lcm->lock);
}

/* Listener: one more request delivered; let the parked ids check.  Locked. */
static void iwcm_request_done(struct iwcm_id_private *lcm)
{
	struct iwcm_id_private *child, *next;

	atomic64_inc(&lcm->req_done);
	list_for_each_entry_safe(child, next, &lcm->parked, park_node) {
		list_del_init(&child->park_node);
		queue_work(iwcm_wq, &child->event_work);
	}
}

/* The work item of an id: deliver its queued events in order. */
static void iwcm_event_work(struct work_struct *work)
{
	struct iwcm_id_private *cm =
		container_of(work, struct iwcm_id_private, event_work);
	struct iwcm_req *req;
	struct iwcm_evt *evt;
	struct iw_cm_event ev;
	bool owns_pdata;
	s64 ticket;

	spin_lock_irq(&cm->lock);
	while (!list_empty(&cm->evq) &&
	       !(cm->flags & (IWCM_F_BUSY | IWCM_F_HOLD))) {
		evt = list_first_entry(&cm->evq, struct iwcm_evt, node);
		ticket = evt->ticket;
		if (cm->listener && cm->state != IWCM_DESTROYING &&
		    atomic64_read(&cm->listener->req_done) < ticket) {
			spin_unlock_irq(&cm->lock);
			if (iwcm_park(cm, ticket))
				return;
			spin_lock_irq(&cm->lock);
			continue;
		}
		list_del_init(&evt->node);
		ev = evt->ev;
		owns_pdata = evt->owns_pdata;
		evt->owns_pdata = false;
		/* A request's slot, and its private data, stay ours. */
		req = ev.event == IW_CM_EVENT_CONNECT_REQUEST ?
		      container_of(evt, struct iwcm_req, evt) : NULL;
		spin_unlock_irq(&cm->lock);

		iwcm_process(cm, &ev);

		spin_lock_irq(&cm->lock);
		if (owns_pdata)
			cm->pdata_busy = false;
		if (req) {
			list_add(&req->evt.node, &cm->pool->free);
			cm->pool->in_use--;
			iwcm_request_done(cm);
		}
	}
	cm->flags &= ~IWCM_F_SCHEDULED;
	wake_up_all(&cm->wait);
	spin_unlock_irq(&cm->lock);
	iwcm_put(cm);
}

/**
 * iwcm_new_id - Allocate an id whose events go through this file.
 * @device: the iWARP device
 * @handler: consumer callback, or NULL for an id nobody listens to yet
 * @context: consumer context
 *
 * Return: the id, idle, with one reference, or NULL.
 */
struct iwcm_id_private *iwcm_new_id(struct ib_device *device,
				    iw_cm_handler handler, void *context)
{
	struct iwcm_id_private *cm = iwcm_alloc_id(device, handler, context);

	if (!cm)
		return NULL;
	cm->id.event_handler = iwcm_upcall;
	INIT_WORK(&cm->event_work, iwcm_event_work);
	INIT_WORK(&cm->close_work, iwcm_close_work);
	return cm;
}

static int iwcm_modify_qp(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* Nothing of the id runs any more but, maybe, the caller itself. */
static bool iwcm_quiesced(struct iwcm_id_private *cm)
{
	bool quiet;

	spin_lock_irq(&cm->lock);
	quiet = (!cm->cb_task || cm->cb_task == current) &&
		(!(cm->flags & IWCM_F_SCHEDULED) ||
		 current_work() == &cm->event_work);
	spin_unlock_irq(&cm->lock);
	return quiet;
}

/*
 * Destroy an id on behalf of its consumer: from iw_destroy_cm_id(), or
 * when a callback returned non-zero.  Consumes the consumer's reference.
 */
void iwcm_destroy(struct iwcm_id_private *cm)
{
	struct ib_device *dev = cm->id.device;
	enum iwcm_state old;
	struct ib_qp *qp = NULL;
	bool reject = false;

	spin_lock_irq(&cm->lock);
	/* The provider may be using the id in a downcall: let it finish. */
	wait_event_lock_irq(cm->wait, !(cm->flags & IWCM_F_BUSY), cm->lock);
	old = cm->state;
	if (old == IWCM_DESTROYING) {
		spin_unlock_irq(&cm->lock);
		iwcm_log_unexpected(cm, "destroyed twice", 0, 0);
		return;
	}
	cm->state = IWCM_DESTROYING;
	cm->flags &= ~(IWCM_F_HOLD | IWCM_F_DISC_PENDING | IWCM_F_DISC_ABRUPT);
	switch (old) {
	case IWCM_CONN_RECV:
		/* Every request we took gets exactly one answer. */
		if (!(cm->flags & IWCM_F_ANSWERED)) {
			cm->flags |= IWCM_F_ANSWERED;
			reject = true;
		}
		break;
	case IWCM_CONN_SENT:
	case IWCM_CONN_ACCEPTED:
	case IWCM_ESTABLISHED:
	case IWCM_CLOSING:
		qp = iwcm_take_qp(cm);
		break;
	default:
		break;
	}
	spin_unlock_irq(&cm->lock);

	switch (old) {
	case IWCM_LISTEN:
		dev->ops.iw_destroy_listen(&cm->id);
		break;
	case IWCM_CONN_SENT:
	case IWCM_CONN_ACCEPTED:
	case IWCM_ESTABLISHED:
		/* Abort the connection, or its setup. */
		if (qp)
			iwcm_modify_qp(qp, IB_QPS_ERR);
		if (old == IWCM_CONN_SENT)
			iwcm_host_abort(&cm->id);
		break;
	default:
		break;
	}
	if (reject)
		dev->ops.iw_reject(&cm->id, NULL, 0);
	iwcm_put_qp(cm, qp);
	/* The QP reference is back once destroy returns, whoever took it. */
	flush_work(&cm->close_work);
	iwcm_pm_unmap(cm);

	/*
	 * Drain what is queued (dropped now; a listener's pending requests
	 * are rejected) and wait for a running callback.
	 */
	spin_lock_irq(&cm->lock);
	iwcm_schedule(cm);
	spin_unlock_irq(&cm->lock);
	iwcm_unpark(cm);
	/*
	 * Queued and not started (a CLOSE on the heels of a DISCONNECT,
	 * typically): drain it here instead of waiting for a worker.  An
	 * instance that cleared SCHEDULED and still runs has left its loop.
	 */
	if (cancel_work(&cm->event_work))
		iwcm_event_work(&cm->event_work);
	wait_event(cm->wait, iwcm_quiesced(cm));

	iwcm_put(cm);
}

/*
 * ESTABLISHED -> CLOSING, and the QP to SQD (graceful: the provider
 * closes the stream once the send queue is done) or ERR (abrupt: reset).
 * The provider then reports CLOSE.
 */
void iwcm_disconnect_now(struct iwcm_id_private *cm, bool abrupt)
{
	struct ib_device *dev = cm->id.device;
	struct ib_qp *qp = NULL;

	spin_lock_irq(&cm->lock);
	if (cm->state == IWCM_ESTABLISHED && cm->qp) {
		cm->state = IWCM_CLOSING;
		qp = cm->qp;
		/* CLOSE may drop the id's reference while we use it. */
		dev->ops.iw_add_ref(qp);
	}
	spin_unlock_irq(&cm->lock);
	if (!qp)
		return;
	/*
	 * The QP may already be in ERR or SQD when both sides close at
	 * once: not an error.
	 */
	iwcm_modify_qp(qp, abrupt ? IB_QPS_ERR : IB_QPS_SQD);
	dev->ops.iw_rem_ref(qp);
}
