// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions.  An STag is a 24-bit index into the device's table
 * and an 8-bit key (0 for now).  The device has no DMA device, so the
 * core hands it kernel virtual addresses: a DMA MR covers all of them.
 */
#include <linux/slab.h>

#include "swiw.h"

#define SWIW_STAG_INDEX(stag)	((stag) >> 8)

struct ib_mr *swiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct swiw_dev *sdev = to_swiw_dev(ibpd->device);
	struct swiw_mr *mr;
	u32 index;
	int ret;

	if (atomic_inc_return(&sdev->nr_mr) > SWIW_MAX_MR) {
		ret = -ENOMEM;
		goto err;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		ret = -ENOMEM;
		goto err;
	}
	mr->access = access;
	mr->dma = true;
	mr->ibmr.length = U64_MAX;
	ret = xa_alloc_cyclic(&sdev->mrs, &index, mr, XA_LIMIT(1, 0xffffff),
			      &sdev->mr_next, GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		goto err;
	}
	mr->ibmr.lkey = index << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;

err:
	atomic_dec(&sdev->nr_mr);
	return ERR_PTR(ret);
}

/* User memory comes with the user verbs ABI, not yet. */
struct ib_mr *swiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

int swiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct swiw_dev *sdev = to_swiw_dev(ibmr->device);
	struct swiw_mr *mr = to_swiw_mr(ibmr);

	xa_erase(&sdev->mrs, SWIW_STAG_INDEX(ibmr->lkey));
	atomic_dec(&sdev->nr_mr);
	/* A lookup may still hold it under RCU. */
	kfree_rcu(mr, rcu);
	return 0;
}

/**
 * swiw_mr_map() - Kernel address of a range an STag names.
 * @sdev: the device
 * @pd: the PD the STag must belong to
 * @key: the STag (lkey or rkey)
 * @addr: start of the range as the STag's user gives it
 * @len: length of the range
 * @access: IB_ACCESS_* the use needs (0: local read)
 *
 * Return: the address, or NULL when the STag does not grant it.
 */
void *swiw_mr_map(struct swiw_dev *sdev, struct ib_pd *pd, u32 key,
		  u64 addr, u32 len, int access)
{
	struct swiw_mr *mr;
	void *va = NULL;

	if (addr + len < addr)
		return NULL;
	rcu_read_lock();
	mr = xa_load(&sdev->mrs, SWIW_STAG_INDEX(key));
	if (mr && mr->ibmr.lkey == key && mr->ibmr.pd == pd &&
	    (mr->access & access) == access && mr->dma && addr)
		va = (void *)(uintptr_t)addr;
	rcu_read_unlock();
	return va;
}
