// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: the id table and the lifetime of an id (see ucma_priv.h).
 *
 * Table states of an id number:
 *   reserved (XA_ZERO_ENTRY)  allocated but unreachable: an id being
 *                             created, a connection request not reported
 *                             yet, or an id being destroyed
 *   published (the ctx)       reachable from its file's commands
 * Only the table lock moves an id between the states, so a lookup that
 * finds the ctx, checks its owner and takes a reference does so against
 * a consistent state.
 */
#include <linux/memcontrol.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "ucma_priv.h"

DEFINE_XARRAY_ALLOC(ucma_ctx_xa);

static void ucma_ctx_close_work(struct work_struct *work);

/*
 * A new id, its number reserved in the table, owned by @file (NULL for
 * a connection request's id) but not reachable yet.
 */
struct ucma_ctx *ucma_ctx_alloc(struct ucma_file *file, gfp_t gfp)
{
	struct ucma_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), gfp);
	if (!ctx)
		return NULL;

	refcount_set(&ctx->users, 1);
	init_completion(&ctx->drained);
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->node);
	INIT_LIST_HEAD(&ctx->mcs);
	INIT_WORK(&ctx->close_work, ucma_ctx_close_work);
	ctx->file = file;

	if (xa_alloc(&ucma_ctx_xa, &ctx->id, NULL, xa_limit_32b, gfp)) {
		mutex_destroy(&ctx->lock);
		kfree(ctx);
		return NULL;
	}
	return ctx;
}

/*
 * The id's event records are charged to the caller's memory cgroup: they
 * are allocated by rdma_cm's handler, in a kworker, which would charge
 * its own (the root) cgroup.  Task context, before the id queues events.
 */
void ucma_ctx_charge_current(struct ucma_ctx *ctx)
{
	ctx->memcg = get_mem_cgroup_from_mm(current->mm);
}

/* Free an id that is unreachable and whose rdma_cm_id is gone or unset. */
void ucma_ctx_free(struct ucma_ctx *ctx)
{
	mem_cgroup_put(ctx->memcg);
	xa_erase(&ucma_ctx_xa, ctx->id);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}

/* Make a reserved id reachable from @file's commands. */
void ucma_ctx_publish(struct ucma_ctx *ctx, struct ucma_file *file)
{
	void *old;

	xa_lock(&ucma_ctx_xa);
	ctx->file = file;
	spin_lock(&file->lock);
	list_add_tail(&ctx->node, &file->ctxs);
	spin_unlock(&file->lock);
	/* the slot exists: replacing its reservation allocates nothing */
	old = __xa_store(&ucma_ctx_xa, ctx->id, ctx, 0);
	xa_unlock(&ucma_ctx_xa);
	WARN_ON_ONCE(xa_is_err(old));
}

/*
 * Under the table lock: published id @id if @file owns it.  The error
 * codes are the ABI's: -ENOENT for no such id, -EINVAL for another
 * file's.
 */
static struct ucma_ctx *ucma_ctx_find_locked(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx = xa_load(&ucma_ctx_xa, id);

	if (!ctx)
		return ERR_PTR(-ENOENT);
	if (ctx->file != file)
		return ERR_PTR(-EINVAL);
	return ctx;
}

/* Look up id @id of @file and take a reference on it. */
struct ucma_ctx *ucma_ctx_get(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_xa);
	ctx = ucma_ctx_find_locked(file, id);
	if (!IS_ERR(ctx) && !refcount_inc_not_zero(&ctx->users))
		ctx = ERR_PTR(-ENXIO);	/* closed after DEVICE_REMOVAL */
	xa_unlock(&ucma_ctx_xa);
	return ctx;
}

void ucma_ctx_put(struct ucma_ctx *ctx)
{
	if (refcount_dec_and_test(&ctx->users))
		complete(&ctx->drained);
}

/* Under the table lock: take a published ctx out of the table for good. */
static void ucma_ctx_unpublish_locked(struct ucma_ctx *ctx)
{
	ctx->closing = true;
	/* storing NULL in an allocating xarray keeps the slot reserved */
	__xa_store(&ucma_ctx_xa, ctx->id, NULL, 0);
}

