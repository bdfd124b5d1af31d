/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * iWARP connection manager: what the files of iw_cm.ko share.
 *
 * Documentation/infiniband/iw_cm.rst describes the state machine, the
 * provider contract, the locking and the event ordering.
 */
#ifndef IWCM_PRIV_H
#define IWCM_PRIV_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

/* Private data of an iWARP event: struct iw_cm_event has a u8 length. */
#define IWCM_PDATA_MAX		U8_MAX

/* Bounds of a listener's connection request pool (its backlog). */
#define IWCM_DEFAULT_BACKLOG	256
#define IWCM_MAX_BACKLOG	8192

/*
 * The states of an id.  Only iw_cm sees them; none is ABI.
 *
 * CONN_RECV: a passive id, its CONNECT_REQUEST delivered or being
 * delivered, neither accepted nor rejected yet.  CONN_ACCEPTED: the
 * provider accepted it and ESTABLISHED is due.  CONN_SENT: an active id
 * waiting for CONNECT_REPLY.
 */
enum iwcm_state {
	IWCM_IDLE,
	IWCM_LISTEN,
	IWCM_CONN_RECV,
	IWCM_CONN_ACCEPTED,
	IWCM_CONN_SENT,
	IWCM_ESTABLISHED,
	IWCM_CLOSING,
	IWCM_DESTROYING,
};

/* Bits of iwcm_id_private.flags, all under iwcm_id_private.lock. */
enum {
	/* event work queued or running; holds a reference on the id */
	IWCM_F_SCHEDULED	= BIT(0),
	/* a downcall (listen, connect, accept, reject) is in the provider */
	IWCM_F_BUSY		= BIT(1),
	/* passive id whose CONNECT_REQUEST is being delivered */
	IWCM_F_HOLD		= BIT(2),
	/* iw_accept or iw_reject was called for this passive id */
	IWCM_F_ANSWERED		= BIT(3),
	/* disconnect asked for before the connection was up */
	IWCM_F_DISC_PENDING	= BIT(4),
	IWCM_F_DISC_ABRUPT	= BIT(5),
	/* an unexpected provider event was logged for this id */
	IWCM_F_WARNED		= BIT(6),
	/* the id's addresses are registered with the port mapper */
	IWCM_F_MAPPED		= BIT(7),
};

/*
 * An event queued on an id.  Every id has one slot per connection event
 * type (a connection sees each at most once); a listener has a pool of
 * CONNECT_REQUEST slots, one per backlog entry, each with room for the
 * request's private data.  Nothing is allocated in the upcall.
 */
struct iwcm_evt {
	struct list_head node;		/* on the id's queue or the pool */
	struct iw_cm_event ev;
	bool owns_pdata;		/* ev.private_data is the id's pdata */
	/* passive id: its listener's requests queued before this event */
	s64 ticket;
};

struct iwcm_req {
	struct iwcm_evt evt;
	u8 pdata[IWCM_PDATA_MAX];
};

struct iwcm_req_pool {
	int size;
	int in_use;
	struct list_head free;
	struct iwcm_req req[];
};

/* CONNECT_REPLY, ESTABLISHED, DISCONNECT and CLOSE. */
#define IWCM_NR_CONN_EVENTS	(IW_CM_EVENT_CLOSE - IW_CM_EVENT_CONNECT_REQUEST)

struct iwcm_id_private {
	struct iw_cm_id id;

	spinlock_t lock;		/* everything below but refcount */
	enum iwcm_state state;
	unsigned long flags;
	struct ib_qp *qp;		/* with an iw_add_ref() reference */
	struct task_struct *cb_task;	/* running a consumer callback */
	wait_queue_head_t wait;		/* BUSY, SCHEDULED, cb_task cleared */
	struct list_head evq;		/* queued events, oldest first */

	refcount_t refcount;
	struct work_struct event_work;
	struct work_struct free_work;
	struct work_struct close_work;	/* passive id: the QP back at CLOSE */

	struct iwcm_req_pool *pool;	/* listener: CONNECT_REQUEST slots */
	struct iwcm_id_private *spare;	/* listener: id to reject with */
	/*
	 * Listener: requests queued and requests delivered (or rejected),
	 * changed under its lock, and the passive ids whose next event
	 * waits for an earlier request to be delivered.
	 */
	atomic64_t req_queued;
	atomic64_t req_done;
	struct list_head parked;
	/* passive id: its listener (referenced), and its place in parked */
	struct iwcm_id_private *listener;
	struct list_head park_node;

	struct iwcm_evt conn_evt[IWCM_NR_CONN_EVENTS];
	bool pdata_busy;
	u8 pdata[IWCM_PDATA_MAX];
};

static inline struct iwcm_id_private *to_iwcm(struct iw_cm_id *id)
{
	return container_of(id, struct iwcm_id_private, id);
}

/* iwcm_main.c */
extern struct workqueue_struct *iwcm_wq;
int iwcm_default_backlog(void);
unsigned long iwcm_mpa_timeout(bool request);
u8 iwcm_mpa_version(void);

/* iwcm_host.c */
int iwcm_host_init(void);
void iwcm_host_exit(void);
void iwcm_host_abort(struct iw_cm_id *cm_id);

/* iwcm_id.c: the id object */
struct iwcm_id_private *iwcm_alloc_id(struct ib_device *device,
				      iw_cm_handler handler, void *context);
void iwcm_put(struct iwcm_id_private *cm);
struct ib_qp *iwcm_take_qp(struct iwcm_id_private *cm);
void iwcm_put_qp(struct iwcm_id_private *cm, struct ib_qp *qp);
void iwcm_log_unexpected(struct iwcm_id_private *cm, const char *what,
			 int event, int status);
void iwcm_wait_idle(void);
int iwcm_id_init(void);
void iwcm_id_exit(void);

/* iwcm_event.c: the event queue and delivery, uses iwcm_id.c */
struct iwcm_id_private *iwcm_new_id(struct ib_device *device,
				    iw_cm_handler handler, void *context);
void iwcm_schedule(struct iwcm_id_private *cm);
void iwcm_purge_events(struct iwcm_id_private *cm);
void iwcm_destroy(struct iwcm_id_private *cm);
void iwcm_disconnect_now(struct iwcm_id_private *cm, bool abrupt);

/* iwcm_pm.c */
int iwcm_pm_init(void);
void iwcm_pm_exit(void);
int iwcm_pm_map(struct iwcm_id_private *cm, bool active);
void iwcm_pm_unmap(struct iwcm_id_private *cm);
void iwcm_pm_passive_addrs(struct iwcm_id_private *listener,
			   struct iwcm_id_private *child,
			   struct iw_cm_event *ev);

#endif /* IWCM_PRIV_H */
