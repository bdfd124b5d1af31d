/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_ucm: objects shared by the files of the module.
 *
 * Objects
 *   ucma_file  one open /dev/infiniband/rdma_cm: an event queue and the
 *              ids it owns.
 *   ucma_ctx   one user id: an rdma_cm_id plus what user space sees of it.
 *   ucma_mc    one multicast join of an id.
 *   ucma_event one event record waiting for GET_EVENT.
 *
 * Locks, outermost first
 *   ctx->lock            serialises the commands of one id, i.e. every
 *                        call into rdma_cm for it, and MIGRATE_ID
 *   rdma_lock_handler()  rdma_cm's handler mutex of the id; rdma_cm holds
 *                        it around our event handler
 *   ucma_mc_xa's lock    multicast id table
 *   ucma_ctx_xa's lock   id table; also guards ctx->closing,
 *                        ctx->close_queued and the writes of ctx->file
 *   file->lock           a file's event queue, id list and closing flag
 * The event handler never takes ctx->lock, so commands may call into
 * rdma_cm with ctx->lock held.  Two file locks are never held at once.
 * ctx->file changes only under ctx->lock, the id's handler lock and the
 * table lock (MIGRATE_ID), or before the id can have events (a connection
 * request's id joining its file).  So the event handler reads it with
 * neither table nor file lock, but for connection requests, which may
 * come under another id's handler lock (a wildcard listener's per-device
 * listener) and are queued under the table lock.
 *
 * Lifetime of an id
 *   ctx->users counts one reference for "the rdma_cm_id is open" plus one
 *   per command using it.  A command gets its reference from the table
 *   lookup, which fails with -ENXIO once the open reference is gone.  The
 *   one that closes the id (DESTROY_ID, close() of the file, or the close
 *   work after DEVICE_REMOVAL) drops the open reference, waits for the
 *   count to drain and destroys the rdma_cm_id, which fences the event
 *   handler.  The memory of the ctx lives until DESTROY_ID, close() of its
 *   file, or (for a connection request never reported) the destruction of
 *   its event; only the one that took the ctx out of the table (it sets
 *   ctx->closing under the table lock) frees it.
 *
 *   An id created by a connection request is unreachable (its table slot
 *   is reserved, its file is NULL) until GET_EVENT reports the request:
 *   it then joins the file that reported it.  Until then its event owns
 *   it.
 */
#ifndef UCMA_PRIV_H
#define UCMA_PRIV_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_user_cm.h>

struct file;
struct mem_cgroup;
struct poll_table_struct;

struct ucma_file {
	spinlock_t		lock;		/* see the lock order above */
	struct list_head	events;		/* ucma_event.node, FIFO */
	u64			event_seq;	/* last ucma_event.seq given */
	u32			nr_events;	/* records on events */
	struct list_head	ctxs;		/* ucma_ctx.node */
	wait_queue_head_t	wait;
	bool			closing;	/* release() has begun */
	struct file		*filp;
};

struct ucma_ctx {
	u32			id;
	refcount_t		users;
	struct completion	drained;
	struct mutex		lock;		/* commands on the id */
	struct rdma_cm_id	*cm_id;
	struct ucma_file	*file;
	/* set at CREATE_ID, or by ACCEPT under the handler lock */
	u64			uid;
	/*
	 * Pays for the id's event records: the memory cgroup of the process
	 * that created the id or took its connection request; set before
	 * the id can queue events, held until it is freed.
	 */
	struct mem_cgroup	*memcg;
	/*
	 * Resolve or connect commands whose worker may still write the
	 * route: counted up by the command and down (release) by its
	 * answer, both under the handler lock.
	 */
	unsigned int		resolving;
	/* events of this id GET_EVENT returned: file->lock */
	u32			events_reported;
	/* connection requests a listener may still queue */
	atomic_t		backlog;
	/* LISTEN succeeded once: backlog counts from then on (ctx->lock) */
	bool			listening;
	struct list_head	node;		/* file->ctxs: file->lock */
	struct list_head	mcs;		/* ucma_mc.node: ctx->lock */
	struct work_struct	close_work;
	bool			closing;	/* out of the table for good */
	bool			close_queued;
	bool			closed;		/* rdma_cm_id destroyed */
	/* DEVICE_REMOVAL was handled: the handler lock */
	bool			removed;
};

