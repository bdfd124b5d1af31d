// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The id: creation, references, destruction, event delivery, and the
 * per-id settings consumers may change.
 */
#include <linux/cred.h>

#include "core_priv.h"
#include "cma_priv.h"
#include "cma_trace.h"

static void cma_step_handler(struct work_struct *work);

void cma_id_put(struct rdma_id_private *id_priv)
{
	if (refcount_dec_and_test(&id_priv->refcount))
		complete(&id_priv->comp);
}

/**
 * cma_id_alloc - Allocate and initialise an id.
 * @net: the id's network namespace; the id takes a reference
 * @event_handler: consumer callback
 * @context: consumer context
 * @ps: port space
 * @qp_type: QP type
 * @parent: the listener of a passive id, whose owner the new id inherits
 *	for resource tracking; NULL otherwise (the caller names the owner)
 *
 * Return: the id in IDLE, or NULL without memory.
 */
struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler event_handler,
				     void *context, enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     const struct rdma_id_private *parent)
{
	struct rdma_id_private *id_priv;

	id_priv = kzalloc(sizeof(*id_priv), GFP_KERNEL);
	if (!id_priv)
		return NULL;

	id_priv->id.context = context;
	id_priv->id.event_handler = event_handler;
	id_priv->id.ps = ps;
	id_priv->id.qp_type = qp_type;
	id_priv->gid_type = IB_GID_TYPE_IB;
	cma_state_init(id_priv, RDMA_CM_IDLE);
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->qp_mutex);
	mutex_init(&id_priv->handler_mutex);
	init_completion(&id_priv->comp);
	refcount_set(&id_priv->refcount, 1);
	INIT_HLIST_NODE(&id_priv->bind_node);
	INIT_LIST_HEAD(&id_priv->device_item);
	INIT_LIST_HEAD(&id_priv->listen_list);
	INIT_LIST_HEAD(&id_priv->mc_list);
	INIT_WORK(&id_priv->step_work, cma_step_handler);
	cma_netevent_id_init(id_priv);
	/* The starting PSN the REQ or REP announces: 24 bits on the wire. */
	id_priv->seq_num = get_random_u32() & 0x00ffffff;

	rdma_restrack_new(&id_priv->res, RDMA_RESTRACK_CM_ID);
	if (parent)
		rdma_restrack_parent_name(&id_priv->res, &parent->res);
	id_priv->id.route.addr.dev_addr.net = get_net(net);
	return id_priv;
}

/**
 * __rdma_create_kernel_id - Create an RDMA CM id for a kernel consumer.
 * @net: network namespace the id's addresses belong to
 * @event_handler: consumer callback for the id's events
 * @context: consumer context stored in the id
 * @ps: RDMA port space
 * @qp_type: type of the QP the id will be used with
 * @caller: name of the creating module, for resource tracking
 *
 * Use the rdma_create_id() wrapper, which passes KBUILD_MODNAME as @caller.
 * The id holds a reference on @net until it is destroyed.
 *
 * Return: the new id, or an ERR_PTR().
 */
struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_id_alloc(net, event_handler, context, ps, qp_type, NULL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);
	rdma_restrack_set_name(&id_priv->res, caller);
	return &id_priv->id;
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

/**
 * rdma_create_user_id - Create an RDMA CM id on behalf of user space.
 * @event_handler: consumer callback for the id's events
 * @context: consumer context stored in the id
 * @ps: RDMA port space
 * @qp_type: type of the QP the id will be used with
 *
 * The id lives in the caller's network namespace and is accounted to
 * the calling task.
 *
 * Return: the new id, or an ERR_PTR().
 */
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct rdma_id_private *id_priv;

	id_priv = cma_id_alloc(current->nsproxy->net_ns, event_handler,
			       context, ps, qp_type, NULL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);
	rdma_restrack_set_name(&id_priv->res, NULL);
	return &id_priv->id;
}
EXPORT_SYMBOL(rdma_create_user_id);

/*
 * Release everything an id holds, once its state is DESTROYING and
 * nothing can start new work on it: a wildcard listener's per-device
 * listeners, the transport's id, the device, the port, then wait for the
 * last reference and free.  @state is the state before DESTROYING.
 */
static void cma_id_teardown(struct rdma_id_private *id_priv,
			    enum rdma_cm_state state)
{
	struct net *net = cma_id_net(id_priv);

	if (state == RDMA_CM_LISTEN && !id_priv->cma_dev &&
	    !id_priv->internal_id) {
		cma_listen_unlist_any(id_priv);
		cma_listen_stop(id_priv);
		put_cred(id_priv->listen_cred);
	}

