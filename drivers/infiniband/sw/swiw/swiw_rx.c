// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Inbound: the parser takes the stream an FPDU at a time, header,
 * payload (straight into the target buffer), pad and CRC, out of the
 * skbs the socket has (tcp_read_sock(), one socket lock for all of
 * them), and picks up where it stopped at the next data_ready.  It runs
 * in data_ready itself as TCP queues the bytes, or in the QP's rx_work
 * when data_ready cannot (another run of the parser, the RTR, a
 * recvmsg).  Every header field comes from the peer: each one is
 * checked before it is used, and any violation ends the stream.
 */
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <net/tcp.h>

#include "swiw.h"

/*
 * Off: a kernel_recvmsg() per header, payload piece and trailer, each
 * taking the socket lock, as a peer-to-peer responder does until the
 * RTR is in.
 */
static bool swiw_rx_batched = true;
module_param_named(rx_batch, swiw_rx_batched, bool, 0644);
MODULE_PARM_DESC(rx_batch, "parse FPDUs out of the socket's skbs under one socket lock (tcp_read_sock) instead of a recvmsg per piece (default on)");

/*
 * Off: data_ready only wakes rx_work, which parses in process context.
 */
static bool swiw_rx_direct_on = true;
module_param_named(rx_direct, swiw_rx_direct_on, bool, 0644);
MODULE_PARM_DESC(rx_direct, "parse inbound FPDUs in the socket's data_ready, without waking a worker (default on)");

void swiw_rx_reset(struct swiw_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	rx->msn = 1;
	rx->rreq_msn = 1;
}

/*
 * Where the parser's bytes come from: the socket itself (recvmsg), or
 * an skb that tcp_read_sock() hands over, from @off on, @len of them.
 */
struct swiw_rx_src {
	struct swiw_qp *qp;
	struct socket *sock;
	const struct sk_buff *skb;
	u32 off;
	u32 len;
	int err;		/* why the parser stopped in this batch */
};

/*
 * Some of @len bytes, if there are any: >0, 0 at EOF, or an error;
 * -EAGAIN when the skb or the socket has no more for now.
 */
static int swiw_recv(struct swiw_rx_src *src, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 n;

	if (!src->skb)
		return kernel_recvmsg(src->sock, &msg, &iov, 1, len,
				      MSG_DONTWAIT);
	if (!len)
		return 0;
	n = min_t(size_t, len, src->len);
	if (!n)
		return -EAGAIN;
	if (skb_copy_bits(src->skb, src->off, buf, n))
		return -EFAULT;
	src->off += n;
	src->len -= n;
	return n;
}

/* Take the oldest receive for a new inbound SEND. */
static int swiw_rx_take_rqe(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	unsigned long flags;

	if (qp->srq) {
		if (swiw_srq_take(qp->srq, &rx->rqe))
			return -ENOBUFS;
		goto taken;
	}
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->rq.tail == qp->rq.head && qp->urq)
		swiw_urq_fetch(qp);
	if (qp->rq.tail == qp->rq.head) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return -ENOBUFS;
	}
	rx->rqe = qp->rq.wqe[qp->rq.tail & (qp->rq.size - 1)];
	if (qp->urq)
		swiw_uq_release(qp, true, qp->rq.tail);
	qp->rq.tail++;
	spin_unlock_irqrestore(&qp->lock, flags);
taken:
	rx->rqe_busy = true;
	rx->placed = 0;
	return 0;
}

/* The stream ends for @fault: the TERMINATE says which. */
static int swiw_rx_fail(struct swiw_rx *rx, enum swiw_fault fault)
{
	rx->fault = fault;
	return -EPROTO;
}

/* The receive in progress ends with @status (an error). */
static void swiw_rx_rqe_fail(struct swiw_qp *qp, enum ib_wc_status status)
{
	struct swiw_rx *rx = &qp->rx;

	rx->rqe_busy = false;
	swiw_complete(qp, true, &rx->rqe, status, rx->placed, false, 0);
}

