/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RDMA connection manager: what the files of rdma_cm.ko share.
 *
 * Documentation/infiniband/rdma_cm.rst describes the id states, the
 * transport switch, the port spaces, the locking and the event ordering.
 */
#ifndef _CMA_PRIV_H
#define _CMA_PRIV_H

#include <linux/align.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/container_of.h>
#include <linux/in6.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

struct cma_device;
struct cma_multicast;
struct cma_transport_ops;
struct cred;
struct ib_cm_event;
struct ib_cm_id;
struct ib_gid_attr;
struct ib_sa_multicast;
struct ib_sa_query;
struct iw_cm_id;
struct net;
struct net_device;
struct sa_path_rec;

/*
 * The states of an id.  The numbering is ABI: ib_core's nldev reports
 * the state of every tracked id as a u8 (RDMA_NLDEV_ATTR_RES_STATE) and
 * iproute2's "rdma resource show cm_id" prints names by these values.
 */
enum rdma_cm_state {
	RDMA_CM_IDLE		= 0,
	RDMA_CM_ADDR_QUERY	= 1,
	RDMA_CM_ADDR_RESOLVED	= 2,
	RDMA_CM_ROUTE_QUERY	= 3,
	RDMA_CM_ROUTE_RESOLVED	= 4,
	RDMA_CM_CONNECT		= 5,
	RDMA_CM_DISCONNECT	= 6,
	RDMA_CM_ADDR_BOUND	= 7,
	RDMA_CM_LISTEN		= 8,
	RDMA_CM_DEVICE_REMOVAL	= 9,
	RDMA_CM_DESTROYING	= 10,
	RDMA_CM_NR_STATES
};

/*
 * What an id owes its peer.  A passive id answers its request once, with
 * rdma_accept() or rdma_reject(); the active side of an IB connection
 * without a kernel QP answers the reply (CONNECT_RESPONSE) once, with
 * rdma_accept(NULL) (the RTU) or rdma_reject().  Any other answer is
 * refused before it reaches the transport: ib_cm told to reject a
 * request it sent leaves that request's MAD outstanding, and the
 * destroy of the id then waits out all of its retries.
 */
enum cma_answer {
	CMA_ANSWER_NONE,	/* nothing to answer */
	CMA_ANSWER_REQ,		/* a request: accept or reject */
	CMA_ANSWER_REP,		/* a reply: the RTU or reject */
	CMA_ANSWER_GIVEN,	/* answered */
};

/*
 * The private id.  ib_core reads some of it straight from memory for the
 * RDMA_RESTRACK_CM_ID entries rdma_cm adds: restrack.c goes from @res to
 * id.device, nldev.c from @res to id.port_num, id.ps, id.qp_type,
 * id.route.addr.{src,dst}_addr, @qp_num and @state.  Out of tree those
 * readers are 6.1's ib_core, compiled against 6.1's layout, which is
 * pinned below (out-of-tree build glue: in tree ib_core is compiled
 * against this header); the other fields are grouped so that the pins
 * hold.
 *
 * Locking (see also rdma_cm.rst):
 *  @lock (spinlock, IRQ-safe) protects @state, @reuseaddr, @afonly,
 *  @afonly_set, @xprt, @mc_list and @answer.  A change of @state into or out of
 *  RDMA_CM_CONNECT also needs @handler_mutex, so that an event handler
 *  holding @handler_mutex sees a stable CONNECT state.
 *  @handler_mutex serialises event delivery and the calls that drive the
 *  transport (connect, accept, reject, disconnect, listen).
 *  @qp_mutex protects id.qp and the QP attribute overrides (@tos,
 *  @timeout, @min_rnr_timer and their *_set bits).
 *  The port space lock of the id's network namespace protects @bind_list
 *  and @bind_node.
 *  Order: @handler_mutex, then the port space lock, then @lock.
 */
struct rdma_id_private {
	/* Public part; at offset 0, restrack and nldev read id.device. */
	struct rdma_cm_id	id;

