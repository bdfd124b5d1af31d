// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions.  An STag is a 24-bit index into the device's table
 * and an 8-bit key.  The device has no DMA device, so the core hands it
 * kernel virtual addresses: a DMA MR covers all of them, a fast-reg MR
 * a list of pages that IB_WR_REG_MR makes valid (with a new key) and
 * IB_WR_LOCAL_INV or an inbound SEND with invalidate makes invalid.
 * A user MR is the pages of the process's memory, pinned while it
 * lives; every use of it holds a reference, so that deregistering it
 * in the middle of a transfer does not unpin pages being written.
 *
 * An inbound WRITE or READ request names an STag the local side may
 * invalidate and register again (REG_MR, even with the same key) at any
 * time, from another QP's work.  A use checks the STag and translates
 * the address in one pass over the registration inside mr->seq, and
 * redoes the pass if a REG_MR or invalidation ran meanwhile: the
 * address it returns is that of the registration whose key, validity,
 * PD and rights it checked, never of the next one.  The page list
 * map_mr_sg fills is copied in by the REG_MR, not used in place, so
 * mapping the next registration does not change the current one.
 *
 * The pages of a fast-reg MR are the ULP's, which may free them as soon
 * as the invalidation completes: a placement, or a READ response, that
 * found the STag valid may still be copying a piece into or out of them
 * on another CPU.  Such uses count themselves in mr->users before they
 * check, and an invalidation (or deregistration) waits for the count to
 * drain once the STag is invalid; one that cannot sleep leaves its
 * completion to a context that can.  No use waits while counted: a
 * READ response copies aside what TCP does not take at once.  The
 * gather of a local SEND (access 0) is not counted: its own send queue
 * orders it before the ULP's invalidation.
 */
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "swiw.h"

#define SWIW_STAG_INDEX(stag)	((stag) >> 8)

/* KUnit (swiw_mr_kunit.c) re-registers here: between check and use. */
#ifndef SWIW_MR_RACE
#define SWIW_MR_RACE(mr)	do { } while (0)
#endif

/* Undo swiw_mr_alloc() for an MR never published. */
static void swiw_mr_unalloc(struct swiw_dev *sdev, struct swiw_mr *mr)
{
	if (mr->stag)
		xa_erase(&sdev->mrs, SWIW_STAG_INDEX(mr->stag));
	atomic_dec(&sdev->nr_mr);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr);
}

static struct swiw_mr *swiw_mr_alloc(struct swiw_dev *sdev)
{
	struct swiw_mr *mr;
	u32 index;
	int ret;

	if (!swiw_count_get(&sdev->nr_mr, SWIW_MAX_MR))
		return ERR_PTR(-ENOMEM);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&sdev->nr_mr);
		return ERR_PTR(-ENOMEM);
	}
	spin_lock_init(&mr->lock);
	seqcount_spinlock_init(&mr->seq, &mr->lock);
	/* The index stays reserved (NULL) until swiw_mr_publish(). */
	ret = xa_alloc_cyclic(&sdev->mrs, &index, NULL, XA_LIMIT(1, 0xffffff),
			      &sdev->mr_next, GFP_KERNEL);
	if (ret < 0) {
		swiw_mr_unalloc(sdev, mr);
		return ERR_PTR(ret);
	}
	mr->stag = index << 8;
	mr->ibmr.lkey = mr->stag;
	mr->ibmr.rkey = mr->stag;
	refcount_set(&mr->ref, 1);
	return mr;
}

/* Fast-reg MRs: the ones REG_MR and invalidation act on. */
static bool swiw_mr_frmr(const struct swiw_mr *mr)
{
	return mr->pages && !mr->umem;
}

/* Visible to lookups only once complete. */
static void swiw_mr_publish(struct swiw_dev *sdev, struct swiw_mr *mr)
{
	xa_store(&sdev->mrs, SWIW_STAG_INDEX(mr->stag), mr, GFP_KERNEL);
}

struct ib_mr *swiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct swiw_dev *sdev = to_swiw_dev(ibpd->device);
	struct swiw_mr *mr = swiw_mr_alloc(sdev);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->dma = true;
	mr->valid = true;
	mr->pd = ibpd;
	mr->ibmr.length = U64_MAX;
	swiw_mr_publish(sdev, mr);
	return &mr->ibmr;
}