/* A segment of a SEND: which receive it fills, and where. */
static int swiw_rx_send(struct swiw_qp *qp, u16 op)
{
	struct swiw_rx *rx = &qp->rx;
	u32 msn = be32_to_cpu(rx->hdr.u.msn);
	u32 mo = be32_to_cpu(rx->hdr.u.mo);
	int ret;

	if (be32_to_cpu(rx->hdr.u.qn) != SWIW_QN_SEND)
		return swiw_rx_fail(rx, SWIW_FAULT_QN);
	if (msn != rx->msn)
		return swiw_rx_fail(rx, SWIW_FAULT_MSN);
	if (mo != (rx->rqe_busy ? rx->placed : 0))
		return swiw_rx_fail(rx, SWIW_FAULT_MO);
	if (!rx->rqe_busy) {
		ret = swiw_rx_take_rqe(qp);
		if (ret)
			return swiw_rx_fail(rx, SWIW_FAULT_NO_BUF);
		rx->solicited = op == SWIW_OP_SEND_SE ||
				op == SWIW_OP_SEND_SE_INV;
		/* STag 0 names no MR: swiw_mr_inval() refuses it. */
		rx->has_inval = op == SWIW_OP_SEND_INV ||
				op == SWIW_OP_SEND_SE_INV;
		rx->inval = rx->has_inval ?
			    be32_to_cpu(rx->hdr.u.inval_stag) : 0;
	}
	if (rx->payload > rx->rqe.bytes - rx->placed) {
		swiw_rx_rqe_fail(qp, IB_WC_LOC_LEN_ERR);
		return swiw_rx_fail(rx, SWIW_FAULT_TOO_LONG);
	}
	rx->target = SWIW_RX_RQE;
	return 0;
}

/*
 * A READ request: written to the next free slot of the queue tx_work
 * answers from, and queued there once its FPDU passed its CRC
 * (swiw_rx_done()).  The peer may have no more outstanding than the
 * IRD negotiated; one more finds no buffer on queue 1 (RFC 5041's
 * untagged error 0x02).  An IRD of 0 still answers one, as this end
 * still sends one at an ORD of 0.
 */
static int swiw_rx_read_req(struct swiw_qp *qp)
{
	struct swiw_hdr_read_req *h = &qp->rx.hdr.rreq;
	u32 ird = clamp_t(u32, qp->ird, 1, SWIW_MAX_RD_ATOM);
	struct swiw_rreq *rr;
	unsigned long flags;

	if (be32_to_cpu(h->u.qn) != SWIW_QN_READ_REQ)
		return swiw_rx_fail(&qp->rx, SWIW_FAULT_QN);
	if (be32_to_cpu(h->u.msn) != qp->rx.rreq_msn)
		return swiw_rx_fail(&qp->rx, SWIW_FAULT_MSN);
	if (h->u.mo)
		return swiw_rx_fail(&qp->rx, SWIW_FAULT_MO);
	if (qp->rx.payload)
		return -EPROTO;
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->irq_head - qp->irq_tail >= ird) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return swiw_rx_fail(&qp->rx, SWIW_FAULT_NO_BUF);
	}
	rr = &qp->irq[qp->irq_head % SWIW_MAX_RD_ATOM];
	rr->sink_stag = be32_to_cpu(h->sink_stag);
	rr->sink_to = be64_to_cpu(h->sink_to);
	rr->size = be32_to_cpu(h->size);
	rr->src_stag = be32_to_cpu(h->src_stag);
	rr->src_to = be64_to_cpu(h->src_to);
	spin_unlock_irqrestore(&qp->lock, flags);
	return 0;
}

