// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: the event queue of an open file (an rdma_cm event channel).
 *
 * The queue is a one-way API: the rdma_cm event handler (ucma_event.c)
 * queues, the commands (ucma_cmd.c, ucma_mcast.c) take, move and drop
 * records, and destroying an id (ucma_ctx.c) drops its records; the
 * queue calls none of them back.
 *
 * Events are queued by the rdma_cm event handler and taken by GET_EVENT
 * in FIFO order.  GET_EVENT copies the oldest record to user space under
 * the queue lock with page faults disabled and takes it.  If the copy
 * would fault, it copies with no lock held (a fault cannot stall the
 * rdma_cm handlers behind the queue lock) and then commits: if that
 * record is still the oldest, it is removed and accounted as reported;
 * if a concurrent GET_EVENT, MIGRATE_ID or destroy took it meanwhile, the
 * copy is void and GET_EVENT starts over.  To tell, each record carries a
 * sequence number from its file's own counter, never reused in that
 * queue: MIGRATE_ID numbers the records it moves anew in the file they
 * join.  No counter is shared between files.
 *
 * A file holds at most net.rdma_ucm.max_events unreported events that its
 * commands asked for: at that count the commands that start an exchange
 * answered by an event (the resolves, CONNECT, the joins, SET_OPTION
 * IB_PATH) fail with -ENOBUFS, and its listeners refuse connection
 * requests as with a full backlog.  Events that an id's state brings
 * unasked (ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, ...) are always
 * queued: they are bounded by the ids, and dropping one would leave its
 * id stuck.  Nothing is dropped: user space learns of the cap from the
 * errno, a remote peer from the rejection.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ucma_priv.h"

/* open(): the empty queue of a new file. */
struct ucma_file *ucma_file_alloc(struct file *filp)
{
	struct ucma_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return NULL;

	spin_lock_init(&file->lock);
	INIT_LIST_HEAD(&file->events);
	INIT_LIST_HEAD(&file->ctxs);
	init_waitqueue_head(&file->wait);
	file->filp = filp;
	return file;
}

/* release() begins: the rdma_cm handler queues nothing here any more. */
void ucma_file_close(struct ucma_file *file)
{
	spin_lock(&file->lock);
	file->closing = true;
	spin_unlock(&file->lock);
}

/* release(), once the file's ids are gone: hand what is left to @dropped. */
void ucma_file_drain(struct ucma_file *file, struct list_head *dropped)
{
	struct ucma_event *uev, *tmp;

	spin_lock(&file->lock);
	list_for_each_entry_safe(uev, tmp, &file->events, node)
		list_move_tail(&uev->node, dropped);
	spin_unlock(&file->lock);
}

void ucma_file_free(struct ucma_file *file)
{
	kfree(file);
}

__poll_t ucma_file_poll(struct ucma_file *file, struct file *filp,
			struct poll_table_struct *wait)
{
	poll_wait(filp, &file->wait, wait);
	return list_empty(&file->events) ? 0 : EPOLLIN | EPOLLRDNORM;
}

/* Under file->lock: @n more (or fewer) records on @file's queue. */
static void ucma_count_events(struct ucma_file *file, int n)
{
	/* ucma_file_full() reads it without the lock */
	WRITE_ONCE(file->nr_events, file->nr_events + n);
}

/*
 * True while @file holds as many unreported events as it may: the
 * commands that would ask for more fail.  A hint taken without the lock:
 * events already asked for may still come on top.
 */
bool ucma_file_full(struct ucma_file *file)
{
	return READ_ONCE(file->nr_events) >= (u32)ucma_max_events();
}

static bool __ucma_queue_event(struct ucma_ctx *ctx, struct ucma_event *uev,
			       bool request)
{
	struct ucma_file *file = ctx->file;
	bool queued = false;

	if (!file)
		return false;
	spin_lock(&file->lock);
	if (!file->closing &&
	    !(request && file->nr_events >= (u32)ucma_max_events())) {
		uev->seq = ++file->event_seq;
		list_add_tail(&uev->node, &file->events);
		ucma_count_events(file, 1);
		queued = true;
	}
	spin_unlock(&file->lock);
	if (queued)
		wake_up_interruptible(&file->wait);
	return queued;
}