	/* 100 bytes of fixed-size fields up to @state. */
	const struct cma_transport_ops *xprt;	/* set once, at bind */
	struct cma_bind_list	*bind_list;	/* port held, or NULL */
	struct hlist_node	bind_node;	/* on bind_list->owners */
	struct list_head	device_item;	/* on cma_dev's or listen-any */
	union {
		/* wildcard listener: its per-device listeners */
		struct list_head listen_list;
		/* per-device listener: on its parent's listen_list */
		struct list_head listen_item;
	};
	struct list_head	mc_list;	/* multicast groups joined */
	struct cma_device	*cma_dev;	/* device bound to, or NULL */
	u32			qkey;		/* UD ids */
	u32			seq_num;	/* starting PSN, 24 bits */
	u8			internal_id;	/* a per-device listener */
	u8			reuseaddr;
	u8			afonly;
	u8			afonly_set;	/* afonly chosen by the user */

	enum rdma_cm_state	state;		/* pinned: nldev */
	spinlock_t		lock;		/* see above */
	struct mutex		qp_mutex;	/* id.qp, QP overrides */
	struct completion	comp;		/* last reference dropped */
	refcount_t		refcount;
	struct mutex		handler_mutex;	/* events, transport calls */

	/* 40 bytes of fixed-size fields up to @qp_num. */
	union {
		struct ib_cm_id	*ib;
		struct iw_cm_id	*iw;
	} cm_id;				/* the transport's id */
	struct ib_sa_query	*query;		/* route or join query */
	int			query_id;
	int			backlog;
	int			timeout_ms;
	enum rdma_ucm_port_space bound_ps;	/* port space of @bind_list */
	u8			used_resolve_ip;
	enum ib_gid_type	gid_type;	/* RoCE GID type of the id */

	u32			qp_num;		/* pinned: nldev */

	/* 14 to 20 bytes of fixed-size fields up to @res. */
	struct rdma_ucm_ece	ece;
	u8			answer;		/* enum cma_answer */
	u8			srq;		/* the QP has an SRQ */
	u8			tos;
	u8			timeout;
	u8			min_rnr_timer;
	u8			tos_set:1;
	u8			timeout_set:1;
	u8			min_rnr_timer_set:1;

	struct rdma_restrack_entry res;		/* pinned: restrack, nldev */

	/* Past the pinned layout: free to grow. */
	struct hlist_node	neigh_node;	/* cma_netevent.c's table */
	struct rcu_head		rcu;		/* freeing a watched id */
	u8			neigh_watched;	/* on the neighbour table */
	u8			neigh_rcu;	/* was: free after a grace */
	/* cma_queue_event(): the one step result of rdma_cm's own queued */
	struct work_struct	step_work;	/* holds a reference */
	enum rdma_cm_state	step_from;
	enum rdma_cm_state	step_to;
	enum rdma_cm_event_type	step_event;
	/* wildcard listener: whose per-device listeners act for it */
	const struct cred	*listen_cred;
};

/*
 * Out-of-tree build glue (see above), down to the production layout's
 * static_assert: where Linux 6.1's struct rdma_id_private has @state,
 * @qp_num and @res, which 6.1's ib_core reads.
 *
 * Lock sizes depend on the kernel configuration (lockdep and spinlock
 * debugging grow them, and with them struct rdma_cm_id, whose net_work
 * holds a lockdep map), and ib_core of the same kernel was compiled
 * with the same sizes, so the offsets are computed the way that layout
 * accumulates them rather than written as numbers:
 *  - @state follows id and 100 bytes of pointers, lists and an int;
 *  - then a spinlock, a mutex, a completion, a refcount and a mutex;
 *  - then 40 bytes (two ints, a pointer, an int and padding, a pointer,
 *    two u32s) up to @qp_num, always 8-byte aligned after a mutex;
 *  - then 20 bytes and padding up to @res, which is 8-byte aligned.
 * With Debian's production configuration they are 604, 760 and 784.
 */
#define CMA_STOCK_STATE_OFFSET	(sizeof(struct rdma_cm_id) + 100)
#define CMA_STOCK_LOCK_OFFSET						\
	ALIGN(CMA_STOCK_STATE_OFFSET + sizeof(enum rdma_cm_state),	\
	      __alignof__(spinlock_t))
#define CMA_STOCK_QP_MUTEX_OFFSET					\
	ALIGN(CMA_STOCK_LOCK_OFFSET + sizeof(spinlock_t),		\
	      __alignof__(struct mutex))
