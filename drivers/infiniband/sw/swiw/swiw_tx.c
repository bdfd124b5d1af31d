// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Outbound: the stream has one writer at a time, the QP's tx_work or a
 * user doorbell (under tx_mutex).  It answers the peer's READ requests
 * first, then takes the send queue in order: each request goes out as
 * FPDUs of at most one MSS, a READ as its request (its response
 * completes it, on the receive side), a REG_MR or LOCAL_INV is carried
 * out in its turn.  tx_work may block in the socket while the peer is
 * slow; the close work's shutdown wakes it.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "swiw.h"

/*
 * FPDUs stay at most one MSS long (MULPDU), but go to TCP in batches
 * without EOR, and a burst of work corks the socket, so that TCP sends
 * GSO-sized skbs instead of one skb per FPDU.  Off: one sendmsg with EOR
 * per FPDU.  Read when tx_work starts a run.
 */
static bool swiw_tx_coalesce = true;
module_param_named(tx_coalesce, swiw_tx_coalesce, bool, 0644);
MODULE_PARM_DESC(tx_coalesce, "hand TCP several FPDUs per sendmsg and cork bursts, so it builds GSO skbs (default on)");

/* Payload pieces per FPDU; a message with more takes more FPDUs. */
#define SWIW_TX_IOV	16

/*
 * RFC 5044 sizes an FPDU to one TCP segment (MULPDU), so that a receiver
 * can place each segment as it comes.  A peer that parses the stream in
 * software gains nothing from that and pays a header, a parse and a CRC
 * per 1.4 KiB: to one that says it takes longer FPDUs (iw_host_params'
 * large_fpdu), a message goes in FPDUs of up to 64 KiB, the size of a
 * GSO burst.  Read when a stream is attached.
 */
bool swiw_tx_large = true;
module_param_named(tx_large, swiw_tx_large, bool, 0644);
MODULE_PARM_DESC(tx_large, "send FPDUs of up to 64 KiB to a peer that takes them (default on)");

/* FPDUs at most one MSS long (or 64 KiB, see above), in 8 bytes. */
static u32 swiw_fpdu_max(struct swiw_qp *qp, struct socket *sock)
{
	u32 mss = READ_ONCE(tcp_sk(sock->sk)->mss_cache);

	if (qp->tx_large)
		mss = SZ_64K;
	return clamp_t(u32, mss, 128, SZ_64K) & ~7U;
}

/* One message to send: its header and where its payload is. */
struct swiw_tx_msg {
	union swiw_hdr hdr;
	u32 hdr_len;
	enum swiw_rdmap_op op;
	u64 to;				/* tagged: the first byte's TO */
	const u8 *inl;			/* inline payload, or */
	const struct ib_sge *sge;	/* the payload's buffers */
	u8 num_sge;
	int access;			/* what their STags must allow */
	u32 bytes;
	int msg_flags;			/* more for kernel_sendmsg() */
};

/*
 * Kernel addresses of up to @max payload bytes from @off, in at most
 * SWIW_TX_IOV pieces, each with the MR the caller puts once sent.
 * Return: the bytes found, or -EFAULT when an STag does not grant its
 * buffer.
 */
static int swiw_tx_gather(struct swiw_qp *qp, const struct swiw_tx_msg *m,
			  u32 off, u32 max, struct kvec *iov,
			  struct swiw_mr **hold, int *n)
{
	u32 got = 0, pos = 0, in, piece;
	int i;
	void *va;

	*n = 0;
	if (m->inl) {
		iov[0].iov_base = (void *)(m->inl + off);
		iov[0].iov_len = max;
		*n = max ? 1 : 0;
		return max;
	}
	for (i = 0; i < m->num_sge && got < max && *n < SWIW_TX_IOV; i++) {
		const struct ib_sge *sge = &m->sge[i];

		if (pos + sge->length <= off) {
			pos += sge->length;
			continue;
		}
		in = off + got - pos;
		while (in < sge->length && got < max && *n < SWIW_TX_IOV) {
			va = swiw_mr_piece(qp->sdev, qp->ibqp.pd, sge->lkey,
					   sge->addr + in,
					   min(sge->length - in, max - got),
					   m->access, &piece, &hold[*n]);
			if (!va)
				return -EFAULT;
			iov[*n].iov_base = va;
			iov[(*n)++].iov_len = piece;
			in += piece;
			got += piece;
		}
		pos += sge->length;
	}
	return got;
}