struct ucma_mc {
	u32			id;
	struct ucma_ctx		*ctx;
	u64			uid;
	u8			join_state;
	u32			events_reported;	/* file->lock */
	struct list_head	node;
	struct sockaddr_storage	addr;
};

struct ucma_event {
	struct list_head	node;
	u64			seq;		/* unique in its file's queue */
	struct ucma_ctx		*ctx;		/* the id it is accounted to */
	struct ucma_mc		*mc;		/* multicast events */
	struct ucma_ctx		*child;		/* connection request: new id */
	struct rdma_ucm_event_resp resp;
};

extern struct xarray ucma_ctx_xa;
extern struct xarray ucma_mc_xa;

/* ucma_main.c */
int ucma_max_backlog(void);
int ucma_max_events(void);

/* ucma_file.c: the event queue; it calls no other file but for its limit */
struct ucma_file *ucma_file_alloc(struct file *filp);
void ucma_file_close(struct ucma_file *file);
void ucma_file_drain(struct ucma_file *file, struct list_head *dropped);
void ucma_file_free(struct ucma_file *file);
__poll_t ucma_file_poll(struct ucma_file *file, struct file *filp,
			struct poll_table_struct *wait);
bool ucma_file_full(struct ucma_file *file);
bool ucma_queue_event(struct ucma_ctx *ctx, struct ucma_event *uev);
bool ucma_queue_request(struct ucma_ctx *listen, struct ucma_event *uev);
u32 ucma_file_drop_ctx(struct ucma_ctx *ctx, struct list_head *dropped);
u32 ucma_file_drop_mc(struct ucma_ctx *ctx, struct ucma_mc *mc);
int ucma_file_move_ctx(struct ucma_ctx *ctx, struct ucma_file *from,
		       struct ucma_file *to, u32 *reported);
int ucma_get_event(struct ucma_file *file, void __user *response,
		   u32 out_len, struct ucma_ctx **child);

/* ucma_ctx.c */
struct ucma_ctx *ucma_ctx_alloc(struct ucma_file *file, gfp_t gfp);
void ucma_ctx_free(struct ucma_ctx *ctx);
void ucma_ctx_charge_current(struct ucma_ctx *ctx);
void ucma_ctx_publish(struct ucma_ctx *ctx, struct ucma_file *file);
struct ucma_ctx *ucma_ctx_get(struct ucma_file *file, u32 id);
void ucma_ctx_put(struct ucma_ctx *ctx);
struct ucma_ctx *ucma_ctx_claim(struct ucma_file *file, u32 id);
struct ucma_ctx *ucma_ctx_claim_first(struct ucma_file *file);
void ucma_ctx_claim_private(struct ucma_ctx *ctx);
u32 ucma_ctx_destroy(struct ucma_ctx *ctx);
void ucma_destroy_dropped(struct list_head *dropped);
void ucma_ctx_schedule_close(struct ucma_ctx *ctx);

/* ucma_event.c */
int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *event);

/* ucma_cmd.c: the file operations and the commands */
extern const struct file_operations ucma_fops;

/* ucma_mcast.c */
int ucma_cmd_join_ip_mcast(struct ucma_file *file, const void __user *in,
			   u32 in_len, u32 out_len);
int ucma_cmd_join_mcast(struct ucma_file *file, const void __user *in,
			u32 in_len, u32 out_len);
int ucma_cmd_leave_mcast(struct ucma_file *file, const void __user *in,
			 u32 in_len, u32 out_len);
void ucma_mc_free_all(struct ucma_ctx *ctx);

#endif /* UCMA_PRIV_H */