#define CMA_STOCK_COMP_OFFSET						\
	ALIGN(CMA_STOCK_QP_MUTEX_OFFSET + sizeof(struct mutex),		\
	      __alignof__(struct completion))
#define CMA_STOCK_HANDLER_MUTEX_OFFSET					\
	ALIGN(CMA_STOCK_COMP_OFFSET + sizeof(struct completion) +	\
	      sizeof(refcount_t), __alignof__(struct mutex))
#define CMA_STOCK_QP_NUM_OFFSET						\
	(CMA_STOCK_HANDLER_MUTEX_OFFSET + sizeof(struct mutex) + 40)
#define CMA_STOCK_RES_OFFSET	(CMA_STOCK_QP_NUM_OFFSET + 24)

static_assert(offsetof(struct rdma_id_private, id) == 0);
static_assert(offsetof(struct rdma_id_private, state) ==
	      CMA_STOCK_STATE_OFFSET);
static_assert(sizeof(((struct rdma_id_private *)0)->state) == 4);
static_assert(offsetof(struct rdma_id_private, qp_num) ==
	      CMA_STOCK_QP_NUM_OFFSET);
static_assert(offsetof(struct rdma_id_private, res) == CMA_STOCK_RES_OFFSET);
static_assert(__alignof__(struct mutex) == 8 && sizeof(struct mutex) % 8 == 0);
static_assert(__alignof__(struct rdma_restrack_entry) == 8);

/* The numbers of Debian's production kernel, where locks have no debug. */
#define CMA_STOCK_LAYOUT_PRODUCTION					\
	(sizeof(struct rdma_cm_id) == 504 && sizeof(spinlock_t) == 4 &&	\
	 sizeof(struct mutex) == 32 && sizeof(struct completion) == 32)
static_assert(!CMA_STOCK_LAYOUT_PRODUCTION ||
	      (CMA_STOCK_STATE_OFFSET == 604 &&
	       CMA_STOCK_QP_NUM_OFFSET == 760 && CMA_STOCK_RES_OFFSET == 784));

/* The public id inside the private one, and back. */
static inline struct rdma_id_private *cma_id_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

/* A reference that keeps the id from being freed (destroy waits). */
static inline void cma_id_get(struct rdma_id_private *id_priv)
{
	refcount_inc(&id_priv->refcount);
}

static inline const struct sockaddr_in *cma_sin(const struct sockaddr *addr)
{
	return (const struct sockaddr_in *)addr;
}

static inline const struct sockaddr_in6 *cma_sin6(const struct sockaddr *addr)
{
	return (const struct sockaddr_in6 *)addr;
}

static inline struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.dst_addr;
}

static inline struct net *cma_id_net(struct rdma_id_private *id_priv)
{
	return id_priv->id.route.addr.dev_addr.net;
}

/*
 * Whether an id still takes events: neither destroy nor device removal
 * has claimed it.  Read under handler_mutex, which both take.
 */
static inline bool cma_id_live(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state state = READ_ONCE(id_priv->state);

	return state != RDMA_CM_DESTROYING && state != RDMA_CM_DEVICE_REMOVAL;
}

/*
 * The transport switch.
 *
 * Each transport (ib_cm for IB and RoCE ports, iw_cm for iWARP ports)
 * supplies one const table.  An id picks its table once, when it gets a
 * device port (bind to a specific address, address resolution, a
 * per-device listener, or a passive id inheriting its listener's), and
 * keeps it until it is destroyed: no operation tests the node type or
 * the port capabilities again.  A wildcard listener spans devices and
 * has none; its per-device listeners have one each.
 */

