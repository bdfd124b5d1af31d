// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: the rdma_cm event handler of user ids.
 *
 * rdma_cm calls it with the id's handler lock held (for a connection
 * request: the new id's, and the listener's unless the listener is a
 * wildcard one, whose requests come through rdma_cm's internal per-device
 * listeners).  It may sleep, must not take ctx->lock, and returns
 * non-zero only to refuse a connection request, which makes rdma_cm
 * destroy the new rdma_cm_id itself.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "ucma_abi.h"
#include "ucma_priv.h"

/*
 * Build the record of @event for @ctx.  @cm_id is the id the event is
 * about (for a connection request: the new one).
 */
static struct ucma_event *ucma_build_event(struct ucma_ctx *ctx,
					   struct rdma_cm_id *cm_id,
					   struct rdma_cm_event *event)
{
	struct rdma_ucm_event_resp *resp;
	struct ucma_event *uev;
	bool mc = ucma_is_mc_event(event->event);
	struct mem_cgroup *old;

	old = set_active_memcg(ctx->memcg);
	uev = kzalloc(sizeof(*uev), GFP_KERNEL_ACCOUNT);
	set_active_memcg(old);
	/*
	 * Over the cgroup's limit the event still goes out, uncharged:
	 * losing it could leave its id waiting for good.  A connection
	 * request is refused instead, as with a full backlog.
	 */
	if (!uev && event->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		uev = kzalloc(sizeof(*uev), GFP_KERNEL);
	if (!uev)
		return NULL;

	uev->ctx = ctx;
	resp = &uev->resp;
	if (mc) {
		/* rdma_join_multicast()'s context: our ucma_mc */
		uev->mc = (struct ucma_mc *)event->param.ud.private_data;
		resp->uid = uev->mc->uid;
		resp->id = uev->mc->id;
	} else {
		resp->uid = ctx->uid;
		resp->id = ctx->id;
	}
	resp->event = event->event;
	resp->status = event->status;
	if (mc || cm_id->qp_type == IB_QPT_UD)
		ucma_ud_param_to_user(cm_id->device, &resp->param.ud,
				      &event->param.ud, mc);
	else
		ucma_conn_param_to_user(&resp->param.conn, &event->param.conn);
	resp->ece.vendor_id = event->ece.vendor_id;
	resp->ece.attr_mod = event->ece.attr_mod;
	return uev;
}

/*
 * A connection request on listener @listen: a new id, unreachable until
 * GET_EVENT reports the request, owned by the queued record until then.
 */
static int ucma_connect_request(struct ucma_ctx *listen,
				struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct mem_cgroup *old;
	struct ucma_event *uev;
	struct ucma_ctx *ctx;

	/* each unreported request takes one slot of the backlog */
	if (!atomic_add_unless(&listen->backlog, -1, 0))
		return -ENOMEM;

	/* the listener's owner pays until GET_EVENT hands the id over */
	old = set_active_memcg(listen->memcg);
	ctx = ucma_ctx_alloc(NULL, GFP_KERNEL_ACCOUNT);
	set_active_memcg(old);
	if (!ctx)
		goto err_backlog;
	ctx->cm_id = cm_id;

	uev = ucma_build_event(listen, cm_id, event);
	if (!uev)
		goto err_ctx;
	uev->resp.id = ctx->id;
	uev->child = ctx;

	/* events of the new id come under its handler lock, held now */
	cm_id->context = ctx;
	if (!ucma_queue_request(listen, uev)) {
		cm_id->context = listen;
		kfree(uev);
		goto err_ctx;
	}
	return 0;

err_ctx:
	/* rdma_cm destroys cm_id when we fail: it is not ours to destroy */
	ucma_ctx_free(ctx);
err_backlog:
	atomic_inc(&listen->backlog);
	return -ENOMEM;
}

int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *event)
{
	struct ucma_ctx *ctx = cm_id->context;
	struct ucma_event *uev;

	/*
	 * DEVICE_REMOVAL is an id's last event, and ucma_remove_one() may
	 * report it before rdma_cm does: nothing follows it, a listener
	 * refuses its requests.  A wildcard listener, whose requests come
	 * without its handler lock, has no device and is never removed.
	 */
	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ctx->removed ? -ENODEV :
				      ucma_connect_request(ctx, cm_id, event);
	/*
	 * The handler lock is held.  A passive id's ESTABLISHED, or an
	 * answer after CONNECT_RESPONSE, ends no counted work.
	 */
	if (ucma_event_ends_work(event->event) && ctx->resolving)
		/* the worker's writes first: pairs with ucma_route_lock() */
		smp_store_release(&ctx->resolving, ctx->resolving - 1);
	if (ctx->removed)
		return 0;
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		ctx->removed = true;

	/*
	 * A passive id has no uid until ACCEPT sets one (under this same
	 * handler lock); its events until then are nobody's and dropped,
	 * as user space could not match them.
	 */
	if (ctx->uid) {
		uev = ucma_build_event(ctx, cm_id, event);
		if (uev && !ucma_queue_event(ctx, uev))
			kfree(uev);
	}

	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		ucma_ctx_schedule_close(ctx);
	return 0;
}
