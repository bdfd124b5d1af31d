// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Outbound: the QP's tx_work takes its send queue in order and sends
 * each request as FPDUs.  The work may block in the socket while the
 * peer is slow; the close work's shutdown wakes it.  A request leaves
 * the queue only once its last FPDU is with TCP, so a close flushes
 * the one in flight with the rest.
 */
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "swiw.h"

/* FPDUs at most one MSS long, in 8 bytes: what siw sends. */
static u32 swiw_fpdu_max(struct socket *sock)
{
	u32 mss = READ_ONCE(tcp_sk(sock->sk)->mss_cache);

	return clamp_t(u32, mss, 128, 65536) & ~7U;
}

struct swiw_tx_msg {
	union swiw_hdr hdr;
	u32 hdr_len;
	struct kvec data[SWIW_MAX_SGE];
	int nr_data;
};

/* The local buffers of @wqe as kernel addresses, or false. */
static bool swiw_tx_map(struct swiw_qp *qp, const struct swiw_wqe *wqe,
			struct swiw_tx_msg *m)
{
	int i;

	m->nr_data = 0;
	if (wqe->inl) {
		m->data[0].iov_base = (void *)wqe->inline_data;
		m->data[0].iov_len = wqe->bytes;
		m->nr_data = wqe->bytes ? 1 : 0;
		return true;
	}
	for (i = 0; i < wqe->num_sge; i++) {
		const struct ib_sge *sge = &wqe->sge[i];
		void *va;

		if (!sge->length)
			continue;
		va = swiw_mr_map(qp->sdev, qp->ibqp.pd, sge->lkey, sge->addr,
				 sge->length, 0);
		if (!va)
			return false;
		m->data[m->nr_data].iov_base = va;
		m->data[m->nr_data].iov_len = sge->length;
		m->nr_data++;
	}
	return true;
}

/* Send bytes [@off, @off + @len) of the message in one FPDU. */
static int swiw_tx_fpdu(struct swiw_qp *qp, struct socket *sock,
			struct swiw_tx_msg *m, u32 off, u32 len)
{
	struct kvec iov[SWIW_MAX_SGE + 2];
	u8 trailer[3 + SWIW_CRC_LEN] = {};
	u32 mpa_len = m->hdr_len - 2 + len;
	u32 pad = swiw_pad(mpa_len);
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_EOR };
	u32 pos = 0, total;
	__le32 crc_le = 0;
	u32 crc;
	int i, n = 0;

	m->hdr.u.mpa_len = cpu_to_be16(mpa_len);
	iov[n].iov_base = &m->hdr;
	iov[n++].iov_len = m->hdr_len;
	for (i = 0; i < m->nr_data && len; i++) {
		u32 seg_len = m->data[i].iov_len;
		u32 skip, take;

		if (pos + seg_len <= off) {
			pos += seg_len;
			continue;
		}
		skip = off > pos ? off - pos : 0;
		take = min(seg_len - skip, off + len - max(off, pos));
		iov[n].iov_base = (u8 *)m->data[i].iov_base + skip;
		iov[n++].iov_len = take;
		pos += seg_len;
		if (pos >= off + len)
			break;
	}
	if (qp->crc) {
		crc = SWIW_CRC_INIT;
		for (i = 0; i < n; i++)
			crc = swiw_crc_update(crc, iov[i].iov_base,
					      iov[i].iov_len);
		crc = swiw_crc_update(crc, trailer, pad);
		crc_le = swiw_crc_final(crc);
	}
	/* Without CRC the field is zero. */
	memcpy(trailer + pad, &crc_le, SWIW_CRC_LEN);
	iov[n].iov_base = trailer;
	iov[n++].iov_len = pad + SWIW_CRC_LEN;

	total = 2 + mpa_len + pad + SWIW_CRC_LEN;
	i = kernel_sendmsg(sock, &msg, iov, n, total);
	if (i < 0)
		return i;
	return i == total ? 0 : -EPIPE;
}

static int swiw_tx_message(struct swiw_qp *qp, struct socket *sock,
			   const struct swiw_wqe *wqe)
{
	struct swiw_tx_msg m;
	u32 off = 0, max_pay, len;
	enum swiw_rdmap_op op;
	int ret;

	if (!swiw_tx_map(qp, wqe, &m))
		return -EFAULT;
	memset(&m.hdr, 0, sizeof(m.hdr));
	switch (wqe->opcode) {
	case IB_WR_RDMA_WRITE:
		op = SWIW_OP_WRITE;
		m.hdr_len = sizeof(struct swiw_hdr_tagged);
		m.hdr.t.stag = cpu_to_be32(wqe->rkey);
		break;
	case IB_WR_SEND_WITH_INV:
		op = wqe->solicited ? SWIW_OP_SEND_SE_INV : SWIW_OP_SEND_INV;
		m.hdr.u.inval_stag = cpu_to_be32(wqe->rkey);
		goto untagged;
	default:
		op = wqe->solicited ? SWIW_OP_SEND_SE : SWIW_OP_SEND;
untagged:
		m.hdr_len = sizeof(struct swiw_hdr_untagged);
		m.hdr.u.qn = cpu_to_be32(SWIW_QN_SEND);
		m.hdr.u.msn = cpu_to_be32(++qp->tx_msn);
		break;
	}
	max_pay = swiw_fpdu_max(sock) - m.hdr_len - SWIW_CRC_LEN;
	do {
		len = min(wqe->bytes - off, max_pay);
		m.hdr.u.ctrl = cpu_to_be16(swiw_ctrl(op, off + len ==
						     wqe->bytes));
		if (op == SWIW_OP_WRITE)
			m.hdr.t.to = cpu_to_be64(wqe->raddr + off);
		else
			m.hdr.u.mo = cpu_to_be32(off);
		ret = swiw_tx_fpdu(qp, sock, &m, off, len);
		if (ret)
			return ret;
		off += len;
	} while (off < wqe->bytes);
	return 0;
}

void swiw_tx_work(struct work_struct *work)
{
	struct swiw_qp *qp = container_of(work, struct swiw_qp, tx_work);
	struct socket *sock;
	struct swiw_wqe wqe;
	unsigned long flags;
	int ret;

	for (;;) {
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state != SWIW_QP_RTS || qp->sq.tail == qp->sq.head) {
			spin_unlock_irqrestore(&qp->lock, flags);
			return;
		}
		wqe = qp->sq.wqe[qp->sq.tail & (qp->sq.size - 1)];
		/* Released only after the close work cancelled this one. */
		sock = qp->sock;
		spin_unlock_irqrestore(&qp->lock, flags);

		ret = swiw_tx_message(qp, sock, &wqe);
		if (ret == -EFAULT) {
			/* A bad local key: this request fails, then the QP. */
			spin_lock_irqsave(&qp->lock, flags);
			qp->sq.tail++;
			spin_unlock_irqrestore(&qp->lock, flags);
			swiw_complete(qp, false, &wqe, IB_WC_LOC_PROT_ERR, 0,
				      false);
		}
		if (ret) {
			swiw_qp_fail(qp);
			return;
		}
		spin_lock_irqsave(&qp->lock, flags);
		qp->sq.tail++;
		spin_unlock_irqrestore(&qp->lock, flags);
		swiw_complete(qp, false, &wqe, IB_WC_SUCCESS, wqe.bytes, false);
	}
}