/* A segment of a READ response: for our oldest outstanding READ. */
static int swiw_rx_read_resp(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	struct swiw_wqe *w;
	unsigned long flags;
	u32 pos;

	if (!rx->rd_busy) {
		spin_lock_irqsave(&qp->lock, flags);
		for (pos = qp->sq.tail; pos != qp->sq.next; pos++) {
			w = &qp->sq.wqe[pos & (qp->sq.size - 1)];
			if (w->state == SWIW_WQE_READING)
				break;
		}
		if (pos != qp->sq.next) {
			rx->rd_busy = true;
			rx->rd_pos = pos;
			rx->rd_sink = w->sge[0];
			rx->rd_inv = w->opcode == IB_WR_RDMA_READ_WITH_INV;
			rx->rd_got = 0;
		}
		spin_unlock_irqrestore(&qp->lock, flags);
		/* A response to no READ. */
		if (!rx->rd_busy)
			return swiw_rx_fail(rx, SWIW_FAULT_OPCODE);
	}
	/* Only the sink the READ named, in order, up to its length. */
	if (be32_to_cpu(rx->hdr.t.stag) != rx->rd_sink.lkey)
		return swiw_rx_fail(rx, SWIW_FAULT_STAG);
	if (be64_to_cpu(rx->hdr.t.to) != rx->rd_sink.addr + rx->rd_got ||
	    rx->payload > rx->rd_sink.length - rx->rd_got)
		return swiw_rx_fail(rx, SWIW_FAULT_BOUNDS);
	rx->target = SWIW_RX_TAGGED;
	rx->tkey = rx->rd_sink.lkey;
	rx->taddr = rx->rd_sink.addr + rx->rd_got;
	rx->taccess = IB_ACCESS_LOCAL_WRITE;
	return 0;
}

/* A whole header is in: check it and say where its payload goes. */
static int swiw_rx_hdr(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	u16 ctrl = be16_to_cpu(rx->hdr.u.ctrl);
	u32 mpa_len = be16_to_cpu(rx->hdr.u.mpa_len);
	u16 op = ctrl & SWIW_CTRL_OP_MASK;
	int ret = 0;

	rx->payload = mpa_len + 2 - rx->hdr_len;
	rx->pad = swiw_pad(mpa_len);
	rx->target = SWIW_RX_DISCARD;
	if (qp->crc)
		rx->crc = swiw_crc_update(SWIW_CRC_INIT, rx->hdr.raw,
					  rx->hdr_len);

	switch (op) {
	case SWIW_OP_SEND:
	case SWIW_OP_SEND_SE:
	case SWIW_OP_SEND_INV:
	case SWIW_OP_SEND_SE_INV:
		ret = swiw_rx_send(qp, op);
		break;
	case SWIW_OP_WRITE:
		/*
		 * Only the STag's rights count, not the QP's access flags:
		 * rdma_cm moves a connecting QP to INIT with none (its iw_cm
		 * id does not exist yet) and never sets them again, and siw
		 * does not check them either.
		 */
		rx->target = SWIW_RX_TAGGED;
		rx->tkey = be32_to_cpu(rx->hdr.t.stag);
		rx->taddr = be64_to_cpu(rx->hdr.t.to);
		rx->taccess = IB_ACCESS_REMOTE_WRITE;
		break;
	case SWIW_OP_READ_REQ:
		ret = swiw_rx_read_req(qp);
		break;
	case SWIW_OP_READ_RESP:
		ret = swiw_rx_read_resp(qp);
		break;
	default:
		/* TERMINATE: read it all (it may carry a header), then close. */
		break;
	}
	if (ret)
		return ret;
	rx->step = rx->payload ? SWIW_RX_PAYLOAD : SWIW_RX_TRAILER;
	rx->have = 0;
	return 0;
}

/*
 * Where the next payload byte goes, and how many may go there; an error
 * when the STag does not grant it.
 */