/**
 * struct cma_transport_ops - What the rdma_cm core asks of a transport.
 * @name: short name for messages ("ib_cm", "iw_cm").
 * @resolve_route: start route resolution (IB: SA PathRecord query;
 *	RoCE: a local path record; iWARP: nothing to resolve).  The result
 *	arrives as ROUTE_RESOLVED or ROUTE_ERROR, from the core's work.
 *	Once the result is queued the id may be gone (its handler may
 *	destroy it): touch it after that only under a reference of one's own.
 * @set_path: complete a path record the consumer supplied through
 *	rdma_set_ib_path() (RoCE: the Ethernet fields); NULL if nothing
 *	is needed.
 * @listen: create the transport's listener for the id's service on its
 *	device (IB: an ib_cm listen on the service id; iWARP: iw_cm_listen
 *	with @backlog).
 * @connect: send the connection request (IB: REQ, or SIDR REQ for UD;
 *	iWARP: iw_cm_connect) with the private data of @param.
 * @accept: answer a CONNECT_REQUEST (IB: REP or SIDR REP; iWARP:
 *	iw_cm_accept).  On an active IB id a NULL @param sends the RTU.
 * @reject: refuse a CONNECT_REQUEST with @reason (IB: REJ or SIDR REP
 *	with a reject status; iWARP: iw_cm_reject, no reason on the wire).
 * @disconnect: IB: QP to ERR, then DREQ (or DREP to a received DREQ);
 *	iWARP: graceful iw_cm_disconnect.
 * @notify: a QP async event the transport wants (IB: ib_cm_notify of
 *	COMM_EST); NULL for transports that do not (returns 0).
 * @init_qp_attr: the QP attributes of a connected QP for the transition
 *	to @qp_attr->qp_state.
 * @destroy: release the transport's id.  Called once, from destroy,
 *	after the state became DESTROYING and without @handler_mutex; on
 *	return no transport callback runs or will run for the id.
 * @join: join the multicast group of @mc (IB: an SA join; RoCE: a
 *	group record from the IP address, IGMP for RoCE v2); NULL where
 *	the transport has no multicast (-ENOSYS).
 * @leave: leave a group @join joined.
 * @serves_net: whether ids of @net may use @port, beyond what
 *	rdma_dev_access_netns() allows (iWARP: the port's connections are
 *	TCP connections of its netdev's namespace, so only ids of that
 *	namespace may listen or resolve loopback there); NULL: they may.
 * @src_gid_attr: the GID entry of @port that the id's source address
 *	stands for, with a reference, or an ERR_PTR() (-ENODEV when @port
 *	cannot carry that kind of address).  IB: the GID of the IPoIB
 *	address; RoCE: the GID of the IP address on its netdev, of the
 *	port's default GID type; iWARP: the GID of the device address.
 * @read_gids: the source and destination GIDs of an id attached to a
 *	port (RoCE: derived from the IP addresses; IB and iWARP: those of
 *	the resolved device address); either pointer may be NULL.
 * @req_netdev: IB CM transports: the netdev a REQ or SIDR REQ that
 *	arrived on @port came through, with a reference, or NULL.
 * @reject_msg: the text of a REJECTED event's status (IB CM: a reject
 *	reason; iWARP: a negative errno).
 * @consumer_reject: whether a REJECTED event carries the remote
 *	consumer's reject, and with it the consumer's private data.
 * @dev_type: the ARPHRD type of the port's addresses, given to an id
 *	attached without a source address (loopback).
 * @af_ib: whether the transport's CM takes AF_IB ids, whose service id
 *	and GIDs are IB CM notions (IB and RoCE; not iWARP).
 *
 * Context: process context, after the core checked and changed the
 * state; they may sleep.  @resolve_route runs without @handler_mutex
 * (consumers call rdma_resolve_route() from their ADDR_RESOLVED
 * handler, which holds it), and so do @listen (rdma_listen() may be
 * called from another id's handler), @reject, @disconnect and @notify
 * (which consumers call from any context that is allowed to
 * sleep); @connect and @accept run with it held; @destroy without.  A
 * negative return makes the core undo its state change and report the
 * error to the caller; no event is delivered for a failed call.  Events
 * from the transport reach the core through the transport's own
 * callbacks, which take @handler_mutex and re-check the state before
 * delivering anything.
 */
