/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * swiw: a software iWARP provider with no connection code of its own.
 * iw_cm's host-integrated model (include/rdma/iw_host.h) connects,
 * listens, accepts and negotiates MPA; swiw gets the established stream
 * and runs RDMAP/DDP/MPA on it.  Documentation/infiniband/swiw.rst.
 */
#ifndef SWIW_H
#define SWIW_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/iw_host.h>
#include <rdma/siw-abi.h>

#include "swiw_wire.h"

#define SWIW_MAX_QP		8192
#define SWIW_MAX_QP_WR		4096
#define SWIW_MAX_SGE		6
#define SWIW_MAX_CQ		8192
#define SWIW_MAX_CQE		65536
#define SWIW_MAX_PD		8192
#define SWIW_MAX_MR		65536
#define SWIW_MAX_RD_ATOM	32
#define SWIW_MAX_INLINE		SIW_MAX_INLINE
#define SWIW_MAX_FRMR_PAGES	256
#define SWIW_MAX_SRQ		8192
#define SWIW_MAX_SRQ_WR		SWIW_MAX_QP_WR

/* Per-device counters: `rdma statistic show link DEV/1`. */
enum swiw_counter {
	SWIW_CNT_RTR_SENT,
	SWIW_CNT_RTR_RECV,
	SWIW_CNT_TERM_SENT,
	SWIW_CNT_TERM_RECV,
	SWIW_CNT_LARGE,			/* streams sent in FPDUs past the MSS */
	SWIW_CNT_MAX,
};

struct swiw_dev {
	struct ib_device ibdev;
	struct net_device *netdev;
	struct list_head list;		/* on swiw_devs */
	enum ib_port_state state;
	struct xarray qps;		/* by QPN */
	struct xarray mrs;		/* by STag index */
	u32 mr_next;
	u32 qp_next;
	atomic_t nr_qp;
	atomic_t nr_cq;
	atomic_t nr_pd;
	atomic_t nr_mr;
	atomic_t nr_srq;
	atomic64_t counter[SWIW_CNT_MAX];
};

static inline void swiw_count(struct swiw_dev *sdev, enum swiw_counter c)
{
	atomic64_inc(&sdev->counter[c]);
}

static inline struct swiw_dev *to_swiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct swiw_dev, ibdev);
}

/* Count one more object against a device limit; false when at it. */
static inline bool swiw_count_get(atomic_t *nr, int max)
{
	if (atomic_inc_return(nr) <= max)
		return true;
	atomic_dec(nr);
	return false;
}

struct swiw_pd {
	struct ib_pd ibpd;
};

struct swiw_ucontext {
	struct ib_ucontext base;
};

/* A queue a user process maps (siw's layout, rdma-core's libsiw). */
struct swiw_umap {
	struct rdma_user_mmap_entry entry;
	void *addr;			/* vmalloc_user() memory */
};

struct swiw_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* ring and arming */
	struct ib_wc *wc;
	u32 size;			/* a power of two */
	u32 head;			/* free running: next to fill */
	u32 tail;			/* free running: next to poll */
	u8 armed;			/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool overflowed;		/* IB_EVENT_CQ_ERR reported */
	/* A user CQ: the ring libsiw polls instead of wc. */
	struct siw_cqe *ucqe;
	struct siw_cq_ctrl *uctrl;
	struct rdma_user_mmap_entry *umap;
};

static inline struct swiw_cq *to_swiw_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct swiw_cq, ibcq);
}

struct swiw_mr {
	struct ib_mr ibmr;
	struct rcu_head rcu;
	struct work_struct release;	/* the last put, in atomic context */
	refcount_t ref;			/* published, and each swiw_mr_piece() */
	/* Fast-reg MRs: uses for the peer in the registration's pages now. */
	atomic_t users;
	struct ib_pd *pd;		/* set before the MR is published */
	struct ib_umem *umem;		/* user memory: its pages are pages */
	bool dma;			/* any kernel address: get_dma_mr */
	/*
	 * The registration: fast-reg MRs change it (REG_MR, invalidation)
	 * under lock, inside seq, and a use reads it all inside seq.
	 */
	spinlock_t lock;
	seqcount_spinlock_t seq;
	u32 stag;			/* the current key */
	bool valid;
	int access;
	u64 iova;
	u64 length;
	u64 *pages;			/* kernel addresses of pages */
	u32 npages;
	u32 page_shift;
	/* Fast-reg MRs: what map_mr_sg gave, for the next REG_MR. */
	u64 *map;
	u32 map_npages;
	u32 max_pages;
};