/* One FPDU's own bytes, around its payload. */
struct swiw_tx_fpdu {
	union swiw_hdr hdr;
	u8 trailer[3 + SWIW_CRC_LEN];
};

/*
 * FPDUs ready for the stream: with tx_coalesce, a message's FPDUs go to
 * TCP a batch at a time, in one sendmsg without EOR, so that TCP fills
 * GSO-sized skbs with them instead of sending an skb per FPDU.
 */
#define SWIW_TXB_IOV	256
#define SWIW_TXB_FPDU	64
/* About what TCP puts into one GSO skb. */
#define SWIW_TXB_GOAL	65536

struct swiw_txb {
	struct kvec iov[SWIW_TXB_IOV];
	struct swiw_mr *hold[SWIW_TXB_IOV];
	struct swiw_tx_fpdu fpdu[SWIW_TXB_FPDU];
	u32 n_iov;
	u32 n_hold;
	u32 hold_end;		/* the holds a gather may have set */
	u32 n_fpdu;
	u32 bytes;
};

/*
 * Lay out the FPDU of payload bytes from @off, at most @max of them:
 * header in @f, payload pieces, pad and CRC in @f's trailer, in *@niov
 * entries of @iov.  The pieces' MRs go to @hold, for the caller to put
 * once the bytes are sent.  Return: the payload bytes, or -EFAULT.
 */
static int swiw_tx_layout(struct swiw_qp *qp, const struct swiw_tx_msg *m,
			  u32 off, u32 max, struct swiw_tx_fpdu *f,
			  struct kvec *iov, struct swiw_mr **hold, u32 *niov,
			  u32 *total)
{
	u32 mpa_len, pad, len;
	__le32 crc_le = 0;
	int i, n, ret;
	u32 crc;

	ret = swiw_tx_gather(qp, m, off, max, iov + 1, hold, &n);
	if (ret < 0)
		return ret;
	len = ret;
	n++;
	mpa_len = m->hdr_len - 2 + len;
	pad = swiw_pad(mpa_len);
	memcpy(&f->hdr, &m->hdr, m->hdr_len);
	f->hdr.u.mpa_len = cpu_to_be16(mpa_len);
	f->hdr.u.ctrl = cpu_to_be16(swiw_ctrl(m->op, off + len == m->bytes));
	if (m->hdr_len == sizeof(struct swiw_hdr_tagged))
		f->hdr.t.to = cpu_to_be64(m->to + off);
	else
		f->hdr.u.mo = cpu_to_be32(off);
	iov[0].iov_base = &f->hdr;
	iov[0].iov_len = m->hdr_len;
	memset(f->trailer, 0, pad);
	if (qp->crc) {
		crc = SWIW_CRC_INIT;
		for (i = 0; i < n; i++)
			crc = swiw_crc_update(crc, iov[i].iov_base,
					      iov[i].iov_len);
		crc = swiw_crc_update(crc, f->trailer, pad);
		crc_le = swiw_crc_final(crc);
	}
	/* Without CRC the field is zero. */
	memcpy(f->trailer + pad, &crc_le, SWIW_CRC_LEN);
	iov[n].iov_base = f->trailer;
	iov[n++].iov_len = pad + SWIW_CRC_LEN;
	*niov = n;
	*total = 2 + mpa_len + pad + SWIW_CRC_LEN;
	return len;
}

/* Bytes kept aside (swiw_tx_send()), which TCP has to take whole. */
static int swiw_tx_send_rest(struct socket *sock, void *rest, u32 len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = rest, .iov_len = len };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &iov, 1, len);
	if (ret >= 0)
		ret = ret == len ? 0 : -EPIPE;
	return ret;
}

/*
 * Send what swiw_tx_send() kept aside for a READ response, blocking now
 * that no MR is held.
 */
static int swiw_tx_push(struct swiw_qp *qp, struct socket *sock)
{
	unsigned long flags;
	void *rest;
	u32 len;
	int ret;

	spin_lock_irqsave(&qp->lock, flags);
	rest = qp->tx_rest;
	len = qp->tx_rest_len;
	qp->tx_rest = NULL;
	qp->tx_rest_len = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!rest)
		return 0;
	ret = swiw_tx_send_rest(sock, rest, len);
	kvfree(rest);
	return ret;
}