static int swiw_rx_dst(struct swiw_qp *qp, void **dst, u32 *room,
		       u8 *scratch, u32 scratch_len, struct swiw_mr **hold)
{
	struct swiw_rx *rx = &qp->rx;
	u32 left = rx->payload - rx->have;
	enum swiw_fault fault;
	struct ib_pd *pd;
	u32 off, i;

	switch (rx->target) {
	case SWIW_RX_TAGGED:
		*dst = swiw_mr_piece(qp->sdev, qp->ibqp.pd, rx->tkey,
				     rx->taddr + rx->have, left, rx->taccess,
				     room, hold);
		if (*dst)
			return 0;
		fault = swiw_mr_fault(qp->sdev, qp->ibqp.pd, rx->tkey,
				      rx->taddr + rx->have, left, rx->taccess);
		/* Refused a moment ago: one granting it now is one changed. */
		return swiw_rx_fail(rx, fault ?: SWIW_FAULT_STAG);
	case SWIW_RX_RQE:
		/* An SRQ's receive buffers are registered in its PD. */
		pd = qp->srq ? qp->srq->ibsrq.pd : qp->ibqp.pd;
		off = rx->placed + rx->have;
		for (i = 0; i < rx->rqe.num_sge; i++) {
			const struct ib_sge *sge = &rx->rqe.sge[i];

			if (off >= sge->length) {
				off -= sge->length;
				continue;
			}
			*dst = swiw_mr_piece(qp->sdev, pd, sge->lkey,
					     sge->addr + off,
					     min(sge->length - off, left),
					     IB_ACCESS_LOCAL_WRITE, room, hold);
			if (*dst)
				return 0;
			break;
		}
		/*
		 * swiw_rx_send() checked the room: a bad local STag, a
		 * fault of ours and not of the peer's buffer.
		 */
		swiw_rx_rqe_fail(qp, IB_WC_LOC_PROT_ERR);
		return swiw_rx_fail(rx, SWIW_FAULT_LOCAL);
	default:
		*dst = scratch;
		*room = min(left, scratch_len);
		*hold = NULL;
		return 0;
	}
}

/*
 * The STag the last FPDU of a message invalidates as it completes: a
 * SEND with Invalidate's, or the sink of a READ with invalidate.
 */
static bool swiw_rx_inval_key(const struct swiw_rx *rx, u16 ctrl, u32 *key)
{
	if (!(ctrl & SWIW_CTRL_L))
		return false;
	switch (ctrl & SWIW_CTRL_OP_MASK) {
	case SWIW_OP_SEND:
	case SWIW_OP_SEND_SE:
	case SWIW_OP_SEND_INV:
	case SWIW_OP_SEND_SE_INV:
		/* The message's first segment said. */
		*key = rx->inval;
		return rx->has_inval;
	case SWIW_OP_READ_RESP:
		*key = rx->rd_sink.lkey;
		return rx->rd_inv &&
		       rx->rd_got + rx->payload == rx->rd_sink.length;
	default:
		return false;
	}
}

/*
 * The FPDU is all in and checked: what it completes.  -EINPROGRESS: the
 * invalidation it completes has to wait for other CPUs' uses of the
 * STag, which tcp_read_sock()'s actor may not do (in data_ready it
 * cannot sleep; in rx_work it holds the socket lock, which the send
 * work of a READ response from that STag may be waiting for).  rx_work
 * comes back here without the lock.
 */