/*
 * DESTROY_ID: take id @id of @file out of the table.  The caller then
 * owns it and must ucma_ctx_destroy() it.
 */
struct ucma_ctx *ucma_ctx_claim(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_xa);
	ctx = ucma_ctx_find_locked(file, id);
	if (!IS_ERR(ctx))
		ucma_ctx_unpublish_locked(ctx);
	xa_unlock(&ucma_ctx_xa);
	return ctx;
}

/* release(): take the first id of @file out of the table, NULL if none. */
struct ucma_ctx *ucma_ctx_claim_first(struct ucma_file *file)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_xa);
	spin_lock(&file->lock);
	ctx = list_first_entry_or_null(&file->ctxs, struct ucma_ctx, node);
	spin_unlock(&file->lock);
	/* every id on a file's list is published (see ucma_ctx_publish) */
	if (ctx)
		ucma_ctx_unpublish_locked(ctx);
	xa_unlock(&ucma_ctx_xa);
	return ctx;
}

/* The owner of an unpublished id is about to destroy it. */
void ucma_ctx_claim_private(struct ucma_ctx *ctx)
{
	xa_lock(&ucma_ctx_xa);
	ctx->closing = true;
	xa_unlock(&ucma_ctx_xa);
}

/*
 * Drop the open reference, wait for the commands using the id and
 * destroy the rdma_cm_id.  Runs once per id: from the close work or from
 * ucma_ctx_destroy() after cancel_work_sync().
 */
static void ucma_ctx_close(struct ucma_ctx *ctx)
{
	ucma_ctx_put(ctx);
	wait_for_completion(&ctx->drained);
	/* after this no event handler runs for the id */
	if (ctx->cm_id)
		rdma_destroy_id(ctx->cm_id);
	ctx->cm_id = NULL;
	ctx->closed = true;
}

static void ucma_ctx_close_work(struct work_struct *work)
{
	ucma_ctx_close(container_of(work, struct ucma_ctx, close_work));
}

/*
 * DEVICE_REMOVAL: the device cannot go away while the id holds it, and
 * user space may take its time to destroy the id, so close the rdma_cm_id
 * now.  The ctx stays where it is; its commands then fail with -ENXIO.
 */
void ucma_ctx_schedule_close(struct ucma_ctx *ctx)
{
	xa_lock(&ucma_ctx_xa);
	if (!ctx->closing && !ctx->close_queued) {
		ctx->close_queued = true;
		queue_work(system_unbound_wq, &ctx->close_work);
	}
	xa_unlock(&ucma_ctx_xa);
}

/*
 * Destroy an id the caller took out of the table (ctx->closing is set):
 * close its rdma_cm_id, drop its unreported events (and the ids of the
 * connection requests among them), leave its multicast groups and free
 * it.  Returns how many of its events GET_EVENT reported.
 */
u32 ucma_ctx_destroy(struct ucma_ctx *ctx)
{
	LIST_HEAD(dropped);
	u32 reported;

	/* no close work can be queued any more: wait for a queued one */
	cancel_work_sync(&ctx->close_work);
	if (!ctx->closed)
		ucma_ctx_close(ctx);

	reported = ucma_file_drop_ctx(ctx, &dropped);
	ucma_destroy_dropped(&dropped);
	ucma_mc_free_all(ctx);
	ucma_ctx_free(ctx);
	return reported;
}

/*
 * Free events taken off a queue; the ids of unreported connection
 * requests among them are destroyed too.  No lock held.
 */
void ucma_destroy_dropped(struct list_head *dropped)
{
	struct ucma_event *uev, *tmp;

	list_for_each_entry_safe(uev, tmp, dropped, node) {
		list_del(&uev->node);
		if (uev->child) {
			ucma_ctx_claim_private(uev->child);
			ucma_ctx_destroy(uev->child);
		}
		kfree(uev);
	}
}