static inline struct swiw_mr *to_swiw_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct swiw_mr, ibmr);
}

/* Where a send queue request is. */
enum swiw_wqe_state {
	SWIW_WQE_QUEUED,		/* not sent yet */
	SWIW_WQE_READING,		/* READ request sent, response due */
	SWIW_WQE_DONE,			/* complete once those before are */
};

/* A work request as a queue keeps it; send and receive share the form. */
struct swiw_wqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	enum swiw_wqe_state state;
	enum ib_wc_status status;
	bool signaled;
	bool solicited;
	bool fence;			/* after every READ before it is done */
	bool inl;			/* the payload is inline_data */
	u8 num_sge;
	u32 rkey;			/* WRITE, READ: the peer's; SEND_INV */
	u64 raddr;
	u32 bytes;			/* sum of the SGE lengths */
	struct ib_mr *mr;		/* REG_MR */
	int access;			/* REG_MR */
	struct ib_sge sge[SWIW_MAX_SGE];
	u8 inline_data[SWIW_MAX_INLINE];
};

struct swiw_ring {
	struct swiw_wqe *wqe;
	u32 size;			/* a power of two */
	u32 head;			/* free running: next to post */
	u32 next;			/* send queue: next to send */
	u32 tail;			/* free running: oldest posted */
	bool flushed;			/* ERROR, and found empty since */
};

/* An inbound READ request, waiting for its response to be sent. */
struct swiw_rreq {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

enum swiw_qp_state {
	SWIW_QP_IDLE,			/* RESET, INIT, RTR: no stream yet */
	SWIW_QP_RTS,			/* the stream is ours */
	SWIW_QP_ERROR,			/* closing or closed, queues flushed */
};

enum swiw_rx_step {
	SWIW_RX_HDR,
	SWIW_RX_PAYLOAD,
	SWIW_RX_TRAILER,
	SWIW_RX_DONE,			/* all in and checked, to complete */
};

/* Where the payload of the FPDU being read goes. */
enum swiw_rx_target {
	SWIW_RX_DISCARD,
	SWIW_RX_RQE,			/* the receive in rqe, at placed */
	SWIW_RX_TAGGED,			/* tkey at taddr */
};

/*
 * Why an inbound message ends the stream; each has its TERMINATE
 * (swiw_rx_term()).  The STag faults come twice: for the sink of a
 * tagged message, reported by DDP, and for the source of a READ
 * request, reported by RDMAP, in the same order.
 */
enum swiw_fault {
	SWIW_FAULT_NONE,		/* nothing the RFCs name a code for */
	SWIW_FAULT_CRC,
	SWIW_FAULT_DDP_VERSION,		/* of an untagged message */
	SWIW_FAULT_DDP_VERSION_T,	/* of a tagged one */
	SWIW_FAULT_RDMAP_VERSION,
	SWIW_FAULT_OPCODE,		/* unknown, or not expected now */
	SWIW_FAULT_QN,
	SWIW_FAULT_NO_BUF,		/* no receive, no room for a READ */
	SWIW_FAULT_MSN,
	SWIW_FAULT_MO,
	SWIW_FAULT_TOO_LONG,		/* a SEND longer than its receive */
	SWIW_FAULT_STAG,		/* no such STag, or not valid */
	SWIW_FAULT_BOUNDS,
	SWIW_FAULT_FOREIGN,		/* an STag of another PD */
	SWIW_FAULT_WRAP,		/* the tagged offset wraps */
	SWIW_FAULT_ACCESS,
	SWIW_FAULT_SRC_STAG,
	SWIW_FAULT_SRC_BOUNDS,
	SWIW_FAULT_SRC_FOREIGN,
	SWIW_FAULT_SRC_WRAP,
	SWIW_FAULT_SRC_ACCESS,
	SWIW_FAULT_INVAL,		/* SEND with invalidate: not ours to */
	SWIW_FAULT_LOCAL,		/* our own receive's lkey */
	SWIW_FAULT_MAX,
};

/* Inbound state: only the QP's rx_work touches it. */
struct swiw_rx {
	enum swiw_rx_step step;
	union swiw_hdr hdr;
	u32 have;			/* bytes of the current step in */
	u32 hdr_len;
	u32 payload;			/* payload bytes of this FPDU */
	u32 pad;
	u32 crc;
	u8 trailer[3 + SWIW_CRC_LEN];
	enum swiw_rx_target target;
	u32 tkey;
	u64 taddr;
	int taccess;
	/* The receive an inbound SEND fills, over its segments. */
	struct swiw_wqe rqe;
	bool rqe_busy;
	bool solicited;
	bool has_inval;			/* SEND with invalidate, of */
	u32 inval;			/* this STag */
	u32 msn;			/* expected SEND MSN */
	u32 placed;			/* bytes of that SEND placed */
	u32 rreq_msn;			/* expected READ request MSN */
	/* The READ whose response is coming in. */
	bool rd_busy;
	bool rd_inv;			/* READ with invalidate: the sink's */
	u32 rd_pos;			/* its place in the send queue */
	struct ib_sge rd_sink;
	u32 rd_got;
	enum swiw_fault fault;		/* why the stream ended, if it did */
};

/* A shared receive queue: the receives of every QP created with it. */
struct swiw_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;		/* rq, limit: any of its QPs' rx works */
	struct swiw_ring rq;
	u32 max_sge;
	u32 limit;			/* armed while non-zero */
	/* A user SRQ: the ring libsiw posts to, slot for slot with rq. */
	struct siw_rqe *urq;
	struct rdma_user_mmap_entry *urq_map;
};

