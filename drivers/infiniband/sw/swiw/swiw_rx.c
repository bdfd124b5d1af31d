// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Inbound: the QP's rx_work reads the stream an FPDU at a time, header,
 * payload (straight into the target buffer), pad and CRC, never more
 * than the socket has (MSG_DONTWAIT), and picks up where it stopped at
 * the next data_ready.  Every header field comes from the peer: each
 * one is checked before it is used, and any violation ends the stream.
 */
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/socket.h>

#include "swiw.h"

void swiw_rx_reset(struct swiw_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	rx->msn = 1;
}

/* Some of @len bytes, if there are any: >0, 0 at EOF, or an error. */
static int swiw_recv(struct socket *sock, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

	return kernel_recvmsg(sock, &msg, &iov, 1, len, MSG_DONTWAIT);
}

/* Take the oldest receive for a new inbound SEND; map its buffers. */
static int swiw_rx_take_rqe(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->rq.tail == qp->rq.head) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return -ENOBUFS;
	}
	rx->rqe = qp->rq.wqe[qp->rq.tail & (qp->rq.size - 1)];
	qp->rq.tail++;
	spin_unlock_irqrestore(&qp->lock, flags);

	rx->rqe_busy = true;
	rx->placed = 0;
	for (i = 0; i < rx->rqe.num_sge; i++) {
		const struct ib_sge *sge = &rx->rqe.sge[i];

		rx->rqe_map[i].iov_len = sge->length;
		rx->rqe_map[i].iov_base = NULL;
		if (!sge->length)
			continue;
		rx->rqe_map[i].iov_base =
			swiw_mr_map(qp->sdev, qp->ibqp.pd, sge->lkey, sge->addr,
				    sge->length, IB_ACCESS_LOCAL_WRITE);
		if (!rx->rqe_map[i].iov_base) {
			rx->rqe_busy = false;
			swiw_complete(qp, true, &rx->rqe, IB_WC_LOC_PROT_ERR,
				      0, false);
			return -EFAULT;
		}
	}
	return 0;
}

/* A whole header is in: check it and say where its payload goes. */
static int swiw_rx_hdr(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	u16 ctrl = be16_to_cpu(rx->hdr.u.ctrl);
	u32 mpa_len = be16_to_cpu(rx->hdr.u.mpa_len);
	u32 msn, mo;
	int ret;

	rx->payload = mpa_len + 2 - rx->hdr_len;
	rx->pad = swiw_pad(mpa_len);
	rx->dst = NULL;
	rx->to_rqe = false;
	if (qp->crc)
		rx->crc = swiw_crc_update(SWIW_CRC_INIT, rx->hdr.raw,
					  rx->hdr_len);

	switch (ctrl & SWIW_CTRL_OP_MASK) {
	case SWIW_OP_SEND:
	case SWIW_OP_SEND_SE:
		msn = be32_to_cpu(rx->hdr.u.msn);
		mo = be32_to_cpu(rx->hdr.u.mo);
		if (be32_to_cpu(rx->hdr.u.qn) != SWIW_QN_SEND)
			return -EPROTO;
		if (!rx->rqe_busy) {
			if (msn != rx->msn || mo)
				return -EPROTO;
			ret = swiw_rx_take_rqe(qp);
			if (ret)
				return ret;
			rx->solicited = (ctrl & SWIW_CTRL_OP_MASK) ==
					SWIW_OP_SEND_SE;
		} else if (msn != rx->msn || mo != rx->placed) {
			return -EPROTO;
		}
		if (rx->payload > rx->rqe.bytes - rx->placed) {
			rx->rqe_busy = false;
			swiw_complete(qp, true, &rx->rqe, IB_WC_LOC_LEN_ERR,
				      rx->placed, false);
			return -EMSGSIZE;
		}
		rx->to_rqe = true;
		break;
	case SWIW_OP_WRITE:
		if (!(READ_ONCE(qp->access) & IB_ACCESS_REMOTE_WRITE))
			return -EACCES;
		rx->dst = swiw_mr_map(qp->sdev, qp->ibqp.pd,
				      be32_to_cpu(rx->hdr.t.stag),
				      be64_to_cpu(rx->hdr.t.to), rx->payload,
				      IB_ACCESS_REMOTE_WRITE);
		if (!rx->dst && rx->payload)
			return -EACCES;
		break;
	case SWIW_OP_TERMINATE:
		/* Read it all (it may carry a header), then close. */
		break;
	default:
		/* READ and SEND with invalidate are not taken yet. */
		return -EOPNOTSUPP;
	}
	rx->step = rx->payload ? SWIW_RX_PAYLOAD : SWIW_RX_TRAILER;
	rx->have = 0;
	return 0;
}

