// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: the work queues, the states a QP goes through, and the
 * stream iw_cm hands over.
 *
 * A QP is IDLE until iw_cm attaches an established, MPA-negotiated
 * stream to it; it is then RTS until anything ends the stream (a local
 * disconnect or error, the peer's close, a protocol error), when it
 * turns ERROR and its close work releases the stream, flushes both
 * queues and tells iw_cm (DISCONNECT if the peer closed, then CLOSE).
 * Every transition to ERROR goes through swiw_qp_fail(), and only the
 * close work takes the stream down, so there is one order of teardown.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "swiw.h"

static void swiw_close_work(struct work_struct *work);

/*
 * A user QP's rings: siw's elements, as many as swiw's queues hold; with
 * an SRQ no receive ring (libsiw maps none then).
 */
static int swiw_qp_umap(struct swiw_qp *qp, struct ib_udata *udata)
{
	qp->usq = swiw_uqueue_alloc(udata, qp->sq.size * sizeof(*qp->usq),
				    &qp->usq_map);
	if (!qp->srq)
		qp->urq = swiw_uqueue_alloc(udata,
					    qp->rq.size * sizeof(*qp->urq),
					    &qp->urq_map);
	return qp->usq && (qp->urq || qp->srq) ? 0 : -ENOMEM;
}

static void swiw_qp_unmap(struct swiw_qp *qp)
{
	if (qp->usq)
		swiw_uqueue_free(qp->usq, qp->usq_map);
	if (qp->urq)
		swiw_uqueue_free(qp->urq, qp->urq_map);
}

static int swiw_qp_uresp(struct swiw_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp resp = {
		.qp_id = qp->ibqp.qp_num,
		.num_sqe = qp->sq.size,
		.num_rqe = qp->rq.size,
		.sq_key = rdma_user_mmap_get_offset(qp->usq_map),
	};

	if (qp->urq_map)
		resp.rq_key = rdma_user_mmap_get_offset(qp->urq_map);

	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int swiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibqp->device);
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	struct ib_qp_cap *cap = &attr->cap;
	u32 qpn;
	int ret;

	if (udata && udata->outlen < sizeof(struct siw_uresp_create_qp))
		return -EINVAL;
	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq ||
	    !cap->max_send_wr || cap->max_send_wr > SWIW_MAX_QP_WR ||
	    cap->max_recv_wr > SWIW_MAX_QP_WR ||
	    cap->max_send_sge > SWIW_MAX_SGE ||
	    cap->max_recv_sge > SWIW_MAX_SGE ||
	    cap->max_inline_data > SWIW_MAX_INLINE)
		return -EINVAL;
	if (attr->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    attr->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (!swiw_count_get(&sdev->nr_qp, SWIW_MAX_QP))
		return -ENOMEM;

	qp->sdev = sdev;
	qp->sq.size = roundup_pow_of_two(cap->max_send_wr);
	qp->sq.wqe = kvcalloc(qp->sq.size, sizeof(*qp->sq.wqe), GFP_KERNEL);
	/* With an SRQ the receive queue stays empty, of size 0. */
	if (attr->srq) {
		qp->srq = to_swiw_srq(attr->srq);
	} else {
		qp->rq.size = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
		qp->rq.wqe = kvcalloc(qp->rq.size, sizeof(*qp->rq.wqe),
				      GFP_KERNEL);
	}
	if (!qp->sq.wqe || (!qp->rq.wqe && !qp->srq)) {
		ret = -ENOMEM;
		goto err_free;
	}
	if (udata) {
		ret = swiw_qp_umap(qp, udata);
		if (ret)
			goto err_free;
	}
	refcount_set(&qp->ref, 1);
	init_completion(&qp->freed);
	spin_lock_init(&qp->lock);
	qp->state = SWIW_QP_IDLE;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	INIT_WORK(&qp->tx_work, swiw_tx_work);
	mutex_init(&qp->tx_mutex);
	INIT_WORK(&qp->rx_work, swiw_rx_work);
	INIT_WORK(&qp->close_work, swiw_close_work);
	swiw_rx_reset(&qp->rx);

	/* Cyclic: a stale QPN in iw_cm's hands does not find a new QP. */
	ret = xa_alloc_cyclic(&sdev->qps, &qpn, qp, XA_LIMIT(1, 0xffffff),
			      &sdev->qp_next, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	ibqp->qp_num = qpn;
	if (udata) {
		ret = swiw_qp_uresp(qp, udata);
		if (ret) {
			xa_erase(&sdev->qps, qpn);
			goto err_free;
		}
	}

	cap->max_send_wr = qp->sq.size;
	cap->max_recv_wr = qp->rq.size;
	cap->max_send_sge = SWIW_MAX_SGE;
	cap->max_recv_sge = qp->srq ? 0 : SWIW_MAX_SGE;
	cap->max_inline_data = SWIW_MAX_INLINE;
	return 0;

err_free:
	swiw_qp_unmap(qp);
	kvfree(qp->sq.wqe);
	kvfree(qp->rq.wqe);
	atomic_dec(&sdev->nr_qp);
	return ret;
}

void swiw_qp_get(struct ib_qp *ibqp)
{
	refcount_inc(&to_swiw_qp(ibqp)->ref);
}

void swiw_qp_put(struct ib_qp *ibqp)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);

	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->freed);
}