static inline struct swiw_srq *to_swiw_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct swiw_srq, ibsrq);
}

struct swiw_txb;

/* qp->rx_flags: the parser's owner, data_ready or rx_work. */
enum {
	SWIW_RX_BUSY,			/* one of them parses */
	SWIW_RX_AGAIN,			/* rx_work waits for it to finish */
	SWIW_RX_DEAD,			/* the stream failed: nobody parses on */
};

struct swiw_qp {
	struct ib_qp ibqp;
	struct swiw_dev *sdev;
	refcount_t ref;			/* create, iw_cm's iw_add_ref */
	struct completion freed;
	spinlock_t lock;		/* state, rings, irq, sock, cm_id */
	enum swiw_qp_state state;
	bool peer_closed;
	bool sig_all;
	bool sq_completing;		/* someone reports SQ completions */
	bool tx_busy;			/* a sender is writing a message */
	bool rtr_send;			/* peer-to-peer initiator: RTR first */
	bool rtr_wait;			/* peer-to-peer responder: RTR due */
	u32 term;			/* the TERMINATE to send, or 0 */
	int access;			/* as set; reported, not enforced */
	struct swiw_ring sq;
	struct swiw_ring rq;		/* none (size 0) with an SRQ */
	struct swiw_srq *srq;
	u32 orq_count;			/* our READs the peer has to answer */
	struct swiw_rreq irq[SWIW_MAX_RD_ATOM];	/* the peer's READs */
	u32 irq_head;
	u32 irq_tail;
	struct socket *sock;
	struct iw_cm_id *cm_id;
	bool crc;
	bool tx_large;			/* FPDUs past the MSS: the peer takes them */
	u16 ird;
	u16 ord;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct work_struct tx_work;
	/* The stream's one writer: tx_work or a user doorbell. */
	struct mutex tx_mutex;
	struct swiw_txb *txb;		/* the writer's FPDU batch */
	bool tx_batch;			/* the writer uses it in this run */
	bool tx_db;			/* the writer is a doorbell */
	void *tx_rest;			/* what TCP did not take at once */
	u32 tx_rest_len;
	bool tx_torn;			/* the stream stopped mid-FPDU */
	struct work_struct rx_work;
	unsigned long rx_flags;		/* SWIW_RX_* */
	struct work_struct close_work;
	u32 tx_msn;			/* last SEND MSN sent */
	u32 tx_rreq_msn;		/* last READ request MSN sent */
	struct swiw_rx rx;
	/* A user QP: the rings libsiw posts to, slot for slot with sq/rq. */
	struct siw_sqe *usq;
	struct siw_rqe *urq;
	struct rdma_user_mmap_entry *usq_map;
	struct rdma_user_mmap_entry *urq_map;
};

static inline struct swiw_qp *to_swiw_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct swiw_qp, ibqp);
}

extern struct workqueue_struct *swiw_wq;
extern bool swiw_tx_large;

/* swiw_dev.c */
int swiw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata);
int swiw_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr);
int swiw_query_gid(struct ib_device *ibdev, u32 port, int idx,
		   union ib_gid *gid);
int swiw_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *imm);
struct net_device *swiw_get_netdev(struct ib_device *ibdev, u32 port);
void swiw_port_event(struct swiw_dev *sdev, enum ib_event_type type);
struct rdma_hw_stats *swiw_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port);
int swiw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index);
int swiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int swiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* swiw_cq.c */
int swiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int swiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int swiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int swiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
bool swiw_cq_add(struct swiw_cq *cq, const struct ib_wc *wc, bool solicited);