/*
 * Whether any of @n pieces holds a fast-reg MR: its invalidation waits
 * for us (swiw_mr_inval()), so we may not wait in the socket.
 */
static bool swiw_tx_held(struct swiw_mr **hold, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (hold[i] && !hold[i]->umem)
			return true;
	return false;
}

/*
 * Hand @total bytes in @iov to TCP.  A doorbell does not wait in the
 * socket, nor does a READ response whose source an invalidation may be
 * waiting for (@held): what TCP does not take at once is copied aside;
 * tx_work sends a doorbell's before anything else, and a READ response's
 * (swiw_tx_push()) once it let go of the MR, so the stream stays whole.
 * A caller that asks for MSG_DONTWAIT itself takes what TCP takes.
 * Return: the bytes TCP took or kept aside, or a socket error.
 */
static int swiw_tx_send(struct swiw_qp *qp, struct socket *sock,
			struct msghdr *msg, struct kvec *iov, u32 n, u32 total,
			bool held)
{
	bool keep = !(msg->msg_flags & MSG_DONTWAIT) && (qp->tx_db || held);
	u32 len = keep ? qp->tx_rest_len : 0;
	unsigned int noio;
	unsigned long flags;
	u32 i, skip;
	int ret = 0;
	void *rest;
	u8 *dst;

	/* Behind bytes kept aside, the rest of the message waits too. */
	if (!keep || !qp->tx_rest) {
		if (keep)
			msg->msg_flags |= MSG_DONTWAIT;
		ret = kernel_sendmsg(sock, msg, iov, n, total);
		if (!keep || ret == total || (ret < 0 && ret != -EAGAIN))
			return ret;
		ret = max(ret, 0);
	}
	/*
	 * A READ response may hold a fast-reg MR whose invalidation the
	 * I/O that reclaim would wait for needs: no I/O, no high order.
	 */
	noio = memalloc_noio_save();
	rest = kvrealloc(qp->tx_rest, len, len + total - ret, GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!rest) {
		/* Part of an FPDU is out: no TERMINATE can follow. */
		if (ret)
			WRITE_ONCE(qp->tx_torn, true);
		return -ENOMEM;
	}
	for (i = 0, skip = ret, dst = rest + len; i < n; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		memcpy(dst, iov[i].iov_base + skip, iov[i].iov_len - skip);
		dst += iov[i].iov_len - skip;
		skip = 0;
	}
	spin_lock_irqsave(&qp->lock, flags);
	qp->tx_rest = rest;
	qp->tx_rest_len = len + total - ret;
	spin_unlock_irqrestore(&qp->lock, flags);
	return total;
}

/* Send payload bytes from @off, at most @max of them, in one FPDU. */
static int swiw_tx_fpdu(struct swiw_qp *qp, struct socket *sock,
			struct swiw_tx_msg *m, u32 off, u32 max)
{
	struct swiw_mr *hold[SWIW_TX_IOV] = {};
	struct kvec iov[SWIW_TX_IOV + 2];
	struct swiw_tx_fpdu f;
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | MSG_EOR | m->msg_flags,
	};
	u32 n, total;
	int i, ret;

	ret = swiw_tx_layout(qp, m, off, max, &f, iov, hold, &n, &total);
	if (ret >= 0) {
		int len = ret;

		ret = swiw_tx_send(qp, sock, &msg, iov, n, total,
				   swiw_tx_held(hold, SWIW_TX_IOV));
		if (ret >= 0)
			ret = ret == total ? len : -EPIPE;
	}
	/* The bytes are in the socket's buffers, or kept aside, now. */
	for (i = 0; i < SWIW_TX_IOV; i++)
		swiw_mr_put(hold[i]);
	return ret;
}

/* Hand the batch to TCP; MSG_MORE when more FPDUs follow at once. */
static int swiw_txb_flush(struct swiw_qp *qp, struct socket *sock,
			  struct swiw_txb *b, int more)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | more };
	bool held = swiw_tx_held(b->hold, b->hold_end);
	int ret = 0;
	u32 i;

	if (b->n_iov) {
		ret = swiw_tx_send(qp, sock, &msg, b->iov, b->n_iov, b->bytes,
				   held);
		if (ret >= 0)
			ret = ret == b->bytes ? 0 : -EPIPE;
	}
	for (i = 0; i < b->hold_end; i++) {
		swiw_mr_put(b->hold[i]);
		b->hold[i] = NULL;
	}
	if (held && !qp->tx_db && !ret)
		ret = swiw_tx_push(qp, sock);
	b->n_iov = 0;
	b->n_hold = 0;
	b->hold_end = 0;
	b->n_fpdu = 0;
	b->bytes = 0;
	return ret;
}