static int swiw_rx_done(struct swiw_qp *qp, struct swiw_rx_src *src)
{
	struct swiw_rx *rx = &qp->rx;
	u16 ctrl = be16_to_cpu(rx->hdr.u.ctrl);
	enum ib_wc_status status = IB_WC_SUCCESS;
	unsigned long flags;
	int inval = 0;
	u32 key;

	if (swiw_rx_inval_key(rx, ctrl, &key)) {
		inval = swiw_mr_inval(qp->sdev, qp->ibqp.pd, key, !src->skb);
		if (inval == -EBUSY)
			return -EINPROGRESS;
	}
	rx->step = SWIW_RX_HDR;
	rx->have = 0;
	if (unlikely(READ_ONCE(qp->rtr_wait)) &&
	    (ctrl & SWIW_CTRL_OP_MASK) != SWIW_OP_TERMINATE)
		swiw_rtr_in(qp, src->sock);
	switch (ctrl & SWIW_CTRL_OP_MASK) {
	case SWIW_OP_SEND:
	case SWIW_OP_SEND_SE:
	case SWIW_OP_SEND_INV:
	case SWIW_OP_SEND_SE_INV:
		rx->placed += rx->payload;
		if (!(ctrl & SWIW_CTRL_L))
			return 0;
		rx->rqe_busy = false;
		rx->msn++;
		if (inval) {
			swiw_complete(qp, true, &rx->rqe, IB_WC_REM_INV_REQ_ERR,
				      rx->placed, false, 0);
			return swiw_rx_fail(rx, SWIW_FAULT_INVAL);
		}
		swiw_complete(qp, true, &rx->rqe, IB_WC_SUCCESS, rx->placed,
			      rx->solicited, rx->inval);
		return 0;
	case SWIW_OP_READ_REQ:
		spin_lock_irqsave(&qp->lock, flags);
		qp->irq_head++;
		spin_unlock_irqrestore(&qp->lock, flags);
		rx->rreq_msn++;
		swiw_qp_kick(qp, &qp->tx_work);
		return 0;
	case SWIW_OP_READ_RESP:
		rx->rd_got += rx->payload;
		if (!(ctrl & SWIW_CTRL_L))
			return 0;
		if (rx->rd_got != rx->rd_sink.length)
			return -EPROTO;
		rx->rd_busy = false;
		if (inval)
			status = IB_WC_LOC_PROT_ERR;
		spin_lock_irqsave(&qp->lock, flags);
		qp->orq_count--;
		spin_unlock_irqrestore(&qp->lock, flags);
		swiw_sq_done(qp, rx->rd_pos, status);
		swiw_qp_kick(qp, &qp->tx_work);
		return 0;
	case SWIW_OP_TERMINATE:
		swiw_count(qp->sdev, SWIW_CNT_TERM_RECV);
		return -ECONNRESET;
	default:
		return 0;
	}
}

/*
 * A control word swiw_hdr_len() refused: the layer that parses it first
 * (DDP, then RDMAP) reports it.  A tagged flag that does not match the
 * opcode makes the opcode one not expected with it.
 */
static enum swiw_fault swiw_rx_ctrl_fault(u16 ctrl)
{
	if ((ctrl & SWIW_CTRL_DV_MASK) != SWIW_CTRL_DV)
		return ctrl & SWIW_CTRL_T ? SWIW_FAULT_DDP_VERSION_T :
					    SWIW_FAULT_DDP_VERSION;
	if ((ctrl & SWIW_CTRL_RV_MASK) != SWIW_CTRL_RV)
		return SWIW_FAULT_RDMAP_VERSION;
	return SWIW_FAULT_OPCODE;
}

