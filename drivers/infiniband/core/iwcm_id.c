// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection manager: the iw_cm_id object.  Allocation, references,
 * freeing, and the id's QP reference.
 *
 * An id is reference counted: the consumer holds one reference from
 * iw_create_cm_id() to iw_destroy_cm_id(), the provider one per
 * add_ref(), the event work one while it is queued or running.  The last
 * put frees the id from a work item, because providers may drop their
 * reference in any context.  What the consumer sees is governed by the
 * state, not by the references (iwcm_event.c): iw_destroy_cm_id() moves
 * the id to DESTROYING, tells the provider, and returns once no callback
 * of the id runs and its queued events are drained, so no callback
 * follows it.
 */
#include <linux/atomic.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <rdma/ib_verbs.h>

#include "iwcm_priv.h"

static struct kmem_cache *iwcm_id_cache;
static atomic_t iwcm_live_ids = ATOMIC_INIT(0);

static const char *const iwcm_state_names[] = {
	[IWCM_IDLE] = "IDLE",
	[IWCM_LISTEN] = "LISTEN",
	[IWCM_CONN_RECV] = "CONN_RECV",
	[IWCM_CONN_ACCEPTED] = "CONN_ACCEPTED",
	[IWCM_CONN_SENT] = "CONN_SENT",
	[IWCM_ESTABLISHED] = "ESTABLISHED",
	[IWCM_CLOSING] = "CLOSING",
	[IWCM_DESTROYING] = "DESTROYING",
};

/*
 * A provider event that makes no sense in the id's state: log it once
 * per id (ratelimited over all ids) and carry on.
 */
void iwcm_log_unexpected(struct iwcm_id_private *cm, const char *what,
			 int event, int status)
{
	unsigned long flags;
	bool first;
	int state;

	spin_lock_irqsave(&cm->lock, flags);
	first = !(cm->flags & IWCM_F_WARNED);
	cm->flags |= IWCM_F_WARNED;
	state = cm->state;
	spin_unlock_irqrestore(&cm->lock, flags);
	if (first)
		pr_warn_ratelimited("iw_cm: %s: %s: event %d status %d in state %s, ignored\n",
				    cm->id.device ?
				    dev_name(&cm->id.device->dev) : "-",
				    what, event, status,
				    iwcm_state_names[state]);
}

static void iwcm_add_ref(struct iw_cm_id *id)
{
	refcount_inc(&to_iwcm(id)->refcount);
}

static void iwcm_rem_ref(struct iw_cm_id *id)
{
	iwcm_put(to_iwcm(id));
}

static void iwcm_free(struct iwcm_id_private *cm)
{
	if (cm->spare)
		iwcm_put(cm->spare);
	if (cm->listener)
		iwcm_put(cm->listener);
	kvfree(cm->pool);
	kmem_cache_free(iwcm_id_cache, cm);
	if (atomic_dec_and_test(&iwcm_live_ids))
		wake_up_var(&iwcm_live_ids);
}

static void iwcm_free_work(struct work_struct *work)
{
	iwcm_free(container_of(work, struct iwcm_id_private, free_work));
}

/*
 * Drop a reference.  The last one may come from a provider in atomic
 * context: a listener's request pool is kvmalloc'd, so its free is
 * deferred; any other id is freed at once (no worker to wake per id).
 */
void iwcm_put(struct iwcm_id_private *cm)
{
	if (!refcount_dec_and_test(&cm->refcount))
		return;
	if (WARN_ON_ONCE(!list_empty(&cm->evq) ||
			 (cm->flags & IWCM_F_SCHEDULED)))
		return;	/* leak rather than free queued events */
	if (cm->pool)
		queue_work(iwcm_wq, &cm->free_work);
	else
		iwcm_free(cm);
}

/* Wait until every id is freed (module exit). */
void iwcm_wait_idle(void)
{
	wait_var_event(&iwcm_live_ids, !atomic_read(&iwcm_live_ids));
}

/*
 * A new id with one reference, idle.  Its provider upcall and event work
 * are iwcm_event.c's to install: see iwcm_new_id().
 */
struct iwcm_id_private *iwcm_alloc_id(struct ib_device *device,
				      iw_cm_handler handler, void *context)
{
	struct iwcm_id_private *cm;
	int i;

	cm = kmem_cache_zalloc(iwcm_id_cache, GFP_KERNEL);
	if (!cm)
		return NULL;

	cm->id.device = device;
	cm->id.cm_handler = handler;
	cm->id.context = context;
	cm->id.add_ref = iwcm_add_ref;
	cm->id.rem_ref = iwcm_rem_ref;

	spin_lock_init(&cm->lock);
	cm->state = IWCM_IDLE;
	init_waitqueue_head(&cm->wait);
	INIT_LIST_HEAD(&cm->evq);
	INIT_LIST_HEAD(&cm->parked);
	INIT_LIST_HEAD(&cm->park_node);
	atomic64_set(&cm->req_queued, 0);
	atomic64_set(&cm->req_done, 0);
	refcount_set(&cm->refcount, 1);
	INIT_WORK(&cm->free_work, iwcm_free_work);
	for (i = 0; i < IWCM_NR_CONN_EVENTS; i++)
		INIT_LIST_HEAD(&cm->conn_evt[i].node);

	atomic_inc(&iwcm_live_ids);
	return cm;
}

/**
 * iwcm_take_qp - Take the id's QP reference off the id.
 * @cm: the id, with its lock held
 *
 * The id's QP reference is taken by iw_cm_connect() and iw_cm_accept()
 * and given back by whoever ends the connection: a failed downcall, a
 * failed CONNECT_REPLY, CLOSE (or a passive id's early close work) and
 * destroy.  Each takes it off the id in the same locked section that
 * changes the id's state, so exactly one of them gets it, and drops it
 * with iwcm_put_qp() once the lock is released.
 *
 * Return: the QP, whose reference is now the caller's, or NULL.
 */
struct ib_qp *iwcm_take_qp(struct iwcm_id_private *cm)
{
	struct ib_qp *qp = cm->qp;

	lockdep_assert_held(&cm->lock);
	cm->qp = NULL;
	return qp;
}

/**
 * iwcm_put_qp - Drop a QP reference iwcm_take_qp() handed over.
 * @cm: the id it came from
 * @qp: the QP, or NULL
 */
void iwcm_put_qp(struct iwcm_id_private *cm, struct ib_qp *qp)
{
	if (qp)
		cm->id.device->ops.iw_rem_ref(qp);
}

int iwcm_id_init(void)
{
	iwcm_id_cache = KMEM_CACHE(iwcm_id_private, 0);
	return iwcm_id_cache ? 0 : -ENOMEM;
}

void iwcm_id_exit(void)
{
	kmem_cache_destroy(iwcm_id_cache);
}