struct ib_mr *swiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct swiw_dev *sdev = to_swiw_dev(ibpd->device);
	struct swiw_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SWIW_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = swiw_mr_alloc(sdev);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	/* The registration's page list, then the one map_mr_sg fills. */
	mr->pages = kvcalloc(2 * max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		swiw_mr_unalloc(sdev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->map = mr->pages + max_num_sg;
	mr->max_pages = max_num_sg;
	mr->pd = ibpd;
	swiw_mr_publish(sdev, mr);
	return &mr->ibmr;
}

static int swiw_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct swiw_mr *mr = to_swiw_mr(ibmr);

	if (mr->map_npages == mr->max_pages)
		return -ENOMEM;
	mr->map[mr->map_npages++] = addr;
	return 0;
}

int swiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct swiw_mr *mr = to_swiw_mr(ibmr);

	if (!mr->map || !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	mr->map_npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, swiw_set_page);
}

struct ib_mr *swiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibpd->device);
	struct siw_uresp_reg_mr resp = {};
	struct ib_block_iter biter;
	struct swiw_mr *mr;
	size_t npages;
	int ret;

	if (!udata || udata->inlen < sizeof(struct siw_ureq_reg_mr) ||
	    udata->outlen < sizeof(resp))
		return ERR_PTR(-EINVAL);
	/* Pages are found from the offset into the first one. */
	if (!len || (start ^ virt) & ~PAGE_MASK || virt + len < virt)
		return ERR_PTR(-EINVAL);
	mr = swiw_mr_alloc(sdev);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(ibpd->device, start, len, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err;
	}
	npages = ib_umem_num_dma_blocks(mr->umem, PAGE_SIZE);
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err;
	}
	/* A device without DMA: the DMA addresses are kernel addresses. */
	rdma_umem_for_each_dma_block(mr->umem, &biter, PAGE_SIZE) {
		if (mr->npages == npages)
			break;
		mr->pages[mr->npages++] = rdma_block_iter_dma_address(&biter);
	}
	mr->page_shift = PAGE_SHIFT;
	mr->iova = virt;
	mr->length = len;
	mr->access = access;
	mr->pd = ibpd;
	mr->valid = true;
	mr->ibmr.length = len;
	resp.stag = mr->stag;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err;
	swiw_mr_publish(sdev, mr);
	return &mr->ibmr;
err:
	swiw_mr_unalloc(sdev, mr);
	return ERR_PTR(ret);
}

static void swiw_mr_free(struct rcu_head *rcu)
{
	struct swiw_mr *mr = container_of(rcu, struct swiw_mr, rcu);

	kvfree(mr->pages);
	kfree(mr);
}

static void swiw_mr_release_work(struct work_struct *work)
{
	struct swiw_mr *mr = container_of(work, struct swiw_mr, release);

	ib_umem_release(mr->umem);
	call_rcu(&mr->rcu, swiw_mr_free);
}

/**
 * swiw_mr_release() - The last reference to a deregistered MR is gone.
 * @mr: the MR
 *
 * Any context.  Unpinning user pages may sleep: the receive path, which
 * puts its reference in data_ready, leaves that to swiw's workqueue.
 */
void swiw_mr_release(struct swiw_mr *mr)
{
	if (mr->umem && !preemptible()) {
		INIT_WORK(&mr->release, swiw_mr_release_work);
		queue_work(swiw_wq, &mr->release);
		return;
	}
	if (mr->umem)
		ib_umem_release(mr->umem);
	/* A lookup may still be reading it under RCU. */
	call_rcu(&mr->rcu, swiw_mr_free);
}

/* The registration ends (caller holds mr->lock). */
static void swiw_mr_invalid(struct swiw_mr *mr)
{
	write_seqcount_begin(&mr->seq);
	mr->valid = false;
	write_seqcount_end(&mr->seq);
}

/* Whether uses that found @mr valid, before it was not, remain. */
static bool swiw_mr_busy(struct swiw_mr *mr)
{
	/* Pairs with swiw_mr_piece()'s, between its count and its check. */
	smp_mb();
	/* Acquire: the ULP's next access to the pages comes after. */
	return atomic_read_acquire(&mr->users);
}

/* Wait for them: each lets go once its piece is copied. */
static void swiw_mr_drain(struct swiw_mr *mr)
{
	if (swiw_mr_busy(mr))
		wait_var_event(&mr->users, !atomic_read_acquire(&mr->users));
}

int swiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibmr->device);
	struct swiw_mr *mr = to_swiw_mr(ibmr);

	xa_erase(&sdev->mrs, SWIW_STAG_INDEX(mr->stag));
	atomic_dec(&sdev->nr_mr);
	/* Its pages go back to the ULP: no use still in them. */
	if (swiw_mr_frmr(mr)) {
		spin_lock_bh(&mr->lock);
		swiw_mr_invalid(mr);
		spin_unlock_bh(&mr->lock);
		swiw_mr_drain(mr);
	}
	if (refcount_dec_and_test(&mr->ref))
		swiw_mr_release(mr);
	return 0;
}