struct cma_transport_ops {
	const char *name;
	int (*resolve_route)(struct rdma_id_private *id_priv,
			     unsigned long timeout_ms);
	int (*set_path)(struct rdma_id_private *id_priv,
			struct sa_path_rec *path);
	int (*listen)(struct rdma_id_private *id_priv, int backlog);
	int (*connect)(struct rdma_id_private *id_priv,
		       struct rdma_conn_param *param);
	int (*accept)(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *param);
	int (*reject)(struct rdma_id_private *id_priv, const void *pdata,
		      u8 pdata_len, u8 reason);
	int (*disconnect)(struct rdma_id_private *id_priv);
	int (*notify)(struct rdma_id_private *id_priv,
		      enum ib_event_type event);
	int (*init_qp_attr)(struct rdma_id_private *id_priv,
			    struct ib_qp_attr *qp_attr, int *qp_attr_mask);
	void (*destroy)(struct rdma_id_private *id_priv);
	int (*join)(struct rdma_id_private *id_priv, struct cma_multicast *mc);
	void (*leave)(struct rdma_id_private *id_priv,
		      struct cma_multicast *mc);
	bool (*serves_net)(struct ib_device *device, u32 port,
			   const struct net *net);
	const struct ib_gid_attr *(*src_gid_attr)(struct rdma_id_private *id_priv,
						  struct cma_device *cma_dev,
						  u32 port);
	void (*read_gids)(struct rdma_cm_id *id, union ib_gid *sgid,
			  union ib_gid *dgid);
	struct net_device *(*req_netdev)(struct ib_device *device, u32 port,
					 const struct ib_cm_event *ib_event,
					 const struct sockaddr_storage *local);
	const char *(*reject_msg)(int reason);
	bool (*consumer_reject)(const struct rdma_cm_event *ev);
	unsigned short dev_type;
	bool af_ib;
};

/*
 * A multicast group an id joined: on its @mc_list (under its @lock)
 * from rdma_join_multicast() until rdma_leave_multicast() or destroy.
 * RoCE delivers the join from @work; nothing else runs for it after the
 * transport's leave returned.
 */
struct cma_multicast {
	struct list_head	list;
	struct rdma_id_private	*id_priv;
	void			*context;	/* the consumer's, in the event */
	struct sockaddr_storage	addr;
	u8			join_state;
	u8			igmp_joined;	/* RoCE v2: the netdev joined */
	int			ifindex;	/* ... on this netdev */
	struct work_struct	work;
	struct rdma_cm_event	event;		/* RoCE: the join to deliver */
	struct ib_sa_multicast	*sa_mc;		/* IB: the SA's member */
};

/* cma_mcast.c: the id's groups; the transports' joins deliver through it. */
void cma_mcast_leave_all(struct rdma_id_private *id_priv);
void cma_mcast_deliver(struct rdma_id_private *id_priv,
		       struct rdma_cm_event *event);

/*
 * A device the "cma" ib_client was added to: one with at least one port
 * a transport serves.  @id_list holds the ids attached to it (bound,
 * resolved, connected, per-device listeners); each holds a reference,
 * and device removal waits for the last one.
 */
struct cma_device {
	struct list_head	list;		/* on the device list */
	struct ib_device	*device;
	refcount_t		refcount;
	struct completion	comp;		/* last reference dropped */
	spinlock_t		id_lock;	/* @id_list */
	struct list_head	id_list;	/* rdma_id_private.device_item */
	struct list_head	listen_item;	/* on cma_listen.c's devices */
	enum ib_gid_type	*default_gid_type;	/* per port */
	u8			*default_roce_tos;	/* per port */
};

/*
 * What device add and removal tell the listeners (cma_listen.c): @add
 * once the device is listed, @remove before its ids are removed.
 */
struct cma_dev_hooks {
	void (*add)(struct cma_device *cma_dev);
	void (*remove)(struct cma_device *cma_dev);
};

/* cma_dev.c: the "cma" ib_client and the device list. */
typedef void (*cma_id_visit_t)(struct rdma_id_private *id_priv, void *arg);
int __init cma_dev_init(const struct cma_dev_hooks *hooks);
void cma_dev_exit(void);
void cma_dev_put(struct cma_device *cma_dev);
int cma_dev_acquire_by_src(struct rdma_id_private *id_priv);
int cma_dev_acquire_loopback(struct rdma_id_private *id_priv);
int cma_dev_acquire_ib(struct rdma_id_private *id_priv,
		       const union ib_gid *dgid, u16 pkey);
void cma_dev_release(struct rdma_id_private *id_priv);
struct cma_device *cma_dev_get_by_name(const char *name);
int cma_dev_acquire_like(struct rdma_id_private *id_priv,
			 struct rdma_id_private *listener);
int cma_dev_attach_listener(struct rdma_id_private *id_priv,
			    struct cma_device *cma_dev);
