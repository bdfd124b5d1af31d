// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: a ring of work completions under a spinlock.  The
 * queue's work items fill them, consumers poll them from any context.
 * A user CQ's ring is siw's, which the process maps and polls itself.
 */
#include <linux/log2.h>
#include <linux/mm.h>

#include "swiw.h"

int swiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibcq->device);
	struct swiw_cq *cq = to_swiw_cq(ibcq);
	struct siw_uresp_create_cq resp = {};
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SWIW_MAX_CQE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (!swiw_count_get(&sdev->nr_cq, SWIW_MAX_CQ))
		return -ENOMEM;
	cq->size = roundup_pow_of_two(attr->cqe);
	spin_lock_init(&cq->lock);
	ibcq->cqe = cq->size;
	if (!udata) {
		cq->wc = kvcalloc(cq->size, sizeof(*cq->wc), GFP_KERNEL);
		if (cq->wc)
			return 0;
		ret = -ENOMEM;
		goto err;
	}

	/* The arming word sits behind the elements, in the same mapping. */
	cq->ucqe = swiw_uqueue_alloc(udata, cq->size * sizeof(*cq->ucqe) +
				     sizeof(*cq->uctrl), &cq->umap);
	if (!cq->ucqe) {
		ret = -ENOMEM;
		goto err;
	}
	resp.cq_key = rdma_user_mmap_get_offset(cq->umap);
	cq->uctrl = (struct siw_cq_ctrl *)&cq->ucqe[cq->size];
	/* resp.cq_id only shows in libsiw's debug output: 0. */
	resp.num_cqe = cq->size;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (!ret)
		return 0;
	swiw_uqueue_free(cq->ucqe, cq->umap);
err:
	atomic_dec(&sdev->nr_cq);
	return ret;
}

int swiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct swiw_cq *cq = to_swiw_cq(ibcq);

	if (cq->ucqe)
		swiw_uqueue_free(cq->ucqe, cq->umap);
	kvfree(cq->wc);
	atomic_dec(&to_swiw_dev(ibcq->device)->nr_cq);
	return 0;
}

int swiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct swiw_cq *cq = to_swiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

	/* A user CQ is polled by its process only. */
	if (cq->ucqe)
		return 0;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->tail != cq->head) {
		wc[n++] = cq->wc[cq->tail & (cq->size - 1)];
		cq->tail++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int swiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct swiw_cq *cq = to_swiw_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP ||
	    cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->tail != cq->head)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * swiw_cq_add() - Add a completion and run the handler if armed for it.
 * @cq: the queue
 * @wc: the completion
 * @solicited: it completes a solicited event
 *
 * An overflow loses the completion.  The first one reports
 * IB_EVENT_CQ_ERR, as a hardware CQ that goes to error would; later ones
 * report nothing.  uverbs queues every event until the process reads it,
 * so an event per lost completion would let a process that fills its
 * rings and never polls or reads its events grow kernel memory without
 * bound, one allocation per doorbell.
 *
 * Return: false on an overflow.
 */
bool swiw_cq_add(struct swiw_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool notify = false, overflow = false, report = false;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->ucqe) {
		overflow = !swiw_ucq_add(cq, wc, solicited, &notify);
	} else if (cq->head - cq->tail >= cq->size) {
		overflow = true;
	} else {
		cq->wc[cq->head & (cq->size - 1)] = *wc;
		cq->head++;
		notify = cq->armed == IB_CQ_NEXT_COMP ||
			 (cq->armed == IB_CQ_SOLICITED && solicited);
		if (notify)
			cq->armed = 0;
	}
	if (overflow && !cq->overflowed) {
		cq->overflowed = true;
		report = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (report && cq->ibcq.event_handler) {
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.event = IB_EVENT_CQ_ERR,
			.element.cq = &cq->ibcq,
		};

		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return !overflow;
}