/**
 * swiw_mr_reg() - Carry out an IB_WR_REG_MR in send queue order.
 * @qp: the QP it was posted on
 * @ibmr: the MR
 * @key: its new STag (the index must stay)
 * @access: the access it grants
 *
 * The pages are those of the last map_mr_sg, copied: a use that found
 * the old registration keeps translating into it until it looks again.
 *
 * Return: 0, or -EINVAL for an MR of another PD or device, a key with
 * another index, or an MR never mapped.
 */
int swiw_mr_reg(struct swiw_qp *qp, struct ib_mr *ibmr, u32 key, int access)
{
	struct swiw_mr *mr = to_swiw_mr(ibmr);

	if (ibmr->device != qp->ibqp.device || mr->pd != qp->ibqp.pd ||
	    !swiw_mr_frmr(mr) || SWIW_STAG_INDEX(key) != SWIW_STAG_INDEX(mr->stag) ||
	    !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	write_seqcount_begin(&mr->seq);
	mr->stag = key;
	mr->access = access;
	mr->iova = ibmr->iova;
	mr->length = ibmr->length;
	mr->page_shift = ilog2(ibmr->page_size);
	mr->npages = mr->map_npages;
	memcpy(mr->pages, mr->map, mr->npages * sizeof(*mr->pages));
	mr->valid = true;
	write_seqcount_end(&mr->seq);
	spin_unlock_bh(&mr->lock);
	return 0;
}

/**
 * swiw_mr_inval() - Make an STag of @pd invalid.
 * @sdev: the device
 * @pd: the PD it must belong to
 * @key: the STag
 * @wait: whether the caller may sleep until no use is left in the
 *	registration's pages
 *
 * The STag is invalid on return either way.  -EBUSY asks the caller to
 * call again from process context, with @wait, before it reports the
 * invalidation complete: until then a use that found the STag valid
 * may still be in the pages.
 *
 * Return: 0, -EINVAL for an STag that is not @pd's fast-reg MR, or
 * -EBUSY (only without @wait).
 */
int swiw_mr_inval(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		  bool wait)
{
	struct swiw_mr *mr, *held = NULL;
	int ret = -EINVAL;

	might_sleep_if(wait);
	rcu_read_lock();
	mr = xa_load(&sdev->mrs, SWIW_STAG_INDEX(key));
	if (mr && swiw_mr_frmr(mr) && mr->pd == pd) {
		spin_lock_bh(&mr->lock);
		if (mr->stag == key) {
			swiw_mr_invalid(mr);
			ret = 0;
		}
		spin_unlock_bh(&mr->lock);
	}
	/* A use holds a reference: none is left without one. */
	if (!ret && swiw_mr_busy(mr)) {
		if (!wait)
			ret = -EBUSY;
		else if (refcount_inc_not_zero(&mr->ref))
			held = mr;
	}
	rcu_read_unlock();
	if (held) {
		swiw_mr_drain(held);
		if (refcount_dec_and_test(&held->ref))
			swiw_mr_release(held);
	}
	return ret;
}

/* What the registration refuses @key for, before the range. */
static enum swiw_fault swiw_mr_deny(const struct swiw_mr *mr,
				    struct ib_pd *pd, u32 key, int access)
{
	if (!READ_ONCE(mr->valid) || READ_ONCE(mr->stag) != key)
		return SWIW_FAULT_STAG;
	if (mr->pd != pd)
		return SWIW_FAULT_FOREIGN;
	if ((READ_ONCE(mr->access) & access) != access)
		return SWIW_FAULT_ACCESS;
	return SWIW_FAULT_NONE;
}

/*
 * One pass over the registration, inside mr->seq: the address of
 * [@addr, @addr + @len) under @key, or NULL.  What it reads may be
 * torn by a writer (the caller then discards it), so each bound comes
 * from one read and no index goes past the page array.
 */
static void *swiw_mr_find(struct swiw_mr *mr, struct ib_pd *pd, u32 key,
			  u64 addr, u32 len, int access, u32 *piece)
{
	u32 ps, idx, in, npages, shift;
	u64 off, first, iova, length;
	u64 *pages = mr->pages;
	void *va;

	if (swiw_mr_deny(mr, pd, key, access))
		return NULL;
	SWIW_MR_RACE(mr);
	if (mr->dma) {
		*piece = len;
		return (void *)(uintptr_t)addr;
	}
	iova = READ_ONCE(mr->iova);
	length = READ_ONCE(mr->length);
	npages = READ_ONCE(mr->npages);
	shift = READ_ONCE(mr->page_shift);
	if (addr < iova || addr + len > iova + length || shift >= 32)
		return NULL;
	ps = 1U << shift;
	first = iova & ~(u64)(ps - 1);
	off = addr - first;
	idx = off >> shift;
	in = off & (ps - 1);
	if (idx >= npages)
		return NULL;
	*piece = min(len, ps - in);
	va = (u8 *)(uintptr_t)READ_ONCE(pages[idx]) + in;
	/* Pages that follow each other in memory make one piece. */
	while (*piece < len && idx + 1 < npages &&
	       READ_ONCE(pages[idx + 1]) == READ_ONCE(pages[idx]) + ps) {
		idx++;
		*piece = min(len, *piece + ps);
	}
	return va;
}

/**
 * swiw_mr_piece() - Kernel address of a byte an STag names.
 * @sdev: the device
 * @pd: the PD the STag must belong to
 * @key: the STag (lkey or rkey)
 * @addr: the byte's address as the STag's user gives it
 * @len: bytes wanted from there on
 * @access: IB_ACCESS_* the use needs (0: local read)
 * @piece: how many of @len are contiguous at the returned address
 * @hold: what the caller lets go of (swiw_mr_put()) once done with the
 *	address: the MR of user memory, or a fast-reg MR used with
 *	@access, else NULL
 *
 * Return: the address, or NULL when the STag does not grant all of
 * [@addr, @addr + @len).
 */
void *swiw_mr_piece(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		    u64 addr, u32 len, int access, u32 *piece,
		    struct swiw_mr **hold)
{
	struct swiw_mr *mr;
	void *va = NULL;
	unsigned int seq;

	*hold = NULL;
	if (!len || addr + len < addr)
		return NULL;
	rcu_read_lock();
	mr = xa_load(&sdev->mrs, SWIW_STAG_INDEX(key));
	if (!mr)
		goto out;
	if (access && swiw_mr_frmr(mr)) {
		if (!refcount_inc_not_zero(&mr->ref))
			goto out;
		atomic_inc(&mr->users);
		/* Counted before the check: pairs with swiw_mr_busy()'s. */
		smp_mb__after_atomic();
		*hold = mr;
	}
	/* The check and the translation see one registration. */
	do {
		seq = read_seqcount_begin(&mr->seq);
		va = swiw_mr_find(mr, pd, key, addr, len, access, piece);
	} while (read_seqcount_retry(&mr->seq, seq));
	if (*hold) {
		if (!va) {
			swiw_mr_put(mr);
			*hold = NULL;
		}
		goto out;
	}
	/* Other kernel memory is the ULP's to keep; user memory is ours. */
	if (va && mr->umem) {
		if (refcount_inc_not_zero(&mr->ref))
			*hold = mr;
		else
			va = NULL;
	}
out:
	rcu_read_unlock();
	return va;
}

/**
 * swiw_mr_fault() - Why swiw_mr_piece() refused a range.
 * @sdev: the device
 * @pd: the PD the STag must belong to
 * @key: the STag
 * @addr: the range's first byte, as the STag's user gives it
 * @len: its length, not 0
 * @access: IB_ACCESS_* the use needed
 *
 * Only for the TERMINATE that reports the refusal: a second look, which
 * sees the registration as it is now.
 *
 * Return: the first check the range fails (the tagged offset's wrap,
 * the STag, its PD, its rights, the bounds), or SWIW_FAULT_NONE when
 * the STag grants it all now.
 */
enum swiw_fault swiw_mr_fault(struct swiw_dev *sdev, struct ib_pd *pd,
			      u32 key, u64 addr, u32 len, int access)
{
	enum swiw_fault fault = SWIW_FAULT_STAG;
	struct swiw_mr *mr;
	unsigned int seq;
	u64 iova, length;

	if (addr + len < addr)
		return SWIW_FAULT_WRAP;
	rcu_read_lock();
	mr = xa_load(&sdev->mrs, SWIW_STAG_INDEX(key));
	if (!mr)
		goto out;
	do {
		seq = read_seqcount_begin(&mr->seq);
		fault = swiw_mr_deny(mr, pd, key, access);
		iova = READ_ONCE(mr->iova);
		length = READ_ONCE(mr->length);
	} while (read_seqcount_retry(&mr->seq, seq));
	if (!fault && !mr->dma &&
	    (addr < iova || addr + len > iova + length))
		fault = SWIW_FAULT_BOUNDS;
out:
	rcu_read_unlock();
	return fault;
}