	cma_neigh_unwatch(id_priv);
	/* Waits for a running address callback; nothing new can start. */
	if (id_priv->used_resolve_ip)
		rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
	cma_mcast_leave_all(id_priv);
	if (id_priv->xprt && id_priv->xprt->destroy)
		id_priv->xprt->destroy(id_priv);
	rdma_restrack_del(&id_priv->res);
	cma_dev_release(id_priv);
	cma_ps_put_port(cma_ps_table(net), id_priv);

	cma_id_put(id_priv);
	wait_for_completion(&id_priv->comp);

	cma_route_reset(id_priv);
	put_net(net);
	/* The neighbour notifier may still look at it under RCU. */
	if (id_priv->neigh_rcu)
		kfree_rcu(id_priv, rcu);
	else
		kfree(id_priv);
}

/**
 * cma_destroy_handler_unlock - Destroy an id whose handler_mutex is held.
 * @id_priv: the id; the caller holds its handler_mutex and no reference
 *	of its own beyond the consumer's
 *
 * Used by rdma_destroy_id() and when an event handler returns non-zero.
 * Releases handler_mutex; on return the id is freed.
 */
void cma_destroy_handler_unlock(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state state;

	state = cma_exch(id_priv, RDMA_CM_DESTROYING);
	mutex_unlock(&id_priv->handler_mutex);
	/* A second destroy of one id: the consumer's bug, not a crash. */
	if (WARN_ON_ONCE(state == RDMA_CM_DESTROYING))
		return;
	trace_cm_id_destroy(id_priv);
	cma_id_teardown(id_priv, state);
}

/**
 * cma_id_discard - Destroy an id nobody else can reach yet.
 * @id_priv: a new id that no handler, transport callback, device walk or
 *	consumer has seen (its transport listener failed to start, say)
 *
 * Unlike cma_destroy_handler_unlock() it takes no handler_mutex, so it
 * may run under cma_listen.c's mutex.
 */
void cma_id_discard(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state state;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	state = id_priv->state;
	WRITE_ONCE(id_priv->state, RDMA_CM_DESTROYING);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	cma_id_teardown(id_priv, state);
}

/**
 * cma_deliver - Hand an event to the id's consumer.
 * @id_priv: the id, with its handler_mutex held
 * @event: the event
 *
 * Return: the handler's return; non-zero asks the caller to destroy the
 * id with cma_destroy_handler_unlock() once it dropped its references.
 */
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event)
{
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	trace_cm_event_handler(id_priv, event);
	ret = id_priv->id.event_handler(&id_priv->id, event);
	trace_cm_event_done(id_priv, event, ret);
	return ret;
}

/**
 * cma_deliver_unlock - Deliver an event from a transport callback.
 * @id_priv: the id, with its handler_mutex held; released on return
 * @event: the event
 *
 * ib_cm and iw_cm destroy their own id when a callback returns non-zero,
 * so on a non-zero handler return the id forgets the transport's id and
 * is destroyed.
 *
 * Return: the handler's return, for the callback to hand back to the
 * transport.
 */
int cma_deliver_unlock(struct rdma_id_private *id_priv,
		       struct rdma_cm_event *event)
{
	int ret = cma_deliver(id_priv, event);

	if (ret) {
		/* One union: clears the IB and the iWARP id alike. */
		id_priv->cm_id.ib = NULL;
		cma_destroy_handler_unlock(id_priv);
		return ret;
	}
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/**
 * cma_deliver_put_unlock - Deliver an event from work holding a reference.
 * @id_priv: the id, with its handler_mutex held and a reference the
 *	caller gives up
 * @event: the event
 *
 * Drops the reference and handler_mutex; a non-zero handler return
 * destroys the id (which waits for every other reference).
 */
void cma_deliver_put_unlock(struct rdma_id_private *id_priv,
			    struct rdma_cm_event *event)
{
	if (cma_deliver(id_priv, event)) {
		cma_id_put(id_priv);
		cma_destroy_handler_unlock(id_priv);
		return;
	}
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

/**
 * cma_deliver_notice_put - Deliver an event that is no step of the id's states.
 * @id_priv: the id, with a reference the caller gives up
 * @event: the event
 *
 * From work in process context: takes handler_mutex, and drops the
 * event if the id is being destroyed or removed.
 */
void cma_deliver_notice_put(struct rdma_id_private *id_priv,
			    struct rdma_cm_event *event)
{
	mutex_lock(&id_priv->handler_mutex);
	if (!cma_id_live(id_priv)) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		return;
	}
	cma_deliver_put_unlock(id_priv, event);
}

static struct workqueue_struct *cma_wq;

/**
 * cma_queue_work - Queue work of an id on rdma_cm's workqueue.
 * @work: the work, which holds a reference on its id
 *
 * Return: false if @work was already queued.
 */
bool cma_queue_work(struct work_struct *work)
{
	return queue_work(cma_wq, work);
}

/* The result queued by cma_queue_event(). */
static void cma_step_handler(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, step_work);
	/* Copied first: the consumer's handler may queue the next step. */
	struct rdma_cm_event event = { .event = id_priv->step_event };
	enum rdma_cm_state from = id_priv->step_from, to = id_priv->step_to;