/* One read of the step the stream is at: 0 when it made progress. */
static int swiw_rx_step(struct swiw_qp *qp, struct swiw_rx_src *src)
{
	struct swiw_rx *rx = &qp->rx;
	struct swiw_mr *hold;
	u8 scratch[64];
	u32 want, room;
	u16 ctrl;
	void *dst;
	int n;

	switch (rx->step) {
	case SWIW_RX_HDR:
		want = rx->have < SWIW_HDR_MIN ? SWIW_HDR_MIN : rx->hdr_len;
		/* Only a header refused earlier leaves nothing to want. */
		if (unlikely(want <= rx->have))
			return -EPROTO;
		n = swiw_recv(src, rx->hdr.raw + rx->have, want - rx->have);
		if (n <= 0)
			return n ? n : -ESHUTDOWN;
		rx->have += n;
		if (rx->have == SWIW_HDR_MIN) {
			ctrl = be16_to_cpu(rx->hdr.u.ctrl);
			n = swiw_hdr_len(ctrl);
			if (n < 0)
				return swiw_rx_fail(rx,
						    swiw_rx_ctrl_fault(ctrl));
			rx->hdr_len = n;
			if (be16_to_cpu(rx->hdr.u.mpa_len) + 2 < rx->hdr_len)
				return -EPROTO;
		}
		if (rx->have < SWIW_HDR_MIN || rx->have < rx->hdr_len)
			return 0;
		return swiw_rx_hdr(qp);
	case SWIW_RX_PAYLOAD:
		n = swiw_rx_dst(qp, &dst, &room, scratch, sizeof(scratch),
				&hold);
		if (n)
			return n;
		n = swiw_recv(src, dst, room);
		if (n > 0 && qp->crc)
			rx->crc = swiw_crc_update(rx->crc, dst, n);
		swiw_mr_put(hold);
		if (n <= 0)
			return n ? n : -ESHUTDOWN;
		rx->have += n;
		if (rx->have == rx->payload) {
			rx->step = SWIW_RX_TRAILER;
			rx->have = 0;
		}
		return 0;
	case SWIW_RX_TRAILER:
		want = rx->pad + SWIW_CRC_LEN;
		n = swiw_recv(src, rx->trailer + rx->have, want - rx->have);
		if (n <= 0)
			return n ? n : -ESHUTDOWN;
		rx->have += n;
		if (rx->have < want)
			return 0;
		if (qp->crc) {
			__le32 crc;

			rx->crc = swiw_crc_update(rx->crc, rx->trailer,
						  rx->pad);
			crc = swiw_crc_final(rx->crc);
			if (memcmp(&crc, rx->trailer + rx->pad, SWIW_CRC_LEN))
				return swiw_rx_fail(rx, SWIW_FAULT_CRC);
		}
		rx->step = SWIW_RX_DONE;
		return 0;
	case SWIW_RX_DONE:
		return swiw_rx_done(qp, src);
	}
	return -EINVAL;
}

/* The TERMINATE of each fault (RFC 6580's registries). */
static const u32 swiw_fault_term[SWIW_FAULT_MAX] = {
	[SWIW_FAULT_NONE]		= SWIW_TERM_RDMAP_UNSPEC,
	[SWIW_FAULT_CRC]		= SWIW_TERM_MPA_CRC,
	[SWIW_FAULT_DDP_VERSION]	= SWIW_TERM_DDP_UT_VERSION,
	[SWIW_FAULT_DDP_VERSION_T]	= SWIW_TERM_DDP_T_VERSION,
	[SWIW_FAULT_RDMAP_VERSION]	= SWIW_TERM_RDMAP_VERSION,
	[SWIW_FAULT_OPCODE]		= SWIW_TERM_RDMAP_OPCODE,
	[SWIW_FAULT_QN]			= SWIW_TERM_DDP_QN,
	[SWIW_FAULT_NO_BUF]		= SWIW_TERM_DDP_NO_BUF,
	[SWIW_FAULT_MSN]		= SWIW_TERM_DDP_MSN,
	[SWIW_FAULT_MO]			= SWIW_TERM_DDP_MO,
	[SWIW_FAULT_TOO_LONG]		= SWIW_TERM_DDP_TOO_LONG,
	[SWIW_FAULT_STAG]		= SWIW_TERM_DDP_STAG,
	[SWIW_FAULT_BOUNDS]		= SWIW_TERM_DDP_BOUNDS,
	[SWIW_FAULT_FOREIGN]		= SWIW_TERM_DDP_FOREIGN,
	[SWIW_FAULT_WRAP]		= SWIW_TERM_DDP_WRAP,
	/* DDP has no code for rights: RDMAP checks them. */
	[SWIW_FAULT_ACCESS]		= SWIW_TERM_RDMAP_ACCESS,
	[SWIW_FAULT_SRC_STAG]		= SWIW_TERM_RDMAP_STAG,
	[SWIW_FAULT_SRC_BOUNDS]		= SWIW_TERM_RDMAP_BOUNDS,
	[SWIW_FAULT_SRC_FOREIGN]	= SWIW_TERM_RDMAP_FOREIGN,
	[SWIW_FAULT_SRC_WRAP]		= SWIW_TERM_RDMAP_WRAP,
	[SWIW_FAULT_SRC_ACCESS]		= SWIW_TERM_RDMAP_ACCESS,
	[SWIW_FAULT_INVAL]		= SWIW_TERM_RDMAP_INVAL,
	[SWIW_FAULT_LOCAL]		= SWIW_TERM_DDP_LOCAL,
};

