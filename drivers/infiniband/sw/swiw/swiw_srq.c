// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues.  A QP created with an SRQ has no receive queue
 * of its own: each inbound SEND on it takes the SRQ's oldest receive,
 * and completes it on the QP's receive CQ as the QP's own.  The rx works
 * of all the QPs on an SRQ take from it at once, and consumers post to
 * it from any context: the SRQ's lock orders them, and nothing else is
 * held under it.
 *
 * A receive belongs to a QP only from when the QP takes it: what is
 * still in the SRQ when a QP goes to ERROR stays for the other QPs, and
 * what is in it when it is destroyed is dropped with no completion (it
 * has no CQ; the core refuses to destroy an SRQ that QPs still use).
 */
#include <linux/log2.h>
#include <linux/mm.h>

#include "swiw.h"

static int swiw_srq_uresp(struct swiw_srq *srq, struct ib_udata *udata)
{
	struct siw_uresp_create_srq resp = {
		.num_rqe = srq->rq.size,
		.srq_key = rdma_user_mmap_get_offset(srq->urq_map),
	};

	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int swiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibsrq->device);
	struct swiw_srq *srq = to_swiw_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SWIW_MAX_SRQ_WR ||
	    attr->max_sge > SWIW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_srq))
		return -EINVAL;
	if (!swiw_count_get(&sdev->nr_srq, SWIW_MAX_SRQ))
		return -ENOMEM;

	spin_lock_init(&srq->lock);
	srq->rq.size = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	srq->rq.wqe = kvcalloc(srq->rq.size, sizeof(*srq->rq.wqe), GFP_KERNEL);
	if (!srq->rq.wqe) {
		ret = -ENOMEM;
		goto err;
	}
	if (udata) {
		/* libsiw's ring: siw_rqe slots, one per queue slot. */
		srq->urq = swiw_uqueue_alloc(udata,
					     srq->rq.size * sizeof(*srq->urq),
					     &srq->urq_map);
		if (!srq->urq) {
			ret = -ENOMEM;
			goto err;
		}
		ret = swiw_srq_uresp(srq, udata);
		if (ret)
			goto err;
	}
	attr->max_wr = srq->rq.size;
	return 0;

err:
	if (srq->urq)
		swiw_uqueue_free(srq->urq, srq->urq_map);
	kvfree(srq->rq.wqe);
	atomic_dec(&sdev->nr_srq);
	return ret;
}

int swiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct swiw_srq *srq = to_swiw_srq(ibsrq);
	unsigned long flags;
	int ret = 0;

	/* Resizing would move posted receives, and user slots with them. */
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	spin_lock_irqsave(&srq->lock, flags);
	if (attr->srq_limit > srq->rq.size)
		ret = -EINVAL;
	else
		srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}

int swiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct swiw_srq *srq = to_swiw_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int swiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct swiw_srq *srq = to_swiw_srq(ibsrq);

	/* No QP uses it any more: what it holds goes with it. */
	if (srq->urq)
		swiw_uqueue_free(srq->urq, srq->urq_map);
	kvfree(srq->rq.wqe);
	atomic_dec(&to_swiw_dev(ibsrq->device)->nr_srq);
	return 0;
}

int swiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad)
{
	struct swiw_srq *srq = to_swiw_srq(ibsrq);
	struct swiw_ring *r = &srq->rq;
	struct swiw_wqe wqe;
	unsigned long flags;
	int ret = 0;

	for (; wr; wr = wr->next) {
		/* A process posts to its mapped ring itself. */
		ret = srq->urq ? -EINVAL : swiw_recv_wqe(wr, srq->max_sge, &wqe);
		if (ret)
			break;
		spin_lock_irqsave(&srq->lock, flags);
		if (r->head - r->tail >= r->size)
			ret = -ENOMEM;
		else
			r->wqe[r->head++ & (r->size - 1)] = wqe;
		spin_unlock_irqrestore(&srq->lock, flags);
		if (ret)
			break;
	}
	if (ret)
		*bad = wr;
	return ret;
}

static void swiw_srq_event(struct swiw_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * swiw_srq_take() - Take an SRQ's oldest receive for an inbound SEND.
 * @srq: the SRQ
 * @wqe: where the receive goes
 *
 * Any of the SRQ's QPs' rx works, at once.  With a limit set, the
 * receive that leaves fewer than that posted raises
 * IB_EVENT_SRQ_LIMIT_REACHED, once: the limit is then cleared, and the
 * consumer sets it again with modify_srq when it has posted more.
 *
 * Return: 0, or -ENOBUFS when the SRQ is empty.
 */
int swiw_srq_take(struct swiw_srq *srq, struct swiw_wqe *wqe)
{
	struct swiw_ring *r = &srq->rq;
	unsigned long flags;
	bool limit = false;

	spin_lock_irqsave(&srq->lock, flags);
	/* All the process posted: the limit counts every valid slot. */
	if (srq->urq)
		swiw_usrq_fetch(srq);
	if (r->tail == r->head) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -ENOBUFS;
	}
	*wqe = r->wqe[r->tail & (r->size - 1)];
	if (srq->urq)
		swiw_usrq_release(srq, r->tail);
	r->tail++;
	if (srq->limit && r->head - r->tail < srq->limit) {
		srq->limit = 0;
		limit = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (limit)
		swiw_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return 0;
}