void cma_dev_visit_ids(cma_id_visit_t fn, void *arg);
int cma_dev_default_gid_type(struct cma_device *cma_dev, u32 port);
int cma_dev_set_default_gid_type(struct cma_device *cma_dev, u32 port,
				 enum ib_gid_type gid_type);
int cma_dev_default_roce_tos(struct cma_device *cma_dev, u32 port);
int cma_dev_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos);
const struct cma_transport_ops *cma_transport_of(struct ib_device *device,
						 u32 port);
void cma_dev_addr_gids(struct rdma_cm_id *id, union ib_gid *sgid,
		       union ib_gid *dgid);
bool cma_port_serves_net(struct ib_device *device, u32 port, struct net *net);

/* cma_id.c: id lifecycle and event delivery. */
struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler event_handler,
				     void *context, enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     const struct rdma_id_private *parent);
void cma_id_put(struct rdma_id_private *id_priv);
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event);
void cma_deliver_put_unlock(struct rdma_id_private *id_priv,
			    struct rdma_cm_event *event);
void cma_deliver_notice_put(struct rdma_id_private *id_priv,
			    struct rdma_cm_event *event);
int cma_deliver_unlock(struct rdma_id_private *id_priv,
		       struct rdma_cm_event *event);
void cma_destroy_handler_unlock(struct rdma_id_private *id_priv);
void cma_id_discard(struct rdma_id_private *id_priv);
void cma_remove_id(struct rdma_id_private *id_priv);
bool cma_queue_work(struct work_struct *work);
int cma_queue_notice(struct rdma_id_private *id_priv,
		     enum rdma_cm_event_type type);
int cma_queue_event(struct rdma_id_private *id_priv, enum rdma_cm_state from,
		    enum rdma_cm_state to, enum rdma_cm_event_type type);
int __init cma_id_init(void);
void cma_id_exit(void);

/* cma_sa.c: the SA client: IB path queries and multicast joins. */
int cma_sa_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms);
void cma_sa_cancel(struct rdma_id_private *id_priv);
int cma_sa_join(struct rdma_id_private *id_priv, struct cma_multicast *mc);
void cma_sa_leave(struct rdma_id_private *id_priv, struct cma_multicast *mc);
void __init cma_sa_init(void);
void cma_sa_exit(void);

/* cma_netevent.c: the neighbour watch of RoCE ids. */
void cma_netevent_id_init(struct rdma_id_private *id_priv);
void cma_neigh_watch(struct rdma_id_private *id_priv);
bool cma_neigh_unwatch(struct rdma_id_private *id_priv);
int __init cma_netevent_init(void);
void cma_netevent_exit(void);

/* cma_conn.c: connections. */
void cma_answer_owe(struct rdma_id_private *id_priv, enum cma_answer what);

/* cma_listen.c: listeners, per-device listeners of wildcard ones. */
extern const struct cma_dev_hooks cma_listen_dev_hooks;
void cma_listen_unlist_any(struct rdma_id_private *id_priv);
struct rdma_id_private *cma_listen_child_on(struct rdma_id_private *parent,
					    struct ib_device *device);
void cma_listen_stop(struct rdma_id_private *id_priv);
bool cma_listen_remove_child(struct rdma_id_private *child);
struct rdma_id_private *cma_listen_new_conn(struct rdma_id_private *listener,
					    struct net *net,
					    enum ib_qp_type qp_type);

/* cma_qp.c: the id's QP through a connection's steps. */
int cma_qp_ready(struct rdma_id_private *id_priv,
		 const struct rdma_conn_param *param);
int cma_qp_rts(struct rdma_id_private *id_priv,
	       const struct rdma_conn_param *param);
int cma_qp_error(struct rdma_id_private *id_priv);

/* cma_bind.c: binding to a local address. */
int cma_get_port(struct rdma_id_private *id_priv);
int cma_bind(struct rdma_id_private *id_priv, const struct sockaddr *addr);

/* The tables: cma_ib.c, cma_roce.c and cma_iw.c. */
extern const struct cma_transport_ops cma_ib_transport;
extern const struct cma_transport_ops cma_roce_transport;
extern const struct cma_transport_ops cma_iw_transport;