/* Where the next payload byte goes, and how many may go there. */
static void *swiw_rx_dst(struct swiw_rx *rx, u32 *room, u8 *scratch,
			 u32 scratch_len)
{
	u32 left = rx->payload - rx->have;
	u32 off, i;

	if (rx->dst) {
		*room = left;
		return rx->dst + rx->have;
	}
	if (!rx->to_rqe) {
		*room = min(left, scratch_len);
		return scratch;
	}
	off = rx->placed + rx->have;
	for (i = 0; i < rx->rqe.num_sge; i++) {
		if (off < rx->rqe_map[i].iov_len) {
			*room = min_t(u32, left,
				      rx->rqe_map[i].iov_len - off);
			return (u8 *)rx->rqe_map[i].iov_base + off;
		}
		off -= rx->rqe_map[i].iov_len;
	}
	/* swiw_rx_hdr() checked that the payload fits. */
	WARN_ON_ONCE(1);
	*room = min(left, scratch_len);
	return scratch;
}

/* The FPDU is all in and checked: what it completes. */
static int swiw_rx_done(struct swiw_qp *qp)
{
	struct swiw_rx *rx = &qp->rx;
	u16 ctrl = be16_to_cpu(rx->hdr.u.ctrl);

	rx->step = SWIW_RX_HDR;
	rx->have = 0;
	switch (ctrl & SWIW_CTRL_OP_MASK) {
	case SWIW_OP_SEND:
	case SWIW_OP_SEND_SE:
		rx->placed += rx->payload;
		if (!(ctrl & SWIW_CTRL_L))
			return 0;
		rx->rqe_busy = false;
		rx->msn++;
		swiw_complete(qp, true, &rx->rqe, IB_WC_SUCCESS, rx->placed,
			      rx->solicited);
		return 0;
	case SWIW_OP_TERMINATE:
		return -ECONNRESET;
	default:
		return 0;
	}
}

/* One read of the step the stream is at: 0 when it made progress. */
static int swiw_rx_step(struct swiw_qp *qp, struct socket *sock)
{
	struct swiw_rx *rx = &qp->rx;
	u8 scratch[64];
	u32 want, room;
	void *dst;
	int n;

	switch (rx->step) {
	case SWIW_RX_HDR:
		want = rx->have < SWIW_HDR_MIN ? SWIW_HDR_MIN : rx->hdr_len;
		n = swiw_recv(sock, rx->hdr.raw + rx->have, want - rx->have);
		if (n <= 0)
			return n ? n : -ESHUTDOWN;
		rx->have += n;
		if (rx->have == SWIW_HDR_MIN) {
			n = swiw_hdr_len(be16_to_cpu(rx->hdr.u.ctrl));
			if (n < 0)
				return n;
			rx->hdr_len = n;
			if (be16_to_cpu(rx->hdr.u.mpa_len) + 2 < rx->hdr_len)
				return -EPROTO;
		}
		if (rx->have < SWIW_HDR_MIN || rx->have < rx->hdr_len)
			return 0;
		return swiw_rx_hdr(qp);
	case SWIW_RX_PAYLOAD:
		dst = swiw_rx_dst(rx, &room, scratch, sizeof(scratch));
		n = swiw_recv(sock, dst, room);
		if (n <= 0)
			return n ? n : -ESHUTDOWN;
		if (qp->crc)
			rx->crc = swiw_crc_update(rx->crc, dst, n);
		rx->have += n;
		if (rx->have == rx->payload) {
			rx->step = SWIW_RX_TRAILER;
			rx->have = 0;
		}
		return 0;
	case SWIW_RX_TRAILER:
		want = rx->pad + SWIW_CRC_LEN;
		n = swiw_recv(sock, rx->trailer + rx->have, want - rx->have);
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
				return -EBADMSG;
		}
		return swiw_rx_done(qp);
	}
	return -EINVAL;
}

void swiw_rx_work(struct work_struct *work)
{
	struct swiw_qp *qp = container_of(work, struct swiw_qp, rx_work);
	struct socket *sock;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->lock, flags);
	/* Released only after the close work cancelled this one. */
	sock = qp->state == SWIW_QP_RTS ? qp->sock : NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!sock)
		return;

	do {
		ret = swiw_rx_step(qp, sock);
		cond_resched();
	} while (!ret);
	if (ret == -EAGAIN)
		return;
	if (ret == -ESHUTDOWN || ret == -ECONNRESET) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->peer_closed = true;
		spin_unlock_irqrestore(&qp->lock, flags);
	} else {
		ibdev_dbg(&qp->sdev->ibdev, "QP %u: inbound error %d\n",
			  qp->ibqp.qp_num, ret);
	}
	swiw_qp_fail(qp);
}
