// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User verbs in siw's ABI (include/uapi/rdma/siw-abi.h), so that
 * rdma-core's siw provider drives swiw unchanged.  The provider posts
 * to rings it maps, polls a completion ring it maps and arms it by a
 * word behind that ring; the kernel sees a post only as a doorbell (an
 * empty POST_SEND) or when it looks.
 *
 * swiw keeps its own queues as they are and mirrors a user ring slot
 * for slot: fetching copies a valid user element into the queue slot of
 * the same number, and the user slot is given back (flags cleared) when
 * the queue lets go of that slot: at completion for the send queue, at
 * consumption for the receive queue and a shared receive queue.  So the provider's "slot still
 * valid" is exactly "queue full", and a user element is read once.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "swiw.h"

/* libsiw takes this key for "not mapped": keys start above it. */
#define SWIW_UMAP_MIN_PGOFF	((SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1)

int swiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct siw_uresp_alloc_ctx resp = {
		.dev_id = to_swiw_dev(uctx->device)->ibdev.attrs.vendor_part_id,
	};

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

void swiw_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * The device goes while a process has it open.  By now the core has
 * destroyed the context's objects (a QP's flush is bounded, whatever
 * the process keeps posting) and removed the mmap entries.  Nothing of
 * the device is left in the process: its mappings are vmalloc_user()
 * pages they hold their own references on, with no doorbell or device
 * memory among them, so they stay plain memory and need no zapping.
 */
void swiw_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

int swiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct swiw_umap *m;
	int ret;

	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	m = container_of(entry, struct swiw_umap, entry);
	ret = remap_vmalloc_range(vma, m->addr, 0);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

void swiw_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(container_of(entry, struct swiw_umap, entry));
}

/**
 * swiw_uqueue_alloc() - Memory for a ring a user process maps.
 * @udata: the verb's user data (its context)
 * @len: bytes
 * @map: the mmap entry made for it; rdma_user_mmap_get_offset() of it
 *       is the offset the process maps the ring at
 *
 * Return: the ring, zeroed, or NULL.
 */
void *swiw_uqueue_alloc(struct ib_udata *udata, size_t len,
			struct rdma_user_mmap_entry **map)
{
	struct swiw_ucontext *uc;
	struct swiw_umap *m;
	void *addr;

	uc = rdma_udata_to_drv_context(udata, struct swiw_ucontext, base);
	if (!uc)
		return NULL;
	addr = vmalloc_user(len);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!addr || !m)
		goto err;
	m->addr = addr;
	if (rdma_user_mmap_entry_insert_range(&uc->base, &m->entry, len,
					      SWIW_UMAP_MIN_PGOFF, U32_MAX))
		goto err;
	*map = &m->entry;
	return addr;
err:
	kfree(m);
	vfree(addr);
	return NULL;
}

/*
 * The process may still have it mapped: the mapping holds its own
 * references on the pages, vfree() only drops ours.
 */
void swiw_uqueue_free(void *addr, struct rdma_user_mmap_entry *map)
{
	if (map)
		rdma_user_mmap_entry_remove(map);
	vfree(addr);
}

static u8 swiw_ucqe_opcode(enum ib_wc_opcode op)
{
	switch (op) {
	case IB_WC_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IB_WC_RDMA_READ:
		return SIW_OP_READ;
	case IB_WC_RECV:
		return SIW_OP_RECEIVE;
	default:
		return SIW_OP_SEND;
	}
}

static u16 swiw_ucqe_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return SIW_WC_SUCCESS;
	case IB_WC_LOC_LEN_ERR:
		return SIW_WC_LOC_LEN_ERR;
	case IB_WC_LOC_PROT_ERR:
		return SIW_WC_LOC_PROT_ERR;
	case IB_WC_LOC_QP_OP_ERR:
		return SIW_WC_LOC_QP_OP_ERR;
	case IB_WC_WR_FLUSH_ERR:
		return SIW_WC_WR_FLUSH_ERR;
	case IB_WC_BAD_RESP_ERR:
		return SIW_WC_BAD_RESP_ERR;
	case IB_WC_LOC_ACCESS_ERR:
		return SIW_WC_LOC_ACCESS_ERR;
	case IB_WC_REM_ACCESS_ERR:
		return SIW_WC_REM_ACCESS_ERR;
	case IB_WC_REM_INV_REQ_ERR:
		return SIW_WC_REM_INV_REQ_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}