/* cma_ib.c, cma_ib_conn.c: what both IB CM tables share. */
int cma_ib_cm_init_qp_attr(struct rdma_id_private *id_priv, u16 pkey,
			   struct ib_qp_attr *qp_attr, int *qp_attr_mask);
int cma_ib_listen(struct rdma_id_private *id_priv, int backlog);
int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *param);
int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *param);
int cma_ib_reject(struct rdma_id_private *id_priv, const void *pdata,
		  u8 pdata_len, u8 reason);
int cma_ib_disconnect(struct rdma_id_private *id_priv);
int cma_ib_notify(struct rdma_id_private *id_priv, enum ib_event_type event);
void cma_ib_destroy(struct rdma_id_private *id_priv);
struct net_device *cma_ib_req_netdev(struct ib_device *device, u32 port,
				     const struct ib_cm_event *ib_event,
				     const struct sockaddr_storage *local);
bool cma_ib_consumer_reject(const struct rdma_cm_event *ev);
void *cma_ib_req_pdata(struct rdma_id_private *id_priv,
		       const struct rdma_conn_param *param, u8 max, u8 *len);
int cma_ib_qkey(struct rdma_id_private *id_priv);

/* cma_ib_sidr.c: UD ids over ib_cm's service id resolution. */
int cma_ib_sidr_req(struct rdma_id_private *id_priv,
		    struct rdma_conn_param *param);
int cma_ib_sidr_rep(struct rdma_id_private *id_priv,
		    int status, u32 qkey,
		    const void *pdata, u8 pdata_len);

/* cma_roce_net.c: what a RoCE path takes from the netdev stack */

struct cma_vlan_ops {
	bool (*is_vlan)(const struct net_device *dev);
	/* the VLAN priority a VLAN device's egress map gives @prio */
	u8 (*egress_pcp)(struct net_device *dev, u8 prio);
};

extern const struct cma_vlan_ops cma_vlan_ops;
u8 cma_roce_prio_sl(const struct cma_vlan_ops *ops, struct net_device *ndev,
		    u8 prio);
u8 cma_roce_tos_to_sl(struct net_device *ndev, u8 tos);
enum ib_gid_type cma_roce_route_gid_type(enum rdma_network_type network,
					 unsigned long supported,
					 enum ib_gid_type def);

/* cma_route.c: route resolution. */
void cma_route_reset(struct rdma_id_private *id_priv);

/* cma_state.c: the id state machine. */
bool cma_state_legal(enum rdma_cm_state from, enum rdma_cm_state to);
const char *cma_state_name(enum rdma_cm_state state);
void cma_state_init(struct rdma_id_private *id_priv,
		    enum rdma_cm_state state);
int cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state from,
		  enum rdma_cm_state to);
enum rdma_cm_state cma_exch(struct rdma_id_private *id_priv,
			    enum rdma_cm_state to);
int cma_set_transport(struct rdma_id_private *id_priv,
		      const struct cma_transport_ops *xprt);

/* cma_addr.c: socket address helpers. */
bool cma_zero_addr(const struct sockaddr *addr);
bool cma_loopback_addr(const struct sockaddr *addr);
bool cma_any_addr(const struct sockaddr *addr);
bool cma_family_supported(const struct sockaddr *addr);
bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b);
void cma_ib_mgid(const struct sockaddr *addr, const unsigned char *broadcast,
		 bool udp, union ib_gid *mgid);
u16 cma_addr_port(const struct sockaddr *addr);
void cma_addr_set_port(struct sockaddr *addr, u16 port);

/* cma_hdr.c: the IP private-data header and IB service ids. */

/*
 * The header an IP-addressed IB or RoCE REQ and SIDR REQ carry at the
 * head of their private data, as every rdma_cm peer sends and expects it
 * (the IP CM service's private data format).
 * @src_addr and @port are the requester's, @dst_addr the address it
 * connects to; IPv4 addresses are in the last 4 bytes of 16.
 */
union cma_ip_addr {
	struct in6_addr	ip6;
	struct {
		__be32	pad[3];
		__be32	addr;
	} ip4;
};

struct cma_hdr {
	u8			cma_version;	/* CMA_VERSION */
	u8			ip_version;	/* bits 7:4: 4 or 6 */
	__be16			port;
	union cma_ip_addr	src_addr;
	union cma_ip_addr	dst_addr;
};