struct ib_qp *swiw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct swiw_qp *qp = xa_load(&to_swiw_dev(ibdev)->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

/*
 * Queue one of the QP's stream works.  Only in RTS: the close work
 * cancels them after the QP left RTS, and nothing may queue them again.
 */
void swiw_qp_kick(struct swiw_qp *qp, struct work_struct *work)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SWIW_QP_RTS)
		queue_work(swiw_wq, work);
	spin_unlock_irqrestore(&qp->lock, flags);
}

/**
 * swiw_qp_fail() - Move a QP to ERROR; its close work does the rest.
 * @qp: the QP
 *
 * Any context.  A QP in ERROR already is left alone.
 */
void swiw_qp_fail(struct swiw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SWIW_QP_ERROR) {
		qp->state = SWIW_QP_ERROR;
		queue_work(swiw_wq, &qp->close_work);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
}

int swiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	struct swiw_dev *sdev = qp->sdev;

	swiw_qp_fail(qp);
	flush_work(&qp->close_work);
	xa_erase(&sdev->qps, ibqp->qp_num);
	/* iw_cm lets go of the QP once it has the CLOSE. */
	swiw_qp_put(ibqp);
	wait_for_completion(&qp->freed);
	swiw_qp_unmap(qp);
	kfree(qp->txb);
	kvfree(qp->sq.wqe);
	kvfree(qp->rq.wqe);
	atomic_dec(&sdev->nr_qp);
	return 0;
}

static enum ib_qp_state swiw_ib_state(const struct swiw_qp *qp)
{
	switch (qp->state) {
	case SWIW_QP_IDLE:
		return IB_QPS_INIT;
	case SWIW_QP_RTS:
		return IB_QPS_RTS;
	default:
		return IB_QPS_ERR;
	}
}

int swiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	unsigned long flags;
	int ret = 0;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->access = attr->qp_access_flags;
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	if (!(mask & IB_QP_STATE))
		return 0;
	switch (attr->qp_state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
	case IB_QPS_RTS:
		/* Only iw_cm's attach brings a QP to RTS (with a stream). */
		spin_lock_irqsave(&qp->lock, flags);
		if (swiw_ib_state(qp) != attr->qp_state &&
		    (qp->state != SWIW_QP_IDLE || attr->qp_state == IB_QPS_RTS))
			ret = -EINVAL;
		spin_unlock_irqrestore(&qp->lock, flags);
		return ret;
	case IB_QPS_SQD:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		/* iw_cm's graceful disconnect (SQD) closes the stream too. */
		swiw_qp_fail(qp);
		return 0;
	default:
		return -EINVAL;
	}
}

int swiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = swiw_ib_state(qp);
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	spin_unlock_irqrestore(&qp->lock, flags);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->sdev->netdev->mtu));
	attr->cap.max_send_wr = qp->sq.size;
	attr->cap.max_recv_wr = qp->rq.size;
	attr->cap.max_send_sge = SWIW_MAX_SGE;
	attr->cap.max_recv_sge = qp->srq ? 0 : SWIW_MAX_SGE;
	attr->cap.max_inline_data = SWIW_MAX_INLINE;
	init->cap = attr->cap;
	init->srq = ibqp->srq;
	init->qp_type = IB_QPT_RC;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

static enum ib_wc_opcode swiw_wc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

/**
 * swiw_complete() - Report a work request's completion.
 * @qp: its QP
 * @recv: a receive (else a send queue request)
 * @wqe: the request
 * @status: how it ended
 * @len: bytes received (receives)
 * @solicited: a receive of a solicited SEND
 * @inval: a receive of a SEND with invalidate: the STag it invalidated
 *
 * An unsignalled send request that succeeded reports nothing.
 *
 * Return: false when the CQ overflowed and lost the completion.
 */