/**
 * swiw_rx_term() - The TERMINATE that tells the peer about an error.
 * @fault: what the receive path (or the answer to a READ request) found
 *	wrong
 *
 * Return: the TERMINATE control word.
 */
u32 swiw_rx_term(enum swiw_fault fault)
{
	if (fault >= SWIW_FAULT_MAX)
		fault = SWIW_FAULT_NONE;
	return swiw_fault_term[fault];
}

/* tcp_read_sock()'s actor: parse what the skb has from @off on. */
static int swiw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct swiw_rx_src *src = desc->arg.data;
	int ret;

	if (src->err)
		return 0;
	src->skb = skb;
	src->off = off;
	src->len = len;
	do {
		ret = swiw_rx_step(src->qp, src);
	} while (!ret);
	src->skb = NULL;
	if (ret != -EAGAIN) {
		src->err = ret;
		desc->count = 0;
	}
	return len - src->len;
}

/*
 * What the socket has, parsed straight out of its skbs under one socket
 * lock: 0 when it made progress, else why it stopped.
 */
static int swiw_rx_batch(struct swiw_rx_src *src)
{
	read_descriptor_t desc = { .arg.data = src, .count = 1 };
	struct sock *sk = src->sock->sk;
	struct kvec iov;
	struct msghdr msg = {};
	int n;
	u8 c;

	/* A completion left to a context that can wait needs no byte. */
	if (src->qp->rx.step == SWIW_RX_DONE)
		return swiw_rx_step(src->qp, src);
	src->err = 0;
	lock_sock(sk);
	n = tcp_read_sock(sk, &desc, swiw_rx_actor);
	release_sock(sk);
	if (src->err)
		return src->err;
	if (n > 0)
		return 0;
	/*
	 * Nothing taken: EOF, an error, nothing more, or bytes that
	 * tcp_read_sock() stops short of (urgent data, which recvmsg
	 * skips) or that came meanwhile; those take one step by recvmsg.
	 */
	iov.iov_base = &c;
	iov.iov_len = 1;
	n = kernel_recvmsg(src->sock, &msg, &iov, 1, 1,
			   MSG_DONTWAIT | MSG_PEEK);
	if (n > 0)
		return swiw_rx_step(src->qp, src);
	return n ?: -ESHUTDOWN;
}

/* The parser stopped for good: the QP fails, and the peer hears why. */
static void swiw_rx_stop(struct swiw_qp *qp, int ret)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (ret == -ESHUTDOWN || ret == -ECONNRESET)
		qp->peer_closed = true;
	else if (!qp->term)
		qp->term = swiw_rx_term(qp->rx.fault);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!qp->peer_closed)
		ibdev_dbg(&qp->sdev->ibdev, "QP %u: inbound error %d (%d)\n",
			  qp->ibqp.qp_num, ret, qp->rx.fault);
	swiw_qp_fail(qp);
}

/*
 * Holding BUSY: whether the stream is still to be parsed.  After a
 * parser stopped for good, its state is that of a refused FPDU: the
 * other one, which may have seen the QP in RTS just before, must not
 * take the stream up from there.
 */
static bool swiw_rx_live(struct swiw_qp *qp)
{
	/* Ordered by test_and_set_bit(): set before BUSY was released. */
	if (!test_bit(SWIW_RX_DEAD, &qp->rx_flags))
		return true;
	clear_bit_unlock(SWIW_RX_BUSY, &qp->rx_flags);
	return false;
}

/*
 * One parser at a time: data_ready that finds it busy leaves the bytes
 * to rx_work; rx_work that finds it busy asks the running one to queue
 * it again when it is done.
 */