#define CMA_VERSION	0x00
#define CMA_HDR_SIZE	36
static_assert(sizeof(struct cma_hdr) == CMA_HDR_SIZE);
static_assert(offsetof(struct cma_hdr, src_addr) == 4);
static_assert(offsetof(struct cma_hdr, dst_addr) == 20);

int cma_hdr_encode(void *buf, size_t len, const struct sockaddr *src,
		   const struct sockaddr *dst);
int cma_hdr_decode(const void *pdata, size_t len, __be64 service_id,
		   struct sockaddr_storage *local,
		   struct sockaddr_storage *remote);
__be64 cma_service_id(enum rdma_ucm_port_space ps, u16 port);
enum rdma_ucm_port_space cma_service_id_ps(__be64 service_id);
u16 cma_service_id_port(__be64 service_id);

/* cma_ps.c: port spaces (TCP, UDP, IPOIB, IB), one set per namespace. */

/* The ids holding one port of one port space. */
struct cma_bind_list {
	struct hlist_node	node;		/* in a cma_ps_table bucket */
	struct hlist_head	owners;		/* rdma_id_private.bind_node */
	enum rdma_ucm_port_space ps;
	u16			port;
};

#define CMA_PS_HASH_MIN_BITS	6	/* the buckets inside the table */
#define CMA_PS_HASH_MAX_BITS	16

struct cma_ps_table {
	struct mutex		lock;		/* buckets, bind lists */
	struct hlist_head	*buckets;	/* (ps, port) -> bind list */
	unsigned int		hash_bits;
	unsigned int		nr_ports;	/* bind lists in the buckets */
	struct net		*net;
	u16			last_port;	/* last ephemeral port */
	struct hlist_head	first[1 << CMA_PS_HASH_MIN_BITS];
};

/* A bound address as the conflict rules see it. */
struct cma_port_claim {
	const struct sockaddr	*src;	/* bound address */
	const struct sockaddr	*dst;	/* destination, for auto-bind */
	bool			reuseaddr;
	bool			afonly;
};

int cma_port_check_bind(const struct cma_port_claim *want,
			const struct cma_port_claim *cur);
int cma_port_check_unique(const struct cma_port_claim *want,
			  const struct cma_port_claim *cur);
bool cma_port_privileged(struct net *net, u16 port);
enum rdma_ucm_port_space cma_ps_select(struct rdma_id_private *id_priv);
void cma_ps_table_init(struct cma_ps_table *table, struct net *net);
void cma_ps_table_destroy(struct cma_ps_table *table);
struct cma_ps_table *cma_ps_table(struct net *net);
int cma_ps_get_port(struct cma_ps_table *table,
		    enum rdma_ucm_port_space ps,
		    struct rdma_id_private *id_priv);
int cma_ps_listen_check(struct cma_ps_table *table,
			struct rdma_id_private *id_priv);
void cma_ps_put_port(struct cma_ps_table *table,
		     struct rdma_id_private *id_priv);
bool cma_ps_listener_on_port(const struct rdma_id_private *l, u32 port);
struct rdma_id_private *cma_ps_find_listener(struct cma_ps_table *table,
					     enum rdma_ucm_port_space ps,
					     u16 port,
					     const struct sockaddr *local,
					     struct ib_device *device);
int __init cma_ps_init(void);
void cma_ps_exit(void);

/* cma_opt.c: which options an id accepts, and when. */
int cma_opt_check_reuseaddr(enum rdma_cm_state state, int reuse);
int cma_opt_check_afonly(enum rdma_cm_state state);
int cma_opt_check_ack_timeout(enum ib_qp_type qp_type);
int cma_opt_check_min_rnr_timer(enum ib_qp_type qp_type, u8 min_rnr_timer);
bool cma_opt_req_qp_type(enum ib_qp_type listener, enum ib_qp_type req);

#if IS_ENABLED(CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS)
int __init cma_configfs_init(void);
void __exit cma_configfs_exit(void);
#else
static inline int cma_configfs_init(void)
{
	return 0;
}

static inline void cma_configfs_exit(void)
{
}
#endif

#endif /* _CMA_PRIV_H */