/**
 * swiw_ucq_add() - Put a completion in a user CQ's ring.
 * @cq: the CQ, its lock held
 * @wc: the completion
 * @solicited: it completes a solicited event
 * @notify: set when the process armed the CQ for it (disarmed now)
 *
 * Return: false when the ring is full (the process did not poll).
 */
bool swiw_ucq_add(struct swiw_cq *cq, const struct ib_wc *wc,
		  bool solicited, bool *notify)
{
	struct siw_cqe *e = &cq->ucqe[cq->head & (cq->size - 1)];
	u32 arm;

	if (READ_ONCE(e->flags) & SIW_WQE_VALID)
		return false;
	e->id = wc->wr_id;
	e->opcode = swiw_ucqe_opcode(wc->opcode);
	e->status = swiw_ucqe_status(wc->status);
	e->bytes = wc->byte_len;
	e->imm_data = 0;
	e->qp_id = wc->qp->qp_num;
	/* The fields before the process sees the element valid. */
	smp_store_release(&e->flags, SIW_WQE_VALID);
	cq->head++;

	/*
	 * The element before the arming word: the process arms, then
	 * polls once more; either it sees the element or this sees the arm.
	 */
	smp_mb();
	arm = READ_ONCE(cq->uctrl->flags);
	*notify = (arm & SIW_NOTIFY_NEXT_COMPLETION) ||
		  ((arm & SIW_NOTIFY_SOLICITED) && solicited);
	if (*notify)
		WRITE_ONCE(cq->uctrl->flags, SIW_NOTIFY_NOT);
	return true;
}

/* A user element's SGEs into @w; false past 4 GiB or SWIW_MAX_SGE. */
static bool swiw_usges(struct swiw_wqe *w, const struct siw_sge *sge, u32 n)
{
	u32 i;

	if (n > SWIW_MAX_SGE)
		return false;
	w->num_sge = n;
	for (i = 0; i < n; i++) {
		w->sge[i].addr = sge[i].laddr;
		w->sge[i].length = sge[i].length;
		w->sge[i].lkey = sge[i].lkey;
		if (check_add_overflow(w->bytes, sge[i].length, &w->bytes))
			return false;
	}
	return true;
}

/* A user send element as a send queue request; false if malformed. */
static bool swiw_usqe_wqe(struct swiw_qp *qp, const struct siw_sqe *u,
			  struct swiw_wqe *w)
{
	memset(w, 0, offsetof(struct swiw_wqe, inline_data));
	w->wr_id = u->id;
	w->signaled = qp->sig_all || (u->flags & SIW_WQE_SIGNALLED);
	w->solicited = u->flags & SIW_WQE_SOLICITED;
	w->fence = u->flags & SIW_WQE_READ_FENCE;
	w->rkey = u->rkey;
	w->raddr = u->raddr;
	switch (u->opcode) {
	case SIW_OP_WRITE:
		w->opcode = IB_WR_RDMA_WRITE;
		break;
	case SIW_OP_READ:
		w->opcode = IB_WR_RDMA_READ;
		if (u->num_sge != 1 || (u->flags & SIW_WQE_INLINE))
			return false;
		break;
	case SIW_OP_SEND:
		w->opcode = IB_WR_SEND;
		break;
	case SIW_OP_SEND_REMOTE_INV:
		w->opcode = IB_WR_SEND_WITH_INV;
		break;
	default:
		/* Kernel-only ones (REG_MR names a kernel pointer) too. */
		w->opcode = IB_WR_SEND;
		return false;
	}
	if (u->flags & SIW_WQE_INLINE) {
		/* The payload follows the first SGE, which gives its length. */
		if (u->sge[0].length > SWIW_MAX_INLINE)
			return false;
		w->inl = true;
		w->bytes = u->sge[0].length;
		memcpy(w->inline_data, &u->sge[1], w->bytes);
		return true;
	}
	return swiw_usges(w, u->sge, u->num_sge);
}