/* Whether the batch has no room for one more FPDU of up to @fpdu bytes. */
static bool swiw_txb_full(const struct swiw_txb *b, u32 fpdu)
{
	return b->n_fpdu == SWIW_TXB_FPDU ||
	       b->n_iov + SWIW_TX_IOV + 2 > SWIW_TXB_IOV ||
	       (b->n_fpdu && b->bytes + fpdu > SWIW_TXB_GOAL);
}

/* The message's FPDUs, a batch per sendmsg. */
static int swiw_tx_batched(struct swiw_qp *qp, struct socket *sock,
			   struct swiw_txb *b, struct swiw_tx_msg *m,
			   u32 max_pay)
{
	u32 off = 0, n, total;
	int ret, err;

	do {
		if (swiw_txb_full(b, max_pay + m->hdr_len + 8)) {
			ret = swiw_txb_flush(qp, sock, b, MSG_MORE);
			if (ret)
				return ret;
		}
		b->hold_end = b->n_hold + SWIW_TX_IOV;
		ret = swiw_tx_layout(qp, m, off, min(m->bytes - off, max_pay),
				     &b->fpdu[b->n_fpdu], b->iov + b->n_iov,
				     b->hold + b->n_hold, &n, &total);
		if (ret < 0) {
			/* What went before this FPDU goes out, as it would. */
			err = swiw_txb_flush(qp, sock, b, 0);
			return err ?: ret;
		}
		b->n_iov += n;
		b->n_hold += n - 2;
		b->n_fpdu++;
		b->bytes += total;
		off += ret;
	} while (off < m->bytes);
	/* The socket is corked while more work follows (swiw_tx_work()). */
	return swiw_txb_flush(qp, sock, b, 0);
}

static int swiw_tx_message(struct swiw_qp *qp, struct socket *sock,
			   struct swiw_tx_msg *m)
{
	u32 off = 0, max_pay;
	int ret;

	max_pay = swiw_fpdu_max(qp, sock) - m->hdr_len - SWIW_CRC_LEN;
	if (qp->tx_batch)
		return swiw_tx_batched(qp, sock, qp->txb, m, max_pay);
	do {
		ret = swiw_tx_fpdu(qp, sock, m, off,
				   min(m->bytes - off, max_pay));
		if (ret < 0)
			return ret;
		off += ret;
		/* What a READ response kept aside, now that no MR is held. */
		if (!qp->tx_db && qp->tx_rest) {
			ret = swiw_tx_push(qp, sock);
			if (ret)
				return ret;
		}
	} while (off < m->bytes);
	return 0;
}

/* A SEND or a WRITE from the send queue. */
static int swiw_tx_wqe(struct swiw_qp *qp, struct socket *sock,
		       const struct swiw_wqe *wqe)
{
	struct swiw_tx_msg m = {
		.inl = wqe->inl ? wqe->inline_data : NULL,
		.sge = wqe->sge,
		.num_sge = wqe->num_sge,
		.bytes = wqe->bytes,
	};

	switch (wqe->opcode) {
	case IB_WR_RDMA_WRITE:
		m.op = SWIW_OP_WRITE;
		m.hdr_len = sizeof(struct swiw_hdr_tagged);
		m.hdr.t.stag = cpu_to_be32(wqe->rkey);
		m.to = wqe->raddr;
		return swiw_tx_message(qp, sock, &m);
	case IB_WR_SEND_WITH_INV:
		m.op = wqe->solicited ? SWIW_OP_SEND_SE_INV : SWIW_OP_SEND_INV;
		m.hdr.u.inval_stag = cpu_to_be32(wqe->rkey);
		break;
	default:
		m.op = wqe->solicited ? SWIW_OP_SEND_SE : SWIW_OP_SEND;
		break;
	}
	m.hdr_len = sizeof(struct swiw_hdr_untagged);
	m.hdr.u.qn = cpu_to_be32(SWIW_QN_SEND);
	m.hdr.u.msn = cpu_to_be32(++qp->tx_msn);
	return swiw_tx_message(qp, sock, &m);
}