bool swiw_complete(struct swiw_qp *qp, bool recv, const struct swiw_wqe *wqe,
		   enum ib_wc_status status, u32 len, bool solicited, u32 inval)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.qp = &qp->ibqp,
	};

	if (recv) {
		wc.opcode = IB_WC_RECV;
		wc.byte_len = len;
		if (inval) {
			wc.wc_flags = IB_WC_WITH_INVALIDATE;
			wc.ex.invalidate_rkey = inval;
		}
	} else {
		if (status == IB_WC_SUCCESS && !wqe->signaled)
			return true;
		wc.opcode = swiw_wc_opcode(wqe->opcode);
	}
	return swiw_cq_add(to_swiw_cq(recv ? qp->ibqp.recv_cq :
					     qp->ibqp.send_cq), &wc, solicited);
}

/**
 * swiw_sq_done() - A send queue request is done; report what is due.
 * @qp: the QP
 * @pos: the request's place in the send queue
 * @status: how it ended
 *
 * Completions go out in send queue order: a request done before an
 * older READ waits for it.  One caller at a time reports them, outside
 * the lock; the others only mark their request done.
 */
void swiw_sq_done(struct swiw_qp *qp, u32 pos, enum ib_wc_status status)
{
	struct swiw_ring *r = &qp->sq;
	struct swiw_wqe *w, wqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	w = &r->wqe[pos & (r->size - 1)];
	w->state = SWIW_WQE_DONE;
	w->status = status;
	if (qp->sq_completing) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return;
	}
	qp->sq_completing = true;
	for (;;) {
		w = &r->wqe[r->tail & (r->size - 1)];
		if (r->tail == r->next || w->state != SWIW_WQE_DONE)
			break;
		wqe = *w;
		if (qp->usq)
			swiw_uq_release(qp, false, r->tail);
		r->tail++;
		spin_unlock_irqrestore(&qp->lock, flags);
		swiw_complete(qp, false, &wqe, wqe.status, 0, false, 0);
		spin_lock_irqsave(&qp->lock, flags);
	}
	qp->sq_completing = false;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/* Take what a process posted to its mapped ring; the QP's lock held. */
static void swiw_uq_fetch(struct swiw_qp *qp, bool recv)
{
	if (!qp->usq)
		return;
	if (recv)
		swiw_urq_fetch(qp);
	else
		swiw_usq_fetch(qp);
}

/*
 * Flush a ring from its oldest request.  The ring counts as flushed,
 * and later posts to it complete at once, from when it was found empty
 * under the lock: each ring for itself, so that a post to the send
 * queue while the receive queue is being flushed (ib_drain_qp's marker)
 * is not left in a ring nobody flushes again.  Completions run outside
 * the lock (a handler may post).
 *
 * One flush takes at most what the ring held when it began and a
 * ring's worth posted meanwhile (a drain marker among them), and stops
 * at the first completion the CQ has no room for: a process re-posting
 * each slot of its mapped ring as soon as the flush frees it, or a
 * consumer that posts and never polls, would keep it going for ever,
 * and destroy_qp and device removal wait for it.  What is left then is
 * dropped with no completion, as an overflowing CQ drops it anyway, and
 * the ring is empty.  Process context (close work, a user doorbell).
 */
static void swiw_flush_ring(struct swiw_qp *qp, struct swiw_ring *r,
			    bool recv)
{
	struct swiw_wqe wqe;
	unsigned long flags;
	bool room = true;
	u32 budget;

	spin_lock_irqsave(&qp->lock, flags);
	swiw_uq_fetch(qp, recv);
	budget = r->head - r->tail + r->size;
	for (;;) {
		if (r->tail == r->head)
			break;
		if (!budget-- || !room) {
			while (qp->usq && r->tail != r->head)
				swiw_uq_release(qp, recv, r->tail++);
			r->tail = r->head;
			break;
		}
		wqe = r->wqe[r->tail & (r->size - 1)];
		if (qp->usq)
			swiw_uq_release(qp, recv, r->tail);
		r->tail++;
		spin_unlock_irqrestore(&qp->lock, flags);
		room = swiw_complete(qp, recv, &wqe, IB_WC_WR_FLUSH_ERR, 0,
				     false, 0);
		cond_resched();
		spin_lock_irqsave(&qp->lock, flags);
		swiw_uq_fetch(qp, recv);
	}
	r->next = max_t(u32, r->next, r->tail);
	r->flushed = true;
	spin_unlock_irqrestore(&qp->lock, flags);
}