/* swiw_mr.c */
struct ib_mr *swiw_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *swiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int swiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
struct ib_mr *swiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata);
int swiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct swiw_qp;
int swiw_mr_reg(struct swiw_qp *qp, struct ib_mr *ibmr, u32 key, int access);
int swiw_mr_inval(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		  bool wait);
void *swiw_mr_piece(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		    u64 addr, u32 len, int access, u32 *piece,
		    struct swiw_mr **hold);
enum swiw_fault swiw_mr_fault(struct swiw_dev *sdev, struct ib_pd *pd,
			      u32 key, u64 addr, u32 len, int access);
void swiw_mr_release(struct swiw_mr *mr);

/* Let go of what swiw_mr_piece() held; any context. */
static inline void swiw_mr_put(struct swiw_mr *mr)
{
	if (!mr)
		return;
	/* A fast-reg MR is held only by a counted use: swiw_mr_inval(). */
	if (!mr->umem && atomic_dec_and_test(&mr->users))
		wake_up_var(&mr->users);
	if (refcount_dec_and_test(&mr->ref))
		swiw_mr_release(mr);
}

/* swiw_qp.c */
int swiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int swiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int swiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init);
int swiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int swiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad);
int swiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad);
struct ib_qp *swiw_get_qp(struct ib_device *ibdev, int qpn);
void swiw_qp_get(struct ib_qp *ibqp);
void swiw_qp_put(struct ib_qp *ibqp);
int swiw_attach(struct ib_qp *ibqp, struct iw_cm_id *cm_id,
		struct socket *sock, const struct iw_host_params *p);
void swiw_qp_fail(struct swiw_qp *qp);
void swiw_qp_kick(struct swiw_qp *qp, struct work_struct *work);
void swiw_rtr_in(struct swiw_qp *qp, struct socket *sock);
bool swiw_complete(struct swiw_qp *qp, bool recv, const struct swiw_wqe *wqe,
		   enum ib_wc_status status, u32 len, bool solicited, u32 inval);
void swiw_sq_done(struct swiw_qp *qp, u32 pos, enum ib_wc_status status);
int swiw_recv_wqe(const struct ib_recv_wr *wr, u32 max_sge,
		  struct swiw_wqe *wqe);

/* swiw_srq.c */
int swiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata);
int swiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int swiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int swiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int swiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad);
int swiw_srq_take(struct swiw_srq *srq, struct swiw_wqe *wqe);

/* swiw_uverbs.c */
int swiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void swiw_dealloc_ucontext(struct ib_ucontext *uctx);
void swiw_disassociate_ucontext(struct ib_ucontext *uctx);
int swiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void swiw_mmap_free(struct rdma_user_mmap_entry *entry);
void *swiw_uqueue_alloc(struct ib_udata *udata, size_t len,
			struct rdma_user_mmap_entry **map);
void swiw_uqueue_free(void *addr, struct rdma_user_mmap_entry *map);
bool swiw_ucq_add(struct swiw_cq *cq, const struct ib_wc *wc,
		  bool solicited, bool *notify);
void swiw_usq_fetch(struct swiw_qp *qp);
void swiw_urq_fetch(struct swiw_qp *qp);
void swiw_uq_release(struct swiw_qp *qp, bool recv, u32 pos);
void swiw_usrq_fetch(struct swiw_srq *srq);
void swiw_usrq_release(struct swiw_srq *srq, u32 pos);

/* swiw_tx.c */
void swiw_tx_work(struct work_struct *work);
void swiw_tx_doorbell_run(struct swiw_qp *qp);
int swiw_tx_terminate(struct swiw_qp *qp, struct socket *sock, u32 term);

/* swiw_rx.c */
void swiw_rx_work(struct work_struct *work);
bool swiw_rx_direct(struct swiw_qp *qp, struct sock *sk);
void swiw_rx_reset(struct swiw_rx *rx);
u32 swiw_rx_term(enum swiw_fault fault);

/* The fault of a READ's source STag for the one of a sink STag. */
static inline enum swiw_fault swiw_fault_src(enum swiw_fault fault)
{
	static_assert(SWIW_FAULT_SRC_ACCESS - SWIW_FAULT_SRC_STAG ==
		      SWIW_FAULT_ACCESS - SWIW_FAULT_STAG);

	if (fault < SWIW_FAULT_STAG || fault > SWIW_FAULT_ACCESS)
		return SWIW_FAULT_SRC_STAG;
	return fault - SWIW_FAULT_STAG + SWIW_FAULT_SRC_STAG;
}

#endif /* SWIW_H */