	mutex_lock(&id_priv->handler_mutex);
	/* Destroyed, removed or moved on meanwhile: the result is stale. */
	if (cma_comp_exch(id_priv, from, to)) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		return;
	}
	cma_deliver_put_unlock(id_priv, &event);
}

/**
 * cma_queue_event - Deliver the result of a step from process context.
 * @id_priv: the id, just moved into @from by the caller
 * @from: the state the id must still be in when the work runs
 * @to: the state it moves to before the event is delivered
 * @type: the event, which has no status and no parameters
 *
 * For results rdma_cm produces itself (loopback and AF_IB address
 * resolution, local routes).  An id has at most one such step in
 * flight: the next one starts from the state this one moves to, so the
 * work is part of the id and queueing it cannot fail for memory.  It
 * runs on an unbound workqueue and holds a reference on the id, so
 * destroy waits for it; ids do not wait for each other.
 *
 * Return: 0, or -EBUSY (with a warning) if a step is still queued.
 */
int cma_queue_event(struct rdma_id_private *id_priv, enum rdma_cm_state from,
		    enum rdma_cm_state to, enum rdma_cm_event_type type)
{
	if (WARN_ON_ONCE(work_pending(&id_priv->step_work)))
		return -EBUSY;
	id_priv->step_from = from;
	id_priv->step_to = to;
	id_priv->step_event = type;
	cma_id_get(id_priv);
	if (!queue_work(cma_wq, &id_priv->step_work))
		cma_id_put(id_priv);
	return 0;
}

/* An event that is no step of the id's states, delivered from cma_wq. */
struct cma_notice {
	struct work_struct	work;
	struct rdma_id_private	*id_priv;	/* holds a reference */
	enum rdma_cm_event_type	type;
};

static void cma_notice_handler(struct work_struct *work)
{
	struct cma_notice *notice = container_of(work, struct cma_notice,
						 work);
	struct rdma_id_private *id_priv = notice->id_priv;
	struct rdma_cm_event event = { .event = notice->type };

	kfree(notice);
	cma_deliver_notice_put(id_priv, &event);
}

/**
 * cma_queue_notice - Deliver an event that is no step of the id's states.
 * @id_priv: the id
 * @type: the event (ADDR_CHANGE), which has no status and no parameters
 *
 * The event reaches the id in whatever state it is in then, unless it is
 * being destroyed or removed.  May be called in atomic context.
 *
 * Return: 0 or -ENOMEM.
 */
int cma_queue_notice(struct rdma_id_private *id_priv,
		     enum rdma_cm_event_type type)
{
	struct cma_notice *notice;

	notice = kmalloc(sizeof(*notice), GFP_ATOMIC);
	if (!notice)
		return -ENOMEM;
	INIT_WORK(&notice->work, cma_notice_handler);
	notice->id_priv = id_priv;
	notice->type = type;
	cma_id_get(id_priv);
	queue_work(cma_wq, &notice->work);
	return 0;
}

int __init cma_id_init(void)
{
	cma_wq = alloc_workqueue("rdma_cm", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return cma_wq ? 0 : -ENOMEM;
}

void cma_id_exit(void)
{
	destroy_workqueue(cma_wq);
}

/*
 * End the query an id removed from its device had in flight in @state,
 * so that nothing of it runs while the consumer keeps the id; destroy
 * cancels again, which finds nothing.  Called without handler_mutex:
 * the cancels wait for a running callback, which takes it.
 */
static void cma_cancel_query(struct rdma_id_private *id_priv,
			     enum rdma_cm_state state)
{
	switch (state) {
	case RDMA_CM_ADDR_QUERY:
		if (id_priv->used_resolve_ip)
			rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
		break;
	case RDMA_CM_ROUTE_QUERY:
		/* An SA path query; RoCE and iWARP routes query nobody. */
		cma_sa_cancel(id_priv);
		break;
	default:
		break;
	}
}

/**
 * cma_remove_id - Tell an id that its device is going away.
 * @id_priv: the id, taken off its device's list with a reference that
 *	this function drops
 *
 * DEVICE_REMOVAL is the id's last event.  An id already being destroyed
 * gets nothing.  An address or route query in flight is cancelled, by
 * the destroy when the handler returns non-zero, here otherwise.
 */
void cma_remove_id(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_exch(id_priv, RDMA_CM_DEVICE_REMOVAL);
	if (state == RDMA_CM_DEVICE_REMOVAL || state == RDMA_CM_DESTROYING) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		return;
	}
	/* A per-device listener is rdma_cm's own: no event, just gone. */
	if (id_priv->internal_id) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		if (cma_listen_remove_child(id_priv)) {
			mutex_lock(&id_priv->handler_mutex);
			cma_destroy_handler_unlock(id_priv);
		}
		return;
	}
	if (cma_deliver(id_priv, &event)) {
		cma_id_put(id_priv);
		cma_destroy_handler_unlock(id_priv);
		return;
	}
	mutex_unlock(&id_priv->handler_mutex);
	/* Our reference keeps the id while a racing destroy waits for it. */
	cma_cancel_query(id_priv, state);
	cma_id_put(id_priv);
}