/**
 * swiw_usq_fetch() - Take what the process posted to its send ring.
 * @qp: a user QP, its lock held
 *
 * A malformed element becomes a request that fails with
 * IB_WC_LOC_QP_OP_ERR in its turn, and the QP with it.
 */
void swiw_usq_fetch(struct swiw_qp *qp)
{
	struct swiw_ring *r = &qp->sq;
	struct siw_sqe *u, copy;
	struct swiw_wqe *w;

	while (r->head - r->tail < r->size) {
		u = &qp->usq[r->head & (r->size - 1)];
		/* Acquire: the element's fields after its flags. */
		if (!(smp_load_acquire(&u->flags) & SIW_WQE_VALID))
			break;
		/* One read: the process may write the slot meanwhile. */
		memcpy(&copy, u, sizeof(copy));
		w = &r->wqe[r->head & (r->size - 1)];
		if (!swiw_usqe_wqe(qp, &copy, w))
			w->status = IB_WC_LOC_QP_OP_ERR;
		r->head++;
	}
}

/*
 * Valid receive elements of a user ring into the queue it mirrors: a
 * malformed one is taken as a receive with no buffer, and a SEND that
 * lands in it fails for want of room.  The queue's lock held.
 */
static void swiw_urqe_fetch(struct swiw_ring *r, struct siw_rqe *ring)
{
	struct siw_rqe *u, copy;
	struct swiw_wqe *w;

	while (r->head - r->tail < r->size) {
		u = &ring[r->head & (r->size - 1)];
		/* Acquire: the element's fields after its flags. */
		if (!(smp_load_acquire(&u->flags) & SIW_WQE_VALID))
			break;
		memcpy(&copy, u, sizeof(copy));
		w = &r->wqe[r->head & (r->size - 1)];
		memset(w, 0, offsetof(struct swiw_wqe, inline_data));
		w->wr_id = copy.id;
		if (!swiw_usges(w, copy.sge, copy.num_sge)) {
			w->num_sge = 0;
			w->bytes = 0;
		}
		r->head++;
	}
}

/**
 * swiw_urq_fetch() - Take what the process posted to its receive ring.
 * @qp: a user QP, its lock held
 */
void swiw_urq_fetch(struct swiw_qp *qp)
{
	swiw_urqe_fetch(&qp->rq, qp->urq);
}

/**
 * swiw_usrq_fetch() - Take what the process posted to its SRQ's ring.
 * @srq: a user SRQ, its lock held
 *
 * libsiw posts to an SRQ with no system call: swiw looks when a SEND
 * needs a receive.
 */
void swiw_usrq_fetch(struct swiw_srq *srq)
{
	swiw_urqe_fetch(&srq->rq, srq->urq);
}

/**
 * swiw_usrq_release() - Give an SRQ ring slot back to the process.
 * @srq: a user SRQ, its lock held
 * @pos: the slot's number in the queue
 *
 * When a QP takes the receive, before its completion: libsiw posts to
 * the slot as soon as it finds it free.
 */
void swiw_usrq_release(struct swiw_srq *srq, u32 pos)
{
	/* Release: the element was read into the queue before this. */
	smp_store_release(&srq->urq[pos & (srq->rq.size - 1)].flags, 0);
}

/**
 * swiw_uq_release() - Give a ring slot back to the process.
 * @qp: a user QP
 * @recv: the receive ring (else the send ring)
 * @pos: the slot's number in the queue
 *
 * Before the completion is reported: the process may post to the slot
 * as soon as it sees that.
 */
void swiw_uq_release(struct swiw_qp *qp, bool recv, u32 pos)
{
	u16 *flags = recv ? &qp->urq[pos & (qp->rq.size - 1)].flags :
			    &qp->usq[pos & (qp->sq.size - 1)].flags;

	/*
	 * A full barrier: the process rings the doorbell only if it finds
	 * the slot before its new one free, and tx_work looks at the new
	 * one after this store; one of the two must see the other's.
	 */
	smp_store_mb(*flags, 0);
}