/*
 * Queue @uev on the file that owns @ctx now.  False if that file is
 * being closed (or the id belongs to no file): the caller frees @uev.
 *
 * The caller holds @ctx's own handler lock (it is rdma_cm's event handler
 * for @ctx's id, or a command that reports an event as one), which keeps
 * ctx->file in place: MIGRATE_ID moves an id under that lock.  It also
 * keeps the file itself, since release() destroys the file's ids, and
 * with them their handlers, before it frees the file.  So no global lock
 * is taken here.
 */
bool ucma_queue_event(struct ucma_ctx *ctx, struct ucma_event *uev)
{
	return __ucma_queue_event(ctx, uev, false);
}

/*
 * Queue connection request @uev of listener @listen, as ucma_queue_event(),
 * unless the file holds max_events records: then the request is refused
 * like one beyond the backlog.  A wildcard listener gets its requests
 * through rdma_cm's per-device listeners, whose handler locks are not the
 * one MIGRATE_ID takes: here the table lock, which MIGRATE_ID also holds
 * while it moves an id, keeps listen->file and that file in place.
 */
bool ucma_queue_request(struct ucma_ctx *listen, struct ucma_event *uev)
{
	bool queued;

	xa_lock(&ucma_ctx_xa);
	queued = __ucma_queue_event(listen, uev, true);
	xa_unlock(&ucma_ctx_xa);
	return queued;
}

/*
 * Take @ctx off its file: its queued events go to @dropped, it leaves the
 * file's id list.  @ctx is out of the table and its rdma_cm_id is gone,
 * so nothing adds events or moves it any more.  Returns its count of
 * reported events.
 */
u32 ucma_file_drop_ctx(struct ucma_ctx *ctx, struct list_head *dropped)
{
	struct ucma_file *file = ctx->file;
	struct ucma_event *uev, *tmp;
	u32 reported;

	if (!file)
		return 0;	/* a connection request's id: never had events */

	spin_lock(&file->lock);
	list_for_each_entry_safe(uev, tmp, &file->events, node) {
		if (uev->ctx == ctx) {
			list_move_tail(&uev->node, dropped);
			ucma_count_events(file, -1);
		}
	}
	list_del_init(&ctx->node);
	reported = ctx->events_reported;
	spin_unlock(&file->lock);
	return reported;
}

/*
 * LEAVE_MCAST (after rdma_leave_multicast(), so no event for @mc comes
 * any more): free the queued events of @mc and return its count of
 * reported events.
 */
u32 ucma_file_drop_mc(struct ucma_ctx *ctx, struct ucma_mc *mc)
{
	struct ucma_event *uev, *tmp;
	struct ucma_file *file;
	LIST_HEAD(dropped);
	u32 reported;

	xa_lock(&ucma_ctx_xa);
	file = ctx->file;
	spin_lock(&file->lock);
	list_for_each_entry_safe(uev, tmp, &file->events, node) {
		if (uev->mc == mc) {
			list_move_tail(&uev->node, &dropped);
			ucma_count_events(file, -1);
		}
	}
	reported = mc->events_reported;
	spin_unlock(&file->lock);
	xa_unlock(&ucma_ctx_xa);

	list_for_each_entry_safe(uev, tmp, &dropped, node)
		kfree(uev);
	return reported;
}

/*
 * MIGRATE_ID: move @ctx and its queued events from @from to @to, both
 * open, with @ctx's handler lock held.  -ENOENT if @ctx was destroyed or
 * moved meanwhile.
 */
int ucma_file_move_ctx(struct ucma_ctx *ctx, struct ucma_file *from,
		       struct ucma_file *to, u32 *reported)
{
	struct ucma_event *uev, *tmp;
	LIST_HEAD(moved);
	int n = 0;

	xa_lock(&ucma_ctx_xa);
	if (xa_load(&ucma_ctx_xa, ctx->id) != ctx || ctx->file != from) {
		xa_unlock(&ucma_ctx_xa);
		return -ENOENT;
	}