static void swiw_sk_wake(struct sock *sk)
{
	struct swiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (qp)
		swiw_qp_kick(qp, &qp->rx_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Bytes in: parsed right here if the parser is free, else by rx_work. */
static void swiw_sk_data_ready(struct sock *sk)
{
	struct swiw_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (qp && !swiw_rx_direct(qp, sk))
		swiw_qp_kick(qp, &qp->rx_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void swiw_sock_attach(struct swiw_qp *qp, struct sock *sk)
{
	write_lock_bh(&sk->sk_callback_lock);
	qp->saved_data_ready = sk->sk_data_ready;
	qp->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = qp;
	sk->sk_data_ready = swiw_sk_data_ready;
	sk->sk_state_change = swiw_sk_wake;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void swiw_sock_detach(struct swiw_qp *qp, struct sock *sk)
{
	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == qp) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = qp->saved_data_ready;
		sk->sk_state_change = qp->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

static void swiw_cm_event(struct iw_cm_id *cm_id, enum iw_cm_event_type type)
{
	struct iw_cm_event ev = { .event = type };

	cm_id->event_handler(cm_id, &ev);
}

static void swiw_close_work(struct work_struct *work)
{
	struct swiw_qp *qp = container_of(work, struct swiw_qp, close_work);
	struct iw_cm_id *cm_id;
	struct socket *sock;
	unsigned long flags;
	bool peer;
	u32 term;

	spin_lock_irqsave(&qp->lock, flags);
	sock = qp->sock;
	qp->sock = NULL;
	cm_id = qp->cm_id;
	qp->cm_id = NULL;
	peer = qp->peer_closed;
	/*
	 * In ERROR tx_work starts no message: unless it is in one, the
	 * stream is free for the TERMINATE.
	 */
	term = qp->tx_busy || qp->tx_rest || qp->tx_torn ? 0 : qp->term;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (sock) {
		/* Its own callbacks back first: they wake a blocked sender. */
		swiw_sock_detach(qp, sock->sk);
		if (term && !swiw_tx_terminate(qp, sock, term))
			swiw_count(qp->sdev, SWIW_CNT_TERM_SENT);
		kernel_sock_shutdown(sock, SHUT_RDWR);
	}
	cancel_work_sync(&qp->rx_work);
	cancel_work_sync(&qp->tx_work);
	/* A doorbell that is sending holds it and the socket. */
	mutex_lock(&qp->tx_mutex);
	kvfree(qp->tx_rest);
	qp->tx_rest = NULL;
	qp->tx_rest_len = 0;
	mutex_unlock(&qp->tx_mutex);
	if (sock)
		sock_release(sock);

	if (qp->rx.rqe_busy) {
		qp->rx.rqe_busy = false;
		swiw_complete(qp, true, &qp->rx.rqe, IB_WC_WR_FLUSH_ERR, 0,
			      false, 0);
	}
	swiw_flush_ring(qp, &qp->sq, false);
	swiw_flush_ring(qp, &qp->rq, true);

	if (cm_id) {
		if (peer)
			swiw_cm_event(cm_id, IW_CM_EVENT_DISCONNECT);
		swiw_cm_event(cm_id, IW_CM_EVENT_CLOSE);
		cm_id->rem_ref(cm_id);
	}
}

/**
 * swiw_attach() - Take the stream iw_cm established for @ibqp.
 * @ibqp: the QP
 * @cm_id: the connection's iw_cm id
 * @sock: the stream, MPA done
 * @p: what MPA negotiated
 *
 * The iw_host_ops.attach of swiw: reports CONNECT_REPLY (initiator) or
 * ESTABLISHED (responder) and starts both directions.
 *
 * Return: 0, or an error for a QP that is not IDLE or a mode swiw does
 * not run (peer-to-peer: it offers no RTR, so iw_cm never picks it).
 */
int swiw_attach(struct ib_qp *ibqp, struct iw_cm_id *cm_id,
		struct socket *sock, const struct iw_host_params *p)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	struct iw_cm_event ev = {};
	unsigned long flags;

	/* swiw sends a WRITE RTR only, and takes a WRITE or READ one. */
	if (p->p2p && p->initiator && p->rtr != IW_HOST_RTR_WRITE)
		return -EOPNOTSUPP;
	if (p->p2p && !p->initiator &&
	    !(p->rtr & (IW_HOST_RTR_WRITE | IW_HOST_RTR_READ)))
		return -EOPNOTSUPP;
	kernel_getsockname(sock, (struct sockaddr *)&ev.local_addr);
	kernel_getpeername(sock, (struct sockaddr *)&ev.remote_addr);
	tcp_sock_set_nodelay(sock->sk);
	/* Before the QP has it: from then on its close work may release it. */
	swiw_sock_attach(qp, sock->sk);

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SWIW_QP_IDLE) {
		spin_unlock_irqrestore(&qp->lock, flags);
		swiw_sock_detach(qp, sock->sk);
		return -EINVAL;
	}
	cm_id->add_ref(cm_id);
	qp->cm_id = cm_id;
	qp->sock = sock;
	qp->crc = p->crc;
	qp->tx_large = p->large_fpdu && swiw_tx_large;
	qp->ird = p->ird;
	qp->ord = p->ord;
	qp->tx_msn = 0;
	qp->rtr_send = p->p2p && p->initiator;
	qp->rtr_wait = p->p2p && !p->initiator;
	qp->state = SWIW_QP_RTS;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (qp->tx_large)
		swiw_count(qp->sdev, SWIW_CNT_LARGE);

	ev.ird = p->ird;
	ev.ord = p->ord;
	if (p->initiator) {
		ev.event = IW_CM_EVENT_CONNECT_REPLY;
		ev.private_data = (void *)p->pdata;
		ev.private_data_len = p->pdata_len;
		cm_id->event_handler(cm_id, &ev);
	} else if (!p->p2p) {
		ev.event = IW_CM_EVENT_ESTABLISHED;
		cm_id->event_handler(cm_id, &ev);
	}
	/* A peer-to-peer responder: ESTABLISHED once the RTR is in. */

	/* What came in before the callbacks were ours, and what was posted. */
	swiw_qp_kick(qp, &qp->rx_work);
	swiw_qp_kick(qp, &qp->tx_work);
	return 0;
}

/**
 * swiw_rtr_in() - A peer-to-peer responder's first FPDU is in.
 * @qp: the QP
 * @sock: its stream
 *
 * The peer's RTR: the connection is established, and this end may
 * send.  From rx_work.
 */
void swiw_rtr_in(struct swiw_qp *qp, struct socket *sock)
{
	struct iw_cm_event ev = { .event = IW_CM_EVENT_ESTABLISHED };
	struct iw_cm_id *cm_id;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->rtr_wait = false;
	cm_id = qp->cm_id;
	/* The close work delivers CLOSE after this work, and drops it. */
	if (cm_id)
		cm_id->add_ref(cm_id);
	spin_unlock_irqrestore(&qp->lock, flags);
	swiw_count(qp->sdev, SWIW_CNT_RTR_RECV);
	if (cm_id) {
		kernel_getsockname(sock, (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(sock, (struct sockaddr *)&ev.remote_addr);
		cm_id->event_handler(cm_id, &ev);
		cm_id->rem_ref(cm_id);
	}
	swiw_qp_kick(qp, &qp->tx_work);
}

static int swiw_post_one(struct swiw_qp *qp, struct swiw_ring *r,
			 const struct swiw_wqe *wqe, bool *now)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SWIW_QP_ERROR && r->flushed) {
		/* Nothing is in flight: complete it now (ib_drain_qp). */
		*now = true;
	} else if (r == &qp->sq && qp->state == SWIW_QP_IDLE) {
		ret = -ENOTCONN;
	} else if (r->head - r->tail >= r->size) {
		ret = -ENOMEM;
	} else {
		r->wqe[r->head & (r->size - 1)] = *wqe;
		r->head++;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return ret;
}

/* The bytes @n SGEs cover; -EINVAL past 4 GiB (a message's limit). */
static int swiw_sge_bytes(const struct ib_sge *sge, int n, u32 *bytes)
{
	int i;

	*bytes = 0;
	for (i = 0; i < n; i++)
		if (check_add_overflow(*bytes, sge[i].length, bytes))
			return -EINVAL;
	return 0;
}

static int swiw_send_wqe(struct swiw_qp *qp, const struct ib_send_wr *wr,
			 struct swiw_wqe *wqe)
{
	u32 off = 0;
	int i;

	if (wr->num_sge > SWIW_MAX_SGE || wr->num_sge < 0)
		return -EINVAL;
	memset(wqe, 0, offsetof(struct swiw_wqe, inline_data));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->signaled = qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED);
	wqe->solicited = wr->send_flags & IB_SEND_SOLICITED;
	wqe->fence = wr->send_flags & IB_SEND_FENCE;
	switch (wr->opcode) {
	case IB_WR_SEND:
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* One sink: max_sge_rd. */
		if (wr->num_sge != 1 || (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		fallthrough;
	case IB_WR_RDMA_WRITE:
		wqe->rkey = rdma_wr(wr)->rkey;
		wqe->raddr = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_REG_MR:
		wqe->mr = reg_wr(wr)->mr;
		wqe->rkey = reg_wr(wr)->key;
		wqe->access = reg_wr(wr)->access;
		return 0;
	case IB_WR_LOCAL_INV:
		wqe->rkey = wr->ex.invalidate_rkey;
		return 0;
	default:
		return -EINVAL;
	}
	if (swiw_sge_bytes(wr->sg_list, wr->num_sge, &wqe->bytes))
		return -EINVAL;
	if (!(wr->send_flags & IB_SEND_INLINE)) {
		wqe->num_sge = wr->num_sge;
		memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
		return 0;
	}
	/* Inline: the data is copied now, the buffers are the caller's again. */
	if (wqe->bytes > SWIW_MAX_INLINE)
		return -EINVAL;
	wqe->inl = true;
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(wqe->inline_data + off,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		off += wr->sg_list[i].length;
	}
	return 0;
}

/*
 * A user QP's post_send: the process posted to its send ring and rings
 * with no request, when it thinks the QP may be idle.
 */
static int swiw_doorbell(struct swiw_qp *qp, const struct ib_send_wr *wr)
{
	enum swiw_qp_state state;
	unsigned long flags;
	bool flushed;

	if (wr)
		return -EINVAL;
	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	flushed = qp->sq.flushed;
	spin_unlock_irqrestore(&qp->lock, flags);
	switch (state) {
	case SWIW_QP_RTS:
		swiw_tx_doorbell_run(qp);
		return 0;
	case SWIW_QP_ERROR:
		/* Before that the close work flushes what it finds. */
		if (flushed)
			swiw_flush_ring(qp, &qp->sq, false);
		return 0;
	default:
		/* Taken when the stream is attached. */
		return -ENOTCONN;
	}
}

int swiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	struct swiw_wqe wqe;
	int ret = 0;

	if (qp->usq)
		return swiw_doorbell(qp, wr);
	for (; wr; wr = wr->next) {
		bool now = false;

		ret = swiw_send_wqe(qp, wr, &wqe);
		if (!ret)
			ret = swiw_post_one(qp, &qp->sq, &wqe, &now);
		if (ret) {
			*bad = wr;
			break;
		}
		if (now)
			swiw_complete(qp, false, &wqe, IB_WC_WR_FLUSH_ERR, 0,
				      false, 0);
	}
	swiw_qp_kick(qp, &qp->tx_work);
	return ret;
}

/**
 * swiw_recv_wqe() - A receive work request as a queue keeps it.
 * @wr: the request
 * @max_sge: the most SGEs the queue takes
 * @wqe: the result
 *
 * Return: 0, or -EINVAL for too many SGEs or more than 4 GiB.
 */
int swiw_recv_wqe(const struct ib_recv_wr *wr, u32 max_sge,
		  struct swiw_wqe *wqe)
{
	if (wr->num_sge < 0 || wr->num_sge > min_t(u32, max_sge, SWIW_MAX_SGE))
		return -EINVAL;
	memset(wqe, 0, offsetof(struct swiw_wqe, inline_data));
	if (swiw_sge_bytes(wr->sg_list, wr->num_sge, &wqe->bytes))
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	return 0;
}

int swiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad)
{
	struct swiw_qp *qp = to_swiw_qp(ibqp);
	struct swiw_wqe wqe;
	int ret = 0;

	/*
	 * A process posts to its receive ring itself; a QP with an SRQ
	 * has no receive queue to post to.
	 */
	if (qp->usq || qp->srq) {
		*bad = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		bool now = false;

		ret = swiw_recv_wqe(wr, SWIW_MAX_SGE, &wqe);
		if (ret)
			goto bad;
		ret = swiw_post_one(qp, &qp->rq, &wqe, &now);
		if (ret)
			goto bad;
		if (now)
			swiw_complete(qp, true, &wqe, IB_WC_WR_FLUSH_ERR, 0,
				      false, 0);
	}
	return 0;
bad:
	*bad = wr;
	return ret;
}