static int swiw_tx_read_req(struct swiw_qp *qp, struct socket *sock,
			    const struct swiw_wqe *wqe)
{
	struct swiw_tx_msg m = {
		.op = SWIW_OP_READ_REQ,
		.hdr_len = sizeof(struct swiw_hdr_read_req),
	};
	struct swiw_hdr_read_req *h = &m.hdr.rreq;

	h->u.qn = cpu_to_be32(SWIW_QN_READ_REQ);
	h->u.msn = cpu_to_be32(++qp->tx_rreq_msn);
	h->sink_stag = cpu_to_be32(wqe->sge[0].lkey);
	h->sink_to = cpu_to_be64(wqe->sge[0].addr);
	h->size = cpu_to_be32(wqe->sge[0].length);
	h->src_stag = cpu_to_be32(wqe->rkey);
	h->src_to = cpu_to_be64(wqe->raddr);
	return swiw_tx_message(qp, sock, &m);
}

/* The response to a peer's READ, from memory its STag grants. */
static int swiw_tx_read_resp(struct swiw_qp *qp, struct socket *sock,
			     const struct swiw_rreq *rr)
{
	struct ib_sge src = {
		.addr = rr->src_to,
		.length = rr->size,
		.lkey = rr->src_stag,
	};
	struct swiw_tx_msg m = {
		.op = SWIW_OP_READ_RESP,
		.hdr_len = sizeof(struct swiw_hdr_tagged),
		.to = rr->sink_to,
		.sge = &src,
		.num_sge = 1,
		.access = IB_ACCESS_REMOTE_READ,
		.bytes = rr->size,
	};

	enum swiw_fault fault;
	unsigned long flags;
	u32 term;
	int ret;

	m.hdr.t.stag = cpu_to_be32(rr->sink_stag);
	ret = swiw_tx_message(qp, sock, &m);
	if (ret != -EFAULT)
		return ret;
	/*
	 * The source STag does not grant the READ: the peer hears why
	 * (RDMAP remote protection error) when the QP fails on this.
	 */
	fault = swiw_mr_fault(qp->sdev, qp->ibqp.pd, rr->src_stag, rr->src_to,
			      rr->size, IB_ACCESS_REMOTE_READ);
	term = swiw_rx_term(swiw_fault_src(fault));
	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->term)
		qp->term = term;
	spin_unlock_irqrestore(&qp->lock, flags);
	return ret;
}

/**
 * swiw_tx_terminate() - Tell the peer why the stream ends.
 * @qp: the QP
 * @sock: its stream
 * @term: the TERMINATE control word (swiw_rx_term())
 *
 * Best effort and never blocking: the close work sends it only when
 * tx_work is not in the middle of a message.  Nothing is attached.
 *
 * Return: 0, or the socket's error.
 */
int swiw_tx_terminate(struct swiw_qp *qp, struct socket *sock, u32 term)
{
	struct swiw_tx_msg m = {
		.op = SWIW_OP_TERMINATE,
		.hdr_len = sizeof(struct swiw_hdr_terminate),
		.msg_flags = MSG_DONTWAIT,
	};
	int ret;

	m.hdr.term.u.qn = cpu_to_be32(SWIW_QN_TERMINATE);
	m.hdr.term.u.msn = cpu_to_be32(1);
	m.hdr.term.term_ctrl = cpu_to_be32(term);
	ret = swiw_tx_fpdu(qp, sock, &m, 0, 0);
	return ret < 0 ? ret : 0;
}

/* A peer-to-peer initiator's RTR: a zero-length WRITE, as siw's. */
static int swiw_tx_rtr(struct swiw_qp *qp, struct socket *sock)
{
	struct swiw_tx_msg m = {
		.op = SWIW_OP_WRITE,
		.hdr_len = sizeof(struct swiw_hdr_tagged),
	};
	int ret;

	m.hdr.t.stag = cpu_to_be32(1);
	ret = swiw_tx_message(qp, sock, &m);
	if (!ret)
		swiw_count(qp->sdev, SWIW_CNT_RTR_SENT);
	return ret;
}

static bool swiw_is_read(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_RDMA_READ_WITH_INV;
}