	spin_lock(&from->lock);
	list_for_each_entry_safe(uev, tmp, &from->events, node) {
		if (uev->ctx == ctx) {
			list_move_tail(&uev->node, &moved);
			n++;
		}
	}
	ucma_count_events(from, -n);
	list_del(&ctx->node);
	*reported = ctx->events_reported;
	spin_unlock(&from->lock);

	/* the caller holds the handler lock: no event is queued meanwhile */
	ctx->file = to;

	/* the records move even past the cap: they exist already */
	spin_lock(&to->lock);
	list_for_each_entry(uev, &moved, node)
		uev->seq = ++to->event_seq;
	list_add_tail(&ctx->node, &to->ctxs);
	list_splice_tail(&moved, &to->events);
	ucma_count_events(to, n);
	spin_unlock(&to->lock);
	if (n)
		wake_up_interruptible(&to->wait);
	xa_unlock(&ucma_ctx_xa);
	return 0;
}

/*
 * Remove @uev, the oldest event, and account it; called with file->lock
 * held, which it drops.  Returns the id of a connection request, which
 * the caller makes @file's.
 */
static struct ucma_ctx *ucma_take_event_unlock(struct ucma_file *file,
					       struct ucma_event *uev)
	__releases(&file->lock)
{
	struct ucma_ctx *child = uev->child;

	list_del(&uev->node);
	ucma_count_events(file, -1);
	uev->ctx->events_reported++;
	if (uev->mc)
		uev->mc->events_reported++;
	/* the request leaves the listener's backlog */
	if (child)
		atomic_inc(&uev->ctx->backlog);
	spin_unlock(&file->lock);
	kfree(uev);
	return child;
}

/* Take the oldest event if it is still the one numbered @seq. */
static bool ucma_commit_event(struct ucma_file *file, u64 seq,
			      struct ucma_ctx **child)
{
	struct ucma_event *uev;

	spin_lock(&file->lock);
	uev = list_first_entry_or_null(&file->events, struct ucma_event, node);
	if (!uev || uev->seq != seq) {
		spin_unlock(&file->lock);
		return false;
	}
	*child = ucma_take_event_unlock(file, uev);
	return true;
}

/*
 * GET_EVENT: copy the oldest record to @response and take it.  For a
 * connection request *@child is the request's new id, reserved and
 * owned by nobody but the caller, who makes it @file's; else NULL.
 */
int ucma_get_event(struct ucma_file *file, void __user *response,
		   u32 out_len, struct ucma_ctx **child)
{
	/* only the faulting path uses it, after a full copy into it */
	struct rdma_ucm_event_resp resp __uninitialized;
	size_t len = min_t(size_t, out_len, sizeof(resp));
	struct ucma_event *uev;
	unsigned long left;
	u64 seq;

	*child = NULL;
	for (;;) {
		spin_lock(&file->lock);
		while (list_empty(&file->events)) {
			spin_unlock(&file->lock);
			if (READ_ONCE(file->filp->f_flags) & O_NONBLOCK)
				return -EAGAIN;
			if (wait_event_interruptible(file->wait,
						     !list_empty(&file->events)))
				return -ERESTARTSYS;
			spin_lock(&file->lock);
		}
		uev = list_first_entry(&file->events, struct ucma_event, node);

		/*
		 * Usually the answer's page is mapped: copy and take the
		 * event in one go.  Only a fault needs the unlocked copy.
		 */
		if (access_ok(response, len)) {
			pagefault_disable();
			left = __copy_to_user_inatomic(response, &uev->resp,
						       len);
			pagefault_enable();
			if (!left) {
				*child = ucma_take_event_unlock(file, uev);
				return 0;
			}
		}
		seq = uev->seq;
		memcpy(&resp, &uev->resp, sizeof(resp));
		spin_unlock(&file->lock);

		if (copy_to_user(response, &resp, len))
			return -EFAULT;
		if (ucma_commit_event(file, seq, child))
			return 0;
	}
}