/**
 * rdma_destroy_id - Destroy an RDMA CM id.
 * @id: the id
 *
 * Cancels the id's pending operations, releases its address, port and
 * device, and waits until no callback for it runs.  Must not be called
 * from @id's own event handler (return non-zero from it instead) nor
 * with rdma_lock_handler() held.
 *
 * Context: process context; sleeps.
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);

	mutex_lock(&id_priv->handler_mutex);
	cma_destroy_handler_unlock(id_priv);
}
EXPORT_SYMBOL(rdma_destroy_id);

/**
 * rdma_lock_handler - Serialise against @id's event handler.
 * @id: the id
 *
 * While held, no event handler of @id runs, and calls that need the
 * handler lock (rdma_connect_locked(), rdma_accept()) may be made.
 *
 * Context: process context; sleeps.
 */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&cma_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

/**
 * rdma_unlock_handler - Release the lock taken by rdma_lock_handler().
 * @id: the id
 */
void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&cma_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/**
 * rdma_res_to_id - The RDMA CM id owning a resource tracking entry.
 * @res: an RDMA_RESTRACK_CM_ID entry
 *
 * Return: the id, or NULL when @res is not an RDMA CM id entry.
 */
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	if (!res || res->type != RDMA_RESTRACK_CM_ID)
		return NULL;
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

/**
 * rdma_set_service_type - Set the type of service of an id's connections.
 * @id: the id
 * @tos: type of service; replaces the device port's default
 *
 * Takes effect for routes resolved and QPs modified afterwards.
 */
void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);

	mutex_lock(&id_priv->qp_mutex);
	id_priv->tos = (u8)tos;
	id_priv->tos_set = true;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_set_service_type);

/**
 * rdma_set_reuseaddr - Allow or forbid reuse of the id's address.
 * @id: the id
 * @reuse: non-zero to allow reuse
 *
 * Allowing is possible in every state but LISTEN, forbidding only in
 * IDLE.
 *
 * Return: 0 on success or -EINVAL in another state.
 */
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&id_priv->lock, flags);
	ret = cma_opt_check_reuseaddr(id_priv->state, reuse);
	if (!ret)
		WRITE_ONCE(id_priv->reuseaddr, !!reuse);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

/**
 * rdma_set_afonly - Restrict an IPv6 id to IPv6 traffic.
 * @id: the id, in IDLE or ADDR_BOUND
 * @afonly: non-zero to refuse IPv4-mapped addresses
 *
 * Without this call an IPv6 id follows net.ipv6.bindv6only of its
 * namespace when it binds.
 *
 * Return: 0 on success or -EINVAL in another state.
 */
int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&id_priv->lock, flags);
	ret = cma_opt_check_afonly(id_priv->state);
	if (!ret) {
		WRITE_ONCE(id_priv->afonly, !!afonly);
		id_priv->afonly_set = 1;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

/**
 * rdma_set_ack_timeout - Override the QP local ACK timeout.
 * @id: an id of an RC or XRC initiator QP
 * @timeout: the IB timeout exponent (4.096 us * 2^@timeout)
 *
 * Used when the QP moves to RTS instead of the path's packet lifetime.
 *
 * Return: 0 on success or -EINVAL for another QP type.
 */
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	int ret;

	ret = cma_opt_check_ack_timeout(id->qp_type);
	if (ret)
		return ret;
	mutex_lock(&id_priv->qp_mutex);
	id_priv->timeout = timeout;
	id_priv->timeout_set = true;
	mutex_unlock(&id_priv->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

/**
 * rdma_set_min_rnr_timer - Override the QP minimum RNR NAK timer.
 * @id: an id of an RC or XRC target QP
 * @min_rnr_timer: the 5-bit IB RNR timer encoding
 *
 * Used when the QP moves to RTR.
 *
 * Return: 0 on success or -EINVAL for another QP type or a value that
 * does not fit 5 bits.
 */
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *id_priv = cma_id_priv(id);
	int ret;

	ret = cma_opt_check_min_rnr_timer(id->qp_type, min_rnr_timer);
	if (ret)
		return ret;
	mutex_lock(&id_priv->qp_mutex);
	id_priv->min_rnr_timer = min_rnr_timer;
	id_priv->min_rnr_timer_set = true;
	mutex_unlock(&id_priv->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);