static bool swiw_rx_claim(struct swiw_qp *qp)
{
	if (test_and_set_bit(SWIW_RX_BUSY, &qp->rx_flags)) {
		set_bit(SWIW_RX_AGAIN, &qp->rx_flags);
		/* The other one may have looked for AGAIN just before. */
		if (test_and_set_bit(SWIW_RX_BUSY, &qp->rx_flags))
			return false;
		clear_bit(SWIW_RX_AGAIN, &qp->rx_flags);
	}
	return swiw_rx_live(qp);
}

static void swiw_rx_release(struct swiw_qp *qp)
{
	clear_bit_unlock(SWIW_RX_BUSY, &qp->rx_flags);
	/* Pairs with the one test_and_set_bit() in swiw_rx_claim() implies. */
	smp_mb__after_atomic();
	if (test_and_clear_bit(SWIW_RX_AGAIN, &qp->rx_flags))
		swiw_qp_kick(qp, &qp->rx_work);
}

/*
 * The parser lets go, for now (-EAGAIN: no more bytes; -EINPROGRESS: an
 * invalidation for rx_work to wait for) or for good.
 */
static void swiw_rx_end(struct swiw_qp *qp, int ret)
{
	bool dead = ret != -EAGAIN && ret != -EINPROGRESS;

	/* Before BUSY goes: see swiw_rx_live(). */
	if (dead)
		set_bit(SWIW_RX_DEAD, &qp->rx_flags);
	swiw_rx_release(qp);
	if (dead)
		swiw_rx_stop(qp, ret);
}

/**
 * swiw_rx_direct() - Parse what TCP has queued, from data_ready.
 * @qp: the QP the socket is attached to
 * @sk: the socket, which TCP's receive path holds locked
 *
 * Atomic context (softirq, or the socket owner's release_sock()), as a
 * hardware receive path: completions and their handlers run here.
 * Return: false when rx_work has to do it: the parser runs elsewhere,
 * the stream waits for the RTR (its ESTABLISHED takes the socket
 * lock), a recvmsg is needed, an invalidation has to wait for uses
 * of its STag on other CPUs, or rx_direct is off.
 */
bool swiw_rx_direct(struct swiw_qp *qp, struct sock *sk)
{
	struct swiw_rx_src src = { .qp = qp, .sock = sk->sk_socket };
	read_descriptor_t desc = { .arg.data = &src, .count = 1 };

	if (!READ_ONCE(swiw_rx_direct_on) || !READ_ONCE(swiw_rx_batched) ||
	    READ_ONCE(qp->rtr_wait) || READ_ONCE(qp->state) != SWIW_QP_RTS)
		return false;
	if (test_and_set_bit(SWIW_RX_BUSY, &qp->rx_flags))
		return false;
	if (!swiw_rx_live(qp))
		return true;
	tcp_read_sock(sk, &desc, swiw_rx_actor);
	if (src.err) {
		swiw_rx_end(qp, src.err);
		return src.err != -EINPROGRESS;
	}
	swiw_rx_release(qp);
	/* Urgent data stops tcp_read_sock() short: recvmsg skips it. */
	return skb_queue_empty_lockless(&sk->sk_receive_queue);
}

void swiw_rx_work(struct work_struct *work)
{
	struct swiw_qp *qp = container_of(work, struct swiw_qp, rx_work);
	struct swiw_rx_src src = { .qp = qp };
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->lock, flags);
	/* Released only after the close work cancelled this one. */
	src.sock = qp->state == SWIW_QP_RTS ? qp->sock : NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!src.sock || !swiw_rx_claim(qp))
		return;

	do {
		/*
		 * The RTR's ESTABLISHED looks at the socket's addresses,
		 * which takes its lock: until then a read at a time.
		 */
		if (unlikely(READ_ONCE(qp->rtr_wait)) ||
		    !READ_ONCE(swiw_rx_batched))
			ret = swiw_rx_step(qp, &src);
		else
			ret = swiw_rx_batch(&src);
		cond_resched();
		/* An invalidation to wait for: swiw_rx_batch() does. */
	} while (!ret || ret == -EINPROGRESS);
	swiw_rx_end(qp, ret);
}