/* Carry out the send queue request at @pos. */
static int swiw_tx_sq(struct swiw_qp *qp, struct socket *sock, u32 pos,
		      const struct swiw_wqe *wqe)
{
	int ret;

	/* A malformed request from a process's send ring. */
	if (wqe->status != IB_WC_SUCCESS) {
		swiw_sq_done(qp, pos, wqe->status);
		return -EINVAL;
	}
	switch (wqe->opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* The response completes it. */
		return swiw_tx_read_req(qp, sock, wqe);
	case IB_WR_REG_MR:
		ret = swiw_mr_reg(qp, wqe->mr, wqe->rkey, wqe->access);
		break;
	case IB_WR_LOCAL_INV:
		ret = swiw_mr_inval(qp->sdev, qp->ibqp.pd, wqe->rkey, true);
		break;
	default:
		ret = swiw_tx_wqe(qp, sock, wqe);
		if (ret && ret != -EFAULT)
			return ret;
		break;
	}
	/* A bad local STag fails this request, then the QP. */
	swiw_sq_done(qp, pos, ret ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
	return ret;
}

/*
 * With tx_coalesce, a burst of work corks the socket: the tail of one
 * message waits in TCP for the next one's FPDUs to fill its segment, and
 * going idle pushes whatever is left.
 */
static void swiw_tx_cork(struct sock **corked, struct socket *sock, bool on)
{
	if (on && !*corked && sock) {
		*corked = sock->sk;
		tcp_sock_set_cork(*corked, true);
	} else if (!on && *corked) {
		tcp_sock_set_cork(*corked, false);
		*corked = NULL;
	}
}

/*
 * A user doorbell sends small requests from the process's own context
 * when the socket has room for them: one then goes out before the
 * syscall returns, with no wakeup of a worker on the way.  At most
 * SWIW_TX_DOORBELL_BYTES of payload per doorbell, and only what the
 * socket takes without waiting, so the syscall neither blocks on a slow
 * peer nor carries a bulk transfer.  The first request over the budget
 * and all behind it are tx_work's, which corks a burst into full
 * segments (a doorbell sending a stream of large requests one by one
 * would push out a partial segment after each).  Off: every doorbell
 * queues tx_work.
 */
static bool swiw_tx_doorbell = true;
module_param_named(tx_doorbell, swiw_tx_doorbell, bool, 0644);
MODULE_PARM_DESC(tx_doorbell, "a user doorbell sends small requests itself when the socket has room (default on)");

#define SWIW_TX_DOORBELL_BYTES	4096

/*
 * Whether TCP takes @bytes of payload as FPDUs without waiting for
 * memory: the socket's free send space counts skb overhead too, so ask
 * for twice the payload.
 */
static bool swiw_tx_room(struct socket *sock, u32 bytes)
{
	return sk_stream_wspace(sock->sk) >= 2 * (int)bytes + 4096;
}

/*
 * Send what the QP has to send, in order, until it is idle, the stream
 * fails, or (@db_budget non-NULL, a doorbell) the next item does not fit
 * the budget or the socket's room.  Caller holds tx_mutex.
 * Return: true if a doorbell left work behind for tx_work.
 */
static bool swiw_tx_run(struct swiw_qp *qp, u32 *db_budget)
{
	bool rtr, resp, more, coalesce = READ_ONCE(swiw_tx_coalesce);
	bool handoff = false;
	struct sock *corked = NULL;
	struct socket *sock;
	struct swiw_rreq rr = {};
	struct swiw_wqe *w, wqe;
	unsigned long flags;
	u32 pos, len;
	void *rest;
	int ret;

	/* Without it, or without memory for it, an FPDU per sendmsg. */
	if (coalesce && !qp->txb)
		qp->txb = kzalloc(sizeof(*qp->txb), GFP_KERNEL);
	coalesce = coalesce && qp->txb;
	qp->tx_batch = coalesce;
	qp->tx_db = !!db_budget;

	for (;;) {
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state != SWIW_QP_RTS)
			goto idle;
		/* Released only after the close work waited for tx_mutex. */
		sock = qp->sock;
		/* What a doorbell's send left over goes first, and blocking. */
		if (qp->tx_rest) {
			if (db_budget) {
				handoff = true;
				goto idle;
			}
			rest = qp->tx_rest;
			len = qp->tx_rest_len;
			qp->tx_rest = NULL;
			qp->tx_rest_len = 0;
			qp->tx_busy = true;
			spin_unlock_irqrestore(&qp->lock, flags);
			ret = swiw_tx_send_rest(sock, rest, len);
			kvfree(rest);
			spin_lock_irqsave(&qp->lock, flags);
			qp->tx_busy = false;
			spin_unlock_irqrestore(&qp->lock, flags);
			if (ret)
				break;
			continue;
		}
		/* Peer-to-peer: nothing before the RTR, either way. */
		if (qp->rtr_wait)
			goto idle;
		/* The RTR, the peer's READs, then the send queue. */
		rtr = qp->rtr_send;
		resp = !rtr && qp->irq_tail != qp->irq_head;
		len = 0;
		if (resp) {
			rr = qp->irq[qp->irq_tail % SWIW_MAX_RD_ATOM];
			len = rr.size;
		} else if (!rtr) {
			if (qp->sq.next == qp->sq.head && qp->usq)
				swiw_usq_fetch(qp);
			if (qp->sq.next == qp->sq.head)
				goto idle;
			pos = qp->sq.next;
			w = &qp->sq.wqe[pos & (qp->sq.size - 1)];
			/* Resumed by the READ response that ends the wait. */
			if (w->fence && qp->orq_count)
				goto idle;
			if (swiw_is_read(w->opcode) &&
			    qp->orq_count >= max_t(u32, qp->ord, 1))
				goto idle;
			if (!swiw_is_read(w->opcode))
				len = w->bytes;
		}
		if (db_budget) {
			if (len > *db_budget || !swiw_tx_room(sock, len)) {
				handoff = true;
				goto idle;
			}
			*db_budget -= len;
		}
		if (rtr) {
			qp->rtr_send = false;
		} else if (!resp) {
			if (swiw_is_read(w->opcode)) {
				qp->orq_count++;
				w->state = SWIW_WQE_READING;
			}
			qp->sq.next++;
			wqe = *w;
		}
		qp->tx_busy = true;
		more = qp->sq.next != qp->sq.head ||
		       qp->irq_head - qp->irq_tail > (resp ? 1 : 0);
		spin_unlock_irqrestore(&qp->lock, flags);

		if (coalesce && more)
			swiw_tx_cork(&corked, sock, true);

		if (rtr)
			ret = swiw_tx_rtr(qp, sock);
		else if (resp)
			ret = swiw_tx_read_resp(qp, sock, &rr);
		else
			ret = swiw_tx_sq(qp, sock, pos, &wqe);

		spin_lock_irqsave(&qp->lock, flags);
		qp->tx_busy = false;
		if (resp && !ret)
			qp->irq_tail++;
		spin_unlock_irqrestore(&qp->lock, flags);
		if (ret)
			break;
		cond_resched();
	}
	swiw_tx_cork(&corked, NULL, false);
	ibdev_dbg(&qp->sdev->ibdev, "QP %u: send error %d\n",
		  qp->ibqp.qp_num, ret);
	swiw_qp_fail(qp);
	return false;

idle:
	spin_unlock_irqrestore(&qp->lock, flags);
	swiw_tx_cork(&corked, NULL, false);
	return handoff;
}

void swiw_tx_work(struct work_struct *work)
{
	struct swiw_qp *qp = container_of(work, struct swiw_qp, tx_work);

	mutex_lock(&qp->tx_mutex);
	swiw_tx_run(qp, NULL);
	mutex_unlock(&qp->tx_mutex);
}

/**
 * swiw_tx_doorbell_run() - Send for a user doorbell, in its context.
 * @qp: a user QP in RTS
 *
 * Sends what fits the doorbell's budget and the socket's room, unless
 * tx_work or another doorbell is sending now; tx_work gets the rest.
 * Process context.
 */
void swiw_tx_doorbell_run(struct swiw_qp *qp)
{
	u32 budget = SWIW_TX_DOORBELL_BYTES;
	bool handoff = true;

	if (READ_ONCE(swiw_tx_doorbell) && mutex_trylock(&qp->tx_mutex)) {
		handoff = swiw_tx_run(qp, &budget);
		mutex_unlock(&qp->tx_mutex);
	}
	if (handoff)
		swiw_qp_kick(qp, &qp->tx_work);
}
